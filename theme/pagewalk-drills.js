// Self-test drills (`{{#drill}}` in preprocessor/src/drill.rs): a guess
// before the answer, the guess set beside the measured values after it,
// "knew it / missed it" marks kept in localStorage for this book only, and
// a progress line with "only the ones I missed" and "reset".
//
// Without this script every answer is still a closed <details> the reader
// can open, so it only adds; on a page without drills it does nothing.
// The guess forms and the progress panel are in the page's HTML already
// (disabled, and hidden without JavaScript), so wiring them moves nothing;
// a page built without them gets them made here.
(function () {
  "use strict";

  function start() {
    const drills = [...document.querySelectorAll("div.pw-drill[data-drill]")];
    if (drills.length === 0) return;
    const store = openStore();
    const items = drills.map((el) => setUp(el, store));
    items.forEach((it, i) => it.heading && (it.heading.dataset.pwDrillN = String(i + 1)));
    const progress = progressPanel(items, store);
    if (!progress.el.isConnected) (items[0].heading || items[0].el).before(progress.el);
    items.forEach((it) => (it.onChange = progress.update));
    progress.update();
  }

  // One object per book (keyed by the book's root URL, so two books on one
  // origin keep apart); an in-memory stand-in when storage is refused.
  function openStore() {
    const root = typeof path_to_root === "string" ? path_to_root : "";
    const key = "pagewalk-drills:" + new URL(root || ".", location.href).pathname;
    let state = { marks: {}, guesses: {} };
    let storage = null;
    try {
      storage = window.localStorage;
      const saved = JSON.parse(storage.getItem(key) || "null");
      if (saved && typeof saved === "object") {
        state.marks = saved.marks && typeof saved.marks === "object" ? saved.marks : {};
        state.guesses = saved.guesses && typeof saved.guesses === "object" ? saved.guesses : {};
      }
    } catch (_) {
      storage = null;
    }
    return {
      state,
      save() {
        try {
          if (storage) storage.setItem(key, JSON.stringify(state));
        } catch (_) {
          // Full or refused: the marks still hold for this visit.
        }
      },
      reset() {
        state.marks = {};
        state.guesses = {};
        try {
          if (storage) storage.removeItem(key);
        } catch (_) {}
      },
    };
  }

  function setUp(el, store) {
    const id = el.dataset.drill;
    const details = el.querySelector("details.pw-drill-answer");
    const summary = details.querySelector("summary");
    let heading = el.previousElementSibling;
    if (!heading || !/^H[1-6]$/.test(heading.tagName)) heading = null;
    const predict = el.dataset.predict ? predictOf(el) : null;
    const measured = el.querySelector(".pw-drill-measured");
    const item = { id, el, heading, details, onChange() {} };

    const form = guessForm(id, predict, el.querySelector("form.pw-drill-guess"));
    if (!form.el.isConnected) details.before(form.el);
    const result = document.createElement("div");
    result.className = "pw-drill-result";
    summary.after(result);
    const marks = markButtons(id);
    details.append(marks.el);
    const badge = document.createElement("span");
    badge.className = "pw-drill-badge";
    if (heading) heading.append(badge);

    const show = () => {
      const guess = store.state.guesses[id];
      form.show(guess);
      const mark = store.state.marks[id];
      marks.show(mark);
      badge.textContent = mark === "knew" ? "knew it" : mark === "missed" ? "missed it" : "";
      badge.dataset.mark = mark || "";
      summary.textContent = details.open ? "Hide the answer" : "Show the answer";
      result.replaceChildren(...(details.open ? comparison(guess, predict) : []));
      // With a guess, the comparison lists the same values beside it.
      if (measured) measured.hidden = predict !== null && typeof guess === "string";
    };
    item.refresh = show;
    form.onCommit = (text) => {
      store.state.guesses[id] = text;
      store.save();
      show();
      item.onChange();
    };
    marks.onMark = (mark) => {
      store.state.marks[id] = mark;
      store.save();
      show();
      item.onChange();
    };
    details.addEventListener("toggle", show);
    show();
    return item;
  }

  // What a predicted drill measures, as the build wrote it into the page.
  function predictOf(el) {
    const values = [...el.querySelectorAll(".pw-drill-measured li[data-who]")].map((li) => ({
      who: li.querySelector(".pw-drill-who").textContent,
      value: li.dataset.value === undefined ? NaN : Number(li.dataset.value),
    }));
    return {
      kind: el.dataset.predict,
      unit: el.dataset.unit,
      scale: Number(el.dataset.scale) || 1,
      what: el.dataset.what,
      values,
    };
  }

  // The form the build wrote (`built`), enabled, or a new one.
  function guessForm(id, predict, built) {
    if (built) {
      const field = built.querySelector(".pw-drill-field");
      const commit = built.querySelector(".pw-drill-commit");
      const said = built.querySelector(".pw-drill-said");
      if (field && commit && said) {
        field.disabled = false;
        commit.disabled = false;
        return wireGuess(built, field, commit, said, predict);
      }
      built.remove();
    }
    const form = document.createElement("form");
    form.className = "pw-drill-guess";
    const fieldId = "pw-guess-" + id;
    const label = document.createElement("label");
    label.htmlFor = fieldId;
    let field;
    if (predict) {
      const on = predict.values.length ? predict.values[0].who : "this machine";
      label.textContent = "Predict " + predict.what + " on " + on + ":";
      field = document.createElement("input");
      field.type = "number";
      field.min = "0";
      field.step = "any";
      field.inputMode = "decimal";
    } else {
      label.textContent = "Your answer, before you look:";
      field = document.createElement("textarea");
      field.rows = 2;
    }
    field.id = fieldId;
    field.className = "pw-drill-field";
    const unit = document.createElement("span");
    unit.className = "pw-drill-unit";
    unit.textContent = predict ? predict.unit : "";
    const commit = document.createElement("button");
    commit.type = "submit";
    commit.className = "pw-drill-commit";
    commit.textContent = "Commit guess";
    const said = document.createElement("span");
    said.className = "pw-drill-said";
    said.setAttribute("aria-live", "polite");
    form.append(label, " ", field, predict ? unit : "", " ", commit, " ", said);
    return wireGuess(form, field, commit, said, predict);
  }

  function wireGuess(form, field, commit, said, predict) {
    const api = { el: form, onCommit() {} };
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = field.value.trim();
      if (predict && !(Number(text) > 0)) {
        said.textContent = "Type a number above zero.";
        return;
      }
      if (!text) {
        said.textContent = "Type a guess first.";
        return;
      }
      api.onCommit(text);
    });
    api.show = (guess) => {
      const has = typeof guess === "string";
      if (has) field.value = guess;
      else if (field.readOnly) field.value = ""; // after a reset
      field.readOnly = has;
      commit.disabled = has;
      said.textContent = has ? "Committed." : "";
    };
    return api;
  }

  function markButtons(id) {
    const group = document.createElement("div");
    group.className = "pw-drill-mark";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "How did you do?");
    const api = { el: group, onMark() {} };
    const buttons = [
      ["knew", "Knew it"],
      ["missed", "Missed it"],
    ].map(([mark, text]) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.mark = mark;
      b.textContent = text;
      b.addEventListener("click", () => api.onMark(mark));
      return b;
    });
    group.append(...buttons);
    api.show = (mark) =>
      buttons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.mark === mark)));
    return api;
  }

  // The guess beside each measured value, as a factor: "2.0× too high".
  function comparison(guess, predict) {
    const p = document.createElement("p");
    p.className = "pw-drill-yours";
    if (typeof guess !== "string") {
      p.textContent = "No guess committed.";
      return [p];
    }
    if (!predict) {
      p.append("Your answer: ");
      const q = document.createElement("q");
      q.textContent = guess;
      p.append(q);
      return [p];
    }
    const g = Number(guess) * predict.scale;
    p.textContent = "Your guess: " + format(predict.kind, g) + ".";
    const list = document.createElement("ul");
    list.className = "pw-drill-against";
    for (const v of predict.values) {
      const li = document.createElement("li");
      li.textContent =
        v.who +
        ": " +
        (Number.isFinite(v.value) ? format(predict.kind, v.value) + ", " + factor(g, v.value) : "not measured");
      list.append(li);
    }
    return [p, list];
  }

  function factor(guess, value) {
    if (!(value > 0)) return "no comparison";
    const r = guess / value;
    if (r === 1) return "exactly";
    return r > 1 ? ratio(r) + " too high" : ratio(1 / r) + " too low";
  }

  // The same formats as the book's {{dur}}, {{ratio}} and sizes.
  function format(kind, v) {
    if (kind === "dur") return dur(v);
    if (kind === "ratio") return ratio(v);
    return size(v);
  }

  function dur(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return Math.round(ns).toLocaleString("en-US") + " ns";
    if (a < 1e6) return (ns / 1e3).toFixed(2) + " µs";
    if (a < 1e9) return (ns / 1e6).toFixed(1) + " ms";
    return (ns / 1e9).toFixed(2) + " s";
  }

  function ratio(r) {
    if (r >= 10) return Math.round(r).toLocaleString("en-US") + "×";
    return (r >= 1 ? r.toFixed(1) : r.toFixed(2)) + "×";
  }

  function size(bytes) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let v = Math.round(bytes);
    let u = 0;
    while (v >= 1024 && u + 1 < units.length) {
      v /= 1024;
      u += 1;
    }
    return v.toFixed(2).replace(/0+$/, "").replace(/\.$/, "") + " " + units[u];
  }

  function progressPanel(items, store) {
    const built = document.querySelector("section.pw-drills-progress");
    const parts = built && [".pw-drills-count", ".pw-drills-only-missed", ".pw-drills-reset"].map((c) => built.querySelector(c));
    if (parts && parts.every(Boolean)) {
      parts[1].disabled = false;
      parts[2].disabled = false;
      return wireProgress(built, parts[0], parts[1], parts[2], items, store);
    }
    if (built) built.remove();
    const el = document.createElement("section");
    el.className = "pw-drills-progress";
    el.setAttribute("aria-label", "Your progress on the drills");
    const count = document.createElement("p");
    count.className = "pw-drills-count";
    count.setAttribute("aria-live", "polite");
    const missed = document.createElement("button");
    missed.type = "button";
    missed.className = "pw-drills-only-missed";
    missed.textContent = "Only the ones I missed";
    missed.setAttribute("aria-pressed", "false");
    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "pw-drills-reset";
    reset.textContent = "Reset";
    const note = document.createElement("p");
    note.className = "pw-drills-note";
    note.textContent = "Guesses and marks stay in this browser (localStorage); nothing leaves the page.";
    const buttons = document.createElement("p");
    buttons.append(missed, " ", reset);
    el.append(count, buttons, note);
    return wireProgress(el, count, missed, reset, items, store);
  }

  function wireProgress(el, count, missed, reset, items, store) {
    let onlyMissed = false;
    const update = () => {
      const marks = store.state.marks;
      const knew = items.filter((it) => marks[it.id] === "knew").length;
      const miss = items.filter((it) => marks[it.id] === "missed").length;
      count.textContent =
        knew + miss + " of " + items.length + " drills marked: " + knew + " knew it, " + miss + " missed it." +
        (onlyMissed && miss === 0 ? " None missed, so none are shown." : "");
      missed.setAttribute("aria-pressed", String(onlyMissed));
      for (const it of items) {
        const hide = onlyMissed && marks[it.id] !== "missed";
        it.el.hidden = hide;
        if (it.heading) it.heading.hidden = hide;
      }
    };
    missed.addEventListener("click", () => {
      onlyMissed = !onlyMissed;
      update();
    });
    reset.addEventListener("click", () => {
      store.reset();
      items.forEach((it) => it.refresh());
      update();
    });
    return { el, update };
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
