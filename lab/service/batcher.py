"""The micro-batcher: requests wait on a list; up to B of them are scored in one model call.

A request appends (row, future, enqueue time) and awaits its future. When a batch leaves, up
to B rows from the front of the list (first in, first scored) go to the scoring function in
one call, and each request gets its own score. A batch leaves (BRIEF §2):

- when it is full (B rows waiting): at once, inside the handler whose row filled it, so that
  request's answer needs no further trip round the event loop (queue B=1: every request);
- W = 0, not full: as the next callback of the event loop (`call_soon`), which runs after
  every handler of the current loop pass has queued its row: the batch holds whatever
  gathered while the model was busy. No timer, ever;
- W > 0, not full: when its first row has waited W, counted from that row's enqueue, on a
  precise one-shot timer (a Linux timerfd: the event loop's own timers round to whole
  milliseconds); never earlier.

There is no batcher task and no event: a batch is a plain call on the loop's thread, and
since a batch leaves the moment it is full, no more than B rows ever wait.

Per batch it records the size and how long the batch's first request waited, enqueue to the
moment the batcher took the rows; each answer carries when its model call started and ended.
It keeps those records for the last KEEP_BATCHES batches only (a ring of fixed size, plus
running totals), so a service left running does not grow. Used by lab/service/app.py
(`python -m lab serve --batcher queue`) and by the demo (`python -m lab demo`); tested by
tests/test_batcher.py, tests/test_batcher_properties.py and tests/test_batch_records.py.
"""

import asyncio
import math
import time
from array import array
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from lab.machine.timer import Ticker

# The batch records kept (3 MiB). The campaign runner reads them once, after each run, and
# fails the run if any were dropped: the most batches a run has made is about 30,000 (Part B,
# B=1 at 2.5 × S for 8 s), so this leaves a margin of eight.
KEEP_BATCHES = 1 << 18
# What /batches says when there is no batcher (batcher none).
NO_BATCHES = {"size": [], "first_wait_us": [], "batches_made": 0, "rows_scored": 0,
              "records_dropped": 0}  # fmt: skip


class Scored(NamedTuple):
    """What a request gets back: its score, when its model call started, rows in that call,
    and when that call ended (the model call alone: `model_done - model_started`)."""

    probability: float
    model_started: float
    batch_size: int
    model_done: float


class ModelCallFailed(Exception):
    """The model call meant to score this request raised; every request of the batch gets it."""

    def __init__(self, reason: str, model_started: float, batch_size: int, model_done=None):
        super().__init__(reason)
        self.reason = reason
        self.model_started = model_started
        self.batch_size = batch_size
        self.model_done = model_started if model_done is None else model_done


class PreciseTimer:
    """A one-shot timer at a deadline on the batcher's clock (seconds): a Linux timerfd
    watched by the loop, else the loop's own (millisecond) timer."""

    def __init__(self, callback: Callable[[], None], clock: Callable[[], float], loop):
        self.clock = clock
        self.ticker = Ticker(callback, loop)
        self.kind = self.ticker.kind

    def arm(self, deadline_s: float) -> None:
        delay_ns = math.ceil((deadline_s - self.clock()) * 1e9)
        self.ticker.arm(time.monotonic_ns() + delay_ns)

    def disarm(self) -> None:
        self.ticker.disarm()

    def close(self) -> None:
        self.ticker.close()


class MicroBatcher:
    def __init__(
        self,
        score_rows: Callable,
        max_batch: int,
        max_wait_ms: float,
        clock: Callable[[], float] = time.perf_counter,
        timer: Callable = PreciseTimer,
        keep_batches: int = KEEP_BATCHES,
    ):
        """`timer(callback, clock, loop)` makes the W timer (tests pass a controllable one)."""
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
        self.make_timer = timer
        self.pending: list[tuple[np.ndarray, asyncio.Future, float]] = []
        # Batch n's records sit in slot n % keep_batches: allocated once, then overwritten.
        self.keep_batches = keep_batches
        self._sizes = array("I", [0]) * keep_batches
        self._first_waits_us = array("q", [0]) * keep_batches  # enqueue -> taken
        self.batches_made = 0
        self.rows_scored = 0
        self.timers_started = 0  # W = 0 must leave this at zero
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer = None  # made on start, only when W > 0
        self.timer_kind: str | None = None  # 'timerfd' or 'loop' once started with W > 0
        self._timer_armed = False
        self._leave_soon = False  # a batch is due at the loop's next callback

    # -- the request side -------------------------------------------------------------------

    def submit(self, row: np.ndarray) -> asyncio.Future:
        """Queue one (1, 6) row; the future resolves to `Scored` or raises ModelCallFailed.
        When this row fills the batch, the batch is scored before `submit` returns."""
        if self._loop is None:
            self.start()
        future = self._loop.create_future()
        pending = self.pending
        pending.append((row, future, self.clock()))
        if len(pending) >= self.max_batch and self._drop_gone() >= self.max_batch:
            self._leave()
        elif len(pending) == 1:
            if self.max_wait_s == 0:
                self._leave_at_next_callback()
            else:
                self._arm_timer(pending[0][2] + self.max_wait_s)
        return future

    async def score(self, row: np.ndarray) -> Scored:
        return await self.submit(row)

    # -- start and stop ---------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Bind to the running loop (done on first use if not before)."""
        if self._loop is not None:
            return
        self._loop = loop or asyncio.get_running_loop()
        if self.max_wait_s > 0:
            self._timer = self.make_timer(self._timer_fired, self.clock, self._loop)
            self.timer_kind = getattr(self._timer, "kind", "given")

    async def stop(self) -> None:
        """Cancel every request still waiting and release the timer."""
        self._leave_soon = False
        if self._timer is not None:
            self._timer.close()
            self._timer = None
            self._timer_armed = False
        for _, future, _ in self.pending:
            future.cancel()
        self.pending.clear()

    # -- when a batch leaves ----------------------------------------------------------------

    def _leave_at_next_callback(self) -> None:
        if not self._leave_soon:
            self._leave_soon = True
            self._loop.call_soon(self._next_callback)

    def _next_callback(self) -> None:  # W = 0: what gathered while the model was busy goes
        self._leave_soon = False
        if self._drop_gone():
            self._leave()

    # --8<-- [start:timer] (the site shows the timer: generator/pages/sources.py)
    def _timer_fired(self) -> None:  # W > 0: the first waiting row's W has passed
        self._timer_armed = False
        if self._drop_gone() == 0:
            return
        deadline = self.pending[0][2] + self.max_wait_s
        if self.clock() >= deadline:
            self._leave()
        else:  # its first row went away, or a loop timer fired a hair early: never before W
            self._arm_timer(deadline)

    # --8<-- [end:timer]
    def _drop_gone(self) -> int:
        """Forget rows whose client went away (their future was cancelled); rows left."""
        pending = self.pending
        if any(future.done() for _, future, _ in pending):
            pending[:] = [item for item in pending if not item[1].done()]
        return len(pending)

    def _leave(self) -> None:
        """The batch leaves with every row waiting: a batch leaves as soon as it is full, so
        there are never more than B."""
        if self._timer_armed:
            self._timer.disarm()
            self._timer_armed = False
        taken, self.pending = self.pending, []
        self._score(taken, self.clock())

    def _score(self, taken: list, taken_at: float) -> None:
        size = len(taken)
        slot = self.batches_made % self.keep_batches
        self._sizes[slot] = size
        self._first_waits_us[slot] = int((taken_at - taken[0][2]) * 1e6)
        self.batches_made += 1
        self.rows_scored += size
        model_started = self.clock()
        try:
            rows = taken[0][0] if size == 1 else np.concatenate([row for row, _, _ in taken])
            model_started = self.clock()
            scores = self.score_rows(rows)
            model_done = self.clock()
            if len(scores) != size:
                raise ValueError(f"the model returned {len(scores)} scores for {size} rows")
            probabilities = np.asarray(scores, dtype=np.float64).tolist()
        except Exception as error:  # any model failure fails this batch, never the batcher
            reason, failed_at = f"{type(error).__name__}: {error}", self.clock()
            for _, future, _ in taken:
                future.set_exception(ModelCallFailed(reason, model_started, size, failed_at))
            return
        # Nothing else runs between taking the rows and here, so every future is still open.
        for (_, future, _), probability in zip(taken, probabilities, strict=True):
            future.set_result(Scored(probability, model_started, size, model_done))

    # -- the timer (W > 0 only) -------------------------------------------------------------

    def _arm_timer(self, deadline_s: float) -> None:
        self.timers_started += 1
        self._timer_armed = True
        self._timer.arm(deadline_s)

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
