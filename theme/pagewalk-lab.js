/* pagewalk: the in-page experiments (sections .pw-lab, written by the
 * preprocessor's {{lab "NAME"}} helper). Does nothing on a page without one.
 *
 * The experiments are Rust compiled to WebAssembly (wasm-lab) and run in Web
 * Workers, so the page never freezes. scripts/build-wasm writes the worker's
 * whole source (glue, wasm as base64, message loop) as the function
 * window.pagewalkLabWorkerMain in gen/pagewalk-lab-worker.js; this script
 * loads that file only when a lab first needs a worker (Run pressed, the
 * TLB model's controls moved, a file dropped), never on load, and starts
 * workers from a Blob URL of the function's source, which works from
 * file:// and fetches nothing.
 *
 * - An experiment (first touch, chase) gets a fresh worker per run; Cancel
 *   terminates it. Each has a memory cap and a time cap (checked in Rust
 *   between samples, and a hard stop here).
 * - The TLB model and file loading share one long-lived worker.
 * - Results go into the page's charts through window.pagewalkViz
 *   (wasm-viz's replace_series): role "browser" for this browser's results,
 *   "file" for files the reader loads. Nothing is sent anywhere; results are
 *   kept in localStorage only when the reader ticks "keep my results".
 *
 * window.pagewalkLab is the same machinery for tests and the report.
 *
 * Why one file of 700 lines: the experiments, the TLB model and the dropped
 * files share one closure (the long-lived service worker, the bundle
 * promise, the charts' overlays, the stored results). Split across
 * scripts, that state would have to live on window, where any other
 * script could change it. */
(function () {
  "use strict";

  const sections = document.querySelectorAll("section.pw-lab");
  if (!sections.length) return;

  const here = document.currentScript && document.currentScript.src;
  const root = here ? here.replace(/theme\/pagewalk-lab(?:-[0-9a-f]+)?\.js(?:[?#].*)?$/, "") : "";
  const WORKER_SCRIPT = root + "gen/pagewalk-lab-worker.js";
  const STORE = "pagewalk-lab-results-v1";
  // The model's limit, written into the page by the preprocessor.
  const dropZone = document.querySelector("section.pw-lab .pw-lab-drop[data-max-file-bytes]");
  const MAX_FILE = Number(dropZone && dropZone.dataset.maxFileBytes) || 8 * 1024 * 1024;
  const LAB_OF = { "first-touch": "first-touch", chase: "chase" };

  const live = new Set(); // every worker not yet terminated
  const running = new Map(); // experiment -> {worker, cancelled, hardStop}
  const results = {}; // experiment -> last result ({report, series})
  let bundle = null; // promise: the worker bundle loaded
  let blobUrl = null;
  let service = null; // promise of the long-lived worker: TLB model, file loading
  let serviceWorker = null;
  let seq = 0;

  const $ = (section, sel) => section.querySelector(sel);
  const lab = (name) => document.querySelector(`section.pw-lab[data-lab="${name}"]`);

  function loadBundle() {
    if (window.pagewalkLabWorkerMain) return Promise.resolve();
    if (!bundle) {
      bundle = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = WORKER_SCRIPT;
        s.async = true;
        s.onload = () =>
          window.pagewalkLabWorkerMain
            ? resolve()
            : reject(new Error(`${WORKER_SCRIPT} did not define the worker`));
        s.onerror = () => {
          bundle = null;
          reject(new Error(`the experiments are not built (${WORKER_SCRIPT} is missing: run scripts/build-wasm)`));
        };
        document.head.appendChild(s);
      });
    }
    return bundle;
  }

  async function newWorker() {
    await loadBundle();
    if (!blobUrl) {
      const source = "(" + window.pagewalkLabWorkerMain.toString() + ")();\n";
      blobUrl = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    }
    const w = new Worker(blobUrl);
    live.add(w);
    return w;
  }

  function end(worker) {
    if (!worker) return;
    worker.terminate();
    live.delete(worker);
  }

  /* Sends one request; resolves with the export's result, rejects with an
   * Error carrying the worker's message. */
  function request(worker, msg, onProgress) {
    const id = ++seq;
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        worker.removeEventListener("message", onMessage);
        worker.removeEventListener("error", onError);
      };
      const onMessage = (e) => {
        const m = e.data || {};
        if (m.id === undefined && m.type === "error") {
          cleanup();
          reject(new Error(m.message));
          return;
        }
        if (m.id !== id) return;
        if (m.type === "progress") {
          if (onProgress) onProgress(m);
          return;
        }
        cleanup();
        if (m.type === "done") resolve(m.result);
        else reject(new Error(m.message));
      };
      const onError = (e) => {
        e.preventDefault();
        cleanup();
        reject(new Error("the worker failed: " + (e.message || "no reason given")));
      };
      worker.addEventListener("message", onMessage);
      worker.addEventListener("error", onError);
      worker.postMessage(Object.assign({ id }, msg));
    });
  }

  async function ask(msg) {
    if (!service) {
      service = newWorker().then((w) => (serviceWorker = w));
      service.catch(() => (service = null));
    }
    const w = await service;
    try {
      return await request(w, msg);
    } catch (e) {
      // A worker that failed is not trusted again.
      end(w);
      service = null;
      throw e;
    }
  }

  /* ---- charts ---- */

  function chartNames() {
    return [...document.querySelectorAll("figure.pw-chart[data-chart]")].map((f) => f.dataset.chart);
  }

  function overlay(chart, role, label, data) {
    const viz = window.pagewalkViz;
    if (!viz || typeof viz.replace_series !== "function") return false;
    if (role === "browser" && data.series && data.series.length) reveal(chart);
    return viz.replace_series(chart, role, label || "", JSON.stringify(data));
  }

  /* A lab's chart stays hidden until this browser has results for it
   * (preprocessor/src/lab.rs): shown before it is drawn with them, so it
   * is drawn at its real width. */
  function reveal(chart) {
    const fig = document.querySelector(`figure.pw-chart[data-chart="${chart}"]`);
    const box = fig && fig.closest(".pw-lab-chart");
    if (!box || !box.hidden) return;
    box.hidden = false;
    const empty = box.parentElement && box.parentElement.querySelector(".pw-lab-empty");
    if (empty) empty.hidden = true;
  }

  /* A worker result's series (role browser) and x-axis markers, on every
   * chart of the page they name; charts the page lacks are skipped. */
  function apply(result) {
    for (const [chart, data] of Object.entries(result.series || {})) overlay(chart, "browser", "", data);
    const viz = window.pagewalkViz;
    if (!viz || typeof viz.set_markers !== "function") return;
    for (const [chart, markers] of Object.entries(result.markers || {})) {
      viz.set_markers(chart, JSON.stringify(markers));
    }
  }

  /* ---- formatting ---- */

  function size(bytes) {
    const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let v = bytes;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
  }

  function step(ns) {
    if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`;
    if (ns >= 1e3) return `${(ns / 1e3).toPrecision(3)} µs`;
    return `${ns.toPrecision(3)} ns`;
  }

  function timerText(t) {
    return `timer step ${step(t.resolution_ns)} (smallest change of performance.now() over ${t.readings} readings); ` +
      `cross-origin isolated: ${t.cross_origin_isolated ? "yes" : "no"}`;
  }

  /* ---- experiment sections ---- */

  function setState(section, state) {
    section.setAttribute("data-pw-lab-state", state);
    const runBtn = $(section, ".pw-lab-run");
    const cancel = $(section, ".pw-lab-cancel");
    if (runBtn) runBtn.disabled = state === "running";
    if (cancel) cancel.disabled = state !== "running";
    for (const input of section.querySelectorAll(".pw-lab-params select, .pw-lab-params input")) {
      input.disabled = state === "running";
    }
  }

  function say(section, text) {
    const s = $(section, ".pw-lab-status");
    if (s) s.textContent = text;
  }

  function fail(section, text) {
    const e = $(section, ".pw-lab-error");
    if (!e) return;
    e.textContent = text || "";
    e.hidden = !text;
  }

  function showProgress(section, p) {
    const bar = $(section, ".pw-lab-progress");
    if (bar) {
      bar.max = Math.max(1, p.total);
      bar.value = p.done;
    }
    say(section, `${p.done} of ${p.total}: ${p.text}`);
  }

  /* A number field: a whole number within the input's own min and max.
   * A wrong value is named with its label and the run refused; it is never
   * quietly replaced by a default. */
  function num(section, name, fallback, errors) {
    const el = $(section, `[name="${name}"]`);
    if (!el) return fallback;
    if (el.tagName === "SELECT") return Number(el.value) || fallback;
    const raw = String(el.value).trim();
    const v = Number(raw);
    const min = el.min === "" ? 1 : Number(el.min);
    const max = el.max === "" ? Number.MAX_SAFE_INTEGER : Number(el.max);
    if (raw !== "" && Number.isInteger(v) && v >= min && v <= max) return v;
    const label = el.closest("label");
    const what = (label && label.firstChild && label.firstChild.textContent.trim()) || name;
    const got = el.validity && el.validity.badInput ? "not a number" : raw === "" ? "empty" : `"${raw}"`;
    errors.push(`${what}: enter a whole number from ${min} to ${max} (${got})`);
    return fallback;
  }

  /* The run's parameters from the form, and what is wrong with them. */
  function paramsOf(name, section) {
    const errors = [];
    const n = (field, fallback) => num(section, field, fallback, errors);
    let params;
    if (name === "first-touch") {
      const max = n("max-mib", 64);
      const sizes = [];
      for (let s = 16; s <= max; s *= 2) sizes.push(s);
      params = {
        sizes_mib: sizes,
        repetitions: n("repetitions", 3),
        memory_cap_mib: n("memory-cap-mib", 1024),
        time_cap_s: n("time-cap-s", 60),
      };
    } else {
      params = {
        max_kib: n("max-kib", 65536),
        samples: n("samples", 5),
        time_cap_s: n("time-cap-s", 60),
      };
    }
    return { params, errors };
  }

  function summary(name, r) {
    const parts = [timerText(r.timer)];
    if (name === "first-touch") {
      parts.push(`${r.sizes.length} size(s), ${r.params.repetitions} repetition(s) each, every one in new memory`);
      if (r.plan_note) parts.push(r.plan_note);
    } else {
      const loads = r.points.map((p) => p.loads_per_sample);
      parts.push(`${r.points.length} region size(s), ${r.params.samples} sample(s) each`);
      if (loads.length) {
        parts.push(`${Math.min(...loads).toLocaleString("en")} to ${Math.max(...loads).toLocaleString("en")} loads per sample`);
      }
    }
    if (r.stopped) parts.push(r.stopped);
    return parts.join("; ") + ".";
  }

  function show(name, result, restored) {
    const section = lab(LAB_OF[name]);
    results[name] = result;
    apply(result);
    if (!section) return;
    const r = result.report;
    const s = $(section, ".pw-lab-summary");
    // A phase the worker left off the chart (no value at any size), and why.
    const off = (result.left_off || []).length ? ` Not drawn: ${result.left_off.join("; ")}.` : "";
    if (s) s.textContent = (restored ? `Kept from ${restored}: ` : "") + summary(name, r) + off;
    fail(section, r.error || "");
  }

  async function run(name, params) {
    const section = lab(LAB_OF[name]);
    if (!LAB_OF[name]) throw new Error(`no experiment ${name}`);
    if (running.has(name)) throw new Error(`${name} is already running`);
    const entry = { worker: null, cancelled: false, hardStop: null };
    running.set(name, entry);
    if (section) {
      setState(section, "running");
      fail(section, "");
      showProgress(section, { done: 0, total: 1, text: "starting a worker" });
    }
    try {
      const worker = await newWorker();
      if (entry.cancelled) {
        end(worker);
        return null;
      }
      entry.worker = worker;
      const wait = new Promise((_, reject) => {
        entry.hardStop = setTimeout(
          () => reject(new Error(`the time cap of ${params.time_cap_s} s passed and the worker did not stop by itself, so it was ended`)),
          (params.time_cap_s + 30) * 1000,
        );
      });
      const result = await Promise.race([
        request(worker, { cmd: name, params }, (p) => section && showProgress(section, p)),
        wait,
      ]);
      if (entry.cancelled) return null;
      if (result.error) throw new Error(result.error);
      show(name, result);
      save();
      if (!window.pagewalkViz && section) {
        fail(section, "The charts could not be redrawn (their script did not start), so the results are only in the summary above.");
      }
      if (section) {
        setState(section, result.report.error ? "error" : "done");
        say(section, result.report.error ? "Stopped with an error (below); what was measured is in the chart." : "Done.");
      }
      return result;
    } catch (e) {
      if (entry.cancelled) return null;
      if (section) {
        setState(section, "error");
        fail(section, e.message);
        say(section, "Stopped with an error (below). The page is unaffected; run it again with smaller sizes.");
      }
      throw e;
    } finally {
      clearTimeout(entry.hardStop);
      end(entry.worker);
      if (running.get(name) === entry) running.delete(name);
    }
  }

  function cancel(name) {
    const entry = running.get(name);
    if (!entry) return false;
    entry.cancelled = true;
    clearTimeout(entry.hardStop);
    end(entry.worker);
    running.delete(name);
    const section = lab(LAB_OF[name]);
    if (section) {
      setState(section, "idle");
      const bar = $(section, ".pw-lab-progress");
      if (bar) bar.value = 0;
      say(section, "Cancelled: the worker was stopped and nothing more was measured.");
    }
    return true;
  }

  function wireExperiment(section) {
    const name = section.dataset.lab;
    $(section, ".pw-lab-run").addEventListener("click", () => {
      const { params, errors } = paramsOf(name, section);
      if (errors.length) {
        fail(section, "Not run: " + errors.join("; ") + ".");
        section.setAttribute("data-pw-lab-state", "error");
        return;
      }
      run(name, params).catch(() => {});
    });
    $(section, ".pw-lab-cancel").addEventListener("click", () => cancel(name));
    setState(section, "idle");
  }

  /* ---- TLB model ---- */

  let modelTimer = null;
  let modelSeq = 0;

  function wireModel(section) {
    const entries = $(section, '[name="entries"]');
    const page = $(section, '[name="page-bytes"]');
    const reach = $(section, ".pw-lab-reach");
    const counts = (entries.dataset.values || "").split(",").map(Number);
    const read = () => ({
      entries: counts[Number(entries.value)] || 64,
      page_bytes: Number(page.value) || 4096,
      max_kib: 1048576,
    });
    const showReach = () => {
      const p = read();
      if (reach) reach.textContent = `${p.entries} entries × ${size(p.page_bytes)} = reach ${size(p.entries * p.page_bytes)}`;
      return p;
    };
    const update = () => {
      const p = showReach();
      clearTimeout(modelTimer);
      modelTimer = setTimeout(async () => {
        const mine = ++modelSeq;
        section.setAttribute("data-pw-lab-state", "running");
        try {
          const result = await ask({ cmd: "tlb-model", params: p });
          if (mine !== modelSeq) return;
          if (result.error) throw new Error(result.error);
          apply(result);
          fail(section, "");
          section.setAttribute("data-pw-lab-state", "done");
        } catch (e) {
          if (mine !== modelSeq) return;
          fail(section, `The model could not run: ${e.message}`);
          section.setAttribute("data-pw-lab-state", "error");
        }
      }, 60);
    };
    entries.addEventListener("input", update);
    page.addEventListener("input", update);
    page.addEventListener("change", update);
    entries.disabled = false;
    page.disabled = false;
    // The model's worker starts when the reader first moves a control, not
    // on load: a reader who only reads the page downloads no worker.
    showReach();
  }

  /* ---- comparing machines ---- */

  const files = new Map(); // label -> charts it overlays
  const fileBytes = new Map(); // label -> its bytes, in load order: the first is the baseline
  let compareSeq = 0;

  async function loadFiles(list) {
    const section = lab("compare");
    const errors = [];
    const names = chartNames();
    for (const file of list) {
      const label = file.name;
      if (file.size > MAX_FILE) {
        errors.push(`${label}: ${size(file.size)} is larger than a run file may be (${size(MAX_FILE)})`);
        continue;
      }
      try {
        // Bytes, not text: the model decodes them by the CLI's rule.
        const bytes = await file.arrayBuffer();
        const result = await ask({ cmd: "load-file", label, bytes, charts: names });
        if (result.error) {
          errors.push(result.error);
          continue;
        }
        removeFile(label);
        const f = result.file;
        for (const [chart, data] of Object.entries(f.overlays)) overlay(chart, "file", label, data);
        files.set(label, Object.keys(f.overlays));
        fileBytes.set(label, bytes);
        if (section) listFile(section, f);
      } catch (e) {
        errors.push(`${label}: ${e.message}`);
      }
    }
    if (section) {
      fail(section, errors.length ? "Not loaded: " + errors.join(" | ") : "");
      section.setAttribute("data-pw-lab-state", errors.length ? "error" : "done");
    }
    await compareLoaded();
    return errors;
  }

  /* ---- the verdict table: the loaded files against the first ---- */

  /* Runs the model's comparison (the one `collector compare` runs) on the
   * loaded files and draws its table; with fewer than two files, hides it.
   * Every string in it comes from a file, so all of it is textContent. */
  async function compareLoaded() {
    const section = lab("compare");
    const box = section && $(section, ".pw-lab-verdicts");
    const mine = ++compareSeq;
    if (fileBytes.size < 2) {
      if (box) {
        box.replaceChildren();
        box.hidden = true;
      }
      return null;
    }
    const list = [...fileBytes].map(([name, bytes]) => ({ name, bytes }));
    let result;
    try {
      result = await ask({ cmd: "compare", files: list });
      if (result.error) throw new Error(result.error);
    } catch (e) {
      if (mine === compareSeq && section) fail(section, `Not compared: ${e.message}`);
      return null;
    }
    if (mine !== compareSeq || !box) return result.table;
    drawVerdicts(box, result.table);
    return result.table;
  }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function drawVerdicts(box, t) {
    const parts = [el("h3", "Verdicts: each file against the first")];
    const runs = el("ul", undefined, "pw-verdict-runs");
    t.runs.forEach((r, i) => runs.appendChild(el("li", `${i === 0 ? "baseline" : "run"}: ${r}`)));
    parts.push(runs);
    if (t.setup.length) {
      parts.push(el("p", "Setup differences (they change what a figure means):"));
      const ul = el("ul", undefined, "pw-verdict-setup");
      for (const d of t.setup) ul.appendChild(el("li", `${d.what}: ${d.values.join(" | ")}`));
      parts.push(ul);
    } else {
      parts.push(el("p", "Setup: the same in every run.", "pw-verdict-setup"));
    }
    // What "noise" is, said once for every row (each row's noise column
    // gives its figure's own, and hovering it the spreads and floors).
    parts.push(el("p", t.rule, "pw-verdict-rule"));
    const table = el("table", undefined, "pw-verdict-table");
    const head = el("tr");
    for (const h of t.header) head.appendChild(el("th", h));
    table.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    for (const r of t.rows) {
      const tr = el("tr");
      tr.dataset.outcome = r.outcome;
      tr.dataset.experiment = r.experiment;
      tr.dataset.figure = r.figure;
      tr.dataset.run = r.run;
      r.cells.forEach((c, i) => {
        const td = el("td", c);
        // The column's name, for the stacked layout of a narrow screen.
        td.dataset.label = t.header[i];
        if (t.header[i] === "noise" && r.outcome !== "not-compared") td.title = r.basis;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
    table.appendChild(body);
    const scroll = el("div", undefined, "pw-verdict-scroll");
    scroll.appendChild(table);
    parts.push(scroll);
    const notes = t.rows.filter((r) => r.outcome === "not-compared");
    if (notes.length) {
      parts.push(el("p", "Not compared:"));
      const ul = el("ul", undefined, "pw-verdict-notes");
      for (const r of notes) ul.appendChild(el("li", `${r.experiment} / ${r.cells[1]} (${r.run}): ${r.basis}`));
      parts.push(ul);
    }
    parts.push(el("p", t.tally, "pw-verdict-tally"));
    box.replaceChildren(...parts);
    box.hidden = false;
  }

  function removeFile(label) {
    const charts = files.get(label);
    if (!charts) return;
    for (const chart of charts) overlay(chart, "file", label, { series: [] });
    files.delete(label);
    fileBytes.delete(label);
    compareLoaded();
    const section = lab("compare");
    if (!section) return;
    for (const li of section.querySelectorAll(".pw-lab-files li")) {
      if (li.dataset.file === label) li.remove();
    }
  }

  function listFile(section, f) {
    const ul = $(section, ".pw-lab-files");
    if (!ul) return;
    const li = document.createElement("li");
    li.dataset.file = f.label;
    const n = Object.keys(f.overlays).length;
    li.textContent = `${f.label} (${f.describes}): on ${n} chart${n === 1 ? "" : "s"}` +
      (f.nothing_for.length ? `; nothing for ${f.nothing_for.join(", ")}` : "") + " ";
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "pw-lab-remove";
    btn.textContent = "Remove";
    btn.addEventListener("click", () => removeFile(f.label));
    li.appendChild(btn);
    ul.appendChild(li);
  }

  function wireCompare(section) {
    const input = $(section, 'input[type="file"]');
    input.disabled = false;
    input.addEventListener("change", () => {
      const list = [...input.files];
      input.value = "";
      loadFiles(list);
    });
    const drop = $(section, ".pw-lab-drop");
    if (drop) {
      drop.addEventListener("dragover", (e) => {
        e.preventDefault();
        drop.classList.add("pw-lab-dragging");
      });
      drop.addEventListener("dragleave", () => drop.classList.remove("pw-lab-dragging"));
      drop.addEventListener("drop", (e) => {
        e.preventDefault();
        drop.classList.remove("pw-lab-dragging");
        loadFiles([...e.dataTransfer.files]);
      });
    }
    const keep = $(section, '[name="keep"]');
    if (keep) {
      keep.disabled = false;
      keep.checked = stored() !== null;
      keep.addEventListener("change", () => (keep.checked ? save(true) : forget()));
    }
    section.setAttribute("data-pw-lab-state", "idle");
  }

  /* ---- keeping results (only when the reader asks) ---- */

  function keeping() {
    const keep = document.querySelector('section.pw-lab [name="keep"]');
    return !!(keep && keep.checked);
  }

  function stored() {
    try {
      return JSON.parse(localStorage.getItem(STORE));
    } catch (_) {
      return null;
    }
  }

  function save(force) {
    if (!force && !keeping()) return;
    try {
      localStorage.setItem(STORE, JSON.stringify({ saved: new Date().toISOString(), results }));
    } catch (e) {
      const section = lab("compare");
      if (section) fail(section, `Could not keep the results in this browser: ${e.message}`);
    }
  }

  function forget() {
    try {
      localStorage.removeItem(STORE);
    } catch (_) {}
  }

  function restore() {
    const kept = stored();
    if (!kept || !kept.results) return;
    for (const [name, result] of Object.entries(kept.results)) {
      if (LAB_OF[name] && result && result.report) show(name, result, kept.saved.slice(0, 10));
    }
  }

  /* ---- start ---- */

  function start() {
    for (const section of sections) {
      try {
        switch (section.dataset.lab) {
          case "first-touch":
          case "chase":
            wireExperiment(section);
            break;
          case "tlb-model":
            wireModel(section);
            break;
          case "compare":
            wireCompare(section);
            break;
        }
      } catch (e) {
        console.warn("pagewalk-lab: a lab could not start:", e);
      }
    }
    // Kept results go on the charts once the chart engine is there
    // (theme/pagewalk-charts.js loads it after this page's scripts).
    (window.pagewalkVizReady || Promise.resolve()).then(restore);
  }

  window.pagewalkLab = {
    run,
    cancel,
    loadFiles,
    removeFile,
    compareLoaded,
    results,
    /** Experiment workers not yet terminated (the model's worker aside). */
    liveWorkers: () => [...live].filter((w) => w !== serviceWorker).length,
    running: () => [...running.keys()],
  };

  // After wasm-viz (whose DOMContentLoaded listener was added first).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
