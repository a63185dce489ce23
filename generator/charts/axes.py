"""Axis ranges and ticks for the chart specs, chosen once so the drawn chart and its stand-in
agree: a log axis is labelled at whole numbers (1, 10, 100 … and, over a short span, 2 and 5
times them), never with Plotly's bare "2" and "5" between decades; a linear axis at 1, 2 or
5 × a power of ten. Each function returns a Plotly axis dict (`range`, `tickvals`,
`ticktext`, `type`, `title`). Run through `python -m generator build`.
"""

import math


def tick_text(value: float) -> str:
    """A tick label: thousands separated, no trailing zeros ('1,000', '0.5', '2.5')."""
    if value == 0:
        return "0"
    if abs(value) >= 1000 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:,.4g}"


def finite(values) -> list:
    return [v for v in values if v is not None and math.isfinite(v)]


def axis(title: str, **extra) -> dict:
    return {
        "title": {"text": title},
        "automargin": False,
        "zeroline": False,
        "fixedrange": False,
        **extra,
    }


def log_axis(title: str, values, most_ticks: int = 7) -> dict:
    """A log axis over the values: whole-number ticks, a little room at both ends."""
    shown = [v for v in finite(values) if v > 0] or [1.0]
    low, high = math.log10(min(shown)), math.log10(max(shown))
    span = max(high - low, 0.3)
    low, high = low - span * 0.06, high + span * 0.06
    steps = (1, 2, 5) if high - low < 2.2 else (1,)
    ticks = [
        step * 10**power
        for power in range(math.floor(low), math.ceil(high) + 1)
        for step in steps
        if low <= math.log10(step * 10**power) <= high
    ]
    while len(ticks) > most_ticks:
        ticks = ticks[::2]
    return axis(
        title,
        type="log",
        range=[round(low, 4), round(high, 4)],
        tickvals=ticks,
        ticktext=[tick_text(t) for t in ticks],
    )


def nice_step(span: float, most_ticks: int) -> float:
    raw = span / max(most_ticks - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


def linear_axis(
    title: str, values, most_ticks: int = 6, from_zero: bool = True, suffix: str = ""
) -> dict:
    """A linear axis over the values (and zero), ticks at a round step."""
    shown = finite(values) or [0.0, 1.0]
    low, high = min(shown), max(shown)
    if from_zero:
        low, high = min(low, 0.0), max(high, 0.0)
    if high == low:
        high = low + 1
    step = nice_step(high - low, most_ticks)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    count = round((last - first) / step)
    ticks = [round(first + i * step, 10) for i in range(count + 1)]
    pad = (last - first) * 0.03
    low_end = first if (from_zero and first == 0) else first - pad
    return axis(
        title,
        range=[low_end, last + pad],
        tickvals=ticks,
        ticktext=[tick_text(t) + suffix for t in ticks],
    )


def chosen_axis(title: str, values, labels=None, pad: float = 0.1) -> dict:
    """A numeric axis ticked exactly at the given values (the rates, the waits asked)."""
    shown = sorted(set(finite(values)))
    span = (shown[-1] - shown[0]) or 1.0
    return axis(
        title,
        range=[shown[0] - span * pad, shown[-1] + span * pad],
        tickvals=shown,
        ticktext=labels or [tick_text(v) for v in shown],
    )


def log2_axis(title: str, values, every: int = 1) -> dict:
    """A log axis ticked at the given powers of two (Part A's batch sizes), every n-th."""
    shown = sorted(set(finite(values)))
    low, high = math.log10(shown[0]), math.log10(shown[-1])
    pad = (high - low) * 0.04
    ticks = shown[::every]
    return axis(
        title,
        type="log",
        range=[round(low - pad, 4), round(high + pad, 4)],
        tickvals=ticks,
        ticktext=[tick_text(t) for t in ticks],
    )


def category_axis(categories: list, title: str | None = None, reversed_: bool = False) -> dict:
    spec = axis(
        title or "", type="category", categoryorder="array", categoryarray=categories, ticks=""
    )
    if not title:
        spec["title"] = {"text": ""}
    spec["range"] = [len(categories) - 0.5, -0.5] if reversed_ else [-0.5, len(categories) - 0.5]
    return spec
