"""The demo times the model as Part A does, and says when its numbers are too noisy:
`pytest tests/test_demo_timing.py`.

lab/model/timing.py `interleaved` runs every size once per run, each run in Part A's order
for its seed; `spread` and `noise` judge how far the runs agree against TOO_NOISY_SPREAD.
Checked with a stand-in timer (no model, no clock), so each expected value follows from the
times it hands out: the order the sizes are timed in, a host that slows down part-way (a size
effect when sizes are timed one block after another; disagreeing runs, flagged, when they are
interleaved), the threshold on both sides, and what the demo prints and saves from it, read
back by the simulator with its warning.
"""

import numpy as np
import pytest

from lab.design import PART_A_SIZES
from lab.model import timing
from lab.parts import part_a

COST_NS = {size: 400_000 + 2_000 * size for size in PART_A_SIZES}  # a model's true cost


class StandIn:
    """A timer handing out each size's true cost, `slow` times it for the blocks numbered in
    `slowed` (a spell of the host's), and recording the order it was asked in."""

    def __init__(self, slowed=(), slow=1.8):
        self.asked: list[int] = []
        self.slowed, self.slow = set(slowed), slow

    def __call__(self, size: int) -> np.ndarray:
        factor = self.slow if len(self.asked) in self.slowed else 1.0
        self.asked.append(size)
        return np.full(7, COST_NS[size] * factor)


def test_the_runs_time_every_size_once_each_in_part_as_order_for_its_seed():
    timer = StandIn()
    orders, medians = timing.interleaved(timer, PART_A_SIZES, runs=5, seed=11)
    assert orders == [part_a.sizes_order(11 + run) for run in range(5)]  # Part A's orders
    assert timer.asked == [size for order in orders for size in order]
    for order in orders:
        assert sorted(order) == list(PART_A_SIZES)
    assert len({tuple(order) for order in orders}) == 5  # a new order in every run
    assert {size: len(values) for size, values in medians.items()} == dict.fromkeys(PART_A_SIZES, 5)


def test_a_host_slowing_part_way_is_a_size_effect_in_blocks_and_spread_when_interleaved():
    sizes, runs = PART_A_SIZES, 5
    spell = range(20, 30)  # ten blocks in the middle: about one run's worth of time
    # One size after another, all of a size's runs together: the spell falls on two sizes.
    blocks = StandIn(spell)
    block_medians = {size: [np.median(blocks(size)) for _ in range(runs)] for size in sizes}
    in_blocks = {size: np.median(values) for size, values in block_medians.items()}
    hit = [size for size in sizes if in_blocks[size] != COST_NS[size]]
    assert hit == [16, 32]  # slowed as a whole: a made-up size effect, with no spread to show
    assert all(timing.spread(block_medians[size]) == 0 for size in hit)
    # Interleaved: every size's median is its true cost, and the spell shows as spread.
    _, medians = timing.interleaved(StandIn(spell), sizes, runs, seed=1)
    assert {size: np.median(values) for size, values in medians.items()} == COST_NS
    found = timing.noise(medians)
    assert found["largest_spread"] == pytest.approx(0.8)
    assert found["too_noisy"] is True


def test_spread_is_slowest_minus_fastest_over_the_median():
    assert timing.spread([100.0, 110.0, 120.0, 105.0, 100.0]) == pytest.approx(20 / 105)
    assert timing.spread([3.0, 3.0, 3.0]) == 0


@pytest.mark.parametrize("over", [-1e-6, 0.0, 1e-6])
def test_too_noisy_is_a_spread_above_the_stated_limit(over):
    limit = timing.TOO_NOISY_SPREAD
    wide = [10.0, 10.0, 10.0 + 10 * (limit + over)]  # exactly the limit when over is 0
    medians = {1: [1.0, 1.0, 1.0], 8: wide, 64: [2.0, 2.02, 2.01]}
    found = timing.noise(medians)
    assert found["at_size"] == 8 and found["spread_limit"] == limit
    assert found["largest_spread"] == pytest.approx(limit + over)
    assert found["too_noisy"] is (over > 0)


def test_the_demo_prints_and_saves_its_noise_and_the_simulator_warns(tmp_path):
    from generator.simulation import validate as simulation
    from lab import demo

    printed: list[str] = []
    spell = range(20, 30)
    timings, runs = demo.time_model(None, None, printed.append, timer=StandIn(spell))
    assert [entry["batch_size"] for entry in timings] == list(demo.SIZES)
    assert runs["orders"] == [part_a.sizes_order(demo.SEED + run) for run in range(demo.RUNS)]
    assert all(entry["per_call_us"] == COST_NS[entry["batch_size"]] / 1e3 for entry in timings)
    assert printed[-1].startswith("  TOO NOISY TO LEAN ON: the runs of ")
    assert "differ by 80.0% of their median, more than the 20% limit" in printed[-1]
    block = demo.part_a_block(timings, runs)
    assert block["noise"]["too_noisy"] is True and block["runs"] == demo.RUNS
    saved = {"format": demo.DEMO_FORMAT,
             "machine": {"cpu_model": "a test CPU", "cores": 2, "python": "3.11"},
             "part_a": block}  # fmt: skip
    sim = simulation.load_simulator()
    assert sim.demo_caution(sim.read_demo(saved)).startswith(
        "Warning: this demo file's timings are too noisy to lean on"
    )
    steady_timings, steady = demo.time_model(None, None, printed.append, timer=StandIn())
    assert printed[-1] == (
        "  The runs agree within 0.0% at worst (1 row), inside the 20% limit: steady enough "
        "to compare sizes."
    )
    assert sim.demo_caution(sim.read_demo(dict(saved, part_a=demo.part_a_block(
        steady_timings, steady)))) == ""  # fmt: skip
