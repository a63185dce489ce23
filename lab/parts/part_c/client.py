"""Part C's client: one run against a service already running, pinned with it to the
measurement core by the campaign's executor (lab/campaign/executors/part_c.py).

    python -m lab partc-client --port P --records N --seed S --out FILE.run.zip

It sends on one kept-alive connection with lab/load/httpclient.py (raw HTTP/1.1 on uvloop,
requests built before the clock starts), one request outstanding at a time, so the loop pays
one round trip per record and a chunk one per call. Methods run in a new random order per
run. Every score is kept, and each method's scores must equal the loop's to the bit; they are
also compared with `lab.model.scoring.score` on the store's features in this process. Then
the breakdown (lab/parts/part_c/breakdown.py) splits single requests into stages and
captures an example exchange. Columns and meta: data/README.md (`part_c`). Tested by
tests/test_part_c.py.
"""

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

from lab.design import PART_C_BREAKDOWN_REPS
from lab.load import httpclient
from lab.load.arrivals import customers_for_run
from lab.model import artifacts
from lab.parts.part_c.breakdown import capture_example, check_example_scores, measure_breakdown
from lab.parts.part_c.exchanges import exchange_all, open_one
from lab.parts.part_c.methods import (
    LOOP,
    batch_requests,
    chunk_sizes,
    method_order,
    method_requests,
)
from lab.parts.part_c.record import call_columns, method_columns
from lab.parts.part_c.scores import inprocess_check
from lab.parts.part_c.timed import Timed, decode, time_method
from lab.rawformat import codec

WARMUP_PREDICT_CALLS = 100
WARMUP_BATCH_CALLS = 3
WARMUP_BATCH_RECORDS = 1_000


async def warm_up(connection, port: int, customer_ids) -> None:
    """A few calls of each route first, so no method pays for the service's first calls."""
    await exchange_all(connection, method_requests(port, customer_ids[:WARMUP_PREDICT_CALLS], LOOP))
    batch = customer_ids[:WARMUP_BATCH_RECORDS]
    await exchange_all(connection, batch_requests(port, batch, len(batch)) * WARMUP_BATCH_CALLS)


async def client_session(port: int, customer_ids, order: list[int], reps: dict):
    connection = await open_one(port)
    try:
        await warm_up(connection, port, customer_ids)
        timed = [await time_method(connection, port, customer_ids, chunk) for chunk in order]
        breakdown = await measure_breakdown(connection, port, customer_ids, reps)
        example = await capture_example(connection, port, customer_ids)
    finally:
        connection.close()
    return timed, breakdown, example


@dataclasses.dataclass
class Session:
    """Everything one client run measured, decoded (scores parsed, checks made)."""

    customer_ids: np.ndarray
    order: list[int]
    timed: list[Timed]
    breakdown: dict
    example: dict

    @property
    def loop(self) -> Timed:
        return next(method for method in self.timed if method.chunk == LOOP)


def run_session(port: int, customer_ids: np.ndarray, seed: int, reps: dict) -> Session:
    """Time every method against the service on `port`, then decode the answers."""
    order = method_order(chunk_sizes(len(customer_ids)), seed)
    timed, breakdown, example = httpclient.run(client_session(port, customer_ids, order, reps))
    for method in timed:
        decode(method, customer_ids)
    session = Session(np.asarray(customer_ids), order, timed, breakdown, example)
    loop_by_id = dict(zip(session.customer_ids.tolist(), session.loop.scores.tolist(), strict=True))
    check_example_scores(example, loop_by_id)
    return session


def measure_run(port: int, customer_ids: np.ndarray, seed: int, reps: dict) -> tuple[dict, dict]:
    """One client run: (meta, columns) for its raw file."""
    session = run_session(port, customer_ids, seed, reps)
    return session_record(session, seed)


def session_record(session: Session, seed: int) -> tuple[dict, dict]:
    """(meta, columns) of a measured session, as documented in data/README.md."""
    timed, loop, customer_ids = session.timed, session.loop, session.customer_ids
    breakdown, example = session.breakdown, session.example
    columns = {
        **method_columns(timed, loop),
        **call_columns(timed),
        "score_customer_id": np.asarray(customer_ids, dtype=np.int64),
        "score_probability": loop.scores,
        **breakdown["columns"],
    }
    meta = {
        "records": len(customer_ids),
        "chunks": chunk_sizes(len(customer_ids)),
        "methods_order": session.order,
        "warmup": {
            "predict_calls": WARMUP_PREDICT_CALLS,
            "batch_calls": WARMUP_BATCH_CALLS,
            "batch_records": min(WARMUP_BATCH_RECORDS, len(customer_ids)),
        },
        "bits": {
            "mismatches": int(columns["method_mismatches"].sum()),
            "errors": int(columns["method_errors"].sum()),
            "all_equal": bool(
                columns["method_mismatches"].sum() == 0 and columns["method_errors"].sum() == 0
            ),
            "inprocess": inprocess_check(customer_ids, loop.scores, seed),
        },
        "breakdown": breakdown["meta"],
        "example_exchange": example,
        "client": {
            "library": "lab.load.httpclient",
            "event_loop": httpclient.event_loop_name(),
            "connections": 1,
        },
    }
    return meta, columns


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, required=True, help="the running service's port")
    parser.add_argument("--records", type=int, default=10_000, help="customers N")
    parser.add_argument(
        "--seed",
        type=int,
        required=True,
        help="seed of the customers, the method order and the in-process sample",
    )
    parser.add_argument("--out", type=Path, required=True, help="FILE.run.zip to write")


def main(args) -> int:
    """Measure against the service on --port and write --out (exit 1 if the exchange broke)."""
    if args.records < 1:
        print("lab partc-client: --records must be at least 1", file=sys.stderr)
        return 2
    customer_ids = customers_for_run(artifacts.request_ids(), args.seed, args.records)
    try:
        meta, columns = measure_run(args.port, customer_ids, args.seed, PART_C_BREAKDOWN_REPS)
    except (httpclient.PeerClosed, httpclient.BadResponse, OSError) as error:
        print(f"lab partc-client: FAILED: {error}", file=sys.stderr)
        return 1
    codec.write_run(args.out, {"kind": "client", "part_c": meta}, columns)
    return 0
