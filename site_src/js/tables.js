/*
 * Wide tables say that they scroll. Runs in the browser on every page (MkDocs
 * extra_javascript, deferred); mounts through Material's document$, so instant navigation works.
 *
 * A table wider than the text column scrolls sideways inside its own box (Material's
 * .md-typeset__scrollwrap, or the table itself). When it does, its box gets `data-scrolls`
 * (the CSS keeps the first column in place and shades the edge where more columns wait) and a
 * line above the table says "Scroll sideways for more columns". Checked again when the window
 * changes size.
 */
(function () {
  "use strict";

  const CUE = "Scroll sideways for more columns →";

  // The box that scrolls: the nearest ancestor (or the table) whose overflow-x scrolls.
  function scroller(table) {
    for (let box = table; box && !box.classList.contains("md-typeset"); box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === "auto" || overflow === "scroll") return box;
    }
    return null;
  }

  function mark(table) {
    const box = scroller(table);
    if (!box) return;
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

  function markAll() {
    document.querySelectorAll(".md-typeset table").forEach(mark);
  }

  let pending = 0;
  window.addEventListener("resize", () => {
    window.clearTimeout(pending);
    pending = window.setTimeout(markAll, 150);
  });

  // After Material has wrapped the tables (its own document$ subscriber runs first).
  const mount = () => window.requestAnimationFrame(markAll);
  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
