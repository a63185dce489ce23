"""Small pieces for writing the site's SVG pictures by hand (generator/charts/drawings.py uses
them).

A picture is drawn for any width: horizontal positions are percentages of the picture's
width, vertical ones pixels, and text keeps its size, so the same SVG reads at 390 px and at
1280 px. Colours are classes styled with Material's variables (STANDALONE_STYLE, which the
build also writes as the site's assets/css/pictures.css), so both palettes work; a picture
written as its own file carries the same rules, with fallbacks. Run through
`python -m generator build`.
"""

from html import escape

# The classes the drawings use, with Material's variables and a fallback for a file opened
# on its own (the build writes these rules as assets/css/pictures.css for the site too). The
# light palette's accent (deep orange, under 3:1 on white) gives way to a darker shade of it
# so marks in it stay visible; the dark palette keeps its own accent.
STANDALONE_STYLE = """
.pic {
  --pic-hot: var(--md-accent-fg-color, #d84315);
}
[data-md-color-scheme="default"] .pic {
  --pic-hot: #d84315;
}
.pic {
  font-family: sans-serif;
  font-size: 12px;
}
.pic text {
  fill: var(--md-default-fg-color,#222);
}
.pic .muted {
  fill: var(--md-default-fg-color--light,#757575);
}
.pic .strong {
  font-weight: 700;
}
.pic .mono {
  font-family: monospace;
}
.pic .axis {
  stroke: var(--md-default-fg-color--lighter,#aaa);
  stroke-width: 1;
}
.pic .grid {
  stroke: var(--md-default-fg-color--lightest,#eee);
  stroke-width: 1;
}
.pic .link {
  stroke: var(--md-default-fg-color--lighter,#aaa);
  stroke-width: 1;
}
.pic .dot {
  fill: var(--md-default-fg-color,#222);
}
.pic .hollow {
  fill: var(--md-default-bg-color,#fff);
  stroke: var(--md-default-fg-color,#222);
  stroke-width: 1.5;
}
.pic .call {
  fill: var(--md-typeset-a-color,#4051b5);
}
.pic .wait {
  fill: var(--pic-hot);
  fill-opacity: .35;
  stroke: var(--pic-hot);
}
.pic .span {
  stroke: var(--md-default-fg-color--light,#757575);
  stroke-width: 3;
  stroke-linecap: round;
}
.pic .hot {
  stroke: var(--pic-hot);
}
.pic text.hot {
  fill: var(--pic-hot);
  stroke: none;
}
.pic .accent {
  fill: var(--pic-hot);
}
.pic .shade {
  fill: var(--pic-hot);
  fill-opacity: .12;
}
.pic .box {
  fill: var(--md-code-bg-color,#f5f5f5);
  stroke: var(--md-default-fg-color--lighter,#aaa);
}
.pic .box.bad {
  stroke: var(--pic-hot);
  stroke-width: 2;
}
.pic .seat {
  fill: none;
  stroke: var(--md-default-fg-color--lighter,#aaa);
}
.pic .seat.taken {
  fill: var(--md-typeset-a-color,#4051b5);
  stroke: none;
}
.pic .gap {
  stroke: var(--md-default-bg-color,#fff);
  stroke-width: 1.5;
}
.pic text.number {
  fill: var(--md-default-bg-color,#fff);
  font-weight: 700;
}
"""


def pc(x: float) -> str:
    """A horizontal position, a share of the width (0 … 1), as an SVG percentage."""
    return f"{100 * x:.2f}%"


def attrs(values: dict) -> str:
    return "".join(
        f' {key.rstrip("_").replace("_", "-")}="{escape(str(value))}"'
        for key, value in values.items()
        if value is not None
    )


def tag(name: str, content: str = "", **values) -> str:
    """An element; `class_` for class, underscores in other names become hyphens."""
    if not content:
        return f"<{name}{attrs(values)}/>"
    return f"<{name}{attrs(values)}>{content}</{name}>"


def text(x, y, words: str, anchor: str = "start", **values) -> str:
    """Text at (x share, y px); anchor start, middle or end."""
    return tag("text", escape(words), x=pc(x), y=y, text_anchor=anchor, **values)


def rect(x0: float, x1: float, y: float, height: float, **values) -> str:
    """A rectangle from x0 to x1 (shares of the width), y px down, `height` px tall."""
    left, right = min(x0, x1), max(x0, x1)
    return tag("rect", x=pc(left), y=y, width=pc(right - left), height=height, **values)


def line(x0: float, y0: float, x1: float, y1: float, **values) -> str:
    return tag("line", x1=pc(x0), y1=y0, x2=pc(x1), y2=y1, **values)


def circle(x: float, y: float, radius: float, **values) -> str:
    return tag("circle", cx=pc(x), cy=y, r=radius, **values)


class Scale:
    """Data values onto shares of the width: `low` at `left`, `high` at `right`."""

    def __init__(self, low: float, high: float, left: float = 0.03, right: float = 0.97):
        self.low, self.high, self.left, self.right = low, high, left, right

    def __call__(self, value: float) -> float:
        share = (value - self.low) / (self.high - self.low)
        return self.left + share * (self.right - self.left)


def axis(scale: Scale, y: float, step: float, unit: str) -> str:
    """A horizontal axis at y px with a tick and label every `step` (the last one says the
    unit); labels at the ends are kept inside the picture."""
    parts = [line(scale.left, y, scale.right, y, class_="axis")]
    count = int((scale.high - scale.low) / step + 1e-9) + 1
    first = -(-scale.low // step) * step
    ticks = [
        first + index * step + 0.0
        for index in range(count)
        if first + index * step <= scale.high + 1e-9
    ]
    for index, value in enumerate(ticks):
        x = scale(value)
        last = index == len(ticks) - 1
        label = f"{value:g}" + (f" {unit}" if last else "")
        anchor = "end" if last else ("start" if index == 0 and x <= scale.left + 1e-9 else "middle")
        parts.append(line(x, y, x, y + 4, class_="axis"))
        parts.append(text(x, y + 16, label, anchor, class_="muted"))
    return "".join(parts)


def picture(name: str, title: str, desc: str, height: int, body: str, standalone=False) -> str:
    """The whole <svg>: full width, `height` px, titled and described for screen readers.
    Standalone (a file of its own): with the XML namespace and its own style rules."""
    ids = f"picture-{name}-title picture-{name}-desc"
    head = tag("title", escape(title), id=f"picture-{name}-title") + tag(
        "desc", escape(desc), id=f"picture-{name}-desc"
    )
    style = tag("style", STANDALONE_STYLE.strip()) if standalone else ""
    return tag(
        "svg",
        head + style + body,
        xmlns="http://www.w3.org/2000/svg",
        class_=f"pic pic-{name}",
        width="100%",
        height=height,
        role="img",
        aria_labelledby=ids,
    )
