/*
 * Loads the heavier page scripts only where a page needs them: charts.js where a chart is
 * (div.chart[data-chart]), explorer.js where the explorer box is ([data-explorer]). Runs on
 * every page (MkDocs extra_javascript), so text pages carry neither (issue 19: no heavier
 * than before). With instant navigation a script, once loaded, stays and mounts on every
 * later page itself: Material's document$ replays the current page to a late subscriber.
 */
(function () {
  "use strict";

  const HERE = document.currentScript.src;
  const SCRIPTS = [
    ["[data-chart]", "charts.js"],
    ["[data-explorer]", "explorer.js"],
  ];
  const loaded = new Set();

  function load(file) {
    loaded.add(file);
    const script = document.createElement("script");
    script.src = new URL(file, HERE).href;
    document.body.appendChild(script);
  }

  function mount() {
    for (const [selector, file] of SCRIPTS) {
      if (!loaded.has(file) && document.querySelector(selector)) load(file);
    }
  }

  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
