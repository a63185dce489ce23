"""Plotly chart specs of the simulator checked against the lab (results.json `simulation`,
its per-cell table included): simulated against measured latency, the relative errors by
rate, and where keeps-up agrees. Every hover says "simulated, not measured" next to the
simulated number. The specs follow generator/charts/measured.py (the `site` key, colour roles of
generator/charts/style.py, axes of generator/charts/axes.py), so each gets its stand-ins and
is drawn lazily like every chart. Run through `python -m generator build` (generator/build.py
adds them to the other charts).
"""

from generator.charts import axes as chart_axes
from generator.charts.measured import (
    KEPT,
    LINE_HEIGHT,
    NOT_KEPT,
    layout,
    rate_axis,
    rows_heights,
    show,
)
from generator.charts.measured import spec as chart_spec
from generator.charts.style import colour

LABELS = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}
UNITS = {"p50_ms": "ms", "p99_ms": "ms", "throughput": "answers/s"}
ROLES = {"p50_ms": "s1", "p99_ms": "s2", "throughput": "s3"}  # generator/charts/style.py
AGREE, DISAGREE = KEPT, NOT_KEPT
AGREEMENT_ROLES = {True: "s3", False: "s2"}


def compared(results: dict) -> list:
    """(setting, rate key, simulated cell, measured cell) in design order."""
    measured = results["part_b"]["settings"]
    return [
        (name, key, cell, measured[name]["rates"][key])
        for name, setting in results["simulation"]["settings"].items()
        for key, cell in setting["rates"].items()
    ]


def percent(error: float | None) -> str:
    return "not comparable" if error is None else f"{error * 100:+.1f}%"


def hover(name: str, key: str, metric: str, simulated: dict, measured: dict) -> str:
    unit, label = UNITS[metric], LABELS[metric]
    return (
        f"{name} at {key} × S: {label}<br>measured {show(measured.get(metric), unit)}<br>"
        f"simulated {show(simulated[metric], unit)} (simulated, not measured)<br>"
        f"simulated − measured: {percent(simulated['error'][metric])}"
    )


def simulated_vs_measured(results: dict) -> dict:
    """p50 and p99, simulated against measured, on the cells the lab saw keep up; log axes,
    the line where they would be equal."""
    rows = [row for row in compared(results) if row[3]["keeps_up"]]
    traces, values = [], []
    for metric in ("p50_ms", "p99_ms"):
        shown = [row for row in rows if row[2]["error"][metric] is not None]
        values += [v for row in shown for v in (row[2][metric], row[3][metric])]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": LABELS[metric],
                "x": [row[3][metric] for row in shown],
                "y": [row[2][metric] for row in shown],
                "marker": {
                    "size": 8,
                    "color": colour(ROLES[metric]),
                    "symbol": [AGREE if row[2]["keeps_up"] else DISAGREE for row in shown],
                    "line": {"width": 2, "color": colour(ROLES[metric])},
                },
                "text": [hover(row[0], row[1], metric, row[2], row[3]) for row in shown],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": {"role": ROLES[metric]},
            }
        )
    if values:
        low, high = min(values), max(values)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "simulated = measured",
                "x": [low, high],
                "y": [low, high],
                "line": {"dash": "dot", "color": colour("ref"), "width": 1.5},
                "hoverinfo": "skip",
                "meta": {"role": "ref"},
            }
        )
    x_axis = chart_axes.log_axis("measured (ms, log scale)", values)
    y_axis = chart_axes.log_axis("simulated (ms, log scale)", values)
    narrow = {"xaxis": chart_axes.log_axis("measured (ms, log scale)", values, most_ticks=4)}
    return chart_spec(traces, layout(x_axis, y_axis), dict(LINE_HEIGHT), narrow=narrow)


def errors_by_rate(results: dict) -> dict:
    """Each kept-up cell's relative error of p50, p99 and throughput against its rate."""
    rows = [row for row in compared(results) if row[3]["keeps_up"]]
    traces = []
    for metric in ("p50_ms", "p99_ms", "throughput"):
        shown = [row for row in rows if row[2]["error"][metric] is not None]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": LABELS[metric],
                "x": [float(row[1]) for row in shown],
                "y": [row[2]["error"][metric] * 100 for row in shown],
                "marker": {"size": 8, "color": colour(ROLES[metric]), "opacity": 0.75},
                "text": [hover(row[0], row[1], metric, row[2], row[3]) for row in shown],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": {"role": ROLES[metric]},
            }
        )
    values = [y for trace in traces for y in trace["y"]]
    y_axis = chart_axes.linear_axis("simulated − measured (%)", values)
    y_axis["zeroline"] = True
    return chart_spec(traces, layout(rate_axis(results["design"]), y_axis), dict(LINE_HEIGHT))


def keeps_up_map(results: dict) -> dict:
    """Every cell: did the simulation and the lab agree on keeping up (✕ where not)."""
    rows = compared(results)
    traces = []
    for agrees, label in ((True, "agree"), (False, "disagree")):
        shown = [row for row in rows if row[2]["keeps_up_agrees"] is agrees]
        role = AGREEMENT_ROLES[agrees]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"simulation and lab {label}",
                "x": [float(row[1]) for row in shown],
                "y": [row[0] for row in shown],
                "marker": {
                    "size": 11,
                    "symbol": AGREE if agrees else DISAGREE,
                    "color": colour(role),
                    "line": {"width": 2, "color": colour(role)},
                },
                "text": [
                    f"{name} at {key} × S: lab {'kept up' if lab['keeps_up'] else 'did not'}; "
                    f"simulation {'kept up' if sim['keeps_up'] else 'did not'} "
                    f"({sim['keeps_up_seeds']} of {results['simulation']['seeds']} seeds; "
                    "simulated, not measured)"
                    for name, key, sim, lab in shown
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": {"role": role},
            }
        )
    names = list(results["simulation"]["settings"])
    y_axis = chart_axes.category_axis(names, reversed_=True)
    return chart_spec(
        [trace for trace in traces if trace["x"]],
        layout(rate_axis(results["design"]), y_axis),
        rows_heights(len(names), extra=70),
    )


def all_simulation_charts(results: dict) -> dict:
    """{chart name: spec}; none when the campaign has no simulation table."""
    if not (results.get("simulation") or {}).get("settings"):
        return {}
    return {
        "simulated_vs_measured": simulated_vs_measured(results),
        "simulation_errors": errors_by_rate(results),
        "simulation_keeps_up": keeps_up_map(results),
    }
