"""What the service and the client do on the shared core, counted: loop iterations, reads and
writes, wake-ups, context switches, and the order in which requests are answered.

Two sources, both outside the measured processes (nothing in them changes):
- /proc/PID/schedstat and /proc/PID/status (`ProcCounters`): CPU time, time spent runnable
  but waiting for the core, time slices, voluntary and involuntary context switches;
- `perf record` of scheduler and syscall tracepoints on the measurement core (`Recorder`,
  run from another core), read back with `perf script` and counted by `count_events`.

A uvloop event loop calls epoll_pwait once per iteration, so the service's epoll_pwait calls
count its loop iterations. A request is a service `read` of more than 8 bytes on a socket
(a file the service writes to); its answer is the service's next `write`(s) on that socket.
Used by lab/bench/handler_trace.py (`python -m lab.bench.handler_trace`); tested by
tests/test_schedtrace.py.
"""

import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

EVENTS = (
    "sched:sched_switch",
    "sched:sched_wakeup",
    "syscalls:sys_enter_epoll_pwait",
    "syscalls:sys_enter_epoll_wait",
    "syscalls:sys_enter_read",
    "syscalls:sys_exit_read",
    "syscalls:sys_enter_write",
    "syscalls:sys_enter_recvmsg",
    "syscalls:sys_exit_recvmsg",
    "syscalls:sys_enter_sendto",
)
TIMER_READ_BYTES = 8  # a timerfd or eventfd read; anything longer on a socket is a message
MMAP_PAGES = 4096  # perf's buffer per core (16 MiB), so a busy second loses no event
START_S = 0.5  # perf's own start-up, before the recorded block begins
_LINE = re.compile(r"^\s*(\d+)\s+([\d.]+):\s+(\S+):\s?(.*)$")
_FD = re.compile(r"fd: (0x[0-9a-f]+)")
_COUNT = re.compile(r"count: (0x[0-9a-f]+)")
_SWITCH = re.compile(r"prev_pid=(\d+) .*prev_state=(\S+) ==> .*next_pid=(\d+)")
_WAKEUP = re.compile(r"\bpid=(\d+)")
_RETURN = re.compile(r"(0x[0-9a-f]+)")


# ---------------------------------------------------------------- /proc counters


def proc_counters(pid: int) -> dict[str, int]:
    """CPU ns, runnable-but-waiting ns, time slices, voluntary and involuntary switches."""
    run_ns, wait_ns, slices = (int(v) for v in Path(f"/proc/{pid}/schedstat").read_text().split())
    found = {"cpu_ns": run_ns, "runnable_wait_ns": wait_ns, "time_slices": slices}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches"):
            found["voluntary_switches"] = int(line.split()[1])
        elif line.startswith("nonvoluntary_ctxt_switches"):
            found["involuntary_switches"] = int(line.split()[1])
    return found


class ProcCounters:
    """`with ProcCounters(pid) as counted:` -> counted.found, the deltas over the block."""

    def __init__(self, pid: int):
        self.pid = pid
        self.found: dict[str, int] = {}

    def __enter__(self) -> "ProcCounters":
        self.before = proc_counters(self.pid)
        return self

    def __exit__(self, *exc) -> None:
        after = proc_counters(self.pid)
        self.found = {name: after[name] - self.before[name] for name in after}


# ---------------------------------------------------------------- perf record / perf script


def perf_available() -> str | None:
    """None if `perf record` of tracepoints works here, else why not."""
    if shutil.which("perf") is None:
        return "perf is not installed (apt-get install linux-perf)"
    done = subprocess.run(
        ["perf", "record", "-q", "-o", "/dev/null", "-e", "sched:sched_switch", "true"],
        capture_output=True,
        text=True,
    )
    return None if done.returncode == 0 else f"perf record failed: {done.stderr.strip()[-200:]}"


class Recorder:
    """`perf record` of EVENTS on `cpu`, itself pinned to `perf_cpus`; a context manager
    whose block is the recorded span. `events()` reads the file back."""

    def __init__(self, cpu: int, perf_cpus: set[int]):
        self.cpu = cpu
        self.perf_cpus = perf_cpus
        self.folder = Path(tempfile.mkdtemp(prefix="lab-perf-"))
        self.data = self.folder / "perf.data"

    def __enter__(self) -> "Recorder":
        pin = ["taskset", "-c", ",".join(map(str, sorted(self.perf_cpus)))]
        # --synth=no: listing every process's memory maps first takes seconds on a busy
        # machine, and a stop during it loses every event.
        command = [*pin, "perf", "record", "-q", "--synth=no", "-o", str(self.data),
                   "-C", str(self.cpu), "-m", str(MMAP_PAGES), "-e", ",".join(EVENTS)]  # fmt: skip
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        time.sleep(START_S)
        if self.process.poll() is not None:
            raise RuntimeError(f"perf record stopped: {self.process.stderr.read()[-300:]}")
        return self

    def __exit__(self, *exc) -> None:
        self.process.send_signal(signal.SIGINT)
        _, stderr = self.process.communicate(timeout=60)
        if not self.data.exists():
            raise RuntimeError(f"perf record wrote nothing: {stderr.strip()[-300:]}")

    def events(self) -> list["Event"]:
        done = subprocess.run(
            ["perf", "script", "-i", str(self.data), "-F", "tid,time,event,trace"],
            capture_output=True,
            text=True,
            check=True,
        )
        return parse_script(done.stdout)

    def lost_events(self) -> int:
        """Events perf could not keep (its buffer overflowed): 0 for a complete trace."""
        done = subprocess.run(
            ["perf", "report", "-i", str(self.data), "--stats"], capture_output=True, text=True
        )
        found = re.search(r"LOST events:\s+(\d+)", done.stdout)
        return int(found.group(1)) if found else 0

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass(frozen=True)
class Event:
    tid: int
    time_s: float
    name: str  # e.g. "sched_switch", "sys_enter_write"
    text: str  # the tracepoint's fields as perf prints them


def parse_script(text: str) -> list[Event]:
    """Events from `perf script -F tid,time,event,trace` output, in time order."""
    events = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            tid, when, name, rest = match.groups()
            events.append(Event(int(tid), float(when), name.split(":")[-1], rest))
    return events


# ---------------------------------------------------------------- counting


def request_span(events: list[Event], service: int, min_bytes: int = 100) -> list[Event]:
    """The events from the service's first read of at least `min_bytes` (a POST /predict;
    the clients' GET /health checks are shorter) to its last write: the measured window,
    without the clients' start-up and connection checks."""
    first = last = entered = None
    for index, event in enumerate(events):
        if event.tid != service:
            continue
        if event.name == "sys_enter_read":
            entered = index
        elif first is None and event.name == "sys_exit_read":
            if _hex(_RETURN, event.text) >= min_bytes:
                first = entered if entered is not None else index
        elif first is not None and event.name == "sys_enter_write":
            last = index
    return events[first : last + 1] if first is not None and last is not None else []


def _hex(pattern: re.Pattern, text: str) -> int:
    found = pattern.search(text)
    return int(found.group(1), 16) if found else -1


def count_events(events: list[Event], service: int, client: int) -> dict:
    """Counts over the recorded span: per process (service, client, others on the core) and
    per request the service read (see the module docstring)."""
    role = {service: "service", client: "client"}
    # Sockets are the files the service writes answers to (it also reads files now and then).
    sockets = {_hex(_FD, event.text) for event in events
               if event.tid == service and event.name == "sys_enter_write"}  # fmt: skip
    counts: dict[str, Counter] = {"service": Counter(), "client": Counter(), "others": Counter()}
    core_s: Counter = Counter()
    on_core = None  # (tid, since): what runs on the core
    reading: dict[int, int] = {}  # tid -> fd of a read not returned yet
    waiting: dict[int, dict] = {}  # service fd -> its request, read and not answered yet
    answering: dict[int, dict] = {}  # service fd -> its request, answer being written
    answered: list[dict] = []
    unanswered: list[int] = []  # read order of the requests not answered yet
    iterations = 0
    for event in events:
        who = role.get(event.tid, "others")
        if event.name == "sched_switch":
            found = _SWITCH.search(event.text)
            if not found:
                continue
            if on_core is not None:
                core_s[role.get(on_core[0], "others")] += event.time_s - on_core[1]
            on_core = (int(found.group(3)), event.time_s)
            how = "preempted" if found.group(2).startswith("R") else "blocked"
            switched_out = role.get(int(found.group(1)), "others")
            counts[switched_out][f"switched_out_{how}"] += 1
            if switched_out == "service":
                for request in waiting.values():
                    request["switches"] += 1
        elif event.name == "sched_wakeup":
            found = _WAKEUP.search(event.text)
            woken = role.get(int(found.group(1)), "others") if found else "others"
            counts[woken]["woken"] += 1
            if woken == "client":
                for request in waiting.values():
                    request["client_wakeups"] += 1
        elif event.name in ("sys_enter_epoll_pwait", "sys_enter_epoll_wait"):
            counts[who]["epoll_waits"] += 1
            iterations += who == "service"
        elif event.name in ("sys_enter_read", "sys_enter_recvmsg"):
            reading[event.tid] = _hex(_FD, event.text)
        elif event.name in ("sys_exit_read", "sys_exit_recvmsg"):
            fd, got = reading.pop(event.tid, -1), _hex(_RETURN, event.text)
            kind = "empty" if got <= 0 else "timer" if got <= TIMER_READ_BYTES else "message"
            if who == "service" and kind == "message" and fd not in sockets:
                kind = "file"
            counts[who][f"{kind}_reads"] += 1
            if who == "service" and kind == "message" and fd not in waiting:
                answering.pop(fd, None)
                waiting[fd] = {"read_at": event.time_s, "order": len(answered) + len(waiting),
                               "iterations_at_read": iterations, "switches": 0,
                               "client_wakeups": 0, "writes": 0}  # fmt: skip
                unanswered.append(waiting[fd]["order"])
        elif event.name in ("sys_enter_write", "sys_enter_sendto"):
            if _hex(_COUNT, event.text) == TIMER_READ_BYTES:
                counts[who]["timer_writes"] += 1  # an eventfd poke, not a message
                continue
            counts[who]["message_writes"] += 1
            fd = _hex(_FD, event.text)
            if who == "service" and fd in waiting:
                request = answering[fd] = waiting.pop(fd)
                request["answered_at"] = event.time_s
                request["iterations"] = iterations - request["iterations_at_read"]
                request["overtook"] = sum(order < request["order"] for order in unanswered)
                unanswered.remove(request["order"])
                answered.append(request)
            if who == "service" and fd in answering:
                answering[fd]["writes"] += 1
    span_s = (events[-1].time_s - events[0].time_s) if events else 0.0
    return {
        "span_s": round(span_s, 6),
        "core_share": {
            name: round(seconds / span_s, 4) if span_s else 0.0
            for name, seconds in sorted(core_s.items())
        },  # fmt: skip
        "counts": {name: dict(sorted(counter.items())) for name, counter in counts.items()},
        "requests": request_summary(answered),
    }


def request_summary(answered: list[dict]) -> dict:
    """Per answered request: loop iterations, times the service lost the core, and client
    wake-ups between its read and its answer; writes per answer; and how often answers
    overtook requests that were read earlier (served out of arrival order)."""
    count = len(answered)
    if not count:
        return {"answered": 0}

    def mean(key: str) -> float:
        return round(sum(request[key] for request in answered) / count, 4)

    sojourn_us = sorted((request["answered_at"] - request["read_at"]) * 1e6 for request in answered)
    return {
        "answered": count,
        "loop_iterations_read_to_answer_mean": mean("iterations"),
        "loop_iterations_read_to_answer_max": max(request["iterations"] for request in answered),
        "service_switched_out_read_to_answer_mean": mean("switches"),
        "client_wakeups_read_to_answer_mean": mean("client_wakeups"),
        "writes_per_answer_mean": mean("writes"),
        "answered_out_of_read_order": sum(1 for request in answered if request["overtook"]),
        "overtaken_requests_mean": mean("overtook"),
        "read_to_answer_us_p50": round(sojourn_us[count // 2], 1),
    }
