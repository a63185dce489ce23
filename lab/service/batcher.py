"""The micro-batcher: requests wait on a list, one task scores up to B of them in one call.

A request appends (row, future, enqueue time) and awaits its future. One batcher task takes up
to B rows, calls the scoring function once on all of them, and hands each request its own
score. W > 0: the first request of a batch starts a timer (`loop.call_later`); the batch goes
when it is full or the timer fires. W = 0: no timer at all; the batcher takes whatever
gathered while the model was busy. B=1 goes through the same machinery (never grouped).

Per batch it records the size and how long the batch's first request waited, enqueue to the
moment the batcher took the rows. It keeps those records for the last KEEP_BATCHES batches
only (a ring of fixed size, plus running totals), so a service left running does not grow.
Used by lab/service/app.py (`python -m lab serve --batcher queue`) and by the demo
(`python -m lab demo`).
"""

import asyncio
import contextlib
import time
from array import array
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

# The batch records kept (3 MiB). The campaign runner reads them once, after each run, and
# fails the run if any were dropped: the most batches a run has made is about 30,000 (Part B,
# B=1 at 2.5 × S for 8 s), so this leaves a margin of eight.
KEEP_BATCHES = 1 << 18
# What /batches says when there is no batcher (batcher none).
NO_BATCHES = {"size": [], "first_wait_us": [], "batches_made": 0, "rows_scored": 0,
              "records_dropped": 0}  # fmt: skip


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
        keep_batches: int = KEEP_BATCHES,
    ):
        if max_batch < 1:
            raise ValueError(f"the cap B must be at least 1, got {max_batch}")
        if not max_wait_ms >= 0:
            raise ValueError(f"the wait W must be 0 or more milliseconds, got {max_wait_ms}")
        if keep_batches < 1:
            raise ValueError(f"keep_batches must be at least 1, got {keep_batches}")
        self.score_rows = score_rows
        self.max_batch = max_batch
        self.max_wait_s = max_wait_ms / 1e3
        self.clock = clock
        self.pending: list[tuple[np.ndarray, asyncio.Future, float]] = []
        # Batch n's records sit in slot n % keep_batches: allocated once, then overwritten.
        self.keep_batches = keep_batches
        self._sizes = array("I", [0]) * keep_batches
        self._first_waits_us = array("q", [0]) * keep_batches  # enqueue -> taken
        self.batches_made = 0
        self.rows_scored = 0
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
        size = len(live)
        slot = self.batches_made % self.keep_batches
        self._sizes[slot] = size
        self._first_waits_us[slot] = int((taken_at - live[0][2]) * 1e6)
        self.batches_made += 1
        self.rows_scored += size
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

    # -- the records --------------------------------------------------------------------------

    def _kept(self, records: array) -> list[int]:
        """The kept records, oldest first."""
        if self.batches_made <= self.keep_batches:
            return records[: self.batches_made].tolist()
        oldest = self.batches_made % self.keep_batches
        return records[oldest:].tolist() + records[:oldest].tolist()

    @property
    def sizes(self) -> list[int]:
        """The size of each kept batch, oldest first."""
        return self._kept(self._sizes)

    @property
    def first_waits_us(self) -> list[int]:
        """How long each kept batch's first request waited (enqueue -> taken), in µs."""
        return self._kept(self._first_waits_us)

    def batches(self) -> dict:
        """The last `keep_batches` batches, oldest first (each one's size and its first
        request's wait in µs), the totals since the start, and how many older batches' records
        were dropped: 0 means `size` lists every batch made."""
        size = self.sizes
        return {
            "size": size,
            "first_wait_us": self.first_waits_us,
            "batches_made": self.batches_made,
            "rows_scored": self.rows_scored,
            "records_dropped": self.batches_made - len(size),
        }
