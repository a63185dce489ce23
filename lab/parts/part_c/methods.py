"""Part C's methods and their bytes: the loop of single /predict calls (chunk code LOOP = 0)
and /predict_batch in chunks of 1, 10, 100, 1,000 and 10,000, in a new random order per run.
Requests are built before the clock starts. Used by Part C's client and breakdown.
"""

import json

import numpy as np

from lab.load import httpclient
from lab.parts.part_c.exchanges import HOST

CHUNKS = (1, 10, 100, 1_000, 10_000)
LOOP = 0  # the `chunk` code of the loop of single /predict calls


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
