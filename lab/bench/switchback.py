"""Switchback runs (issue 28, item 7): two settings inside one service process, in alternating
slices of one open-loop run, against A/A controls and a known added amount of work. A
benchmark, not a test.

    [setsid -w] python -m lab.bench.switchback --cpu 1 [--runs 40] [--aa-runs 40]
        [--added-work-runs 20] [--independent-aa-runs 20]
        [--window-s 8] [--rate 0.5] [--slice-s 0.5] [--saturation S] [--seed 1]
        [--probe MODULE:FUNCTION] [--nice N] [--quick] [--out data/bench/switchback.json]

Every run is one fresh two-armed service (lab/service/switchback.py, forked by the pre-loaded
launcher and moved to the measurement core) and one open-loop client pinned there too
(`python -m lab openloop --slice-s … --first-arm …`), Poisson arrivals at rate × S for
window_s seconds: each request goes to the arm (A or B) of the slice it is scheduled in, the
slices alternating from a first arm drawn per run from a seeded generator. From 2026-12-02
the slices are twins (`--twin-slices`): each second slice repeats the arrivals of the slice
before it, so both arms of a run meet the same traffic. The runs:

- `none vs B=1 W=0, twin slices` and `B=32 W=0 vs B=32 W=1, twin slices`, --runs each (queue
  B=1's cost, the W = 1 ms wait's cost);
- `none vs none, twin slices`, an A/A control (--aa-runs), and `none vs none +50 µs, twin
  slices`, `none vs none +150 µs, twin slices`, A/A with arm B's handler spinning that many µs
  per request (the service's --added-work-us-b, which exists for this calibration check only;
  how it spins is the file's `added_work_spin`), --added-work-runs each;
- `none vs none`, the A/A control in independent slices (--independent-aa-runs), so the file
  shows what twin slices save, side by side.

They are interleaved: index by index, the comparisons still owed a run at that index in a
seeded random order; all runs of one index meet the same arrivals (the twin ones repeat the
independent one's first slice of each pair). S is measured at the start
by the closed loop (16 connections, no batching: the median of three runs of window_s, each
against a fresh service) unless --saturation
gives it. The benchmark itself stays off the measurement core. --probe MODULE:FUNCTION (e.g.
`lab.bench.sidebyside:probe_on_core`) is called with the core right before and right after
every run; --nice shields the session on a shared machine (lab.bench.sidebyside.shield).
--quick: 2 runs each with 2 s windows (and S from a 2 s closed loop), for a test.

The file holds per-run summaries only (the generator computes the intervals from them; the
lab does not import the generator). Keys:

- `what`, `command`, `date`, `git_commit`, `fingerprint`, `cpu`, `nice`, `shielded`,
  `probe` (the probe's name or null), `seed`, `smoke` (true when the runs are too few or too
  short to read numbers from: fewer than 40 / 40 / 10 runs or windows under 8 s);
- `rule`: the told-apart rule the runs are judged by, as lab/design.py states it when they
  run (its 2026-12-01 note; what a campaign freezes as `rules.told_apart`): `rule`, `text`,
  `confidence`, `same_within_confidence`, `delta` (log units per statistic);
- `saturation_S` (answers per second), `saturation_measured` (the median closed loop's stats,
  with `loops_throughput`, every loop's S in order (from 2026-12-02; one loop before), or null
  when --saturation gave S), `rate_multiple`, `arrival_rate` (per second), `window_s`,
  `slice_s`, `drain_s`; `added_work_spin`, how arm B's added work spins (lab/service/arms.py
  `SPIN`; absent before 2026-12-02's fifth benchmark: until then the spins came before the row
  lookup, to a thread-CPU deadline in the third and fourth, to the clock before them);
- `pairs`: each comparison, `name`, `arm_a`, `arm_b` (setting records), `added_work_us_b`, and
  `runs` (how many it was given);
- `runs`: in the order run, each: `pair` (its name), `index` (all pairs of one index met the
  same arrivals), `seed` (of the arrivals), `first_arm` (`a` or `b`), `swap_routes` (true: route
  a served arm B and route b arm A, drawn per run; absent in files from before 2026-12-02, whose
  runs all had routes a -> A, b -> B), `slices`, `arms`: for `a` and `b`, `requests` (scheduled
  in its slices), `answered` (status 200), `p50_us`, `p99_us` (latency from the scheduled
  arrival, nearest rank, a request not answered with 200 counting as infinitely late: null when
  the percentile falls on one), `server_us_p50` (median of ready + queued + model from
  Server-Timing, answered requests), `ready_us_p50` (median of the `ready` stage alone, where
  added work lands; absent before 2026-12-02's third benchmark), `batch_mean` (mean rows per
  model call its answers were scored in), `batches`, `batches_unfilled` and
  `unfilled_first_wait_us_p50` (the arm's micro-batcher's batches after the window, those
  smaller than its B, and their median first wait: minus W, the overshoot; 0 batches for batcher
  none; absent before 2026-12-02); on an arm with added work, `added_work_spins` and
  `added_work_wall_us_p50` (how many spins the service made in the run and their median wall
  time, the added amount as the core delivered it; from 2026-12-02's third benchmark); `client`:
  `cpu_us_per_request`, `dispatch_lag_us_p99`, `never_answered`, `non_200`, `answers_compared`,
  `answers_differing` (every answer checked to the bit); `others_share` (the share of the core
  anything else took during the run); `load_before`, `load_after` (`loadavg1`, `idle_share`,
  `steal_share` of the core); `probe_before`, `probe_after` (the --probe's results, or null).

- `example`: one run's requests, for the picture of the alternating slices: the first A/A run
  (`none vs none`, the lowest index); `file` (a `.run.zip` beside the JSON, written by
  lab.rawformat.codec, columns `arrival_us` (from the window start), `arm` (0 = A, 1 = B),
  `latency_us` (from the scheduled arrival, −1 when never answered) and `status`, all exact),
  `sha256` (of that file), `pair`, `index`, `requests`.

d = ln(statistic of B) − ln(statistic of A) per run for p50, p99, server_us_p50 and
ready_us_p50 is printed at the end with its median and SD over runs per comparison, as a first
look only.
About 33 minutes with the defaults (180 runs of about 11 s after three closed loops for S, as
the run of 2026-12-02 11:55-12:28 took at S = 691); `--runs 60` about 41 minutes (220 runs,
2026-12-02 12:36-13:17 at S = 484).
"""

import argparse
import datetime
import json
import math
import statistics
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lab.bench.batcher import load_probe, unfilled_first_waits_us
from lab.bench.sidebyside import NICE_HELP, Machinery, latency_percentiles_us, shield
from lab.campaign.description import told_apart
from lab.campaign.runner import pin_runner_away_from
from lab.design import NONE, QUEUE_B1, SWITCHBACK_SLICE_S, Setting, Switchback
from lab.load.arrivals import switchback_seed
from lab.machine.core_watch import CoreWatch
from lab.machine.fingerprint import fingerprint, git_commit
from lab.machine.quiet import load_snapshot
from lab.model import expected
from lab.paths import DATA
from lab.rawformat import codec
from lab.service.arms import ARMS, SPIN
from lab.service.launcher import Launcher
from lab.servicespec import ServiceSpec

OUT = DATA / "bench" / "switchback.json"
BENCH = "bench-switchback"  # names the arrival seeds
SATURATION_CONNECTIONS = 16
SATURATION_RUNS = 3
# Every pair in twin slices (from 2026-12-02): the two arms of a run meet the same traffic.
COMPARISONS = (
    Switchback(NONE, QUEUE_B1, twin_slices=True),
    Switchback(Setting("queue", 32, 0.0), Setting("queue", 32, 1.0), twin_slices=True),
)
CONTROLS = (
    Switchback(NONE, NONE, twin_slices=True),
    Switchback(NONE, NONE, 50.0, twin_slices=True),
    Switchback(NONE, NONE, 150.0, twin_slices=True),
)
# The A/A control in independent slices too (the design before twin slices), side by side
# with the twin one in the same run: what the twins save, measured.
INDEPENDENT_AA = Switchback(NONE, NONE)
# key of an arm's value: its short name
STATISTICS = {"p50_us": "p50", "p99_us": "p99", "server_us_p50": "server", "ready_us_p50": "ready"}
QUICK = {"runs": 2, "aa_runs": 2, "added_work_runs": 2, "independent_aa_runs": 2,
         "window_s": 2.0}  # fmt: skip
FULL = {"runs": 40, "aa_runs": 40, "added_work_runs": 20, "independent_aa_runs": 20,
        "window_s": 8.0}  # fmt: skip
LOAD_KEYS = ("idle_share", "steal_share")
EXAMPLE_PAIR = CONTROLS[0]  # the run whose requests are kept: the first A/A run
EXAMPLE_COLUMNS = {"arrival_us": np.uint32, "arm": np.uint8, "latency_us": np.int32,
                   "status": np.uint16}  # fmt: skip


class Planned(NamedTuple):
    index: int
    pair: Switchback
    first_arm: str
    swap_routes: bool


def run_counts(runs: int, aa_runs: int, added_work_runs: int,
               independent_aa_runs: int = 0) -> dict[Switchback, int]:  # fmt: skip
    """How many runs each pair gets: the comparisons `runs`, the A/A control `aa_runs`, each
    added amount `added_work_runs`, the A/A control in independent slices
    `independent_aa_runs` (left out when 0)."""
    aa, *added = CONTROLS
    counts = ({pair: runs for pair in COMPARISONS} | {aa: aa_runs}
              | {pair: added_work_runs for pair in added})  # fmt: skip
    if independent_aa_runs:
        counts[INDEPENDENT_AA] = independent_aa_runs
    return counts


def plan(runs: int, aa_runs: int, seed: int, added_work_runs: int | None = None,
         independent_aa_runs: int = 0) -> list[Planned]:  # fmt: skip
    """Every run, in the order run: index by index, the pairs still owed a run at that index
    shuffled, each run's first arm drawn and whether its routes are swapped (route a serving
    arm B, so a route's place falls on both arms alike). `added_work_runs` defaults to
    `aa_runs`."""
    added = aa_runs if added_work_runs is None else added_work_runs
    counts = run_counts(runs, aa_runs, added, independent_aa_runs)
    planned = []
    for index in range(max(counts.values(), default=0)):
        due = [pair for pair, count in counts.items() if index < count]
        rng = np.random.default_rng([seed, index])
        order, firsts = rng.permutation(len(due)), rng.integers(0, 2, len(due))
        swaps = rng.integers(0, 2, len(due))  # drawn after: order and first arms unchanged
        planned += [Planned(index, due[i], ARMS[first], bool(swap))
                    for i, first, swap in zip(order, firsts, swaps, strict=True)]  # fmt: skip
    return planned


def finite_or_none(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def unfilled_first_waits(batches: dict, max_batch: int) -> dict:
    """The batches of one arm's micro-batcher (GET /arm/<route>/batches after the window):
    how many, and the median first wait of those that did not fill (µs; None without one)."""
    waits = unfilled_first_waits_us(batches, max_batch)
    return {
        "batches": len(batches["size"]),
        "batches_unfilled": len(waits),
        "unfilled_first_wait_us_p50": float(np.median(waits)) if waits else None,
    }


def added_work_wall(batches: dict) -> dict:
    """The arm's added work as its spins took on the clock ({} for an arm without any)."""
    added = batches.get("added_work")
    if added is None:
        return {}
    return {"added_work_spins": added["spins"], "added_work_wall_us_p50": added["wall_us_p50"]}


def arm_summary(columns: dict, arm: int) -> dict:
    """One arm's statistics in one run (see the module's docstring)."""
    chosen = columns["arm"] == arm
    answered = chosen & (columns["status"] == 200)
    percentiles = {"p50": math.inf, "p99": math.inf}  # an arm without requests has none
    if chosen.any():
        of_arm = {key: columns[key][chosen] for key in ("latency_us", "status")}
        percentiles = latency_percentiles_us(of_arm)
    moments = ("ready_us", "queued_us", "model_us")  # they add up (lab/service/server_timing.py)
    server = sum(columns[k][answered].astype(np.int64) for k in moments)
    return {
        "requests": int(chosen.sum()),
        "answered": int(answered.sum()),
        "p50_us": finite_or_none(percentiles["p50"]),
        "p99_us": finite_or_none(percentiles["p99"]),
        "server_us_p50": float(np.median(server)) if answered.any() else None,
        # the stage the added work lands in (lab/service/switchback.py): its known effect is
        # judged there too, apart from what the work does to the stages after it
        "ready_us_p50": (
            float(np.median(columns["ready_us"][answered])) if answered.any() else None
        ),
        "batch_mean": (
            round(float(columns["batch_size"][answered].mean()), 3) if answered.any() else None
        ),
    }


def log_ratio(run: dict, key: str) -> float | None:
    """d = ln(B) − ln(A) of one statistic in one run (None when either is missing)."""
    a, b = run["arms"]["a"][key], run["arms"]["b"][key]
    return math.log(b / a) if a and b else None


def trimmed_load(snapshot: dict) -> dict:
    return {"loadavg1": snapshot["loadavg"][0], **{k: snapshot[k] for k in LOAD_KEYS}}


class Bench:
    def __init__(self, launcher: Launcher, machinery: Machinery, cpu: int, probe, options: dict):
        self.launcher = launcher
        self.machinery = machinery
        self.cpu = cpu
        self.probe = probe
        self.options = options  # rate_multiple, window_s, slice_s, drain_s, arrival_rate

    def _probe(self) -> dict | None:
        return self.probe(self.cpu) if self.probe is not None else None

    def saturation(self, seconds: float) -> dict:
        """The closed loop's stats against a fresh `none` service (S = `throughput`)."""
        with self.launcher.service(ServiceSpec(NONE), cpu=self.cpu) as service:
            return self.machinery.closedloop(
                service.port, seconds, SATURATION_CONNECTIONS, self.cpu
            )

    def run(self, planned: Planned) -> tuple[dict, dict]:
        """(the run's summary, its columns)."""
        options, pair = self.options, planned.pair
        seed = switchback_seed(BENCH, planned.index, options["rate_multiple"])
        found = {"pair": pair.name, "index": planned.index, "seed": seed,
                 "first_arm": planned.first_arm, "swap_routes": planned.swap_routes,
                 "probe_before": self._probe(),
                 "load_before": trimmed_load(load_snapshot(self.cpu))}  # fmt: skip
        service = self.launcher.service(pair.service_spec(planned.swap_routes), cpu=self.cpu)
        extra = ("--slice-s", str(options["slice_s"]), "--first-arm", planned.first_arm)
        extra += ("--swap-routes",) if planned.swap_routes else ()
        extra += ("--twin-slices",) if pair.twin_slices else ()
        with service:
            with CoreWatch(self.cpu, service.pid) as watch:
                meta, columns = self.machinery.openloop(
                    service.port, options["arrival_rate"], options["window_s"], seed, self.cpu,
                    options["drain_s"], extra=extra,
                )  # fmt: skip
            batches = {name: service.batches(name) for name in ARMS}
        stats = meta["stats"]
        settings = {"a": pair.arm_a, "b": pair.arm_b}
        found.update(
            slices=stats["slices"],
            arms={
                name: arm_summary(columns, arm)
                | unfilled_first_waits(batches[name], settings[name].max_batch)
                | added_work_wall(batches[name])
                for arm, name in enumerate(ARMS)
            },
            client={
                "cpu_us_per_request": stats["client_cpu_us_per_request"],
                "dispatch_lag_us_p99": stats["dispatch_lag_us_p99"],
                "never_answered": stats["never_answered"],
                "non_200": stats["non_200"],
                "answers_compared": stats["answers_compared"],
                "answers_differing": stats["answers_differing"],
            },
            others_share=watch.found["others_share"],
            load_after=trimmed_load(load_snapshot(self.cpu)),
            probe_after=self._probe(),
        )
        return found, columns


def progress_line(number: int, total: int, run: dict) -> str:
    arms = run["arms"]
    ratios = {short: log_ratio(run, key) for key, short in STATISTICS.items()}
    shown = ", ".join(f"d {short} {d:+.3f}" if d is not None else f"d {short} -"
                      for short, d in ratios.items())  # fmt: skip
    p50 = "/".join(f"{(arms[n]['p50_us'] or math.nan) / 1000:.2f}" for n in ARMS)
    return (
        f"[{number}/{total}] {run['pair']} #{run['index']} first {run['first_arm']}"
        f"{', routes swapped' if run['swap_routes'] else ''}: "
        f"p50 A/B {p50} ms; {shown}; client {run['client']['cpu_us_per_request']:.1f} µs/request, "
        f"{run['client']['answers_differing']} answers differ"
    )


def first_look(runs: list[dict]) -> dict:
    """Per pair and statistic: runs, median and SD of d over runs (printed, not stored)."""
    found = {}
    for name in dict.fromkeys(run["pair"] for run in runs):
        of_pair = [run for run in runs if run["pair"] == name]
        found[name] = {}
        for key in STATISTICS:
            values = [d for run in of_pair if (d := log_ratio(run, key)) is not None]
            found[name][key] = {
                "runs": len(values),
                "median_d": round(statistics.median(values), 4) if values else None,
                "sd_d": round(statistics.stdev(values), 4) if len(values) > 1 else None,
            }
    return found


def run_bench(cpu=1, runs=40, aa_runs=40, added_work_runs=20, window_s=8.0, rate_multiple=0.5,
              slice_s=SWITCHBACK_SLICE_S, saturation=None, drain_s=30.0, seed=1, probe=None,
              nice=0, independent_aa_runs=20) -> dict:  # fmt: skip
    """Run every switchback run and return what switchback.json holds."""
    shielded = shield(nice)
    runner_cores = pin_runner_away_from(cpu)
    expected.ensure()  # the clients' bit check, made here and not on the measurement core
    planned = plan(runs, aa_runs, seed, added_work_runs, independent_aa_runs)
    with Launcher(cores=runner_cores or None) as launcher, Machinery("switchback") as machinery:
        bench = Bench(launcher, machinery, cpu, probe, {})
        measured = None
        if saturation is None:
            # The median of SATURATION_RUNS closed loops: one alone can land in a fast spell of
            # the host (2026-12-02: S = 801/s in one loop while the probe read the host as on
            # the evening before, S = 559/s), and 0.5 × S then runs at about 0.7 × S.
            loops = sorted((bench.saturation(window_s) for _ in range(SATURATION_RUNS)),
                           key=lambda found: found["throughput"])  # fmt: skip
            measured = dict(loops[len(loops) // 2],
                            loops_throughput=[found["throughput"] for found in loops])  # fmt: skip
            saturation = measured["throughput"]
            shown = ", ".join(f"{value:.1f}" for value in measured["loops_throughput"])
            print(f"S = {saturation:.1f} answers/s (median of closed loops of {window_s:g} s: "
                  f"{shown})", flush=True)  # fmt: skip
        bench.options = {"rate_multiple": rate_multiple,
                         "arrival_rate": rate_multiple * saturation, "window_s": window_s,
                         "slice_s": slice_s, "drain_s": drain_s}  # fmt: skip
        done, example = [], None
        for number, run in enumerate(planned, start=1):
            summary, columns = bench.run(run)
            done.append(summary)
            if example is None and run.pair == EXAMPLE_PAIR:
                example = (summary, columns)
            print(progress_line(number, len(planned), done[-1]), flush=True)
    counts = run_counts(runs, aa_runs, added_work_runs, independent_aa_runs)
    return {
        "what": __doc__.splitlines()[0],
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "fingerprint": fingerprint(),
        "smoke": (
            runs < FULL["runs"]
            or aa_runs < FULL["aa_runs"]
            or added_work_runs < FULL["added_work_runs"]
            or independent_aa_runs < FULL["independent_aa_runs"]
            or window_s < FULL["window_s"]
        ),
        "cpu": cpu,
        "nice": nice,
        "shielded": shielded,
        "probe": getattr(probe, "__name__", None),
        "seed": seed,
        "rule": told_apart(),
        "saturation_S": saturation,
        "saturation_measured": measured,
        "added_work_spin": SPIN,
        **bench.options,
        "pairs": [{**pair.as_dict(), "runs": count} for pair, count in counts.items()],
        "runs": done,
        "example": example,  # (summary, columns): main writes its file and replaces it
    }


def example_file(out: Path) -> Path:
    """Where the example run's requests go: beside the JSON, `<stem>.example.run.zip`."""
    return out.with_name(f"{out.stem}.example{codec.SUFFIX}")


def write_example(out: Path, example: tuple[dict, dict] | None) -> dict | None:
    """Write one run's requests (arrival, arm, latency, status; exact) beside the JSON and
    return what the JSON says of it; None when no A/A run was made."""
    if example is None:
        return None
    summary, columns = example
    path = example_file(out)
    kept = {name: np.asarray(columns[name]).astype(dtype)
            for name, dtype in EXAMPLE_COLUMNS.items()}  # fmt: skip
    meta = {"kind": "switchback", "what": "one switchback run's requests (bench/switchback.json)",
            "pair": summary["pair"], "index": summary["index"], "seed": summary["seed"],
            "first_arm": summary["first_arm"], "slices": summary["slices"]}  # fmt: skip
    codec.write_run(path, meta, kept)
    return {
        "file": path.name,
        "sha256": codec.sha256_bytes(path.read_bytes()),
        "pair": summary["pair"],
        "index": summary["index"],
        "requests": int(len(kept["arrival_us"])),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cpu", type=int, default=1, help="the measurement core")
    parser.add_argument("--runs", type=int, default=None, help="runs of each comparison (40)")
    parser.add_argument("--aa-runs", type=int, default=None,
                        help="runs of the A/A control (40: enough to tell a route's place "
                        "from chance)")  # fmt: skip
    parser.add_argument("--added-work-runs", type=int, default=None,
                        help="runs of each added amount (20)")  # fmt: skip
    parser.add_argument("--independent-aa-runs", type=int, default=None,
                        help="runs of the A/A control in independent slices, beside the twin "
                        "ones (20; 0 leaves it out)")  # fmt: skip
    parser.add_argument("--window-s", type=float, default=None, help="seconds of arrivals (8)")
    parser.add_argument("--rate", type=float, default=0.5, help="arrival rate, a multiple of S")
    parser.add_argument("--slice-s", type=float, default=SWITCHBACK_SLICE_S, help="slice length")
    parser.add_argument("--saturation", type=float, default=None,
                        help="S in answers/s (default: measured at the start)")  # fmt: skip
    parser.add_argument(
        "--drain-s", type=float, default=30.0, help="longest wait for answers after a window"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the order and first arms")
    parser.add_argument("--probe", default=None, help="MODULE:FUNCTION, called with the core")
    parser.add_argument("--nice", type=int, default=0, help=NICE_HELP)
    parser.add_argument("--quick", action="store_true",
                        help="2 runs each, 2 s windows (a smoke run, for a test)")  # fmt: skip
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"where the JSON goes (default: {OUT})"
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    runs = args.runs if args.runs is not None else sizes["runs"]
    aa_runs = args.aa_runs if args.aa_runs is not None else sizes["aa_runs"]
    added_work_runs = (
        args.added_work_runs if args.added_work_runs is not None else sizes["added_work_runs"]
    )
    independent_aa_runs = (
        args.independent_aa_runs
        if args.independent_aa_runs is not None
        else sizes["independent_aa_runs"]
    )
    window_s = args.window_s if args.window_s is not None else sizes["window_s"]
    found = run_bench(args.cpu, runs, aa_runs, added_work_runs, window_s, args.rate, args.slice_s,
                      args.saturation, args.drain_s, args.seed, load_probe(args.probe),
                      args.nice, independent_aa_runs)  # fmt: skip
    found["command"] = "python -m lab.bench.switchback " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    found["example"] = write_example(args.out, found["example"])
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True, allow_nan=False) + "\n")
    print(json.dumps(first_look(found["runs"]), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
