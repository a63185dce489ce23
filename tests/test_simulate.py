"""The simulator (site_src/explorer/simulate.py) and its check against the lab
(generator/simulation/validate.py): deterministic, right on queues with known answers, faithful to
the batcher's rules and to the machinery (timer, batcher, client) the campaign recorded; its costs
at S from no Part B number, the growth with load from results.json alone (the unbatched cells
only); other costs and the reader's machine (a demo file, refused field by field when wrong).
Its speed is a benchmark, not a test (tests/bench_simulate.py).

Run: `.venv/bin/pytest -q tests/test_simulate.py`.
"""

import ast
import copy
import inspect
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from generator.simulation import validate as simulation

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "fixtures" / "golden" / "assets" / "data" / "results.json"
PART_B_KEYS = ("part_b", "paired", "waits")


@pytest.fixture(scope="module")
def sim():
    """The simulator, loaded by path as the generator (and the reader's browser) load it."""
    return simulation.load_simulator()


@pytest.fixture(scope="module")
def results() -> dict:
    """The fixture campaign's results (cut from real raw data), its validation table read in
    as the explorer reads it."""
    found = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert found["saturation"]["client_cpu_us_per_request"] > 0
    return simulation.load_simulator().with_table(found, str(GOLDEN.parent))


@pytest.fixture(scope="module")
def costs(sim, results) -> dict:
    return sim.calibrate(results["part_a"], results["saturation"], results["part_c"])


def queue_costs(service_us: float, spread: str) -> dict:
    """A machine whose only cost is the handler's fixed (or exponential) service time."""
    return {
        "model_sizes": [1],
        "model_us": [service_us],
        "client_send_us": 0.0,
        "client_receive_us": 0.0,
        "handler_before_us": 0.0,
        "answer_us": 0.0,
        "batcher_us_per_batch": 0.0,
        "timer_slack_us": 50.0,
        "slice_us": 1500.0,
        "tick_us": 4000.0,
        "timer": "uvloop",
        "spread": spread,
        "S": 1e6 / service_us,
    }


# --- deterministic ----------------------------------------------------------------------


def test_the_same_seed_gives_the_same_run_and_another_seed_another(sim, costs):
    rate = 1.25 * costs["S"]
    first = sim.run(32, 2, rate, costs, 2.0, seed=7)
    again = sim.run(32, 2, rate, costs, 2.0, seed=7)
    other = sim.run(32, 2, rate, costs, 2.0, seed=8)
    assert first == again
    assert first["requests"] != other["requests"] or first["p50_ms"] != other["p50_ms"]


def test_the_readers_text_is_the_same_for_the_same_seed(sim, results):
    text = sim.simulate(results, 8, 1, 1.6, seed=3, window_s=2.0)
    assert text == sim.simulate(results, 8, 1, 1.6, seed=3, window_s=2.0)
    assert "SIMULATED, NOT MEASURED" in text.splitlines()[0]
    assert "B=8 W=1 at 1.6 × S" in text


# --- queueing theory (mode none, the handler's cost only) ---------------------------------


def mean_wait_us(sim, service_us: float, load: float, spread: str, seeds=range(3)) -> float:
    """Mean time from arrival to the answer written, less the service time, over 100 s
    windows: the service's own queue, which is FIFO and never idles while a request waits."""
    costs = queue_costs(service_us, spread)
    waits = []
    for seed in seeds:
        arrivals = sim.poisson_arrivals_us(load / service_us * 1e6, 100.0, seed)
        served = sim.serve(arrivals, 0, 0, costs, seed)
        sojourn = statistics.fmean(
            w - a for w, a in zip(served["written_us"], arrivals, strict=True)
        )
        waits.append(sojourn - service_us)
    return statistics.fmean(waits)


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_fixed_costs_give_the_md1_mean_wait_within_3_percent(sim, load):
    service_us = 500.0
    expected = load * service_us / (2 * (1 - load))  # Pollaczek-Khinchine, deterministic
    assert mean_wait_us(sim, service_us, load, "fixed") == pytest.approx(expected, rel=0.03)


def test_exponential_costs_give_the_mm1_mean_wait_within_5_percent(sim):
    service_us, load = 500.0, 0.5
    expected = load * service_us / (1 - load)
    assert mean_wait_us(sim, service_us, load, "exponential") == pytest.approx(expected, rel=0.05)


def test_one_request_alone_takes_exactly_its_costs(sim, costs):
    for max_batch in (0, 1, 32):
        served = sim.serve([1000.0], max_batch, 0, costs, seed=0)
        total = (costs["client_send_us"] + costs["handler_before_us"] + costs["model_us"][0]
                 + costs["answer_us"] + costs["client_receive_us"])  # fmt: skip
        assert served["done_us"][0] - 1000.0 == pytest.approx(total, abs=1e-6)


# --- the batcher's rules, as lab/service/batcher.py keeps them ------------------------------------


def test_a_timed_batch_never_leaves_before_w_and_never_exceeds_b(sim, costs):
    arrivals = sim.poisson_arrivals_us(0.8 * costs["S"], 2.0, 1)
    served = sim.serve(arrivals, 32, 2, costs, seed=1)
    assert min(served["first_wait_us"]) >= 2000
    assert max(served["batch_size"]) <= 32
    assert served["timers"] > 0
    busy = sim.serve(sim.poisson_arrivals_us(2.5 * costs["S"], 2.0, 1), 8, 10, costs, seed=1)
    assert max(busy["batch_size"]) == 8


def test_w_0_never_waits_on_purpose_and_none_never_batches(sim, costs):
    arrivals = sim.poisson_arrivals_us(1.6 * costs["S"], 2.0, 2)
    served = sim.serve(arrivals, 32, 0, costs, seed=2)
    assert served["timers"] == 0
    assert max(served["batch_size"]) > 1  # rows that gathered while the model was busy
    none = sim.serve(arrivals, 0, 0, costs, seed=2)
    assert set(none["batch_size"]) == {1} and none["first_wait_us"] == []


def test_a_single_request_waits_w_then_at_most_a_timer_tick_more(sim, costs):
    alone = sim.serve([5000.0], 32, 2, costs, seed=4)
    total = (costs["client_send_us"] + costs["handler_before_us"] + costs["model_us"][0]
             + costs["answer_us"] + costs["client_receive_us"])  # fmt: skip
    waited = alone["done_us"][0] - 5000.0 - total
    assert 2000 <= waited <= 2000 + 1000 + costs["timer_slack_us"]


# --- calibration: never from Part B -------------------------------------------------------


def test_the_calibration_takes_only_part_a_saturation_and_part_c(sim):
    assert list(inspect.signature(sim.calibrate).parameters) == ["part_a", "saturation", "part_c"]
    inputs = simulation.calibration_inputs({"saturation": {}, "part_b": {}, "campaign": {}})
    assert sorted(inputs) == ["part_a", "part_c", "saturation"]


def test_the_costs_at_s_do_not_change_without_part_b_and_only_the_load_fit_reads_it(sim, results):
    without = {key: value for key, value in results.items() if key not in PART_B_KEYS}
    calibrated = sim.calibrate(**simulation.calibration_inputs(results))
    assert sim.calibrate(**simulation.calibration_inputs(without)) == calibrated
    whole, alone = sim.calibrate_results(results), sim.calibrate_results(without)
    assert "load" in whole and "load" not in alone
    assert "round_speeds" in whole and "round_speeds" not in alone  # fitted on Part B too
    same = {key: whole[key] for key in whole if key not in ("load", "sources", "round_speeds")}
    assert same.pop("batcher_us_per_batch") == whole["load"]["batcher_us_per_batch"]
    assert same.pop("service_wake_us") == whole["load"]["service_wake_us"]
    assert {key: alone[key] for key in same} == same


def test_the_whole_calibration_reads_only_the_results_json_numbers_it_names(sim, results):
    """calibrate_results() is a function of results.json alone: every key it reads is one it
    declares (a `*` stands for a setting's name or a rate key), and it opens no file."""
    seen: set = set()
    calibrated = sim.calibrate_results(Reading(results, "", seen))
    declared = [re.escape(path).replace(r"\*", r".+") for path in calibrated["sources"]["read"]]
    pattern = re.compile("|".join(f"(?:{path})" for path in declared))
    read = {path.lstrip(".") for path in seen}
    assert any(path.startswith("part_b.") for path in read)
    assert any(path.startswith("machinery.") for path in read)
    assert [path for path in read if not pattern.fullmatch(path)] == []


def cells_on_lines(client: tuple, outside: tuple, model_one: float, per_batch: float) -> dict:
    """Part B cells of none and queue B=1 that fell behind, made from known straight lines:
    throughput = 10⁶ / (client + outside + model [+ per batch]) at each rate; and a batched
    setting the fit must ignore."""
    rates = {"none": (0, 0.0), "B=1 W=0": (1, per_batch), "B=8 W=0": (8, 1e6)}
    settings = {}
    for name, (cap, extra) in rates.items():
        cells = {}
        for x in (0.5, 1.0, 1.5, 2.5):
            client_us = client[0] + client[1] * x
            outside_us = outside[0] + outside[1] * x
            behind = x >= 1.0
            cells[f"{x:g}"] = {
                "rounds": [0, 1],
                "client_cpu_us_per_request": client_us,
                "keeps_up_rounds": 0 if behind else 2,
                "throughput": 1e6 / (client_us + outside_us + model_one + extra),
            }
        settings[name] = {"max_batch": cap, "rates": cells}
    return {"settings": settings}


def test_the_load_fit_finds_the_lines_the_cells_were_made_from(sim, costs):
    client, outside, per_batch = (90.0, -8.0), (280.0, 6.0), 40.0
    part_b = cells_on_lines(client, outside, costs["model_us"][0], per_batch)
    fitted = sim.load_fit(part_b, {}, costs)
    assert fitted["client_line"] == pytest.approx(client, abs=1e-3)
    assert fitted["outside_line"] == pytest.approx(outside, abs=1e-3)
    assert fitted["batcher_us_per_batch"] == pytest.approx(per_batch, abs=1e-3)
    # no service CPU in these cells: the wake cost comes from the client's line, and says so
    assert fitted["service_wake_us"] == pytest.approx(client[0] - costs["sources"]["client_us"],
                                                      abs=1e-3)  # fmt: skip
    assert fitted["wake_from"] == "client"
    assert fitted["fell_behind_none"] == [1.0, 1.5, 2.5]
    # at a rate the costs are on those lines, as factors on the costs at S
    loaded = sim.at_load(dict(costs, load=fitted), 2.0 * costs["S"])
    assert loaded["client_send_us"] + loaded["client_receive_us"] == pytest.approx(
        client[0] + 2.0 * client[1]
    )
    assert loaded["handler_before_us"] + loaded["answer_us"] == pytest.approx(
        outside[0] + 2.0 * outside[1]
    )


def cells_with_wakes(awake_us: float, wake_us: float, behind_us: list) -> dict:
    """None cells made from a known wake cost: where none fell behind the service's CPU per
    answer is one of `behind_us` (their median is the awake work); where it kept up at
    `rate` answers/s it slept a share q = 1 − rate × cpu / 10⁶ and spent w·q more, so
    cpu = (awake + w) / (1 + w × rate / 10⁶). A batched setting with other numbers must not
    count."""
    none, batched = {}, {}
    for x, rate in ((0.25, 300.0), (0.5, 600.0), (0.8, 950.0)):
        cpu = (awake_us + wake_us) / (1 + wake_us * rate / 1e6)
        none[f"{x:g}"] = {"rounds": [0, 1], "keeps_up": True, "keeps_up_rounds": 2,
                          "throughput": rate, "service_cpu_us_per_answer": cpu}  # fmt: skip
        batched[f"{x:g}"] = dict(none[f"{x:g}"], service_cpu_us_per_answer=5 * cpu)
    for x, cpu in zip((1.0, 1.5, 2.0, 2.5), behind_us, strict=True):
        none[f"{x:g}"] = {"rounds": [0, 1], "keeps_up": False, "keeps_up_rounds": 0,
                          "throughput": 1e6 / cpu, "service_cpu_us_per_answer": cpu}  # fmt: skip
    none["1.2"] = {"rounds": [0, 1], "keeps_up": False, "keeps_up_rounds": 1,  # in between
                   "throughput": 1000.0, "service_cpu_us_per_answer": 5000.0}  # fmt: skip
    return {"none": {"max_batch": 0, "rates": none},
            "B=8 W=0": {"max_batch": 8, "rates": batched}}  # fmt: skip


def test_the_wake_fit_finds_the_wake_cost_the_cells_were_made_from(sim):
    fitted = sim.wake_fit(cells_with_wakes(880.0, 210.0, [870.0, 880.0, 890.0, 1500.0]))
    assert fitted["wake_from"] == "service"
    assert fitted["awake_us"] == pytest.approx(885.0)  # the median: the outlier does not tilt it
    # the median of 870, 880, 890 and 1500 is 885, not the 880 the cells were made from, so
    # the fit is exact only when the awake level is: made again on a level of 885
    fitted = sim.wake_fit(cells_with_wakes(885.0, 210.0, [870.0, 880.0, 890.0, 1500.0]))
    assert fitted["service_wake_us"] == pytest.approx(210.0, abs=1e-3)
    assert [cell[0] for cell in fitted["wake_cells"]] == [0.25, 0.5, 0.8]
    asleep = [cell[1] for cell in fitted["wake_cells"]]
    assert asleep == sorted(asleep, reverse=True) and 0 < asleep[-1] < asleep[0] < 1
    none_wake = sim.wake_fit(cells_with_wakes(885.0, 0.0, [885.0] * 4))
    assert none_wake["service_wake_us"] == pytest.approx(0.0, abs=1e-6)


def test_the_wake_fit_needs_none_cells_that_kept_up_and_that_fell_behind(sim):
    settings = cells_with_wakes(885.0, 210.0, [885.0] * 4)
    only_behind = copy.deepcopy(settings)
    only_behind["none"]["rates"] = {key: cell for key, cell in settings["none"]["rates"].items()
                                    if not cell["keeps_up"]}  # fmt: skip
    assert sim.wake_fit(only_behind) is None
    unpublished = copy.deepcopy(settings)
    for cell in unpublished["none"]["rates"].values():
        del cell["service_cpu_us_per_answer"]
    assert sim.wake_fit(unpublished) is None
    assert sim.wake_fit({}) is None


def cells_with_round_speeds(speeds: list) -> dict:
    """Part B whose unbatched cells that fell behind in every round had round r's throughput
    = speeds[r] × the cell's median (the speeds' median is 1); a cell that kept up in some
    round, and a batched one, with other numbers, must not count."""
    behind, ordered = {}, sorted(speeds)
    assert ordered[len(ordered) // 2] == 1.0
    for x, level in ((1.0, 1000.0), (1.5, 1040.0), (2.5, 990.0)):
        behind[f"{x:g}"] = {"rounds": list(range(len(speeds))), "keeps_up_rounds": 0,
                            "throughput": level,
                            "by_round": {"throughput": [level * s for s in speeds]}}  # fmt: skip
    odd = {"rounds": list(range(len(speeds))), "keeps_up_rounds": 2, "throughput": 500.0,
           "by_round": {"throughput": [250.0 * (i + 1) for i in range(len(speeds))]}}  # fmt: skip
    return {"settings": {
        "none": {"max_batch": 0, "rates": dict(behind, **{"0.5": odd})},
        "B=1 W=0": {"max_batch": 1, "rates": behind},
        "B=8 W=0": {"max_batch": 8, "rates": {"2.5": dict(odd, keeps_up_rounds=0)}},
    }}  # fmt: skip


def test_the_round_speeds_are_each_rounds_share_of_the_saturated_throughput(sim):
    speeds = [1.0, 0.96, 1.03, 1.0, 0.9]
    assert sim.round_speeds(cells_with_round_speeds(speeds)) == pytest.approx(speeds)
    assert sim.round_speeds({"settings": {}}) is None and sim.round_speeds(None) is None
    costs = {"round_speeds": speeds}
    assert [sim.seed_speed(costs, seed) for seed in range(7)] == [*speeds, *speeds[:2]]
    assert sim.seed_speed({}, 3) == 1.0


def test_a_seed_at_half_the_speed_takes_twice_as_long_for_everything(sim, costs):
    slow = sim.at_speed(dict(costs, service_wake_us=30.0), 0.5)
    for part in sim.SPEED_PARTS:
        assert slow[part] == pytest.approx(2 * dict(costs, service_wake_us=30.0)[part])
    assert slow["model_us"] == pytest.approx([2 * value for value in costs["model_us"]])
    assert slow["S"] == costs["S"]  # the rates stay where they were asked
    alone = sim.serve([1000.0], 0, 0, costs, seed=0)["done_us"][0] - 1000.0
    halved = sim.serve([1000.0], 0, 0, sim.at_speed(costs, 0.5), seed=0)["done_us"][0] - 1000.0
    assert halved == pytest.approx(2 * alone)
    assert sim.at_speed(costs, 1.0) is costs


def test_no_unbatched_cell_that_fell_behind_means_no_load_fit(sim, costs):
    part_b = cells_on_lines((90.0, -8.0), (280.0, 6.0), costs["model_us"][0], 40.0)
    for setting in part_b["settings"].values():
        for cell in setting["rates"].values():
            cell["keeps_up_rounds"] = 2
    assert sim.load_fit(part_b, {}, costs) is None
    assert sim.at_load(costs, 2.0 * costs["S"]) is costs


# --- the machinery the campaign recorded ---------------------------------------------------


@pytest.mark.parametrize(
    ("recorded", "timer", "batcher", "clock"),
    [
        ({"kind": "first", "answer_clocks": {}}, "uvloop", "task", "read"),
        (
            {"kind": "second", "answer_clocks": {"kernel receive timestamp": 9, "client read": 1}},
            "timerfd",
            "inline",
            "received",
        ),  # fmt: skip
        ({"kind": "second", "answer_clocks": {"client read": 5}}, "timerfd", "inline", "read"),
        (None, "uvloop", "task", "read"),
    ],
)
def test_the_timer_follows_the_recorded_machinery(sim, results, recorded, timer, batcher, clock):
    changed = dict(results, machinery=recorded) if recorded else dict(results, machinery=None)
    costs = sim.calibrate_results(changed)
    assert (costs["timer"], costs["batcher"], costs["answer_clock"]) == (timer, batcher, clock)


def test_a_precise_timer_waits_exactly_w_and_uvloops_up_to_a_millisecond_more(sim, costs):
    """One request alone, W = 2 ms: the timerfd fires at W to the µs; uvloop's whole-ms timer
    on its whole-ms clock fires at W or up to 1 ms and the timer slack later."""
    total = (costs["client_send_us"] + costs["handler_before_us"] + costs["model_us"][0]
             + costs["answer_us"] + costs["client_receive_us"])  # fmt: skip
    precise = dict(costs, timer="timerfd")
    waited = [sim.serve([5000.0], 32, 2, precise, seed)["done_us"][0] - 5000.0 - total
              for seed in range(20)]  # fmt: skip
    assert waited == pytest.approx([2000.0] * 20, abs=1e-6)
    loose = [sim.serve([5000.0], 32, 2, costs, seed)["done_us"][0] - 5000.0 - total
             for seed in range(20)]  # fmt: skip
    assert all(2000 <= wait <= 3000 + costs["timer_slack_us"] for wait in loose)
    assert max(loose) > 2000 + costs["timer_slack_us"]


def test_the_second_machinery_scores_a_full_batch_in_its_handler_and_times_the_write(sim, costs):
    second = dict(costs, timer="timerfd", batcher="inline", answer_clock="received",
                  client_collect_us=sim.COLLECT_US)  # fmt: skip
    arrivals = sim.poisson_arrivals_us(2.5 * costs["S"], 2.0, 3)
    served = sim.serve(arrivals, 8, 10, second, seed=3)
    assert max(served["batch_size"]) == 8
    assert min(served["first_wait_us"]) >= 0
    assert served["done_us"] == served["written_us"]  # the kernel's receive timestamp
    alone = sim.serve([5000.0], 32, 0, second, seed=0)
    assert alone["timers"] == 0 and alone["batch_size"] == [1]
    assert alone["done_us"][0] - 5000.0 == pytest.approx(
        costs["client_send_us"] + costs["handler_before_us"] + costs["model_us"][0]
        + costs["answer_us"]
    )  # fmt: skip


class Reading(dict):
    """A dict that notes every key read from it (nested dicts too), as dotted paths."""

    def __init__(self, value: dict, path: str, seen: set):
        super().__init__(value)
        self.path, self.seen = path, seen

    def __getitem__(self, key):
        return self.wrap(key, super().__getitem__(key))

    def get(self, key, default=None):
        return self.wrap(key, super().get(key, default)) if key in self else default

    def values(self):
        return [self[key] for key in self]

    def items(self):
        return [(key, self[key]) for key in self]

    def wrap(self, key, value):
        path = f"{self.path}.{key}"
        if isinstance(value, dict):
            return Reading(value, path, self.seen)
        self.seen.add(path)
        return value


def test_the_calibration_reads_only_the_numbers_it_names(sim, results):
    seen: set = set()
    sections = {name: Reading(results[name], name, seen) for name in ("part_a", "saturation",
                                                                       "part_c")}  # fmt: skip
    calibrated = sim.calibrate(**sections)
    declared = calibrated["sources"]["read"]
    sizes = results["part_a"]["by_size"]
    named = {path.replace("*", size) for path in declared for size in sizes}
    assert {"saturation.S", "part_c.breakdown.single.model_us"} <= seen
    assert seen <= named, f"read but not declared: {sorted(seen - named)}"
    assert all(not path.startswith(PART_B_KEYS) for path in seen)


def test_the_model_curve_goes_through_part_cs_two_in_service_points(sim, results, costs):
    single, batch = (results["part_c"]["breakdown"][k] for k in ("single", "batch"))
    assert costs["model_us"][0] == pytest.approx(single["model_us"], abs=1e-3)
    at_records = sim.interpolate(costs["model_sizes"], costs["model_us"], batch["records"])
    assert at_records == pytest.approx(batch["model_us"], abs=0.01)
    per_answer_us = 1e6 / results["saturation"]["S"]
    assert sim.one_row_us(costs) == pytest.approx(per_answer_us)


def test_a_missing_number_is_named(sim, results):
    broken = copy.deepcopy(results)
    del broken["part_c"]["breakdown"]["single"]["ready_us"]
    with pytest.raises(sim.CalibrationError, match=r"part_c\.breakdown\.single\.ready_us"):
        sim.calibrate(broken["part_a"], broken["saturation"], broken["part_c"])
    with pytest.raises(sim.CalibrationError, match=r"saturation\.client_cpu_us_per_request"):
        sim.calibrate(broken["part_a"], {"S": 1000.0}, results["part_c"])


@pytest.mark.parametrize(
    ("max_batch", "max_wait_ms", "rate", "says"),
    [
        (1, 2, 1000.0, "B=1 with W>0"),
        (0, 1, 1000.0, "no batching"),
        (1024, 0, 1000.0, "512 requests in flight"),
        (8, -1, 1000.0, "W must be"),
        (8, 1, 0.0, "arrival rate"),
        (8, 1, 1e6, "at most 200,000"),
    ],
)
def test_a_run_the_lab_could_not_do_is_refused_saying_why(sim, costs, max_batch, max_wait_ms,
                                                          rate, says):  # fmt: skip
    with pytest.raises(ValueError, match=says):
        sim.run(max_batch, max_wait_ms, rate, costs)


# --- the check against the lab ------------------------------------------------------------


def test_every_measured_cell_is_simulated_and_compared(sim, results):
    found = simulation.validate(results, seeds=2, sim=sim)
    measured = results["part_b"]["settings"]
    expected = {(name, key) for name, setting in measured.items()
                for key, cell in setting["rates"].items() if cell.get("rounds")}  # fmt: skip
    compared = {(name, key) for name, setting in found["settings"].items()
                for key in setting["rates"]}  # fmt: skip
    assert compared == expected
    summary = found["summary"]
    assert summary["cells"] == len(expected)
    agree = 0
    for name, key in expected:
        simulated, lab = found["settings"][name]["rates"][key], measured[name]["rates"][key]
        agree += simulated["keeps_up"] == lab["keeps_up"]
        error = (simulated["p99_ms"] - lab["p99_ms"]) / lab["p99_ms"]
        assert simulated["error"]["p99_ms"] == pytest.approx(error)
    assert summary["keeps_up_agree"] == agree
    kept = [cell for s in measured.values() for cell in s["rates"].values() if cell["keeps_up"]]
    assert summary["kept_up_cells"] == len(kept)


def test_every_other_full_campaign_is_checked_on_its_own_calibration(sim, results):
    """`others`: each other campaign validated from its own results alone (here the fixture
    under another name, once as it is and once without its service CPU, so that its wake
    cost must come from the client's line), summaries only."""
    mine = copy.deepcopy({key: value for key, value in results.items() if key != "simulation"})
    # the fixture's runs are cut short (their answers, not their CPU): service CPU per answer
    # that a wake fit can read, 1,000 µs where none kept up and 900 where it fell behind
    for cell in mine["part_b"]["settings"]["none"]["rates"].values():
        cell["service_cpu_us_per_answer"] = 1000.0 if cell["keeps_up"] else 900.0
    same = copy.deepcopy(mine)
    same["campaign"]["name"] = "same-again"
    older = copy.deepcopy(mine)
    older["campaign"]["name"] = "no-service-cpu"
    for setting in older["part_b"]["settings"].values():
        for cell in setting["rates"].values():
            cell.pop("service_cpu_us_per_answer", None)
    found = simulation.section(mine, seeds=2, others=(same, older))
    assert sorted(found["others"]) == ["no-service-cpu", "same-again"]
    again = found["others"]["same-again"]
    assert again["summary"] == found["summary"] and again["held_out"] == found["held_out"]
    assert again["machinery"] == found["calibration"]["machinery"]
    assert again["wake_from"] == "service" and "settings" not in again
    assert again["service_wake_us"] == found["calibration"]["service_wake_us"]
    assert found["others"]["no-service-cpu"]["wake_from"] == "client"
    assert "others" not in simulation.section(mine, seeds=2)
    no_part_b = dict(copy.deepcopy(mine), part_b=None)
    no_part_b["campaign"]["name"] = "no-part-b"
    skipped = simulation.section(mine, seeds=2, others=(no_part_b,))["others"]["no-part-b"]
    assert skipped == {"skipped": simulation.NO_PART_B}


def test_the_commands_run_and_a_missing_client_cost_is_named(tmp_path, processes):
    done = subprocess.run(
        [sys.executable, "-m", "generator.simulation", "--results", str(GOLDEN), "--seeds", "1",
         "--out", str(tmp_path / "check.json")],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "check.json").read_text())["summary"]["cells"] > 0
    simulator = REPO / "site_src" / "explorer" / "simulate.py"
    command = [sys.executable, str(simulator), "--results", str(GOLDEN), "--max-batch", "32",
               "--max-wait-ms", "2", "--rate", "1.6"]  # fmt: skip
    answered = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert answered.returncode == 0, answered.stderr
    assert "SIMULATED, NOT MEASURED" in answered.stdout
    assert "checked against the lab at the nearest measured cell" in answered.stdout  # the table
    broken = json.loads(GOLDEN.read_text())
    del broken["saturation"]["client_cpu_us_per_request"]
    (tmp_path / "results.json").write_text(json.dumps(broken))
    shutil.copy(GOLDEN.parent / broken["simulation"]["table"], tmp_path)
    command[command.index(str(GOLDEN))] = str(tmp_path / "results.json")
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert "saturation.client_cpu_us_per_request" in refused.stderr


# --- fit for the browser ------------------------------------------------------------------


def test_the_simulator_imports_only_the_standard_library():
    tree = ast.parse((REPO / "site_src" / "explorer" / "simulate.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}  # fmt: skip
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}  # fmt: skip
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
