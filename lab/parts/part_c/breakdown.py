"""Part C's second half: where one request's time goes, and a real example exchange.

Breakdown: one `/predict` call (repeated, every repetition kept) and one 1,000-record
`/predict_batch` call (repeated, every repetition kept), each next to the round trip the
client saw. The service reports its own stages in `Server-Timing`: /predict `ready` (read,
check, feature lookup), `queued` and `model`; /predict_batch `parse`, `validate`, `lookup`,
`model` and `serialize`. What those do not cover (uvicorn and FastAPI before and after the
handler, the threadpool hop, the sockets, the client) is "outside the handler" = round trip -
the sum of the reported stages.

Example exchange: one small /predict_batch request holding valid ids, an unknown id and a
malformed record, kept byte for byte with the answer it got, and checked to be aligned.
Called by Part C's client of one run (lab/parts/part_c/client.py, `python -m lab
partc-client`); how many repetitions is the design's (PART_C_BREAKDOWN_REPS in
lab/design.py). Tested by tests/test_part_c.py.
"""

import json

import numpy as np

from lab.load import httpclient
from lab.model import artifacts
from lab.model.store import FeatureStore
from lab.parts.part_c.exchanges import HOST, exchange_all
from lab.parts.part_c.methods import batch_requests
from lab.service.server_timing import BATCH_ROUTE_NAMES, PREDICT_NAMES, parse_server_timing

# Every stage either route reports (one column each; a route's missing stages are NaN).
STAGES = tuple(dict.fromkeys(PREDICT_NAMES + BATCH_ROUTE_NAMES))
ROUTE_STAGES = {"predict": PREDICT_NAMES, "predict_batch": BATCH_ROUTE_NAMES}
MALFORMED_RECORD = {"customer_id": "abc"}


def cycled(customer_ids, start: int, count: int) -> np.ndarray:
    return np.take(customer_ids, np.arange(start, start + count), mode="wrap")


def breakdown_rows(route: str, records: int, exchanges) -> dict[str, np.ndarray]:
    """One row per repetition: round trip, each stage the route reports (NaN for stages it
    does not have), and the time outside the handler."""
    count = len(exchanges.requests)
    round_trip_us = (
        np.array(exchanges.done_ns, dtype=np.int64) - np.array(exchanges.sent_ns, dtype=np.int64)
    ) / 1000
    stages = {name: np.full(count, np.nan) for name in STAGES}
    for index, header in enumerate(exchanges.timing):
        found = parse_server_timing(header.decode("latin-1"))
        for name in ROUTE_STAGES[route]:
            stages[name][index] = found.get(name, np.nan) * 1000  # ms -> µs
    reported = np.nansum([stages[name] for name in ROUTE_STAGES[route]], axis=0)
    return {
        "breakdown_route": np.full(count, route, dtype="<U13"),
        "breakdown_records": np.full(count, records, dtype=np.int32),
        "breakdown_status": np.array(exchanges.status, dtype=np.uint16),
        "breakdown_round_trip_us": round_trip_us,
        **{f"breakdown_{name}_us": values for name, values in stages.items()},
        "breakdown_outside_us": round_trip_us - reported,
    }


async def measure_breakdown(connection, port: int, customer_ids, reps: dict) -> dict:
    """Time `reps['predict']` single calls and `reps['batch']` batch calls of
    `reps['batch_records']` records (capped at N); {"columns": …, "meta": …}."""
    singles = cycled(customer_ids, 0, reps["predict"])
    predict = await exchange_all(connection, httpclient.predict_requests(HOST, port, singles))
    size = min(reps["batch_records"], len(customer_ids))
    batch_ids = cycled(customer_ids, 0, size * reps["batch"])
    batch = await exchange_all(connection, batch_requests(port, batch_ids, size))
    parts = [breakdown_rows("predict", 1, predict), breakdown_rows("predict_batch", size, batch)]
    columns = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    meta = {
        "predict_calls": reps["predict"],
        "batch_calls": reps["batch"],
        "batch_records": size,
        "stages": {route: list(names) for route, names in ROUTE_STAGES.items()},
        "outside": "round trip - sum of the route's reported stages",
    }
    return {"columns": columns, "meta": meta}


def unknown_customer_id() -> int:
    """An id the feature store does not hold: one past the largest it does."""
    store = FeatureStore(artifacts.store_path())
    try:
        candidate = max(store.customer_ids()) + 1
        if store.row(candidate) is not None:
            raise AssertionError(f"customer {candidate} is in the store")
        return candidate
    finally:
        store.close()


def example_records(customer_ids) -> tuple[list, list[str]]:
    """The example batch and what each record is: valid, unknown, malformed, valid."""
    first, last = int(customer_ids[0]), int(customer_ids[min(1, len(customer_ids) - 1)])
    records = [
        {"customer_id": first},
        {"customer_id": unknown_customer_id()},
        dict(MALFORMED_RECORD),
        {"customer_id": last},
    ]
    return records, ["valid", "unknown", "malformed", "valid"]


async def capture_example(connection, port: int, customer_ids) -> dict:
    """Send the example batch once; the exact request and response bodies and their checks."""
    records, kinds = example_records(customer_ids)
    body = json.dumps({"records": records})
    request = httpclient.post_request(HOST, port, "/predict_batch", body.encode())
    exchanges = await exchange_all(connection, [request])
    example = {
        "route": "POST /predict_batch",
        "record_kinds": kinds,
        "request_body": body,
        "status": exchanges.status[0],
        "response_body": exchanges.body[0].decode("utf-8"),
        "server_timing": exchanges.timing[0].decode("latin-1").strip(),
    }
    example["checks"] = alignment_checks(records, kinds, example)
    example["aligned"] = all(example["checks"].values())
    return example


def alignment_checks(records: list, kinds: list[str], example: dict) -> dict[str, bool]:
    """One slot per record, same order, ids echoed, each error in its own record's slot."""
    try:
        slots = json.loads(example["response_body"])["predictions"]
    except (ValueError, KeyError, TypeError):
        slots = None
    if not isinstance(slots, list) or not all(isinstance(slot, dict) for slot in slots):
        return {"status_200": example["status"] == 200, "predictions_list": False}
    same_length = len(slots) == len(records)
    pairs = list(zip(records, kinds, slots, strict=False))
    return {
        "status_200": example["status"] == 200,
        "predictions_list": True,
        "same_length": same_length,
        "ids_echoed": same_length
        and all(slot.get("customer_id") == record["customer_id"] for record, _, slot in pairs),
        "valid_scored": all(
            slot.get("error") is None and isinstance(slot.get("probability"), float)
            for _, kind, slot in pairs
            if kind == "valid"
        ),
        "unknown_in_place": all(
            (slot.get("error") or {}).get("code") == "unknown_customer"
            and slot.get("probability") is None
            for _, kind, slot in pairs
            if kind == "unknown"
        ),
        "malformed_in_place": all(
            slot.get("error") is not None and slot.get("probability") is None
            for _, kind, slot in pairs
            if kind == "malformed"
        ),
    }


def check_example_scores(example: dict, scores_by_id: dict) -> None:
    """Add the check that the example's valid slots carry the loop's scores to the bit."""
    try:
        slots = json.loads(example["response_body"])["predictions"]
        records = json.loads(example["request_body"])["records"]
        same = all(
            np.float64(slot["probability"]).tobytes()
            == np.float64(scores_by_id[record["customer_id"]]).tobytes()
            for record, kind, slot in zip(records, example["record_kinds"], slots, strict=True)
            if kind == "valid"
        )
    except (ValueError, KeyError, TypeError):
        same = False
    example["checks"]["valid_scores_match_loop"] = same
    example["aligned"] = all(example["checks"].values())
