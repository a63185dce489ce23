"""The one statistics module: every number the site publishes is computed here, once.

Percentiles (nearest rank, never-answered = +inf), medians, Part B throughput and keeps-up,
batch sizes and waits, the handler's moments, paired per-round differences and the
told-apart rule, Part A per-call medians, S, the bit check, the quiet record and Part C's
methods and stages. The keeps-up share and the stage names are the campaign's own
(generator/reading/description.py). The methods are stated by `methods()` (copied into
results.json) and in generator/SCHEMA.md. Guess verdicts are generator/arithmetic/verdicts.py.
Used by `python -m generator build`; the report (generator/report/checks.py) must NOT import it.
"""

import json
import math

import numpy as np

from generator.reading.metrics import CELL_ONLY

SIGNIFICANT_DIGITS = 5
BATCH_BUCKETS = (
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-4", 3, 4),
    ("5-8", 5, 8),
    ("9-16", 9, 16),
    ("17-32", 17, 32),
    ("33-64", 33, 64),
    ("65-128", 65, 128),
    ("129+", 129, math.inf),
)


def methods(keeps_up_share: float, interval_rule: bool = False) -> dict:
    """How every published number is made, in words (results.json `methods`); under the
    interval rule (issue 28) its sentence replaces the rounds rule's."""
    found = {**METHODS, "keeps_up": KEEPS_UP.format(share=keeps_up_share)}
    if interval_rule:
        found["told_apart"] = INTERVAL_TOLD_APART
    return found


KEEPS_UP = (
    "a run keeps up when throughput >= {share} x offered_rate; a cell keeps up when every "
    "scheduled round was measured and kept up"
)
INTERVAL_TOLD_APART = (
    "per round measured for both (the same arrivals) d = ln(setting) - ln(baseline); over the "
    "rounds the Hodges-Lehmann estimate (median of the Walsh averages) and the exact Wilcoxon "
    "signed-rank interval (generator/arithmetic/intervals.py); told apart when the 95% "
    "interval excludes 0, the same within +-delta (the campaign's, per metric) when the 90% "
    "interval lies inside +-delta, otherwise not resolved; resolvable: the 95% interval's "
    "half-width (infinite when too few rounds reach 95%: 6 are needed); in us at the baseline "
    "cell's median; a round with a never-answered percentile on either side leaves no interval "
    "(not resolved)"
)
METHODS = {
    "percentile": "nearest rank: the p-th percentile of n values is the value at rank "
    "ceil(p/100 * n) (1-based, ascending); requests not answered with status 200 count as "
    "+infinity (written null) and are counted",
    "median": "middle value; mean of the two middle values when the count is even",
    "throughput": "status-200 answers / max(window_s, time of the last answer from the "
    "window start), per second",
    "offered_rate": "requests scheduled / window_s",
    "told_apart": "paired difference (setting - baseline) per round on the same arrivals; "
    "told apart when every scheduled round was measured for both and all differences have "
    "the same sign (zero agrees with nothing)",
    "campaigns_apart": "two campaigns' rounds of one cell are not paired: one is lower "
    "(higher) than the other only when every round of it is below (above) every round of "
    "the other; otherwise they are not resolved (their rounds overlap)",
    "S": "median of the saturation runs' throughput (closed loop)",
    "part_a": "per run the median call time of each size; published: median of the runs",
    "first_wait": "per run the p50 of the batches' first-request waits; per cell the median "
    "of rounds; first_wait_unfilled: the same over the batches smaller than the cap B only "
    "(a full batch leaves before W, so it says nothing about the timer)",
    "part_c": "per method, the median over runs of its wall time for the N records; "
    "per-record time = that median / N; speedup = the loop's median / the method's median; "
    "breakdown stages: per run the median over its calls, published the median of the runs; "
    "model share = median model time / median client round trip; round_trip_us_p50 and _p99: "
    "nearest rank over every call of the route in every run",
    "rounding": f"floats rounded to {SIGNIFICANT_DIGITS} significant digits",
    "slowness": "the speed probe's slowness: geometric mean over its parts (python_us, "
    "model_us, memory_us) of the part's time / the campaign's reference (each part's median "
    "over the calibration probes); an attempt is slow when the probe before or after it is "
    "above 1 + threshold; the attempt used is the first not slow, else the least slow",
    "spread": "(largest - smallest) / median, over the runs or rounds named",
}


# --- percentiles and medians ---------------------------------------------------------


def percentile(values, p: float) -> float:
    """Nearest-rank percentile; +inf values (never answered) sort last. Empty -> ValueError."""
    return percentiles(values, (p,))[0]


def percentiles(values, ps) -> list[float]:
    """Several nearest-rank percentiles of the same values, one partial sort for them all."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        raise ValueError("percentile of no values")
    for p in ps:
        if not 0 < p <= 100:
            raise ValueError(f"percentile {p} outside (0, 100]")
    # p * n first: exact for whole p; a partition puts each chosen rank where a sort would.
    indices = [math.ceil(p * values.size / 100) - 1 for p in ps]
    placed = np.partition(values, sorted(set(indices)))
    return [float(placed[index]) for index in indices]


def median(values) -> float:
    """Middle value (mean of the two middle ones); infinities allowed, NaN not."""
    ordered = sorted(float(value) for value in values)
    if not ordered:
        raise ValueError("median of no values")
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2  # finite + inf = inf, as wanted


def sample_sd(values) -> float | None:
    """The sample standard deviation (n − 1 in the denominator); None for fewer than 2."""
    values = [float(v) for v in values]
    if len(values) < 2:
        return None
    return float(np.std(values, ddof=1))


def round_sig(value: float, digits: int = SIGNIFICANT_DIGITS) -> float | None:
    """A float rounded to `digits` significant digits; +-inf and NaN become None (JSON null)."""
    if not math.isfinite(value):
        return None
    if value == 0:
        return 0.0
    return float(f"{value:.{digits}g}")


# --- Part B: one run ---------------------------------------------------------------


def latencies_us(latency_us, status) -> np.ndarray:
    """Latency per request as float µs; not answered with 200 -> +inf."""
    latency = np.asarray(latency_us, dtype=float).copy()
    failed = (np.asarray(status) != 200) | (latency < 0)
    latency[failed] = math.inf
    return latency


def throughput(arrival_us, latency_us, status, window_s: float) -> float:
    """Status-200 answers per second over max(window, last answer since window start)."""
    answered = (np.asarray(status) == 200) & (np.asarray(latency_us) >= 0)
    count = int(answered.sum())
    if count == 0:
        return 0.0
    done_us = np.asarray(arrival_us, dtype=np.int64)[answered] + np.asarray(latency_us)[answered]
    span_s = max(window_s, float(done_us.max()) / 1e6)
    return count / span_s


def keeps_up(run_throughput: float, offered_rate: float, share: float) -> bool:
    """Throughput at least `share` (the campaign's keeps-up share) of the offered rate."""
    return run_throughput >= share * offered_rate


def p50_of_answered(values, status) -> float | None:
    """p50 of a per-request server moment over the requests answered with 200."""
    chosen = np.asarray(values)[np.asarray(status) == 200]
    return percentile(chosen, 50) if chosen.size else None


def batch_size_counts(batch_sizes) -> dict[str, int]:
    """Batches per bucket (1, 2, 3-4, 5-8 … 129+)."""
    sizes = np.asarray(batch_sizes)
    return {
        label: int(((sizes >= low) & (sizes <= high)).sum()) for label, low, high in BATCH_BUCKETS
    }


LATENCY_KEYS = {"p50_ms": 50, "p90_ms": 90, "p99_ms": 99, "max_ms": 100}


def latency_percentiles_ms(wait_us) -> dict:
    values = percentiles(wait_us, tuple(LATENCY_KEYS.values()))
    return {key: value / 1000 for key, value in zip(LATENCY_KEYS, values, strict=True)}


def part_b_run(
    columns: dict,
    window_s: float,
    batcher: str,
    keeps_up_share: float,
    max_batch: int = 0,
    send_lag_us_p99: float | None = None,
) -> dict:
    """Every per-run metric of one Part B run (see SCHEMA.md, per-run metrics); the cap B
    (`max_batch`) tells full batches from the others; `send_lag_us_p99`, the run's own figure
    for a run without the send lag column (format 4)."""
    status, latency = columns["status"], columns["latency_us"]
    requests = int(status.size)
    answered = int(((status == 200) & (latency >= 0)).sum())
    never = int(((status == 0) | (latency < 0)).sum())
    wait = latencies_us(latency, status)
    offered = requests / window_s
    run_throughput = throughput(columns["arrival_us"], latency, status, window_s)
    scored = columns["batch_size"][status == 200]
    metrics = {
        "requests": requests,
        "answered": answered,
        "never_answered": never,
        "non_200": requests - answered - never,
        "offered_rate": offered,
        "throughput": run_throughput,
        "keeps_up": keeps_up(run_throughput, offered, keeps_up_share),
        **latency_percentiles_ms(wait),
        "send_lag_us_p99": (
            percentile(columns["send_lag_us"], 99) if "send_lag_us" in columns else send_lag_us_p99
        ),
        "mean_batch_size": float(scored.mean()) if scored.size else None,
        "ready_us_p50": p50_of_answered(columns["ready_us"], status),
        "queued_us_p50": p50_of_answered(columns["queued_us"], status),
        "model_us_p50": p50_of_answered(columns["model_us"], status),
    }
    if batcher != "none":
        metrics.update(queue_metrics(columns, max_batch))
    return metrics


def queue_metrics(columns: dict, max_batch: int = 0) -> dict:
    """Batch count, the first-request waits and the batch-size buckets of a queue run; with
    the cap B, the share of batches that filled and the first wait of those that did not
    (the batches whose wait was the timer's, not cut short by a full batch)."""
    waits, sizes = columns["batches_first_wait_us"], columns["batches_size"]
    metrics = {
        "batches": int(sizes.size),
        "first_wait_us_p50": percentile(waits, 50) if waits.size else None,
        "first_wait_us_p99": percentile(waits, 99) if waits.size else None,
        "batch_size_counts": batch_size_counts(sizes),
    }
    if max_batch and sizes.size:
        unfilled = waits[sizes < max_batch]
        metrics["full_batch_share"] = float((sizes >= max_batch).mean())
        metrics["first_wait_unfilled_us_p50"] = percentile(unfilled, 50) if unfilled.size else None
    return metrics


# --- Part B: a cell (one setting at one rate, several rounds) ------------------------


def cell_summary(runs_by_round: dict[int, dict], scheduled_rounds: list[int]) -> dict:
    """Per-round metrics as lists, their medians, and the keeps-up verdict of a cell."""
    rounds = sorted(runs_by_round)
    metric_names = sorted({name for run in runs_by_round.values() for name in run})
    by_round = {}
    cell = {"rounds": rounds, "missing_rounds": sorted(set(scheduled_rounds) - set(rounds))}
    for name in metric_names:
        if name == "batch_size_counts":
            continue
        values = [runs_by_round[r].get(name) for r in rounds]
        if name not in CELL_ONLY:
            by_round[name] = values
        present = [v for v in values if v is not None]
        if name != "keeps_up" and present:
            cell[name] = median(present)
    kept = sum(bool(runs_by_round[r]["keeps_up"]) for r in rounds)
    cell["by_round"] = by_round
    cell["keeps_up_rounds"] = kept
    cell["keeps_up"] = bool(rounds) and kept == len(rounds) and not cell["missing_rounds"]
    counts = [
        runs_by_round[r]["batch_size_counts"]
        for r in rounds
        if "batch_size_counts" in runs_by_round[r]
    ]
    if counts:
        cell["batch_sizes"] = {
            label: sum(c[label] for c in counts) for label, _, _ in BATCH_BUCKETS
        }
    return cell


# --- paired differences and told apart ---------------------------------------------


def difference(value: float | None, baseline: float | None) -> float | None:
    """value - baseline with None meaning +inf; inf - inf is undefined (None)."""
    a = math.inf if value is None else value
    b = math.inf if baseline is None else baseline
    if math.isinf(a) and math.isinf(b):
        return None
    return a - b


def sign(diff: float | None) -> int:
    """+1, -1, or 0 for zero and undefined (neither agrees with anything)."""
    if diff is None or diff == 0:
        return 0
    return 1 if diff > 0 else -1


def told_apart(diffs: list, scheduled_rounds: int) -> bool:
    """All scheduled rounds measured and every difference of one nonzero sign."""
    signs = {sign(d) for d in diffs}
    return len(diffs) == scheduled_rounds and len(signs) == 1 and 0 not in signs


def signs_of(diffs: list) -> dict:
    """How many rounds' differences were negative, positive, zero or undefined: what the
    rounds rule read ({"minus": 4, "plus": 1, "zero": 0, "undefined": 0})."""
    found = {"minus": 0, "plus": 0, "zero": 0, "undefined": 0}
    for diff in diffs:
        key = "undefined" if diff is None else {1: "plus", -1: "minus", 0: "zero"}[sign(diff)]
        found[key] += 1
    return found


def rounds_resolvable(diffs: list) -> float | None:
    """The smallest difference the rounds rule would have told apart on these rounds' own
    noise: every round's difference moved by the same shift agrees in sign once the shift is
    more than the largest distance of a round from the rounds' median, max |d − median(d)|.
    None when a round is missing a value (a never-answered percentile) or there is none."""
    if not diffs or any(d is None or not math.isfinite(d) for d in diffs):
        return None
    middle = median(diffs)
    return max(abs(d - middle) for d in diffs)


def direction(diffs: list) -> str:
    signs = {sign(d) for d in diffs}
    if signs == {1}:
        return "higher"
    if signs == {-1}:
        return "lower"
    return "mixed"


def paired(setting_rounds: dict, baseline_rounds: dict, scheduled_rounds: int) -> dict:
    """Paired per-round differences of one metric ({round: value}, None = infinite)."""
    rounds = sorted(set(setting_rounds) & set(baseline_rounds))
    diffs = [difference(setting_rounds[r], baseline_rounds[r]) for r in rounds]
    defined = [d for d in diffs if d is not None]
    return {
        "rounds": rounds,
        "diffs": diffs,
        "median": median(defined) if defined else None,
        "told_apart": told_apart(diffs, scheduled_rounds),
        "direction": direction(diffs),
    }


def ranges_apart(rounds: list, other_rounds: list) -> str:
    """Two campaigns' rounds of one cell (None = never answered, as +inf), unpaired: "lower"
    when every round of the first is below every round of the other, "higher" when above,
    "overlap" otherwise (and when either has no round). Rounds of different campaigns share
    no pairing, so only ranges that do not overlap tell them apart."""
    values = [math.inf if v is None else float(v) for v in rounds]
    others = [math.inf if v is None else float(v) for v in other_rounds]
    if not values or not others:
        return "overlap"
    if max(values) < min(others):
        return "lower"
    if min(values) > max(others):
        return "higher"
    return "overlap"


# --- Part A, S, bits, quiet --------------------------------------------------------


def part_a(runs: list[tuple[np.ndarray, np.ndarray]]) -> dict:
    """{size: {per_call_us, per_row_us, per_call_us_runs, calls}} from (size, call_ns) runs."""
    sizes = sorted({int(s) for size_column, _ in runs for s in np.unique(size_column)})
    by_size = {}
    for size in sizes:
        run_medians = []
        calls = 0
        for size_column, call_ns in runs:
            times = call_ns[size_column == size]
            calls += int(times.size)
            if times.size:
                run_medians.append(median(times) / 1000)
        per_call = median(run_medians)
        by_size[str(size)] = {
            "size": size,
            "per_call_us": per_call,
            "per_row_us": per_call / size,
            "per_call_us_runs": run_medians,
            "calls": calls,
        }
    return {"sizes": sizes, "by_size": by_size}


def saturation(runs: list[dict]) -> dict:
    """S and its range from the runs' {throughput, …} records."""
    values = [run["throughput"] for run in runs]
    s = median(values)
    return {"S": s, "S_min": min(values), "S_max": max(values), "us_per_answer": 1e6 / s}


def bits(results: dict) -> dict:
    """Totals of the bit check over every size and 'all'."""
    scores = sum(int(r["scores"]) for r in results.values())
    equal = sum(int(r["equal"]) for r in results.values())
    return {
        "scores": scores,
        "equal": equal,
        "all_equal": scores == equal and scores > 0,
        "max_abs_diff": max(float(r["max_abs_diff"]) for r in results.values()),
    }


def quiet(records: list[dict]) -> dict:
    """The quiet rule over all runs: [{run_id, quiet (dict or None), load_before, load_after}]."""
    checked = [r for r in records if r.get("quiet")]
    loads = [load for r in records for load in (r.get("load_before"), r.get("load_after")) if load]
    befores = [r["load_before"] for r in records if r.get("load_before")]
    watched = [r for r in records if (r.get("core_watch") or {}).get("others_share") is not None]
    return {
        "watched_runs": len(watched),
        "others_share_max": max((r["core_watch"]["others_share"] for r in watched), default=None),
        "busiest_run": max(watched, key=lambda r: r["core_watch"]["others_share"])["run_id"]
        if watched
        else None,
        "runs": len(checked),
        "quiet_runs": sum(bool(r["quiet"]["quiet"]) for r in checked),
        "not_quiet": sorted(r["run_id"] for r in checked if not r["quiet"]["quiet"]),
        "tries_max": max((int(r["quiet"]["tries"]) for r in checked), default=0),
        "idle_share_min": min((b["idle_share"] for b in befores), default=None),
        "steal_share_max": max((x["steal_share"] for x in loads), default=None),
        "loadavg_max": max((x["loadavg"][0] for x in loads), default=None),
    }


def spread(values: list) -> dict | None:
    """min, max and (max - min) / median of finite values; None when any is infinite or
    fewer than one value is given (a spread of never-answered latencies means nothing)."""
    if not values or any(v is None or math.isinf(v) for v in values):
        return None
    middle = median(values)
    return {
        "min": min(values),
        "max": max(values),
        "spread": (max(values) - min(values)) / middle if middle else None,
    }


# --- derived headline arithmetic ----------------------------------------------------


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator; None (infinite or absent) or a zero denominator -> None."""
    if numerator is None or denominator is None or denominator == 0:
        return None
    if math.isinf(numerator) or math.isinf(denominator):
        return None
    return numerator / denominator


# --- Part C, the batch route ---------------------------------------------------------

LOOP = "loop"


def method_key(chunk: int) -> str:
    """0 (the loop of /predict) -> 'loop'; a chunk size -> its digits."""
    return LOOP if int(chunk) == 0 else str(int(chunk))


def part_c_methods(runs: list[dict]) -> dict:
    """{method key: wall times, per-record time, speedup over the loop, errors, mismatches}
    from each run's method table (columns `method_*`); runs in run order."""
    walls, faults = {}, {}
    for columns in runs:
        for index, chunk in enumerate(columns["method_chunk"].tolist()):
            key = method_key(chunk)
            walls.setdefault(key, []).append(int(columns["method_wall_ns"][index]) / 1e6)
            errors, mismatches = faults.setdefault(key, [0, 0])
            faults[key] = [
                errors + int(columns["method_errors"][index]),
                mismatches + int(columns["method_mismatches"][index]),
            ]
    records = int(runs[0]["method_records"][0])
    loop_ms = median(walls[LOOP]) if LOOP in walls else None
    methods = {}
    for key in sorted(walls, key=lambda k: -1 if k == LOOP else int(k)):
        wall_ms = median(walls[key])
        methods[key] = {
            "chunk": 0 if key == LOOP else int(key),
            "wall_ms": wall_ms,
            "wall_ms_runs": walls[key],
            "per_record_us": wall_ms * 1000 / records,
            "per_record_us_runs": [w * 1000 / records for w in walls[key]],
            "speedup": ratio(loop_ms, wall_ms),
            "errors": faults[key][0],
            "mismatches": faults[key][1],
        }
    return methods


def part_c_route(columns: list[dict], route: str, stages: list) -> dict:
    """Median of the runs' medians of each stage of one route's breakdown calls (`stages`,
    the route's stage names), the time outside the handler, the client's round trip, and the
    model's share of that round trip."""
    medians = {}
    for name in (*stages, "outside", "round_trip"):
        per_run = []
        for run in columns:
            chosen = run["breakdown_route"] == route
            if chosen.any():
                per_run.append(median(run[f"breakdown_{name}_us"][chosen]))
        medians[f"{name}_us"] = median(per_run)
    calls = [int((run["breakdown_route"] == route).sum()) for run in columns]
    records = [int(run["breakdown_records"][run["breakdown_route"] == route][0]) for run in columns]
    trips = np.concatenate(
        [run["breakdown_round_trip_us"][run["breakdown_route"] == route] for run in columns]
    )
    return {
        "stages": list(stages),
        "calls": sum(calls),
        "records": max(records),
        **medians,
        "round_trip_us_p50": percentile(trips, 50),
        "round_trip_us_p99": percentile(trips, 99),
        "model_share": ratio(medians["model_us"], medians["round_trip_us"]),
    }


def exchange_aligned(request_body: str, response_body: str, status: int, kinds: list) -> bool:
    """The alignment rule on one exchange: status 200, one slot per input in order, each
    slot echoing its input's customer_id and holding a score or an error (never both),
    a score exactly where the input was valid."""
    try:
        inputs = json.loads(request_body)["records"]
        slots = json.loads(response_body)["predictions"]
    except (ValueError, KeyError, TypeError):
        return False
    if status != 200 or not isinstance(slots, list) or len(slots) != len(inputs):
        return False
    for record, slot, kind in zip(inputs, slots, kinds, strict=False):
        scored = isinstance(slot.get("probability"), float) and slot.get("error") is None
        failed = slot.get("probability") is None and isinstance(slot.get("error"), dict)
        if slot.get("customer_id") != record.get("customer_id") or scored == failed:
            return False
        if scored != (kind == "valid"):
            return False
    return len(kinds) == len(inputs)
