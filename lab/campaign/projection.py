"""A profile's projected wall time and bytes, from seconds and bytes per run measured on a
short campaign of the same per-run machinery; `python -m lab run` prints it before it starts.

    python -m lab.campaign.projection --profile full3            # the projection
    python -m lab.campaign.projection --measure data/raw/CAMPAIGN # a campaign's measured split

A run's seconds are its overhead (the base metadata, the service's start, the quiet rule as
the profile applies it, each speed probe it takes, the client's start, the batches read and
the service stopped, the load snapshot when it sleeps, the file written) plus its timed part
(a Part B or switchback window and its drain, S's counted seconds with the client's warm-up,
Part A's calls, the bit check, Part C's records). MEASURED holds the parts as measured from
the timelines of a short campaign (lab/campaign/timeline.py; `--measure` prints them and
the constants to paste); the drain per rate is full-20261130's (its clients' wall time past
the window, as a share of the 8 s window: the drain scales with the window, SUMMARY A).
The campaign's start (the speed probe's calibration) is PROBE_CALIBRATION_S per probe plus
its quiet check. A profile with re-runs also gets its re-run budget's worst case.

Bytes per run: a fixed part (meta and zip) plus, for Part B and switchback runs, bytes per
scheduled request (rate × S × window) and the shared arrivals' bytes per request; the other
kinds their measured mean file. S is the short campaign's unless given.
"""

import argparse
import io
import math
import statistics
import sys
import zipfile
from pathlib import Path

from lab.campaign.executors.part_b import part_b_bits
from lab.campaign.schedule import build_schedule
from lab.design import PROFILES, Profile
from lab.rawformat import codec

# The parts, in seconds per run and bytes per file, for a QUIET host. Measured 2026-12-02 on
# a short campaign of full3's machinery (quick3, /work/notes/campaign3.md) with the machine
# loaded by other work (load average 10-17): there the steps that full3 keeps took 4-6× their
# quiet-host time (service start 1.19 s, client start 3.97 s, probe 0.38 s), so each step the
# first two campaigns also had is full-20261130's quiet-host figure (SUMMARY A: service start
# 0.19, client start 1.01 (S: 0.57), probe 0.08, the 0.48 s between runs); the steps that are
# new are measured on quick3 and divided by 4, the smallest of those ratios (conservative):
# the batches read and the service stopped with no sleep 0.31 / 4. The quiet check overlapped
# with the start costs its first try's rest, max(quiet_seconds − service start, 0), on a host
# where it passes first time (quick3: every check failed all its tries on the loaded host).
# Part A, bits, S and Part C: full-20261130's runs (timed part from its probe stamps).
MEASURED = {
    "meta_s": 0.03,
    "write_s": 0.37,  # with meta and stop: full-20261130's measured 0.48 s gap between runs
    "stop_s": 0.08,
    "probe_s": 0.08,
    "service_start_s": 0.19,
    "quiet_extra_s": 0.0,
    "client_start_s": {"saturation": 0.57, "part_b": 1.01, "switchback": 1.01, "part_c": 0.0},
    "child_start_s": {"part_a": 0.0, "bits": 0.0},
    "saturation_warmup_s": 1.0,
    "part_a_s_per_call": 23.4 / 2000,  # full-20261130: a Part A run between its probes
    "part_c_s_per_record": 36.3 / 10_000,  # the mean of its 5 runs between their probes
    "bits_s": 51.4,
    # Bytes (measured 2026-12-02, after the byte cuts of issue 29). Per Part B or switchback
    # file, the fixed part (meta, zip headers, the columns' members; service_gc added, quick3
    # predates it), keyed (send_lag_column, machine_per_run): quick3's files as written, and
    # stored again with the send lag folded and the machine's record named (/work/notes/c3.md).
    "fixed_bytes": {
        (True, True): {"part_b": 2928, "switchback": 3217},
        (False, False): {"part_b": 2398, "switchback": 2684},
    },
    # The columns' stored bytes per scheduled request per rate, keyed (window_s,
    # send_lag_column, significant bits of the per-request durations): `--column-bytes`
    # (column_bytes below) on full-20261130's round 0, cut to the window and stored again by
    # the codec; its 8 s runs with the column are what that campaign stored (5.147 bytes at
    # 0.5 × S). A 2 s run takes more per request than an 8 s one (each column's compressed
    # stream has its own start); the send lag column was 17-19% of the columns; 6 bits save
    # another 19-22%.
    "column_bytes_per_request": {
        (2.0, True, 8): {
            0.5: 5.704,
            0.8: 5.4,
            1.0: 5.132,
            1.25: 5.011,
            1.6: 4.769,
            2.0: 4.332,
            2.5: 3.512,
        },
        (2.0, False, 8): {
            0.5: 4.725,
            0.8: 4.477,
            1.0: 4.255,
            1.25: 4.146,
            1.6: 3.96,
            2.0: 3.572,
            2.5: 2.887,
        },
        (2.0, False, 6): {
            0.5: 3.832,
            0.8: 3.617,
            1.0: 3.435,
            1.25: 3.337,
            1.6: 3.185,
            2.0: 2.847,
            2.5: 2.245,
        },
        (8.0, True, 8): {
            0.5: 5.148,
            0.8: 5.0,
            1.0: 4.732,
            1.25: 4.592,
            1.6: 4.426,
            2.0: 3.792,
            2.5: 2.716,
        },
        (8.0, False, 8): {
            0.5: 4.242,
            0.8: 4.126,
            1.0: 3.906,
            1.25: 3.812,
            1.6: 3.678,
            2.0: 3.158,
            2.5: 2.338,
        },
    },  # fmt: skip
    # The shared arrivals 1.7 bytes per request and 300 per file; the other kinds
    # full-20261130's mean files.
    "arrivals_bytes": (300, 1.7),
    "bytes": {"part_a": 48_830, "bits": 1_200, "saturation": 22_015, "part_c": 190_077},
    "campaign_files_bytes": 300_000,  # campaign.json (~14 KB) and full3's schedule.json (270 KB)
    "saturation": 1177.25,  # S of full-20261130, the latest full campaign on this machine
}
# full-20261130, Part B first attempts: the client's wall time past the window ÷ the 8 s
# window, the mean over its 17 settings and 5 rounds at each rate.
DRAIN_SHARE = {0.5: 0.0, 0.8: 0.001, 1.0: 0.016, 1.25: 0.05, 1.6: 0.105, 2.0: 0.171, 2.5: 0.354}


def drain_share(rate: float) -> float:
    """The drain ÷ window at `rate` (nearest measured rate below it, 0 below the lowest)."""
    below = [r for r in DRAIN_SHARE if r <= rate]
    return DRAIN_SHARE[max(below)] if below else 0.0


SERVED = ("saturation", "part_b", "switchback", "part_c")  # the kinds that start a service
CHILD = ("part_a", "bits")  # the kinds timed in a child process, no service


def overhead_s(kind: str, profile: Profile, m: dict) -> float:
    """A run's seconds beyond its timed part, as the profile's machinery spends them."""
    seconds = m["meta_s"] + m["write_s"] + len(profile.probes) * m["probe_s"]
    if kind in CHILD:
        return seconds + profile.quiet_seconds + m["child_start_s"][kind]
    seconds += m["service_start_s"] + m["client_start_s"][kind] + m["stop_s"]
    if profile.quiet_mode == "before":
        seconds += profile.quiet_seconds
    elif profile.quiet_mode == "startup":  # the check's first try spans the service's start
        seconds += max(profile.quiet_seconds - m["service_start_s"], 0.0) + m["quiet_extra_s"]
    if not profile.load_after_overlapped:
        seconds += 0.5  # load_snapshot's own sleep
    return seconds


def timed_s(run: dict, profile: Profile, m: dict) -> float:
    """A run's timed part: its window and drain, counted seconds, calls or records."""
    kind = run["kind"]
    if kind in ("part_b", "switchback"):
        return run["window_s"] * (1 + drain_share(run["rate_multiple"]))
    if kind == "saturation":
        return run["counted_s"] + m["saturation_warmup_s"]
    if kind == "part_a":
        return m["part_a_s_per_call"] * run["calls_per_size"]
    if kind == "part_c":
        return m["part_c_s_per_record"] * run["records"]
    return m["bits_s"]


def requests(run: dict, saturation: float) -> float:
    return run["rate_multiple"] * saturation * run["window_s"]


def nearest(table: dict, value: float):
    return table[min(table, key=lambda key: abs(key - value))]


def run_bytes(run: dict, saturation: float, m: dict, profile: Profile) -> float:
    """A run's file: for Part B and switchback runs the fixed part as the profile stores it
    (with or without the send lag column and the machine's record) plus the columns' bytes
    per request at the nearest measured window (the shorter on a tie) and rate, as the
    profile stores them; the other kinds their mean file."""
    kind = run["kind"]
    if kind in ("part_b", "switchback"):
        stored = (profile.send_lag_column, profile.machine_per_run)
        bits = profile.part_b_request_bits if kind == "part_b" else 8
        windows = {w: t for (w, lag, b), t in sorted(m["column_bytes_per_request"].items())
                   if (lag, b) == (profile.send_lag_column, bits)}  # fmt: skip
        per_request = nearest(nearest(windows, run["window_s"]), run["rate_multiple"])
        return m["fixed_bytes"][stored][kind] + per_request * requests(run, saturation)
    return m["bytes"][kind]


def arrivals_bytes(schedule: list[dict], saturation: float, m: dict) -> float:
    """The shared arrivals: one file per round (or switchback index) and rate."""
    files = {}
    for run in schedule:
        if run["kind"] == "part_b":
            files[("r", run["round"], run["rate_multiple"])] = run
        elif run["kind"] == "switchback":
            files[("s", run["run_index"], run["rate_multiple"])] = run
    fixed, per_request = m["arrivals_bytes"]
    return sum(fixed + per_request * requests(run, saturation) for run in files.values())


def project(profile: Profile, saturation: float | None = None, m: dict | None = None) -> dict:
    """{minutes, bytes, by_kind {kind: {runs, minutes, bytes}}, reruns_minutes, saturation}:
    the profile's whole schedule (seed 1; the seed only orders runs), its calibration at the
    start, and for a profile with re-runs the worst case of its re-run budget apart."""
    m = MEASURED if m is None else m
    saturation = m["saturation"] if saturation is None else saturation
    schedule = build_schedule(profile, seed=1)
    by_kind = {}
    for run in schedule:
        entry = by_kind.setdefault(run["kind"], {"runs": 0, "seconds": 0.0, "bytes": 0.0})
        entry["runs"] += 1
        entry["seconds"] += overhead_s(run["kind"], profile, m) + timed_s(run, profile, m)
        entry["bytes"] += run_bytes(run, saturation, m, profile)
    calibration_s = profile.probe_calibration * (profile.quiet_seconds + m["probe_s"])
    seconds = sum(entry["seconds"] for entry in by_kind.values()) + calibration_s
    total_bytes = sum(e["bytes"] for e in by_kind.values()) + arrivals_bytes(
        schedule, saturation, m
    )
    total_bytes += m["campaign_files_bytes"]
    reruns_s = 0.0
    if profile.reruns:  # the worst case: the whole re-run budget, at a mean run's seconds
        budget = math.ceil(profile.slow_budget_share * len(schedule))
        reruns_s = budget * seconds / len(schedule)
    return {
        "profile": profile.name,
        "saturation": saturation,
        "runs": len(schedule),
        "minutes": seconds / 60,
        "calibration_minutes": calibration_s / 60,
        "reruns_minutes": reruns_s / 60,
        "bytes": total_bytes,
        "by_kind": {
            kind: {"runs": e["runs"], "minutes": e["seconds"] / 60, "bytes": e["bytes"]}
            for kind, e in by_kind.items()
        },  # fmt: skip
        "minutes_budget": profile.minutes_budget,
        "bytes_budget": profile.bytes_budget,
    }


def describe(found: dict) -> str:
    """The projection in a few lines, for `lab run` to print before it starts."""
    mib = found["bytes"] / 2**20
    lines = [
        f"projected: {found['minutes']:.0f} min and {mib:.1f} MiB for {found['runs']} runs "
        f"(at S = {found['saturation']:.0f}/s; seconds and bytes per run measured on a "
        "short campaign, lab/campaign/projection.py)"
    ]
    parts = ", ".join(f"{kind} {e['runs']} runs {e['minutes']:.1f} min {e['bytes'] / 2**20:.1f} MiB"
                      for kind, e in found["by_kind"].items())  # fmt: skip
    lines.append(f"  {parts}; the speed probe's calibration {found['calibration_minutes']:.1f} min")
    if found["reruns_minutes"]:
        lines.append(f"  plus up to {found['reruns_minutes']:.0f} min of re-runs (its budget)")
    budget = found["minutes_budget"]
    over = []
    if budget is not None and found["minutes"] + found["reruns_minutes"] > budget:
        over.append(f"over its {budget:g} min")
    if found["bytes"] > found["bytes_budget"]:
        over.append(f"over its {found['bytes_budget'] / 2**20:g} MiB")
    if over:
        lines.append(f"  WARNING: the projection is {' and '.join(over)}")
    elif budget is not None:
        lines.append(f"  within its budget: {budget:g} min, {found['bytes_budget'] / 2**20:g} MiB")
    return "\n".join(lines)


# --- measuring the parts from a short campaign's timelines ------------------------------------


def steps(meta: dict) -> dict:
    """One run's seconds by step, from its timeline and its client's own wall time."""
    marks = meta["timeline"]["marks"]
    kind = meta["kind"]
    found = {"meta": marks["meta"]}
    before_quiet = marks.get("service_ready", marks["meta"])
    if "service_ready" in marks:
        found["service_start"] = marks["service_ready"] - marks["meta"]
    after_quiet = marks.get("quiet", before_quiet)
    found["quiet"] = after_quiet - before_quiet
    client_start = marks["client_start"]
    found["probe_before"] = client_start - after_quiet  # 0 when the profile takes none
    client = marks["client_done"] - client_start
    if kind in ("part_b", "switchback", "saturation"):  # the client's own wall time
        wall = (
            meta["client"]["wall_s"] if "client" in meta else meta["counted_s"] + meta["warmup_s"]
        )
        found["client_start"] = client - wall
        found["window"] = meta.get("window_s", meta.get("counted_s"))
        found["drain"] = wall - found["window"]
    else:
        found["timed"] = client
    after_client = marks.get("probe_after", marks["client_done"])
    found["probe_after"] = after_client - marks["client_done"]
    stopped = marks.get("service_stopped", after_client)
    found["stop"] = stopped - after_client
    found["tail"] = marks["measured"] - stopped
    return found


def column_bytes(
    folder: Path, window_s: float, send_lag_column: bool, request_bits: int = 8, rounds=(0,)
) -> dict:
    """{rate: stored column bytes per scheduled request} of a campaign's Part B runs (first
    attempts of `rounds`) cut to their first `window_s` seconds of arrivals (their batches cut
    to the share of requests kept) and stored again by the codec as a profile stores them:
    with or without the send lag column, the per-request durations at `request_bits`
    significant bits (LZMA members as written; the arrivals are shared)."""
    bits = part_b_bits(request_bits)
    found: dict = {}
    for path in codec.run_files(folder):
        if "@" in path.name or not path.name.startswith("part_b-"):
            continue
        meta, columns = codec.read_run(path)
        if meta["round"] not in rounds:
            continue
        kept = columns.pop("arrival_us") < window_s * 1e6
        share = kept.mean() if len(kept) else 0.0
        cut = {}
        for name, values in columns.items():
            if name == "send_lag_us" and not send_lag_column:
                continue
            whole = len(values) == len(kept)
            cut[name] = values[kept] if whole else values[: round(share * len(values))]
        members = {f"{name}.col": codec.encode_column(values, bits.get(name, 0))[1]
                   for name, values in cut.items()}  # fmt: skip
        stored = zipfile.ZipFile(io.BytesIO(codec.zip_members(members))).infolist()
        entry = found.setdefault(meta["rate_multiple"], [0, 0])
        entry[0] += sum(info.compress_size for info in stored)
        entry[1] += int(kept.sum())
    return {rate: total / requests for rate, (total, requests) in sorted(found.items())}


def measure(folder: Path) -> dict:
    """{kind: {step: [seconds per run]}} and per kind the file sizes, requests and S, from
    every run of a campaign with timelines; `write` is the gap to the next run's start."""
    metas = [(codec.read_meta(path), path) for path in codec.run_files(folder)]
    metas.sort(key=lambda item: item[0]["timeline"]["start"])
    by_kind: dict = {}
    for index, (meta, path) in enumerate(metas):
        kind = by_kind.setdefault(meta["kind"], {"steps": {}, "bytes": [], "requests": []})
        for step, seconds in steps(meta).items():
            kind["steps"].setdefault(step, []).append(seconds)
        if index + 1 < len(metas):
            end = meta["timeline"]["start"] + meta["timeline"]["marks"]["measured"]
            gap = metas[index + 1][0]["timeline"]["start"] - end
            kind["steps"].setdefault("write", []).append(gap)
        kind["bytes"].append(path.stat().st_size)
        kind["requests"].append((meta.get("client") or {}).get("requests", 0))
    return by_kind


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(PROFILES), default="full3")
    parser.add_argument("--saturation", type=float, default=None, help="S, answers/s")
    parser.add_argument("--measure", type=Path, help="a campaign folder with timelines")
    parser.add_argument(
        "--column-bytes",
        type=Path,
        metavar="CAMPAIGN",
        help="its Part B runs (round 0) cut to the profile's window and stored "
        "again as the profile stores them: column bytes per request per rate",
    )
    args = parser.parse_args(argv)
    if args.column_bytes:
        profile = PROFILES[args.profile]
        for rate, per_request in column_bytes(
            args.column_bytes, profile.window_s, profile.send_lag_column,
            profile.part_b_request_bits,
        ).items():  # fmt: skip
            print(f"{rate}: {per_request:.3f} bytes per request")
        return 0
    if args.measure:
        for kind, entry in measure(args.measure).items():
            mean = statistics.mean(entry["bytes"])
            print(f"{kind}: {len(entry['bytes'])} runs, mean file {mean:,.0f} bytes")
            for step, values in entry["steps"].items():
                print(f"  {step:<14} median {statistics.median(values):8.3f} s  "
                      f"mean {statistics.mean(values):8.3f} s")  # fmt: skip
        return 0
    print(describe(project(PROFILES[args.profile], args.saturation)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
