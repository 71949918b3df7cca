// The book renderer's page side (appended by scripts/build-wasm to the
// wasm-bindgen glue and the inlined module, in gen/pagewalk-book.js).
// theme/head.hbs loads that file, parser-blocking, only when a reader's run
// is kept in this browser; the inline script after <main> (theme/index.hbs)
// then calls render(main) before mdBook's and the book's own scripts read
// the page, so code blocks, charts, drills and labs start on the reader's
// chapter as they would on a built one.
const KEY = "pagewalk-run";
let started = false;

function start() {
  if (started) return;
  let bytes;
  if (Uint8Array.fromBase64) {
    bytes = Uint8Array.fromBase64(b64);
  } else {
    const bin = atob(b64);
    bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  }
  wasm_bindgen.initSync({ module: bytes });
  started = true;
}

function kept() {
  try {
    const run = JSON.parse(localStorage.getItem(KEY));
    return run && typeof run.name === "string" && typeof run.text === "string" ? run : null;
  } catch (e) {
    return null;
  }
}

function clear() {
  try {
    localStorage.removeItem(KEY);
  } catch (e) {
    /* nothing was kept */
  }
  location.reload();
}

// A note above the chapter (outside <main>, so the chapter reads exactly
// as a built one): whose run this is, and the way back to the example.
function banner(main, parts) {
  const note = document.createElement("aside");
  note.className = "pw-personal-banner";
  note.setAttribute("aria-label", "Whose run this page shows");
  const p = document.createElement("p");
  for (const part of parts) {
    if (part.strong) {
      const b = document.createElement("strong");
      b.textContent = part.strong;
      p.append(b);
    } else {
      p.append(part);
    }
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "pw-personal-clear";
  button.textContent = "Show the example run again";
  button.addEventListener("click", clear);
  p.append(" ", button);
  note.append(p);
  main.before(note);
}

// Bytes of the kept text, as the file was read (UTF-8).
function bytesOf(text) {
  return new TextEncoder().encode(text);
}

function render(main) {
  const run = kept();
  const chapter = main && main.dataset.pwChapter;
  if (!run || !chapter) return;
  const t0 = performance.now();
  try {
    start();
    const t1 = performance.now();
    const page = JSON.parse(wasm_bindgen.render_page(chapter, run.name, bytesOf(run.text)));
    main.innerHTML = page.html;
    if (page.title) {
      const at = document.title.indexOf(" - ");
      document.title = page.title + (at >= 0 ? document.title.slice(at) : "");
    }
    // The sidebar (filled by mdBook's toc.js before <main> was parsed)
    // names a chapter with a templated title as the build would.
    for (const [path, title] of page.titles) {
      const href = path.replace(/\.md$/, ".html");
      document.querySelectorAll("mdbook-sidebar-scrollbox a[href]").forEach(function (a) {
        const link = a.getAttribute("href");
        if (link !== href && !link.endsWith("/" + href)) return;
        const text = [...a.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).pop();
        if (text) text.textContent = " " + title;
      });
    }
    banner(main, [
      "This page shows your run, ",
      { strong: run.name },
      " (" + page.machine + "), read in this browser; nothing was uploaded.",
    ]);
    // For the browser test's report: the module's start (decoding and
    // compiling it) and the chapter's rendering, in ms.
    window.pagewalkBook.rendered = {
      chapter: chapter,
      ms: performance.now() - t0,
      startMs: t1 - t0,
      warnings: page.warnings,
    };
  } catch (e) {
    banner(main, [
      "Your run, ",
      { strong: run.name },
      ", cannot be shown here: " + (e && e.message ? e.message : String(e)) + ". This page shows the example run.",
    ]);
    window.pagewalkBook.rendered = { chapter: chapter, error: String(e && e.message ? e.message : e) };
  }
}

// The picker's check before a file is kept: the model's rules, as the
// build reads data/runs/. Returns the machine it was measured on.
function check(name, text) {
  start();
  return wasm_bindgen.check_run(name, bytesOf(text));
}

window.pagewalkBook = { KEY: KEY, render: render, check: check, clear: clear, kept: kept };
