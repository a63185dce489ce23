"""Services forked by the pre-loaded launcher are fresh, pinned and answer to the bit like
`python -m lab serve`. Run: `.venv/bin/pytest tests/test_launcher.py`.
"""

import http.client
import json
import os

import pytest

from lab.service.batcher import NO_BATCHES
from lab.service.launcher import Launcher
from lab.service.process import ServiceProcess
from lab.servicespec import ServiceSpec, Setting

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

IDS = [1, 2, 17, 23570]
B32_W2 = ServiceSpec(Setting("queue", 32, 2.0))


def probabilities(port: int) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    found = []
    for customer_id in IDS:
        connection.request("POST", "/predict", body=json.dumps({"customer_id": customer_id}),
                           headers={"content-type": "application/json"})  # fmt: skip
        response = connection.getresponse()
        assert response.status == 200
        found.append(json.loads(response.read())["probability"])
    connection.close()
    return found


def test_launched_services_are_fresh_pinned_and_bit_equal_to_exec_started_ones():
    with ServiceProcess(B32_W2) as started:
        expected = probabilities(started.port)
    with Launcher({0}) as launcher:
        pids = []
        for _ in range(2):
            with launcher.service(B32_W2, cpu=1) as service:
                assert os.sched_getaffinity(service.pid) == {1}
                fresh = service.batches()
                assert fresh.pop("gc")["collections"] == [0, 0, 0]  # a fresh process
                assert fresh == NO_BATCHES  # a fresh batcher
                assert probabilities(service.port) == expected
                batches = service.batches()
                assert sum(batches["size"]) == batches["rows_scored"] == len(IDS)
                pids.append(service.pid)
            assert not os.path.exists(f"/proc/{pids[-1]}")  # stopped and reaped
        assert pids[0] != pids[1]


def test_a_setting_outside_the_design_is_a_clear_error():
    with Launcher({0}) as launcher:
        service = launcher.service(ServiceSpec(Setting("queue", 1, 2.0)), cpu=None)
        try:
            service.start()
        except Exception as error:  # noqa: BLE001 (the message is what is checked)
            assert "W" in str(error) or "wait" in str(error).lower()
        else:
            service.stop()
            raise AssertionError("B=1 with W=2 was accepted")
