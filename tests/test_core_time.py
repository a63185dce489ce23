"""Where the shared core's time goes (lab/bench/core_time.py): the layers a profiled stack
belongs to, the collector's share read from perf, the per-answer split, and one real run of
the bench's own machinery (service, client, perf and py-spy) that adds up.

    python -m pytest tests/test_core_time.py
"""

import os
import shutil

import pytest

from lab.bench import core_time
from lab.bench.sidebyside import Machinery
from lab.machine import schedtrace
from lab.servicespec import Setting

SERVICE = "_run_module_as_main (<frozen runpy>:198);Server.run (uvicorn/server.py:86)"
STACKS = {
    # innermost frame that belongs to a layer decides, whatever called it
    f"{SERVICE};HttpToolsProtocol.data_received (uvicorn/protocols/http/httptools_impl.py:174)":
        "HTTP parsing",
    f"{SERVICE};Route.handle (starlette/routing.py:260);Predictor.predict (lab/service/app.py:137)"
    ";loads (json/__init__.py:346)": "handler",
    f"{SERVICE};Predictor.predict (lab/service/app.py:140)"
    ";FeatureStore.row (lab/model/store.py:48)": "store lookup",
    f"{SERVICE};MicroBatcher._score (lab/service/batcher.py:231);score (lab/model/scoring.py:20)"
    ";predict (sklearn/ensemble/_hist_gradient_boosting/predictor.py:74)": "model",
    f"{SERVICE};solve_dependencies (fastapi/dependencies/utils.py:823)": "framework",
    "Runner.run (asyncio/runners.py:118)": "event loop",
    "<module> (lab/__main__.py:7)": core_time.OTHER,
}  # fmt: skip


@pytest.mark.parametrize("stack", STACKS)
def test_a_stack_belongs_to_its_innermost_layer(stack):
    assert core_time.layer_of(stack) == STACKS[stack]


def test_layer_shares_count_each_stack_by_its_samples():
    counts = (5, 3, 2, 0, 10, 0, 0)
    raw = "\n".join(f"{stack} {n}" for stack, n in zip(STACKS, counts, strict=True))
    shares = core_time.layer_shares(raw + "\nnot a stack line\n")
    assert shares == pytest.approx({"HTTP parsing": 0.25, "handler": 0.15, "store lookup": 0.1,
                                    "model": 0.0, "framework": 0.5, "event loop": 0.0,
                                    core_time.OTHER: 0.0})  # fmt: skip
    assert core_time.layer_shares("") == {}


PERF_SCRIPT = """\
  4242  ffffffff81606c34 __handle_mm_fault ([kernel.kallsyms])
  4242      7f1e96fb92e0 gc_collect_main (/usr/lib/libpython3.11.so.1.0)
  4242      7f1e96fb92e1 visit_decref (/usr/lib/libpython3.11.so.1.0)
  4242      7f1e96fb92e2 _PyEval_EvalFrameDefault (/usr/lib/libpython3.11.so.1.0)
  4242      7f1e96fb92e3 sqlite3VdbeExec (/usr/lib/libsqlite3.so.0)
  5151      7f1e96fb92e0 gc_collect_main (/usr/lib/libpython3.11.so.1.0)
"""


def test_the_collectors_share_is_of_that_process_user_samples():
    assert core_time.gc_share(PERF_SCRIPT, 4242) == (0.5, 4)  # the kernel sample left out
    assert core_time.gc_share(PERF_SCRIPT, 9999) == (0.0, 0)


def test_the_breakdown_splits_the_service_time_and_adds_the_client():
    client = {"client_user_us_per_request": 30.0, "client_system_us_per_request": 10.0}
    layers = {"model": 0.5, "framework": 0.25, "HTTP parsing": 0.25}
    parts = core_time.breakdown((0.9, 0.1), client, 1000, 0.1, layers)  # 1,000 answers
    assert parts["service kernel (network path, scheduling)"] == 100.0
    assert parts["garbage collector"] == 90.0
    assert (parts["model"], parts["framework"], parts["HTTP parsing"]) == (405.0, 202.5, 202.5)
    assert parts["store lookup"] == 0.0
    assert sum(parts.values()) == pytest.approx(1000 + 40)
    old_client = core_time.breakdown((0.9, 0.1), {"client_cpu_us_per_request": 55.0}, 1000, 0,
                                     layers)  # fmt: skip
    assert (old_client["load client, user"], old_client["load client, kernel"]) == (55.0, 0.0)


@pytest.mark.usefixtures("processes")
def test_one_real_run_adds_up_to_the_service_and_client_cpu(lab_artifacts):
    why_not = schedtrace.perf_available()
    if why_not or (os.cpu_count() or 1) < 2 or not shutil.which(core_time._py_spy()):
        pytest.skip(why_not or "needs two cores and py-spy")
    with Machinery("new") as here:
        run = core_time.one_run(here, "B=32 W=0", Setting("queue", 32, 0.0), 1.0, 100.0, 2.0,
                                1, 0)  # fmt: skip
    parts = run["us_per_answer"]
    user_s, kernel_s = run["service_cpu_s"]
    service_us = 1e6 * (user_s + kernel_s) / run["answered"]
    client_us = parts["load client, user"] + parts["load client, kernel"]
    assert sum(parts.values()) == pytest.approx(service_us + client_us, rel=0.01)
    assert run["answered"] > 150 and run["client"]["answers_differing"] == 0
    assert run["perf_user_samples"] > 0
    assert sum(run["layers"].values()) == pytest.approx(1, abs=1e-3)
    assert run["layers"].get("model", 0) > 0  # the model is seen, not only the framework
    assert run["gc_counted"]["threshold"][0] == 100_000
