/*
 * Links each explorer answer to the point it describes on a chart. Runs in the browser on
 * every page (MkDocs extra_javascript) and acts only where an explorer box is.
 *
 * When the box has printed an answer (its output's data-state becomes "done"), the call in
 * the text box is read: lookup(results, b=…, w=…, rate=…) and compare(…) point at settings on
 * the main result (the home page's p99 chart), part_a(results, size=…) at Part A's chart, and
 * batch_route_lookup(results, chunk=…) at the batch route's. A line under the answer links
 * there (site_src/js/charts.js marks the point). Values the box's own menus do not offer
 * (not measured), and answers from another campaign (campaign("…")), get no link.
 */
(function () {
  "use strict";

  const SITE_ROOT = new URL("../../", document.currentScript.src);
  let watching = null;

  function argument(code, name) {
    const found = new RegExp("\\b" + name + "\\s*=\\s*(\"[^\"]*\"|'[^']*'|[0-9.]+|None)").exec(code);
    return found ? found[1].replace(/^["']|["']$/g, "") : null;
  }

  function offered(root, role, value) {
    const select = root.querySelector('[data-role="' + role + '"]');
    return Boolean(select) && [...select.options].some((option) => option.value === value);
  }

  function number(text) {
    return String(Number(text)); // "1.0" -> "1", as the explorer's menus write it
  }

  // The setting's name in results.json for B and W, or null when the box does not offer it.
  function settingName(root, b, w) {
    if (b === null) return null;
    if (b.toLowerCase() === "none") return "none";
    const cap = number(b);
    if (!offered(root, "b", cap)) return null;
    if (cap === "1") return "B=1 W=0";
    if (w === null || !offered(root, "w", number(w))) return null;
    return "B=" + cap + " W=" + number(w);
  }

  function target(root, code) {
    const call = /^\s*(\w+)\s*\(/.exec(code);
    if (!call) return null;
    // An answer from another campaign (campaign("…")) has no point on this site's charts.
    if (/\bcampaign\s*\(/.test(code)) return null;
    if (call[1] === "lookup" || call[1] === "compare") {
      const rate = argument(code, "rate");
      if (rate === null || !offered(root, "rate", number(rate))) return null;
      const names = call[1] === "lookup"
        ? [settingName(root, argument(code, "b"), argument(code, "w"))]
        : [settingName(root, argument(code, "b1"), argument(code, "w1")),
           settingName(root, argument(code, "b2"), argument(code, "w2"))];
      if (names.includes(null)) return null;
      return { page: "", chart: "p99_vs_rate", names, x: number(rate), words: "the main result" };
    }
    if (call[1] === "part_a") {
      const size = argument(code, "size");
      if (size === null || !offered(root, "size", number(size))) return null;
      return { page: "part-a/", chart: "part_a_time_vs_size", names: ["per-call time"],
        x: number(size), words: "Part A's chart" };
    }
    if (call[1] === "batch_route_lookup") {
      const chunk = argument(code, "chunk");
      if (chunk === null || !offered(root, "chunk", number(chunk))) return null;
      return { page: "batch-route/", chart: "part_c_time_per_record", names: ["/predict_batch"],
        x: number(chunk), words: "the batch route's chart" };
    }
    return null;
  }

  function link(root, output) {
    const old = root.querySelector(".answer-link");
    if (old) old.remove();
    if (output.dataset.state !== "done") return;
    const code = root.querySelector('[data-role="code"]').value;
    const point = target(root, code);
    if (!point) return;
    const url = new URL(point.page, SITE_ROOT);
    url.searchParams.set("chart", point.chart);
    for (const name of point.names) url.searchParams.append("point", name + "@" + point.x);
    url.hash = "chart-" + point.chart;
    const line = document.createElement("p");
    line.className = "answer-link chart-point-note";
    const anchor = document.createElement("a");
    anchor.href = url.href;
    anchor.textContent = "See " + (point.names.length > 1 ? "these points" : "this point") +
      " on " + point.words + " →";
    line.appendChild(anchor);
    output.after(line);
  }

  function mount() {
    if (watching) watching.disconnect();
    const root = document.querySelector("[data-explorer]");
    const output = root && root.querySelector('[data-role="output"]');
    if (!output) return;
    watching = new MutationObserver(() => link(root, output));
    watching.observe(output, { attributes: true, attributeFilter: ["data-state"] });
  }

  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
