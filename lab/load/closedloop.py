"""The closed-loop client that measures saturation S (BRIEF §2, §4).

    python -m lab saturate --port P --seconds 8 [--connections 16] [--warmup-s 1] --out F.run.zip

`connections` kept-alive connections each send again the moment they are answered. The
first `warmup_s` seconds are not counted; only answers completed inside the next
`counted_s` seconds count. throughput = answers with status 200 in the counted window /
counted_s. Connections stop sending at the end of the counted window, and the answers still
owed then are awaited (and not counted). A connection closed under the client raises
`PeerClosed`. Its stats also give `model_us_p50`, the median Server-Timing `model` stage of
the counted answers (null when the service sent none): with S from the same answers, the
model's share of an answer's core time at S (the batching ceiling, issue 33). Columns and
meta: data/README.md. Tested by tests/test_closedloop.py.
"""

import argparse
import asyncio
import gc
import time
from pathlib import Path

import numpy as np

from lab.load import httpclient
from lab.load.client_cli import run_client
from lab.model import artifacts
from lab.service.server_timing import server_timing_moments

NS_PER_S = 1_000_000_000
# The longest wait, after the counted window, for the answers still owed.
TAIL_TIMEOUT_S = 30.0


class ClosedLoop:
    """The state of one closed-loop run."""

    def __init__(self, requests: list[bytes]):
        self.requests = requests
        self.next_request = 0
        self.counted_start_ns = 0
        self.counted_end_ns = 0
        self.done_ns: list[int] = []
        self.latency_ns: list[int] = []
        self.status: list[int] = []
        self.timing: list[bytes] = []  # each counted answer's Server-Timing, parsed after
        self.outstanding = 0
        self.answers_total = 0  # warm-up and tail included, for the client's CPU per answer
        self.finished: asyncio.Future = asyncio.get_running_loop().create_future()

    def send_next(self, connection: httpclient.Connection) -> None:
        index = self.next_request
        self.next_request = index + 1 if index + 1 < len(self.requests) else 0
        connection.send(self.requests[index], index)

    def start(self, connections, counted_start_ns: int, counted_end_ns: int) -> None:
        self.counted_start_ns = counted_start_ns
        self.counted_end_ns = counted_end_ns
        self.outstanding = len(connections)
        for connection in connections:
            self.send_next(connection)

    def on_response(self, connection, done_ns, status, timing, body) -> None:
        self.answers_total += 1
        if self.counted_start_ns <= done_ns < self.counted_end_ns:
            self.done_ns.append(done_ns)
            self.latency_ns.append(done_ns - connection.sent_ns)
            self.status.append(status)
            self.timing.append(timing)
        if done_ns < self.counted_end_ns:
            self.send_next(connection)
            return
        self.outstanding -= 1  # this connection is done: answered after the window
        if self.outstanding == 0 and not self.finished.done():
            self.finished.set_result(None)

    def on_failure(self, error: Exception) -> None:
        if not self.finished.done():
            self.finished.set_exception(error)


async def _closed_loop(host, port, requests, connections, warmup_ns, counted_ns):
    run = ClosedLoop(requests)
    pool = await httpclient.open_connections(
        host, port, connections, run.on_response, run.on_failure
    )
    try:
        await httpclient.check_connections(pool, host, port)
        gc.disable()  # no collector pause inside the counted window
        cpu_start_ns = time.process_time_ns()
        counted_start_ns = time.monotonic_ns() + warmup_ns
        run.start(pool, counted_start_ns, counted_start_ns + counted_ns)
        longest_s = (warmup_ns + counted_ns) / NS_PER_S + TAIL_TIMEOUT_S
        try:
            await asyncio.wait_for(asyncio.shield(run.finished), longest_s)
        except TimeoutError as error:
            raise httpclient.BadResponse(
                f"answers still owed {TAIL_TIMEOUT_S:.0f} s after the counted window"
            ) from error
        cpu_ns = time.process_time_ns() - cpu_start_ns
    finally:
        gc.enable()
        httpclient.close_all(pool)
    return run, cpu_ns


def run_closed_loop(
    host: str,
    port: int,
    customer_ids,
    connections: int = 16,
    warmup_s: float = 1.0,
    counted_s: float = 8.0,
) -> tuple[dict[str, np.ndarray], dict]:
    """Saturate the service with `connections` closed-loop connections cycling through
    `customer_ids`. Returns (columns, stats); stats["throughput"] is answers/s."""
    if counted_s <= 0 or connections <= 0:
        raise ValueError("counted_s and connections must be positive")
    requests = httpclient.predict_requests(host, port, customer_ids)
    httpclient.raise_open_files_limit(connections + 256)
    run, cpu_ns = httpclient.run(
        _closed_loop(
            host,
            port,
            requests,
            connections,
            round(warmup_s * NS_PER_S),
            round(counted_s * NS_PER_S),
        )
    )
    status = np.array(run.status, dtype=np.uint16)
    columns = {
        "done_us": ((np.array(run.done_ns, dtype=np.int64) - run.counted_start_ns) // 1000).astype(
            np.uint32
        ),
        "latency_us": (np.array(run.latency_ns, dtype=np.int64) // 1000).astype(np.int64),
        "status": status,
    }
    answers = int(np.count_nonzero(status == 200))
    # the model's time per answer at S, from the same answers that measure S (issue 33: the
    # batching ceiling measured in the same run); 0 from a service that sends no Server-Timing
    answered = zip(run.timing, run.status, strict=True)
    model_us = [server_timing_moments(value)[2] for value, code in answered if code == 200]
    cpu_s = cpu_ns / NS_PER_S
    stats = {
        "throughput": answers / counted_s,
        "answers": answers,
        "errors": int(len(status) - answers),
        "answers_all": run.answers_total,
        "connections": connections,
        "warmup_s": warmup_s,
        "counted_s": counted_s,
        "latency_us_p50": float(np.percentile(columns["latency_us"], 50)) if answers else 0.0,
        "model_us_p50": float(np.median(model_us)) if answers and any(model_us) else None,
        "client_cpu_s": round(cpu_s, 6),
        "client_cpu_us_per_request": round(cpu_s * 1e6 / max(run.answers_total, 1), 3),
        "event_loop": httpclient.event_loop_name(),
    }
    return columns, stats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="the running service's address")
    parser.add_argument("--port", type=int, required=True, help="the running service's port")
    parser.add_argument("--seconds", type=float, default=8.0, help="counted seconds")
    parser.add_argument(
        "--connections", type=int, default=16, help="connections, each sending when answered"
    )
    parser.add_argument("--warmup-s", type=float, default=1.0, help="seconds not counted")
    parser.add_argument("--out", type=Path, required=True, help="FILE.run.zip to write")


def main(args: argparse.Namespace) -> int:
    customer_ids = artifacts.request_ids()
    meta = {
        "kind": "saturation_client",
        "host": args.host,
        "port": args.port,
        "connections": args.connections,
        "warmup_s": args.warmup_s,
        "counted_s": args.seconds,
    }
    return run_client(
        "saturate",
        lambda: run_closed_loop(
            args.host, args.port, customer_ids, args.connections, args.warmup_s, args.seconds
        ),
        args.out,
        meta,
        lambda columns, stats: (
            f"S: {stats['throughput']:.1f} answers/s ({stats['answers']} answers in "
            f"{args.seconds:g} s, {stats['errors']} errors, "
            f"p50 {stats['latency_us_p50'] / 1000:.2f} ms, {args.connections} connections)"
        ),
    )
