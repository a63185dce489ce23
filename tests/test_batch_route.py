"""POST /predict_batch is dense and aligned: random lists mixing valid ids, unknown ids and
malformed records (hypothesis) give one slot per record, same order, ids echoed, errors in
their own slots, valid slots bit-equal to /predict; one SQLite query and one model call;
over the cap one clear 4xx. In-process (fastapi TestClient) for speed, plus a smaller check
against the real process.

Run: .venv/bin/pytest tests/test_batch_route.py
"""

import inspect
import json
import struct

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab.service.app import create_app
from lab.service.server_timing import BATCH_ROUTE_NAMES, parse_server_timing

CAP = 64
SAMPLE = 40


def same_bits(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


class CountingModel:
    """The real model, counting its calls (the route must make one per request)."""

    def __init__(self, model):
        self.model = model
        self.calls = 0

    def predict_proba(self, rows):
        self.calls += 1
        return self.model.predict_proba(rows)


@pytest.fixture(scope="module")
def counting_model(model):
    return CountingModel(model)


@pytest.fixture(scope="module")
def client(counting_model):
    app = create_app(model=counting_model, max_records=CAP)
    with TestClient(app) as running:
        yield running


@pytest.fixture(scope="module")
def predicted(client, expected_scores) -> dict[int, float]:
    """/predict's answer for a sample of customers (itself equal to the single-row score)."""
    found = {}
    for customer_id in list(expected_scores)[:SAMPLE]:
        response = client.post("/predict", json={"customer_id": customer_id})
        assert response.status_code == 200
        found[customer_id] = response.json()["probability"]
        assert same_bits(found[customer_id], expected_scores[customer_id])
    return found


MALFORMED = st.one_of(
    st.integers(-5, 5),
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.just({}),
    st.fixed_dictionaries({"id": st.integers(0, 10)}),
    st.fixed_dictionaries({"customer_id": st.integers(0, 10), "extra": st.integers()}),
    st.fixed_dictionaries(
        {
            "customer_id": st.one_of(
                st.text(max_size=5),
                st.floats(allow_nan=False, allow_infinity=False),
                st.booleans(),
                st.none(),
                st.integers(max_value=-1),
                st.integers(min_value=2**63),
                st.lists(st.integers(), max_size=2),
                st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
            )
        }
    ),
)


def records_strategy(valid_ids: list[int], unknown: list[int]):
    valid = st.sampled_from(valid_ids).map(lambda cid: {"customer_id": cid})
    missing = st.sampled_from(unknown).map(lambda cid: {"customer_id": cid})
    kinds = st.one_of(
        valid.map(lambda r: ("valid", r)),
        missing.map(lambda r: ("unknown", r)),
        MALFORMED.map(lambda r: ("malformed", r)),
    )
    return st.lists(kinds, max_size=CAP)


def echoed(record):
    return record.get("customer_id") if isinstance(record, dict) else None


def check_aligned(records: list[tuple[str, object]], predictions: list, predicted: dict) -> None:
    assert len(predictions) == len(records)
    for position, ((kind, record), slot) in enumerate(zip(records, predictions, strict=True)):
        assert set(slot) == {"customer_id", "probability", "error"}
        assert slot["customer_id"] == echoed(record), position
        if kind == "valid":
            assert slot["error"] is None
            assert same_bits(slot["probability"], predicted[record["customer_id"]])
        else:
            assert slot["probability"] is None
            assert set(slot["error"]) == {"code", "message"}
            assert f"record {position}" in slot["error"]["message"]
            expected = (
                {"unknown_customer"}
                if kind == "unknown"
                else {"malformed_record", "invalid_customer_id"}
            )
            assert slot["error"]["code"] in expected, slot


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_mixed_lists_come_back_dense_and_aligned(
    data, client, counting_model, predicted, unknown_ids
):
    records = data.draw(records_strategy(sorted(predicted), unknown_ids))
    store = client.app.state.predictor.batch_store.db
    queries = []
    store.set_trace_callback(queries.append)
    calls_before = counting_model.calls
    try:
        response = client.post("/predict_batch", json={"records": [r for _, r in records]})
    finally:
        store.set_trace_callback(None)
    assert response.status_code == 200, response.text
    check_aligned(records, response.json()["predictions"], predicted)
    checks_needed = any(kind in ("valid", "unknown") for kind, _ in records)
    assert len([q for q in queries if q.startswith("SELECT")]) == int(checks_needed)
    scored = any(kind == "valid" for kind, _ in records)
    assert counting_model.calls - calls_before == int(scored)
    assert set(parse_server_timing(response.headers["server-timing"])) == set(BATCH_ROUTE_NAMES)


def test_duplicates_and_order_are_kept(client, predicted, unknown_ids):
    a, b = sorted(predicted)[:2]
    records = [a, b, a, unknown_ids[0], a, b]
    response = client.post(
        "/predict_batch", json={"records": [{"customer_id": c} for c in records]}
    )
    slots = response.json()["predictions"]
    assert [slot["customer_id"] for slot in slots] == records
    assert same_bits(slots[0]["probability"], slots[2]["probability"])
    assert slots[3]["error"]["code"] == "unknown_customer"
    assert str(unknown_ids[0]) in slots[3]["error"]["message"]


def test_an_empty_list_answers_an_empty_list(client, counting_model):
    before = counting_model.calls
    response = client.post("/predict_batch", json={"records": []})
    assert response.status_code == 200
    assert response.json() == {"predictions": []}
    assert counting_model.calls == before


def test_the_cap_itself_is_accepted_and_one_more_is_refused_naming_the_cap(client, predicted):
    some_id = next(iter(predicted))
    at_cap = client.post("/predict_batch", json={"records": [{"customer_id": some_id}] * CAP})
    assert at_cap.status_code == 200
    assert len(at_cap.json()["predictions"]) == CAP
    over = client.post("/predict_batch", json={"records": [{"customer_id": some_id}] * (CAP + 1)})
    assert over.status_code == 422
    detail = over.json()["detail"]
    assert f"cap of {CAP}" in detail and "max_records" in detail


@pytest.mark.parametrize(
    "body, fragment",
    [
        ([{"customer_id": 1}], "must be an object"),
        ({"records": {"customer_id": 1}}, "records must be a list"),
        ({"records": "1,2,3"}, "records must be a list"),
        ({"rows": []}, 'missing field "records"'),
        ({"records": [], "extra": 1}, "unexpected field"),
        (None, "must be an object"),
    ],
)
def test_a_body_that_is_not_a_list_of_records_is_refused_whole(client, body, fragment):
    response = client.post("/predict_batch", content=json.dumps(body))
    assert response.status_code == 422
    assert fragment in response.json()["detail"]


def test_a_failing_model_is_a_500_saying_why(model, expected_scores):
    class Broken:
        def predict_proba(self, rows):
            raise RuntimeError("the model is broken")

    with TestClient(create_app(model=Broken())) as broken:
        some_id = next(iter(expected_scores))
        response = broken.post("/predict_batch", json={"records": [{"customer_id": some_id}]})
    assert response.status_code == 500
    assert "the model is broken" in response.json()["detail"]


def test_against_the_real_process(none_service, expected_scores, unknown_ids):
    valid = list(expected_scores)[:20]
    records = [{"customer_id": cid} for cid in valid[:10]]
    records += [{"customer_id": unknown_ids[0]}, {"customer_id": "7"}, 7, {}]
    records += [{"customer_id": cid} for cid in valid[10:]]
    response = httpx.post(
        f"{none_service.url}/predict_batch", json={"records": records}, timeout=30
    )
    assert response.status_code == 200, response.text
    slots = response.json()["predictions"]
    assert len(slots) == len(records)
    assert [slot["customer_id"] for slot in slots] == [echoed(r) for r in records]
    for record, slot in zip(records, slots, strict=True):
        if isinstance(record, dict) and record.get("customer_id") in expected_scores:
            assert same_bits(slot["probability"], expected_scores[record["customer_id"]])
            assert slot["error"] is None
        else:
            assert slot["probability"] is None and slot["error"]["code"]
    timing = parse_server_timing(response.headers["server-timing"])
    assert list(timing) == list(BATCH_ROUTE_NAMES)
    assert all(value >= 0 for value in timing.values())
    over = httpx.post(
        f"{none_service.url}/predict_batch",
        json={"records": [{"customer_id": 1}] * 10_001},
        timeout=30,
    )
    assert over.status_code == 422 and "cap of 10,000" in over.json()["detail"]


def test_the_batch_route_handler_is_a_plain_def(client):
    route = next(r for r in client.app.routes if getattr(r, "path", "") == "/predict_batch")
    assert not inspect.iscoroutinefunction(route.endpoint)  # runs in the threadpool
