"""A campaign's switchback runs and footprint (issue 29): made-up run files with known
answers, read by the build (generator/arithmetic/switchback_runs.py, the benchmark's interval
arithmetic reused) and by the report's own code (generator/report/switchback.py), which
must agree value by value; the figures the guesses name, from both.

Known answers: none's p50 is 1,000 µs in every run and queue B=1's alternates 1,090 and
1,110 µs, so the Hodges–Lehmann estimate is the middle of the two log-ratios and the
overhead 1,000 × (√(1.09 × 1.11) − 1) µs; B=32 W=1's server time is 1.3 × W=0's in every run
(+30% at W=0's 2,000 µs: 600 µs); its unfilled batches wait 1,057 to 1,063 µs, as many runs
each (overshoot 60 µs); the A/A's p50 alternates ±1% (the same within ±5%).

Run: `.venv/bin/pytest tests/test_campaign_switchback.py`.
"""

import math
import types

import numpy as np
import pytest

from generator.arithmetic import figures as build_figures
from generator.arithmetic import switchback_runs
from generator.arithmetic.results import rounded
from generator.report import figures as report_figures
from generator.report import switchback as report_switchback
from generator.report.answers import compare
from generator.report.checker import Checker
from lab.campaign.description import told_apart
from lab.design import NONE, QUEUE_B1, Setting, Switchback
from lab.rawformat import codec

B32_W0, B32_W1 = Setting("queue", 32, 0.0), Setting("queue", 32, 1.0)
PAIRS = (Switchback(NONE, QUEUE_B1), Switchback(B32_W0, B32_W1), Switchback(NONE, NONE))
RUNS = 8  # of each pair
PER_ARM = 101  # requests per arm and run: odd, so every nearest rank is one of the values
START = 1_000_000.0  # Unix time of the first run's timeline


def arm_levels(pair: Switchback, index: int) -> dict:
    """(p50 µs, server µs, unfilled first wait µs) of arm A and arm B in run `index`."""
    if pair.arm_b == QUEUE_B1:
        return {"a": (1000, 800, None), "b": (1090 if index % 2 else 1110, 800, None)}
    if pair.arm_b == B32_W1:
        return {"a": (1500, 2000, None), "b": (2400, 2600, 1057 + 2 * (index % 4))}
    return {"a": (1000, 800, None), "b": (990 if index % 2 else 1010, 800, None)}


def run_columns(pair: Switchback, index: int) -> dict:
    """Both arms' requests (each arm's latencies all at its p50) and batches."""
    levels = arm_levels(pair, index)
    arm = np.tile([0, 1], PER_ARM).astype(np.uint8)
    latency = np.where(arm == 0, levels["a"][0], levels["b"][0]).astype(np.int64)
    server = np.where(arm == 0, levels["a"][1], levels["b"][1])
    n = len(arm)
    columns = {
        "arrival_us": np.arange(n, dtype=np.uint32) * 1000,
        "latency_us": latency,
        "status": np.full(n, 200, dtype=np.uint16),
        "batch_size": np.ones(n, dtype=np.uint16),
        "ready_us": (server // 4).astype(np.uint32),
        "queued_us": (server // 4).astype(np.uint32),
        "model_us": (server - 2 * (server // 4)).astype(np.uint32),
        "arm": arm,
    }
    wait = levels["b"][2]
    sizes = [2, 2, 2, 32] if wait else []  # three unfilled batches and one full one
    columns["batches_arm"] = np.ones(len(sizes), dtype=np.uint8)
    columns["batches_size"] = np.asarray(sizes, dtype=np.uint16)
    waits = [wait - 10, wait, wait + 10, 40] if wait else []
    columns["batches_first_wait_us"] = np.asarray(waits, dtype=np.uint32)
    return columns


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """A campaign folder with the switchback runs only (format 4: the send lag folded)."""
    folder = tmp_path_factory.mktemp("campaign")
    pairs = [pair.as_dict() for pair in PAIRS]
    runs, at = [], START
    for index in range(RUNS):
        for pair in PAIRS:
            columns = run_columns(pair, index)
            meta = {
                "kind": "switchback",
                "run_id": f"switchback-{index}-{pair.name}",
                "run_index": index,
                "rate_multiple": 0.5,
                "window_s": 8.0,
                "slice_s": 0.1,
                "first_arm": "ab"[index % 2],
                "swap_routes": index % 4 >= 2,
                "twin_slices": False,
                "added_work_us_b": 0.0,
                "arm_a": pair.arm_a.as_dict(),
                "arm_b": pair.arm_b.as_dict(),
                "send_lag_us_p99": 12,
                "timeline": {"start": at, "marks": {"measured": 9.5}},
            }
            at += 10.0
            path = folder / "runs" / f"switchback-{index}-{len(runs)}.run.zip"
            codec.write_run(path, meta, columns)  # exact: no log8, for the known answers
            runs.append((meta, path))
    (folder / "campaign.json").write_text("{}\n")
    info = {"design": {"switchbacks": pairs}}
    described = types.SimpleNamespace(interval_rule=True, told_apart=told_apart())
    return types.SimpleNamespace(path=folder, info=info, description=described, runs=runs)


@pytest.fixture(scope="module")
def built(campaign):
    seen = []
    found = switchback_runs.section(
        campaign, [(None, path) for _, path in campaign.runs], seen.append
    )
    assert len(seen) == len(campaign.runs)  # every run's quiet record counted
    return rounded({"switchback": found, "footprint": switchback_runs.footprint(campaign.path)})


@pytest.fixture(scope="module")
def recomputed(campaign):
    runs = {}
    for meta, path in campaign.runs:
        found_meta, columns = codec.read_run(path)
        runs[meta["run_id"]] = ({"kind": "switchback"}, found_meta, columns)
    data = {"runs": runs, "info": campaign.info, "description": campaign.description}
    return {
        "switchback": report_switchback.switchback_numbers(data),
        "footprint": report_switchback.footprint_numbers(campaign.path),
    }


def test_the_build_and_the_report_agree_value_by_value(built, recomputed):
    checker = Checker()
    for name in ("switchback", "footprint"):
        compare(checker, built, (name,), recomputed[name])
    assert checker.count > 100


def test_the_known_answers(built):
    section = built["switchback"]
    assert section["names"] == [pair.name for pair in PAIRS]
    assert section["aa"] == "none vs none" and section["runs"] == 3 * RUNS
    b1 = section["comparisons"]["none vs B=1 W=0"]["statistics"]["p50"]
    assert b1["interval"]["estimate_us"] == pytest.approx(1000 * (math.sqrt(1.09 * 1.11) - 1),
                                                           rel=1e-4)  # fmt: skip
    assert b1["interval"]["verdict"] == "told apart"
    w1 = section["comparisons"]["B=32 W=0 vs B=32 W=1"]
    assert w1["statistics"]["server"]["interval"]["estimate_us"] == pytest.approx(600, rel=1e-4)
    assert w1["overshoot"]["b"]["interval"]["estimate_us"] == pytest.approx(60)
    assert w1["swapped_runs"] == RUNS // 2


def test_the_figures_the_guesses_name(built, recomputed, campaign):
    rows = build_figures.switchback_figures(built) + build_figures.footprint_figures(built)
    figures = {name: function(built) for name, _, _, function in rows}
    mine = {}
    report_figures.switchback(mine, recomputed["switchback"])
    report_figures.footprint(mine, recomputed["footprint"])
    assert sorted(figures) == sorted(mine)
    for name, value in mine.items():
        assert figures[name] == pytest.approx(value, rel=1e-4), name
    assert figures["switchback_b1_p50_overhead_us"] == pytest.approx(99.95, abs=0.01)
    assert figures["switchback_b1_p50_overhead_told_apart"] is True
    assert figures["switchback_w1_server_cost_us"] == pytest.approx(600, rel=1e-4)
    assert figures["switchback_w1_overshoot_us"] == pytest.approx(60)
    assert figures["switchback_aa_p50_same"] is True
    aa = [math.log(990 / 1000) if i % 2 else math.log(1010 / 1000) for i in range(RUNS)]
    assert figures["switchback_aa_p50_sd_d"] == pytest.approx(np.std(aa, ddof=1), rel=1e-4)
    last = START + 10.0 * (3 * RUNS - 1) + 9.5
    assert figures["campaign_wall_minutes"] == pytest.approx((last - START) / 60, rel=1e-4)
    size = sum(len(path.read_bytes()) for path in campaign.path.rglob("*") if path.is_file())
    assert figures["campaign_raw_mib"] == pytest.approx(size / 2**20, rel=1e-4)


def test_a_campaign_without_switchback_runs_or_timelines_has_neither(tmp_path):
    assert switchback_runs.section(types.SimpleNamespace(), [], print) is None
    (tmp_path / "runs").mkdir()
    codec.write_run(tmp_path / "runs" / "bits.run.zip", {"kind": "bits"})
    assert switchback_runs.footprint(tmp_path) is None
    assert report_switchback.footprint_numbers(tmp_path) is None
    with pytest.raises(build_figures.Absent):
        build_figures.switchback_figures({})
    with pytest.raises(build_figures.Absent):
        build_figures.footprint_figures({})
