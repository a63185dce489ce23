"""Part C's raw columns from the timed methods: one row per method and one row per HTTP
call, as documented in data/README.md (`part_c`)."""

import numpy as np

from lab.parts.part_c.scores import bit_mismatches, bits_digest
from lab.parts.part_c.timed import Timed


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
