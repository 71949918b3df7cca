// The lab worker's message loop. scripts/build-wasm puts it after the
// wasm-bindgen glue (which defines `wasm_bindgen`) and `b64` (the module's
// bytes) inside one function, whose source the page runs as a Blob URL
// worker. One request at a time: the experiments run synchronously, and
// the page cancels one by terminating the worker.
//
// Request:  {id, cmd: "timer"|"first-touch"|"chase"|"tlb-model"|"load-file"|"compare", params, label, bytes, charts, files}
//           (compare: files is [{name, bytes}], the baseline first)
// Replies:  {id, type: "progress", done, total, text}
//           {id, type: "done", result}   (the export's JSON, parsed)
//           {id, type: "error", message}
// and once, unasked: {type: "ready"} or {type: "error", message}.
let startError = null;
try {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  wasm_bindgen.initSync({ module: bytes });
} catch (e) {
  startError = "the experiments' WebAssembly did not start: " + e;
}

const isolated = !!self.crossOriginIsolated;

// A trap inside WebAssembly says only "unreachable" or "out of memory":
// words for us, not for a reader. The page ends this worker after any
// error, so the next request gets a fresh one.
function describe(err, cmd) {
  const text = String((err && err.message) || err);
  if (err instanceof WebAssembly.RuntimeError || /unreachable|out of memory/i.test(text)) {
    if (cmd === "compare") return "the page could not compare these files (its reader stopped); the charts keep them";
    return cmd === "load-file"
      ? "the page could not read this file (its reader stopped); other files still load"
      : "the experiment stopped inside WebAssembly, most likely because the browser refused " +
        "memory; try a smaller size";
  }
  return text;
}

self.onmessage = (event) => {
  const req = event.data || {};
  const post = (msg) => self.postMessage(Object.assign({ id: req.id }, msg));
  if (startError) {
    post({ type: "error", message: startError });
    return;
  }
  self.pagewalkLabProgress = (done, total, text) => post({ type: "progress", done, total, text });
  try {
    let out;
    switch (req.cmd) {
      case "timer":
        out = wasm_bindgen.timer(isolated);
        break;
      case "first-touch":
        out = wasm_bindgen.first_touch(JSON.stringify(req.params), isolated);
        break;
      case "chase":
        out = wasm_bindgen.chase(JSON.stringify(req.params), isolated);
        break;
      case "tlb-model":
        out = wasm_bindgen.tlb_model(JSON.stringify(req.params));
        break;
      case "load-file":
        out = wasm_bindgen.load_file(String(req.label), new Uint8Array(req.bytes), JSON.stringify(req.charts || []));
        break;
      case "compare": {
        // One buffer with the lengths beside it: see compare_files in lib.rs.
        const parts = (req.files || []).map((f) => new Uint8Array(f.bytes));
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let at = 0;
        for (const p of parts) {
          all.set(p, at);
          at += p.length;
        }
        const names = (req.files || []).map((f) => String(f.name));
        out = wasm_bindgen.compare_files(JSON.stringify(names), JSON.stringify(parts.map((p) => p.length)), all);
        break;
      }
      default:
        throw new Error("unknown command " + req.cmd);
    }
    post({ type: "done", result: JSON.parse(out) });
  } catch (err) {
    post({ type: "error", message: describe(err, req.cmd) });
  }
};

self.postMessage(startError ? { type: "error", message: startError } : { type: "ready" });
