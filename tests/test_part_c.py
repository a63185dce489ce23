"""Part C against the real service: the loop and every chunk size give the same bits, the
example exchange is aligned, and `python -m lab partc` writes the documented raw file.

Run: `.venv/bin/pytest tests/test_part_c.py` (needs `python -m lab data`; about 30 s).
"""

import hashlib
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from lab import design, paths
from lab.load import httpclient
from lab.load.arrivals import customers_for_run
from lab.model import artifacts
from lab.model.scoring import score
from lab.model.store import FeatureStore
from lab.parts.part_c.breakdown import alignment_checks
from lab.parts.part_c.client import run_session, session_record
from lab.parts.part_c.exchanges import exchange_all, open_one
from lab.parts.part_c.methods import CHUNKS, LOOP, batch_requests
from lab.parts.part_c.scores import batch_scores, bit_mismatches, bits_digest
from lab.rawformat import codec

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

RECORDS = 300
SEED = 7
SMALL_REPS = {"predict": 20, "batch": 3, "batch_records": 100}


@pytest.fixture(scope="module")
def session(service_launcher):
    """One measured client session with small N against a fresh real service."""
    customer_ids = customers_for_run(artifacts.request_ids(), SEED, RECORDS)
    with service_launcher.service() as service:
        measured = run_session(service.port, customer_ids, SEED, SMALL_REPS)
    return measured


@pytest.fixture(scope="module")
def record(session):
    """(meta, columns) of that session, as the raw file holds them."""
    return session_record(session, SEED)


def bits(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype="<f8").view("<u8")


def inprocess_scores(customer_ids) -> np.ndarray:
    store = FeatureStore(artifacts.store_path())
    found = store.rows([int(c) for c in customer_ids])
    store.close()
    rows = np.array([found[int(c)] for c in customer_ids], dtype=np.float64)
    return score(artifacts.load_model(), rows)


def test_every_chunk_size_is_timed_once_with_the_loop(session):
    assert sorted(session.order) == [LOOP, 1, 10, 100, RECORDS]
    assert [t.chunk for t in session.timed] == session.order


def test_the_loop_and_every_chunk_size_score_the_same_customers_to_the_same_bits(session):
    loop = session.loop
    assert loop.errors == 0
    assert not np.isnan(loop.scores).any()
    for method in session.timed:
        assert method.errors == 0, f"chunk {method.chunk}"
        assert len(method.scores) == RECORDS
        assert np.array_equal(bits(method.scores), bits(loop.scores)), f"chunk {method.chunk}"
    # and the same bits as the one scoring function on the store's features, in this process
    assert np.array_equal(bits(loop.scores), bits(inprocess_scores(session.customer_ids)))


def test_the_record_counts_bits_as_the_scores_show(session, record):
    meta, columns = record
    assert meta["bits"]["all_equal"] is True
    assert meta["bits"]["inprocess"]["all_at_once_mismatches"] == 0
    assert meta["bits"]["inprocess"]["single_row_mismatches"] == 0
    assert columns["method_mismatches"].tolist() == [0] * len(session.timed)
    loop_digest = hashlib.sha256(columns["score_probability"].astype("<f8").tobytes()).hexdigest()
    assert set(columns["method_scores_sha256"].tolist()) == {loop_digest}
    assert np.array_equal(columns["score_customer_id"], session.customer_ids)


async def one_batch_answer(port: int, customer_ids) -> tuple[int, bytes]:
    connection = await open_one(port)
    try:
        exchanges = await exchange_all(
            connection, batch_requests(port, customer_ids, len(customer_ids))
        )
    finally:
        connection.close()
    return exchanges.status[0], exchanges.body[0]


def test_the_client_reads_the_full_profiles_largest_answer_in_pieces(service_launcher):
    """The full campaign's largest chunk answers far more bytes than one read returns: the
    client must keep the pieces after the head, not fail as if the head never ended."""
    largest = min(max(CHUNKS), design.FULL.part_c_records)
    customer_ids = customers_for_run(artifacts.request_ids(), SEED, largest)
    with service_launcher.service() as service:
        status, body = httpclient.run(one_batch_answer(service.port, customer_ids))
    assert status == 200
    assert len(body) > 256_000  # more than uvloop hands over in one read
    slots = json.loads(body)["predictions"]
    assert [slot["customer_id"] for slot in slots] == customer_ids.tolist()
    assert all(slot["error"] is None for slot in slots)


def test_a_one_ulp_difference_is_a_mismatch():
    scores = np.array([0.25, 0.5, 0.125])
    nudged = scores.copy()
    nudged[1] = np.nextafter(nudged[1], 1.0)
    assert bit_mismatches(scores, scores) == 0
    assert bit_mismatches(nudged, scores) == 1
    assert bits_digest(nudged) != bits_digest(scores)


def test_a_swapped_or_dropped_slot_scores_nothing():
    ids = np.array([11, 12, 13])
    good = [{"customer_id": c, "probability": 0.1 * c, "error": None} for c in (11, 12, 13)]
    swapped = [good[1], good[0], good[2]]
    body = json.dumps({"predictions": swapped}).encode()
    assert np.isnan(batch_scores([body], ids, 3)).tolist() == [True, True, False]
    dropped = json.dumps({"predictions": good[:2]}).encode()
    assert np.isnan(batch_scores([dropped], ids, 3)).all()
    assert not np.isnan(batch_scores([json.dumps({"predictions": good}).encode()], ids, 3)).any()


def test_chunk_calls_cover_every_record_once(record):
    _, columns = record
    for chunk in [LOOP, 1, 10, 100, RECORDS]:
        mine = columns["call_chunk"] == chunk
        assert columns["call_records"][mine].sum() == RECORDS
        assert (columns["call_status"][mine] == 200).all()
        assert (columns["call_round_trip_ns"][mine] > 0).all()


def test_the_example_exchange_is_aligned(session):
    example = session.example
    assert example["aligned"] is True, example["checks"]
    sent = json.loads(example["request_body"])["records"]
    slots = json.loads(example["response_body"])["predictions"]
    assert example["status"] == 200
    assert len(slots) == len(sent) == len(example["record_kinds"])
    for record, kind, slot in zip(sent, example["record_kinds"], slots, strict=True):
        assert slot["customer_id"] == record["customer_id"]
        if kind == "valid":
            assert slot["error"] is None
            position = session.customer_ids.tolist().index(record["customer_id"])
            assert bits([slot["probability"]]) == bits([session.loop.scores[position]])
        else:
            assert slot["probability"] is None
            assert slot["error"]["code"] == (
                "unknown_customer" if kind == "unknown" else "invalid_customer_id"
            )


def test_an_example_with_a_dropped_slot_is_not_aligned(session):
    broken = dict(session.example)
    answer = json.loads(broken["response_body"])
    del answer["predictions"][1]  # a service that silently drops the unknown customer
    broken["response_body"] = json.dumps(answer)
    sent = json.loads(broken["request_body"])["records"]
    checks = alignment_checks(sent, broken["record_kinds"], broken)
    assert not all(checks.values())


def test_breakdown_stages_sum_to_at_most_the_round_trip(record):
    _, columns = record
    route = columns["breakdown_route"]
    assert (route == "predict").sum() == SMALL_REPS["predict"]
    assert (route == "predict_batch").sum() == SMALL_REPS["batch"]
    assert (columns["breakdown_status"] == 200).all()
    single, batch = route == "predict", route == "predict_batch"
    assert not np.isnan(columns["breakdown_ready_us"][single]).any()
    assert np.isnan(columns["breakdown_parse_us"][single]).all()
    for name in ("parse", "validate", "lookup", "model", "serialize"):
        assert not np.isnan(columns[f"breakdown_{name}_us"][batch]).any(), name
    assert (columns["breakdown_model_us"] > 0).all()
    # Server-Timing has 1 µs resolution: allow rounding of up to 5 stages
    assert (columns["breakdown_outside_us"] > -5).all()


def documented_columns() -> set[str]:
    text = (paths.DATA / "README.md").read_text()
    section = text.split("### `part_c`", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"`((?:method|call|score|breakdown)_[a-z0-9_]+)`", section))


def test_the_command_writes_the_documented_raw_file(tmp_path):
    env = {**os.environ, "LAB_RAW": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "lab",
        "partc",
        "--records",
        str(RECORDS),
        "--runs",
        "1",
        "--campaign",
        "partc-test",
        "--quiet-tries",
        "1",
    ]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=240, cwd=paths.REPO
    )
    assert done.returncode == 0, done.stderr
    meta, columns = codec.read_run(tmp_path / "partc-test" / "runs" / "part_c-0.run.zip")
    assert set(columns) == documented_columns()
    assert meta["kind"] == "part_c" and meta["run_id"] == "part_c-0"
    assert meta["records"] == RECORDS
    assert meta["bits"]["all_equal"] is True
    assert meta["example_exchange"]["aligned"] is True
    assert "load_before" in meta and "load_after" in meta
    per_method = {len(values) for name, values in columns.items() if name.startswith("method_")}
    assert per_method == {len(meta["chunks"]) + 1}
    assert len(columns["score_probability"]) == RECORDS
