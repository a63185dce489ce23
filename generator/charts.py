"""Plotly chart specs ({"data": [...], "layout": {...}}) drawn from the results dict only.

Every axis names its unit, latency axes are logarithmic, hover text gives the rounds'
values, and a point where a setting did not keep up is an open ✕ saying so. No plotly
package is needed: specs are plain dicts. The quiet and busy rates are the campaign's own
(campaign.description). Run through `python -m generator build`.
"""

from lab.rawformat.names import NONE, QUEUE_B1, setting_name, slug

KEPT, NOT_KEPT = "circle", "x-open"
PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#3182bd",
    "#e6550d",
)
FEW = (NONE, QUEUE_B1, setting_name("queue", 32, 0), setting_name("queue", 32, 2))


# --- small helpers --------------------------------------------------------------------


def axis(title: str, log: bool = False, **extra) -> dict:
    spec = {"title": {"text": title}, "automargin": True, **extra}
    if log:
        spec["type"] = "log"
    return spec


def layout(title: str, x: dict, y: dict, **extra) -> dict:
    return {
        "title": {"text": title},
        "xaxis": x,
        "yaxis": y,
        "hovermode": "closest",
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "margin": {"l": 60, "r": 20, "t": 50, "b": 60},
        "legend": {"orientation": "h", "y": -0.2},
        **extra,
    }


def show(value, unit: str) -> str:
    """Hover number: 4 significant digits, null = never answered."""
    if value is None:
        return "never answered"
    return f"{value:,.4g} {unit}".strip()


def rounds_text(cell: dict, metric: str, unit: str) -> str:
    values = cell["by_round"].get(metric, [])
    pairs = (f"r{r}: {show(v, unit)}" for r, v in zip(cell["rounds"], values, strict=False))
    return "rounds " + ", ".join(pairs)


def kept_text(cell: dict) -> str:
    total = len(cell["rounds"]) + len(cell["missing_rounds"])
    if cell["keeps_up"]:
        return f"kept up ({cell['keeps_up_rounds']}/{total} rounds)"
    return f"<b>did not keep up</b> ({cell['keeps_up_rounds']}/{total} rounds kept up)"


def color(results: dict, name: str) -> str:
    return PALETTE[results["design"]["settings"].index(name) % len(PALETTE)]


def rate_axis() -> dict:
    return axis("arrival rate (multiple of S)")


# --- Part B against rate ---------------------------------------------------------------


LABELS = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}


def metric_vs_rate(results: dict, names, metric: str, unit: str) -> list:
    """One line per setting over the rates it was measured at (cells with no run left out)."""
    traces, label = [], LABELS.get(metric, metric)
    for name in names:
        rates = results["part_b"]["settings"][name]["rates"]
        keys = [k for k in sorted(rates, key=float) if rates[k]["rounds"]]
        cells = [rates[k] for k in keys]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": name,
                "x": [float(k) for k in keys],
                "y": [c.get(metric) for c in cells],
                "line": {"color": color(results, name)},
                "marker": {
                    "size": 9,
                    "symbol": [KEPT if c["keeps_up"] else NOT_KEPT for c in cells],
                },
                "text": [
                    f"{name} at {k} × S: {label} {show(c.get(metric), unit)}<br>"
                    f"{rounds_text(c, metric, unit)}<br>{kept_text(c)}"
                    for k, c in zip(keys, cells, strict=True)
                ],
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    return traces


def never_answered_marks(traces: list, label: str) -> list:
    """Points whose latency is infinite (null) drawn as ▲ above every finite point."""
    finite = [y for t in traces for y in t["y"] if y is not None]
    marks = [
        (x, t["name"]) for t in traces for x, y in zip(t["x"], t["y"], strict=True) if y is None
    ]
    if not marks or not finite:
        return []
    return [
        {
            "type": "scatter",
            "mode": "markers",
            "name": "never answered (infinite)",
            "x": [x for x, _ in marks],
            "y": [max(finite) * 2] * len(marks),
            "marker": {"size": 12, "symbol": "triangle-up-open", "color": "#d62728"},
            "text": [
                f"{name} at {x:g} × S: {label} infinite: too many requests were never answered"
                for x, name in marks
            ],
            "hovertemplate": "%{text}<extra></extra>",
        }
    ]


def latency_vs_rate(results: dict, names: list, label: str) -> dict:
    """p50 or p99 (label) against the arrival rate, log scale, with never-answered marks."""
    traces = metric_vs_rate(results, names, f"{label}_ms", "ms")
    return {
        "data": traces + never_answered_marks(traces, label),
        "layout": layout(
            f"{label} latency against arrival rate (✕ = did not keep up, ▲ = never answered)",
            rate_axis(),
            axis(f"{label} latency (ms, log scale)", log=True),
        ),
    }


def p99_vs_rate(results: dict) -> dict:
    return latency_vs_rate(results, results["design"]["settings"], "p99")


def p50_vs_rate(results: dict) -> dict:
    names = [n for n in FEW if n in results["part_b"]["settings"]]
    return latency_vs_rate(results, names, "p50")


def throughput_vs_rate(results: dict) -> dict:
    names = results["design"]["settings"]
    traces = metric_vs_rate(results, names, "throughput", "answers/s")
    s = results.get("saturation", {}).get("S")
    if s:
        rates = [float(k) for k in results["design"]["rate_multiples"]]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "arrivals (rate × S)",
                "x": rates,
                "y": [r * s for r in rates],
                "line": {"dash": "dash", "color": "#888888"},
                "hoverinfo": "skip",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            "Throughput against arrival rate (✕ = did not keep up)",
            rate_axis(),
            axis("throughput (answers per second)"),
        ),
    }


# --- Part A -------------------------------------------------------------------------------


def part_a_time_vs_size(results: dict) -> dict:
    by_size = results["part_a"]["by_size"]
    keys = sorted(by_size, key=int)
    traces = []
    for metric, label in (("per_call_us", "per-call time"), ("per_row_us", "per-row time")):
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "x": [int(k) for k in keys],
                "y": [by_size[k][metric] for k in keys],
                "text": [
                    f"{k} rows: {label} {show(by_size[k][metric], 'µs')}<br>runs (per call): "
                    + ", ".join(show(v, "µs") for v in by_size[k]["per_call_us_runs"])
                    for k in keys
                ],
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            "The model alone: time per call and per row against batch size",
            axis("batch size (rows, log scale)", log=True, dtick=0.30103),
            axis("time (µs, log scale)", log=True),
        ),
    }


# --- paired differences, waits, busy side, handler, batch sizes -------------------------------


def paired_at_quiet(results: dict, quiet: str) -> dict:
    pairs = {
        n: b[NONE][quiet] for n, b in results.get("paired", {}).items() if quiet in b.get(NONE, {})
    }
    names = [n for n in results["design"]["settings"] if n in pairs]
    traces = []
    for metric, label in (("p50_ms", "p50"), ("p99_ms", "p99")):
        diffs = [pairs[n][metric] for n in names]
        traces.append(
            {
                "type": "bar",
                "name": f"{label} difference",
                "x": names,
                "y": [d["median"] for d in diffs],
                "text": [
                    f"{n} − none, {label} at {quiet} × S: median {show(d['median'], 'ms')}<br>"
                    "rounds "
                    + ", ".join(show(v, "ms") for v in d["diffs"])
                    + f"<br>{'told apart' if d['told_apart'] else 'not told apart'}"
                    for n, d in zip(names, diffs, strict=True)
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "marker": {"pattern": {"shape": ["" if d["told_apart"] else "/" for d in diffs]}},
            }
        )
    return {
        "data": traces,
        "layout": layout(
            f"Paired difference from none at {quiet} × S (hatched = not told apart)",
            axis("setting"),
            axis("setting − none (ms)"),
            barmode="group",
        ),
    }


def wait_vs_w(results: dict) -> dict:
    waits, rate = results["waits"]["by_setting"], results["waits"]["rate"]
    caps = sorted({w["max_batch"] for w in waits.values()})
    traces = []
    for cap in caps:
        rows = sorted(
            (w["max_wait_ms"], w["first_wait_ms"], n)
            for n, w in waits.items()
            if w["max_batch"] == cap
        )
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": f"B={cap}",
                "x": [r[0] for r in rows],
                "y": [r[1] for r in rows],
                "text": [f"{n}: asked {w:g} ms, measured {show(m, 'ms')}" for w, m, n in rows],
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    top = max((w["max_wait_ms"] for w in waits.values()), default=0)
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": "measured = asked",
            "x": [0, top],
            "y": [0, top],
            "line": {"dash": "dot", "color": "#888888"},
            "hoverinfo": "skip",
        }
    )
    return {
        "data": traces,
        "layout": layout(
            f"How long the first request waited, against W ({rate} × S)",
            axis("W, the longest wait asked for (ms)"),
            axis("measured first wait, median (ms)"),
        ),
    }


def bars_at_rate(results: dict, rate: str, names, metrics, title: str, y: dict, **extra):
    settings = results["part_b"]["settings"]
    names = [n for n in names if rate in settings[n]["rates"]]
    traces = []
    for metric, label, unit in metrics:
        cells = [settings[n]["rates"][rate] for n in names]
        traces.append(
            {
                "type": "bar",
                "name": label,
                "x": names,
                "y": [c.get(metric) for c in cells],
                "text": [
                    f"{n} at {rate} × S: {label} {show(c.get(metric), unit)}<br>"
                    f"{rounds_text(c, metric, unit)}<br>{kept_text(c)}"
                    for n, c in zip(names, cells, strict=True)
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "textposition": "none",
            }
        )
    return {"data": traces, "layout": layout(title, axis("setting"), y, **extra)}


def batched_at_busy(results: dict, busy: str) -> dict:
    names = results["design"]["settings"]
    return bars_at_rate(
        results,
        busy,
        names,
        (("p50_ms", "p50", "ms"), ("p99_ms", "p99", "ms")),
        f"Every setting at {busy} × S: p50 and p99",
        axis("latency (ms, log scale)", log=True),
        barmode="group",
    )


def handler_moments(results: dict, quiet: str) -> dict:
    names = results["design"]["settings"]
    metrics = (
        ("ready_us_p50", "handler start → row ready", "µs"),
        ("queued_us_p50", "row ready → model call", "µs"),
        ("model_us_p50", "model call → score back", "µs"),
    )
    return bars_at_rate(
        results,
        quiet,
        names,
        metrics,
        f"Inside the handler at {quiet} × S (p50 of each moment)",
        axis("time (µs)"),
        barmode="stack",
    )


def batch_sizes(results: dict, rate: str) -> dict:
    settings = results["part_b"]["settings"]
    traces = []
    for name, setting in settings.items():
        cell = setting["rates"].get(rate)
        if setting["max_batch"] <= 1 or cell is None or "batch_sizes" not in cell:
            continue
        counts = cell["batch_sizes"]
        total = sum(counts.values()) or 1
        labels = list(counts)
        traces.append(
            {
                "type": "bar",
                "name": name,
                "x": labels,
                "y": [counts[label] / total for label in labels],
                "text": [
                    f"{name} at {rate} × S: {counts[label]:,} of {total:,} batches had {label} rows"
                    for label in labels
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "marker": {"color": color(results, name)},
                "visible": True if setting["max_batch"] == 32 else "legendonly",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            f"Batch sizes at {rate} × S (share of batches)",
            axis("batch size (rows in one model call)"),
            axis("share of batches (%)", tickformat=".0%"),
            barmode="group",
        ),
    }


# --- Part C, the batch route ------------------------------------------------------------------


def runs_text(values, unit: str) -> str:
    return "runs: " + ", ".join(show(v, unit) for v in values)


def part_c_time_per_record(results: dict) -> dict:
    """Time per record against chunk size; the loop of /predict as a flat reference line."""
    part_c = results["part_c"]
    methods = part_c["by_method"]
    chunks = [k for k in part_c["methods"] if k != "loop"]
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "/predict_batch",
            "x": [int(k) for k in chunks],
            "y": [methods[k]["per_record_us"] for k in chunks],
            "text": [
                f"chunks of {k}: {show(methods[k]['per_record_us'], 'µs')} per record, "
                f"{show(methods[k]['wall_ms'], 'ms')} for {part_c['records']:,} records<br>"
                f"{runs_text(methods[k]['per_record_us_runs'], 'µs')}"
                for k in chunks
            ],
            "hovertemplate": "%{text}<extra></extra>",
        }
    ]
    if "loop" in methods and chunks:
        loop = methods["loop"]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "loop of /predict (reference)",
                "x": [int(chunks[0]), int(chunks[-1])],
                "y": [loop["per_record_us"]] * 2,
                "line": {"dash": "dash"},
                "text": [
                    f"loop of /predict: {show(loop['per_record_us'], 'µs')} per record<br>"
                    f"{runs_text(loop['per_record_us_runs'], 'µs')}"
                ]
                * 2,
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            f"Scoring {part_c['records']:,} records: time per record against chunk size",
            axis("records per /predict_batch call (log scale)", log=True),
            axis("time per record (µs, log scale)", log=True),
        ),
    }


# Reader's words for the stages, in the order they are stacked; the stages drawn are the
# ones the campaign names (results.json part_c.breakdown.*.stages), then the time outside.
STAGE_WORDS = {
    "ready": "read, check, look up (/predict)",
    "parse": "parse",
    "validate": "validate",
    "lookup": "look up features",
    "queued": "wait for the model",
    "model": "model",
    "serialize": "serialize",
}
OUTSIDE = ("outside", "outside the handler")


def breakdown_parts(breakdown: dict) -> list:
    """(stage, words) of every stage a route reports, in STAGE_WORDS' order (a stage without
    words is named as it is), then the time outside the handler."""
    stages = {stage for route in breakdown.values() for stage in route["stages"]}
    known = [(stage, words) for stage, words in STAGE_WORDS.items() if stage in stages]
    unnamed = [(stage, stage) for stage in sorted(stages - set(STAGE_WORDS))]
    return [*known, *unnamed, OUTSIDE]


def part_c_breakdown(results: dict) -> dict:
    """Where one call's time goes, as shares of its stacked parts (medians, µs in hover)."""
    breakdown = results["part_c"]["breakdown"]
    routes = [("single", "one /predict call"), ("batch", None)]
    labels = [
        label or f"one /predict_batch call of {breakdown[key]['records']:,} records"
        for key, label in routes
    ]
    traces = []
    for part, label in breakdown_parts(breakdown):
        values = [breakdown[key].get(f"{part}_us") for key, _ in routes]
        if all(v is None for v in values):
            continue
        traces.append(
            {
                "type": "bar",
                "name": label,
                "x": labels,
                "y": values,
                "text": [
                    f"{name}: {label} {show(v, 'µs')} (median) of a round trip of "
                    f"{show(breakdown[key]['round_trip_us'], 'µs')}"
                    for name, v, (key, _) in zip(labels, values, routes, strict=True)
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "textposition": "none",
            }
        )
    return {
        "data": traces,
        "layout": layout(
            "Where a call's time goes at the HTTP boundary (share of the parts, medians)",
            axis("call"),
            axis("share of the call's time (%)", ticksuffix="%"),
            barmode="stack",
            barnorm="percent",
        ),
    }


# --- the host's weather: the speed probe over the campaign -------------------------------------


def probe_weather(results: dict) -> dict:
    """Every attempt's probe before and after it, against the campaign's reference, in the
    order the attempts ran; re-run attempts ringed, the rule's threshold drawn."""
    speed = results["speed_probe"]
    table, rule = speed["attempts"], speed["rule"]
    count = len(table["run_id"])
    positions = list(range(1, count + 1))
    unjudged = set(table["not_judged"])

    def label(index: int) -> str:
        run_id, attempt = table["run_id"][index], table["attempt"][index]
        text = run_id if attempt == 1 else f"{run_id}, attempt {attempt}"
        return text + (" (the rule does not re-run it)" if index in unjudged else "")

    traces = []
    for moment, symbol in (("before", "circle"), ("after", "diamond")):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"probe {moment} the run",
                "x": positions,
                "y": table[moment],
                "marker": {"size": 6, "symbol": symbol},
                "text": [
                    f"{label(i)}: probe {moment} {show(v, '×')} the reference"
                    for i, v in enumerate(table[moment])
                ],  # fmt: skip
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    again = [i for i in range(count) if table["attempt"][i] > 1]
    if again:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "an attempt the rule asked for (a re-run)",
                "x": [positions[i] for i in again],
                "y": [max(table["before"][i], table["after"][i]) for i in again],
                "marker": {"size": 14, "symbol": "circle-open", "color": "#2ca02c"},
                "text": [label(i) for i in again],
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    limit = 1 + rule["threshold"]
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"threshold: {limit:g} × the reference",
            "x": [1, max(count, 1)],
            "y": [limit, limit],
            "line": {"dash": "dash", "color": "#d62728"},
            "hoverinfo": "skip",
        }
    )
    return {
        "data": traces,
        "layout": layout(
            "The speed probe before and after every attempt (above the dashed line: slow)",
            axis("attempts, in the order they ran (re-runs at the end of their block)"),
            axis("probe time / the campaign's reference"),
        ),
    }


# --- all charts -----------------------------------------------------------------------------


def busy_chart_name(busy: str) -> str:
    """The busy-rate chart's name: 'batched_at_1_6S' for the rate key '1.6'."""
    return f"batched_at_{slug(busy)}S"


def all_charts(results: dict, quiet: str, busy: str) -> dict:
    """{chart name: spec} for every chart whose data is in the results; `quiet` and `busy`
    are the campaign's quiet and busy rate keys."""
    charts = {}
    if "part_a" in results:
        charts["part_a_time_vs_size"] = part_a_time_vs_size(results)
    if "part_b" in results:
        rates = results["design"]["rate_multiples"]
        charts["p99_vs_rate"] = p99_vs_rate(results)
        charts["p50_vs_rate"] = p50_vs_rate(results)
        charts["throughput_vs_rate"] = throughput_vs_rate(results)
        if quiet in rates:
            charts["paired_at_half_S"] = paired_at_quiet(results, quiet)
            charts["handler_moments"] = handler_moments(results, quiet)
            charts["batch_sizes"] = batch_sizes(results, quiet)
        if busy in rates:
            charts[busy_chart_name(busy)] = batched_at_busy(results, busy)
        charts["batch_sizes_busy"] = batch_sizes(results, busy if busy in rates else rates[-1])
    if results.get("waits"):
        charts["wait_vs_W"] = wait_vs_w(results)
    if "part_c" in results:
        charts["part_c_time_per_record"] = part_c_time_per_record(results)
        charts["part_c_breakdown"] = part_c_breakdown(results)
    if "speed_probe" in results:
        charts["probe_weather"] = probe_weather(results)
    return {name: spec for name, spec in charts.items() if spec and spec["data"]}
