"""The open-loop client: Poisson arrivals on their own clock against a running service.

    python -m lab openloop --port P --arrival-rate R --window-s 8 --seed N --out FILE.run.zip

All `connections` kept-alive connections are opened (and answered once on /health) before
the window. Each request is sent at its scheduled time whether or not earlier answers came
back; when every connection is busy it waits in a client FIFO for the next free one, and its
latency still counts from the scheduled arrival (no coordinated omission). After the window
the client waits at most `drain_s` for answers still owed; a request never answered is
recorded with status 0 and latency -1, never dropped. A connection closed or reset under
the client raises `PeerClosed`: the run fails loudly. Columns and meta: data/README.md.
Tested by tests/test_openloop.py.
"""

import argparse
import asyncio
import contextlib
import gc
import time
from collections import deque
from pathlib import Path

import numpy as np

from lab.load import arrivals, httpclient
from lab.load.client_cli import run_client
from lab.load.timer import Ticker
from lab.model import artifacts
from lab.service.server_timing import server_timing_moments

NS_PER_S = 1_000_000_000
# The window starts this long after the client is ready, so the first timer is armed in time.
START_LEAD_NS = 20_000_000


class OpenLoop:
    """The state of one open-loop run: who is due, which connection is free, what came back."""

    def __init__(self, requests: list[bytes], offsets_ns: list[int]):
        count = len(offsets_ns)
        self.requests = requests
        self.offsets_ns = offsets_ns
        self.start_ns = 0
        self.next_due = 0
        self.idle: list[httpclient.Connection] = []
        self.waiting: deque[int] = deque()  # request indexes waiting for a free connection
        self.waited_for_connection = 0
        self.taken_ns = [0] * count  # when the client's timer took each arrival
        self.sent_ns = [0] * count
        self.done_ns = [0] * count
        self.status = [0] * count
        self.timing = [b""] * count
        self.answered = 0
        self.last_done_ns = 0
        self.finished: asyncio.Future = asyncio.get_running_loop().create_future()
        self.ticker = Ticker(self.take_due_arrivals)

    def start(self, connections: list[httpclient.Connection], start_ns: int) -> None:
        self.idle = list(connections)
        self.start_ns = start_ns
        if self.offsets_ns:
            self.ticker.arm(start_ns + self.offsets_ns[0])
        else:
            self.finished.set_result(None)

    def take_due_arrivals(self) -> None:
        """Send (or queue) every arrival whose time has come, then wait for the next one."""
        now = time.monotonic_ns()
        due_until = now - self.start_ns
        offsets, idle, index, count = (
            self.offsets_ns,
            self.idle,
            self.next_due,
            len(self.offsets_ns),
        )
        while index < count and offsets[index] <= due_until:
            self.taken_ns[index] = now
            if idle:
                self.send(idle.pop(), index)
            else:
                self.waiting.append(index)
                self.waited_for_connection += 1
            index += 1
        self.next_due = index
        if index < count:
            self.ticker.arm(self.start_ns + offsets[index])

    def send(self, connection: httpclient.Connection, index: int) -> None:
        connection.send(self.requests[index], index)
        self.sent_ns[index] = connection.sent_ns

    def on_response(self, connection, done_ns, status, timing, body) -> None:
        index = connection.tag
        self.done_ns[index] = done_ns
        self.status[index] = status
        self.timing[index] = timing
        self.last_done_ns = done_ns
        self.answered += 1
        if self.waiting:
            self.send(connection, self.waiting.popleft())
        else:
            self.idle.append(connection)
        if self.answered == len(self.offsets_ns) and not self.finished.done():
            self.finished.set_result(None)

    def on_failure(self, error: Exception) -> None:
        if not self.finished.done():
            self.finished.set_exception(error)


async def _open_loop(host, port, offsets_ns, requests, connections, window_ns, drain_ns):
    run = OpenLoop(requests, offsets_ns)
    pool = await httpclient.open_connections(
        host, port, connections, run.on_response, run.on_failure
    )
    try:
        await httpclient.check_connections(pool, host, port)
        gc.disable()  # no collector pause in the middle of the window
        cpu_start_ns = time.process_time_ns()
        start_ns = time.monotonic_ns() + START_LEAD_NS
        run.start(pool, start_ns)
        deadline_ns = start_ns + window_ns + drain_ns
        # Answers still owed after the drain are recorded as never answered.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.shield(run.finished), max(deadline_ns - time.monotonic_ns(), 0) / NS_PER_S
            )
        end_ns = time.monotonic_ns()
        cpu_ns = time.process_time_ns() - cpu_start_ns
    finally:
        gc.enable()
        run.ticker.close()
        httpclient.close_all(pool)
    return run, {"start_ns": start_ns, "end_ns": end_ns, "cpu_ns": cpu_ns}


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
) -> tuple[dict[str, np.ndarray], dict]:
    """Drive the service with requests at `arrivals_s` (seconds from window start), request
    i asking about `customer_ids[i]`. Returns (columns, stats); raises `PeerClosed` or
    `BadResponse` if the service closes a connection or sends something unreadable.
    `window_s` defaults to the last arrival, `arrival_rate` to requests / window_s."""
    arrivals_s = np.asarray(arrivals_s, dtype=np.float64)
    if len(customer_ids) < len(arrivals_s):
        raise ValueError(f"{len(arrivals_s)} arrivals but only {len(customer_ids)} customer ids")
    window_s = float(
        window_s if window_s is not None else (arrivals_s[-1] if len(arrivals_s) else 0.0)
    )
    offsets_ns = np.round(arrivals_s * NS_PER_S).astype(np.int64).tolist()
    requests = httpclient.predict_requests(host, port, customer_ids[: len(offsets_ns)])
    httpclient.raise_open_files_limit(connections + 256)
    run, clock = httpclient.run(
        _open_loop(
            host,
            port,
            offsets_ns,
            requests,
            connections,
            round(window_s * NS_PER_S),
            round(drain_s * NS_PER_S),
        )
    )
    columns = _columns(run, clock["start_ns"])
    stats = _stats(run, clock, columns, window_s, arrival_rate, connections, drain_s)
    return columns, stats


def _columns(run: OpenLoop, start_ns: int) -> dict[str, np.ndarray]:
    offsets = np.array(run.offsets_ns, dtype=np.int64)
    scheduled = start_ns + offsets
    sent = np.array(run.sent_ns, dtype=np.int64)
    done = np.array(run.done_ns, dtype=np.int64)
    moments = np.array(
        [server_timing_moments(value) for value in run.timing], dtype=np.int64
    ).reshape(-1, 4)
    return {
        "arrival_us": (offsets // 1000).astype(np.uint32),
        "send_lag_us": np.where(sent > 0, (sent - scheduled) // 1000, -1).astype(np.int32),
        "latency_us": np.where(done > 0, (done - scheduled) // 1000, -1).astype(np.int64),
        "status": np.array(run.status, dtype=np.uint16),
        "batch_size": moments[:, 3].astype(np.uint16),
        "ready_us": moments[:, 0].astype(np.uint32),
        "queued_us": moments[:, 1].astype(np.uint32),
        "model_us": moments[:, 2].astype(np.uint32),
    }


def _stats(run, clock, columns, window_s, arrival_rate, connections, drain_s) -> dict:
    requests = len(run.offsets_ns)
    status = columns["status"]
    taken = np.array(run.taken_ns, dtype=np.int64)
    scheduled = clock["start_ns"] + np.array(run.offsets_ns, dtype=np.int64)
    dispatch_lag_us = ((taken - scheduled) // 1000)[taken > 0]
    window_end_ns = clock["start_ns"] + round(window_s * NS_PER_S)
    drained_until = run.last_done_ns if run.finished.done() else clock["end_ns"]
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
        "client_cpu_s": round(cpu_s, 6),
        "client_cpu_us_per_request": round(cpu_s * 1e6 / requests, 3) if requests else 0.0,
        "wall_s": round((clock["end_ns"] - clock["start_ns"]) / NS_PER_S, 6),
        "event_loop": httpclient.event_loop_name(),
        "timer": run.ticker.kind,
    }


def _percentile(values: np.ndarray, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else 0.0


def summary_line(columns: dict[str, np.ndarray], stats: dict) -> str:
    """answered, p50, p99, throughput, client CPU per request: one line for logs."""
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
        f"client {stats['client_cpu_us_per_request']:.1f} µs/request"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="the running service's address")
    parser.add_argument("--port", type=int, required=True, help="the running service's port")
    parser.add_argument(
        "--arrival-rate", type=float, required=True, help="mean arrivals per second"
    )
    parser.add_argument("--window-s", type=float, default=8.0, help="seconds of arrivals")
    parser.add_argument(
        "--seed", type=int, required=True, help="arrival seed (see lab.load.arrivals.arrival_seed)"
    )
    parser.add_argument(
        "--connections", type=int, default=512, help="kept-alive connections, opened first"
    )
    parser.add_argument(
        "--drain-s",
        type=float,
        default=60.0,
        help="longest wait for answers still owed after the window",
    )
    parser.add_argument("--out", type=Path, required=True, help="FILE.run.zip to write")


def main(args: argparse.Namespace) -> int:
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
        ),
        args.out,
        meta,
        summary_line,
    )
