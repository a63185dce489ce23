"""Property tests of the micro-batcher on a controllable clock and loop (hypothesis).

The clock is a number the test moves; the W timer is one the test fires when the clock
reaches its deadline; a model call takes simulated time (300 µs + 3 µs per row). Requests
arrive in waves (a wave = the requests read in one poll, queued in one loop pass), the
gaps between waves drawn by hypothesis, some rows break the model, some clients go away.
Whatever the cap B, the wait W and the traffic:

- a call never holds more than B rows, and rows are scored first in, first out;
- with W > 0 no batch leaves before its first row has waited W unless it is full (even when
  the timer fires early, as a millisecond loop timer can), and none leaves later than W (or
  the end of the model call before it) requires;
- W = 0 never makes a timer, and a batch leaves as soon as the model is free;
- a full batch leaves at once, inside the submit that filled it;
- every request still wanted is answered exactly once, with its own row's score, or with
  the failure of its own batch (a raising model call fails only that batch);
- a client that goes away loses only its own request; its row is never scored.

Run: .venv/bin/pytest tests/test_batcher_properties.py
"""

import asyncio

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.service.batcher import MicroBatcher, ModelCallFailed

CALL_S, PER_ROW_S = 300e-6, 3e-6
POISON = -1.0  # a row whose first feature is this makes the model raise


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class ControlledTimer:
    """The W timer, fired by the test: it only remembers its deadline."""

    made: list["ControlledTimer"] = []

    def __init__(self, callback, clock, loop):
        self.callback = callback
        self.deadline: float | None = None
        ControlledTimer.made.append(self)

    def arm(self, deadline_s: float) -> None:
        self.deadline = deadline_s

    def disarm(self) -> None:
        self.deadline = None

    def close(self) -> None:
        self.deadline = None


class Model:
    """score = 2 × id + 1; each call takes simulated time; a POISON row makes it raise."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.calls: list[dict] = []

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        ids = rows[:, 1].astype(int).tolist()
        call = {"start": self.clock.now, "ids": ids}
        self.clock.now += CALL_S + PER_ROW_S * len(ids)
        call["end"] = self.clock.now
        self.calls.append(call)
        if (rows[:, 0] == POISON).any():
            raise RuntimeError("poisoned row")
        return rows[:, 1] * 2 + 1


def one_pass(loop: asyncio.AbstractEventLoop) -> None:
    """Run exactly the callbacks queued now (what one event-loop pass runs)."""
    loop.call_soon(loop.stop)
    loop.run_forever()


def settle(loop: asyncio.AbstractEventLoop) -> None:
    while loop._ready:  # the loop's own queue of ready callbacks
        one_pass(loop)


class Harness:
    def __init__(self, max_batch: int, max_wait_ms: float, early_s: float = 0.0):
        """`early_s`: the timer fires this long before its deadline (a coarse loop timer)."""
        self.early_s = early_s
        self.fired_early: set[float] = set()
        ControlledTimer.made = []
        self.clock = Clock()
        self.model = Model(self.clock)
        self.loop = asyncio.new_event_loop()
        self.batcher = MicroBatcher(self.model, max_batch, max_wait_ms, self.clock, ControlledTimer)
        self.batcher.start(self.loop)
        self.requests: list[dict] = []

    def fire_timers_until(self, when: float) -> None:
        """Move the clock to `when`, firing the W timer each time its deadline comes first."""
        timer = ControlledTimer.made[0] if ControlledTimer.made else None
        while timer is not None and timer.deadline is not None:
            # Early once per deadline: armed again for it, it fires on time.
            early = 0.0 if timer.deadline in self.fired_early else self.early_s
            fires_at = timer.deadline - early
            if fires_at > when:
                break
            self.fired_early.add(timer.deadline)
            self.clock.now = max(self.clock.now, fires_at)
            timer.deadline = None
            timer.callback()
            settle(self.loop)
        self.clock.now = max(self.clock.now, when)

    def wave(self, gap_s: float, poison: list[bool]) -> None:
        self.fire_timers_until(self.clock.now + gap_s)
        for bad in poison:
            ident = len(self.requests)
            row = np.array([[POISON if bad else 0.0, ident, 0, 0, 0, 0]], dtype=np.float64)
            enqueued = self.clock.now
            future = self.batcher.submit(row)
            self.requests.append({"id": ident, "future": future, "enqueued": enqueued,
                                  "done_at_submit": future.done(), "gone": False,
                                  "poison": bad})  # fmt: skip
        settle(self.loop)

    def go_away(self, pick: int) -> None:
        waiting = [r for r in self.requests if not r["future"].done()]
        if waiting:
            request = waiting[pick % len(waiting)]
            request["future"].cancel()
            request["gone"] = True
            settle(self.loop)

    def finish(self) -> None:
        self.fire_timers_until(self.clock.now + 3600.0)
        settle(self.loop)
        self.loop.close()


waves = st.lists(
    st.one_of(
        st.tuples(
            st.just("wave"),
            st.sampled_from([0.0, 10e-6, 200e-6, 900e-6, 3e-3, 15e-3]),
            st.integers(1, 40).map(lambda size: [False] * size),
        ),
        st.tuples(st.just("poisoned wave"), st.floats(0, 5e-3), st.integers(1, 6)),
        st.tuples(st.just("go away"), st.integers(0, 1000)),
    ),
    min_size=1,
    max_size=25,
)
caps = st.sampled_from([1, 2, 3, 8, 32, 128])
waits = st.sampled_from([0.0, 0.05, 1.0, 2.0, 10.0])


def play(max_batch: int, max_wait_ms: float, steps, early_s: float = 0.0) -> Harness:
    harness = Harness(max_batch, max_wait_ms, early_s)
    for step in steps:
        if step[0] == "wave":
            harness.wave(step[1], step[2])
        elif step[0] == "poisoned wave":
            harness.wave(step[1], [True] + [False] * (step[2] - 1))
        else:
            harness.go_away(step[1])
    harness.finish()
    return harness


@settings(max_examples=300, deadline=None)
@given(caps, waits, waves, st.sampled_from([0.0, 0.0, 400e-6]))
def test_every_property_holds_whatever_the_traffic(max_batch, max_wait_ms, steps, early_s):
    harness = play(max_batch, max_wait_ms, steps, early_s)
    requests, calls = harness.requests, harness.model.calls
    by_id = {r["id"]: r for r in requests}
    wait_s = max_wait_ms / 1e3
    scored = [ident for call in calls for ident in call["ids"]]

    # B caps every call; rows are scored first in, first out, each at most once.
    assert all(len(call["ids"]) <= max_batch for call in calls)
    assert scored == sorted(scored) and len(scored) == len(set(scored))

    # Every request still wanted is answered exactly once, with its own score or its own
    # batch's failure; a request that went away before its batch left was never scored.
    call_of = {ident: call for call in calls for ident in call["ids"]}
    for request in requests:
        future = request["future"]
        assert future.done()
        if request["gone"]:
            assert future.cancelled() and request["id"] not in call_of
            continue
        call = call_of[request["id"]]
        if any(by_id[ident]["poison"] for ident in call["ids"]):
            assert isinstance(future.exception(), ModelCallFailed)
            assert future.exception().batch_size == len(call["ids"])
        else:
            answer = future.result()
            assert answer.probability == 2.0 * request["id"] + 1
            assert answer.batch_size == len(call["ids"])
            assert answer.model_started == call["start"] and answer.model_done == call["end"]
    assert harness.batcher.sizes == [len(call["ids"]) for call in calls]

    previous_end = -np.inf
    for call in calls:
        first = by_id[call["ids"][0]]
        last = by_id[call["ids"][-1]]
        full = len(call["ids"]) == max_batch
        if full and last["done_at_submit"]:
            assert call["start"] == last["enqueued"]  # it left inside the filling submit
        if wait_s > 0 and not full:
            assert call["start"] >= first["enqueued"] + wait_s  # never before W
        # ... and never later than W (or the model's previous call) requires.
        assert call["start"] <= max(first["enqueued"] + wait_s, previous_end) + 1e-12
        previous_end = call["end"]

    # W = 0 never makes a timer.
    if wait_s == 0:
        assert ControlledTimer.made == [] and harness.batcher.timers_started == 0
