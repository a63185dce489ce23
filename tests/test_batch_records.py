"""What the micro-batcher keeps for GET /batches stays within a fixed bound however long it
runs: the last `keep_batches` batches in a ring allocated once, plus running totals and a
count of the records dropped. A million batches through a batcher with a plain function as
the model; the recent batches through the in-process service's /batches route.

Run: .venv/bin/pytest tests/test_batch_records.py
"""

import asyncio
import collections
import random

import numpy as np
import pytest
from fastapi.testclient import TestClient

from lab.service.app import create_app
from lab.service.batcher import KEEP_BATCHES, NO_BATCHES, MicroBatcher
from lab.servicespec import QUEUE_B1


def row(value: float) -> np.ndarray:
    return np.array([[value, 0, 0, 0, 0, 0]], dtype=np.float64)


def twice_the_first_feature(rows: np.ndarray) -> np.ndarray:
    return rows[:, 0] * 2


async def one_batch_per_wave(batcher: MicroBatcher, waves: list[int]) -> None:
    """W = 0 and waves no larger than B: each wave, sent together, is one batch."""
    for size in waves:
        results = await asyncio.gather(*(batcher.submit(row(size)) for _ in range(size)))
        assert [r.batch_size for r in results] == [size] * size


def test_the_ring_keeps_the_last_batches_in_order_with_totals_since_the_start():
    async def scenario():
        batcher = MicroBatcher(twice_the_first_feature, 16, 0.0, keep_batches=4)
        await one_batch_per_wave(batcher, [1, 2, 3])
        before_wrapping = batcher.batches()
        await one_batch_per_wave(batcher, [4, 5, 6, 7, 8, 9, 10])
        await batcher.stop()
        return before_wrapping, batcher.batches()

    before_wrapping, after = asyncio.run(scenario())
    assert before_wrapping["size"] == [1, 2, 3]
    assert before_wrapping["records_dropped"] == 0
    assert (before_wrapping["batches_made"], before_wrapping["rows_scored"]) == (3, 6)
    assert after["size"] == [7, 8, 9, 10]
    assert len(after["first_wait_us"]) == 4 and min(after["first_wait_us"]) >= 0
    assert (after["batches_made"], after["rows_scored"], after["records_dropped"]) == (10, 55, 6)


def test_the_default_bound_and_a_bad_one():
    batcher = MicroBatcher(twice_the_first_feature, 8, 1.0)
    assert batcher.keep_batches == KEEP_BATCHES
    assert batcher.batches() == NO_BATCHES  # same keys with or without a batcher
    with pytest.raises(ValueError, match="keep_batches must be at least 1"):
        MicroBatcher(twice_the_first_feature, 8, 1.0, keep_batches=0)


# 200 times round the ring of KEEP: enough to show it never grows (a million took 23 s).
BATCHES = 200_000


def test_many_batches_keep_their_records_within_the_bound():
    keep = 1_000
    recent_sizes = collections.deque(maxlen=keep)  # what the model saw, to compare with

    def model(rows: np.ndarray) -> np.ndarray:
        recent_sizes.append(len(rows))
        return rows[:, 0] * 2

    async def scenario():
        batcher = MicroBatcher(model, 2, 0.0, keep_batches=keep)
        storage = [batcher._sizes.buffer_info(), batcher._first_waits_us.buffer_info()]
        rng, sent = random.Random(20), 0
        while batcher.batches_made < BATCHES:
            wave = [batcher.submit(row(sent + i)) for i in range(rng.randint(1, 1000))]
            sent += len(wave)
            last = await wave[-1]  # first in, first scored: the whole wave is done
            assert last.probability == 2.0 * (sent - 1)
        await batcher.stop()
        # The ring was allocated once, at its full size, and never grew or moved.
        assert storage == [batcher._sizes.buffer_info(), batcher._first_waits_us.buffer_info()]
        return batcher.batches(), sent

    found, sent = asyncio.run(scenario())
    assert found["batches_made"] >= BATCHES
    assert found["rows_scored"] == sent
    assert len(found["size"]) == len(found["first_wait_us"]) == keep
    assert found["size"] == list(recent_sizes)  # the most recent batches, oldest first
    assert set(found["size"]) == {1, 2}
    assert found["records_dropped"] == found["batches_made"] - keep


def test_the_service_batches_route_returns_the_recent_batches(model, expected_scores):
    app = create_app(QUEUE_B1, model=model, keep_batches=10)
    customer_ids = list(expected_scores)[:25]
    with TestClient(app) as client:
        for customer_id in customer_ids:  # one at a time: one batch each
            assert client.post("/predict", json={"customer_id": customer_id}).status_code == 200
        found = client.get("/batches").json()
    assert found["size"] == [1] * 10
    assert len(found["first_wait_us"]) == 10
    assert (found["batches_made"], found["rows_scored"], found["records_dropped"]) == (25, 25, 15)


def test_without_a_batcher_the_route_says_so_with_the_same_keys(model, expected_scores):
    with TestClient(create_app(model=model)) as client:
        customer_id = next(iter(expected_scores))
        assert client.post("/predict", json={"customer_id": customer_id}).status_code == 200
        found = client.get("/batches").json()
        assert set(found.pop("gc")) == {"collections", "cpu_us", "threshold", "frozen"}
        assert found == NO_BATCHES
