"""Soak check of the service's memory (a benchmark, not a test):

    .venv/bin/python tests/bench_soak.py [--minutes 20] [--arrival-rate 600]

Starts the real service, `python -m lab serve --batcher queue --max-batch 32 --max-wait-ms 2`,
and drives it with the lab's open-loop client (`python -m lab openloop`: Poisson arrivals at
a steady mean rate) for the whole window, both pinned to core 1 with taskset as the campaign
pins its measured processes. Every few seconds it reads the service's resident memory (VmRSS
in /proc/PID/status) and its CPU time. It reports the growth from the end of the warm-up to
the end of the window, and the fitted slope over that span, and writes data/bench/soak.json.
Memory, not speed, is what is measured, so other load on the machine is acceptable.

`--lab-root DIR` serves the lab/ of another checkout instead (for contrast, an older commit's
unbounded batcher: `git archive COMMIT lab | tar -x -C DIR`), with this checkout's data files;
give it its own `--out`.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a file, not a module: the repository root is not on sys.path

from lab import paths  # noqa: E402
from lab.machine.cpu import TICKS  # noqa: E402
from lab.machine.fingerprint import fingerprint, git_commit  # noqa: E402
from lab.machine.processes import pin_command, python, single_thread_env  # noqa: E402
from lab.rawformat import codec  # noqa: E402
from lab.service.process import free_port, get_json  # noqa: E402

CPU = 1
SETTING = ["--batcher", "queue", "--max-batch", "32", "--max-wait-ms", "2"]
SEED = 20261130
DRAIN_S = 30
# Flat: less than this growth per minute after the warm-up (the batcher whose records were
# unbounded grew by some 60 bytes a batch, hundreds of KiB a minute: soak-unbounded.json).
FLAT_KIB_PER_MIN = 100
CLIENT_STATS = ("requests", "answered", "non_200", "never_answered", "wall_s")


def lab_sha256(lab_root: Path) -> str:
    """One sha256 over the served lab's Python files (names and contents, in name order)."""
    digest = hashlib.sha256()
    for path in sorted((lab_root / "lab").rglob("*.py")):
        digest.update(path.relative_to(lab_root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def service_command(port: int) -> list[str]:
    serve = [python(), "-m", "lab", "serve", *SETTING, "--port", str(port)]
    return pin_command(CPU, serve)


def start_service(lab_root: Path, port: int, log: Path) -> subprocess.Popen:
    env = single_thread_env({"LAB_HOME": str(paths.lab_home())})
    with open(log, "w") as output:
        process = subprocess.Popen(
            service_command(port), cwd=lab_root, env=env, stdin=subprocess.DEVNULL,
            stdout=output, stderr=output,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if get_json("127.0.0.1", port, "/health", timeout=2.0)[0] == 200:
                return process
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"bench_soak: the service did not answer /health:\n{log.read_text()}")


def memory_and_cpu(pid: int) -> tuple[int, float]:
    """The process's resident memory (KiB) and its CPU time so far (s)."""
    with open(f"/proc/{pid}/status") as handle:
        rss_kib = next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return rss_kib, (int(fields[11]) + int(fields[12])) / TICKS


def drive(port: int, service_pid: int, args, folder: Path) -> tuple[list, dict]:
    """Run the open-loop client for the window; sample the service until the client exits."""
    out = folder / "soak-client.run.zip"
    client = subprocess.Popen(
        pin_command(CPU, [
            python(), "-m", "lab", "openloop", "--port", str(port),
            "--arrival-rate", str(args.arrival_rate), "--window-s", str(args.minutes * 60),
            "--seed", str(SEED), "--drain-s", str(DRAIN_S), "--out", str(out),
        ]),
        cwd=ROOT, env=single_thread_env(), stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    started, samples = time.monotonic(), []
    while client.poll() is None:
        rss_kib, cpu_s = memory_and_cpu(service_pid)
        elapsed = time.monotonic() - started
        samples.append([round(elapsed, 1), rss_kib, round(cpu_s, 2)])
        print(f"  {elapsed:7.0f} s  service RSS {rss_kib / 1024:7.1f} MiB", flush=True)
        time.sleep(args.every_s - (time.monotonic() - started) % args.every_s)
    summary = client.stdout.read().strip()
    if client.returncode != 0:
        raise SystemExit(f"bench_soak: the client failed (exit {client.returncode}): {summary}")
    stats = codec.read_meta(out)["stats"]
    print(f"  client: {summary}")
    return samples, stats


def growth(samples: list, warmup_s: float, window_s: float) -> dict:
    """RSS from the end of the warm-up to the end of the window: change and fitted slope."""
    loaded = [s for s in samples if warmup_s <= s[0] <= window_s]
    times = np.array([s[0] for s in loaded])
    rss = np.array([s[1] for s in loaded], dtype=float)
    slope_kib_per_s = float(np.polyfit(times, rss, 1)[0])
    return {
        "rss_kib_at_start": samples[0][1],
        "rss_kib_after_warmup": int(rss[0]),
        "rss_kib_at_end": int(rss[-1]),
        "rss_kib_max": int(max(s[1] for s in samples)),
        "growth_after_warmup_kib": int(rss[-1] - rss[0]),
        "slope_kib_per_min": round(slope_kib_per_s * 60, 1),
        "samples_used": len(loaded),
        "flat": slope_kib_per_s * 60 < FLAT_KIB_PER_MIN,
    }


def batch_records(port: int) -> dict:
    status, found = get_json("127.0.0.1", port, "/batches", timeout=60)
    if status != 200:
        raise SystemExit(f"bench_soak: GET /batches answered {status}")
    return {
        "records_kept": len(found["size"]),
        **{key: value for key, value in found.items() if key not in ("size", "first_wait_us")},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="length of the load")
    parser.add_argument("--arrival-rate", type=float, default=600.0, help="requests per s")
    parser.add_argument("--every-s", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--warmup-s", type=float, default=120.0)
    parser.add_argument("--lab-root", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "bench" / "soak.json")
    args = parser.parse_args()
    window_s = args.minutes * 60
    if args.warmup_s >= window_s:
        parser.error(f"--warmup-s ({args.warmup_s:g}) must be shorter than the window")
    lab_root = args.lab_root.resolve()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as folder:
        service = start_service(lab_root, port, Path(folder) / "service.log")
        try:
            print(f"bench_soak: service pid {service.pid} from {lab_root}, "
                  f"{args.arrival_rate:g}/s for {args.minutes:g} min")  # fmt: skip
            samples, client = drive(port, service.pid, args, Path(folder))
            records = batch_records(port)
        finally:
            service.terminate()
            service.wait(30)
    result = {
        "what": "the service's resident memory under a steady open-loop load",
        "command": f"taskset -c {CPU} python -m lab serve {' '.join(SETTING)}",
        "lab_root": "this checkout" if lab_root == ROOT else str(lab_root),
        "served_lab_sha256": lab_sha256(lab_root),
        "git_commit": git_commit(),  # of this checkout
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpu": CPU,
        "arrival_rate": args.arrival_rate,
        "window_s": window_s,
        "warmup_s": args.warmup_s,
        "sample_every_s": args.every_s,
        "flat_kib_per_min": FLAT_KIB_PER_MIN,
        "memory": growth(samples, args.warmup_s, window_s),
        "batches": records,
        "client": {key: client[key] for key in CLIENT_STATS},
        "machine": {key: fingerprint()[key] for key in ("cpu_model", "cores", "kernel")},
        "samples": {"columns": ["t_s", "rss_kib", "service_cpu_s"], "rows": samples},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({key: result[key] for key in ("memory", "batches", "client")}, indent=1))
    print(f"bench_soak: wrote {args.out}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
