"""The micro-batcher: requests wait on a list, one task scores up to B of them in one call.

A request appends (row, future, enqueue time) and awaits its future. One batcher task takes up
to B rows, calls the scoring function once on all of them, and hands each request its own
score. W > 0: the first request of a batch starts a timer (`loop.call_later`); the batch goes
when it is full or the timer fires. W = 0: no timer at all; the batcher takes whatever
gathered while the model was busy. B=1 goes through the same machinery (never grouped).

Per batch it records the size and how long the batch's first request waited, enqueue to the
moment the batcher took the rows. Used by `lab.service` (`python -m lab serve --batcher queue`)
and by the demo (`python -m lab demo`).
"""

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class Scored(NamedTuple):
    """What a request gets back: its score, when its model call started, rows in that call."""

    probability: float
    model_started: float
    batch_size: int


class ModelCallFailed(Exception):
    """The model call meant to score this request raised; every request of the batch gets it."""

    def __init__(self, reason: str, model_started: float, batch_size: int):
        super().__init__(reason)
        self.reason = reason
        self.model_started = model_started
        self.batch_size = batch_size


class MicroBatcher:
    def __init__(
        self,
        score_rows: Callable,
        max_batch: int,
        max_wait_ms: float,
        clock: Callable[[], float] = time.perf_counter,
    ):
        if max_batch < 1:
            raise ValueError(f"the cap B must be at least 1, got {max_batch}")
        if not max_wait_ms >= 0:
            raise ValueError(f"the wait W must be 0 or more milliseconds, got {max_wait_ms}")
        self.score_rows = score_rows
        self.max_batch = max_batch
        self.max_wait_s = max_wait_ms / 1e3
        self.clock = clock
        self.pending: list[tuple[np.ndarray, asyncio.Future, float]] = []
        self.sizes: list[int] = []  # one entry per batch scored
        self.first_waits_us: list[int] = []  # the batch's first request: enqueue -> taken
        self.timers_started = 0  # W = 0 must leave this at zero
        self._timer: asyncio.TimerHandle | None = None
        self._go: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- the request side -------------------------------------------------------------------

    def submit(self, row: np.ndarray) -> asyncio.Future:
        """Queue one (1, 6) row; the future resolves to `Scored` or raises ModelCallFailed."""
        if self._task is None:
            self.start()
        future = self._loop.create_future()
        self.pending.append((row, future, self.clock()))
        waiting = len(self.pending)
        if waiting >= self.max_batch or self.max_wait_s == 0:
            self._go.set()
        elif waiting == 1 and self._timer is None:
            self._arm_timer(self.max_wait_s)
        return future

    async def score(self, row: np.ndarray) -> Scored:
        return await self.submit(row)

    # -- the batcher task -------------------------------------------------------------------

    def start(self) -> None:
        """Start the batcher task on the running loop (done on first use if not before)."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._go = asyncio.Event()
        self._task = self._loop.create_task(self._run(), name="micro-batcher")

    async def stop(self) -> None:
        """Stop the task and cancel every request still waiting."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for _, future, _ in self.pending:
            future.cancel()
        self.pending.clear()

    async def _run(self) -> None:
        while True:
            await self._go.wait()
            self._go.clear()
            if self.pending:
                self._score_one_batch()
                self._plan_leftovers()
            # Let the loop send the answers and read new requests before the next batch.
            await asyncio.sleep(0)

    def _score_one_batch(self) -> None:
        taken = self.pending[: self.max_batch]
        del self.pending[: self.max_batch]
        self._cancel_timer()
        taken_at = self.clock()
        # A client that went away cancelled its future: skip its row, keep the others.
        live = [item for item in taken if not item[1].done()]
        if not live:
            return
        self.sizes.append(len(live))
        self.first_waits_us.append(int((taken_at - live[0][2]) * 1e6))
        size = len(live)
        model_started = self.clock()
        try:
            rows = np.concatenate([row for row, _, _ in live])
            model_started = self.clock()
            scores = self.score_rows(rows)
            if len(scores) != size:
                raise ValueError(f"the model returned {len(scores)} scores for {size} rows")
        except Exception as error:  # any model failure fails this batch, never the batcher
            reason = f"{type(error).__name__}: {error}"
            for _, future, _ in live:
                if not future.done():
                    future.set_exception(ModelCallFailed(reason, model_started, size))
            return
        for (_, future, _), probability in zip(live, scores, strict=True):
            if not future.done():
                future.set_result(Scored(float(probability), model_started, size))

    def _plan_leftovers(self) -> None:
        """More than B were waiting: the next batch goes now if full (or W = 0), else when the
        wait of its first request, counted from that request's enqueue, runs out."""
        if not self.pending:
            return
        if len(self.pending) >= self.max_batch or self.max_wait_s == 0:
            self._go.set()
            return
        remaining = self.pending[0][2] + self.max_wait_s - self.clock()
        if remaining <= 0:
            self._go.set()
        else:
            self._arm_timer(remaining)

    # -- the timer (W > 0 only) -------------------------------------------------------------

    # --8<-- [start:timer]
    def _arm_timer(self, delay_s: float) -> None:
        self.timers_started += 1
        self._timer = self._loop.call_later(delay_s, self._timer_fired)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _timer_fired(self) -> None:
        self._timer = None
        if not self.pending:
            return
        # A loop clock coarser than ours could fire a hair early: never send before W.
        remaining = self.pending[0][2] + self.max_wait_s - self.clock()
        if remaining > 0:
            self._arm_timer(remaining)
        else:
            self._go.set()
        # --8<-- [end:timer] (the site's Part B page shows the timer: generator/sources.py)

    def batches(self) -> dict:
        """Every batch so far: its size and its first request's wait in microseconds."""
        return {"size": list(self.sizes), "first_wait_us": list(self.first_waits_us)}
