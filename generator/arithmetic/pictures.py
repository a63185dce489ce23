"""The data behind the site's pictures, taken from the raw run files (results.json `pictures`).

A picture of real requests needs per-request timings that results.json never ships, so this
module reads the few runs the pictures draw and keeps only what they draw, rounded:

- `timeline`: one round at the quiet rate; the same TIMELINE_US of arrivals met by B=32 W=0
  and by B=32 W=2, each request's answer, and the batches they were scored in;
- `clump`: in no batching's run of that round, the slowest-1% request with the most arrivals
  in the CLUMP_US before it, its neighbours, and the same arrivals' answers under B=32 W=0;
- `clump_check`: per round, the mean number of arrivals in the CLUMP_US before a request, over
  all requests and over no batching's slowest 1% (the original lesson's check).

Which requests formed a batch is not recorded per request; it follows from the raw columns:
batches take requests first come, first served, so in arrival order the next `batch_size`
requests form one batch. That grouping is used only when the batch sizes it gives are
exactly the batcher's own list (`batches_size`). A batch's model call is placed from the
answers: it started at most at min(answer − `model_us`) over its requests, and lasted about
the smallest `model_us`. The report recomputes all of it (generator/report/pictures.py).
Run through `python -m generator build`.
"""

import numpy as np

from generator.arithmetic import stats
from generator.reading.load import Campaign, read_run
from lab.rawformat.names import NONE, rate_key, record_name, setting_name

W0, W2 = setting_name("queue", 32, 0), setting_name("queue", 32, 2)
TIMELINE_US = 20_000  # the stretch of arrivals the timeline shows
TYPICAL_SHARE = 0.25  # its median latency this close to the run's, for each setting
CLUMP_US = 3_000  # the original lesson's check: arrivals in the 3 ms before a request
CLUMP_SHOWN_US = (4_000, 1_000)  # the clump picture: arrivals this long before and after
MOMENTS = ("ready_us", "queued_us", "model_us")  # the handler's own time, in Server-Timing


def run_files(campaign: Campaign, rate: str) -> dict:
    """{(setting name, round): path} of the Part B files at one rate."""
    found = {}
    for entry in campaign.scheduled("part_b"):
        path = campaign.files.get(entry["run_id"])
        if path is not None and rate_key(entry["rate_multiple"]) == rate:
            found[(record_name(entry["setting"]), int(entry["round"]))] = path
    return found


def batch_sizes(columns: dict) -> list[int] | None:
    """Sizes of the batches in arrival order, each the next `size` requests; None when the
    requests cannot be grouped so, or the grouping disagrees with the batcher's own list."""
    sizes, index, per_request = [], 0, columns["batch_size"].tolist()
    while index < len(per_request):
        size = per_request[index]
        if size < 1 or per_request[index : index + size] != [size] * size:
            return None
        sizes.append(size)
        index += size
    return sizes if sizes == columns["batches_size"].tolist() else None


def answers_ms(columns: dict, chosen: np.ndarray, origin_us: int) -> list:
    """Answer moments of the chosen requests in ms from `origin_us` (None: never answered)."""
    arrival, latency = columns["arrival_us"].astype(np.int64), columns["latency_us"]
    status = columns["status"]
    return [
        (int(arrival[i]) + int(latency[i]) - origin_us) / 1000
        if status[i] == 200 and latency[i] >= 0
        else None
        for i in chosen
    ]


def starts(sizes: list[int]) -> list[int]:
    """Index of each batch's first request."""
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(int).tolist()


def common_start(lanes: list[set], from_index: int) -> int | None:
    """The first request at or after `from_index` that starts a batch in every lane."""
    shared = sorted(set.intersection(*lanes))
    later = [index for index in shared if index >= from_index]
    return later[0] if later else None


def lane(columns: dict, sizes: list[int], first: int, last: int, origin_us: int) -> dict:
    """One setting's batches of requests first … last − 1 (whole batches, by construction)."""
    answered = answers_ms(columns, np.arange(first, last), origin_us)
    batch_starts = starts(sizes)
    chosen = [b for b, start in enumerate(batch_starts) if first <= start < last]
    waits = columns["batches_first_wait_us"]
    calls = []
    for b in chosen:
        members = np.arange(batch_starts[b], batch_starts[b] + sizes[b])
        ends = [answered[i - first] for i in members]
        model = columns["model_us"][members].astype(float) / 1000
        if any(end is None for end in ends):
            return {}
        begin = min(end - m for end, m in zip(ends, model, strict=True))
        calls.append([begin, begin + float(model.min())])
    latency = stats.latencies_us(columns["latency_us"], columns["status"])[first:last] / 1000
    return {
        "answers_ms": answered,
        "batch_sizes": [sizes[b] for b in chosen],
        "first_waits_ms": [int(waits[b]) / 1000 for b in chosen],
        "calls_ms": calls,
        "batches": len(chosen),
        "latency_ms_p50": stats.percentile(latency, 50),
        "mean_batch_size": (last - first) / len(chosen),
    }


def stretches(arrival: np.ndarray, begins: list[set], middle: int):
    """(first, last) request ranges of about TIMELINE_US from the middle of the run on, each
    starting and ending where every lane starts a batch (so every batch is whole)."""
    for first in sorted(index for index in set.intersection(*begins) if index >= middle):
        last = common_start(begins, int(np.searchsorted(arrival, arrival[first] + TIMELINE_US)))
        if last is None:
            return
        yield first, last


def typical_stretch(runs: dict, sizes: dict, middle: int) -> tuple[int, int] | None:
    """The first stretch from the middle of the run on where each lane's median latency is
    within TYPICAL_SHARE of its whole run's (a typical moment, not a lucky or unlucky one);
    else the first stretch."""
    arrival = next(iter(runs.values()))[1]["arrival_us"].astype(np.int64)
    waits = {
        name: stats.latencies_us(columns["latency_us"], columns["status"])
        for name, (_, columns) in runs.items()
    }
    whole = {name: stats.percentile(wait, 50) for name, wait in waits.items()}
    begins = [set(starts(sizes[name])) for name in runs]
    found = None
    for first, last in stretches(arrival, begins, middle):
        found = found or (first, last)
        if all(
            abs(stats.percentile(wait[first:last], 50) - whole[name]) <= TYPICAL_SHARE * whole[name]
            for name, wait in waits.items()
        ):
            return first, last
    return found


def timeline(found: dict, round_: int, window_s: float) -> dict | None:
    """The same stretch of arrivals under B=32 W=0 and B=32 W=2, whole batches only."""
    if (W0, round_) not in found or (W2, round_) not in found:
        return None
    runs = {name: read_run(found[(name, round_)], "part_b") for name in (W0, W2)}
    sizes = {name: batch_sizes(columns) for name, (_, columns) in runs.items()}
    if any(value is None for value in sizes.values()):
        return None
    arrival = runs[W0][1]["arrival_us"].astype(np.int64)
    chosen = typical_stretch(runs, sizes, int(np.searchsorted(arrival, window_s * 1e6 / 2)))
    if chosen is None:
        return None
    first, last = chosen
    origin = int(arrival[first])
    lanes = {
        name: lane(columns, sizes[name], first, last, origin) for name, (_, columns) in runs.items()
    }
    if not all(lanes.values()):
        return None
    return {
        "run_ids": {name: meta["run_id"] for name, (meta, _) in runs.items()},
        "settings": [W0, W2],
        "start_ms": origin / 1000,
        "stretch_ms": TIMELINE_US / 1000,
        "typical_share": TYPICAL_SHARE,
        "requests": last - first,
        "arrivals_ms": [(int(a) - origin) / 1000 for a in arrival[first:last]],
        "lanes": lanes,
    }


def arrivals_before(arrival: np.ndarray, window_us: int) -> np.ndarray:
    """For each request, how many earlier requests arrived less than `window_us` before it
    (arrivals are in order; a request at the same microsecond but earlier counts)."""
    return np.arange(arrival.size) - np.searchsorted(arrival, arrival - window_us, side="right")


def slowest(columns: dict) -> np.ndarray:
    """Mask of the slowest 1%: latency (never answered = infinite) at or above the run's p99."""
    wait = stats.latencies_us(columns["latency_us"], columns["status"])
    return wait >= stats.percentile(wait, 99)


def clump_check(found: dict) -> dict | None:
    """Per round of no batching: mean arrivals in the CLUMP_US before a request, over all
    requests and over the slowest 1%."""
    rounds = sorted(r for name, r in found if name == NONE)
    if not rounds:
        return None
    check = {"setting": NONE, "window_ms": CLUMP_US / 1000, "rounds": rounds}
    rows = {"requests": [], "all_mean": [], "slowest": [], "slowest_mean": []}
    for r in rounds:
        _, columns = read_run(found[(NONE, r)], "part_b")
        before = arrivals_before(columns["arrival_us"].astype(np.int64), CLUMP_US)
        slow = slowest(columns)
        rows["requests"].append(int(before.size))
        rows["all_mean"].append(float(before.mean()))
        rows["slowest"].append(int(slow.sum()))
        rows["slowest_mean"].append(float(before[slow].mean()))
    check.update(rows)
    check["slowest_more_rounds"] = sum(
        s > a for s, a in zip(rows["slowest_mean"], rows["all_mean"], strict=True)
    )
    return check


def clump(found: dict, round_: int) -> dict | None:
    """No batching's slowest-1% request with the most arrivals just before it (ties: the
    slower, then the earlier), the requests around it, and the same ones under B=32 W=0."""
    if (NONE, round_) not in found:
        return None
    meta, columns = read_run(found[(NONE, round_)], "part_b")
    arrival = columns["arrival_us"].astype(np.int64)
    before = arrivals_before(arrival, CLUMP_US)
    wait = stats.latencies_us(columns["latency_us"], columns["status"])
    candidates = np.flatnonzero(slowest(columns))
    chosen = int(min(candidates, key=lambda i: (-before[i], -wait[i], i)))
    origin = int(arrival[chosen])
    low = int(np.searchsorted(arrival, origin - CLUMP_SHOWN_US[0]))
    high = int(np.searchsorted(arrival, origin + CLUMP_SHOWN_US[1], side="right"))
    shown = np.arange(low, high)
    done = arrival + wait
    picture = {
        "round": round_,
        "run_ids": {NONE: meta["run_id"]},
        "chosen": chosen - low,
        "before": int(before[chosen]),
        "window_ms": CLUMP_US / 1000,
        "arrivals_ms": [(int(arrival[i]) - origin) / 1000 for i in shown],
        "answers_ms": {NONE: answers_ms(columns, shown, origin)},
        "slowest_ms": {NONE: float(wait[shown].max()) / 1000},
        "chosen_ms": float(wait[chosen]) / 1000,
        "inside_ms": sum(int(columns[name][chosen]) for name in MOMENTS) / 1000,
        "overtaken_by": int((done[chosen + 1 :] < done[chosen]).sum()),
    }
    if (W0, round_) in found:
        other, batched = read_run(found[(W0, round_)], "part_b")
        if np.array_equal(batched["arrival_us"], columns["arrival_us"]):
            batched_wait = stats.latencies_us(batched["latency_us"], batched["status"])
            picture["run_ids"][W0] = other["run_id"]
            picture["answers_ms"][W0] = answers_ms(batched, shown, origin)
            picture["slowest_ms"][W0] = float(batched_wait[shown].max()) / 1000
            picture["batch_sizes"] = {W0: batched["batch_size"][shown].astype(int).tolist()}
    return picture


def build(campaign: Campaign, design: dict, quiet_rate: str) -> dict | None:
    """The pictures' data at the campaign's quiet rate (absent parts left out)."""
    found = run_files(campaign, quiet_rate)
    shared = sorted(r for name, r in found if name == NONE and (W0, r) in found)
    if not shared:
        return None
    round_ = shared[0]
    parts = {
        "timeline": timeline(found, round_, float(design["window_s"])),
        "clump": clump(found, round_),
        "clump_check": clump_check(found),
    }
    pictures = {name: part for name, part in parts.items() if part}
    if not pictures:
        return None
    return {"rate": quiet_rate, "round": round_, **pictures}
