// Installed with Page.addScriptToEvaluateOnNewDocument, so it runs in every
// document before any of the page's own scripts. It records what a reader
// would never see but a test must: errors and every resource fetched.
(() => {
  if (window.__pwRecorder) return;
  window.__pwRecorder = true;
  const errors = (window.__pwErrors = []);
  const resources = (window.__pwResources = []);
  const show = (v) => {
    try {
      if (v instanceof Error) return v.stack || String(v);
      if (v && typeof v === "object") return JSON.stringify(v);
    } catch (_) {}
    return String(v);
  };
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = function (...args) {
      errors.push(`console.${level}: ${args.map(show).join(" ")}`);
      return original.apply(this, args);
    };
  }
  // Capture phase: resource load errors do not bubble to window.
  window.addEventListener(
    "error",
    (e) => {
      if (e instanceof ErrorEvent) {
        errors.push(`uncaught error: ${e.message} at ${e.filename}:${e.lineno}:${e.colno}`);
      } else {
        const t = e.target || {};
        const what = (t.tagName || "?").toLowerCase();
        errors.push(`failed to load <${what}> ${t.currentSrc || t.src || t.href || ""}`);
      }
    },
    true,
  );
  window.addEventListener("unhandledrejection", (e) => {
    errors.push(`unhandled rejection: ${show(e.reason)}`);
  });
  document.addEventListener("securitypolicyviolation", (e) => {
    errors.push(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
  });
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) resources.push(entry.name);
    }).observe({ type: "resource", buffered: true });
  } catch (e) {
    errors.push(`recorder: no PerformanceObserver: ${e}`);
  }
  // Stamp performance.now() (ms since navigation start) when the first
  // chart figure reports ready.
  const ready = 'figure.pw-chart[data-pw-state="ready"]';
  const observer = new MutationObserver(() => {
    if (window.__pwFirstReadyMs === undefined && document.querySelector(ready)) {
      window.__pwFirstReadyMs = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-pw-state"],
  });
})();
