// A static server for the built book on 127.0.0.1, answering as a static
// host does: gzip (level 9) for text when the browser accepts it, and a
// ten-minute Cache-Control. For scripts/report-lighthouse; not a test
// server (browser-tests/src/server.rs is).
//
//   node scripts/node/serve-gzip.mjs DIR      prints "port N" on stdout once listening
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const root = path.resolve(process.argv[2] || "book-out");
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};
const COMPRESS = new Set([".html", ".js", ".css", ".json", ".svg", ".txt"]);
const cache = new Map();

const server = http.createServer((req, res) => {
  let rel;
  try {
    rel = decodeURIComponent(new URL(req.url, "http://x").pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (rel.endsWith("/")) rel += "index.html";
  const file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    const missing = path.join(root, "404.html");
    res.writeHead(404, { "Content-Type": TYPES[".html"] });
    res.end(fs.existsSync(missing) ? fs.readFileSync(missing) : "not found");
    return;
  }
  const ext = path.extname(file);
  const headers = { "Content-Type": TYPES[ext] || "application/octet-stream", "Cache-Control": "max-age=600" };
  let body = fs.readFileSync(file);
  if (COMPRESS.has(ext) && /\bgzip\b/.test(req.headers["accept-encoding"] || "")) {
    if (!cache.has(file)) cache.set(file, zlib.gzipSync(body, { level: 9 }));
    body = cache.get(file);
    headers["Content-Encoding"] = "gzip";
    headers["Vary"] = "Accept-Encoding";
  }
  headers["Content-Length"] = body.length;
  res.writeHead(200, headers);
  res.end(req.method === "HEAD" ? undefined : body);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`port ${server.address().port}`);
});
