"""The side-by-side bench's rates (lab/bench/batcher.py): with --rates-per-pair every pair
measures S at its start and offers its open loops multiples of that S, the same to both
versions; without it every pair gets the S of the start. A fake machinery stands in for the
service and the clients (the property under test is the bench's bookkeeping, not a
measurement); the real bench runs in `python -m lab.bench.batcher`.

    pytest tests/test_bench_rates.py
"""

import contextlib
import os

import numpy as np
import pytest

from lab.bench import batcher as bench_batcher


class FakeService:
    pid = os.getpid()
    port = 0

    @staticmethod
    def batches() -> dict:
        return {"size": [], "first_wait_us": []}


class FakeMachinery:
    """Answers every closed loop of none with the next of `saturations` (the host's speed
    moving from pair to pair) and every open loop in full, and remembers the rates offered."""

    def __init__(self, label: str, saturations: list[float]):
        self.label = label
        self.saturations = iter(saturations)
        self.offered: list[tuple[int, float]] = []  # (seed, rate) of every open loop
        self.closed: list[str] = []

    @contextlib.contextmanager
    def service(self, setting, cpu):
        self.setting = setting
        yield FakeService()

    def openloop(self, port, rate, window_s, seed, cpu, drain_s):
        self.offered.append((seed, rate))
        count = round(rate * window_s)
        columns = {
            "status": np.full(count, 200, dtype=np.uint16),
            "latency_us": np.full(count, 1000, dtype=np.int64),
            "arrival_us": np.linspace(0, window_s * 1e6, count).astype(np.uint32),
            "model_us": np.full(count, 300, dtype=np.uint32),
        }
        stats = {"requests": count, "answered": count, "answers_compared": count,
                 "answers_differing": 0, "event_loop": "none", "client_cpu_us_per_request": 40.0,
                 "client_user_us_per_request": 22.0,
                 "client_system_us_per_request": 18.0}  # fmt: skip
        return {"stats": stats}, columns

    def closedloop(self, port, seconds, connections, cpu):
        self.closed.append(self.setting.batcher)
        throughput = next(self.saturations) if self.setting.batcher == "none" else 3000.0
        return {"throughput": throughput, "model_us_p50": 500.0}


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    """The load snapshot waits half a second to read the core; the fake needs none."""
    monkeypatch.setattr(bench_batcher, "load_snapshot", lambda cpu: {"loadavg": [0, 0, 0]})


def run_pairs(rates_per_pair: bool, pairs: int = 2):
    # new's closed loops of none: per pair its reference (if any), then its own S
    new_s = [1000.0, 990.0, 1200.0, 1210.0] if rates_per_pair else [990.0, 1210.0]
    old = FakeMachinery("old", [995.0, 1205.0])
    new = FakeMachinery("new", new_s)
    bench = bench_batcher.Bench(1, 1.0, 1300.0, 1.0, None, rates_per_pair)
    for index in range(pairs):
        bench.pair(index, [old, new])
    return bench, old, new


def test_each_pair_offers_multiples_of_its_own_s_to_both_versions():
    bench, old, new = run_pairs(rates_per_pair=True)
    assert bench.pair_saturation == [1000.0, 1200.0]
    assert old.offered == new.offered  # the same seeds and rates to both versions
    multiples = [multiple for _, _, multiple in bench_batcher.OPEN_LOOP]
    per_pair = len(multiples)
    for pair, saturation in enumerate(bench.pair_saturation):
        rates = [rate for _, rate in new.offered[pair * per_pair : (pair + 1) * per_pair]]
        assert rates == [multiple * saturation for multiple in multiples]
    references = [run for run in bench.runs if run["kind"] == "reference"]
    assert [(run["pair"], run["version"], run["throughput"]) for run in references] == [
        (0, "new", 1000.0),
        (1, "new", 1200.0),
    ]
    opened = [run for run in bench.runs if run["kind"] == "open"]
    assert {run["saturation_reference"] for run in opened if run["pair"] == 1} == {1200.0}
    # every run kept up (the fake answers in full), judged against the rate it was offered
    assert all(run["kept_up"] for run in opened)


def test_the_reference_runs_leave_the_summary_to_the_pairs_own_closed_loops():
    bench, _, _ = run_pairs(rates_per_pair=True)
    summary = bench_batcher.summarize(bench.runs, 2)
    # S of the pair in the summary is new's closed loop after its open loops, not the reference
    assert summary["closed_loop_answers_per_s"]["none"]["new"]["per_pair"] == [990.0, 1210.0]
    assert summary["client_user_kernel_us_per_request"]["new"]["B=32 W=0 x2.5"] == {
        "user": 22.0,
        "kernel": 18.0,
    }


def test_without_rates_per_pair_every_pair_keeps_the_start_s():
    bench, old, new = run_pairs(rates_per_pair=False)
    assert bench.pair_saturation == []
    assert not [run for run in bench.runs if run["kind"] == "reference"]
    assert {rate / multiple for (_, rate), (_, _, multiple)
            in zip(new.offered, bench_batcher.OPEN_LOOP * 2, strict=True)} == {1300.0}  # fmt: skip


def test_a_reference_loop_that_answers_nothing_stops_the_bench():
    old = FakeMachinery("old", [])
    new = FakeMachinery("new", [0.0])
    bench = bench_batcher.Bench(1, 1.0, 1300.0, 1.0, None, rates_per_pair=True)
    with pytest.raises(RuntimeError, match="pair 0: none's closed loop answered nothing"):
        bench.pair(0, [old, new])
