"""The prediction service as a FastAPI app, `create_app(Setting("queue", 32, 2.0))`, served on
uvicorn (uvloop, httptools), one worker, by `python -m lab serve` (lab/service/serve.py) or by
the pre-loaded launcher (lab/service/preload.py).

Routes
  GET  /health          {"status": "ok", "batcher": …, "max_batch": …, "max_wait_ms": …}
  POST /predict         {"customer_id": 123} -> {"customer_id": 123, "probability": p}
                        404 unknown customer, 422 malformed body, 413 body too large;
                        Server-Timing: ready, queued, model, call durations and the
                        batch size (lab/service/server_timing.py says what each covers)
  POST /predict_batch   {"records": [{"customer_id": …}, …]} -> {"predictions": [slot, …]},
                        dense and aligned (see lab/service/batch_route.py); Server-Timing: parse,
                        validate, lookup, model, serialize
  GET  /batches         {"size": [...], "first_wait_us": [...], "batches_made": n,
                        "rows_scored": n, "records_dropped": n, "gc": {…}}: the last 262,144
                        batches (batcher.KEEP_BATCHES), oldest first, totals since the start,
                        and the garbage collector's work (lab/service/gc_watch.py)

Batcher none: the handler scores its own row. Batcher queue: the row goes to the
micro-batcher (lab/service/batcher.py) with the cap B and the wait W. Every score comes
from `lab.model.scoring.score`, so answers equal the single-row score to the bit.
"""

import contextlib
import json
import threading
import time
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Annotated

import numpy as np
from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response

from lab.model import artifacts
from lab.model.feature_names import FEATURES
from lab.model.scoring import score
from lab.model.store import FeatureStore
from lab.service import gc_watch
from lab.service.batch_route import (
    BadRecord,
    Rejected,
    answer,
    customer_id_of,
    error_body,
    parse_json,
)
from lab.service.batcher import KEEP_BATCHES, NO_BATCHES, MicroBatcher, ModelCallFailed
from lab.service.openapi import JSON, predict_batch_openapi, predict_openapi, status_openapi
from lab.service.server_timing import format_durations, format_server_timing
from lab.servicespec import DEFAULT_MAX_RECORDS, NONE, Setting

PREDICT_BODY_LIMIT = 16 * 1024  # a /predict body is a few dozen bytes
BYTES_PER_RECORD = 256  # generous: {"customer_id": 9007199254740991} is 34 bytes
# FastAPI's built-in OpenTelemetry hooks cost microseconds per request and record nothing here.
NO_TELEMETRY = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}


def check_setting(setting: Setting) -> None:
    """Refuse settings that are not in the design (BRIEF §2), with a message saying why."""
    if setting.batcher == "none":
        if setting.max_batch or setting.max_wait_ms:
            raise ValueError("batcher none has no cap or wait: use --max-batch 0 --max-wait-ms 0")
    elif setting.batcher == "queue":
        if setting.max_batch < 1:
            raise ValueError(f"batcher queue needs a cap B of at least 1, got {setting.max_batch}")
        if not setting.max_wait_ms >= 0:
            raise ValueError(f"the wait W must be 0 or more ms, got {setting.max_wait_ms}")
        if setting.max_batch == 1 and setting.max_wait_ms > 0:
            raise ValueError("queue B=1 with W>0 is not a setting: a batch of one never waits")
    else:
        raise ValueError(f"batcher must be 'none' or 'queue', got {setting.batcher!r}")


def too_large(limit: int) -> Rejected:
    return Rejected(413, f"the body is larger than the limit of {limit:,} bytes")


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or Rejected(413) as soon as it passes `limit` bytes (uvicorn discards
    the rest, so the connection stays usable)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def json_response(content: bytes, status: int = 200, timing: str | None = None) -> Response:
    headers = {"server-timing": timing} if timing is not None else None
    return Response(content, status_code=status, headers=headers, media_type=JSON)


class Predictor:
    """The state behind the routes: the model, the feature stores and the micro-batcher."""

    def __init__(self, model, store_path: Path, batcher: MicroBatcher | None, max_records: int):
        self.model = model
        self.score_rows = partial(score, model)
        # /predict reads on the event loop's thread only; the batch route runs in the
        # threadpool, so it has its own connection, used by one thread at a time.
        self.store = FeatureStore(store_path, check_same_thread=False)
        self.batch_store = FeatureStore(store_path, check_same_thread=False)
        self.batch_lock = threading.Lock()
        self.batcher = batcher
        self.max_records = max_records
        self.batch_body_limit = max(1 << 20, max_records * BYTES_PER_RECORD)

    # --8<-- [start:predict]
    async def predict(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            customer_id = customer_id_of(parse_json(await read_body(request, PREDICT_BODY_LIMIT)))
        except (Rejected, BadRecord) as bad:
            status = bad.status if isinstance(bad, Rejected) else 422
            return self._predict_error(status, bad.message, started)
        row = self.store.row(customer_id)
        if row is None:
            message = f"unknown customer_id {customer_id}: not in the feature store"
            return self._predict_error(404, message, started)
        ready = time.perf_counter()
        if self.batcher is None:
            try:
                probability = float(self.score_rows(row)[0])
            except Exception as error:  # the model failed: a 500 that says why
                reason = f"{type(error).__name__}: {error}"
                failed = ModelCallFailed(reason, ready, 1, time.perf_counter())
                return self._model_failed(failed, started, ready)
            model_started, size, model_done = ready, 1, time.perf_counter()
        else:
            try:
                probability, model_started, size, model_done = await self.batcher.submit(row)
            except ModelCallFailed as failed:
                return self._model_failed(failed, started, ready)
        back = time.perf_counter()
        timing = format_server_timing(
            ready - started, model_started - ready, back - model_started, size,
            model_done - model_started,
        )  # fmt: skip
        content = f'{{"customer_id":{customer_id},"probability":{probability!r}}}'
        return json_response(content.encode(), 200, timing)
        # --8<-- [end:predict] (the handler page shows this method: generator/pages/sources.py)

    def _model_failed(self, failed: ModelCallFailed, started: float, ready: float) -> Response:
        back = time.perf_counter()
        timing = format_server_timing(
            ready - started, failed.model_started - ready, back - failed.model_started,
            failed.batch_size, failed.model_done - failed.model_started,
        )  # fmt: skip
        message = f"the model call for this request's batch failed: {failed.reason}"
        return json_response(error_body(message), 500, timing)

    def _predict_error(self, status: int, message: str, started: float) -> Response:
        timing = format_server_timing(time.perf_counter() - started, 0.0, 0.0, 0)
        return json_response(error_body(message), status, timing)

    def lookup(self, customer_ids: list[int]) -> dict:
        with self.batch_lock:
            return self.batch_store.rows(customer_ids)

    def predict_batch(self, body: bytes | Rejected) -> Response:
        if isinstance(body, Rejected):
            return json_response(error_body(body.message), body.status)
        try:
            status, content, durations = answer(
                body, self.lookup, self.score_rows, self.max_records
            )
        except Exception as error:  # the model or the store failed: say so, as a 500
            message = f"the batch could not be scored: {type(error).__name__}: {error}"
            return json_response(error_body(message), 500)
        return json_response(content, status, format_durations(durations))

    def batches(self) -> Response:
        found = dict(self.batcher.batches() if self.batcher else NO_BATCHES)
        found["gc"] = gc_watch.snapshot()
        return json_response(json.dumps(found, separators=(",", ":")).encode())


def warm_up(model) -> None:
    """Score one row before serving: a process's first model call pays one-off costs (tens of
    milliseconds: scikit-learn's input check looks for dataframe plugins in every installed
    package's metadata), which would otherwise land on the first measured request."""
    with contextlib.suppress(Exception):  # a model that fails is reported per request
        score(model, np.zeros((1, len(FEATURES))))


def create_app(
    setting: Setting = NONE,
    store_path: Path | None = None,
    model=None,
    max_records: int = DEFAULT_MAX_RECORDS,
    keep_batches: int = KEEP_BATCHES,
) -> FastAPI:
    """The service as a FastAPI app; `model` and `store_path` default to the built artifacts."""
    check_setting(setting)
    if max_records < 0:
        raise ValueError(f"max_records must be 0 or more, got {max_records}")
    model = artifacts.load_model() if model is None else model
    store_path = artifacts.store_path() if store_path is None else store_path
    warm_up(model)
    micro = (
        MicroBatcher(
            partial(score, model), setting.max_batch, setting.max_wait_ms, keep_batches=keep_batches
        )  # fmt: skip
        if setting.batcher == "queue"
        else None
    )
    predictor = Predictor(model, store_path, micro, max_records)
    health = json.dumps({"status": "ok", **setting.record()}).encode()

    @asynccontextmanager
    async def lifespan(_app):
        if micro is not None:
            micro.start()
        yield
        if micro is not None:
            await micro.stop()

    app = FastAPI(
        title="batching lesson: prediction service",
        lifespan=lifespan,
        telemetry=NO_TELEMETRY,
    )
    app.state.predictor = predictor

    async def batch_body(request: Request) -> bytes | Rejected:
        try:
            return await read_body(request, predictor.batch_body_limit)
        except Rejected as rejected:
            return rejected

    @app.get("/health", **status_openapi({"type": "object"}))
    async def get_health() -> Response:
        return json_response(health)

    @app.post("/predict", **predict_openapi())
    async def post_predict(request: Request) -> Response:
        return await predictor.predict(request)

    @app.post("/predict_batch", **predict_batch_openapi(max_records))
    def post_predict_batch(body: Annotated[bytes | Rejected, Depends(batch_body)]) -> Response:
        return predictor.predict_batch(body)

    @app.get("/batches", **status_openapi({"type": "object"}))
    async def get_batches() -> Response:
        return predictor.batches()

    return app
