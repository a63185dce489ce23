"""The HTML of one chart on a page: its stand-ins, its key (or the B and W a reader picks),
and under it the caption with links to the data.

`figure(name, spec, caption, …)` is what `{{ m.chart(...) }}` in a page template renders
(the page context's `chart_figure`). The box `<div class="chart" data-chart="NAME">` holds
the two stand-in SVGs (generator/charts/standins.py) until site_src/js/charts.js draws the chart
with plotly.js; its aspect ratio is the stand-ins', so nothing moves when it does. The key
is the page's own: each entry a button that shows or hides its series; on a steered chart
the reader picks B and W (and p50, p99 or throughput), one colour per B and one dash per W.
Run through `python -m generator build`.
"""

import html

from generator.charts import standins
from generator.charts.style import NARROW, WIDE, dasharray

SYMBOLS = {  # the marker key: symbol -> its meaning
    "circle": "kept up",
    "x-thin-open": "did not keep up",
    "triangle-up-open": "never answered (infinite)",
}
RESULTS_LINK = "Data: [results.json](assets/data/results.json) (every number on this site)"
CELLS_LINK = "[part_b_cells.csv](assets/data/part_b_cells.csv) (one row per setting and rate)"


def sample(
    role: str, dash: str = "solid", width: float = 2, kind: str = "line", long: bool = False
) -> str:
    """A small picture of a series for the key: a line with its dash, or a bar swatch. A
    `long` sample (the W picks) is wide enough for two periods of every dash pattern."""
    if kind == "bar":
        body = '<rect x="2" y="3" width="32" height="10" rx="1"/>'
    elif kind == "hollow-bar":  # filled = told apart, outlined = not (the note says so)
        body = (
            '<rect x="2" y="3" width="15" height="10"/>'
            '<rect class="open" x="19" y="3" width="15" height="10"/>'
        )
    elif kind in SYMBOLS:
        body = marker_icon(kind)
    else:
        pattern = dasharray(dash, width)
        dash_attr = f' stroke-dasharray="{pattern}"' if pattern else ""
        body = f'<path d="M1 8H{47 if long else 35}" stroke-width="{width:g}"{dash_attr}/>'
    wide = " key-sample-long" if long else ""
    return f'<svg class="key-sample{wide} k-{role}" aria-hidden="true">{body}</svg>'


def marker_icon(symbol: str) -> str:
    if symbol == "circle":
        return '<circle cx="18" cy="8" r="4"/>'
    if symbol == "x-thin-open":
        return '<path class="open" d="M14 4l8 8m0-8l-8 8"/>'
    return '<path class="open" d="M18 3L23 12H13Z"/>'


def trace_kind(trace: dict) -> str:
    if trace["type"] == "bar":
        colours = trace.get("marker", {}).get("color")
        return "hollow-bar" if isinstance(colours, list) else "bar"
    if trace.get("mode") == "markers":
        symbol = trace.get("marker", {}).get("symbol", "circle")
        return symbol if isinstance(symbol, str) else "circle"
    return "line"


def key(spec: dict) -> str:
    """One button per series (it shows or hides it), in the order of the data."""
    items = []
    for index, trace in enumerate(spec["data"]):
        role = trace.get("meta", {}).get("role", "ref")
        line = trace.get("line", {})
        picture = sample(role, line.get("dash", "solid"), line.get("width", 2), trace_kind(trace))
        pressed = "false" if trace.get("visible", True) is not True else "true"
        items.append(
            f'<li><button type="button" class="chart-key-item" data-trace="{index}" '
            f'aria-pressed="{pressed}">{picture}{html.escape(trace["name"])}</button></li>'
        )
    label = "Key: press to show or hide a series"
    return f'<ul class="chart-key" aria-label="{label}">{"".join(items)}</ul>'


def markers_note(spec: dict) -> str:
    """The symbols the chart uses, explained (a line chart of settings only)."""
    used = []
    for trace in spec["data"]:
        if "markers" not in trace.get("mode", ""):
            continue
        symbols = trace.get("marker", {}).get("symbol", "circle")
        for symbol in symbols if isinstance(symbols, list) else [symbols]:
            if symbol in SYMBOLS and symbol not in used:
                used.append(symbol)
    if len(used) < 2:
        return ""
    order = [s for s in SYMBOLS if s in used]
    parts = "".join(f"<span>{sample('ref', kind=s)}{SYMBOLS[s]}</span>" for s in order)
    return f'<p class="chart-symbols">{parts}</p>'


def steer_controls(name: str, spec: dict, b_on: list, w_on: list, views: bool) -> str:
    steer = spec["site"]["steer"]
    parts = []
    if views and steer["views"]:
        radios = "".join(
            f'<label><input type="radio" name="view-{name}" value="{v["value"]}"'
            f"{' checked' if v['value'] == name else ''}> {html.escape(v['label'])}</label>"
            for v in steer["views"]
        )
        parts.append(group(name, "view", "Show", radios, "chart-views"))
    boxes = "".join(
        f'<label><input type="checkbox" value="{b["value"]}"'
        f"{' checked' if b['value'] in b_on else ''}>"
        f"{sample(b['role'], width=4 if b['value'] == 'none' else 2)}"
        f"{b_words(b['value'])}</label>"
        for b in steer["b"]
    )
    parts.append(group(name, "b", "B", boxes))
    boxes = "".join(
        f'<label><input type="checkbox" value="{w["value"]}"'
        f"{' checked' if w['value'] in w_on else ''}>"
        f"{sample('ref', w['dash'], long=True)}{w['value']} ms</label>"
        for w in steer["w"]
    )
    parts.append(group(name, "w", "W", boxes))
    return f'<div class="chart-steer">{"".join(parts)}</div>'


def group(chart: str, pick: str, words: str, controls: str, kind: str = "chart-pick") -> str:
    """A labelled row of controls (a group, so a screen reader names it)."""
    label = f"pick-{pick}-{chart}"
    data = f' data-pick="{pick}"' if pick != "view" else ""
    return (
        f'<div class="{kind}" role="group" aria-labelledby="{label}"{data}>'
        f'<span class="pick-name" id="{label}">{words}</span>{controls}</div>'
    )


def b_words(value: str) -> str:
    return {"none": "none", "1": "queue B=1"}.get(value, f"B={value}")


def picked(b_on: list, w_on: list):
    """Which traces a steered chart shows: B picked, and W picked unless the setting has no W
    (none and queue B=1); references (meta b '*') always."""

    def shown(trace: dict) -> bool:
        meta = trace.get("meta", {})
        if meta.get("b") == "*":
            return True
        if meta.get("b") not in b_on:
            return False
        return meta.get("b") in ("none", "1") or meta.get("w") in w_on

    return shown


def figure(name: str, spec: dict, caption: str, b=None, w=None, views=False) -> str:
    """The chart's HTML block and its caption paragraph (Markdown, so the links resolve).
    A steered chart shows the B and W picked first (`b`, `w`: lists of labels; None = all)."""
    steered = "steer" in spec["site"]
    if steered:
        b = [x["value"] for x in spec["site"]["steer"]["b"]] if b is None else list(b)
        w = [x["value"] for x in spec["site"]["steer"]["w"]] if w is None else list(w)
    shown = picked(b, w) if steered else None
    heights = spec["site"]["heights"]
    ratio = f"--wide: {WIDE} / {heights['wide']}; --narrow: {NARROW} / {heights['narrow']}"
    picks = f' data-b="{" ".join(b)}" data-w="{" ".join(w)}"' if steered else ""
    # A figure, not an img: an img may not hold plotly's modebar buttons (axe: nested-interactive).
    box = (
        f'<div class="chart" data-chart="{name}" role="figure" '
        f'aria-label="{html.escape(caption)}" style="{ratio}"{picks}>'
        f"{standins.render(spec, 'wide', shown)}{standins.render(spec, 'narrow', shown)}</div>"
    )
    if steered:
        body = steer_controls(name, spec, b, w, views) + box + markers_note(spec)
    else:
        body = box + key(spec)
    links = RESULTS_LINK + (f" · {CELLS_LINK}" if spec["site"].get("cells") else "")
    # The figure's height before it is first laid out (the CSS skips off-screen figures).
    guess = heights["wide"] + (110 if steered else 50)
    return (
        f'<div class="chart-figure" id="chart-{name}" '
        f'style="contain-intrinsic-size: auto {guess}px">{body}</div>\n\n'
        f"{caption} {links}.\n{{: .chart-caption }}\n"
    )
