"""Where the shared core's time goes per answer, for none and B=32 W=0 at 0.5 × S, S and 2.5 × S,
for the old machinery (a past commit) and this one, side by side. A benchmark, not a test.

    [setsid -w] python -m lab.bench.core_time [--cpu 1] [--rounds 2] [--window-s 6]
        [--old 4714b85] [--saturation S] [--nice N] [--out data/bench/core_time.json]

Each round runs every version × setting × rate once (the versions' order alternates from round
to round) on a fresh service pinned to the measurement core with that version's open-loop
client pinned there too (one thread each, as the campaign runner does); both versions meet the
same arrivals. While the client runs, from the other core:

- the service's and the client's CPU time, user and kernel (/proc/PID/stat, read around the
  client's run, and the client's own count): the kernel's part is mostly the loopback network
  path (a send runs the receiver's TCP processing);
- `perf record` of the measurement core (software clock, 2 kHz): the share of the service's
  samples inside CPython's garbage collector (its C functions, lab/machine/gc_symbols below);
- `py-spy record` of the service (250 Hz, not pausing it): its Python stacks, each counted
  once in the layer of its innermost frame that belongs to one (LAYERS: HTTP parsing, the
  framework, the handler, the store lookup, the batcher, the model, the event loop).

The service's user time, less the collector's share, is split over the layers in proportion to
py-spy's samples (py-spy cannot tell a collection from the Python line that set it off), so per
answer: load client (user, kernel), service kernel, the collector, and each layer, in µs.
Needs `perf` (Debian: linux-perf), py-spy (a dev dependency) and root. About 10 minutes with
the defaults. The handler page draws the medians over rounds as a stacked bar per rate.
"""

import argparse
import collections
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from lab.bench.batcher import throughput
from lab.bench.sidebyside import NICE_HELP, Machinery, measure_saturation, shield
from lab.design import KEEPS_UP_SHARE
from lab.load.arrivals import arrival_seed
from lab.machine.fingerprint import fingerprint
from lab.machine.processes import pin_command
from lab.paths import DATA
from lab.servicespec import NONE, Setting

OUT = DATA / "bench" / "core_time.json"
OLD_COMMIT = "4714b85"
SETTINGS = (("none", NONE), ("B=32 W=0", Setting("queue", 32, 0.0)))
RATE_MULTIPLES = (0.5, 1.0, 2.5)
SPY_RATE_HZ = 250
PERF_HZ = 2000
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# A Python stack belongs to the layer of its innermost frame whose file matches; frames of
# other files (json, numpy, contextlib…) count for the layer that called them.
LAYERS = (
    ("model", ("lab/model/scoring", "sklearn/")),
    ("store lookup", ("lab/model/store", "sqlite3")),
    ("batcher", ("lab/service/batcher",)),
    ("handler", ("lab/service/app", "lab/service/batch_route", "lab/service/server_timing")),
    ("framework", ("fastapi/", "starlette/", "pydantic")),
    ("HTTP parsing", ("uvicorn/", "httptools", "h11")),
    ("event loop", ("asyncio/", "uvloop", "lab/machine/timer")),
)
OTHER = "other Python"
# CPython 3.11's collector, by the C functions perf sees in libpython.
GC_SYMBOLS = ("gc_collect", "visit_decref", "visit_reachable", "subtract_refs", "update_refs",
              "move_unreachable", "deduce_unreachable", "move_legacy_finalizer",
              "handle_legacy_finalizers", "finalize_garbage", "delete_garbage", "_traverse",
              "_Traverse", "validate_list", "gc_list_")  # fmt: skip


def layer_of(stack: str) -> str:
    """The layer of one py-spy stack ("frame;frame;…", outermost first)."""
    for frame in reversed(stack.split(";")):
        for layer, files in LAYERS:
            if any(name in frame for name in files):
                return layer
    return OTHER


def layer_shares(raw: str) -> dict[str, float]:
    """py-spy's raw output ("stack count" lines) -> each layer's share of the samples."""
    counts: collections.Counter = collections.Counter()
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            counts[layer_of(stack)] += int(count)
    total = sum(counts.values())
    return {layer: counts[layer] / total for layer in counts} if total else {}


def gc_share(perf_script: str, pid: int) -> tuple[float, int]:
    """(share of `pid`'s user-space samples inside the collector, its user-space samples) from
    `perf script -F pid,ip,sym,dso` output ("pid ip symbol (dso)" lines)."""
    user = in_gc = 0
    for line in perf_script.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[0] != str(pid) or "kernel" in fields[-1]:
            continue
        user += 1
        in_gc += any(name in fields[2] for name in GC_SYMBOLS)
    return (in_gc / user if user else 0.0), user


def process_cpu_s(pid: int) -> tuple[float, float]:
    """(user, kernel) CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def breakdown(service_cpu: tuple, client: dict, answers: int, gc: float, layers: dict) -> dict:
    """µs per answer of each part of the core's time."""
    user_us, kernel_us = (1e6 * seconds / answers for seconds in service_cpu)
    found = {
        "load client, user": client.get("client_user_us_per_request"),
        "load client, kernel": client.get("client_system_us_per_request"),
        "service kernel (network path, scheduling)": kernel_us,
        "garbage collector": user_us * gc,
    }
    if found["load client, user"] is None:  # an old client counts only its total
        found["load client, user"] = client["client_cpu_us_per_request"]
        found["load client, kernel"] = 0.0
    rest = user_us * (1 - gc)
    for layer, _ in (*LAYERS, (OTHER, ())):
        found[layer] = rest * layers.get(layer, 0.0)
    return {part: round(value, 2) for part, value in found.items()}


class Profilers:
    """perf on the measurement core and py-spy on the service, from the other core, for the
    length of one client run."""

    def __init__(self, cpu: int, pid: int, seconds: float, folder: Path):
        other = next(core for core in sorted(os.sched_getaffinity(0)) if core != cpu)
        self.pid = pid
        self.perf_data = folder / "perf.data"
        self.spy_raw = folder / "spy.txt"
        self.perf = subprocess.Popen(
            pin_command(other, ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(PERF_HZ),
                                "-C", str(cpu), "-o", str(self.perf_data), "--", "sleep",
                                f"{seconds:.1f}"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.spy = subprocess.Popen(
            pin_command(other, [_py_spy(), "record", "--nonblocking", "-r", str(SPY_RATE_HZ),
                                "-d", str(math.ceil(seconds)), "-p", str(pid), "-f", "raw", "-o",
                                str(self.spy_raw)]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def finish(self) -> tuple[float, int, dict]:
        """(collector share, perf's user samples of the service, py-spy's layer shares)."""
        for process, name in ((self.perf, "perf record"), (self.spy, "py-spy record")):
            _, stderr = process.communicate(timeout=120)
            if process.returncode != 0:
                raise RuntimeError(f"{name} exited {process.returncode}: {stderr.strip()[-300:]}")
        script = subprocess.run(
            ["perf", "script", "-i", str(self.perf_data), "-F", "pid,ip,sym,dso"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        share, samples = gc_share(script, self.pid)
        return share, samples, layer_shares(self.spy_raw.read_text())


def _py_spy() -> str:
    found = Path(sys.executable).parent / "py-spy"
    return str(found) if found.exists() else "py-spy"


def one_run(version: Machinery, name: str, setting: Setting, multiple: float, saturation: float,
            window_s: float, cpu: int, round_index: int) -> dict:  # fmt: skip
    rate = multiple * saturation
    seed = arrival_seed("bench-core-time", round_index, multiple)
    with version.service(setting, cpu) as service, tempfile.TemporaryDirectory() as folder:
        before = process_cpu_s(service.pid)
        profilers = Profilers(cpu, service.pid, window_s + 1.0, Path(folder))
        meta, columns = version.openloop(service.port, rate, window_s, seed, cpu, drain_s=30.0)
        after = process_cpu_s(service.pid)
        batches = service.batches()
        gc, perf_samples, layers = profilers.finish()
    stats = meta["stats"]
    answers = stats["answered"]
    service_cpu = (after[0] - before[0], after[1] - before[1])
    return {
        "version": version.label,
        "round": round_index,
        "setting": name,
        "rate_multiple": multiple,
        "arrival_rate": rate,
        "answered": answers,
        "throughput": round(throughput(columns, window_s), 3),
        "kept_up": throughput(columns, window_s) >= KEEPS_UP_SHARE * rate,
        "service_cpu_s": service_cpu,
        "gc_share_perf": round(gc, 4),
        "perf_user_samples": perf_samples,
        "gc_counted": batches.get("gc"),  # the service's own count (this machinery only)
        "mean_batch": (sum(batches["size"]) / len(batches["size"])) if batches["size"] else 1.0,
        "layers": {layer: round(share, 4) for layer, share in layers.items()},
        "client": {key: stats.get(key) for key in (
            "client_cpu_us_per_request", "client_user_us_per_request",
            "client_system_us_per_request", "client_wakeups", "answers_differing")},
        "us_per_answer": breakdown(service_cpu, stats, answers, gc, layers),
    }  # fmt: skip


def summarize(runs: list[dict]) -> dict:
    """Per version, setting and rate: the median over rounds of each part (µs per answer) and
    of the total."""
    found: dict = {}

    def key(run: dict) -> tuple:
        return run["version"], run["setting"], run["rate_multiple"]

    for version, setting, multiple in sorted({key(run) for run in runs}):
        chosen = [run for run in runs if key(run) == (version, setting, multiple)]
        parts = chosen[0]["us_per_answer"].keys()
        medians = {part: round(statistics.median(run["us_per_answer"][part] for run in chosen), 2)
                   for part in parts}  # fmt: skip
        medians["total"] = round(statistics.median(
            sum(run["us_per_answer"].values()) for run in chosen), 2)  # fmt: skip
        found.setdefault(version, {}).setdefault(setting, {})[f"x{multiple:g}"] = medians
    return found


def run_bench(cpu=1, rounds=2, window_s=6.0, old=OLD_COMMIT, saturation=None, nice=0) -> dict:
    shielded = shield(nice)
    runs, loops = [], None
    with Machinery("old", commit=old) as old_version, Machinery("new") as new_version:
        versions = [old_version, new_version]
        if saturation is None:  # this host's S today, not a campaign's: the rates are its own
            loops = measure_saturation(new_version, cpu, window_s)
            saturation = statistics.median(loops)
            print(f"S = {saturation:.1f} answers/s (closed loops: {loops})", flush=True)
        for index in range(rounds):
            for version in versions if index % 2 == 0 else versions[::-1]:
                for name, setting in SETTINGS:
                    for multiple in RATE_MULTIPLES:
                        run = one_run(version, name, setting, multiple, saturation, window_s,
                                      cpu, index)  # fmt: skip
                        total = sum(run["us_per_answer"].values())
                        print(f"round {index + 1}/{rounds} {version.label:>3} {name:<8} "
                              f"x{multiple:g}: {total:.0f} µs per answer, collector "
                              f"{run['gc_share_perf']:.1%}", flush=True)  # fmt: skip
                        runs.append(run)
        commits = {"old": old_version.git_commit, "new": new_version.git_commit}
    return {
        "what": __doc__.splitlines()[0],
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "smoke": rounds < 2 or window_s < 4,
        "fingerprint": fingerprint(),
        "commits": commits,
        "cpu": cpu,
        "rounds": rounds,
        "window_s": window_s,
        "saturation_S": saturation,
        "saturation_loops_throughput": loops,  # None when --saturation gave S
        "nice": nice,
        "shielded": shielded,
        "layers": [layer for layer, _ in LAYERS] + [OTHER],
        "summary": summarize(runs),
        "runs": runs,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cpu", type=int, default=1, help="the measurement core")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (< 2: a smoke run)")
    parser.add_argument("--window-s", type=float, default=6.0, help="seconds timed per run")
    parser.add_argument("--old", default=OLD_COMMIT, help="the commit of the old machinery")
    parser.add_argument(
        "--saturation",
        type=float,
        default=None,
        help="S (default: measured first, the median of three closed loops)",
    )
    parser.add_argument("--nice", type=int, default=0, help=NICE_HELP)
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the JSON goes ({OUT})")
    args = parser.parse_args(argv)
    found = run_bench(args.cpu, args.rounds, args.window_s, args.old, args.saturation, args.nice)
    found["command"] = "python -m lab.bench.core_time " + " ".join(argv or sys.argv[1:])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(json.dumps(found["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
