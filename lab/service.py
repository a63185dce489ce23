"""The prediction service: FastAPI on uvicorn (uvloop, httptools), one worker.

Run: `python -m lab serve --batcher none|queue --max-batch B --max-wait-ms W
      --host 127.0.0.1 --port 8000 [--max-records 10000]`

Routes
  GET  /health          {"status": "ok", "batcher": …, "max_batch": …, "max_wait_ms": …}
  POST /predict         {"customer_id": 123} -> {"customer_id": 123, "probability": p}
                        404 unknown customer, 422 malformed body, 413 body too large;
                        Server-Timing: ready, queued, model, call durations and the
                        batch size (lab.server_timing says what each one covers)
  POST /predict_batch   {"records": [{"customer_id": …}, …]} -> {"predictions": [slot, …]},
                        dense and aligned (see lab.batch_route); Server-Timing: parse,
                        validate, lookup, model, serialize
  GET  /batches         {"size": [...], "first_wait_us": [...]}, one entry per batch made

Batcher none: the handler scores its own row. Batcher queue: the row goes to the
micro-batcher (lab.batcher) with the cap B and the wait W. Every score comes from
`lab.scoring.score`, so answers equal the single-row score to the bit.
"""

import contextlib
import gc
import json
import sys
import threading
import time
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Annotated

import numpy as np
from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response

from lab import artifacts
from lab.batch_route import (
    MAX_CUSTOMER_ID,
    BadRecord,
    Rejected,
    answer,
    customer_id_of,
    error_body,
    parse_json,
)
from lab.batcher import MicroBatcher, ModelCallFailed
from lab.feature_names import FEATURES
from lab.scoring import score
from lab.server_timing import format_durations, format_server_timing
from lab.store import FeatureStore

PREDICT_BODY_LIMIT = 16 * 1024  # a /predict body is a few dozen bytes
BYTES_PER_RECORD = 256  # generous: {"customer_id": 9007199254740991} is 34 bytes
JSON = "application/json"
# FastAPI's built-in OpenTelemetry hooks cost microseconds per request and record nothing here.
NO_TELEMETRY = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}


def check_setting(batcher: str, max_batch: int, max_wait_ms: float) -> None:
    """Refuse settings that are not in the design (BRIEF §2), with a message saying why."""
    if batcher == "none":
        if max_batch or max_wait_ms:
            raise ValueError("batcher none has no cap or wait: use --max-batch 0 --max-wait-ms 0")
    elif batcher == "queue":
        if max_batch < 1:
            raise ValueError(f"batcher queue needs a cap B of at least 1, got {max_batch}")
        if not max_wait_ms >= 0:
            raise ValueError(f"the wait W must be 0 or more milliseconds, got {max_wait_ms}")
        if max_batch == 1 and max_wait_ms > 0:
            raise ValueError("queue B=1 with W>0 is not a setting: a batch of one never waits")
    else:
        raise ValueError(f"batcher must be 'none' or 'queue', got {batcher!r}")


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
        found = self.batcher.batches() if self.batcher else {"size": [], "first_wait_us": []}
        return json_response(json.dumps(found, separators=(",", ":")).encode())


# -- the OpenAPI description (the handlers read raw bytes, so the bodies are declared here) ----

CUSTOMER_ID = {"type": "integer", "minimum": 0, "maximum": MAX_CUSTOMER_ID}
PREDICT_BODY = {
    "type": "object",
    "properties": {"customer_id": CUSTOMER_ID},
    "required": ["customer_id"],
    "additionalProperties": False,
}
ERROR = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
SLOT_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
}
SLOT = {
    "type": "object",
    "required": ["customer_id", "probability", "error"],
    "properties": {
        "customer_id": {},
        "probability": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "error": {"anyOf": [SLOT_ERROR, {"type": "null"}]},
    },
}


def json_body(schema: dict, description: str) -> dict:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def predict_openapi() -> dict:
    answer_schema = {
        "type": "object",
        "required": ["customer_id", "probability"],
        "properties": {"customer_id": CUSTOMER_ID, "probability": {"type": "number"}},
    }
    return {
        "openapi_extra": {
            "requestBody": {"required": True, "content": {JSON: {"schema": PREDICT_BODY}}}
        },
        "responses": {
            200: json_body(answer_schema, "the customer's probability of buying"),
            404: json_body(ERROR, "unknown customer"),
            413: json_body(ERROR, "body too large"),
            422: json_body(ERROR, "malformed body"),
            500: json_body(ERROR, "the model call of this request's batch failed"),
        },
    }


def predict_batch_openapi(max_records: int) -> dict:
    records = {
        "type": "array",
        "maxItems": max_records,
        "description": 'each item should be {"customer_id": <integer>}; any other item '
        "gets an error object in its own output slot",
        "items": {},
    }
    body = {
        "type": "object",
        "properties": {"records": records},
        "required": ["records"],
        "additionalProperties": False,
    }
    answer_schema = {
        "type": "object",
        "required": ["predictions"],
        "properties": {"predictions": {"type": "array", "items": SLOT}},
    }
    return {
        "openapi_extra": {"requestBody": {"required": True, "content": {JSON: {"schema": body}}}},
        "responses": {
            200: json_body(answer_schema, "one slot per record, in input order"),
            413: json_body(ERROR, "body too large"),
            422: json_body(ERROR, 'not {"records": [...]}, or more records than the cap'),
        },
    }


def status_openapi(schema: dict) -> dict:
    return {"responses": {200: json_body(schema, "OK")}}


def warm_up(model) -> None:
    """Score one row before serving: a process's first model call pays one-off costs (tens of
    milliseconds: scikit-learn's input check looks for dataframe plugins in every installed
    package's metadata), which would otherwise land on the first measured request."""
    with contextlib.suppress(Exception):  # a model that fails is reported per request
        score(model, np.zeros((1, len(FEATURES))))


def create_app(
    batcher: str = "none",
    max_batch: int = 0,
    max_wait_ms: float = 0.0,
    store_path: Path | None = None,
    model=None,
    max_records: int = 10_000,
) -> FastAPI:
    """The service as a FastAPI app; `model` and `store_path` default to the built artifacts."""
    check_setting(batcher, max_batch, max_wait_ms)
    if max_records < 0:
        raise ValueError(f"max_records must be 0 or more, got {max_records}")
    model = artifacts.load_model() if model is None else model
    store_path = artifacts.store_path() if store_path is None else store_path
    warm_up(model)
    micro = (
        MicroBatcher(partial(score, model), max_batch, max_wait_ms) if batcher == "queue" else None
    )
    predictor = Predictor(model, store_path, micro, max_records)
    health = json.dumps(
        {
            "status": "ok",
            "batcher": batcher,
            "max_batch": max_batch,
            "max_wait_ms": float(max_wait_ms),
        }
    ).encode()

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


def add_arguments(parser) -> None:
    parser.add_argument("--batcher", choices=("none", "queue"), default="none")
    parser.add_argument("--max-batch", type=int, default=0, help="the cap B (queue only)")
    parser.add_argument("--max-wait-ms", type=float, default=0.0, help="the wait W in ms")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--max-records",
        type=int,
        default=10_000,
        help="the most records one /predict_batch request may carry",
    )


def main(args) -> int:
    try:
        app = create_app(
            args.batcher, args.max_batch, args.max_wait_ms, max_records=args.max_records
        )
    except ValueError as error:
        print(f"lab serve: {error}", file=sys.stderr)
        return 2
    run_uvicorn(app, args.host, args.port)
    return 0


def run_uvicorn(app, host: str, port: int) -> None:
    """Serve `app` until SIGTERM (also used by lab/launcher.py's pre-loaded services)."""
    import uvicorn

    # The model and the app are loaded for good: move them out of the garbage collector's
    # sight, so a collection does not walk ~150k long-lived objects in the middle of a request.
    gc.collect()
    gc.freeze()
    uvicorn.run(
        app,
        host=host,
        port=port,
        loop="uvloop",
        http="httptools",
        workers=1,
        access_log=False,
        log_level="warning",
        timeout_keep_alive=3600,
        backlog=4096,
        lifespan="on",
    )
