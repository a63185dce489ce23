"""The real service (uvicorn processes on free ports) answers every customer with the
single-row score of that customer, to the bit, in every batching mode: none, queue B=1,
B=32 W=0 and B=32 W=2; one request at a time and 1,000 at once.

Run: .venv/bin/pytest tests/test_service.py
"""

import asyncio
import http.client
import json
import struct

import pytest

from lab.service import gc_watch
from lab.service.batcher import NO_BATCHES
from lab.service.server_timing import parse_server_timing
from lab.servicespec import NONE, QUEUE_B1, ServiceSpec, Setting

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

SETTINGS = [NONE, QUEUE_B1, Setting("queue", 32, 0.0), Setting("queue", 32, 2.0)]
CONCURRENT = 1000


def same_bits(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


def setting_id(setting: Setting) -> str:
    if setting.batcher == "none":
        return "none"
    return f"queue-B{setting.max_batch}-W{setting.max_wait_ms:g}"


@pytest.fixture(scope="module")
def services(service_launcher):
    """The four settings as real processes, forked by the launcher one after another (a
    fork each: the launcher answers one request at a time)."""
    running = []
    try:
        for setting in SETTINGS:
            running.append(service_launcher.service(ServiceSpec(setting)).start())
        yield dict(zip(SETTINGS, running, strict=True))
    finally:
        for service in running:
            service.stop()


@pytest.fixture(params=SETTINGS, ids=setting_id)
def service(request, services):
    return services[request.param]


def post_json(connection: http.client.HTTPConnection, path: str, payload) -> tuple:
    connection.request(
        "POST", path, body=json.dumps(payload), headers={"content-type": "application/json"}
    )
    response = connection.getresponse()
    return response.status, json.loads(response.read()), response.getheader("server-timing")


def test_health_names_the_setting(service):
    assert service.health() == {
        "status": "ok",
        "batcher": service.spec.setting.batcher,
        "max_batch": service.spec.setting.max_batch,
        "max_wait_ms": float(service.spec.setting.max_wait_ms),
    }


def test_one_at_a_time_every_answer_equals_the_single_row_score(service, expected_scores):
    connection = http.client.HTTPConnection(service.host, service.port, timeout=30)
    try:
        for customer_id, expected in list(expected_scores.items())[:150]:
            status, body, timing = post_json(connection, "/predict", {"customer_id": customer_id})
            assert status == 200, body
            assert body["customer_id"] == customer_id
            assert same_bits(body["probability"], expected), (customer_id, body, expected)
            moments = parse_server_timing(timing)
            assert moments["batch"] == 1  # alone on the wire: never grouped
            assert all(moments[name] >= 0 for name in ("ready", "queued", "model"))
    finally:
        connection.close()


async def predict_on_own_connection(host: str, port: int, customer_id: int) -> tuple:
    """One POST /predict on its own connection: (status, body, Server-Timing)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        body = json.dumps({"customer_id": customer_id}).encode()
        writer.write(
            b"POST /predict HTTP/1.1\r\nhost: %s\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (host.encode(), len(body), body)
        )
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in head[1:] if line)
        content = await reader.readexactly(int(headers["content-length"]))
        return int(head[0].split()[1]), json.loads(content), headers.get("server-timing")
    finally:
        writer.close()


async def predict_all(host: str, port: int, customer_ids: list[int]) -> list[tuple]:
    """Every request on its own connection, all sent at once."""
    return await asyncio.gather(
        *(predict_on_own_connection(host, port, cid) for cid in customer_ids)
    )


def test_1000_at_once_each_request_gets_its_own_customers_score(service, expected_scores):
    before = service.batches()
    customer_ids = list(expected_scores)[:CONCURRENT]
    responses = asyncio.run(predict_all(service.host, service.port, customer_ids))
    sizes_seen = []
    for customer_id, (status, body, timing) in zip(customer_ids, responses, strict=True):
        assert status == 200, body
        assert body["customer_id"] == customer_id
        assert same_bits(body["probability"], expected_scores[customer_id]), customer_id
        sizes_seen.append(parse_server_timing(timing)["batch"])
    after = service.batches()
    # A thousand requests alive at once meet a young collection once or twice, not once per
    # 700 net allocations as with CPython's default threshold (lab/service/gc_watch.py).
    young_before, found = before.pop("gc")["collections"][0], after.pop("gc")
    assert found["collections"][0] - young_before <= 2
    assert found["threshold"][0] == gc_watch.YOUNG_THRESHOLD
    new_sizes = after["size"][len(before["size"]) :]
    assert len(after["size"]) == len(after["first_wait_us"])
    if service.spec.setting.batcher == "none":
        assert after == NO_BATCHES
        assert set(sizes_seen) == {1}
        return
    # Every request was scored in exactly one batch, and no batch went over the cap.
    assert sum(new_sizes) == CONCURRENT
    # /batches lists every batch made so far, with totals that agree.
    assert after["records_dropped"] == 0
    assert after["batches_made"] == len(after["size"])
    assert after["rows_scored"] == sum(after["size"])
    assert max(new_sizes) <= service.spec.setting.max_batch
    assert max(sizes_seen) <= service.spec.setting.max_batch
    assert all(wait >= 0 for wait in after["first_wait_us"])
    if service.spec.setting.max_batch > 1:
        assert max(new_sizes) > 1, "1,000 requests at once never formed a batch"


def test_a_timed_wait_holds_a_lone_request_for_at_least_w(services, expected_scores):
    service = services[Setting("queue", 32, 2.0)]
    connection = http.client.HTTPConnection(service.host, service.port, timeout=30)
    try:
        customer_id = next(iter(expected_scores))
        status, _, timing = post_json(connection, "/predict", {"customer_id": customer_id})
    finally:
        connection.close()
    assert status == 200
    assert parse_server_timing(timing)["queued"] >= service.spec.setting.max_wait_ms
    assert service.batches()["first_wait_us"][-1] >= service.spec.setting.max_wait_ms * 1000
