"""Read data/bench/core_time.json (`python -m lab.bench.core_time`, issue 33) for the handler
page (results.json `bench.core_time`): where the shared core's time goes per answer, for the
old service (a past commit) and the new, per setting and rate.

Each run of the file holds `us_per_answer`: µs of the measurement core per answer for each
part (the load client's user and kernel time, the service's kernel time, the garbage
collector, and the service's Python split over the layers the file lists). What is shown:

- `summary`: the file's own medians over rounds (per version, setting and rate: each part and
  the total), each checked to be there;
- `findings`, worked out here from those medians for the page's words: per setting and
  version, from S (BASE_MULTIPLE) to the top rate, the total and the time outside the model
  call, the collector's µs and share of the total, the part that grew most, and the lowest
  and highest round's total at the top rate (how far the rounds moved); per setting at the
  top rate, what the new service spent less than the old in all and in the part cut most, and
  the part that rose most;
- per version whether its client split its CPU into user and kernel (an old client counts
  only its total, which the file puts under user), the rounds that kept up, the answers that
  differed, and what the new service's collector did (`gc_counted`: its thresholds, the
  objects frozen, the collections over the answers).

The report recomputes every number from the file's runs (generator/report/bench.py). A file
that lacks a field the page needs, or holds a part that is not a number, is a DataError naming
the file and the field. Run through `python -m generator build`.
"""

import math
from pathlib import Path

from generator.reading.load import DataError, need

FILE = "core_time.json"
VERSIONS = ("old", "new")
CLIENT_PARTS = ("load client, user", "load client, kernel")
KERNEL = "service kernel (network path, scheduling)"
GC = "garbage collector"
MODEL = "model"
TOTAL = "total"
# The growth with load is read from S to the top rate, as the issue states it (the work outside
# the model call at S against the top rate); below S the core idles between requests, and its
# idle turns of the event loop land on few answers.
BASE_MULTIPLE = 1.0


def rate_key(multiple: float) -> str:
    """The file's key of a rate multiple: 0.5 -> 'x0.5', 1.0 -> 'x1'."""
    return f"x{multiple:g}"


def walk(mapping, keys: tuple, path: Path, where: str = ""):
    """mapping[k1][k2]…, or DataError naming the file and the field (keys may hold dots)."""
    value = mapping
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            field = ".".join(map(str, keys))
            raise DataError(f"{path}{where}: missing field '{field}'")
        value = value[key]
    return value


def microseconds(value, field: str, path: Path, where: str) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0:
        raise DataError(f"{path}{where}: field '{field}' is {value!r}, expected µs (≥ 0)")
    return float(value)


def parts_of(found: dict, path: Path) -> list[str]:
    """Every part of an answer's core time, in the file's order: the client, the service's
    kernel, the collector, then the layers the file lists."""
    layers = need(found, "layers", path)
    if not isinstance(layers, list) or not layers or not all(isinstance(x, str) for x in layers):
        raise DataError(f"{path}: field 'layers' must be a non-empty list of names")
    if MODEL not in layers:
        raise DataError(f"{path}: field 'layers' must name the '{MODEL}'")
    return [*CLIENT_PARTS, KERNEL, GC, *layers]


def checked_runs(found: dict, parts: list[str], path: Path) -> list[dict]:
    runs = need(found, "runs", path)
    if not isinstance(runs, list) or not runs:
        raise DataError(f"{path}: field 'runs' must be a non-empty list")
    for index, run in enumerate(runs):
        where = f" runs[{index}]"
        for field in ("version", "setting", "rate_multiple", "kept_up", "answered"):
            need(run, field, f"{path}{where}")
        if run["version"] not in VERSIONS:
            raise DataError(f"{path}{where}: field 'version' is {run['version']!r}, "
                            f"expected one of {', '.join(VERSIONS)}")  # fmt: skip
        for part in parts:
            value = walk(run, ("us_per_answer", part), path, where)
            microseconds(value, f"us_per_answer.{part}", path, where)
    return runs


def grid(runs: list[dict], path: Path) -> tuple[list[str], list[float]]:
    """(settings in the order the runs first name them, rate multiples ascending); every
    version must have run every setting at every rate."""
    settings = list(dict.fromkeys(run["setting"] for run in runs))
    multiples = sorted({float(run["rate_multiple"]) for run in runs})
    ran = {(run["version"], run["setting"], float(run["rate_multiple"])) for run in runs}
    for version in VERSIONS:
        for setting in settings:
            for multiple in multiples:
                if (version, setting, multiple) not in ran:
                    raise DataError(f"{path}: no run of version '{version}' with setting "
                                    f"'{setting}' at {multiple:g} × S")  # fmt: skip
    return settings, multiples


def summary_of(found: dict, parts: list[str], settings: list, multiples: list, path) -> dict:
    """The file's medians: {version: {setting: {rate key: {part: µs, total: µs}}}}."""
    shown: dict = {}
    for version in VERSIONS:
        for setting in settings:
            for multiple in multiples:
                keys = ("summary", version, setting, rate_key(multiple))
                cell = {}
                for part in (*parts, TOTAL):
                    value = walk(found, (*keys, part), path)
                    cell[part] = microseconds(value, ".".join((*keys, part)), path, "")
                shown.setdefault(version, {}).setdefault(setting, {})[keys[-1]] = cell
    return shown


def growth(cells: dict, parts: list[str], base: str, top: str) -> dict:
    """One version and setting from the base rate to the top: totals, the time outside the
    model call, the collector (µs and share of the total) and the part that grew most."""
    low, high = cells[base], cells[top]
    grown = {part: high[part] - low[part] for part in parts}
    most = max(parts, key=lambda part: grown[part])
    return {
        "total_base_us": low[TOTAL],
        "total_top_us": high[TOTAL],
        "outside_model_base_us": low[TOTAL] - low[MODEL],
        "outside_model_top_us": high[TOTAL] - high[MODEL],
        "gc_base_us": low[GC],
        "gc_top_us": high[GC],
        "gc_share_base": low[GC] / low[TOTAL] if low[TOTAL] else None,
        "gc_share_top": high[GC] / high[TOTAL] if high[TOTAL] else None,
        "grew_most": most,
        "grew_most_us": grown[most],
    }


def cut(old: dict, new: dict, parts: list[str]) -> dict:
    """At one rate: what the new service spent less than the old per answer, in all and in the
    part cut most (negative: it spent more), and the part that rose most (new − old)."""
    saved = {part: old[part] - new[part] for part in parts}
    most = max(parts, key=lambda part: saved[part])
    rose = min(parts, key=lambda part: saved[part])
    return {"total_us": old[TOTAL] - new[TOTAL], "most": most, "most_us": saved[most],
            "rose_most": rose, "rose_most_us": -saved[rose]}  # fmt: skip


def run_totals(runs: list[dict], parts: list, version: str, setting: str, multiple: float) -> list:
    """Each round's total µs per answer of one version, setting and rate: its parts summed in
    the order the bench made them, as its summary's total was."""
    return [sum(run["us_per_answer"][part] for part in parts) for run in runs
            if run["version"] == version and run["setting"] == setting
            and float(run["rate_multiple"]) == multiple]  # fmt: skip


def findings(summary: dict, parts: list[str], settings: list, multiples: list, runs: list) -> dict:
    """The growth from the base rate to the top per setting and version (with the lowest and
    highest round's total at the top rate: how far the rounds themselves moved), and what the
    change cut at the top rate."""
    base = BASE_MULTIPLE if BASE_MULTIPLE in multiples else multiples[0]
    top = multiples[-1]
    base_key, top_key = rate_key(base), rate_key(top)
    by_setting = {}
    for setting in settings:
        entry = {}
        for version in VERSIONS:
            entry[version] = growth(summary[version][setting], parts, base_key, top_key)
            totals = run_totals(runs, parts, version, setting, top)
            entry[version]["total_top_range_us"] = [min(totals), max(totals)]
        entry["cut_at_top"] = cut(summary["old"][setting][top_key],
                                  summary["new"][setting][top_key], parts)  # fmt: skip
        by_setting[setting] = entry
    return {"base_multiple": base, "top_multiple": top, "by_setting": by_setting}


def client_split(runs: list[dict]) -> dict:
    """Per version: whether its client counted user and kernel time apart (an old client
    records only its total, which the file puts under user)."""
    return {
        version: all((run.get("client") or {}).get("client_user_us_per_request") is not None
                     for run in runs if run["version"] == version)
        for version in VERSIONS
    }  # fmt: skip


def kept_up(runs: list[dict], settings: list, multiples: list) -> dict:
    """Per version, setting and rate: {rounds kept up, rounds}."""
    found: dict = {}
    for version in VERSIONS:
        for setting in settings:
            for multiple in multiples:
                chosen = [run for run in runs if run["version"] == version
                          and run["setting"] == setting
                          and float(run["rate_multiple"]) == multiple]  # fmt: skip
                found.setdefault(version, {}).setdefault(setting, {})[rate_key(multiple)] = {
                    "kept_up": sum(bool(run["kept_up"]) for run in chosen),
                    "rounds": len(chosen),
                }
    return found


def answers_differing(runs: list[dict]) -> dict:
    """Per version: the answers its client found differing from the single-row score, summed
    over its runs (None: its client did not check them)."""
    found = {}
    for version in VERSIONS:
        counts = [(run.get("client") or {}).get("answers_differing") for run in runs
                  if run["version"] == version]  # fmt: skip
        found[version] = None if None in counts else sum(counts)
    return found


def collector_new(runs: list[dict], path: Path) -> dict | None:
    """What the new service's collector did (its own count, /batches "gc"): its thresholds,
    the objects frozen at start (least and most over the runs), and the collections per
    generation over the answers of all its runs; None when a run does not record it."""
    chosen = [run for run in runs if run["version"] == "new"]
    counted = [run.get("gc_counted") for run in chosen]
    if any(not isinstance(gc, dict) for gc in counted):
        return None
    where = f"{path} runs of version 'new'"
    thresholds = {tuple(need(gc, "threshold", where)) for gc in counted}
    if len(thresholds) != 1:
        raise DataError(f"{where}: field 'gc_counted.threshold' differs between runs")
    frozen = [need(gc, "frozen", where) for gc in counted]
    collections = [need(gc, "collections", where) for gc in counted]
    return {
        "threshold": list(thresholds.pop()),
        "frozen_min": min(frozen),
        "frozen_max": max(frozen),
        "collections": [sum(values) for values in zip(*collections, strict=True)],
        "answers": sum(run["answered"] for run in chosen),
    }


def core_time(found: dict, path: Path, record: dict) -> dict:
    """What the handler page shows of core_time.json (`found`, read from `path`; see the
    module docstring); `record` is the file's name and sha256 and the machine, as
    generator/arithmetic/bench_files.py gives them."""
    parts = parts_of(found, path)
    runs = checked_runs(found, parts, path)
    settings, multiples = grid(runs, path)
    summary = summary_of(found, parts, settings, multiples, path)
    shown = {
        **record,
        "commits": {version: need(found, f"commits.{version}", path) for version in VERSIONS},
        "smoke": bool(need(found, "smoke", path)),
        "rounds": need(found, "rounds", path),
        "window_s": need(found, "window_s", path),
        "saturation_S": need(found, "saturation_S", path),
        "shielded": found.get("shielded"),
        "settings": settings,
        "rate_multiples": multiples,
        "parts": parts,
        "summary": summary,
        "findings": findings(summary, parts, settings, multiples, runs),
        "client_split": client_split(runs),
        "kept_up": kept_up(runs, settings, multiples),
        "answers_differing": answers_differing(runs),
    }
    if found.get("saturation_loops_throughput") is not None:  # S measured on the day
        shown["saturation_loops"] = found["saturation_loops_throughput"]
    gc = collector_new(runs, path)
    if gc is not None:
        shown["gc_new"] = gc
    return shown
