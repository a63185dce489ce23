"""The micro-batcher on a real asyncio event loop, with a tiny deterministic model (a row's
score is its first feature times two) and with the real model: B is never exceeded, a timed
wait never sends a batch early unless it is full (and waits on the precise timer), a full
batch leaves inside the submit that fills it, W = 0 never sets a timer, a raising model
fails exactly its batch, and a client that goes away breaks nothing. The properties over
any traffic are in tests/test_batcher_properties.py.

Run: .venv/bin/pytest tests/test_batcher.py
"""

import asyncio
import random
import time

import numpy as np
import pytest

from lab.machine.timer import Ticker
from lab.model import artifacts
from lab.model.scoring import score
from lab.service.batcher import MicroBatcher, ModelCallFailed


def row(value: float) -> np.ndarray:
    return np.array([[value, 0, 0, 0, 0, 0]], dtype=np.float64)


class TinyModel:
    """score = 2 × first feature; remembers every call's rows and when it started. Raises on
    any batch holding a row whose first feature is negative."""

    def __init__(self):
        self.calls: list[tuple[float, np.ndarray]] = []

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        self.calls.append((time.perf_counter(), rows.copy()))
        if (rows[:, 0] < 0).any():
            raise RuntimeError("negative feature")
        return rows[:, 0] * 2


class TimerCountingLoop(asyncio.SelectorEventLoop):
    """A real event loop that also counts the timers scheduled on it."""

    def __init__(self):
        super().__init__()
        self.timers = 0

    def call_at(self, when, callback, *args, context=None):
        self.timers += 1
        return super().call_at(when, callback, *args, context=context)


def run(coroutine_function, *args):
    loop = TimerCountingLoop()
    try:
        return loop.run_until_complete(coroutine_function(loop, *args)), loop.timers
    finally:
        loop.close()


async def submit_in_waves(batcher: MicroBatcher, waves: list[int], gap_s: float) -> list:
    """Submit waves of rows (values 0, 1, 2 … in order), `gap_s` apart; gather every result."""
    futures, value = [], 0
    for size in waves:
        for _ in range(size):
            futures.append(batcher.submit(row(value)))
            value += 1
        await asyncio.sleep(gap_s)
    return await asyncio.gather(*futures)


@pytest.mark.parametrize("cap, wait_ms", [(1, 0.0), (4, 0.0), (4, 3.0), (32, 0.0), (32, 2.0)])
def test_the_cap_is_never_exceeded_and_every_request_gets_its_own_score(cap, wait_ms):
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, cap, wait_ms)
        results = await submit_in_waves(batcher, [1, 7, 40, 3, 0, 65, 2], 0.004)
        await batcher.stop()
        return batcher, results

    (batcher, results), _ = run(scenario)
    total = 1 + 7 + 40 + 3 + 65 + 2
    assert [r.probability for r in results] == [2.0 * v for v in range(total)]
    assert sum(batcher.sizes) == total == sum(len(rows) for _, rows in model.calls)
    assert max(batcher.sizes) <= cap
    assert all(len(rows) <= cap for _, rows in model.calls)
    assert all(r.batch_size <= cap for r in results)
    if cap > 1:
        assert max(batcher.sizes) == cap  # the waves of 40 and 65 filled batches
    assert len(batcher.first_waits_us) == len(batcher.sizes)


@pytest.mark.parametrize("cap, wait_ms", [(5, 10.0), (8, 4.0)])
def test_with_a_wait_no_batch_leaves_before_w_unless_full(cap, wait_ms):
    model = TinyModel()
    rng = random.Random(7)

    async def scenario(loop):
        batcher = MicroBatcher(model, cap, wait_ms)
        futures, enqueued = [], []
        for value in range(120):
            enqueued.append(time.perf_counter())
            futures.append(batcher.submit(row(value)))
            if rng.random() < 0.6:  # sometimes several arrive together, sometimes apart
                await asyncio.sleep(rng.random() * wait_ms / 1e3)
        await asyncio.gather(*futures)
        await batcher.stop()
        return batcher, enqueued

    (batcher, enqueued), _ = run(scenario)
    assert batcher.timers_started > 0 and batcher.timer_kind == "timerfd"
    first = 0
    partial_batches = 0
    for started, rows in model.calls:
        waited_s = started - enqueued[first]
        if len(rows) < cap:
            partial_batches += 1
            assert waited_s >= wait_ms / 1e3, (len(rows), waited_s)
        assert rows[0, 0] == first  # first in, first scored
        first += len(rows)
    assert partial_batches > 0
    # The recorded wait of every batch that was not full is at least W too.
    for size, wait_us in zip(batcher.sizes, batcher.first_waits_us, strict=True):
        if size < cap:
            assert wait_us >= wait_ms * 1000


def test_a_full_batch_goes_at_once_without_waiting_for_w():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 8, 500.0)
        started = time.perf_counter()
        await asyncio.gather(*(batcher.submit(row(v)) for v in range(8)))
        elapsed = time.perf_counter() - started
        await batcher.stop()
        return batcher, elapsed

    (batcher, elapsed), _ = run(scenario)
    assert batcher.sizes == [8]
    assert elapsed < 0.25  # far less than W = 500 ms


@pytest.mark.parametrize("cap", [1, 8, 32])
def test_w_zero_sets_no_timer_and_takes_what_gathered(cap):
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, cap, 0.0)
        before = loop.timers
        results = []
        for wave in (1, 5, 50, 2):
            results += await asyncio.gather(*(batcher.submit(row(v)) for v in range(wave)))
            await asyncio.sleep(0)
        timers = loop.timers - before
        await batcher.stop()
        return batcher, results, timers

    (batcher, results, timers), _ = run(scenario)
    assert timers == 0
    assert batcher.timers_started == 0
    assert len(results) == 58
    if cap > 1:
        assert max(batcher.sizes) > 1  # requests that arrived together went together


def test_a_raising_model_fails_exactly_its_batch_and_the_next_batch_is_served():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 4, 0.0)
        doomed = [batcher.submit(row(v)) for v in (1, 2, -3, 4)]  # full: one batch
        failed = await asyncio.gather(*doomed, return_exceptions=True)
        healthy = await asyncio.gather(*(batcher.submit(row(v)) for v in (5, 6, 7)))
        await batcher.stop()
        return batcher, failed, healthy

    (batcher, failed, healthy), _ = run(scenario)
    assert all(isinstance(outcome, ModelCallFailed) for outcome in failed)
    assert all("negative feature" in str(outcome) for outcome in failed)
    assert all(outcome.batch_size == 4 for outcome in failed)
    assert [r.probability for r in healthy] == [10.0, 12.0, 14.0]
    assert batcher.sizes == [4, 3]


def test_a_model_returning_the_wrong_number_of_scores_fails_its_batch_not_the_batcher():
    calls = []

    def short_model(rows):
        calls.append(len(rows))
        return rows[:-1, 0] if len(calls) == 1 else rows[:, 0]

    async def scenario(loop):
        batcher = MicroBatcher(short_model, 3, 0.0)
        first = await asyncio.gather(
            *(batcher.submit(row(v)) for v in (1, 2, 3)), return_exceptions=True
        )
        second = await batcher.submit(row(9))
        await batcher.stop()
        return first, second

    (first, second), _ = run(scenario)
    assert all(isinstance(outcome, ModelCallFailed) for outcome in first)
    assert second.probability == 9.0


def test_a_client_that_goes_away_does_not_break_the_batcher():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 8, 5.0)
        tasks = [asyncio.create_task(batcher.score(row(v))) for v in range(5)]
        await asyncio.sleep(0)  # all five are waiting in the list
        tasks[1].cancel()  # this client went away while its row waited
        tasks[3].cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        later = await batcher.score(row(20))
        # Every client of a batch went away: no model call for it, the next batch is served.
        gone = [asyncio.create_task(batcher.score(row(v))) for v in (30, 31)]
        await asyncio.sleep(0)
        for task in gone:
            task.cancel()
        await asyncio.gather(*gone, return_exceptions=True)
        calls_before = len(model.calls)
        after = await batcher.score(row(40))
        await batcher.stop()
        return batcher, outcomes, later, len(model.calls) - calls_before, after

    (batcher, outcomes, later, new_calls, after), _ = run(scenario)
    assert isinstance(outcomes[1], asyncio.CancelledError)
    assert isinstance(outcomes[3], asyncio.CancelledError)
    assert [outcomes[i].probability for i in (0, 2, 4)] == [0.0, 4.0, 8.0]
    assert batcher.sizes[0] == 3  # the two cancelled rows were not scored
    assert later.probability == 40.0
    assert new_calls == 1 and after.probability == 80.0
    assert batcher.sizes[-1] == 1


def test_a_full_batch_is_scored_inside_the_submit_that_fills_it_and_disarms_the_timer():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 4, 30.0)
        futures = [batcher.submit(row(v)) for v in range(3)]
        assert not any(future.done() for future in futures) and batcher.timers_started == 1
        fourth = batcher.submit(row(3))
        answered_at_once = fourth.done() and all(future.done() for future in futures)
        await asyncio.sleep(0.06)  # past W: a timer left armed would fire now
        await batcher.stop()
        return batcher, answered_at_once

    (batcher, answered_at_once), _ = run(scenario)
    assert answered_at_once
    assert batcher.sizes == [4] and len(model.calls) == 1 and batcher.timers_started == 1


def test_a_lone_request_waits_w_on_the_precise_timer_and_no_longer_than_needed():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 32, 2.0)
        enqueued = time.perf_counter()
        await batcher.submit(row(1))
        await batcher.stop()
        return batcher, model.calls[0][0] - enqueued

    (batcher, waited_s), _ = run(scenario)
    assert batcher.sizes == [1] and batcher.timers_started == 1
    assert waited_s >= 0.002 and batcher.first_waits_us[0] >= 2000
    assert waited_s < 0.25  # on time, give or take a busy machine


def test_the_ticker_can_be_disarmed():
    fired = []

    async def scenario(loop):
        ticker = Ticker(lambda: fired.append(time.monotonic_ns()), loop)
        ticker.arm(time.monotonic_ns() + 5_000_000)
        ticker.disarm()
        await asyncio.sleep(0.03)
        ticker.arm(time.monotonic_ns() + 5_000_000)
        await asyncio.sleep(0.03)
        ticker.close()
        return ticker.kind

    kind, _ = run(scenario)
    assert kind == "timerfd" and len(fired) == 1


def test_queue_b1_goes_through_the_machinery_one_row_per_call():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 1, 0.0)
        results = await asyncio.gather(*(batcher.submit(row(v)) for v in range(10)))
        await batcher.stop()
        return batcher, results

    (batcher, results), timers = run(scenario)
    assert batcher.sizes == [1] * 10
    assert [r.probability for r in results] == [2.0 * v for v in range(10)]
    assert timers == 0 and batcher.timers_started == 0


def test_queue_b1_answers_without_a_trip_round_the_loop():
    model = TinyModel()

    async def scenario(loop):
        batcher = MicroBatcher(model, 1, 0.0)
        future = batcher.submit(row(7))
        ready_at_once = future.done()
        await batcher.stop()
        return ready_at_once, future.result()

    (ready_at_once, answer), _ = run(scenario)
    assert ready_at_once and answer.probability == 14.0 and answer.batch_size == 1
    assert answer.model_done >= answer.model_started


def test_with_the_real_model_batched_scores_equal_single_row_scores_to_the_bit(model):
    rows = artifacts.test_rows()[:200]

    async def scenario(loop):
        batcher = MicroBatcher(lambda batch: score(model, batch), 32, 1.0)
        results = await asyncio.gather(*(batcher.submit(rows[i : i + 1]) for i in range(200)))
        await batcher.stop()
        return batcher, results

    (batcher, results), _ = run(scenario)
    alone = np.array([score(model, rows[i : i + 1])[0] for i in range(200)])
    batched = np.array([r.probability for r in results])
    assert max(batcher.sizes) == 32
    assert np.array_equal(alone.view(np.int64), batched.view(np.int64))


def test_settings_out_of_range_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        MicroBatcher(TinyModel(), 0, 0.0)
    with pytest.raises(ValueError, match="0 or more"):
        MicroBatcher(TinyModel(), 4, -1.0)
