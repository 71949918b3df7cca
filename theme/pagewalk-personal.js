// pagewalk: on every page, and small. Where a chapter has a run picker
// (<div data-pw-personal>: "your machine" and "Compare runs"), it lets a
// reader pick or drop the JSON file `collector run` wrote; the file is
// checked by the book's own model (gen/pagewalk-book.js, loaded only then),
// kept in this browser's local storage, and the page reloads: theme/head.hbs
// sees the kept run and every chapter renders with it, until the reader
// clears it. Nothing is uploaded.
(function () {
  "use strict";
  const KEY = "pagewalk-run";
  const here = document.currentScript && document.currentScript.src;
  const root = here ? here.replace(/theme\/pagewalk-personal(?:-[0-9a-f]+)?\.js(?:[?#].*)?$/, "") : "";
  const RENDERER = root + "gen/pagewalk-book.js";

  function keptName() {
    try {
      const run = JSON.parse(localStorage.getItem(KEY));
      return run && typeof run.name === "string" ? run.name : null;
    } catch (e) {
      return null;
    }
  }

  let loading = null;
  function renderer() {
    if (window.pagewalkBook) return Promise.resolve(window.pagewalkBook);
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        const s = document.createElement("script");
        s.src = RENDERER;
        s.onload = function () {
          if (window.pagewalkBook) resolve(window.pagewalkBook);
          else reject(new Error("the book renderer did not start"));
        };
        s.onerror = function () {
          reject(new Error("the book renderer (" + RENDERER + ") did not load; run scripts/build-wasm"));
        };
        document.head.appendChild(s);
      });
    }
    return loading;
  }

  function take(file, status) {
    status.textContent = "Checking " + file.name + "…";
    Promise.all([renderer(), file.text()])
      .then(function (got) {
        const machine = got[0].check(file.name, got[1]);
        try {
          localStorage.setItem(KEY, JSON.stringify({ name: file.name, text: got[1] }));
        } catch (e) {
          throw new Error("this browser would not keep it (" + (e && e.name ? e.name : e) + ")");
        }
        status.textContent = file.name + " (" + machine + ") is kept: every chapter now shows it.";
        location.reload();
      })
      .catch(function (e) {
        status.textContent = file.name + " is not shown: " + (e && e.message ? e.message : String(e));
      });
  }

  function picker(box) {
    box.textContent = "";
    // The input covers its label, so the whole button takes a tap.
    const input = document.createElement("input");
    input.type = "file";
    input.accept = ".json,application/json";
    input.className = "pw-personal-input";
    const label = document.createElement("label");
    label.className = "pw-lab-choose";
    label.append("Pick your run file", input);
    const hint = document.createElement("span");
    hint.textContent = " or drop it here.";
    const status = document.createElement("p");
    status.className = "pw-personal-status";
    status.setAttribute("role", "status");
    const name = keptName();
    if (name) {
      status.textContent = "Every chapter shows " + name + ". ";
      const clear = document.createElement("button");
      clear.type = "button";
      clear.className = "pw-personal-clear";
      clear.textContent = "Show the example run again";
      clear.addEventListener("click", function () {
        try {
          localStorage.removeItem(KEY);
        } catch (e) {
          /* nothing was kept */
        }
        location.reload();
      });
      status.append(clear);
    }
    input.addEventListener("change", function () {
      if (input.files && input.files[0]) take(input.files[0], status);
    });
    box.addEventListener("dragover", function (e) {
      e.preventDefault();
      box.classList.add("pw-personal-over");
    });
    box.addEventListener("dragleave", function () {
      box.classList.remove("pw-personal-over");
    });
    box.addEventListener("drop", function (e) {
      e.preventDefault();
      box.classList.remove("pw-personal-over");
      const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (file) take(file, status);
    });
    const line = document.createElement("p");
    line.append(label, hint);
    box.append(line, status);
  }

  // The print page stays the build's (rendering all chapters there would
  // be a second print layout): with a run kept, it says so, on paper too.
  function printNote(main) {
    const name = keptName();
    if (!name) return;
    const note = document.createElement("aside");
    note.className = "pw-personal-banner";
    note.setAttribute("aria-label", "Whose run this page shows");
    const p = document.createElement("p");
    const b = document.createElement("strong");
    b.textContent = name;
    p.append(
      "This page for printing shows the example run the book was built with, not your run ",
      b,
      ", which every chapter shows. To print your numbers, print a chapter.",
    );
    note.append(p);
    main.before(note);
  }

  function start() {
    document.querySelectorAll("[data-pw-personal]").forEach(picker);
    const print = document.querySelector('main[data-pw-chapter="print.md"]');
    if (print) printNote(print);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
