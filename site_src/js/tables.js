/*
 * Wide tables say that they scroll. Runs in the browser on every page (MkDocs
 * extra_javascript, deferred); mounts through Material's document$, so instant navigation works.
 *
 * A table wider than the text column scrolls sideways inside its own box (Material's
 * .md-typeset__scrollwrap, or the table itself). When it does, its box gets `data-scrolls`
 * (the CSS keeps the first column in place and shades the edge where more columns wait) and a
 * line above the table says "Scroll sideways for more columns". A column of sentences is kept
 * wide enough to read (a phone would squeeze it to a word per line). Checked again whenever
 * a table's size changes.
 */
(function () {
  "use strict";

  const CUE = "Scroll sideways for more columns →";
  const SENTENCE = 40; // characters: a cell this long is a sentence, not a value
  const LABEL = 16; // characters: a first column this short is a column of labels

  // The box that scrolls: the nearest ancestor (or the table) whose overflow-x scrolls.
  function scroller(table) {
    for (let box = table; box && !box.classList.contains("md-typeset"); box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === "auto" || overflow === "scroll") return box;
    }
    return null;
  }

  // A column whose cells are sentences keeps a reading width (the table scrolls instead), and
  // a first column of short labels (setting names) stays on one line.
  function keepSentencesReadable(table) {
    const firsts = [...table.querySelectorAll("tbody tr > :first-child")];
    if (firsts.every((cell) => cell.textContent.trim().length <= LABEL)) {
      table.dataset.labels = ""; // a data attribute: a class would lose Material's table style
    }
    const header = table.querySelector("thead tr");
    if (!header) return;
    [...header.children].forEach((cell, index) => {
      const texts = [...table.querySelectorAll("tbody tr")].map(
        (row) => (row.children[index] ? row.children[index].textContent.trim() : "")
      );
      const long = texts.filter((text) => text.length > SENTENCE).length;
      if (long * 2 >= texts.length) cell.classList.add("table-sentences");
    });
  }

  function mark(table) {
    const box = scroller(table);
    if (!box) return;
    if (!table.dataset.measured) {
      table.dataset.measured = "";
      keepSentencesReadable(table);
    }
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    const cue = box.previousElementSibling;
    const hasCue = cue && cue.classList.contains("table-cue");
    if (scrolls) {
      box.dataset.scrolls = "";
      if (!hasCue) {
        const line = document.createElement("p");
        line.className = "table-cue";
        line.textContent = CUE;
        box.before(line);
      }
    } else {
      delete box.dataset.scrolls;
      if (hasCue) cue.remove();
    }
  }

  // Checked again whenever a table's size changes (fonts, the window, Material's wrapping).
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const table = entry.target.closest("table") || entry.target.querySelector("table");
      if (table) mark(table);
    }
  });

  function markAll() {
    resized.disconnect();
    document.querySelectorAll(".md-typeset table").forEach((table) => {
      mark(table);
      resized.observe(table);
      const box = scroller(table);
      if (box && box !== table) resized.observe(box);
    });
  }

  // After Material has wrapped the tables (its own document$ subscriber runs first).
  const mount = () => window.requestAnimationFrame(markAll);
  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
