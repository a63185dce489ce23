"""The shared-core trace (lab/schedtrace.py) on real processes: a real service and the
open-loop client pinned to one core, recorded with `perf` from another core, then counted.

Every request the client sent is found in the trace and answered once; uvicorn writes each
answer as two writes (head, then body); at a low rate nothing is served out of order; and
queue B=1 answers in the same event-loop iteration as none does (the micro-batcher scores a
full batch inside the handler). Skipped where `perf` cannot record tracepoints.

Run: .venv/bin/pytest tests/test_schedtrace.py
"""

import os

import pytest

from lab.bench.sidebyside import Machinery
from lab.machine import schedtrace
from lab.servicespec import NONE, QUEUE_B1

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier
CPU = 1


@pytest.fixture(scope="module")
def traced(lab_artifacts):
    why_not = schedtrace.perf_available()
    if why_not or (os.cpu_count() or 1) < 2:
        pytest.skip(why_not or "needs two cores: perf records one from the other")
    found = {}
    with Machinery("here") as here:
        for name, setting in (("none", NONE), ("queue B=1", QUEUE_B1)):
            with here.service(setting, CPU) as service:
                recorder = schedtrace.Recorder(CPU, {0})
                with recorder:
                    out = here.scratch("schedtrace")
                    arguments = ["--port", str(service.port), "--arrival-rate", "150",
                                 "--window-s", "1.0", "--seed", "9"]  # fmt: skip
                    client = here.start_client("openloop", arguments, CPU, out)
                    meta, _ = here.finish_client(client, out, 120)
                try:
                    span = schedtrace.request_span(recorder.events(), service.pid)
                    counted = schedtrace.count_events(span, service.pid, client.pid)
                    counted["lost_events"] = recorder.lost_events()
                    found[name] = (meta["stats"], counted)
                finally:
                    recorder.remove()
    return found


@pytest.mark.parametrize("name", ["none", "queue B=1"])
def test_every_request_is_found_and_answered_once(traced, name):
    stats, counted = traced[name]
    if counted["lost_events"]:
        pytest.skip(f"perf lost {counted['lost_events']} events: too busy to count exactly")
    requests = counted["requests"]
    assert requests["answered"] == stats["requests"] == stats["answered"]
    service = counted["counts"]["service"]
    assert service["message_reads"] == requests["answered"]
    assert requests["writes_per_answer_mean"] == 2.0  # uvicorn: the head, then the body
    assert service["message_writes"] == 2 * requests["answered"]
    # The span opens at the service's first read, just after the client's first send (or its
    # first few, when the service wakes late: 150 of 152 in one run on a loaded host).
    assert (
        requests["answered"] - 3
        <= counted["counts"]["client"]["message_writes"]
        <= (requests["answered"])
    )
    assert requests["answered_out_of_read_order"] == 0
    assert 0 < counted["core_share"]["service"] < 1


def test_queue_b1_answers_in_the_same_loop_iteration_as_none(traced):
    for name in ("none", "queue B=1"):
        _, counted = traced[name]
        assert counted["requests"]["loop_iterations_read_to_answer_max"] == 0, name


def test_proc_counters_count_this_process():
    with schedtrace.ProcCounters(os.getpid()) as counted:
        sum(range(2_000_000))
    assert counted.found["cpu_ns"] > 0
    assert set(counted.found) == {"cpu_ns", "runnable_wait_ns", "time_slices",
                                  "voluntary_switches", "involuntary_switches"}  # fmt: skip
