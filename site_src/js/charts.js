/*
 * Draws the lesson's charts. Runs in the browser on every page (MkDocs extra_javascript).
 *
 * Every <div class="chart" data-chart="NAME"> gets the generator's Plotly spec
 * assets/charts/NAME.json, drawn with the site's own copy of plotly.js (loaded only on pages
 * that have a chart). Colors follow Material's palette (data-md-color-scheme on <body>) and
 * the charts are redrawn when the reader toggles it; they size to their container, so they
 * fit a phone. Mounting goes through Material's document$ so instant navigation works.
 */
(function () {
  "use strict";

  // This script lives at <site>/assets/js/charts.js: the site root is two levels up.
  const SITE_ROOT = new URL("../../", document.currentScript.src);
  const PLOTLY_URL = new URL("assets/vendor/plotly/plotly-basic.min.js", SITE_ROOT);

  // Trace colors readable on each palette's background (Okabe-Ito based, colorblind safe).
  const COLORWAY = {
    default: ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f7f7f", "#000000"],
    slate: ["#56b4e9", "#ff9e4a", "#34d1a0", "#e69fc8", "#f0e442", "#a8c8ff", "#c8c8c8", "#ffffff"],
  };

  let plotlyLoading = null;
  const specCache = new Map();

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

  function scheme() {
    return document.body.getAttribute("data-md-color-scheme") === "slate" ? "slate" : "default";
  }

  // Material's colors are CSS custom properties (hsla with var()); let the browser resolve them.
  function cssColor(variable) {
    const probe = document.createElement("span");
    probe.style.color = "var(" + variable + ")";
    probe.style.display = "none";
    document.body.appendChild(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
  }

  function themeColors() {
    return {
      text: cssColor("--md-default-fg-color"),
      muted: cssColor("--md-default-fg-color--light"),
      grid: cssColor("--md-default-fg-color--lightest"),
      background: cssColor("--md-default-bg-color"),
      colorway: COLORWAY[scheme()],
    };
  }

  // A deep copy of the spec's layout with the palette's colors and a size that follows the box.
  function themedLayout(layout, colors, width) {
    const themed = JSON.parse(JSON.stringify(layout || {}));
    delete themed.width;
    delete themed.template;
    themed.autosize = true;
    themed.height = themed.height || 420;
    themed.paper_bgcolor = "rgba(0,0,0,0)";
    themed.plot_bgcolor = "rgba(0,0,0,0)";
    themed.colorway = colors.colorway;
    themed.font = Object.assign({}, themed.font, { color: colors.text });
    themed.hoverlabel = Object.assign({}, themed.hoverlabel, {
      bgcolor: colors.background,
      font: { color: colors.text },
    });
    themed.legend = Object.assign({}, themed.legend, { bgcolor: "rgba(0,0,0,0)" });
    if (themed.title && typeof themed.title === "object") {
      themed.title.font = Object.assign({}, themed.title.font, { color: colors.text });
      if (width < 600 && typeof themed.title.text === "string") {
        themed.title.text = wrapTitle(themed.title.text, width);
        themed.title.font.size = 14;
      }
    }
    for (const key of Object.keys(themed)) {
      if (/^[xy]axis\d*$/.test(key)) {
        themed[key] = Object.assign({}, themed[key], {
          gridcolor: colors.grid,
          linecolor: colors.muted,
          zerolinecolor: colors.muted,
          tickcolor: colors.muted,
        });
      }
    }
    const narrow = width < 600;
    themed.margin = narrow
      ? { l: 52, r: 8, t: themed.title ? 72 : 16, b: 48 }
      : Object.assign({ l: 64, r: 24, t: themed.title ? 56 : 24, b: 56 }, themed.margin);
    if (narrow) {
      // On a phone the legend goes under the plot so the plot keeps the full width.
      themed.legend = Object.assign({}, themed.legend, {
        orientation: "h",
        x: 0,
        xanchor: "left",
        y: -0.22,
        yanchor: "top",
      });
      themed.height = Math.max(themed.height, 480);
    }
    return themed;
  }

  // [r, g, b] (0-255) of "#rgb", "#rrggbb" or "rgb(a)(…)", or null for anything else.
  function channels(color) {
    const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color);
    if (hex) {
      const digits = hex[1].length === 3 ? hex[1].replace(/./g, "$&$&") : hex[1];
      return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
    }
    const rgb = /^rgba?\(([^)]+)\)$/i.exec(color);
    return rgb ? rgb[1].split(",").slice(0, 3).map(Number) : null;
  }

  function luminance(rgb) {
    const linear = rgb.map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  }

  function contrast(a, b) {
    const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (high + 0.05) / (low + 0.05);
  }

  // A trace color moved toward the text color until it stands out from the background
  // (contrast ≥ 3, the WCAG level for graphics); colors that already do are kept.
  function readable(color, colors) {
    const rgb = channels(color);
    const background = channels(colors.background);
    const text = channels(colors.text);
    if (!rgb || !background || !text || contrast(rgb, background) >= 3) return color;
    for (let share = 0.1; share <= 1; share += 0.1) {
      const mixed = rgb.map((v, i) => Math.round(v + (text[i] - v) * share));
      if (contrast(mixed, background) >= 3) return "rgb(" + mixed.join(",") + ")";
    }
    return colors.text;
  }

  // The generator's trace colors, each made readable on the current palette's background.
  // Bar texts are hover texts here: drawn inside the bars they would be unreadable.
  function themedData(data, colors) {
    const traces = JSON.parse(JSON.stringify(data || []), (key, value) =>
      key === "color" && typeof value === "string" ? readable(value, colors) : value
    );
    for (const trace of traces) {
      if (trace.type === "bar" && trace.text && !trace.textposition) trace.textposition = "none";
    }
    return traces;
  }

  // A long title broken into lines that fit a narrow chart (Plotly does not wrap titles).
  function wrapTitle(text, width) {
    const perLine = Math.max(Math.floor(width / 8), 24);
    const lines = [];
    let line = "";
    for (const word of text.split(" ")) {
      if (line && (line + " " + word).length > perLine) {
        lines.push(line);
        line = word;
      } else {
        line = line ? line + " " + word : word;
      }
    }
    if (line) lines.push(line);
    return lines.join("<br>");
  }

  async function draw(element) {
    const name = element.dataset.chart;
    try {
      const [Plotly, spec] = await Promise.all([loadPlotly(), fetchSpec(name)]);
      const colors = themeColors();
      const width = element.clientWidth || window.innerWidth;
      await Plotly.react(element, themedData(spec.data, colors), themedLayout(spec.layout, colors, width), {
        responsive: true,
        displaylogo: false,
        modeBarButtonsToRemove: ["select2d", "lasso2d"],
      });
      element.dataset.drawn = scheme();
    } catch (error) {
      element.textContent = "This chart could not be drawn (" + error.message + ").";
      console.error(error);
    }
  }

  function mountCharts() {
    const charts = document.querySelectorAll("div.chart[data-chart]");
    charts.forEach((element) => {
      // A figure, not an img: an img may not hold the modebar's buttons (axe: nested-interactive).
      element.setAttribute("role", "figure");
      draw(element);
    });
  }

  // Redraw when the reader switches palette (Material sets the attribute on <body>).
  new MutationObserver(() => {
    document.querySelectorAll("div.chart[data-chart]").forEach(draw);
  }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

  if (window.document$) {
    window.document$.subscribe(mountCharts);
  } else {
    document.addEventListener("DOMContentLoaded", mountCharts);
  }
})();
