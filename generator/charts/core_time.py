"""The Plotly chart spec of where the shared core's time goes per answer (results.json
`bench.core_time`, issue 33): `core_time`, one stacked horizontal bar per setting, rate and
version (the old service's bar right above the new one's, so each pair reads as before and
after), in µs of the core per answer (the medians over rounds).

The file's parts are drawn in GROUPS (a dozen colours could not be told apart; the page's
table beside the chart gives every part): the garbage collector first, so its growth with load
and its cut line up at the left edge, then the model call, the service's other Python, its
kernel time and the load client. A part the groups do not name is drawn on its own after them.
The spec follows generator/charts/measured.py (the `site` key, colour roles of
generator/charts/style.py), so it gets its stand-ins and is drawn lazily like every chart.
Drawn only when the build found data/bench/core_time.json. Run through `python -m generator
build` (generator/build.py adds it to the other charts).
"""

from generator.charts import axes as chart_axes
from generator.charts.measured import hbar, hbar_chart, show

# (words in the key, the file's parts in the group, colour role), in the order stacked
GROUPS = (
    ("garbage collector", ("garbage collector",), "s2"),
    ("model call", ("model",), "s1"),
    ("handler, store lookup, batcher", ("handler", "store lookup", "batcher"), "s3"),
    ("HTTP parsing, framework", ("HTTP parsing", "framework"), "s4"),
    ("event loop, other Python", ("event loop", "other Python"), "s5"),
    ("service's kernel time", ("service kernel (network path, scheduling)",), "p50"),
    ("load client", ("load client, user", "load client, kernel"), "p99"),
)
OTHER_ROLE = "s6"


def groups_of(parts: list) -> list:
    """(words, parts, role) of each group holding a part of the file, then each part no group
    names, alone."""
    named = {part for _, members, _ in GROUPS for part in members}
    found = [(words, [p for p in members if p in parts], role) for words, members, role in GROUPS]
    found = [(words, members, role) for words, members, role in found if members]
    return found + [(part, [part], OTHER_ROLE) for part in parts if part not in named]


def row_label(setting: str, multiple: float, version: str) -> str:
    return f"{setting}, {multiple:g} × S<br>{version}"


def hover(setting: str, multiple: float, version: str, words: str, members: list,
          cell: dict) -> str:  # fmt: skip
    value = sum(cell[part] for part in members)
    text = (f"{setting} at {multiple:g} × S, {version} service: {words} "
            f"{show(value, 'µs')} per answer of {show(cell['total'], 'µs')}")  # fmt: skip
    if len(members) > 1:
        text += "<br>" + ", ".join(f"{part} {show(cell[part], 'µs')}" for part in members)
    return text


def core_time(section: dict) -> dict:
    """The stacked bars (see the module docstring)."""
    rows = [(setting, multiple, version) for setting in section["settings"]
            for multiple in section["rate_multiples"] for version in ("old", "new")]  # fmt: skip
    labels = [row_label(*row) for row in rows]
    cells = [section["summary"][v][s][f"x{m:g}"] for s, m, v in rows]
    traces = []
    for words, members, role in groups_of(section["parts"]):
        values = [sum(cell[part] for part in members) for cell in cells]
        texts = [hover(s, m, v, words, members, cell)
                 for (s, m, v), cell in zip(rows, cells, strict=True)]  # fmt: skip
        traces.append(hbar(words, role, labels, values, texts))
    sums = [sum(cell[part] for part in section["parts"]) for cell in cells]
    title = "core time per answer (µs)"
    chart = hbar_chart(labels, traces, chart_axes.linear_axis(title, sums, most_ticks=6),
                       per_row=1.6, cells=False, barmode="stack")  # fmt: skip
    chart["site"]["narrow"] = {"xaxis": chart_axes.linear_axis(title, sums, most_ticks=4)}
    return chart


def all_core_time_charts(results: dict) -> dict:
    """{name: spec} of the core-time chart when the build found its file."""
    section = results.get("bench", {}).get("core_time")
    return {"core_time": core_time(section)} if section else {}
