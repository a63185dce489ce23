"""When the model call raises, /predict answers a 500 saying why (in both modes), every
request of that batch fails, and the service keeps serving the next ones. In-process app
with the real model wrapped so it raises on one customer's row.

Run: .venv/bin/pytest tests/test_service_model_failure.py
"""

import asyncio

import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from lab.service.app import create_app
from lab.service.server_timing import parse_server_timing
from lab.servicespec import NONE, QUEUE_B1, Setting

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier


class FailsOnOneRow:
    """The real model, except that any call holding `bad_row` raises."""

    def __init__(self, model, bad_row: np.ndarray):
        self.model = model
        self.bad_row = bad_row

    def predict_proba(self, rows):
        if (rows == self.bad_row).all(axis=1).any():
            raise RuntimeError("this row breaks the model")
        return self.model.predict_proba(rows)


@pytest.fixture(scope="module")
def bad_and_good(store, expected_scores):
    """A customer whose row breaks the model, and customers with a different row."""
    ids = list(expected_scores)
    bad = ids[0]
    bad_row = store.row(bad)[0]
    good = [cid for cid in ids[1:] if not np.array_equal(store.row(cid)[0], bad_row)][:40]
    return bad, bad_row, good


@pytest.mark.parametrize("setting", [NONE, QUEUE_B1, Setting("queue", 8, 0.0)])
def test_a_raising_model_is_a_500_with_the_reason_then_service_goes_on(
    setting, model, bad_and_good, expected_scores
):
    bad, bad_row, good = bad_and_good
    app = create_app(setting, model=FailsOnOneRow(model, bad_row))
    with TestClient(app) as client:
        failed = client.post("/predict", json={"customer_id": bad})
        assert failed.status_code == 500
        assert "this row breaks the model" in failed.json()["detail"]
        assert parse_server_timing(failed.headers["server-timing"])["batch"] == 1
        served = client.post("/predict", json={"customer_id": good[0]})
        assert served.status_code == 200
        assert served.json()["probability"] == expected_scores[good[0]]


async def send_together(app, customer_ids: list[int]) -> list[httpx.Response]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        sends = [client.post("/predict", json={"customer_id": cid}) for cid in customer_ids]
        return await asyncio.gather(*sends)


def test_every_request_of_the_failed_batch_fails_and_only_those(
    model, bad_and_good, expected_scores
):
    bad, bad_row, good = bad_and_good
    app = create_app(Setting("queue", 4, 50.0), model=FailsOnOneRow(model, bad_row))
    batcher = app.state.predictor.batcher

    async def scenario():
        batcher.start()
        try:
            first = await send_together(app, [good[0], bad, good[1], good[2]])  # one full batch
            second = await send_together(app, good[3:7])
        finally:
            await batcher.stop()
        return first, second

    first, second = asyncio.run(scenario())
    assert batcher.sizes == [4, 4]
    assert [r.status_code for r in first] == [500] * 4
    assert all("this row breaks the model" in r.json()["detail"] for r in first)
    assert [r.status_code for r in second] == [200] * 4
    for customer_id, response in zip(good[3:7], second, strict=True):
        assert response.json()["probability"] == expected_scores[customer_id]
