// Page weight of every page of the built book, as a first visit transfers
// it from a gzip-serving static host (scripts/node/serve-gzip.mjs), in
// Debian's headless Chromium driven by Lighthouse's puppeteer-core. For
// scripts/report-lighthouse; prints and asserts nothing.
//
//   node scripts/node/page-weight.mjs BASE_URL BOOK_DIR
//
// One line per page: requests, bytes transferred (gzip, headers included),
// bytes once decoded, and whether the chart engine and the lab worker were
// loaded; then the total over all pages.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.resolve(".tools/lighthouse/node_modules/lighthouse/package.json"));
const puppeteer = require("puppeteer-core");

const [base, dir] = process.argv.slice(2);
const pages = fs.readdirSync(dir).filter((f) => f.endsWith(".html")).sort();
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
});
const kb = (b) => (b / 1024).toFixed(1).padStart(7);
let total = 0;
console.log(`${"page".padEnd(24)} requests   gzip KB  decoded KB  chart engine  lab worker`);
for (const name of pages) {
  const page = await browser.newPage();
  await page.setCacheEnabled(false);
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${base}/${name}`, { waitUntil: "networkidle0", timeout: 60000 });
  const w = await page.evaluate(() => {
    const all = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")];
    return {
      requests: all.length,
      transfer: all.reduce((s, e) => s + (e.transferSize || 0), 0),
      decoded: all.reduce((s, e) => s + (e.decodedBodySize || 0), 0),
      engine: all.some((e) => /pagewalk-viz(?:-[0-9a-f]+)?\.js/.test(e.name)),
      worker: all.some((e) => /pagewalk-lab-worker/.test(e.name)),
    };
  });
  total += w.transfer;
  console.log(
    `${name.padEnd(24)} ${String(w.requests).padStart(8)} ${kb(w.transfer)}   ${kb(w.decoded)}  ${(w.engine ? "yes" : "no").padStart(12)}  ${(w.worker ? "yes" : "no").padStart(10)}`,
  );
  await page.close();
}
console.log(`${"all pages".padEnd(24)} ${" ".repeat(8)} ${kb(total)}`);
await browser.close();
