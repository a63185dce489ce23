"""Side by side, the old machinery (a past commit) and this one: service, micro-batcher and
load clients, interleaved on the same core and the same arrivals. A benchmark, not a test.

    [setsid -w] python -m lab.bench.batcher [--cpu 1] [--pairs 5] [--window-s 8]
        [--old 903928e] [--saturation S | --measure-saturation [--rates-per-pair]]
        [--probe MODULE:FUNCTION] [--nice N] [--out data/bench/batcher.json]

Each pair makes every measurement once with each version (which version goes first
alternates from pair to pair), each on a fresh service pinned to the measurement core with
that version's own load client pinned there too, one thread each, as the campaign runner
does; both versions meet the very same arrivals (seeded by pair and rate). Rates are
multiples of S, the published campaign's unless --saturation is given, so both versions are
offered the same traffic. With --rates-per-pair, S is measured again at the start of every
pair (one closed loop of none, this machinery, recorded as a run of kind `reference`) and
that pair's rates are multiples of it: on a shared host whose speed moves by minutes, a
rate fixed at the start can be 2.6-3.3 times the S of a pair it runs in (issue 33, the
ceiling bench of 2 December). Per pair and version:

- open loop at 0.5 × S with none and queue B=1: queue B=1's p50 minus none's;
- open loop at 0.5 × S with B=32 W=1: the W = 1 ms overshoot, the median first wait of the
  batches that did not fill, minus 1 ms (from the service's /batches);
- closed loop: S (none, 16 connections) and the batched capacity (B=32 W=0 and B=128 W=0,
  128 connections), answers per second;
- open loop at 2 × S and 2.5 × S with none, B=32 W=0 and B=128 W=0: throughput (the
  generator's definition), kept up (≥ 95% of the arrival rate), and the best batched
  setting's throughput ÷ none's;
- in every open-loop run, the client's CPU per request (and, new client only, every answer
  checked to the bit).

A speed probe (issue 13: a short fixed workload timed on the measurement core) can be hooked
in with --probe MODULE:FUNCTION (or `probe=` in `run_bench`): a callable taking the core and
returning a dict, called right before and right after every run; its results are kept with
the run. Every run also records the machine's load before and after it and the share of the
core other processes took while it ran (`setsid -w … --nice -10`, as root, shields both
versions alike from other work on a shared machine: lab.bench.sidebyside.shield). A run with
windows shorter than 8 s or fewer than five pairs is marked `"smoke": true`: it shows the
bench works, not what the numbers are.

About 40 minutes with the defaults (5 pairs × 2 versions × 12 runs of ~10-20 s each).
"""

import argparse
import datetime
import importlib
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lab.bench import sidebyside
from lab.bench.sidebyside import (
    NICE_HELP,
    Machinery,
    campaign_saturation,
    latency_percentiles_us,
    shield,
)
from lab.design import KEEPS_UP_SHARE
from lab.load.arrivals import arrival_seed
from lab.machine.core_watch import CoreWatch
from lab.machine.fingerprint import fingerprint
from lab.machine.quiet import load_snapshot
from lab.paths import DATA
from lab.servicespec import NONE, QUEUE_B1, Setting

OUT = DATA / "bench" / "batcher.json"
CAMPAIGN = "full-20261129"
OLD_COMMIT = "903928e"
B32_W1 = Setting("queue", 32, 1.0)
B32_W0 = Setting("queue", 32, 0.0)
B128_W0 = Setting("queue", 128, 0.0)
# (name, setting, rate multiple) of every open-loop run, and of every closed-loop run
OPEN_LOOP = (
    ("none", NONE, 0.5), ("queue B=1", QUEUE_B1, 0.5), ("B=32 W=1", B32_W1, 0.5),
    ("none", NONE, 2.0), ("B=32 W=0", B32_W0, 2.0), ("B=128 W=0", B128_W0, 2.0),
    ("none", NONE, 2.5), ("B=32 W=0", B32_W0, 2.5), ("B=128 W=0", B128_W0, 2.5),
)  # fmt: skip
CLOSED_LOOP = (("none", NONE, 16), ("B=32 W=0", B32_W0, 128), ("B=128 W=0", B128_W0, 128))
TARGETS = {
    "queue_b1_p50_overhead_us": {"at_most": 244, "stretch": 100},
    "w1_overshoot_us": {"at_most": 85, "stretch": 50},
    "best_batched_over_none_at_2.5": {"at_least": 2.62},
    "b32_w0_kept_up_at_2": {"all_pairs": True},
    # issue 33: the batching ceiling, measured in the same pair
    "best_batched_share_of_ceiling": {"at_least": 0.90, "stretch": 0.95},
}
CLIENT_KEYS = ("requests", "answered", "never_answered", "non_200", "client_cpu_us_per_request",
               "client_user_us_per_request", "client_system_us_per_request",
               "dispatch_lag_us_p50", "answers_compared", "answers_differing", "event_loop",
               "answer_clock")  # fmt: skip
# S at each pair's start (--rates-per-pair): none's closed loop, as S itself is measured
REFERENCE = CLOSED_LOOP[0]


def throughput(columns: dict, window_s: float) -> float:
    """Status-200 answers per second over max(window, last answer), as
    generator/arithmetic/stats.py."""
    answered = (columns["status"] == 200) & (columns["latency_us"] >= 0)
    if not answered.any():
        return 0.0
    done_us = columns["arrival_us"][answered].astype(np.int64) + columns["latency_us"][answered]
    return int(answered.sum()) / max(window_s, float(done_us.max()) / 1e6)


def unfilled_first_waits_us(batches: dict, max_batch: int) -> list[int]:
    """The first waits (µs) of the batches (GET /batches) that did not fill, smaller than B."""
    return [wait for size, wait in zip(batches["size"], batches["first_wait_us"], strict=True)
            if size < max_batch]  # fmt: skip


def overshoot_us(batches: dict, max_batch: int, max_wait_ms: float) -> float | None:
    """Median first wait of the batches that did not fill, minus W (µs)."""
    waits = unfilled_first_waits_us(batches, max_batch)
    return float(np.median(waits)) - max_wait_ms * 1000 if waits else None


class Bench:
    def __init__(self, cpu: int, window_s: float, saturation: float, drain_s: float, probe,
                 rates_per_pair: bool = False):  # fmt: skip
        self.cpu = cpu
        self.window_s = window_s
        self.saturation = saturation  # the S the open-loop rates are multiples of
        self.drain_s = drain_s
        self.probe = probe
        self.rates_per_pair = rates_per_pair
        self.pair_saturation: list[float] = []  # with rates_per_pair: each pair's S
        self.runs: list[dict] = []

    def _probe(self) -> dict | None:
        return self.probe(self.cpu) if self.probe is not None else None

    def _record(self, found: dict, **labels) -> dict:
        found.update(labels)
        self.runs.append(found)
        shown = {k: found[k] for k in ("p50_us", "throughput", "overshoot_us") if k in found}
        print(f"  {labels['version']:>3} {labels['kind']:<6} {labels['setting']:<9} "
              f"x{labels.get('rate_multiple', '-')}: {shown}", flush=True)  # fmt: skip
        return found

    def open_loop(self, version: Machinery, pair: int, name: str, setting: Setting,
                  multiple: float):  # fmt: skip
        rate = multiple * self.saturation
        seed = arrival_seed("bench-batcher", pair, multiple)
        found = {"probe_before": self._probe(), "load_before": load_snapshot(self.cpu)}
        with version.service(setting, self.cpu) as service:
            with CoreWatch(self.cpu, service.pid) as watch:
                meta, columns = version.openloop(
                    service.port, rate, self.window_s, seed, self.cpu, self.drain_s
                )
            batches = service.batches()
        run_throughput = throughput(columns, self.window_s)
        model_us = columns["model_us"][columns["status"] == 200]
        found.update(
            model_us_p50=float(np.median(model_us)) if len(model_us) else None,
            latency_us=latency_percentiles_us(columns),
            p50_us=latency_percentiles_us(columns)["p50"],
            throughput=round(run_throughput, 3),
            arrival_rate=rate,
            saturation_reference=self.saturation,
            kept_up=run_throughput >= KEEPS_UP_SHARE * rate,
            client={key: meta["stats"][key] for key in CLIENT_KEYS if key in meta["stats"]},
            batches=len(batches["size"]),
            mean_batch=float(np.mean(batches["size"])) if batches["size"] else None,
            core_watch=watch.found,
            load_after=load_snapshot(self.cpu),
            probe_after=self._probe(),
        )
        if setting.max_wait_ms > 0:
            found["overshoot_us"] = overshoot_us(batches, setting.max_batch, setting.max_wait_ms)
        return self._record(found, version=version.label, pair=pair, kind="open", setting=name,
                            rate_multiple=multiple)  # fmt: skip

    def closed_loop(self, version: Machinery, pair: int, name: str, setting: Setting,
                    conns: int, kind: str = "closed"):  # fmt: skip
        found = {"probe_before": self._probe(), "load_before": load_snapshot(self.cpu)}
        with (
            version.service(setting, self.cpu) as service,
            CoreWatch(self.cpu, service.pid) as watch,
        ):
            stats = version.closedloop(service.port, self.window_s, conns, self.cpu)
        found.update(
            throughput=stats["throughput"],
            model_us_p50=stats.get("model_us_p50"),  # a client from before 2026-12-02: None
            connections=conns,
            client_cpu_us_per_request=stats.get("client_cpu_us_per_request"),
            core_watch=watch.found,
            load_after=load_snapshot(self.cpu),
            probe_after=self._probe(),
        )
        return self._record(found, version=version.label, pair=pair, kind=kind, setting=name)

    def reference(self, version: Machinery, pair: int) -> float:
        """S at the start of `pair`: one closed loop of none with `version` (the new
        machinery), recorded as a run of kind `reference`; the pair's rates follow it."""
        name, setting, connections = REFERENCE
        found = self.closed_loop(version, pair, name, setting, connections, kind="reference")
        if not found["throughput"]:
            raise RuntimeError(f"pair {pair}: none's closed loop answered nothing: no S to follow")
        self.saturation = found["throughput"]
        self.pair_saturation.append(self.saturation)
        return self.saturation

    def pair(self, index: int, versions: list[Machinery]) -> None:
        if self.rates_per_pair:
            self.reference(versions[-1], index)
        for version in versions if index % 2 == 0 else versions[::-1]:
            for name, setting, multiple in OPEN_LOOP:
                self.open_loop(version, index, name, setting, multiple)
            for name, setting, connections in CLOSED_LOOP:
                self.closed_loop(version, index, name, setting, connections)


def _pick(runs, **where) -> list[dict]:
    return [run for run in runs if all(run.get(k) == v for k, v in where.items())]


def _compare(per_version: dict[str, list[float]], target: dict | None = None) -> dict:
    """Per version: per-pair values and their median; new ÷ old; the target and whether the
    new median meets it."""
    found = {v: {"per_pair": values, "median": statistics.median(values) if values else None}
             for v, values in per_version.items()}  # fmt: skip
    old, new = found.get("old", {}).get("median"), found.get("new", {}).get("median")
    if old and new is not None:
        found["new_over_old"] = round(new / old, 4)
    if target and new is not None:
        found["target"] = target
        if "at_most" in target:
            found["met"] = new <= target["at_most"]
            found["stretch_met"] = new <= target["stretch"]
        elif "at_least" in target:
            found["met"] = new >= target["at_least"]
            if "stretch" in target:
                found["stretch_met"] = new >= target["stretch"]
    return found


class Found:
    """The runs, looked up by version, pair and labels."""

    versions = ("old", "new")

    def __init__(self, runs: list[dict], pairs: int):
        self.runs = runs
        self.pairs = pairs

    def value(self, version: str, pair: int, key: str, **where):
        chosen = _pick(self.runs, version=version, pair=pair, **where)
        return chosen[0].get(key) if chosen else None

    def per_pair(self, measure: Callable) -> dict[str, list]:
        """{version: [measure(version, pair) for each pair, None left out]}."""
        found = {}
        for version in self.versions:
            values = [measure(version, pair) for pair in range(self.pairs)]
            found[version] = [value for value in values if value is not None]
        return found

    def compare(self, key: str, target=None, **where) -> dict:
        return _compare(self.per_pair(lambda v, p: self.value(v, p, key, **where)), target)

    def b1_overhead(self, version: str, pair: int) -> float | None:
        at_half = {"kind": "open", "rate_multiple": 0.5}
        b1 = self.value(version, pair, "p50_us", setting="queue B=1", **at_half)
        none = self.value(version, pair, "p50_us", setting="none", **at_half)
        return b1 - none if b1 is not None and none is not None else None

    def best_over_none(self, version: str, pair: int) -> float | None:
        at_top = {"kind": "open", "rate_multiple": 2.5}
        none = self.value(version, pair, "throughput", setting="none", **at_top)
        batched = [self.value(version, pair, "throughput", setting=name, **at_top)
                   for name in ("B=32 W=0", "B=128 W=0")]  # fmt: skip
        if not none or None in batched:
            return None
        return max(batched) / none

    def ceiling_over_none(self, version: str, pair: int) -> float | None:
        """The most a batcher can answer, as a multiple of none's S: S ÷ (1 − the model call's
        share of an answer's core time), the share being none's model stage (its median,
        Server-Timing) × S, as generator/arithmetic/figures.py. Both from none's closed loop,
        the same answers (from 2026-12-02); a client that does not report the model stage
        (an older version's) leaves it to none's open loop at 0.5 × S."""
        saturation = self.value(version, pair, "throughput", kind="closed", setting="none")
        model_us = self.value(version, pair, "model_us_p50", kind="closed", setting="none")
        if model_us is None:
            model_us = self.value(version, pair, "model_us_p50", kind="open", setting="none",
                                  rate_multiple=0.5)  # fmt: skip
        if model_us is None or not saturation:
            return None
        share = model_us * saturation / 1e6
        return 1 / (1 - share) if 0 < share < 1 else None

    def share_of_ceiling(self, version: str, pair: int) -> float | None:
        """Best batched ÷ none at 2.5 × S, as a share of the ceiling measured in the same pair."""
        best, ceiling = self.best_over_none(version, pair), self.ceiling_over_none(version, pair)
        return best / ceiling if best is not None and ceiling else None

    def kept_up_pairs(self, setting: str, multiple: float) -> dict[str, int]:
        where = {"kind": "open", "setting": setting, "rate_multiple": multiple}
        return {version: sum(bool(run["kept_up"]) for run in _pick(self.runs, version=version,
                                                                     **where))
                for version in self.versions}  # fmt: skip


def summarize(runs: list[dict], pairs: int) -> dict:
    found = Found(runs, pairs)
    high = {
        f"x{multiple:g}": {
            name: {
                "throughput": found.compare("throughput", kind="open", setting=name,
                                            rate_multiple=multiple),
                "kept_up_pairs": found.kept_up_pairs(name, multiple),
            }
            for name in ("none", "B=32 W=0", "B=128 W=0")
        }
        for multiple in (2.0, 2.5)
    }  # fmt: skip
    cpu: dict = {}
    split: dict = {}  # the client's user and kernel time (a client from before 2026-12-02: none)
    for run in _pick(runs, kind="open"):
        key, client = f"{run['setting']} x{run['rate_multiple']:g}", run["client"]
        cpu.setdefault(run["version"], {}).setdefault(key, []).append(
            client["client_cpu_us_per_request"]
        )
        if "client_user_us_per_request" in client:
            cell = split.setdefault(run["version"], {}).setdefault(key, {"user": [], "kernel": []})
            cell["user"].append(client["client_user_us_per_request"])
            cell["kernel"].append(client["client_system_us_per_request"])
    checked = _pick(runs, version="new", kind="open")
    return {
        "queue_b1_p50_overhead_us": _compare(
            found.per_pair(found.b1_overhead), TARGETS["queue_b1_p50_overhead_us"]
        ),
        "w1_overshoot_us": found.compare(
            "overshoot_us", TARGETS["w1_overshoot_us"], kind="open", setting="B=32 W=1"
        ),
        "closed_loop_answers_per_s": {
            name: found.compare("throughput", kind="closed", setting=name)
            for name, _, _ in CLOSED_LOOP
        },
        "open_loop_high": high,
        "best_batched_over_none_at_2.5": _compare(
            found.per_pair(found.best_over_none), TARGETS["best_batched_over_none_at_2.5"]
        ),
        "ceiling_over_none": _compare(found.per_pair(found.ceiling_over_none)),
        "best_batched_share_of_ceiling": _compare(
            found.per_pair(found.share_of_ceiling), TARGETS["best_batched_share_of_ceiling"]
        ),
        "b32_w0_kept_up_at_2.5": {
            version: {"pairs_kept_up": count, "pairs": pairs}
            for version, count in high["x2.5"]["B=32 W=0"]["kept_up_pairs"].items()
        },
        "b32_w0_kept_up_at_2": {
            version: {"pairs_kept_up": count, "pairs": pairs}
            for version, count in high["x2"]["B=32 W=0"]["kept_up_pairs"].items()
        },
        "client_cpu_us_per_request": {
            version: {key: statistics.median(values) for key, values in by_setting.items()}
            for version, by_setting in cpu.items()
        },
        "client_user_kernel_us_per_request": {
            version: {
                key: {part: statistics.median(values) for part, values in cell.items()}
                for key, cell in by_setting.items()
            }
            for version, by_setting in split.items()
        },
        "answers_checked_new": {
            "compared": sum(run["client"].get("answers_compared", 0) for run in checked),
            "differing": sum(run["client"].get("answers_differing", 0) for run in checked),
        },
    }


def load_probe(spec: str | None) -> Callable | None:
    """MODULE:FUNCTION -> the callable (None for no probe)."""
    if not spec:
        return None
    module, _, function = spec.partition(":")
    return getattr(importlib.import_module(module), function)


def run_bench(cpu=1, pairs=5, window_s=8.0, old=OLD_COMMIT, saturation=None, drain_s=30.0,
              probe=None, nice=0, measure_saturation=False,
              rates_per_pair=False) -> dict:  # fmt: skip
    """Run the pairs and return what batcher.json holds. `measure_saturation`: S is this
    host's today (the median of three closed loops of none, this machinery), not the
    campaign's; `rates_per_pair`: each pair's rates follow S measured at its start."""
    shielded = shield(nice)
    loops = None
    with (
        Machinery("old", commit=old) as old_version,
        Machinery("new") as new_version,
    ):
        if measure_saturation and saturation is None:
            loops = sidebyside.measure_saturation(new_version, cpu, window_s)
            saturation = statistics.median(loops)
            print(f"S = {saturation:.1f} answers/s (closed loops: {loops})", flush=True)
        saturation = saturation or campaign_saturation(CAMPAIGN)
        bench = Bench(cpu, window_s, saturation, drain_s, probe, rates_per_pair)
        for index in range(pairs):
            print(f"pair {index + 1} of {pairs}", flush=True)
            bench.pair(index, [old_version, new_version])
        commits = {"old": old_version.git_commit, "new": new_version.git_commit}
    return {
        "what": __doc__.splitlines()[0],
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "smoke": window_s < 8 or pairs < 5,
        "fingerprint": fingerprint(),
        "commits": commits,
        "cpu": cpu,
        "pairs": pairs,
        "window_s": window_s,
        "drain_s": drain_s,
        "saturation_S_reference": saturation,
        "saturation_loops_throughput": loops,  # None: S given or the campaign's
        # with rates_per_pair, each pair's S (its reference run): its rates are multiples of it
        "rates_follow": "each pair's S" if rates_per_pair else "saturation_S_reference",
        "pair_saturation": bench.pair_saturation if rates_per_pair else None,
        "nice": nice,
        "shielded": shielded,
        "probe": getattr(probe, "__name__", None),
        "noise": "every run records load_before/load_after and core_watch.others_share; on a "
        "shared machine compare versions within a pair, not across pairs",
        "summary": summarize(bench.runs, pairs),
        "runs": bench.runs,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cpu", type=int, default=1, help="the measurement core")
    parser.add_argument("--pairs", type=int, default=5, help="A/B pairs (< 5: a smoke run)")
    parser.add_argument(
        "--window-s", type=float, default=8.0, help="seconds timed per run (< 8: a smoke run)"
    )
    parser.add_argument(
        "--drain-s", type=float, default=30.0, help="longest wait for answers after a window"
    )
    parser.add_argument("--old", default=OLD_COMMIT, help="the commit of the old machinery")
    parser.add_argument("--saturation", type=float, default=None, help="S (default: campaign's)")
    parser.add_argument(
        "--measure-saturation",
        action="store_true",
        help="S measured first on this host (median of three closed loops)",
    )
    parser.add_argument(
        "--rates-per-pair",
        action="store_true",
        help="measure S again at the start of every pair (one closed loop of none) and offer "
        "that pair's rates as multiples of it",
    )
    parser.add_argument("--probe", default=None, help="MODULE:FUNCTION, called with the core")
    parser.add_argument("--nice", type=int, default=0, help=NICE_HELP)
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"where the JSON goes (default: {OUT})"
    )
    args = parser.parse_args(argv)
    found = run_bench(args.cpu, args.pairs, args.window_s, args.old, args.saturation,
                      args.drain_s, load_probe(args.probe), args.nice,
                      args.measure_saturation, args.rates_per_pair)  # fmt: skip
    found["command"] = "python -m lab.bench.batcher " + " ".join(argv or sys.argv[1:])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(json.dumps(found["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
