"""Switchback runs (issue 28): the slices, the two arms' routes in the real app, the added
work's cost, the schedule and the raw format (format 3 for the new kind, old kinds as before),
one real service and client end to end, a campaign run through the runner's executor, and the
benchmark's quick mode writing a valid JSON.

Run: `.venv/bin/pytest -p no:cacheprovider tests/test_switchback.py`
"""

import dataclasses
import json
import statistics
import subprocess
import sys
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient

from lab import design
from lab.bench import switchback as bench
from lab.campaign.context import Context
from lab.campaign.runner import execute
from lab.campaign.schedule import build_schedule
from lab.load.arrivals import poisson_arrivals, slice_arms, twin_slice_arrivals
from lab.load.openloop import run_open_loop
from lab.paths import REPO
from lab.rawformat import codec
from lab.service.process import get_json
from lab.service.server_timing import parse_server_timing
from lab.service.switchback import SPIN, StoreWithAddedWork, create_switchback_app, spin
from lab.servicespec import NONE, QUEUE_B1, ServiceSpec, Setting
from tests.support.profiles import TINY

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

PROFILE = dataclasses.replace(
    TINY,
    switchbacks=(
        design.Switchback(design.NONE, design.QUEUE_B1),
        design.Switchback(design.NONE, design.NONE),
    ),
    switchback_runs=2,
    window_s=0.6,
    slice_s=0.1,
)


# --- the slices ---------------------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1])
def test_a_request_goes_to_the_arm_of_the_slice_it_is_scheduled_in_edges_included(first):
    arrival_us = np.array([0, 1, 499_999, 500_000, 500_001, 999_999, 1_000_000, 1_500_000,
                           7_999_999])  # fmt: skip
    slices = np.array([0, 0, 0, 1, 1, 1, 2, 3, 15])
    assert slice_arms(arrival_us, 500_000, first).tolist() == ((first + slices) % 2).tolist()


def test_slices_alternate_and_split_poisson_arrivals_about_evenly():
    arrival_us = (poisson_arrivals(750.0, 8.0, seed=3) * 1e6).astype(np.int64)
    arms = slice_arms(arrival_us, 500_000, 1)
    assert arms.dtype == np.uint8 and set(arms.tolist()) == {0, 1}
    changes = np.flatnonzero(np.diff(arms))  # the arm changes only where a slice starts
    assert (arrival_us[changes] // 500_000 != arrival_us[changes + 1] // 500_000).all()
    assert len(changes) == 15 and arms[0] == 1
    assert abs(arms.mean() - 0.5) < 0.05


def test_a_bad_slice_or_first_arm_is_refused():
    with pytest.raises(ValueError, match="slice_us"):
        slice_arms(np.arange(3), 0, 0)
    with pytest.raises(ValueError, match="first_arm"):
        slice_arms(np.arange(3), 10, 2)


@pytest.mark.parametrize("rate, window_s, slice_s", [(750.0, 8.0, 0.5), (40.0, 2.0, 0.1)])
def test_twin_slices_repeat_each_first_slices_arrivals_one_slice_later(rate, window_s, slice_s):
    twin = twin_slice_arrivals(rate, window_s, slice_s, seed=5)
    assert (np.diff(twin) >= 0).all() and twin[0] >= 0 and twin[-1] < window_s
    us = np.round(twin * 1e6).astype(np.int64)
    slice_us = round(slice_s * 1e6)
    first, second = us[(us // slice_us) % 2 == 0], us[(us // slice_us) % 2 == 1]
    assert np.array_equal(first + slice_us, second)  # each B slice is its A slice, moved
    # The first slices are the independent stream's own: same seed, same arrivals there.
    plain = np.floor(poisson_arrivals(rate, window_s, seed=5) * 1e6).astype(np.int64)
    assert np.array_equal(first, plain[(plain // slice_us) % 2 == 0])
    arms = slice_arms(us, slice_us, 0)  # so each arm meets the same traffic
    assert (arms == 0).sum() == (arms == 1).sum() == len(first)
    assert abs(len(twin) / (rate * window_s) - 1) < 0.35  # the rate kept, within chance


def test_twin_slices_refuse_a_slice_under_a_microsecond_and_openloop_without_slices():
    with pytest.raises(ValueError, match="slice_s"):
        twin_slice_arrivals(100.0, 1.0, 0.0, seed=1)
    done = subprocess.run([sys.executable, "-m", "lab", "openloop", "--port", "1",
                           "--arrival-rate", "10", "--seed", "1", "--twin-slices", "--out",
                           "/nonexistent/x.run.zip"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2 and "--twin-slices needs --slice-s" in done.stderr


# --- the two arms in the real app (in process) ----------------------------------------------


def post(client, arm: str, customer_id: int):
    return client.post(f"/arm/{arm}/predict", json={"customer_id": customer_id})


def test_each_arm_is_served_by_its_own_setting_with_the_same_answers(
    model, expected_scores, unknown_ids
):
    app = create_switchback_app(NONE, QUEUE_B1, model=model)
    customers = list(expected_scores)[:20]
    with TestClient(app) as client:
        health = client.get("/health").json()
        assert health["arms"]["a"]["batcher"] == "none"
        assert health["arms"]["b"] == {"batcher": "queue", "max_batch": 1, "max_wait_ms": 0.0}
        assert health["added_work_us_b"] == 0.0
        for index, customer in enumerate(customers):
            arm = "ab"[index % 2]
            answer = post(client, arm, customer)
            assert answer.status_code == 200
            assert answer.json() == {"customer_id": customer,
                                     "probability": expected_scores[customer]}  # fmt: skip
            timing = parse_server_timing(answer.headers["server-timing"])
            assert set(timing) == {"ready", "queued", "model", "call", "batch"}
            assert timing["batch"] == 1
        # Only arm B's requests went through a micro-batcher: one batch each.
        assert client.get("/arm/b/batches").json()["batches_made"] == len(customers) // 2
        assert client.get("/arm/a/batches").json()["batches_made"] == 0
        assert post(client, "c", customers[0]).status_code == 404
        assert "arms are 'a' and 'b'" in client.get("/arm/c/batches").json()["detail"]
        assert client.post("/arm/a/predict", content=b"{").status_code == 422
        assert post(client, "b", unknown_ids[0]).status_code == 404  # as /predict


@pytest.mark.parametrize("added_us", [0, 1_000])
def test_swapped_routes_serve_the_other_arm_and_the_added_work_stays_with_b(
    model, expected_scores, added_us
):
    app = create_switchback_app(NONE, QUEUE_B1, added_work_us_b=added_us, swap_routes=True,
                                model=model)  # fmt: skip
    customers = list(expected_scores)[:20]
    ready = {"a": [], "b": []}
    with TestClient(app) as client:
        health = client.get("/health").json()
        assert health["routes"] == {"a": "b", "b": "a"}
        assert health["arms"]["b"] == {"batcher": "queue", "max_batch": 1, "max_wait_ms": 0.0}
        for customer in customers:
            for route in "ab":
                answer = post(client, route, customer)
                assert answer.json()["probability"] == expected_scores[customer]
                timing = parse_server_timing(answer.headers["server-timing"])
                ready[route].append(timing["ready"])
        # Route a serves arm B (queue B=1): its requests, and only they, were batched.
        assert client.get("/arm/a/batches").json()["batches_made"] == len(customers)
        assert client.get("/arm/b/batches").json()["batches_made"] == 0
    if added_us:  # the added work follows arm B to route a
        extra_us = (statistics.median(ready["a"]) - statistics.median(ready["b"])) * 1000
        assert extra_us >= 0.8 * added_us  # CPU time: longer in wall time on a shared core
    unswapped = create_switchback_app(NONE, QUEUE_B1, model=model)
    with TestClient(unswapped) as client:
        assert client.get("/health").json()["routes"] == {"a": "a", "b": "b"}


def test_both_arms_batch_with_their_own_cap_and_wait(model):
    app = create_switchback_app(
        Setting("queue", 32, 0.0),
        Setting("queue", 32, 1.0),
        model=model,
    )
    with TestClient(app) as client:
        arms = app.state.predictors
        assert arms["a"].batcher is not arms["b"].batcher
        assert (arms["a"].batcher.max_wait_s, arms["b"].batcher.max_wait_s) == (0.0, 0.001)
        assert client.get("/health").json()["arms"]["b"]["max_wait_ms"] == 1.0


def test_a_setting_outside_the_design_is_refused(model):
    with pytest.raises(ValueError, match="B=1 with W>0"):
        create_switchback_app(NONE, Setting("queue", 1, 1.0), model=model)
    with pytest.raises(ValueError, match="added work"):
        create_switchback_app(NONE, NONE, added_work_us_b=-1, model=model)


# --- the added work (calibration check only) ------------------------------------------------


def us_per_call(work, clock=time.perf_counter_ns, calls: int = 200) -> float:
    """Median µs of one call to `work` by `clock`: the clock (perf_counter_ns) or the thread's
    CPU (thread_time_ns; a call the scheduler cut is an outlier)."""
    spent = []
    for _ in range(calls):
        before = clock()
        work()
        spent.append((clock() - before) / 1000)
    return statistics.median(spent)


@pytest.mark.parametrize("added_us", [50, 150])
def test_the_added_work_is_its_amount_on_the_clock_and_busy_on_the_core(store, known_ids, added_us):
    # To the clock: never shorter than asked, and not much longer (one last turn of the loop).
    assert added_us <= us_per_call(lambda: spin(added_us)) <= added_us + 20
    # Busy, not a sleep: it uses the core for most of that time (a sleep would use none).
    assert us_per_call(lambda: spin(added_us), time.thread_time_ns) >= 0.5 * added_us
    customer = known_ids[0]
    worked = StoreWithAddedWork(store, added_us)
    assert np.array_equal(worked.row(customer), store.row(customer))
    assert worked.summary()["spins"] == 1 and worked.summary()["added_us"] == added_us
    assert added_us <= worked.summary()["wall_us_p50"] <= added_us + 20
    assert worked.summary()["spin"] == SPIN


def test_the_added_work_spins_after_the_row_is_found(store, known_ids):
    """Last in the lookup, so what a spin costs the code after it falls outside the stage."""
    order = []

    class Store:
        def row(self, customer_id):
            order.append(("row", time.perf_counter_ns()))
            return store.row(customer_id)

    worked = StoreWithAddedWork(Store(), 2_000)
    worked.row(known_ids[0])
    returned = time.perf_counter_ns()
    assert order and returned - order[0][1] >= 2_000_000  # the 2 ms came after the lookup began
    assert worked.spins_wall_ns[0] >= 2_000_000


def test_the_added_work_lands_in_arm_bs_ready_stage_only(model, expected_scores):
    added_us = 1_000  # far above the lookup's own noise in a test client
    app = create_switchback_app(NONE, NONE, added_work_us_b=added_us, model=model)
    customers = list(expected_scores)[:30]
    ready = {"a": [], "b": []}
    with TestClient(app) as client:
        for customer in customers:
            for arm in "ab":
                answer = post(client, arm, customer)
                assert answer.json()["probability"] == expected_scores[customer]
                ready[arm].append(parse_server_timing(answer.headers["server-timing"])["ready"])
        batches = client.get("/arm/b/batches").json()
    extra_us = (statistics.median(ready["b"]) - statistics.median(ready["a"])) * 1000
    # The spin runs to the clock, so the stage holds about the amount, whoever takes the core.
    assert 0.9 * added_us <= extra_us <= 1.3 * added_us
    assert batches["added_work"]["spins"] == len(customers)
    assert batches["added_work"]["spin"] == SPIN


# --- the schedule and the raw format ----------------------------------------------------------


def test_the_schedule_puts_the_switchback_runs_after_part_b_each_with_a_drawn_first_arm():
    schedule = build_schedule(PROFILE, seed=5)
    kinds = [run["kind"] for run in schedule]
    runs = [run for run in schedule if run["kind"] == "switchback"]
    assert len(runs) == 4 and len({run["run_id"] for run in runs}) == 4
    assert kinds.index("switchback") > max(i for i, k in enumerate(kinds) if k == "part_b")
    assert kinds.index("part_c") > max(i for i, k in enumerate(kinds) if k == "switchback")
    assert [run["run_index"] for run in runs] == [0, 0, 1, 1]
    assert {run["first_arm"] for run in runs} <= {"a", "b"}
    assert {type(run["swap_routes"]) for run in runs} == {bool}
    assert {run["run_id"] for run in runs} >= {"switchback-0-none-vs-b1-w0",
                                                "switchback-1-none-vs-none"}  # fmt: skip
    assert runs[0]["slice_s"] == 0.1 and runs[0]["rate_multiple"] == design.QUIET_RATE
    assert build_schedule(PROFILE, seed=5) == schedule
    worked = dataclasses.replace(
        PROFILE, switchbacks=(design.Switchback(design.NONE, design.NONE, 150.0),)
    )
    assert build_schedule(worked, 1)[-2]["run_id"].endswith("none-vs-none-plus150us")


def test_the_committed_campaigns_schedules_are_unchanged():
    for folder in sorted((REPO / "data" / "raw").iterdir()):
        header = json.loads((folder / "campaign.json").read_text())
        expected = json.loads((folder / "schedule.json").read_text())
        assert build_schedule(design.PROFILES[header["profile"]], header["seed"]) == expected


def test_a_switchback_run_is_format_3_and_every_older_kind_still_format_2(tmp_path):
    rng = np.random.default_rng(1)
    arrival_us = np.sort(rng.integers(0, 8_000_000, 3000)).astype(np.uint32)
    columns = {
        "arrival_us": arrival_us,
        "arm": slice_arms(arrival_us, 500_000, 1),
        "latency_us": rng.integers(500, 9000, 3000).astype(np.int64),
        "status": np.full(3000, 200, np.uint16),
        "batches_arm": np.array([0, 0, 1], np.uint8),
        "batches_size": np.array([1, 2, 1], np.uint16),
    }
    path = tmp_path / "runs" / "switchback-0.run.zip"
    shared = {"arrival_us": tmp_path / "arrivals" / "s0-x0.5.zip"}
    codec.write_run(path, {"kind": "switchback", "first_arm": "b", "slice_us": 500_000},
                    dict(columns), shared=shared, log8=("latency_us",))  # fmt: skip
    meta, found = codec.read_run(path)
    assert meta["format"] == "batching-lab-run/3" and meta["first_arm"] == "b"
    assert found["arm"].dtype == np.uint8
    for name in ("arrival_us", "arm", "status", "batches_arm", "batches_size"):
        assert np.array_equal(found[name], columns[name]), name
    kept = np.abs(found["latency_us"] - columns["latency_us"]) <= columns["latency_us"] / 256
    assert kept.all()
    # Every arm follows from the stored arrivals, the slice and the first arm.
    assert np.array_equal(found["arm"], slice_arms(found["arrival_us"], meta["slice_us"], 1))
    for kind in ("part_a", "bits", "saturation", "part_b", "part_c", "client"):
        codec.write_run(tmp_path / f"{kind}.run.zip", {"kind": kind}, {"v": np.arange(3)})
        assert codec.read_meta(tmp_path / f"{kind}.run.zip")["format"] == "batching-lab-run/2"


def test_a_format_nobody_wrote_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "x.run.zip"
    with monkeypatch.context() as patched:
        patched.setattr(codec, "format_of", lambda kind, meta=None: "batching-lab-run/5")
        codec.write_run(path, {"kind": "switchback"}, {"v": np.arange(3)})
    with pytest.raises(codec.RawFileError, match="batching-lab-run/5"):
        codec.read_run(path)


# --- end to end: one real service process, the campaign's executor, the benchmark ----------


@pytest.mark.parametrize("swap_routes", [False, True])
def test_one_service_process_serves_both_arms_slice_by_slice(
    start_service, request_ids_sample, swap_routes
):
    customer_ids, expected = request_ids_sample
    service = start_service(ServiceSpec(NONE, arm_b=QUEUE_B1, swap_routes=swap_routes))
    arrivals_s = poisson_arrivals(200.0, 1.0, seed=11)
    columns, stats = run_open_loop(
        service.host, service.port, arrivals_s, customer_ids, 16, 10.0,
        window_s=1.0, expected=expected[: len(arrivals_s)], slice_us=100_000, first_arm=1,
        swap_routes=swap_routes,
    )  # fmt: skip
    arm = columns["arm"]
    assert np.array_equal(arm, (1 + columns["arrival_us"].astype(np.int64) // 100_000) % 2)
    assert stats["slices"] == 10 and stats["arm_requests"] == [int((arm == 0).sum()),
                                                               int((arm == 1).sum())]  # fmt: skip
    assert (columns["status"] == 200).all()
    assert stats["answers_compared"] == len(arrivals_s) and stats["answers_differing"] == 0
    # The service's own records: arm B's batcher scored exactly B's requests; A has none
    # (asked of the route serving each arm: /arm/a/batches is arm B's when swapped).
    assert service.batches("b")["rows_scored"] == int((arm == 1).sum())
    assert service.batches("a")["batches_made"] == 0
    route_b = "a" if swap_routes else "b"
    assert get_json(service.host, service.port, f"/arm/{route_b}/batches")[1]["rows_scored"] == (
        int((arm == 1).sum())
    )


@pytest.fixture
def request_ids_sample(expected_scores):
    """300 customers (repeating) and the single-row score of each, to the bit."""
    ids = np.resize(np.array(list(expected_scores), dtype=np.int64), 300)
    return ids, np.array([expected_scores[int(cid)] for cid in ids])


def test_the_campaigns_executor_writes_a_switchback_run(tmp_path, monkeypatch, service_launcher):
    monkeypatch.setenv("LAB_RAW", str(tmp_path))
    run = next(r for r in build_schedule(PROFILE, seed=2) if r["kind"] == "switchback")
    context = Context("sb-test", tmp_path / "sb-test", None, PROFILE, 2, saturation_s=400.0,
                      launcher=service_launcher)  # fmt: skip
    execute(context, run, echo=lambda _: None)
    meta, columns = codec.read_run(tmp_path / "sb-test" / "runs" / f"{run['run_id']}.run.zip")
    assert meta["format"] == "batching-lab-run/3" and meta["kind"] == "switchback"
    assert (meta["arm_a"], meta["arm_b"]) == (run["arm_a"], run["arm_b"])
    assert meta["first_arm"] == run["first_arm"] and meta["slice_us"] == 100_000
    assert meta["swap_routes"] == run["swap_routes"]
    assert meta["slices"] == 6 and meta["client"]["answers_differing"] == 0
    first = "ab".index(run["first_arm"])
    assert np.array_equal(columns["arm"], slice_arms(columns["arrival_us"], 100_000, first))
    assert "call_us" not in columns and columns["batches_arm"].dtype == np.uint8
    b_rows = int(columns["batches_size"][columns["batches_arm"] == 1].sum())
    if run["arm_b"]["batcher"] == "queue":
        assert b_rows == int(((columns["arm"] == 1) & (columns["status"] == 200)).sum())
    assert not (columns["batches_arm"] == 0).any()  # arm A is `none` in both pairs
    assert (tmp_path / "sb-test" / "arrivals" / "s0-x0.5.zip").exists()


def test_the_campaigns_executor_runs_a_twin_slices_pair(tmp_path, monkeypatch, service_launcher):
    monkeypatch.setenv("LAB_RAW", str(tmp_path))
    profile = dataclasses.replace(
        PROFILE, switchbacks=(design.Switchback(design.NONE, design.NONE, twin_slices=True),)
    )
    run = next(r for r in build_schedule(profile, seed=2) if r["kind"] == "switchback")
    assert run["twin_slices"] is True and run["run_id"].endswith("-twin")
    context = Context("sb-twin", tmp_path / "sb-twin", None, profile, 2, saturation_s=400.0,
                      launcher=service_launcher)  # fmt: skip
    execute(context, run, echo=lambda _: None)
    meta, columns = codec.read_run(tmp_path / "sb-twin" / "runs" / f"{run['run_id']}.run.zip")
    assert meta["twin_slices"] is True and meta["client"]["answers_differing"] == 0
    us = columns["arrival_us"].astype(np.int64)
    assert np.array_equal(us[(us // 100_000) % 2 == 0] + 100_000, us[(us // 100_000) % 2 == 1])
    assert (tmp_path / "sb-twin" / "arrivals" / "s0-x0.5-twin.zip").exists()


def test_the_benchmarks_quick_mode_writes_a_valid_json(tmp_path, lab_artifacts):
    out = tmp_path / "switchback.json"
    command = [sys.executable, "-m", "lab.bench.switchback", "--cpu", "1", "--quick",
               "--runs", "1", "--aa-runs", "1", "--added-work-runs", "1", "--window-s", "0.5",
               "--independent-aa-runs", "1", "--slice-s", "0.25",
               "--saturation", "400", "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "[6/6]" in done.stdout
    found = json.loads(out.read_text(), parse_constant=pytest.fail)  # no NaN, no Infinity
    assert found["smoke"] is True and found["saturation_S"] == 400
    assert found["saturation_measured"] is None and found["arrival_rate"] == 200
    assert [pair["runs"] for pair in found["pairs"]] == [1] * 6
    names = {pair["name"] for pair in found["pairs"]}
    twins = {"none vs B=1 W=0", "B=32 W=0 vs B=32 W=1", "none vs none", "none vs none +50 µs",
             "none vs none +150 µs"}  # fmt: skip
    assert names == {f"{name}, twin slices" for name in twins} | {"none vs none"}
    assert {pair["name"] for pair in found["pairs"] if not pair["twin_slices"]} == {"none vs none"}
    assert {run["pair"] for run in found["runs"]} == names
    for run in found["runs"]:
        assert run["first_arm"] in ("a", "b") and run["slices"] == 2
        assert run["swap_routes"] in (True, False)
        assert run["client"]["answers_differing"] == 0
        assert set(run["arms"]) == {"a", "b"}
        for arm in run["arms"].values():
            spun = {"added_work_spins", "added_work_wall_us_p50"} & set(arm)
            assert set(arm) - spun == {
                "requests", "answered", "p50_us", "p99_us", "server_us_p50", "ready_us_p50",
                "batch_mean", "batches", "batches_unfilled", "unfilled_first_wait_us_p50",
            }  # fmt: skip
            assert arm["requests"] > 0 and arm["answered"] == arm["requests"]
            assert arm["p50_us"] <= arm["p99_us"]
            assert 0 < arm["ready_us_p50"] < arm["server_us_p50"]
        pair = next(p for p in found["pairs"] if p["name"] == run["pair"])
        for name, arm in run["arms"].items():  # batches are the arm's, whichever its route
            setting = pair[f"arm_{name}"]
            if setting["batcher"] == "none":
                assert arm["batches"] == 0 and arm["unfilled_first_wait_us_p50"] is None
            else:
                assert arm["batches"] > 0 and arm["batch_mean"] <= setting["max_batch"]
        added = pair["added_work_us_b"]
        assert ("added_work_wall_us_p50" in run["arms"]["b"]) == bool(added)
        assert "added_work_wall_us_p50" not in run["arms"]["a"]
        if added:  # every arm B request spun once, for at least its CPU on the clock
            assert run["arms"]["b"]["added_work_spins"] >= run["arms"]["b"]["answered"]
            assert run["arms"]["b"]["added_work_wall_us_p50"] >= added
        waited = run["arms"]["b"]
        if run["pair"].startswith("B=32 W=0 vs B=32 W=1") and waited["batches_unfilled"]:
            # W = 1 ms: a batch that did not fill waited at least W for its first request
            assert waited["unfilled_first_wait_us_p50"] >= 1000
        assert set(run) >= {"index", "seed", "client", "others_share", "load_before",
                            "load_after", "probe_before", "probe_after"}  # fmt: skip


def test_the_benchmark_interleaves_its_runs_by_index():
    planned = bench.plan(runs=3, aa_runs=1, seed=4)
    assert len(planned) == 3 * 2 + 1 * 3
    assert [run.index for run in planned] == [0] * 5 + [1] * 2 + [2] * 2
    assert {run.pair for run in planned if run.index > 0} == set(bench.COMPARISONS)
    assert {run.first_arm for run in planned} == {"a", "b"}
    assert bench.plan(runs=3, aa_runs=1, seed=4) == planned


def test_the_benchmark_swaps_the_routes_of_about_half_the_runs_of_every_pair():
    planned = bench.plan(runs=40, aa_runs=40, seed=1)
    for pair in bench.COMPARISONS + bench.CONTROLS:
        swapped = [run.swap_routes for run in planned if run.pair == pair]
        assert len(swapped) == 40 and 10 <= sum(swapped) <= 30, (pair.name, sum(swapped))
    # Swapping crosses nothing else: first arm and route are drawn apart.
    crossed = {(run.first_arm, run.swap_routes) for run in planned}
    assert crossed == {("a", False), ("a", True), ("b", False), ("b", True)}


def test_the_serve_command_refuses_arm_b_options_without_arm_b():
    import argparse

    from lab.service import serve

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    for lone in (["--swap-routes"], ["--added-work-us-b", "50"]):
        with pytest.raises(ValueError, match="needs two arms: give --arm-b-batcher"):
            ServiceSpec.from_arguments(parser.parse_args(lone))
    swapped = ServiceSpec.from_arguments(
        parser.parse_args(["--arm-b-batcher", "queue", "--arm-b-max-batch", "1", "--swap-routes"])
    )
    assert swapped.swap_routes is True and swapped.arm_b == QUEUE_B1
    assert "--swap-routes" in swapped.arguments()
    assert ServiceSpec.from_json(swapped.to_json()) == swapped
