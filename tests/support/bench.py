"""The machinery's benchmark files on the handler page, for their tests (tests/test_bench_files.py,
tests/test_bench_core_time.py): a build with a given bench folder, the handler page rendered
from its results, the report's verdict on them, and made-up side-by-side runs in
lab/bench/batcher.py's format (the format, not a measurement)."""

import dataclasses
import json
from pathlib import Path

import numpy as np

from generator.build import SITE, build_site
from generator.pages import render as pages
from generator.reading.description import read_description
from generator.report import checks as report
from lab.bench import batcher as bench_batcher

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_RAW = ROOT / "tests" / "fixtures" / "raw"


def sources(bench: Path | None):
    return dataclasses.replace(SITE, static=(), bench=bench, runtimes=None)


def build(out: Path, bench: Path | None) -> dict:
    """results.json as the pages saw it (the simulator's table read in)."""
    build_site(FIXTURE_RAW, None, out, sources(bench))
    path = out / "assets" / "data" / "results.json"
    return report.with_table(json.loads(path.read_text()), path)


def handler_page(results: dict) -> str:
    names = read_description(FIXTURE_RAW / results["campaign"]["name"]).names
    shown = pages.page_outputs(results, SITE.pages, names, SITE.reference)
    return shown["handler.md"].decode()


def report_says(results: dict, tmp_path: Path, capsys, bench: Path | None = None):
    """(the report's exit code, its first DISAGREES line or else all it printed)."""
    path = tmp_path / "checked.json"
    path.write_text(json.dumps(results))
    code = report.main(FIXTURE_RAW, None, path, bench)
    out = capsys.readouterr().out
    return code, next((x for x in out.splitlines() if x.startswith("DISAGREES")), out)


def made_up_runs(pairs: int, seed: int = 14) -> list[dict]:
    """Runs shaped as lab/bench/batcher.py records them (Bench.open_loop, closed_loop), with
    made-up numbers: the old client records no answer check, as commit 903928e's did not, and
    one old pair has no overshoot (every batch filled), which the summary leaves out."""
    rng = np.random.default_rng(seed)
    load = {"loadavg": [0.3, 0.4, 0.5], "idle_share": 0.97}
    runs = []
    for pair in range(pairs):
        for version, loop, speed in (("old", "uvloop", 1.0), ("new", "none", 1.3)):
            for name, _, multiple in bench_batcher.OPEN_LOOP:
                rate = 1500 * multiple
                throughput = min(rate, 1300 * speed * (2.5 if name != "none" else 1))
                p50_us = float(rng.integers(1000, 3000)) / speed
                client = {"requests": 1000, "answered": 1000, "never_answered": 0, "non_200": 0,
                          "client_cpu_us_per_request": float(rng.uniform(50, 120)),
                          "dispatch_lag_us_p50": 3.0, "event_loop": loop}  # fmt: skip
                if version == "new":
                    client.update(answers_compared=1000, answers_differing=0,
                                  answer_clock="SO_TIMESTAMPNS")  # fmt: skip
                run = {
                    "version": version, "pair": pair, "kind": "open", "setting": name,
                    "rate_multiple": multiple, "arrival_rate": rate, "probe_before": None,
                    "probe_after": None, "latency_us": {"p50": p50_us, "p99": 3 * p50_us},
                    "p50_us": p50_us, "batches": 500, "mean_batch": 2.0,
                    "throughput": round(float(throughput * rng.uniform(0.97, 1.0)), 3),
                    "load_before": load, "load_after": load, "client": client,
                    "core_watch": {"others_share": float(rng.uniform(0, 0.02))},
                }  # fmt: skip
                run["kept_up"] = run["throughput"] >= 0.95 * rate
                if name == "B=32 W=1":
                    missing = version == "old" and pair == 1
                    run["overshoot_us"] = None if missing else float(rng.uniform(20, 200))
                runs.append(run)
            for name, _, connections in bench_batcher.CLOSED_LOOP:
                runs.append({"version": version, "pair": pair, "kind": "closed", "setting": name,
                             "throughput": float(rng.uniform(1400, 4000)) * speed,
                             "connections": connections, "client_cpu_us_per_request": 40.0,
                             "core_watch": {"others_share": 0.01}, "probe_before": None,
                             "probe_after": None, "load_before": load,
                             "load_after": load})  # fmt: skip
    return runs


def write_batcher(folder: Path, pairs: int = 5, window_s: float = 8.0, runs=None,
                  name: str = "batcher.json", **extra) -> dict:  # fmt: skip
    """A batcher.json (or a file of its format named `name`) of `runs` (default: made up),
    its summary made by the benchmark's own `summarize`; `extra` fields added at its top."""
    runs = made_up_runs(pairs) if runs is None else runs
    found = {
        "what": bench_batcher.__doc__.splitlines()[0],
        "date": "2026-12-01T10:00:00+00:00",
        "smoke": window_s < 8 or pairs < 5,
        "fingerprint": {"cores": 2, "cpu_model": "AMD EPYC"},
        "commits": {"old": "903928e" + "0" * 33, "new": "a" * 40},
        "cpu": 1,
        "pairs": pairs,
        "window_s": window_s,
        "shielded": "niceness 0",
        "summary": bench_batcher.summarize(runs, pairs),
        "runs": runs,
        **extra,
    }
    (folder / name).write_text(json.dumps(found, indent=1))
    return found
