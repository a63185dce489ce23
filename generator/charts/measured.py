"""Plotly chart specs drawn from the results dict only.

Each spec is `{"data": [...], "layout": {...}, "site": {...}}`: `data` and `layout` are plain
Plotly (valid for `Plotly.react` as they are); `site` is what the lesson's pages add: the
chart's sizes, the layout changes for a phone (`narrow`), and for the charts the reader
steers, the B and W they can pick (`steer`). Every numeric axis names its unit and is ticked
at whole numbers (generator/charts/axes.py); a setting has one colour per B and one dash per
W, no batching drawn heavier (generator/charts/style.py); a point where a setting did not keep
up is an open ✕ and says so when hovered; legends are the page's own (the key under each
chart), so none can cover the data. No plotly package is needed: specs are plain dicts. The
quiet and busy rates are the campaign's own (campaign.description).
Run through `python -m generator build`.
"""

from generator.charts import axes as chart_axes
from generator.charts import style as chart_style
from generator.charts.style import FONT_SIZE
from generator.wording import run_label
from lab.rawformat.names import NONE, slug

KEPT, NOT_KEPT, NEVER = "circle", "x-thin-open", "triangle-up-open"
LINE_HEIGHT = {"wide": 400, "narrow": 400}
ROW_HEIGHT = {"wide": 22, "narrow": 20}  # per category of a horizontal bar chart
CHAR_PX = FONT_SIZE * 0.66  # a generous width of one character of tick text


# --- small helpers --------------------------------------------------------------------


def show(value, unit: str) -> str:
    """Hover number: 4 significant digits, null = never answered."""
    if value is None:
        return "never answered"
    return f"{value:,.4g} {unit}".strip()


def rounds_text(cell: dict, metric: str, unit: str) -> str:
    """Each round's value, the rounds numbered as a reader counts them, from 1 (the results
    number them from 0)."""
    values = cell["by_round"].get(metric, [])
    pairs = (f"r{r + 1}: {show(v, unit)}" for r, v in zip(cell["rounds"], values, strict=False))
    return "rounds " + ", ".join(pairs)


def kept_text(cell: dict) -> str:
    total = len(cell["rounds"]) + len(cell["missing_rounds"])
    if cell["keeps_up"]:
        return f"kept up ({cell['keeps_up_rounds']}/{total} rounds)"
    return f"<b>did not keep up</b> ({cell['keeps_up_rounds']}/{total} rounds kept up)"


def text_px(texts) -> float:
    lines = [line for t in texts for line in str(t).split("<br>")]
    return max((len(line) for line in lines), default=0) * CHAR_PX


def margin(x_axis: dict, y_axis: dict, bottom: int = 46) -> dict:
    """Room for the y tick labels (and the y title), the x ticks and title, and half the
    last x tick label, which is centred on the plot's right edge."""
    labels = y_axis.get("ticktext") or y_axis.get("categoryarray") or []
    left = text_px(labels) + (30 if y_axis["title"]["text"] else 16)
    last = (x_axis.get("ticktext") or [""])[-1] if x_axis.get("type") != "category" else ""
    return {"l": round(left), "r": round(max(14, text_px([last]) / 2 + 4)), "t": 12, "b": bottom}


def layout(x_axis: dict, y_axis: dict, **extra) -> dict:
    return {
        "xaxis": x_axis,
        "yaxis": y_axis,
        "hovermode": "closest",
        "showlegend": False,
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"size": FONT_SIZE},
        "margin": margin(x_axis, y_axis),
        **extra,
    }


def spec(data: list, chart_layout: dict, heights: dict, narrow: dict | None = None, **site):
    """A chart spec with the site's sizes (wide and narrow) and its phone layout changes."""
    return {
        "data": data,
        "layout": chart_layout,
        "site": {"heights": heights, "narrow": narrow or {}, **site},
    }


def rows_heights(count: int, per_row: float = 1.0, extra: int = 60) -> dict:
    return {k: round(extra + count * ROW_HEIGHT[k] * per_row) for k in ROW_HEIGHT}


def setting_meta(design: dict, name: str) -> dict:
    return {
        "role": chart_style.setting_role(design, name),
        "b": chart_style.b_label(design, name),
        "w": chart_style.w_label(design, name),
    }


def setting_line(design: dict, name: str) -> dict:
    return {
        "color": chart_style.colour(chart_style.setting_role(design, name)),
        "dash": chart_style.setting_dash(design, name),
        "width": chart_style.setting_width(design, name),
    }


def rate_axis(design: dict) -> dict:
    keys = design["rate_multiples"]
    return chart_axes.chosen_axis(
        "arrival rate (multiple of S)", [float(k) for k in keys], labels=list(keys), pad=0.06
    )


def steer(design: dict, names: list, views: list | None = None) -> dict:
    """The B and W a reader can pick on a steered chart (labels in numeric order)."""
    bs, ws = [], []
    for name in design["settings"]:
        if name not in names:
            continue
        b, w = chart_style.b_label(design, name), chart_style.w_label(design, name)
        if b not in bs:
            bs.append(b)
        if design["setting"][name]["max_batch"] > 1 and w not in ws:
            ws.append(w)
    ws.sort(key=float)
    roles = {chart_style.b_label(design, n): chart_style.setting_role(design, n) for n in names}
    dashes = {chart_style.w_label(design, n): chart_style.setting_dash(design, n) for n in names}
    return {
        "b": [{"value": b, "role": roles[b]} for b in bs],
        "w": [{"value": w, "dash": dashes[w]} for w in ws],
        "views": views or [],
    }


# --- Part B against rate: the main result ------------------------------------------------


LABELS = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}
VIEWS = [
    {"value": "p50_vs_rate", "label": "p50"},
    {"value": "p99_vs_rate", "label": "p99"},
    {"value": "throughput_vs_rate", "label": "throughput"},
]


def measured_cells(setting: dict) -> list:
    """(rate key, cell) of every rate with at least one measured round, in rate order."""
    rates = setting["rates"]
    return [(k, rates[k]) for k in sorted(rates, key=float) if rates[k]["rounds"]]


def setting_trace(results: dict, name: str, metric: str, unit: str) -> dict:
    """One setting over the rates: a circle where it kept up, an open ✕ where it did not."""
    design, label = results["design"], LABELS.get(metric, metric)
    cells = measured_cells(results["part_b"]["settings"][name])
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": name,
        "x": [float(k) for k, _ in cells],
        "y": [c.get(metric) for _, c in cells],
        "line": setting_line(design, name),
        "marker": {
            "size": 8,
            "symbol": [KEPT if c["keeps_up"] else NOT_KEPT for _, c in cells],
            "line": {"width": 2, "color": setting_line(design, name)["color"]},
        },
        "text": [
            f"{name} at {k} × S: {label} {show(c.get(metric), unit)}<br>"
            f"{rounds_text(c, metric, unit)}<br>{kept_text(c)}"
            for k, c in cells
        ],
        "hovertemplate": "%{text}<extra></extra>",
        "meta": setting_meta(design, name),
    }


def metric_vs_rate(results: dict, names, metric: str, unit: str) -> list:
    """One line per setting over the rates it was measured at (cells with no run left out)."""
    return [setting_trace(results, name, metric, unit) for name in names]


def never_answered_marks(traces: list, label: str) -> list:
    """Points whose latency is infinite (null), one ▲ trace per setting above every finite
    point; each keeps its setting's colour and meta, so it shows and hides with it."""
    finite = [y for t in traces for y in t["y"] if y is not None]
    marks = []
    for trace in traces:
        xs = [x for x, y in zip(trace["x"], trace["y"], strict=True) if y is None]
        if not xs or not finite:
            continue
        marks.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{trace['name']}: never answered",
                "x": xs,
                "y": [max(finite) * 2] * len(xs),
                "marker": {
                    "size": 11,
                    "symbol": NEVER,
                    "color": trace.get("line", {}).get("color", chart_style.colour("ref")),
                },
                "text": [
                    f"{trace['name']} at {x:g} × S: {label} infinite: too many requests "
                    "were never answered"
                    for x in xs
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": trace.get("meta", {}),
            }
        )
    return marks


def rate_chart(results: dict, traces: list, y_axis: dict, **site) -> dict:
    design = results["design"]
    names = [t["name"] for t in traces if t.get("meta", {}).get("b") not in (None, "*")]
    return spec(
        traces,
        layout(rate_axis(design), y_axis),
        dict(LINE_HEIGHT),
        steer=steer(design, names, VIEWS),
        cells=True,
        point_unit=" × S",
        **site,
    )


def latency_vs_rate(results: dict, names: list, label: str) -> dict:
    """p50 or p99 (label) against the arrival rate, log scale, with never-answered marks."""
    traces = metric_vs_rate(results, names, f"{label}_ms", "ms")
    marks = never_answered_marks(traces, label)
    values = [y for t in traces + marks for y in t["y"]]
    y_axis = chart_axes.log_axis(f"{label} latency (ms, log scale)", values)
    return rate_chart(results, traces + marks, y_axis, never_answered=bool(marks))


def p99_vs_rate(results: dict) -> dict:
    return latency_vs_rate(results, results["design"]["settings"], "p99")


def p50_vs_rate(results: dict) -> dict:
    return latency_vs_rate(results, results["design"]["settings"], "p50")


def throughput_vs_rate(results: dict) -> dict:
    names = results["design"]["settings"]
    traces = metric_vs_rate(results, names, "throughput", "answers/s")
    s = results.get("saturation", {}).get("S")
    values = [y for t in traces for y in t["y"]]
    if s:
        rates = [float(k) for k in results["design"]["rate_multiples"]]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "arrivals (rate × S)",
                "x": rates,
                "y": [r * s for r in rates],
                "line": {"dash": "dash", "color": chart_style.colour("ref"), "width": 1.5},
                "hoverinfo": "skip",
                "meta": {"role": "ref", "b": "*"},
            }
        )
        values += traces[-1]["y"]
    y_axis = chart_axes.linear_axis("throughput (answers per second)", values)
    return rate_chart(results, traces, y_axis)


# --- Part A -------------------------------------------------------------------------------


def part_a_time_vs_size(results: dict) -> dict:
    by_size = results["part_a"]["by_size"]
    keys = sorted(by_size, key=int)
    traces = []
    for metric, label, role, dash in (
        ("per_call_us", "per-call time", "s1", "solid"),
        ("per_row_us", "per-row time", "s2", "dash"),
    ):
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "x": [int(k) for k in keys],
                "y": [by_size[k][metric] for k in keys],
                "line": {"color": chart_style.colour(role), "dash": dash, "width": 2},
                "marker": {"size": 7},
                "text": [
                    f"{k} rows: {label} {show(by_size[k][metric], 'µs')}<br>runs (per call): "
                    + ", ".join(show(v, "µs") for v in by_size[k]["per_call_us_runs"])
                    for k in keys
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": {"role": role},
            }
        )
    sizes = [int(k) for k in keys]
    values = [y for t in traces for y in t["y"]]
    y_axis = chart_axes.log_axis("time (µs, log scale)", values)
    title = "batch size (rows in one call, log scale)"
    return spec(
        traces,
        layout(chart_axes.log2_axis(title, sizes), y_axis),
        dict(LINE_HEIGHT),
        narrow={"xaxis": chart_axes.log2_axis(title, sizes, every=2)},
        point_unit=" rows",
    )


# --- bars: one row per setting ------------------------------------------------------------


def hbar(name: str, role: str, categories: list, values: list, texts: list, **extra) -> dict:
    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "y": categories,
        "x": values,
        "marker": {"color": chart_style.colour(role), **extra.pop("marker", {})},
        "text": texts,
        "textposition": "none",
        "hovertemplate": "%{text}<extra></extra>",
        "meta": {"role": role},
        **extra,
    }


def hollow_unless(solid: list, role: str) -> dict:
    """Bar colours: filled where `solid`, only outlined elsewhere (not told apart)."""
    colour = chart_style.colour(role)
    return {
        "color": [colour if s else "rgba(0,0,0,0)" for s in solid],
        "line": {"color": colour, "width": 1.5},
    }


def hbar_chart(
    categories: list, traces: list, x_axis: dict, per_row: float, cells=True, **extra
) -> dict:
    y_axis = chart_axes.category_axis(categories, reversed_=True)
    return spec(
        traces,
        layout(x_axis, y_axis, bargap=0.25, **extra),
        rows_heights(len(categories), per_row),
        cells=cells,
    )


def paired_at_quiet(results: dict, quiet: str) -> dict:
    """Each setting minus none at the quiet rate (p50 and p99); pale = not told apart."""
    pairs = {
        n: b[NONE][quiet] for n, b in results.get("paired", {}).items() if quiet in b.get(NONE, {})
    }
    names = [n for n in results["design"]["settings"] if n in pairs]
    traces, values = [], []
    for metric, label, role in (("p50_ms", "p50", "p50"), ("p99_ms", "p99", "p99")):
        diffs = [pairs[n][metric] for n in names]
        medians = [d["median"] for d in diffs]
        values += medians
        traces.append(
            hbar(
                f"{label} difference",
                role,
                names,
                medians,
                [
                    f"{n} − none, {label} at {quiet} × S: median {show(d['median'], 'ms')}<br>"
                    "rounds "
                    + ", ".join(show(v, "ms") for v in d["diffs"])
                    + f"<br>{'told apart' if d['told_apart'] else 'not resolved'}"
                    for n, d in zip(names, diffs, strict=True)
                ],
                marker=hollow_unless([d["told_apart"] for d in diffs], role),
            )
        )
    x_axis = chart_axes.linear_axis("setting − none (ms)", values, most_ticks=6)
    x_axis["zeroline"] = True
    return hbar_chart(names, traces, x_axis, per_row=1.5, barmode="group")


def not_kept_marks(results: dict, rate: str, names: list, metric: str, unit: str) -> dict:
    """An open ✕ at the end of the bar of every setting that did not keep up at `rate`."""
    cells = [(n, results["part_b"]["settings"][n]["rates"][rate]) for n in names]
    failed = [(n, c) for n, c in cells if not c["keeps_up"] and c.get(metric) is not None]
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "did not keep up",
        "y": [n for n, _ in failed],
        "x": [c[metric] for _, c in failed],
        "marker": {
            "symbol": NOT_KEPT,
            "size": 9,
            "color": chart_style.colour("ref"),
            "line": {"width": 2, "color": chart_style.colour("ref")},
        },
        "text": [f"{n} at {rate} × S: {kept_text(c)}" for n, c in failed],
        "hovertemplate": "%{text}<extra></extra>",
        "meta": {"role": "ref"},
        "cliponaxis": False,
    }


def batched_at_busy(results: dict, busy: str) -> dict:
    settings = results["part_b"]["settings"]
    names = [n for n in results["design"]["settings"] if busy in settings[n]["rates"]]
    names = [n for n in names if settings[n]["rates"][busy]["rounds"]]
    traces, values = [], []
    for metric, label, role in (("p50_ms", "p50", "p50"), ("p99_ms", "p99", "p99")):
        cells = [settings[n]["rates"][busy] for n in names]
        values += [c.get(metric) for c in cells]
        traces.append(
            hbar(
                label,
                role,
                names,
                [c.get(metric) for c in cells],
                [
                    f"{n} at {busy} × S: {label} {show(c.get(metric), 'ms')}<br>"
                    f"{rounds_text(c, metric, 'ms')}<br>{kept_text(c)}"
                    for n, c in zip(names, cells, strict=True)
                ],
            )
        )
    traces.append(not_kept_marks(results, busy, names, "p99_ms", "ms"))
    x_axis = chart_axes.log_axis("latency (ms, log scale)", values, most_ticks=6)
    return hbar_chart(names, traces, x_axis, per_row=1.5, barmode="group")


def handler_moments(results: dict, quiet: str) -> dict:
    settings = results["part_b"]["settings"]
    names = [n for n in results["design"]["settings"] if quiet in settings[n]["rates"]]
    names = [n for n in names if settings[n]["rates"][quiet]["rounds"]]
    traces, totals = [], [0.0] * len(names)
    for metric, label, role in (
        ("ready_us_p50", "handler start → row ready", "s1"),
        ("queued_us_p50", "row ready → model call", "s5"),
        ("model_us_p50", "model call → score back", "s2"),
    ):
        cells = [settings[n]["rates"][quiet] for n in names]
        values = [c.get(metric) for c in cells]
        totals = [t + (v or 0) for t, v in zip(totals, values, strict=True)]
        traces.append(
            hbar(
                label,
                role,
                names,
                values,
                [
                    f"{n} at {quiet} × S: {label} {show(v, 'µs')} (p50)"
                    for n, v in zip(names, values, strict=True)
                ],
            )
        )
    x_axis = chart_axes.linear_axis("time (µs)", totals, most_ticks=6)
    return hbar_chart(names, traces, x_axis, per_row=1.0, barmode="stack")


# --- waits and batch sizes ------------------------------------------------------------------


def wait_vs_w(results: dict) -> dict:
    waits, rate = results["waits"]["by_setting"], results["waits"]["rate"]
    design = results["design"]
    names = [n for n in design["settings"] if n in waits]
    caps = sorted({waits[n]["max_batch"] for n in names})
    traces = []
    for cap in caps:
        rows = [n for n in names if waits[n]["max_batch"] == cap]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": f"B={cap}" if cap > 1 else "queue B=1",
                "x": [waits[n]["max_wait_ms"] for n in rows],
                "y": [waits[n]["first_wait_ms"] for n in rows],
                "line": {**setting_line(design, rows[0]), "dash": "solid"},
                "marker": {"size": 8},
                "text": [
                    f"{n}: asked {waits[n]['max_wait_ms']:g} ms, measured "
                    f"{show(waits[n]['first_wait_ms'], 'ms')}"
                    for n in rows
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": {"role": chart_style.setting_role(design, rows[0])},
            }
        )
    asked = [waits[n]["max_wait_ms"] for n in names]
    top = max(asked, default=0)
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": "measured = asked",
            "x": [0, top],
            "y": [0, top],
            "line": {"dash": "dot", "color": chart_style.colour("ref"), "width": 1.5},
            "hoverinfo": "skip",
            "meta": {"role": "ref"},
        }
    )
    values = [y for t in traces for y in t["y"]]
    x_axis = chart_axes.chosen_axis("W, the longest wait asked for (ms)", asked, pad=0.04)
    y_axis = chart_axes.linear_axis(f"first wait, median at {rate} × S (ms)", values)
    return spec(traces, layout(x_axis, y_axis), dict(LINE_HEIGHT), cells=True)


def batch_sizes(results: dict, rate: str) -> dict:
    """Share of batches per size bucket, one line per batched setting (steered by B and W)."""
    design, settings = results["design"], results["part_b"]["settings"]
    traces, labels = [], None
    for name in design["settings"]:
        cell = settings[name]["rates"].get(rate)
        if settings[name]["max_batch"] <= 1 or cell is None or "batch_sizes" not in cell:
            continue
        counts = cell["batch_sizes"]
        labels = labels or list(counts)
        total = sum(counts.values()) or 1
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": name,
                "x": labels,
                "y": [100 * counts.get(label, 0) / total for label in labels],
                "line": setting_line(design, name),
                "marker": {"size": 7},
                "text": [
                    f"{name} at {rate} × S: {counts.get(label, 0):,} of {total:,} batches had "
                    f"{label} rows"
                    for label in labels
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "meta": setting_meta(design, name),
            }
        )
    if not traces:
        return {}
    values = [y for t in traces for y in t["y"]]
    x_axis = chart_axes.category_axis(labels, "batch size (rows in one model call)")
    y_axis = chart_axes.linear_axis("share of batches (%)", values, most_ticks=6)
    names = [t["name"] for t in traces]
    return spec(
        traces,
        layout(x_axis, y_axis),
        dict(LINE_HEIGHT),
        narrow={
            "xaxis": {"tickvals": labels, "ticktext": [two_lines(x) for x in labels]},
            "margin": {"b": 64},
        },
        steer=steer(design, names),
        cells=True,
    )


def two_lines(label: str) -> str:
    """A range label ('33-64') over two lines ('33-<br>64'), to fit a phone."""
    low, dash, high = label.partition("-")
    return f"{low}-<br>{high}" if dash else label


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
            "line": {"color": chart_style.colour("s1"), "width": 2},
            "marker": {"size": 8},
            "text": [
                f"chunks of {k}: {show(methods[k]['per_record_us'], 'µs')} per record, "
                f"{show(methods[k]['wall_ms'], 'ms')} for {part_c['records']:,} records<br>"
                f"{runs_text(methods[k]['per_record_us_runs'], 'µs')}"
                for k in chunks
            ],
            "hovertemplate": "%{text}<extra></extra>",
            "meta": {"role": "s1"},
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
                "line": {"dash": "dash", "color": chart_style.colour("ref"), "width": 2},
                "text": [
                    f"loop of /predict: {show(loop['per_record_us'], 'µs')} per record<br>"
                    f"{runs_text(loop['per_record_us_runs'], 'µs')}"
                ]
                * 2,
                "hovertemplate": "%{text}<extra></extra>",
                "meta": {"role": "ref"},
            }
        )
    values = [y for t in traces for y in t["y"]]
    sizes = [int(k) for k in chunks]
    x_axis = chart_axes.log_axis("records per /predict_batch call (log scale)", sizes)
    x_axis.update(tickvals=sizes, ticktext=[chart_axes.tick_text(s) for s in sizes])
    y_axis = chart_axes.log_axis("time per record (µs, log scale)", values)
    return spec(traces, layout(x_axis, y_axis), dict(LINE_HEIGHT), point_unit=" records")


# Reader's words for the stages, in the order they are stacked, with their colour; the stages
# drawn are the ones the campaign names (results.json part_c.breakdown.*.stages), then the
# time outside.
STAGE_WORDS = {
    "ready": ("read, check, look up (/predict)", "s1"),
    "parse": ("parse", "s6"),
    "validate": ("validate", "s4"),
    "lookup": ("look up features", "s1"),
    "queued": ("wait for the model", "s5"),
    "model": ("model", "s2"),
    "serialize": ("serialize", "s3"),
}
OUTSIDE = ("outside", "outside the handler", "ref")


def breakdown_parts(breakdown: dict) -> list:
    """(stage, words, role) of every stage a route reports, in STAGE_WORDS' order (a stage
    without words is named as it is), then the time outside the handler."""
    stages = {stage for route in breakdown.values() for stage in route["stages"]}
    known = [(s, *STAGE_WORDS[s]) for s in STAGE_WORDS if s in stages]
    unnamed = [(stage, stage, "s3") for stage in sorted(stages - set(STAGE_WORDS))]
    return [*known, *unnamed, OUTSIDE]


def part_c_breakdown(results: dict) -> dict:
    """Where one call's time goes, as shares of its parts (medians, µs in hover)."""
    breakdown = results["part_c"]["breakdown"]
    routes = [("single", "/predict<br>one record"), ("batch", None)]
    labels = [
        label or f"/predict_batch<br>{breakdown[key]['records']:,} records" for key, label in routes
    ]
    parts = breakdown_parts(breakdown)
    sums = [
        sum(breakdown[key].get(f"{part}_us") or 0 for part, _, _ in parts) or 1 for key, _ in routes
    ]
    traces = []
    for part, words, role in parts:
        values = [breakdown[key].get(f"{part}_us") for key, _ in routes]
        if all(v is None for v in values):
            continue
        traces.append(
            hbar(
                words,
                role,
                labels,
                [
                    None if v is None else 100 * v / total
                    for v, total in zip(values, sums, strict=True)
                ],
                [
                    f"{name.replace('<br>', ', ')}: {words} {show(v, 'µs')} (median) of a "
                    f"round trip of {show(breakdown[key]['round_trip_us'], 'µs')}"
                    for name, v, (key, _) in zip(labels, values, routes, strict=True)
                ],
            )
        )
    x_axis = chart_axes.linear_axis("share of the call's time (%)", [0, 100], most_ticks=6)
    return hbar_chart(labels, traces, x_axis, per_row=2.2, cells=False, barmode="stack")


# --- the host's weather: the speed probe over the campaign -------------------------------------


def probe_weather(results: dict) -> dict:
    """Every attempt's probe before and after it, against the campaign's reference, in the
    order the attempts ran; the attempts the rule asked for in their own colour, the rule's
    threshold dashed."""
    speed = results["speed_probe"]
    table, rule = speed["attempts"], speed["rule"]
    count = len(table["run_id"])
    positions = list(range(1, count + 1))
    unjudged = set(table["not_judged"])

    def label(index: int) -> str:
        run_id, attempt = table["run_id"][index], table["attempt"][index]
        text = run_label(run_id) + ("" if attempt == 1 else f", attempt {attempt}")
        return text + (" (the rule does not re-run it)" if index in unjudged else "")

    def points(name: str, role: str, indexes: list, values: list, size: int = 6) -> dict:
        return {
            "type": "scatter",
            "mode": "markers",
            "name": name,
            "x": [positions[i] for i in indexes],
            "y": values,
            "marker": {"size": size, "symbol": "circle", "color": chart_style.colour(role)},
            "text": [
                f"{label(i)}: {show(v, '×')} the reference"
                for i, v in zip(indexes, values, strict=True)
            ],
            "hovertemplate": "%{text}<extra></extra>",
            "meta": {"role": role},
        }

    every = list(range(count))
    traces = [  # a campaign that probed after the run only (full3) has no "before" probes
        points(name, role, every, table[moment])
        for name, role, moment in (("probe before the run", "s1", "before"),
                                   ("probe after the run", "s2", "after"))
        if None not in table[moment]
    ]  # fmt: skip
    again = [i for i in every if table["attempt"][i] > 1]
    if again:
        slower = [max(v for v in (table["before"][i], table["after"][i]) if v is not None)
                  for i in again]  # fmt: skip
        traces.append(
            points("an attempt the rule asked for (its slower probe)", "s3", again, slower, 9)
        )
    limit = 1 + rule["threshold"]
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"threshold: {limit:g} × the reference",
            "x": [1, max(count, 1)],
            "y": [limit, limit],
            "line": {"dash": "dash", "color": chart_style.colour("ref"), "width": 2},
            "hoverinfo": "skip",
            "meta": {"role": "ref"},
        }
    )
    x_axis = chart_axes.linear_axis(
        "attempts, in the order they ran", [1, max(count, 1)], from_zero=False
    )
    values = [v for v in (*table["before"], *table["after"], limit) if v is not None]
    y_axis = chart_axes.linear_axis("probe time ÷ the reference", values, from_zero=False)
    return spec(traces, layout(x_axis, y_axis), dict(LINE_HEIGHT))


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
