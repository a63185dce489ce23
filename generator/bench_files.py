"""Read the machinery's benchmarks in data/bench/ for the handler page (results.json `bench`).

- `handler_trace.json` (`python -m lab.bench.handler_trace`): where an answer's time goes,
  none and queue B=1 traced on the measurement core, old machinery and new;
- `batcher.json` (`python -m lab.bench.batcher`): the two machineries side by side, with the
  targets (absent until that benchmark has run; the page then says so).

Both formats are described in data/README.md (and in the lab/bench/ modules that write them).
The values shown are the files' own findings (their `summary`: medians over rounds or pairs),
each version named by the machinery its client recorded (generator/machinery.py), with the
load the machine had while they ran; the report recomputes every one from the files' runs
(generator/report_bench.py). A file that lacks a field the page needs is a DataError naming the
file and the field. Run through `python -m generator build`.
"""

import hashlib
from pathlib import Path

from generator import machinery
from generator.load import DataError, need, read_json

ROOT = Path(__file__).resolve().parent.parent
TRACE, BATCHER = "handler_trace.json", "batcher.json"
VERSIONS = ("old", "new")
TRACE_SETTINGS = ("none", "queue B=1")
TRACE_MEASURES = (
    "loop_iterations_read_to_answer",
    "service_switched_out_read_to_answer",
    "context_switches_on_core",
    "service_loop_iterations",
    "service_writes",
    "client_woken",
    "client_message_reads",
    "answered_out_of_read_order_share",
    "service_cpu_ns_per_request",
    "client_cpu_us_per_request",
    "service_involuntary_switches_per_request",
    "service_voluntary_switches_per_request",
    "others_core_share",
    "p50_us",
)
BATCHER_MEASURES = (
    "queue_b1_p50_overhead_us",
    "w1_overshoot_us",
    "best_batched_over_none_at_2.5",
)
BATCHER_SECTIONS = (
    "closed_loop_answers_per_s",
    "open_loop_high",
    "b32_w0_kept_up_at_2",
    "client_cpu_us_per_request",
    "answers_checked_new",
)


def shown_dir(folder: Path) -> str:
    """The folder as results.json names it: from the repository root when inside it."""
    folder = Path(folder).resolve()
    try:
        return folder.relative_to(ROOT).as_posix()
    except ValueError:
        return str(folder)


def file_record(path: Path) -> dict:
    return {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def runs_of(found: dict, path: Path) -> list[dict]:
    runs = need(found, "runs", path)
    if not isinstance(runs, list) or not runs:
        raise DataError(f"{path}: field 'runs' must be a non-empty list")
    for index, run in enumerate(runs):
        for field in ("version", "load_before.loadavg", "load_after.loadavg"):
            need(run, field, f"{path} runs[{index}]")
    return runs


def versions(found: dict, runs: list[dict], path: Path) -> dict:
    """{old, new: {commit, machinery}}: the machinery from the event loop each run's client
    recorded (all of a version's runs must agree, else `mixed`)."""
    named = {}
    for version in VERSIONS:
        loops = [run["client"].get("event_loop") for run in runs
                 if run["version"] == version and "client" in run]  # fmt: skip
        if not loops:
            raise DataError(f"{path}: no run of version '{version}'")
        named[version] = {
            "commit": need(found, f"commits.{version}", path),
            "machinery": machinery.overall([machinery.kind_of(loop) for loop in loops]),
        }
    return named


def load_range(runs: list[dict], others: list) -> dict:
    """The machine's 1-minute load average over the runs (before and after each), the
    measurement core's highest idle share, and the share of it other processes took."""
    snapshots = [run[key] for run in runs for key in ("load_before", "load_after")]
    loads = [snapshot["loadavg"][0] for snapshot in snapshots]
    idle = [snapshot["idle_share"] for snapshot in snapshots if "idle_share" in snapshot]
    found = {"loadavg_min": min(loads), "loadavg_max": max(loads)}
    if idle:
        found["core_idle_share_max"] = max(idle)
    if others:
        found.update(others_share_min=min(others), others_share_max=max(others))
    return found


def machine(found: dict, path: Path) -> dict:
    return {
        "date": need(found, "date", path),
        "cores": need(found, "fingerprint.cores", path),
        "cpu_model": need(found, "fingerprint.cpu_model", path),
        "cpu": need(found, "cpu", path),
    }


def handler_trace(path: Path) -> dict:
    """What the handler page shows of the trace: per version and setting the medians over
    rounds (the file's `summary`), queue B=1's p50 minus none's, and the machine's load."""
    found = read_json(path)
    runs = runs_of(found, path)
    for index, run in enumerate(runs):
        for field in ("setting", "latency_us.p50", "trace.core_share.others"):
            need(run, field, f"{path} runs[{index}]")
    summary = {}
    for version in VERSIONS:
        summary[version] = {
            setting: {
                measure: need(found, f"summary.{version}.{setting}.{measure}", path)
                for measure in TRACE_MEASURES
            }
            for setting in TRACE_SETTINGS
        }
    overhead = {
        version: {
            key: need(found, f"summary.{version}.queue_b1_p50_overhead_us.{key}", path)
            for key in ("median", "per_round")
        }
        for version in VERSIONS
    }
    latencies = [run["latency_us"]["p50"] for run in runs]
    return {
        **file_record(path),
        **machine(found, path),
        "versions": versions(found, runs, path),
        "rate_multiple": need(found, "rate_multiple", path),
        "arrival_rate": need(found, "arrival_rate", path),
        "rounds": need(found, "rounds", path),
        "window_s": need(found, "window_s", path),
        "shielded": found.get("shielded"),
        "settings": list(TRACE_SETTINGS),
        "summary": summary,
        "queue_b1_p50_overhead_us": overhead,
        "p50_us_min": min(latencies),
        "p50_us_max": max(latencies),
        "load": load_range(runs, [run["trace"]["core_share"]["others"] for run in runs]),
    }


def batcher(path: Path) -> dict:
    """What the handler page shows of the side-by-side benchmark: the file's summary (per
    measure the per-pair values, medians, new ÷ old, the target and whether it was met)."""
    found = read_json(path)
    runs = runs_of(found, path)
    summary = need(found, "summary", path)
    shown = {}
    for measure in (*BATCHER_MEASURES, *BATCHER_SECTIONS):
        if measure not in summary:
            raise DataError(f"{path}: missing field 'summary.{measure}'")
        shown[measure] = summary[measure]
    for measure in BATCHER_MEASURES:
        for version in VERSIONS:
            need(shown[measure], f"{version}.median", f"{path} summary.{measure}")
        need(shown[measure], "target", f"{path} summary.{measure}")
    others = [
        run["core_watch"]["others_share"]
        for run in runs
        if (run.get("core_watch") or {}).get("others_share") is not None
    ]
    return {
        **file_record(path),
        **machine(found, path),
        "versions": versions(found, runs, path),
        "smoke": bool(need(found, "smoke", path)),
        "pairs": need(found, "pairs", path),
        "window_s": need(found, "window_s", path),
        "shielded": found.get("shielded"),
        "summary": shown,
        "load": load_range(runs, others),
    }


def section(folder: Path | None) -> dict | None:
    """results.json `bench`: the folder, and each benchmark file found in it; None when the
    build has no bench folder."""
    if folder is None:
        return None
    folder = Path(folder)
    found = {"dir": shown_dir(folder)}
    if (folder / TRACE).exists():
        found["handler_trace"] = handler_trace(folder / TRACE)
    if (folder / BATCHER).exists():
        found["batcher"] = batcher(folder / BATCHER)
    return found
