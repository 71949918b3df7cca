// pagewalk: on every page, and small. On a page with a chart it
//
// * loads the chart engine (gen/pagewalk-viz.js, written by
//   scripts/build-wasm: wasm-viz with its wasm inlined, ~200 KB), which
//   redraws the charts in the page's theme; a page without a chart never
//   downloads it. The engine sits in the book's source folder (book/gen/),
//   which mdBook copies to the site as is, so it is found from file:// as
//   over http, and it is a script of this origin, as the page's
//   Content-Security-Policy (theme/head.hbs) requires.
//   window.pagewalkVizReady is a promise, true once window.pagewalkViz is
//   there (theme/pagewalk-lab.js waits on it);
// * makes the CSV download when the reader asks for it: "Copy as CSV"
//   (wasm-viz) writes the exact values into a text box, and a download link
//   for the same text is added beside it. Nothing is shipped for it.
(function () {
  "use strict";
  const here = document.currentScript && document.currentScript.src;
  const root = here ? here.replace(/theme\/pagewalk-charts(?:-[0-9a-f]+)?\.js(?:[?#].*)?$/, "") : "";
  const ENGINE = root + "gen/pagewalk-viz.js";

  window.pagewalkVizReady = Promise.resolve(false);
  if (document.querySelector("figure.pw-chart")) {
    window.pagewalkVizReady = new Promise(function (resolve) {
      const s = document.createElement("script");
      s.src = ENGINE;
      s.onload = function () {
        // The engine starts at DOMContentLoaded when it ran before it.
        const done = function () {
          resolve(!!window.pagewalkViz);
        };
        if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", done);
        else done();
      };
      s.onerror = function () {
        console.warn("pagewalk: the chart engine did not load (" + ENGINE + "; run scripts/build-wasm): charts stay static");
        resolve(false);
      };
      document.head.appendChild(s);
    });
  }

  // After wasm-viz's own click handler (on the figure) has written the box.
  document.addEventListener("click", function (e) {
    const button = e.target && e.target.closest && e.target.closest(".pw-copy-csv");
    if (!button) return;
    const figure = button.closest("figure.pw-chart");
    const box = figure && figure.querySelector("textarea.pw-csv");
    if (!box) return;
    let a = figure.querySelector("a.pw-csv-download");
    if (!a) {
      a = document.createElement("a");
      a.className = "pw-csv-download";
      a.textContent = "Download as CSV";
      a.download = (figure.dataset.chart || "chart") + ".csv";
    }
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([box.value], { type: "text/csv;charset=utf-8" }));
    box.after(a);
  });
})();
