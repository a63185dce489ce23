/*
 * Wide tables say that they scroll. Runs in the browser on every page (MkDocs
 * extra_javascript); mounts through Material's document$, so instant navigation works.
 *
 * A table wider than the text column scrolls sideways inside its own box (Material's
 * .md-typeset__scrollwrap, or the table itself). When it does, its box gets `data-scrolls`
 * (the CSS keeps the first column in place and shades the edge where more columns wait) and a
 * line above the table (in its margin: nothing moves) says "Scroll sideways for more columns".
 * A column of sentences is kept wide enough to read (a phone would squeeze it to a word per
 * line). Checked when the table comes near the viewport, and whenever its size changes.
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
  // a short value in any other column (a setting's name, "9 of 17") stays on one line.
  function keepSentencesReadable(table) {
    if ("measured" in table.dataset) return;
    table.dataset.measured = "";
    const firsts = [...table.querySelectorAll("tbody tr > :first-child")];
    if (firsts.every((cell) => cell.textContent.trim().length <= LABEL)) {
      table.dataset.labels = ""; // a data attribute: a class would lose Material's table style
    }
    const header = table.querySelector("thead tr");
    if (!header) return;
    const rows = [...table.querySelectorAll("tbody tr")];
    [...header.children].forEach((cell, index) => {
      const cells = rows.map((row) => row.children[index]).filter(Boolean);
      const texts = cells.map((each) => each.textContent.trim());
      const long = texts.filter((text) => text.length > SENTENCE).length;
      if (long * 2 >= texts.length) cell.classList.add("table-sentences");
      else {
        cells.forEach((each, row) => {
          if (texts[row].length <= LABEL) each.style.whiteSpace = "nowrap";
        });
      }
    });
  }

  // A table's outermost box: the .table-box every Markdown table is built in (site_src/boxes.py;
  // Material's scroll box sits inside it), or the box or table itself (the heatmaps).
  function outer(element) {
    return element.closest(".table-box") || element;
  }

  function mark(table) {
    const box = scroller(table);
    if (!box) return;
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    const outside = outer(box); // the cue goes above it
    const cue = outside.previousElementSibling;
    const hasCue = cue && cue.classList.contains("table-cue");
    if (scrolls) {
      box.dataset.scrolls = "";
      if (!hasCue) {
        const line = document.createElement("p");
        line.className = "table-cue";
        line.textContent = CUE;
        outside.before(line);
      }
    } else {
      delete box.dataset.scrolls;
      if (hasCue) cue.remove();
    }
  }

  // Checked when a table comes near the viewport (in a layout the browser has already done,
  // so nothing is forced on a long page's load), then whenever its size changes (fonts, the
  // window, Material's wrapping).
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const table = entry.target.closest("table") || entry.target.querySelector("table");
      if (table) mark(table);
    }
  });

  const near = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        near.unobserve(entry.target);
        const table = entry.target.querySelector("table") || entry.target;
        keepSentencesReadable(table);
        resized.observe(table);
        const box = scroller(table);
        if (box && box !== table) resized.observe(box);
      }
    },
    { rootMargin: "100% 0px 100% 0px" }
  );

  // A listing with line numbers scrolls sideways in its <pre> on a phone (site.css): one that
  // does scroll is a tab stop, so the keyboard can scroll it (axe: scrollable-region-focusable).
  const listings = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      if (target.scrollWidth > target.clientWidth + 1) target.setAttribute("tabindex", "0");
      else target.removeAttribute("tabindex");
    }
  });

  function mount() {
    resized.disconnect();
    near.disconnect();
    listings.disconnect();
    document.querySelectorAll(".md-typeset .highlighttable .code pre").forEach((pre) => listings.observe(pre));
    // The table's outer box is watched: the table itself sits in a box the browser may skip
    // (content-visibility in site.css), and Chromium may never report it as coming near.
    document.querySelectorAll(".md-typeset table").forEach((table) => near.observe(outer(table)));
  }

  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
