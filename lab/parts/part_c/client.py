"""Part C, the batch route: N customers scored through the real service, as a loop of single
`/predict` calls and as `/predict_batch` calls in chunks of 1, 10, 100, 1,000 and 10,000.

Run on its own: `python -m lab partc --cpu 1 [--records 10000] [--runs 5] [--campaign NAME]`
(writes `data/raw/<campaign>/runs/part_c-<i>.run.zip`); the campaign runner calls
`run_for_campaign`. Either way each run starts a fresh service pinned to the measurement core
and runs the client (`python -m lab partc --one-run I --port P --out FILE`) pinned to the same
core; this orchestrating process stays off it.

The client sends on one kept-alive connection with `lab.httpclient` (raw HTTP/1.1 on uvloop,
requests built before the clock starts), one request outstanding at a time, so the loop pays
one round trip per record and a chunk one per call. Methods run in a new random order per run.
Every score is kept, and each method's scores must equal the loop's to the bit; they are also
compared with `lab.scoring.score` on the store's features in this process. Then
`lab.part_c_breakdown` splits single requests into stages and captures an example exchange.
Columns and meta: data/README.md (`part_c`). Tested by tests/test_part_c.py.
"""

import argparse
import asyncio
import dataclasses
import gc
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from lab import httpclient, paths
from lab.rawformat import codec

CHUNKS = (1, 10, 100, 1_000, 10_000)
LOOP = 0  # the `chunk` code of the loop of single /predict calls
WARMUP_PREDICT_CALLS = 100
WARMUP_BATCH_CALLS = 3
WARMUP_BATCH_RECORDS = 1_000
INPROCESS_SAMPLE = 500  # customers scored one row at a time in-process as the reference
HOST = "127.0.0.1"


# ---------------------------------------------------------------- one connection, in turn


class Exchanges:
    """Pre-built requests sent one after another on one connection; each answer sends the
    next from inside the response callback, so no event-loop round sits between calls."""

    def __init__(self, connection: httpclient.Connection, requests: list[bytes]):
        count = len(requests)
        self.connection = connection
        self.requests = requests
        self.sent_ns = [0] * count
        self.done_ns = [0] * count
        self.status = [0] * count
        self.timing = [b""] * count
        self.body = [b""] * count
        self.finished = asyncio.get_running_loop().create_future()

    def start(self) -> None:
        self.connection.on_response = self.on_response
        self.connection.on_failure = self.on_failure
        if self.requests:
            self.connection.send(self.requests[0], 0)
        else:
            self.finished.set_result(None)

    def on_response(self, connection, done_ns, status, timing, body) -> None:
        index = connection.tag
        self.sent_ns[index] = connection.sent_ns
        self.done_ns[index] = done_ns
        self.status[index] = status
        self.timing[index] = timing
        self.body[index] = body
        if index + 1 < len(self.requests):
            connection.send(self.requests[index + 1], index + 1)
        elif not self.finished.done():
            self.finished.set_result(None)

    def on_failure(self, error: Exception) -> None:
        if not self.finished.done():
            self.finished.set_exception(error)


async def exchange_all(connection: httpclient.Connection, requests: list[bytes]) -> Exchanges:
    """Send every request in turn; the collector is off so no pause lands inside a method."""
    exchanges = Exchanges(connection, requests)
    gc.collect()
    gc.disable()
    try:
        exchanges.start()
        await exchanges.finished
    finally:
        gc.enable()
    return exchanges


async def open_one(port: int) -> httpclient.Connection:
    def not_yet(*_):
        raise httpclient.BadResponse("an answer arrived before any request was sent")

    connection = (await httpclient.open_connections(HOST, port, 1, not_yet, not_yet))[0]
    await httpclient.check_connections([connection], HOST, port)
    return connection


# ---------------------------------------------------------------- the methods and their bytes


def chunk_sizes(records: int) -> list[int]:
    """The chunk sizes of a run with `records` customers: CHUNKS capped at N, each once."""
    return sorted({min(chunk, records) for chunk in CHUNKS})


def method_order(chunks: list[int], seed: int) -> list[int]:
    """The loop (0) and every chunk size, in this run's random order."""
    methods = [LOOP, *chunks]
    return [methods[i] for i in np.random.default_rng(seed).permutation(len(methods))]


def batch_body(customer_ids) -> bytes:
    records = [{"customer_id": int(customer_id)} for customer_id in customer_ids]
    return json.dumps({"records": records}, separators=(",", ":")).encode()


def batch_requests(port: int, customer_ids, chunk: int) -> list[bytes]:
    """One `POST /predict_batch` per chunk of `chunk` customers, in order (the last may be
    short)."""
    return [
        httpclient.post_request(
            HOST, port, "/predict_batch", batch_body(customer_ids[i : i + chunk])
        )
        for i in range(0, len(customer_ids), chunk)
    ]


def method_requests(port: int, customer_ids, chunk: int) -> list[bytes]:
    if chunk == LOOP:
        return httpclient.predict_requests(HOST, port, customer_ids)
    return batch_requests(port, customer_ids, chunk)


def parsed(body: bytes) -> dict:
    """A JSON object answer, or {} for anything else (it then scores nothing)."""
    try:
        answer = json.loads(body)
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def probability_of(answer, customer_id) -> float:
    """The score in an answer or slot that echoes `customer_id` with no error; else NaN."""
    if not isinstance(answer, dict) or answer.get("customer_id") != int(customer_id):
        return np.nan
    probability = answer.get("probability")
    if answer.get("error") is not None or not isinstance(probability, float):
        return np.nan
    return probability


def loop_scores(bodies: list[bytes], customer_ids) -> np.ndarray:
    """The scores in /predict answers, in order; NaN where an answer holds none."""
    return np.array(
        [probability_of(parsed(body), c) for body, c in zip(bodies, customer_ids, strict=True)],
        dtype=np.float64,
    )


def batch_scores(bodies: list[bytes], customer_ids, chunk: int) -> np.ndarray:
    """The scores in /predict_batch answers, slot by slot; NaN for a slot with an error or a
    wrong echo, and for every record of a call whose answer is not aligned with its chunk."""
    scores = np.full(len(customer_ids), np.nan)
    for call, body in enumerate(bodies):
        first = call * chunk
        expected = customer_ids[first : first + chunk]
        slots = parsed(body).get("predictions")
        if isinstance(slots, list) and len(slots) == len(expected):
            scores[first : first + len(expected)] = [
                probability_of(slot, c) for slot, c in zip(slots, expected, strict=True)
            ]
    return scores


def bits_digest(scores: np.ndarray) -> str:
    """sha256 of the scores' float64 bytes (little-endian), in customer order."""
    return hashlib.sha256(np.ascontiguousarray(scores, dtype="<f8").tobytes()).hexdigest()


def bit_mismatches(scores: np.ndarray, reference: np.ndarray) -> int:
    """How many scores differ from the reference in any bit (tolerance zero)."""
    as_bits = np.ascontiguousarray(scores, dtype="<f8").view("<u8")
    return int(
        np.count_nonzero(as_bits != np.ascontiguousarray(reference, dtype="<f8").view("<u8"))
    )


# ---------------------------------------------------------------- one run of the client


@dataclasses.dataclass
class Timed:
    """One method's calls as sent and answered, plus what the client spent around them."""

    chunk: int
    exchanges: Exchanges
    encode_ns: int
    decode_ns: int = 0
    scores: np.ndarray | None = None
    errors: int = 0

    @property
    def wall_ns(self) -> int:
        return self.exchanges.done_ns[-1] - self.exchanges.sent_ns[0]


async def time_method(connection, port: int, customer_ids, chunk: int) -> Timed:
    started = time.perf_counter_ns()
    requests = method_requests(port, customer_ids, chunk)
    encode_ns = time.perf_counter_ns() - started
    return Timed(chunk, await exchange_all(connection, requests), encode_ns)


def decode(timed: Timed, customer_ids) -> None:
    started = time.perf_counter_ns()
    if timed.chunk == LOOP:
        timed.scores = loop_scores(timed.exchanges.body, customer_ids)
    else:
        timed.scores = batch_scores(timed.exchanges.body, customer_ids, timed.chunk)
    timed.decode_ns = time.perf_counter_ns() - started
    timed.errors = int(np.isnan(timed.scores).sum())


async def warm_up(connection, port: int, customer_ids) -> None:
    """A few calls of each route first, so no method pays for the service's first calls."""
    await exchange_all(connection, method_requests(port, customer_ids[:WARMUP_PREDICT_CALLS], LOOP))
    batch = customer_ids[:WARMUP_BATCH_RECORDS]
    await exchange_all(connection, batch_requests(port, batch, len(batch)) * WARMUP_BATCH_CALLS)


async def client_session(port: int, customer_ids, order: list[int], reps: dict):
    from lab import part_c_breakdown

    connection = await open_one(port)
    try:
        await warm_up(connection, port, customer_ids)
        timed = [await time_method(connection, port, customer_ids, chunk) for chunk in order]
        breakdown = await part_c_breakdown.measure(connection, port, customer_ids, reps)
        example = await part_c_breakdown.capture_example(connection, port, customer_ids)
    finally:
        connection.close()
    return timed, breakdown, example


def method_columns(timed: list[Timed], loop: Timed) -> dict[str, np.ndarray]:
    """One row per method, in the order the run timed them."""
    return {
        "method_chunk": np.array([t.chunk for t in timed], dtype=np.int32),
        "method_order": np.arange(len(timed), dtype=np.int32),
        "method_records": np.array([len(t.scores) for t in timed], dtype=np.int32),
        "method_calls": np.array([len(t.exchanges.requests) for t in timed], dtype=np.int32),
        "method_wall_ns": np.array([t.wall_ns for t in timed], dtype=np.int64),
        "method_encode_ns": np.array([t.encode_ns for t in timed], dtype=np.int64),
        "method_decode_ns": np.array([t.decode_ns for t in timed], dtype=np.int64),
        "method_errors": np.array([t.errors for t in timed], dtype=np.int32),
        "method_mismatches": np.array(
            [bit_mismatches(t.scores, loop.scores) for t in timed], dtype=np.int32
        ),
        "method_scores_sha256": np.array([bits_digest(t.scores) for t in timed], dtype="<U64"),
    }


def call_columns(timed: list[Timed]) -> dict[str, np.ndarray]:
    """One row per HTTP call of the timed methods, method after method."""
    chunk, records, start, round_trip, status = [], [], [], [], []
    for method in timed:
        sent = np.array(method.exchanges.sent_ns, dtype=np.int64)
        done = np.array(method.exchanges.done_ns, dtype=np.int64)
        size = method.chunk or 1
        total = len(method.scores)
        chunk.append(np.full(len(sent), method.chunk, dtype=np.int32))
        records.append(np.minimum(size, total - size * np.arange(len(sent))).astype(np.int32))
        start.append(sent - sent[0])
        round_trip.append(done - sent)
        status.append(np.array(method.exchanges.status, dtype=np.uint16))
    return {
        "call_chunk": np.concatenate(chunk),
        "call_records": np.concatenate(records),
        "call_start_ns": np.concatenate(start),
        "call_round_trip_ns": np.concatenate(round_trip),
        "call_status": np.concatenate(status),
    }


def inprocess_check(customer_ids, loop_scores_: np.ndarray, seed: int) -> dict:
    """The loop's scores against `lab.scoring.score` on the store's features, in this process:
    all N rows in one call, and a sample scored one row at a time (the single-row score)."""
    from lab import artifacts
    from lab.scoring import score
    from lab.store import FeatureStore

    store = FeatureStore(artifacts.store_path())
    found = store.rows([int(c) for c in customer_ids])
    store.close()
    rows = np.array([found[int(c)] for c in customer_ids], dtype=np.float64)
    model = artifacts.load_model()
    all_at_once = score(model, rows)
    sample = np.sort(
        np.random.default_rng(seed).choice(
            len(rows), min(INPROCESS_SAMPLE, len(rows)), replace=False
        )
    )
    one_by_one = np.array([score(model, rows[i : i + 1])[0] for i in sample])
    return {
        "all_at_once_rows": len(rows),
        "all_at_once_mismatches": bit_mismatches(loop_scores_, all_at_once),
        "single_row_sample": len(sample),
        "single_row_mismatches": bit_mismatches(loop_scores_[sample], one_by_one),
    }


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
    from lab import part_c_breakdown

    order = method_order(chunk_sizes(len(customer_ids)), seed)
    timed, breakdown, example = httpclient.run(client_session(port, customer_ids, order, reps))
    for method in timed:
        decode(method, customer_ids)
    session = Session(np.asarray(customer_ids), order, timed, breakdown, example)
    loop_by_id = dict(zip(session.customer_ids.tolist(), session.loop.scores.tolist(), strict=True))
    part_c_breakdown.check_example_scores(example, loop_by_id)
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
            "library": "lab.httpclient",
            "event_loop": httpclient.event_loop_name(),
            "connections": 1,
        },
    }
    return meta, columns


# ---------------------------------------------------------------- runs: campaign and on its own


def run_seed(campaign_seed: int, run_index: int) -> int:
    """The seed of one run: its customers, its method order, its in-process sample."""
    return int(np.random.SeedSequence([campaign_seed, run_index, 0xC]).generate_state(1)[0])


def client_timeout_s(records: int, reps: dict) -> float:
    # Generous: about 1 ms per record per method on a slow core, plus the breakdown.
    return 300.0 + records * 0.02 + reps["predict"] * 0.01 + reps["batch"] * 0.5


def run_for_campaign(context, run: dict) -> tuple[dict, dict]:
    """One Part C run for the campaign runner: a fresh pinned service, the pinned client;
    (meta, columns) for the raw file (the runner adds the base metadata)."""
    from lab import artifacts, machine, part_c_breakdown, runs
    from lab.arrivals import customer_offset
    from lab.design import NONE

    seed = run_seed(context.seed, run["run_index"])
    reps = part_c_breakdown.DEFAULT_REPS
    with runs.service(context, NONE.as_dict()) as service:
        arguments = [
            "partc",
            "--one-run",
            str(run["run_index"]),
            "--records",
            str(run["records"]),
            "--seed",
            str(seed),
            "--port",
            str(service.port),
        ]
        with runs.watch_core(context, service) as watch:
            client_meta, columns = runs.client_columns(
                context, arguments, client_timeout_s(run["records"], reps), run["run_id"]
            )
        load_after = machine.load_snapshot(context.cpu)
    meta = {
        "run_index": run["run_index"],
        "seed": seed,
        "customer_offset": customer_offset(seed, len(artifacts.request_ids())),
        "load_after": load_after,
        "service": NONE.as_dict(),
        "core_watch": watch.found,
        **client_meta["part_c"],
    }
    return meta, columns


def summary(meta: dict, columns: dict) -> str:
    """Per-record time of the loop and of each chunk, the speedup, the bit check: one line."""
    chunks = columns["method_chunk"]
    per_record = columns["method_wall_ns"] / columns["method_records"] / 1000
    loop_us = float(per_record[chunks == LOOP][0])
    parts = [f"loop {loop_us:,.1f} µs/record"]
    for chunk in meta["chunks"]:
        chunk_us = float(per_record[chunks == chunk][0])
        parts.append(f"chunk {chunk:,} {chunk_us:,.1f} µs ({loop_us / chunk_us:,.1f}×)")
    bits = (
        "all scores equal to the bit"
        if meta["bits"]["all_equal"]
        else (f"{meta['bits']['mismatches']} mismatches, {meta['bits']['errors']} errors")
    )
    return f"{meta['run_id']}: " + ", ".join(parts) + f"; {bits}"


def run_on_its_own(args) -> int:
    from lab import design, runner, runs
    from lab.runmeta import default_campaign
    from lab.schedule import indexed_runs

    campaign = args.campaign or default_campaign("part-c")
    runner.pin_runner_away_from(args.cpu)
    profile = dataclasses.replace(
        design.FULL,
        part_c_records=args.records,
        part_c_runs=args.runs,
        quiet_tries=args.quiet_tries,
    )
    folder = paths.raw() / campaign
    context = runs.Context(campaign, folder, args.cpu, profile, args.seed)
    for run in indexed_runs("part_c", args.runs, records=args.records):
        runner.execute(context, run, echo=print)
        meta, columns = codec.read_run(runner.run_path(folder, run["run_id"]))
        print(summary(meta, columns), flush=True)
    print(f"wrote {args.runs} runs to {folder}")
    return 0


def run_client(args) -> int:
    """The pinned client of one run: measure against the service on --port, write --out."""
    from lab import artifacts, part_c_breakdown
    from lab.arrivals import customers_for_run

    customer_ids = customers_for_run(artifacts.request_ids(), args.seed, args.records)
    try:
        meta, columns = measure_run(
            args.port, customer_ids, args.seed, part_c_breakdown.DEFAULT_REPS
        )
    except (httpclient.PeerClosed, httpclient.BadResponse, OSError) as error:
        print(f"lab partc: FAILED: {error}", file=sys.stderr)
        return 1
    codec.write_run(args.out, {"kind": "client", "part_c": meta}, columns)
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cpu", type=int, default=None, help="measurement core for the service and the client"
    )
    parser.add_argument("--records", type=int, default=10_000, help="customers N per run")
    parser.add_argument("--runs", type=int, default=5, help="runs, each with a fresh service")
    parser.add_argument("--campaign", default=None, help="folder name under data/raw/")
    parser.add_argument("--seed", type=int, default=1, help="seed of customers and orders")
    parser.add_argument(
        "--quiet-tries",
        type=int,
        default=design_quiet_tries(),
        help="2 s quiet checks before a run goes ahead regardless",
    )
    # The pinned client of one run (started by run_for_campaign, not by hand).
    parser.add_argument("--one-run", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)


def design_quiet_tries() -> int:
    from lab.design import FULL

    return FULL.quiet_tries


def main(args) -> int:
    if args.records < 1:
        print("lab partc: --records must be at least 1", file=sys.stderr)
        return 2
    if args.port is not None:
        if args.out is None:
            print("lab partc: --port needs --out FILE", file=sys.stderr)
            return 2
        return run_client(args)
    return run_on_its_own(args)
