"""A chart's stand-in: a static SVG drawn from its Plotly spec, shown until plotly.js draws it.

The stand-in is what a reader sees first (and all a reader without JavaScript sees): the same
axes, ticks, lines, markers and bars as the drawn chart, without hover. It is drawn twice,
at the text column's width on a desktop and on a phone (generator/charts/style.py WIDE and
NARROW), so its text is never scaled down; the page's CSS shows the one that fits. Colours
are classes (`k-<role>`, CSS variables per palette), so it follows the reader's palette with
no script. Supports what generator/charts/measured.py writes: scatter (lines, markers) and
horizontal bars (grouped or stacked) on linear, log and category axes.
Run through `python -m generator build`.
"""

import copy
import html
import math

from generator.charts.style import FONT_SIZE, NARROW, WIDE, dasharray

SIZES = {"wide": WIDE, "narrow": NARROW}
LINE = FONT_SIZE + 2  # px between the lines of a label


def merged(base: dict, patch: dict) -> dict:
    """A deep copy of `base` with `patch` laid over it (dicts merged, anything else replaced)."""
    result = copy.deepcopy(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def num(value: float) -> str:
    """A coordinate: whole pixels are plenty for a stand-in (and keep the page small)."""
    return str(round(value))


class Axis:
    """Maps data values of one axis to pixels along [start, end] (pixels)."""

    def __init__(self, spec: dict, start: float, end: float):
        self.spec, self.start, self.end = spec, start, end
        self.kind = spec.get("type", "linear")
        self.categories = spec.get("categoryarray", [])
        self.low, self.high = spec["range"]

    def coordinate(self, value):
        if value is None:
            return None
        if self.kind == "category":
            return float(self.categories.index(value))
        if self.kind == "log":
            return math.log10(value) if value > 0 else None
        return float(value)

    def pixel(self, value) -> float | None:
        position = self.coordinate(value)
        if position is None:
            return None
        share = (position - self.low) / (self.high - self.low)
        return self.start + share * (self.end - self.start)

    def ticks(self) -> list:
        """(pixel, label) of every tick."""
        if self.kind == "category" and "ticktext" not in self.spec:
            return [(self.pixel(c), str(c)) for c in self.categories]
        values = self.spec.get("tickvals", [])
        labels = self.spec.get("ticktext", [str(v) for v in values])
        return [(self.pixel(v), label) for v, label in zip(values, labels, strict=True)]

    def band(self) -> float:
        """Pixels per category (category axes)."""
        return abs(self.end - self.start) / abs(self.high - self.low)


def text(x: float, y: float, label: str, extra: str = "", up: bool = False) -> str:
    """A label; Plotly's '<br>' starts a new line (lines go down, or centre on y if `up`)."""
    lines = label.split("<br>")
    if len(lines) == 1:
        return f'<text x="{num(x)}" y="{num(y)}"{extra}>{html.escape(label)}</text>'
    first = y - (len(lines) - 1) * LINE / 2 if up else y
    spans = "".join(
        f'<tspan x="{num(x)}" y="{num(first + i * LINE)}">{html.escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f"<text{extra}>{spans}</text>"


def axes_parts(x: Axis, y: Axis, box: tuple, layout: dict, height: float) -> list:
    left, top, right, bottom = box
    parts = []
    grid = []
    if x.kind != "category":
        grid += [f"M{num(p)} {num(top)}V{num(bottom)}" for p, _ in x.ticks()]
    if y.kind != "category":
        grid += [f"M{num(left)} {num(p)}H{num(right)}" for p, _ in y.ticks()]
    if grid:
        parts.append(f'<path class="grid" d="{"".join(grid)}"/>')
    for axis, vertical in ((x, True), (y, False)):
        if axis.spec.get("zeroline") and axis.low < 0 < axis.high:
            p = axis.pixel(0)
            d = (
                f"M{num(p)} {num(top)}V{num(bottom)}"
                if vertical
                else f"M{num(left)} {num(p)}H{num(right)}"
            )
            parts.append(f'<path class="zero" d="{d}"/>')
    parts.append(f'<path class="axis" d="M{num(left)} {num(bottom)}H{num(right)}"/>')
    labels = "".join(text(p, bottom + FONT_SIZE + 4, label) for p, label in x.ticks())
    parts.append(f'<g class="ticks xticks" text-anchor="middle">{labels}</g>')
    labels = "".join(text(left - 6, p + FONT_SIZE * 0.35, label, up=True) for p, label in y.ticks())
    parts.append(f'<g class="ticks yticks" text-anchor="end">{labels}</g>')
    titles = []
    if x.spec["title"]["text"]:
        titles.append(text((left + right) / 2, height - 6, x.spec["title"]["text"]))
    if y.spec["title"]["text"]:
        middle = (top + bottom) / 2
        titles.append(
            text(
                0,
                0,
                y.spec["title"]["text"],
                extra=f' transform="translate(13 {num(middle)}) rotate(-90)"',
            )
        )
    parts.append(f'<g class="titles" text-anchor="middle">{"".join(titles)}</g>')
    return parts


def symbol_path(symbol: str, x: float, y: float, size: float) -> str:
    r = size / 2
    if symbol in ("x-open", "x-thin-open"):
        step, back = num(size), num(-size)
        return f"M{num(x - r)} {num(y - r)}l{step} {step}m0 {back}l{back} {step}"
    if symbol == "triangle-up-open":
        return f"M{num(x)} {num(y - r)}L{num(x + r)} {num(y + r)}H{num(x - r)}Z"
    return ""


def scatter(trace: dict, x: Axis, y: Axis) -> str:
    points = [(x.pixel(a), y.pixel(b)) for a, b in zip(trace["x"], trace["y"], strict=True)]
    mode = trace.get("mode", "lines+markers")
    line = trace.get("line", {})
    width = line.get("width", 2)
    parts = []
    if "lines" in mode:
        path, pen = [], "M"
        for px, py in points:
            if px is None or py is None:
                pen = "M"
                continue
            path.append(f"{pen}{num(px)} {num(py)}")
            pen = "L"
        dash = dasharray(line.get("dash", "solid"), width)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<path class="line" d="{"".join(path)}" stroke-width="{num(width)}"{dash_attr}/>'
        )
    if "markers" in mode:
        marker = trace.get("marker", {})
        size = marker.get("size", 6)
        symbols = marker.get("symbol", "circle")
        symbols = symbols if isinstance(symbols, list) else [symbols] * len(points)
        dots, open_marks = [], []
        for (px, py), symbol in zip(points, symbols, strict=True):
            if px is None or py is None:
                continue
            if symbol == "circle":  # a dot: a zero-length stroke with round caps
                dots.append(f"M{num(px)} {num(py)}h0")
            else:
                open_marks.append(symbol_path(symbol, px, py, size))
        if dots:
            parts.append(f'<path class="dots" d="{"".join(dots)}" stroke-width="{size:g}"/>')
        if open_marks:
            parts.append(f'<path class="open" d="{"".join(open_marks)}"/>')
    return "".join(parts)


def hbars(traces: list, x: Axis, y: Axis, layout: dict) -> list:
    """Horizontal bars, grouped (side by side in each category) or stacked."""
    bars = [t for t in traces if t["type"] == "bar"]
    if not bars:
        return []
    band = y.band() * (1 - layout.get("bargap", 0.2))
    stacked = layout.get("barmode") == "stack"
    slot = band if stacked else band / max(len(bars), 1)
    ends = {}
    out = []
    base_pixel = x.pixel(0) if x.kind != "log" else x.start
    for index, trace in enumerate(bars):
        colours = trace.get("marker", {}).get("color")
        rects = {}  # "solid" or "hollow" -> path of its bars
        for row, (category, value) in enumerate(zip(trace["y"], trace["x"], strict=True)):
            if value is None:
                continue
            centre = y.pixel(category)
            if stacked:
                start = ends.get(category, 0.0)
                ends[category] = start + value
                x0, x1 = x.pixel(start), x.pixel(start + value)
                top = centre - band / 2
            else:
                x0, x1 = base_pixel, x.pixel(value)
                top = centre - band / 2 + index * slot
            hollow = isinstance(colours, list) and colours[row] == "rgba(0,0,0,0)"
            rects.setdefault("hollow" if hollow else "solid", []).append(
                f"M{num(min(x0, x1))} {num(top)}h{num(abs(x1 - x0))}v{num(slot * 0.92)}"
                f"h{num(-abs(x1 - x0))}z"
            )
        paths = "".join(f'<path class="{kind}" d="{"".join(d)}"/>' for kind, d in rects.items())
        role = trace.get("meta", {}).get("role", "ref")
        out.append(f'<g class="k-{role} bars">{paths}</g>')
    return out


def render(spec: dict, variant: str, shown=None) -> str:
    """The stand-in SVG of a spec at one width; `shown(trace)` says which traces to draw
    (default: every trace not hidden by `visible`)."""
    layout = merged(spec["layout"], spec["site"]["narrow"] if variant == "narrow" else {})
    width, height = SIZES[variant], spec["site"]["heights"][variant]
    m = layout["margin"]
    box = (m["l"], m["t"], width - m["r"], height - m["b"])
    x = Axis(layout["xaxis"], box[0], box[2])
    y = Axis(layout["yaxis"], box[3], box[1])
    parts = axes_parts(x, y, box, layout, height)
    traces = [t for t in spec["data"] if (shown(t) if shown else t.get("visible", True) is True)]
    parts += hbars(traces, x, y, layout)
    for trace in traces:
        if trace["type"] == "scatter":
            role = trace.get("meta", {}).get("role", "ref")
            parts.append(f'<g class="k-{role} series">{scatter(trace, x, y)}</g>')
    return (
        f'<svg class="standin standin-{variant}" viewBox="0 0 {width} {height}" '
        f'aria-hidden="true" focusable="false">{"".join(parts)}</svg>'
    )
