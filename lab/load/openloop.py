"""The open-loop client: Poisson arrivals on their own clock against a running service.

    python -m lab openloop --port P --arrival-rate R --window-s 8 --seed N --out FILE.run.zip

All `connections` kept-alive connections are opened (and answered once on /health) before
the window. Each request is sent at its scheduled time whether or not earlier answers came
back; when every connection is busy it waits in a client FIFO for the next free one, and its
latency still counts from the scheduled arrival (no coordinated omission). After the window
the client waits at most `drain_s` for answers still owed; a request never answered is
recorded with status 0 and latency -1, never dropped. A connection closed or reset under
the client raises `PeerClosed`: the run fails loudly.

The client shares the core with the service it measures, so it is built to cost little, and
the same in every setting: one thread and no event loop. It sleeps (lab/machine/timer.py's
Sleeper: clock_nanosleep with a 1 ns timer slack) until the next arrival and is never woken
by an answer; it reads the answers that came whenever it is awake anyway (at each arrival,
and every COLLECT_NS while answers are owed and no arrival is due), and inside the window
reads only each answer's length: the rest is read after it (`parse_answers`). An answer's
time is when its last byte reached the client's socket, the kernel's receive timestamp
(SO_TIMESTAMPNS), not when the client got round to reading it.

Every answer is checked to the bit: the probability must equal the single-row score of that
customer (`lab.model.expected`, computed before the window) and the echoed id must be the one
sent. Columns and meta: data/README.md. Tested by tests/test_openloop.py.

A switchback run (issue 28; `--slice-s 0.5 --first-arm a`, against a two-armed service,
lab/service/switchback.py): each request goes to the arm of the slice it is scheduled in
(`lab.load.arrivals.slice_arms`), decided before the window and built into its request bytes
(`/arm/a/predict` or `/arm/b/predict`, the same length), so the client does exactly the same
work for either arm; the `arm` column records it. With `--twin-slices` each B slice repeats
the arrivals of the A slice before it (`lab.load.arrivals.twin_slice_arrivals`). Tested by
tests/test_switchback.py.
"""

import argparse
import gc
import json
import resource
import select
import socket
import struct
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np

from lab.load import arrivals, httpclient
from lab.load.arrivals import slice_arms
from lab.load.client_cli import run_client
from lab.machine.timer import Sleeper
from lab.model import artifacts, expected
from lab.service.arms import ARMS, arm_path, route_of_arms
from lab.service.server_timing import server_timing_moments

NS_PER_S = 1_000_000_000
# The window starts this long after the client is ready.
START_LEAD_NS = 20_000_000
# While answers are owed and no arrival is due sooner, wake this often to read them.
COLLECT_NS = 5_000_000
HEALTH_TIMEOUT_S = 30.0
RECV_BYTES = 65_536
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # 35 on Linux; Python names it in 3.12+
TIMESPEC = struct.Struct("qq")
# The realtime clock (which receive timestamps use) may not step by more than this in a run.
MAX_CLOCK_DRIFT_NS = 1_000_000
IDLE, HEALTH = -1, -2  # a connection's tag when no request / the /health check is outstanding


def realtime_minus_monotonic_ns() -> int:
    """CLOCK_REALTIME - CLOCK_MONOTONIC, from the tightest of a few back-to-back readings."""
    best = None
    for _ in range(5):
        before = time.monotonic_ns()
        realtime = time.clock_gettime_ns(time.CLOCK_REALTIME)
        after = time.monotonic_ns()
        if best is None or after - before < best[0]:
            best = (after - before, realtime - (before + after) // 2)
    return best[1]


class Connections:
    """Kept-alive non-blocking sockets, at most one request outstanding on each, watched by an
    epoll set that only the client polls (it never sleeps on it)."""

    def __init__(self, host: str, port: int, count: int):
        self.peer = f"{host}:{port}"
        self.sockets: list[socket.socket] = []
        self.tag = [IDLE] * count  # the request outstanding on each connection
        self.buffer = [b""] * count
        self.by_fd: dict[int, int] = {}
        self.poller = select.epoll()
        self.timestamps = True
        for index in range(count):
            sock = socket.create_connection((host, port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            except OSError:
                self.timestamps = False
            sock.setblocking(False)
            self.sockets.append(sock)
            self.by_fd[sock.fileno()] = index
            self.poller.register(sock.fileno(), select.EPOLLIN | select.EPOLLRDHUP)
        self.ancillary = socket.CMSG_SPACE(TIMESPEC.size) if self.timestamps else 0

    def where(self, index: int) -> str:
        return f"connection {index} to {self.peer}"

    def send(self, index: int, request: bytes, tag: int) -> None:
        self.tag[index] = tag
        try:
            sent = self.sockets[index].send(request)
        except OSError as error:
            raise httpclient.PeerClosed(
                f"{self.where(index)} was reset by the service ({error})"
            ) from error
        if sent != len(request):  # an idle kept-alive socket always takes a small request
            raise httpclient.BadResponse(f"{self.where(index)}: sent {sent} of {len(request)}")

    def ready(self, timeout_s: float = 0) -> list[int]:
        """Connections with bytes (or a close) to read."""
        return [self.by_fd[fd] for fd, _ in self.poller.poll(timeout_s)]

    def receive(self, index: int) -> tuple[int, bytes, bytes, int] | None:
        """(tag, the whole response's bytes, the kernel's receive timestamp as raw bytes (b""
        when none), read_ns) once a whole answer is in, None while it is partial; PeerClosed
        or BadResponse when the exchange broke. Only the length is read here: the rest of
        the answer is read after the window (`parse_answers`), off the shared core's clock."""
        try:
            data, ancillary, _, _ = self.sockets[index].recvmsg(RECV_BYTES, self.ancillary)
        except BlockingIOError:
            return None
        except OSError as error:
            raise httpclient.PeerClosed(self._lost(index, f"reset ({error})")) from error
        read_ns = time.monotonic_ns()
        if not data:
            raise httpclient.PeerClosed(self._lost(index, "closed"))
        if self.buffer[index]:
            data, self.buffer[index] = self.buffer[index] + data, b""
        if self.tag[index] == IDLE:
            raise httpclient.BadResponse(
                f"{self.where(index)}: {len(data)} bytes arrived with no request outstanding"
            )
        try:
            total = httpclient.response_length(data)
        except httpclient.BadResponse as bad:
            raise httpclient.BadResponse(f"{self.where(index)}: {bad}") from None
        if total is None or len(data) < total:
            if total is None and len(data) > httpclient.MAX_HEAD_BYTES:
                raise httpclient.BadResponse(f"{self.where(index)}: no end of headers")
            self.buffer[index] = data
            return None
        if len(data) > total:
            raise httpclient.BadResponse(
                f"{self.where(index)}: {len(data) - total} bytes beyond the answer "
                "(the client never pipelines)"
            )
        stamp = b""  # the last piece's timestamp: the answer's last byte reached the socket then
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                stamp = payload
        tag, self.tag[index] = self.tag[index], IDLE
        return tag, data, stamp, read_ns

    def _lost(self, index: int, how: str) -> str:
        tag = self.tag[index]
        state = f"with request {tag} outstanding" if tag != IDLE else "while idle between requests"
        return f"{self.where(index)} was {how} by the service {state}"

    def check_health(self, host: str, port: int) -> None:
        """One `GET /health` on every connection, so the service has accepted them all before
        the window starts (a connected socket may still sit in the listen backlog)."""
        request = httpclient.get_request(host, port, "/health")
        for index in range(len(self.sockets)):
            self.send(index, request, HEALTH)
        owed = len(self.sockets)
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        while owed:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{owed} connections unanswered on /health")
            for index in self.ready(0.1):
                received = self.receive(index)
                if received is not None:
                    status = httpclient.read_response(received[1])[0]
                    if status != 200:
                        raise httpclient.BadResponse(f"GET /health answered {status}")
                    owed -= 1

    def close(self) -> None:
        self.poller.close()
        for sock in self.sockets:
            sock.close()


class OpenLoop:
    """The state of one open-loop run: who is due, which connection is free, what came back."""

    def __init__(self, connections: Connections, requests: list[bytes], offsets_ns: list[int]):
        count = len(offsets_ns)
        self.connections = connections
        self.requests = requests
        self.offsets_ns = offsets_ns
        self.start_ns = 0
        self.next_due = 0
        self.idle = list(range(len(connections.sockets)))
        self.busy = 0
        self.waiting: deque[int] = deque()  # request indexes waiting for a free connection
        self.waited_for_connection = 0
        self.taken_ns = [0] * count  # when the client took each arrival (awake at its time)
        self.sent_ns = [0] * count
        self.response = [b""] * count  # each answer's bytes, read after the window
        self.stamp = [b""] * count  # its kernel receive timestamp (a raw timespec), if any
        self.read_ns = [0] * count  # when the client read it
        # Filled by parse_answers after the window:
        self.arrived_ns = [-1] * count  # kernel receive timestamp (realtime) of each answer
        self.status = [0] * count
        self.timing = [b""] * count
        self.body = [b""] * count
        self.answered = 0
        self.wakeups = 0

    def run(self, start_ns: int, end_ns: int, sleeper: Sleeper) -> None:
        """Send every arrival on time and read answers until all came or `end_ns` passed."""
        self.start_ns = start_ns
        offsets, count = self.offsets_ns, len(self.offsets_ns)
        while True:
            now = time.monotonic_ns()
            index = self.next_due
            while index < count and start_ns + offsets[index] <= now:
                self.taken_ns[index] = now
                self._dispatch(index)
                index += 1
            self.next_due = index
            self._collect()
            if index >= count and (self.answered == count or time.monotonic_ns() >= end_ns):
                return
            wake = start_ns + offsets[index] if index < count else end_ns
            if self.busy:
                wake = min(wake, time.monotonic_ns() + COLLECT_NS)
            sleeper.sleep_until(wake)
            self.wakeups += 1

    def _dispatch(self, index: int) -> None:
        if self.idle:
            self._send(self.idle.pop(), index)
        else:
            self.waiting.append(index)
            self.waited_for_connection += 1

    def _send(self, connection: int, index: int) -> None:
        self.sent_ns[index] = time.monotonic_ns()
        self.connections.send(connection, self.requests[index], index)
        self.busy += 1

    def _collect(self) -> None:
        connections = self.connections
        for connection in connections.ready():
            received = connections.receive(connection)
            if received is None:
                continue
            index, self.response[index], self.stamp[index], self.read_ns[index] = received
            self.answered += 1
            self.busy -= 1
            if self.waiting:
                self._send(connection, self.waiting.popleft())
            else:
                self.idle.append(connection)


def run_open_loop(
    host: str,
    port: int,
    arrivals_s: np.ndarray,
    customer_ids,
    connections: int = 512,
    drain_s: float = 60.0,
    *,
    window_s: float | None = None,
    arrival_rate: float | None = None,
    expected: np.ndarray | None = None,
    slice_us: int | None = None,
    first_arm: int = 0,
    swap_routes: bool = False,
) -> tuple[dict[str, np.ndarray], dict]:
    """Drive the service with requests at `arrivals_s` (seconds from window start), request
    i asking about `customer_ids[i]`. Returns (columns, stats); raises `PeerClosed` or
    `BadResponse` if the service closes a connection or sends something unreadable.
    `window_s` defaults to the last arrival, `arrival_rate` to requests / window_s;
    `expected[i]` is the probability request i must get back to the bit (None: not checked).
    With `slice_us` (a switchback run against a two-armed service), request i goes to arm
    `arm[i]` of `slice_arms(arrival_us, slice_us, first_arm)`, returned as column `arm`, at
    the route serving that arm (`swap_routes`: route b serves arm A and route a arm B)."""
    arrivals_s = np.asarray(arrivals_s, dtype=np.float64)
    if len(customer_ids) < len(arrivals_s):
        raise ValueError(f"{len(arrivals_s)} arrivals but only {len(customer_ids)} customer ids")
    window_s = float(
        window_s if window_s is not None else (arrivals_s[-1] if len(arrivals_s) else 0.0)
    )
    offsets_ns = np.round(arrivals_s * NS_PER_S).astype(np.int64).tolist()
    customer_ids = np.asarray(customer_ids[: len(offsets_ns)], dtype=np.int64)
    arms = None
    if slice_us is not None:
        arms = slice_arms(np.array(offsets_ns, dtype=np.int64) // 1000, slice_us, first_arm)
    routes = route_of_arms(swap_routes)
    paths = None if arms is None else [arm_path(routes[ARMS[arm]]) for arm in arms]
    requests = httpclient.predict_requests(host, port, customer_ids, paths)
    httpclient.raise_open_files_limit(connections + 256)
    pool = Connections(host, port, connections)
    sleeper = Sleeper()
    try:
        pool.check_health(host, port)
        run = OpenLoop(pool, requests, offsets_ns)
        clock = _timed_window(run, sleeper, window_s, drain_s)
    finally:
        sleeper.close()
        pool.close()
    parse_answers(run, pool)
    columns = _columns(run, clock)
    stats = _stats(run, clock, columns, window_s, arrival_rate, connections, drain_s)
    stats["timer"] = sleeper.kind
    stats.update(check_answers(run, customer_ids, expected))
    if arms is not None:
        columns["arm"] = arms
        stats["arm_requests"] = [int(np.count_nonzero(arms == arm)) for arm in (0, 1)]
        stats["slices"] = -(-round(window_s * 1e6) // slice_us)  # the window's slices, rounded up
    return columns, stats


def parse_answers(run: OpenLoop, pool: Connections) -> None:
    """Each answer's status, Server-Timing and body out of its bytes, and its kernel receive
    timestamp out of its raw timespec (BadResponse, naming the connection's request, for bytes
    that are not one response)."""
    for index, data in enumerate(run.response):
        if not data:
            continue
        try:
            run.status[index], run.timing[index], run.body[index] = httpclient.read_response(data)
        except httpclient.BadResponse as bad:
            raise httpclient.BadResponse(f"the answer to request {index}: {bad}") from None
        if run.stamp[index]:
            seconds, nanoseconds = TIMESPEC.unpack_from(run.stamp[index])
            run.arrived_ns[index] = seconds * NS_PER_S + nanoseconds
    run.response = run.stamp = []  # no longer needed: the run keeps the parsed columns


def _timed_window(run: OpenLoop, sleeper, window_s: float, drain_s: float) -> dict:
    offset_before = realtime_minus_monotonic_ns()
    usage_before = resource.getrusage(resource.RUSAGE_SELF)
    gc.disable()  # no collector pause in the middle of the window
    try:
        cpu_start_ns = time.process_time_ns()
        start_ns = time.monotonic_ns() + START_LEAD_NS
        # Answers still owed after the drain are recorded as never answered.
        run.run(start_ns, start_ns + round((window_s + drain_s) * NS_PER_S), sleeper)
        end_ns = time.monotonic_ns()
        cpu_ns = time.process_time_ns() - cpu_start_ns
    finally:
        gc.enable()
    usage_after = resource.getrusage(resource.RUSAGE_SELF)
    offset_after = realtime_minus_monotonic_ns()
    return {
        "start_ns": start_ns,
        "end_ns": end_ns,
        "cpu_ns": cpu_ns,
        "offset_ns": offset_before,
        "offset_drift_ns": offset_after - offset_before,
        "user_s": usage_after.ru_utime - usage_before.ru_utime,
        "system_s": usage_after.ru_stime - usage_before.ru_stime,
        "voluntary_switches": usage_after.ru_nvcsw - usage_before.ru_nvcsw,
        "involuntary_switches": usage_after.ru_nivcsw - usage_before.ru_nivcsw,
    }


def answer_times_ns(run: OpenLoop, clock: dict) -> tuple[np.ndarray, str]:
    """Each answer's arrival on the monotonic clock (0: never answered), and which clock
    gave it: the kernel's receive timestamp, or the client's read if there was none or the
    realtime clock stepped during the run."""
    read = np.array(run.read_ns, dtype=np.int64)
    arrived = np.array(run.arrived_ns, dtype=np.int64)
    answered = read > 0
    if abs(clock["offset_drift_ns"]) <= MAX_CLOCK_DRIFT_NS and np.all(arrived[answered] > 0):
        return np.where(answered, arrived - clock["offset_ns"], 0), "kernel receive timestamp"
    return read, "client read"


def _columns(run: OpenLoop, clock: dict) -> dict[str, np.ndarray]:
    offsets = np.array(run.offsets_ns, dtype=np.int64)
    scheduled = clock["start_ns"] + offsets
    sent = np.array(run.sent_ns, dtype=np.int64)
    done, clock["answer_clock"] = answer_times_ns(run, clock)
    clock["done_ns"] = done
    moments = np.array(
        [server_timing_moments(value) for value in run.timing], dtype=np.int64
    ).reshape(-1, 5)
    return {
        "arrival_us": (offsets // 1000).astype(np.uint32),
        "send_lag_us": np.where(sent > 0, (sent - scheduled) // 1000, -1).astype(np.int32),
        "latency_us": np.where(done > 0, (done - scheduled) // 1000, -1).astype(np.int64),
        "status": np.array(run.status, dtype=np.uint16),
        "batch_size": moments[:, 3].astype(np.uint16),
        "ready_us": moments[:, 0].astype(np.uint32),
        "queued_us": moments[:, 1].astype(np.uint32),
        "model_us": moments[:, 2].astype(np.uint32),
        "call_us": moments[:, 4].astype(np.uint32),
    }


def _stats(run, clock, columns, window_s, arrival_rate, connections, drain_s) -> dict:
    requests = len(run.offsets_ns)
    status = columns["status"]
    taken = np.array(run.taken_ns, dtype=np.int64)
    scheduled = clock["start_ns"] + np.array(run.offsets_ns, dtype=np.int64)
    dispatch_lag_us = ((taken - scheduled) // 1000)[taken > 0]
    done = clock["done_ns"]
    read = np.array(run.read_ns, dtype=np.int64)
    read_lag_us = ((read - done) // 1000)[read > 0]
    window_end_ns = clock["start_ns"] + round(window_s * NS_PER_S)
    drained_until = int(done.max()) if run.answered == requests and requests else clock["end_ns"]
    cpu_s = clock["cpu_ns"] / NS_PER_S
    return {
        "requests": requests,
        "answered": run.answered,
        "never_answered": requests - run.answered,
        "non_200": int(np.count_nonzero((status != 200) & (status != 0))),
        "window_s": window_s,
        "arrival_rate": float(
            arrival_rate if arrival_rate is not None else requests / window_s if window_s else 0.0
        ),
        "connections": connections,
        "drain_s": drain_s,
        "drain_s_used": round(max(drained_until - window_end_ns, 0) / NS_PER_S, 6),
        "waited_for_connection": run.waited_for_connection,
        "dispatch_lag_us_p50": _percentile(dispatch_lag_us, 50),
        "dispatch_lag_us_p99": _percentile(dispatch_lag_us, 99),
        "dispatch_lag_us_max": int(dispatch_lag_us.max()) if len(dispatch_lag_us) else 0,
        "answer_clock": clock["answer_clock"],
        "answer_read_lag_us_p50": _percentile(read_lag_us, 50),
        "answer_read_lag_us_p99": _percentile(read_lag_us, 99),
        "realtime_clock_drift_us": round(clock["offset_drift_ns"] / 1000, 3),
        "client_cpu_s": round(cpu_s, 6),
        "client_cpu_us_per_request": round(cpu_s * 1e6 / requests, 3) if requests else 0.0,
        # The kernel's share is mostly loopback TCP: a send runs the service's receive path.
        "client_user_us_per_request": per_request_us(clock["user_s"], requests),
        "client_system_us_per_request": per_request_us(clock["system_s"], requests),
        "client_wakeups": run.wakeups,
        "client_voluntary_switches": clock["voluntary_switches"],
        "client_involuntary_switches": clock["involuntary_switches"],
        "wall_s": round((clock["end_ns"] - clock["start_ns"]) / NS_PER_S, 6),
        "event_loop": "none",
    }


def per_request_us(seconds: float, requests: int) -> float:
    return round(seconds * 1e6 / requests, 3) if requests else 0.0


def check_answers(run: OpenLoop, customer_ids: np.ndarray, expected) -> dict:
    """Every answer with status 200 against the single-row score of its customer, to the bit,
    and its echoed customer_id against the one sent. `answers_differing` counts either kind
    of difference, and bodies that are not such an answer."""
    answered = [index for index, status in enumerate(run.status) if status == 200]
    if expected is None:
        return {"answers_compared": 0, "answers_differing": 0, "answers_differing_first": []}
    expected_bits = np.asarray(expected, dtype=np.float64).view(np.uint64)
    differing = []
    for index in answered:
        try:
            answer = json.loads(run.body[index])
            same_id = answer["customer_id"] == int(customer_ids[index])
            got = np.float64(answer["probability"]).view(np.uint64)
            same_bits = isinstance(answer["probability"], float) and got == expected_bits[index]
        except (ValueError, KeyError, TypeError):
            same_id = same_bits = False
        if not (same_id and same_bits):
            differing.append(index)
    return {
        "answers_compared": len(answered),
        "answers_differing": len(differing),
        "answers_differing_first": differing[:10],
    }


def _percentile(values: np.ndarray, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else 0.0


def summary_line(columns: dict[str, np.ndarray], stats: dict) -> str:
    """answered, p50, p99, throughput, client CPU per request, bit check: one line for logs."""
    answered = columns["latency_us"][columns["status"] == 200]
    done_us = columns["arrival_us"][columns["status"] == 200].astype(np.int64) + answered
    span_s = max(stats["window_s"], done_us.max() / 1e6 if len(done_us) else 0.0)
    throughput = len(answered) / span_s if span_s else 0.0
    p50, p99 = (
        (np.percentile(answered, [50, 99]) / 1000).tolist()
        if len(answered)
        else (float("nan"), float("nan"))
    )
    return (
        f"answered {stats['answered']}/{stats['requests']} (non-200 {stats['non_200']}), "
        f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, throughput {throughput:.1f}/s "
        f"at rate {stats['arrival_rate']:.1f}/s, "
        f"client {stats['client_cpu_us_per_request']:.1f} µs/request, "
        f"{stats['answers_differing']} of {stats['answers_compared']} answers differ"
        + (arm_medians(columns) if "arm" in columns else "")
    )


def arm_medians(columns: dict[str, np.ndarray]) -> str:
    """`; p50 A … ms, B … ms` of a switchback run (answered requests only), for its line."""
    answered = columns["status"] == 200
    found = []
    for arm, name in enumerate(ARMS):
        latency = columns["latency_us"][answered & (columns["arm"] == arm)]
        found.append(f"{name.upper()} {np.median(latency) / 1000:.2f}" if len(latency) else
                     f"{name.upper()} -")  # fmt: skip
    return "; p50 " + ", ".join(found) + " ms"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--arrival-rate", type=float, required=True, help="mean arrivals per second"
    )
    parser.add_argument("--window-s", type=float, default=8.0, help="seconds of arrivals")
    parser.add_argument(
        "--seed", type=int, required=True, help="arrival seed (see lab.load.arrivals.arrival_seed)"
    )
    parser.add_argument("--connections", type=int, default=512)
    parser.add_argument(
        "--drain-s",
        type=float,
        default=60.0,
        help="longest wait for answers still owed after the window",
    )
    parser.add_argument(
        "--slice-s",
        type=float,
        default=None,
        help="a switchback run against a two-armed service: slices of this many seconds "
        "alternate between /arm/a/predict and /arm/b/predict",
    )
    parser.add_argument(
        "--twin-slices",
        action="store_true",
        help="with --slice-s: each second slice repeats the arrivals of the slice before it "
        "(the two arms meet the same traffic; lab.load.arrivals.twin_slice_arrivals)",
    )
    parser.add_argument(
        "--first-arm", choices=ARMS, default="a", help="the arm of a switchback run's first slice"
    )
    parser.add_argument(
        "--swap-routes",
        action="store_true",
        help="a switchback run against a service started with --swap-routes: arm A's requests "
        "go to /arm/b/predict and arm B's to /arm/a/predict",
    )
    parser.add_argument("--out", type=Path, required=True, help="FILE.run.zip to write")


def main(args: argparse.Namespace) -> int:
    if args.twin_slices and args.slice_s is None:
        print("openloop: --twin-slices needs --slice-s (twin slices are a switchback run's)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.twin_slices:
        schedule = arrivals.twin_slice_arrivals(
            args.arrival_rate, args.window_s, args.slice_s, args.seed
        )
    else:
        schedule = arrivals.poisson_arrivals(args.arrival_rate, args.window_s, args.seed)
    request_ids = artifacts.request_ids()
    customer_ids = arrivals.customers_for_run(request_ids, args.seed, len(schedule))
    meta = {
        "kind": "client",
        "seed": args.seed,
        "customer_offset": arrivals.customer_offset(args.seed, len(request_ids)),
        "arrival_rate": args.arrival_rate,
        "window_s": args.window_s,
        "connections": args.connections,
        "drain_s": args.drain_s,
        "host": args.host,
        "port": args.port,
    }
    slice_us = None
    if args.slice_s is not None:
        slice_us = round(args.slice_s * 1e6)
        meta.update(slice_s=args.slice_s, slice_us=slice_us, first_arm=args.first_arm,
                    swap_routes=args.swap_routes, twin_slices=args.twin_slices)  # fmt: skip
    return run_client(
        "openloop",
        lambda: run_open_loop(
            args.host,
            args.port,
            schedule,
            customer_ids,
            args.connections,
            args.drain_s,
            window_s=args.window_s,
            arrival_rate=args.arrival_rate,
            expected=expected.for_customers(customer_ids),
            slice_us=slice_us,
            first_arm=ARMS.index(args.first_arm),
            swap_routes=args.swap_routes,
        ),
        args.out,
        meta,
        summary_line,
    )
