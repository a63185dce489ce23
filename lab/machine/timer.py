"""Precise timers on this machine: `Ticker(callback, loop).arm(ns)` for an event loop, and
`Sleeper().sleep_until(ns)` for a process with none.

The event loops' own timers only have millisecond resolution (they would bunch Poisson
arrivals into millisecond clumps, and stretch the batcher's wait W), so on Linux the Ticker
is a timerfd (nanosecond resolution, CLOCK_MONOTONIC like `time.monotonic_ns`) and the
Sleeper a clock_nanosleep with a timer slack of 1 ns. Used by the
micro-batcher (lab/service/batcher.py) for W and by the open-loop client
(lab/load/openloop.py) for arrivals; tested through them.
"""

import asyncio
import ctypes
import os
import time
from collections.abc import Callable

CLOCK_MONOTONIC = 1
TFD_TIMER_ABSTIME = 1
TFD_NONBLOCK = os.O_NONBLOCK
TFD_CLOEXEC = os.O_CLOEXEC


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", _Timespec), ("it_value", _Timespec)]


def _libc_timerfd():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.timerfd_create, libc.timerfd_settime
    except (OSError, AttributeError):
        return None


class Ticker:
    """Calls `callback` once at (or just after) an absolute `time.monotonic_ns()` deadline.

    On Linux a timerfd (nanosecond resolution, CLOCK_MONOTONIC like `time.monotonic_ns`)
    watched by the event loop; elsewhere the loop's own timer (millisecond resolution).
    Arming again moves the deadline; `disarm` cancels it.
    """

    def __init__(self, callback: Callable[[], None], loop=None):
        self.loop = loop or asyncio.get_running_loop()
        self.callback = callback
        self.handle = None
        self.fd = -1
        timerfd = _libc_timerfd()
        if timerfd is not None:
            create, self._settime = timerfd
            self.fd = create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)
        if self.fd >= 0:
            self.spec = _Itimerspec()
            self.loop.add_reader(self.fd, self._fired)
            self.kind = "timerfd"
        else:
            self.kind = "loop"

    def arm(self, deadline_ns: int) -> None:
        if self.fd >= 0:
            # it_value 0 would disarm the timer, so a deadline in the past becomes 1 ns.
            self._set(max(deadline_ns, 1))
        else:
            if self.handle is not None:
                self.handle.cancel()
            delay_s = max(deadline_ns - time.monotonic_ns(), 0) / 1e9
            self.handle = self.loop.call_later(delay_s, self.callback)

    def disarm(self) -> None:
        """No callback until armed again (an expiry not yet read is dropped too)."""
        if self.fd >= 0:
            self._set(0)
        elif self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _set(self, deadline_ns: int) -> None:
        self.spec.it_value.tv_sec, self.spec.it_value.tv_nsec = divmod(deadline_ns, 1_000_000_000)
        if self._settime(self.fd, TFD_TIMER_ABSTIME, ctypes.byref(self.spec), None) != 0:
            raise OSError(ctypes.get_errno(), "timerfd_settime failed")

    def _fired(self) -> None:
        try:
            os.read(self.fd, 8)
        except BlockingIOError:
            return  # re-armed or disarmed before this wake-up was read: nothing due
        self.callback()

    def close(self) -> None:
        if self.fd >= 0:
            self.loop.remove_reader(self.fd)
            os.close(self.fd)
            self.fd = -1
        if self.handle is not None:
            self.handle.cancel()


class Sleeper:
    """Sleeps until an absolute `time.monotonic_ns()` deadline, for a client with no event
    loop: `time.sleep`, which on Linux is clock_nanosleep on CLOCK_MONOTONIC, with this
    thread's timer slack cut from 50 µs to 1 ns so it wakes within microseconds, as a
    timerfd does. It costs less CPU per wake-up than a timerfd set through ctypes (16 against
    23-28 µs on the shared core, issue 33), and the client shares that core with the service
    it measures. A deadline already past returns at once, with no system call. Where the
    slack cannot be set, `kind` says so (the sleep may then be up to 50 µs late)."""

    def __init__(self):
        self.kind = "nanosleep" if _set_timer_slack_ns(1) else "sleep"

    @staticmethod
    def sleep_until(deadline_ns: int) -> None:
        delay_ns = deadline_ns - time.monotonic_ns()
        if delay_ns > 0:
            time.sleep(delay_ns / 1e9)

    def close(self) -> None:
        pass


PR_SET_TIMERSLACK = 29


def _set_timer_slack_ns(slack_ns: int) -> bool:
    """Set this thread's timer slack (Linux prctl); False where that is not possible."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_TIMERSLACK, slack_ns, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
