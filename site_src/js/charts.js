/*
 * Draws the lesson's charts, lazily. Loaded by on-demand.js on the first page with a chart,
 * then kept; mounts through Material's document$, so instant navigation works.
 *
 * Every chart arrives as a static stand-in drawn by the generator (generator/charts/standins.py), so
 * the page shows its text and pictures at once and loads nothing heavy. plotly.js (the site's
 * own copy) is fetched only once the reader interacts with the page (scrolls, touches, clicks,
 * types, or points at a chart); from then on each chart is drawn from its spec
 * (assets/charts/NAME.json) when it comes within half a screen of the viewport. plotly.js
 * stays loaded across instant navigation. Colours come from the palette's CSS variables
 * (chart-colours.css), so charts are redrawn when the reader switches palette, and a chart
 * narrower than 480px gets the spec's phone layout (redrawn when it crosses that width).
 *
 * The key under a chart shows or hides a series; a steered chart (the main result) shows the
 * settings whose B and W the reader picked, and switches between p50, p99 and throughput.
 * A link with ?chart=CHART&point=NAME@X (from the explorer's answers) marks that point.
 */
(function () {
  "use strict";

  // This script lives at <site>/assets/js/charts.js: the site root is two levels up.
  const SITE_ROOT = new URL("../../", document.currentScript.src);
  const PLOTLY_URL = new URL("assets/vendor/plotly/plotly-basic.min.js", SITE_ROOT);
  const NARROW_BELOW = 480; // as generator/charts/style.py and the CSS container query
  const NEAR = "50% 0px 50% 0px"; // "about to be seen": within half a screen
  const TRANSPARENT = "rgba(0,0,0,0)";

  let plotlyLoading = null;
  let interacted = false;
  let charts = []; // this page's chart boxes
  let nearObserver = null;
  let sizeObserver = null;
  const specCache = new Map();

  // ---- loading ----------------------------------------------------------------------------

  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!plotlyLoading) {
      plotlyLoading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = PLOTLY_URL.href;
        script.onload = () => resolve(window.Plotly);
        script.onerror = () => reject(new Error("plotly.js could not load from " + PLOTLY_URL));
        document.head.appendChild(script);
      });
    }
    return plotlyLoading;
  }

  function fetchSpec(name) {
    if (!specCache.has(name)) {
      const url = new URL("assets/charts/" + encodeURIComponent(name) + ".json", SITE_ROOT);
      specCache.set(
        name,
        fetch(url).then((response) => {
          if (!response.ok) throw new Error("chart " + name + ": HTTP " + response.status);
          return response.json();
        })
      );
    }
    return specCache.get(name);
  }

  // The reader did something: from now on, charts near the viewport are drawn.
  function onInteraction() {
    if (interacted) return;
    interacted = true;
    for (const event of INTERACTIONS) window.removeEventListener(event, onInteraction, true);
    charts.filter((element) => element.dataset.near && !element.dataset.state).forEach(draw);
  }

  const INTERACTIONS = ["scroll", "wheel", "touchstart", "pointerdown", "keydown"];

  function listenForInteraction() {
    if (interacted) return;
    for (const event of INTERACTIONS) {
      window.addEventListener(event, onInteraction, { capture: true, passive: true });
    }
  }

  // ---- colours and layout -----------------------------------------------------------------

  function scheme() {
    return document.body.getAttribute("data-md-color-scheme") === "slate" ? "slate" : "default";
  }

  // Material's colours are CSS custom properties (hsla with var()); let the browser resolve them.
  function cssColor(value) {
    const probe = document.createElement("span");
    probe.style.color = value;
    probe.style.display = "none";
    document.body.appendChild(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
  }

  function themeColors() {
    const roles = {};
    return {
      text: cssColor("var(--md-default-fg-color)"),
      muted: cssColor("var(--md-default-fg-color--light)"),
      lighter: cssColor("var(--md-default-fg-color--lighter)"),
      grid: cssColor("var(--md-default-fg-color--lightest)"),
      background: cssColor("var(--md-default-bg-color)"),
      font: getComputedStyle(document.body).fontFamily,
      role(name) {
        if (!(name in roles)) roles[name] = cssColor("var(--chart-" + name + ")");
        return roles[name];
      },
    };
  }

  function merged(base, patch) {
    const result = Object.assign({}, base);
    for (const [key, value] of Object.entries(patch || {})) {
      const both = value && typeof value === "object" && !Array.isArray(value);
      result[key] = both && result[key] && typeof result[key] === "object"
        ? merged(result[key], value)
        : value;
    }
    return result;
  }

  function isNarrow(element) {
    return (element.clientWidth || window.innerWidth) < NARROW_BELOW;
  }

  function themedLayout(spec, colors, narrow) {
    const layout = merged(JSON.parse(JSON.stringify(spec.layout)), narrow ? spec.site.narrow : {});
    layout.autosize = true;
    delete layout.width;
    delete layout.height;
    layout.font = Object.assign({}, layout.font, { color: colors.muted, family: colors.font });
    layout.hoverlabel = {
      bgcolor: colors.background,
      bordercolor: colors.muted,
      font: { color: colors.text, family: colors.font },
    };
    for (const key of Object.keys(layout)) {
      if (!/^[xy]axis\d*$/.test(key)) continue;
      const axis = layout[key];
      axis.gridcolor = colors.grid;
      axis.linecolor = colors.lighter;
      axis.zerolinecolor = colors.lighter;
      axis.tickcolor = colors.lighter;
      axis.showline = key.startsWith("x");
      if (axis.title) axis.title = Object.assign({}, axis.title, { font: { color: colors.text } });
      if (narrow) axis.fixedrange = true; // a finger on a phone scrolls the page, never zooms
    }
    if (narrow) layout.dragmode = false;
    return layout;
  }

  // ---- which series show ------------------------------------------------------------------

  function words(list) {
    return (list || "").split(" ").filter(Boolean);
  }

  // A steered chart: B picked, and W picked unless the setting has none (none, queue B=1).
  function shownBySteering(element, trace) {
    if (element.dataset.b === undefined) return true;
    const meta = trace.meta || {};
    if (meta.b === "*") return true;
    if (!words(element.dataset.b).includes(meta.b)) return false;
    return meta.b === "none" || meta.b === "1" || words(element.dataset.w).includes(meta.w);
  }

  function themedData(element, spec, colors) {
    const hidden = words(element.dataset.hidden);
    return spec.data.map((source, index) => {
      const trace = JSON.parse(JSON.stringify(source));
      const color = colors.role((trace.meta && trace.meta.role) || "ref");
      if (trace.line) trace.line.color = color;
      trace.marker = Object.assign({}, trace.marker);
      // A list of colours: transparent entries stay hollow (outlined bars), the rest recoloured.
      trace.marker.color = Array.isArray(trace.marker.color)
        ? trace.marker.color.map((c) => (c === TRANSPARENT ? c : color))
        : color;
      if (trace.marker.line) trace.marker.line.color = color;
      trace.visible = shownBySteering(element, trace) && !hidden.includes(String(index));
      return trace;
    });
  }

  // ---- the point a link asked for -----------------------------------------------------------

  // The points the page's address asks this chart to mark (?chart=CHART&point=NAME@X). Read
  // when drawing: after an instant navigation the address changes after the page is swapped
  // (and Material rewrites its #anchor as the reader scrolls, so the query names the chart).
  function askedPoints(element) {
    const figure = element.closest(".chart-figure");
    const asked = new URLSearchParams(window.location.search);
    if (!figure || figure.id !== "chart-" + asked.get("chart")) return [];
    return asked.getAll("point").map((text) => {
      const at = text.lastIndexOf("@");
      return { name: text.slice(0, at), x: Number(text.slice(at + 1)) };
    });
  }

  function pointAnnotations(element, spec, data, colors) {
    const notes = [];
    for (const point of askedPoints(element)) {
      data.forEach((trace) => {
        if (trace.name !== point.name || !trace.visible) return;
        const index = trace.x.findIndex((x) => Number(x) === point.x);
        if (index < 0 || trace.y[index] === null) return;
        const log = spec.layout.yaxis.type === "log";
        notes.push({
          x: point.x,
          y: log ? Math.log10(trace.y[index]) : trace.y[index],
          text: point.name + " at " + point.x + (spec.site.point_unit || ""),
          showarrow: true,
          arrowhead: 2,
          arrowcolor: colors.text,
          ax: -40,
          ay: -36,
          bgcolor: colors.background,
          bordercolor: colors.text,
          font: { color: colors.text },
        });
      });
    }
    return notes;
  }

  // A steered chart shows the settings a link names even when they were not picked.
  function pickPoints(element, spec) {
    for (const point of askedPoints(element)) {
      const trace = spec.data.find((t) => t.name === point.name);
      if (!trace || !trace.meta || element.dataset.b === undefined) continue;
      const figure = element.closest(".chart-figure");
      for (const [pick, value] of [["b", trace.meta.b], ["w", trace.meta.w]]) {
        if (!value || words(element.dataset[pick]).includes(value)) continue;
        element.dataset[pick] = words(element.dataset[pick]).concat([value]).join(" ");
        const box = figure.querySelector('[data-pick="' + pick + '"] input[value="' + value + '"]');
        if (box) box.checked = true;
      }
    }
  }

  // ---- drawing ------------------------------------------------------------------------------

  async function draw(element) {
    const name = element.dataset.chart;
    element.dataset.state = "drawing";
    try {
      const [Plotly, spec] = await Promise.all([loadPlotly(), fetchSpec(name)]);
      if (!element.isConnected) return;
      pickPoints(element, spec);
      const colors = themeColors();
      const narrow = isNarrow(element);
      const data = themedData(element, spec, colors);
      const layout = themedLayout(spec, colors, narrow);
      layout.annotations = pointAnnotations(element, spec, data, colors);
      await Plotly.react(element, data, layout, {
        responsive: false,
        displaylogo: false,
        displayModeBar: narrow ? false : "hover",
        modeBarButtonsToRemove: ["select2d", "lasso2d"],
        scrollZoom: false,
      });
      element.dataset.drawn = scheme();
      element.dataset.narrow = narrow ? "1" : "";
      element.dataset.state = "drawn";
      sizeObserver.observe(element);
    } catch (error) {
      element.dataset.state = "failed";
      console.error(error);
    }
  }

  function redraw(element) {
    if (element.dataset.drawn || interacted) draw(element);
  }

  function onNear(entries) {
    for (const entry of entries) {
      const element = entry.target;
      if (!entry.isIntersecting) continue;
      element.dataset.near = "1";
      if (interacted && !element.dataset.state) draw(element);
    }
  }

  function onResize(entries) {
    for (const entry of entries) {
      const element = entry.target;
      if (element.dataset.state !== "drawn" || !window.Plotly) continue;
      if (isNarrow(element) !== Boolean(element.dataset.narrow)) draw(element);
      else window.Plotly.Plots.resize(element);
    }
  }

  // ---- the reader's controls ----------------------------------------------------------------

  function onKeyClick(event) {
    const button = event.target.closest(".chart-key-item");
    if (!button) return;
    const element = button.closest(".chart-figure").querySelector("div.chart");
    const pressed = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(pressed));
    const hidden = new Set(words(element.dataset.hidden));
    if (pressed) hidden.delete(button.dataset.trace);
    else hidden.add(button.dataset.trace);
    element.dataset.hidden = [...hidden].join(" ");
    interacted = true;
    draw(element);
  }

  function onSteer(event) {
    const figure = event.target.closest(".chart-figure");
    const element = figure && figure.querySelector("div.chart");
    if (!element) return;
    if (event.target.type === "radio") {
      element.dataset.chart = event.target.value;
    } else {
      const group = event.target.closest("[data-pick]");
      const checked = [...group.querySelectorAll("input:checked")].map((box) => box.value);
      element.dataset[group.dataset.pick] = checked.join(" ");
    }
    interacted = true;
    draw(element);
  }

  function mountCharts() {
    if (nearObserver) nearObserver.disconnect();
    if (sizeObserver) sizeObserver.disconnect();
    nearObserver = new IntersectionObserver(onNear, { rootMargin: NEAR });
    sizeObserver = new ResizeObserver(onResize);
    charts = [...document.querySelectorAll("div.chart[data-chart]")];
    for (const element of charts) {
      const figure = element.closest(".chart-figure") || element;
      figure.addEventListener("click", onKeyClick);
      figure.addEventListener("change", onSteer);
      figure.addEventListener("pointerenter", onInteraction, { once: true });
      figure.addEventListener("focusin", onInteraction, { once: true });
      nearObserver.observe(element);
      // A link asked for a point on this chart: draw it now, not when the observer says it is
      // near (after an instant navigation to its #anchor that report can be missed, and the
      // reader came for this very chart).
      if (askedPoints(element).length) {
        interacted = true;
        draw(element);
      }
    }
    listenForInteraction();
  }

  // Redraw when the reader switches palette (Material sets the attribute on <body>).
  new MutationObserver(() => {
    charts.filter((element) => element.dataset.drawn).forEach(redraw);
  }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

  window.lessonCharts = { loaded: () => Boolean(window.Plotly), interacted: () => interacted };
  if (window.document$) window.document$.subscribe(mountCharts);
  else document.addEventListener("DOMContentLoaded", mountCharts);
})();
