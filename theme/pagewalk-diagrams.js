// The page-walk diagram's address decoder ({{diagram "page-walk"}} in
// preprocessor/src/diagram.rs, whose `decode` is the tested original of
// this arithmetic). Without this script the diagram shows the example
// address the build decoded; on a page without the diagram it does nothing.
(function () {
  "use strict";

  const KEYS = ["pml4", "pdpt", "pd", "pt"];
  const NAMES = ["PML4", "PDPT", "PD", "PT"];
  // Page size -> [levels read, offset bits, words].
  const SIZES = {
    "4k": [4, 12, "4 KiB"],
    "2m": [3, 21, "2 MiB"],
    "1g": [2, 30, "1 GiB"],
  };

  // "0x7ffd_8a3b_2c10", "7ffd8a3b2c10" -> BigInt; null when not hex.
  function parse(text) {
    const t = text.trim().replace(/[_\s]/g, "").replace(/^0x/i, "");
    return /^[0-9a-f]{1,16}$/i.test(t) ? BigInt("0x" + t) : null;
  }

  // Indexes (one per level read) and offset; null when not canonical.
  function decode(va, size) {
    const top = va >> 47n;
    if (top !== 0n && top !== (1n << 17n) - 1n) return null;
    const [levels, offsetBits] = SIZES[size];
    const indexes = [];
    for (let level = 0; level < levels; level++) {
      indexes.push(Number((va >> BigInt(39 - 9 * level)) & 0x1ffn));
    }
    return { indexes, offset: va & ((1n << BigInt(offsetBits)) - 1n) };
  }

  function setUp(fig) {
    const form = fig.querySelector("form.pw-decoder");
    const input = fig.querySelector(".pw-walk-address");
    const sentence = fig.querySelector(".pw-walk-text");
    const q = (sel) => fig.querySelector(sel);
    form.hidden = false;
    const update = () => {
      const size = form.querySelector("input[name=pw-walk-size]:checked").value;
      const [levels, offsetBits, words] = SIZES[size];
      fig.dataset.size = size;
      const va = parse(input.value);
      const d = va === null ? null : decode(va, size);
      input.setAttribute("aria-invalid", String(d === null));
      if (d === null) {
        sentence.textContent =
          va === null
            ? "Type up to 16 hexadecimal digits, such as 0x7ffd8a3b2c10."
            : "Not a canonical address: bits 63 to 48 must all repeat bit 47, or the CPU faults before any walk.";
        return;
      }
      KEYS.forEach((key, i) => {
        const used = i < levels;
        q(`.pw-dg-row-${key}`).classList.toggle("pw-dg-skip", !used);
        q(`[data-value=${key}]`).textContent = used ? String(d.indexes[i]) : "—";
        q(`[data-note=${key}]`).textContent = used ? `entry ${d.indexes[i]} of 512` : "part of the offset";
      });
      const off = "0x" + d.offset.toString(16);
      q("[data-value=offset]").textContent = off;
      q("[data-note=offset]").textContent = "byte " + off;
      q("[data-table=offset]").textContent = `the ${words} page`;
      q("[data-bits=offset]").textContent = `bits ${offsetBits - 1}–0`;
      const parts = d.indexes.map((v, i) => `${NAMES[i]} entry ${v}`);
      sentence.textContent =
        `0x${va.toString(16)} with ${words} pages: ${parts.join(", ")}, offset ${off} (${d.offset}).`;
    };
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", (ev) => ev.preventDefault());
    update();
  }

  function start() {
    document.querySelectorAll("figure.pw-walk").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
