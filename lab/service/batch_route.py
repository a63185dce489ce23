"""The batch route's logic: many records in, one aligned prediction per record out.

Output i belongs to input i: same length, same order, `customer_id` echoed in every slot, and
a record that fails (unknown customer, malformed record) gets an error object in its own slot.
Nothing is dropped, reordered or deduplicated. One feature-store query and one model call
serve all the valid records. A body that is not `{"records": [...]}`, or holds more records
than the cap, is rejected whole with one clear 4xx.

Also holds the record check `/predict` uses, so both routes accept exactly the same ids.
Served by lab/service/app.py (`python -m lab serve`) as `POST /predict_batch`.
"""

import json
import time
from collections.abc import Callable

import numpy as np

from lab.model.feature_names import FEATURES
from lab.service.server_timing import BATCH_ROUTE_NAMES

# The largest integer every JSON reader keeps exact (2**53 - 1; JavaScript's safe range).
MAX_CUSTOMER_ID = 2**53 - 1
JSON_KINDS = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}


class Rejected(Exception):
    """The whole request is refused: an HTTP status and a message saying what was wrong."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class BadRecord(Exception):
    """One record is malformed; `code` names the kind, the message says what was wrong."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def kind_of(value) -> str:
    return JSON_KINDS.get(type(value), type(value).__name__)


def shown(value, limit: int = 60) -> str:
    """A short JSON rendering of a value for an error message."""
    if type(value) is int and value.bit_length() > 200:
        return f"an integer of {len(str(value))} digits"
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def parse_json(body: bytes):
    """Strict JSON (no NaN or Infinity); any failure is a 422 saying why."""
    if not body.strip():
        raise Rejected(422, "the body is empty: expected JSON")
    try:
        return json.loads(body, parse_constant=_reject_constant)
    except RecursionError:
        raise Rejected(422, "the body is not valid JSON: nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise Rejected(422, f"the body is not valid JSON: {error}") from None


def customer_id_of(record) -> int:
    """The customer id of one record `{"customer_id": <integer ≥ 0>}`, or BadRecord."""
    if type(record) is not dict:
        raise BadRecord(
            "malformed_record",
            f'expected an object like {{"customer_id": 123}}, got {kind_of(record)}',
        )
    if "customer_id" not in record:
        raise BadRecord("malformed_record", "missing field customer_id")
    if len(record) > 1:
        extra = ", ".join(shown(key) for key in record if key != "customer_id")
        raise BadRecord("malformed_record", f"unexpected field(s) {extra}: only customer_id")
    value = record["customer_id"]
    if type(value) is not int:  # bool is a subclass of int: rejected here too
        raise BadRecord(
            "invalid_customer_id",
            f"customer_id must be an integer, got {kind_of(value)} {shown(value)}",
        )
    if not 0 <= value <= MAX_CUSTOMER_ID:
        raise BadRecord(
            "invalid_customer_id",
            f"customer_id must be between 0 and {MAX_CUSTOMER_ID}, got {shown(value)}",
        )
    return value


def records_of(payload, max_records: int) -> list:
    """The list of records in a `{"records": [...]}` body, or Rejected."""
    if type(payload) is not dict:
        raise Rejected(
            422, f'the body must be an object {{"records": [...]}}, got {kind_of(payload)}'
        )
    if "records" not in payload:
        raise Rejected(422, 'missing field "records" (a list of {"customer_id": …} objects)')
    if len(payload) > 1:
        extra = ", ".join(shown(key) for key in payload if key != "records")
        raise Rejected(422, f"unexpected field(s) {extra}: only records")
    records = payload["records"]
    if type(records) is not list:
        raise Rejected(422, f"records must be a list of records, got {kind_of(records)}")
    if len(records) > max_records:
        raise Rejected(
            422,
            f"too many records: {len(records):,} is over the cap of {max_records:,} (max_records)",
        )
    return records


# --8<-- [start:slots]
def empty_slots(records: list) -> tuple[list[dict], list[tuple[int, int]]]:
    """One output slot per record (customer_id echoed), and (slot, id) for the valid ones."""
    slots, valid = [], []
    for position, record in enumerate(records):
        echoed = record.get("customer_id") if type(record) is dict else None
        slot = {"customer_id": echoed, "probability": None, "error": None}
        try:
            valid.append((position, customer_id_of(record)))
        except BadRecord as bad:
            slot["error"] = {"code": bad.code, "message": f"record {position}: {bad.message}"}
        slots.append(slot)
    return slots, valid


def gather_rows(
    slots: list[dict], valid: list[tuple[int, int]], found: dict
) -> tuple[np.ndarray, list[int]]:
    """The feature rows of the known customers, in input order; unknown ones get an error."""
    rows, scored_slots = [], []
    for position, customer_id in valid:
        features = found.get(customer_id)
        if features is None:
            slots[position]["error"] = {
                "code": "unknown_customer",
                "message": f"record {position}: customer_id {customer_id} is not in the "
                "feature store",
            }
        else:
            rows.append(features)
            scored_slots.append(position)
    return np.array(rows, dtype=np.float64).reshape(len(rows), len(FEATURES)), scored_slots
    # --8<-- [end:slots] (the site's batch route page shows these two: generator/pages/sources.py)


def answer(
    body: bytes,
    lookup: Callable,
    score_rows: Callable,
    max_records: int,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[int, bytes, dict]:
    """(status, JSON body, stage durations in seconds) for one /predict_batch request.

    `lookup(ids)` -> {id: features} (one query); `score_rows(rows)` -> one score per row.
    """
    durations = dict.fromkeys(BATCH_ROUTE_NAMES, 0.0)
    mark = clock()

    def lap(stage: str) -> None:
        nonlocal mark
        now = clock()
        durations[stage] = now - mark
        mark = now

    try:
        payload = parse_json(body)
    except Rejected as rejected:
        lap("parse")
        return rejected.status, error_body(rejected.message), durations
    lap("parse")
    try:
        records = records_of(payload, max_records)
    except Rejected as rejected:
        lap("validate")
        return rejected.status, error_body(rejected.message), durations
    slots, valid = empty_slots(records)
    lap("validate")
    found = lookup([customer_id for _, customer_id in valid]) if valid else {}
    rows, scored_slots = gather_rows(slots, valid, found)
    lap("lookup")
    if scored_slots:
        scores = score_rows(rows)
        for position, probability in zip(scored_slots, scores, strict=True):
            slots[position]["probability"] = float(probability)
    lap("model")
    content = json.dumps({"predictions": slots}, separators=(",", ":")).encode()
    lap("serialize")
    return 200, content, durations


def error_body(message: str) -> bytes:
    return json.dumps({"detail": message}).encode()
