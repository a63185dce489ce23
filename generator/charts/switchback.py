"""Plotly chart specs of the switchback benchmark (results.json `bench.switchback`, issue 28):

- `switchback_slices`: one real run (the first A/A run, both arms the same setting), its first
  slices request by request: when each request arrived in the run against how long it took,
  coloured by the arm of its slice, with each slice's p50 drawn across the slice: what a
  switchback run is, and how little the level moves from one slice to the next;
- `switchback_intervals`: per comparison, the 95% interval of arm B − arm A for the p50 and
  the server time (and for the added-work runs the ready stage, where the work is added, when
  the file records it), in µs at arm A's level, the Hodges–Lehmann estimate on it, 0 dashed,
  and for the added-work runs the amount that was added.

The specs follow generator/charts/measured.py (the `site` key, colour roles of
generator/charts/style.py, axes of generator/charts/axes.py), so each gets its stand-ins and is
drawn lazily like every chart. Drawn only when the build found data/bench/switchback.json. Run
through `python -m generator build` (generator/build.py adds them to the other charts).
"""

from generator.arithmetic.bench_files import comparison_label
from generator.charts import axes as chart_axes
from generator.charts.measured import LINE_HEIGHT, layout, rows_heights, show, spec
from generator.charts.style import colour

ARM_NAMES = ("A", "B")
ARM_ROLES = ("s1", "s2")  # generator/charts/style.py
STATISTICS = (("p50", "p50", "s1"), ("server", "server time", "s2"))  # key, label, role
# the stage the added work lands in: drawn for the added-work comparisons when the file has it
READY = ("ready", "ready stage", "s4")


def thick_line(name: str, x: list, y: list, texts: list, role: str) -> dict:
    """A thick line trace in `role`'s colour with its own hover text (a slice's p50, an
    interval): the two charts' bars drawn the same way."""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": x,
        "y": y,
        "text": texts,
        "hovertemplate": "%{text}<extra></extra>",
        "line": {"color": colour(role), "width": 4, "dash": "solid"},
        "meta": {"role": role},
    }


def slices(switchback: dict) -> dict:
    """The example run's first slices: each request (arrival, latency), coloured by arm, and
    each slice's p50 as a line across it."""
    example = switchback["example"]
    shown = example["shown"]
    slice_s, count = switchback["slice_s"], example["shown_slices"]
    table = example["slice_table"]
    traces = []
    for arm, (name, role) in enumerate(zip(ARM_NAMES, ARM_ROLES, strict=True)):
        chosen = [i for i, a in enumerate(shown["arm"]) if a == arm]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"a request in a slice of arm {name}",
                "x": [shown["arrival_ms"][i] / 1000 for i in chosen],
                "y": [shown["latency_ms"][i] for i in chosen],
                "marker": {"size": 4, "symbol": "circle", "color": colour(role)},
                "hovertemplate": f"arm {name}: arrived at %{{x:.3f}} s, answered after "
                "%{y:.2f} ms<extra></extra>",
                "meta": {"role": role},
            }
        )
    for arm, (name, role) in enumerate(zip(ARM_NAMES, ARM_ROLES, strict=True)):
        x, y, texts = [], [], []
        for k in range(count):
            if table["arm"][k] != arm or table["p50_ms"][k] is None:
                continue
            start, end = k * slice_s, (k + 1) * slice_s
            text = (
                f"slice {k + 1} (arm {name}, {table['requests'][k]} requests): "
                f"p50 {show(table['p50_ms'][k], 'ms')}"
            )
            x += [start, end, None]
            y += [table["p50_ms"][k]] * 2 + [None]
            texts += [text, text, ""]
        traces.append(thick_line(f"p50 of a slice of arm {name}", x, y, texts, role))
    latencies = [v for v in shown["latency_ms"] if v is not None]
    x_axis = chart_axes.linear_axis("time in the run (s)", [0, count * slice_s], most_ticks=6)
    y_axis = chart_axes.log_axis("latency from the scheduled arrival (ms)", latencies)
    return spec(traces, layout(x_axis, y_axis), dict(LINE_HEIGHT))


def interval_rows(switchback: dict) -> list:
    """(row label, comparison, statistic key, statistic label, role) per row, in the file's
    order, each comparison's p50 then its server time (then, where work was added and the file
    has it, its ready stage); a label is two lines (the comparison,
    then the statistic), so the plot keeps its width on a phone. The A/A control run in
    independent slices beside the twin one is left to the table: it measures the design, not
    a setting, and its label would squeeze the plot on a phone."""
    rows = []
    for name in switchback["names"]:
        if name == switchback.get("aa_independent"):
            continue
        found = switchback["comparisons"][name]
        shown_statistics = STATISTICS
        if found["kind"] == "added_work" and "ready" in found["statistics"]:
            shown_statistics += (READY,)
        for key, label, role in shown_statistics:
            if found["statistics"][key]["interval"] is not None:
                shown = comparison_label(name, switchback)
                rows.append((f"{shown}<br>{label}", name, key, label, role))
    return rows


def intervals(switchback: dict) -> dict:
    """Per comparison and statistic its 95% interval (µs at A's level), the estimate on it,
    0 dashed and, where work was added, the amount added."""
    rows = interval_rows(switchback)
    if not rows:
        return spec([], {}, {})
    labels = [row[0] for row in rows]
    traces, values = [], [0.0]
    for _, statistic_label, role in (*STATISTICS, READY):
        chosen = [row for row in rows if row[3] == statistic_label]
        x, y, texts, middle_x, middle_y = [], [], [], [], []
        for label, name, key, _, _ in chosen:
            interval = switchback["comparisons"][name]["statistics"][key]["interval"]
            low, high, estimate = (
                interval["low95_us"],
                interval["high95_us"],
                interval["estimate_us"],
            )
            if low is None or high is None:
                continue
            text = (
                f"{name}, {statistic_label}: B − A {show(estimate, 'µs')}, 95% interval "
                f"{show(low, 'µs')} to {show(high, 'µs')} ({interval['verdict']})"
            )
            x += [low, high, None]
            y += [label, label, None]
            texts += [text, text, ""]
            middle_x.append(estimate)
            middle_y.append(label)
            values += [low, high]
        if not middle_x:
            continue
        traces.append(thick_line(f"95% interval, {statistic_label}", x, y, texts, role))
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"estimate, {statistic_label}",
                "x": middle_x,
                "y": middle_y,
                "marker": {"size": 9, "symbol": "circle", "color": colour(role)},
                "hovertemplate": "%{y}: estimate %{x:.0f} µs<extra></extra>",
                "meta": {"role": role},
            }
        )
    added = [
        (row[0], switchback["comparisons"][row[1]]["added_work_us"])
        for row in rows
        if switchback["comparisons"][row[1]]["kind"] == "added_work"
    ]
    if added:
        values += [amount for _, amount in added]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "the work added to arm B",
                "x": [amount for _, amount in added],
                "y": [label for label, _ in added],
                "marker": {"size": 9, "symbol": "x-thin-open", "color": colour("s3")},
                "hovertemplate": "%{y}: %{x:.0f} µs added<extra></extra>",
                "meta": {"role": "s3"},
            }
        )
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": "no difference (0)",
            "x": [0, 0],
            "y": [labels[0], labels[-1]],
            "line": {"dash": "dash", "color": colour("ref"), "width": 2},
            "hoverinfo": "skip",
            "meta": {"role": "ref"},
        }
    )
    title = "arm B − arm A, at arm A's level (µs)"
    x_axis = chart_axes.linear_axis(title, values, most_ticks=6)
    y_axis = chart_axes.category_axis(labels, reversed_=True)
    narrow = {"xaxis": chart_axes.linear_axis("B − A (µs)", values, most_ticks=3)}
    return spec(traces, layout(x_axis, y_axis), rows_heights(len(labels), 2.2), narrow)


def all_switchback_charts(results: dict) -> dict:
    """{name: spec} of the switchback charts whose data the build found."""
    switchback = results.get("bench", {}).get("switchback")
    if not switchback:
        return {}
    charts = {"switchback_intervals": intervals(switchback)}
    if "example" in switchback and "shown" in switchback["example"]:
        charts["switchback_slices"] = slices(switchback)
    return {name: found for name, found in charts.items() if found and found["data"]}
