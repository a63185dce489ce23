"""The report's own recomputation of the pictures' data (results.json `pictures`).

The build (generator/arithmetic/pictures.py) picks a few real requests for the site's pictures; this
module picks them again from the raw files with its own code and the same written rules,
and checks every number the pictures draw: which round, which stretch of arrivals, who was
scored with whom, when, and the per-round clump check. It imports nothing of the build.
Used by `python -m generator report`.
"""

import math
import statistics

from lab.rawformat.names import NONE, rate_key, record_name, setting_name

# The rules of generator/arithmetic/pictures.py, restated (a change there must be made here too).
W0, W2 = setting_name("queue", 32, 0), setting_name("queue", 32, 2)
STRETCH_US, TYPICAL_SHARE = 20_000, 0.25
BEFORE_US, SHOWN_BEFORE_US, SHOWN_AFTER_US = 3_000, 4_000, 1_000
MOMENTS = ("ready_us", "queued_us", "model_us")


def rank(values, q: int) -> float:
    """Nearest rank, integer arithmetic: the ceil(q * n / 100)-th smallest."""
    ordered = sorted(values)
    return ordered[(q * len(ordered) + 99) // 100 - 1]


def waits_of(columns: dict) -> list[float]:
    """Latency in µs per request; not answered with 200 counts as infinite."""
    return [
        float(lat) if status == 200 and lat >= 0 else math.inf
        for lat, status in zip(columns["latency_us"].tolist(), columns["status"].tolist(),
                               strict=True)
    ]  # fmt: skip


def groups(columns: dict) -> list[int] | None:
    """Batch sizes read off the requests in arrival order (each batch the next `size`
    requests, all reporting that size), if they equal the batcher's own list."""
    found, remaining, current = [], 0, 0
    for size in columns["batch_size"].tolist():
        if remaining == 0:
            if size < 1:
                return None
            found.append(size)
            remaining, current = size, size
        elif size != current:
            return None
        remaining -= 1
    if remaining or found != columns["batches_size"].tolist():
        return None
    return found


def firsts(sizes: list[int]) -> list[int]:
    out, index = [], 0
    for size in sizes:
        out.append(index)
        index += size
    return out


def first_at_or_after(values: list, bound) -> int:
    return next((i for i, v in enumerate(values) if v >= bound), len(values))


def stretch(arrivals: list, lanes: dict, middle: int) -> tuple[int, int] | None:
    """The first typical stretch from the middle on (each lane's median latency within the
    share of its run's), else the first stretch; both ends start a batch in every lane."""
    shared = sorted(set.intersection(*(set(firsts(lane["sizes"])) for lane in lanes.values())))
    whole = {name: rank(lane["waits"], 50) for name, lane in lanes.items()}
    fallback = None
    for first in (i for i in shared if i >= middle):
        end = first_at_or_after(arrivals, arrivals[first] + STRETCH_US)
        last = next((i for i in shared if i >= end), None)
        if last is None:
            break
        fallback = fallback or (first, last)
        if all(abs(rank(lane["waits"][first:last], 50) - whole[name]) <= TYPICAL_SHARE * whole[name]
               for name, lane in lanes.items()):  # fmt: skip
            return first, last
    return fallback


def lane_numbers(columns: dict, sizes: list, first: int, last: int, origin: int) -> dict:
    arrivals, waits = columns["arrival_us"].tolist(), waits_of(columns)
    answers = [None if math.isinf(waits[i]) else (arrivals[i] + waits[i] - origin) / 1000
               for i in range(first, last)]  # fmt: skip
    starts = firsts(sizes)
    picked = [b for b, start in enumerate(starts) if first <= start < last]
    calls = []
    if any(answer is None for answer in answers):
        return None  # a request never answered: its batch's call cannot be placed
    for b in picked:
        members = range(starts[b], starts[b] + sizes[b])
        model = [columns["model_us"][i] / 1000 for i in members]
        begin = min(answers[i - first] - m for i, m in zip(members, model, strict=True))
        calls.append([begin, begin + min(model)])
    return {
        "answers_ms": answers,
        "batch_sizes": [sizes[b] for b in picked],
        "first_waits_ms": [columns["batches_first_wait_us"][b] / 1000 for b in picked],
        "calls_ms": calls,
        "batches": len(picked),
        "latency_ms_p50": rank(waits[first:last], 50) / 1000,
        "mean_batch_size": (last - first) / len(picked),
    }


def timeline(runs: dict, round_: int, window_s: float) -> dict | None:
    if (W0, round_) not in runs or (W2, round_) not in runs:
        return None
    chosen = {name: runs[(name, round_)] for name in (W0, W2)}
    lanes = {}
    for name, (_, columns) in chosen.items():
        sizes = groups(columns)
        if sizes is None:
            return None
        lanes[name] = {"sizes": sizes, "waits": waits_of(columns)}
    arrivals = chosen[W0][1]["arrival_us"].tolist()
    picked = stretch(arrivals, lanes, first_at_or_after(arrivals, window_s * 1e6 / 2))
    if picked is None:
        return None
    first, last = picked
    origin = arrivals[first]
    numbers = {
        name: lane_numbers(columns, lanes[name]["sizes"], first, last, origin)
        for name, (_, columns) in chosen.items()
    }
    if not all(numbers.values()):
        return None
    return {
        "run_ids": {name: meta["run_id"] for name, (meta, _) in chosen.items()},
        "settings": [W0, W2],
        "start_ms": origin / 1000,
        "stretch_ms": STRETCH_US / 1000,
        "typical_share": TYPICAL_SHARE,
        "requests": last - first,
        "arrivals_ms": [(a - origin) / 1000 for a in arrivals[first:last]],
        "lanes": numbers,
    }


def company(arrivals: list) -> list[int]:
    """Per request: earlier requests that arrived less than BEFORE_US before it."""
    counts, low = [], 0
    for index, arrival in enumerate(arrivals):
        while arrivals[low] <= arrival - BEFORE_US:
            low += 1
        counts.append(index - low)
    return counts


def slow_ones(columns: dict) -> list[int]:
    waits = waits_of(columns)
    cut = rank(waits, 99)
    return [i for i, wait in enumerate(waits) if wait >= cut]


def clump(runs: dict, round_: int) -> dict:
    meta, columns = runs[(NONE, round_)]
    arrivals, waits = columns["arrival_us"].tolist(), waits_of(columns)
    counts = company(arrivals)
    chosen = sorted(slow_ones(columns), key=lambda i: (-counts[i], -waits[i], i))[0]
    origin = arrivals[chosen]
    shown = [i for i, a in enumerate(arrivals)
             if origin - SHOWN_BEFORE_US <= a <= origin + SHOWN_AFTER_US]  # fmt: skip
    done = [a + w for a, w in zip(arrivals, waits, strict=True)]

    def answered(cols):
        lat = waits_of(cols)
        return [None if math.isinf(lat[i]) else (arrivals[i] + lat[i] - origin) / 1000
                for i in shown]  # fmt: skip

    found = {
        "round": round_,
        "run_ids": {NONE: meta["run_id"]},
        "chosen": shown.index(chosen),
        "before": counts[chosen],
        "window_ms": BEFORE_US / 1000,
        "arrivals_ms": [(arrivals[i] - origin) / 1000 for i in shown],
        "answers_ms": {NONE: answered(columns)},
        "slowest_ms": {NONE: max(waits[i] for i in shown) / 1000},
        "chosen_ms": waits[chosen] / 1000,
        "inside_ms": sum(int(columns[name][chosen]) for name in MOMENTS) / 1000,
        "overtaken_by": sum(1 for d in done[chosen + 1 :] if d < done[chosen]),
    }
    if (W0, round_) in runs:
        other, batched = runs[(W0, round_)]
        if batched["arrival_us"].tolist() == arrivals:
            found["run_ids"][W0] = other["run_id"]
            found["answers_ms"][W0] = answered(batched)
            found["slowest_ms"][W0] = max(waits_of(batched)[i] for i in shown) / 1000
            found["batch_sizes"] = {W0: [int(batched["batch_size"][i]) for i in shown]}
    return found


def clump_check(runs: dict) -> dict:
    rounds = sorted(r for name, r in runs if name == NONE)
    found = {"setting": NONE, "window_ms": BEFORE_US / 1000, "rounds": rounds}
    rows = {"requests": [], "all_mean": [], "slowest": [], "slowest_mean": []}
    for r in rounds:
        _, columns = runs[(NONE, r)]
        counts, slow = company(columns["arrival_us"].tolist()), slow_ones(columns)
        rows["requests"].append(len(counts))
        rows["all_mean"].append(statistics.fmean(counts))
        rows["slowest"].append(len(slow))
        rows["slowest_mean"].append(statistics.fmean(counts[i] for i in slow))
    found.update(rows)
    found["slowest_more_rounds"] = sum(
        1 for s, a in zip(rows["slowest_mean"], rows["all_mean"], strict=True) if s > a
    )
    return found


def recompute(data: dict, quiet: str, window_s: float) -> dict | None:
    """The pictures' data from the campaign's raw runs (the report's own reading)."""
    runs = {}
    for _, (entry, meta, columns) in data["runs"].items():
        if entry["kind"] == "part_b" and rate_key(entry["rate_multiple"]) == quiet:
            runs[(record_name(entry["setting"]), int(entry["round"]))] = (meta, columns)
    shared = sorted(r for name, r in runs if name == NONE and (W0, r) in runs)
    if not shared:
        return None
    found = {"rate": quiet, "round": shared[0]}
    parts = {
        "timeline": timeline(runs, shared[0], window_s),
        "clump": clump(runs, shared[0]),
        "clump_check": clump_check(runs),
    }
    found.update({name: part for name, part in parts.items() if part})
    return found


def published_at(results: dict, path: tuple):
    value = results
    for key in path:
        inside = isinstance(value, dict) and key in value
        if not inside and not (isinstance(value, list) and isinstance(key, int)):
            return None
        if not inside and key >= len(value):
            return None
        value = value[key]
    return value


def walk(checker, results: dict, path: tuple, value) -> None:
    """Every leaf of the recomputed value against the published one at the same path, and
    no key published that the raw data does not give."""
    if isinstance(value, dict):
        published = published_at(results, path)
        keys = sorted(published) if isinstance(published, dict) else None
        checker.same("/".join(map(str, path)) + " keys", keys, sorted(value))
        for key, item in value.items():
            walk(checker, results, (*path, key), item)
    elif isinstance(value, list) and value and isinstance(value[0], list | dict):
        for index, item in enumerate(value):
            walk(checker, results, (*path, index), item)
    else:
        checker.dig(results, path, value)


def check(data, results, checker, say):
    """Recompute `pictures` and compare it leaf by leaf; absent on both sides is fine."""
    quiet = data["description"].quiet_rate
    found = recompute(data, quiet, float(data["info"]["design"]["window_s"]))
    if found is None:
        checker.same("pictures", results.get("pictures"), None)
        return
    walk(checker, results, ("pictures",), found)
    line = found.get("timeline")
    if line:
        lanes = line["lanes"]
        say(
            f"timeline round {found['round'] + 1}: {line['requests']} requests; "
            + ", ".join(f"{name} {lanes[name]['batches']} batches" for name in line["settings"])
        )
    if "clump_check" in found:
        c = found["clump_check"]
        say(
            f"clump check: the slowest 1% had more arrivals in the {c['window_ms']:g} ms before "
            f"them in {c['slowest_more_rounds']} of {len(c['rounds'])} rounds"
        )
