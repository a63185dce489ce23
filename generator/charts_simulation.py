"""Plotly chart specs of the simulator checked against the lab (results.json `simulation`,
its per-cell table included): simulated against measured latency, the relative errors by
rate, and where keeps-up agrees. Every hover says "simulated, not measured" next to the
simulated number. Run through `python -m generator build` (generator/charts.py lists them).
"""

from generator.charts import axis, layout, show

LABELS = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}
UNITS = {"p50_ms": "ms", "p99_ms": "ms", "throughput": "answers/s"}
COLORS = {"p50_ms": "#1f77b4", "p99_ms": "#d62728", "throughput": "#2ca02c"}
AGREE, DISAGREE = "circle", "x-open"


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
                    "color": COLORS[metric],
                    "symbol": [AGREE if row[2]["keeps_up"] else DISAGREE for row in shown],
                },
                "text": [hover(row[0], row[1], metric, row[2], row[3]) for row in shown],
                "hovertemplate": "%{text}<extra></extra>",
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
                "line": {"dash": "dot", "color": "#888888"},
                "hoverinfo": "skip",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            "Simulated against measured latency (✕ = the simulation did not keep up)",
            axis("measured (ms, log scale)", log=True),
            axis("simulated, not measured (ms, log scale)", log=True),
        ),
    }


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
                "marker": {"size": 8, "color": COLORS[metric], "opacity": 0.75},
                "text": [hover(row[0], row[1], metric, row[2], row[3]) for row in shown],
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            "Simulated minus measured, in % of measured, cells the lab saw keep up",
            axis("arrival rate (multiple of S)"),
            axis("simulated − measured (% of measured)", zeroline=True),
        ),
    }


def keeps_up_map(results: dict) -> dict:
    """Every cell: did the simulation and the lab agree on keeping up (✕ where not)."""
    rows = compared(results)
    traces = []
    for agrees, label in ((True, "agree"), (False, "disagree")):
        shown = [row for row in rows if row[2]["keeps_up_agrees"] is agrees]
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
                    "color": "#2ca02c" if agrees else "#d62728",
                },  # fmt: skip
                "text": [
                    f"{name} at {key} × S: lab {'kept up' if lab['keeps_up'] else 'did not'}; "
                    f"simulation {'kept up' if sim['keeps_up'] else 'did not'} "
                    f"({sim['keeps_up_seeds']} of {results['simulation']['seeds']} seeds; "
                    "simulated, not measured)"
                    for name, key, sim, lab in shown
                ],
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    names = list(results["simulation"]["settings"])
    return {
        "data": [trace for trace in traces if trace["x"]],
        "layout": layout(
            "Keeps up: the simulation against the lab, every cell",
            axis("arrival rate (multiple of S)"),
            axis("setting", categoryorder="array", categoryarray=names[::-1]),
            height=max(360, 28 * len(names) + 120),
        ),
    }


def all_simulation_charts(results: dict) -> dict:
    """{chart name: spec}; none when the campaign has no simulation table."""
    if not (results.get("simulation") or {}).get("settings"):
        return {}
    return {
        "simulated_vs_measured": simulated_vs_measured(results),
        "simulation_errors": errors_by_rate(results),
        "simulation_keeps_up": keeps_up_map(results),
    }
