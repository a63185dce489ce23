"""The switchback service (issue 28): one process serving two arms at once, each arm its own
batcher setting, `create_switchback_app(arm_a, arm_b, added_work_us_b=0)` (two `Setting`s).

Served by `python -m lab serve --batcher none --arm-b-batcher queue --arm-b-max-batch 1`
(lab/service/serve.py: the plain options set arm A, the `--arm-b-…` ones arm B) or by the
pre-loaded launcher, on the same uvicorn as the plain service. The open-loop client sends
each request to the arm of the time slice it is scheduled in (lab/load/arrivals.py
`slice_arms`), so the two settings alternate every half second inside one process and the
host's slow drifts fall on both alike.

Routes
  GET  /health              {"status": "ok", "arms": {"a": setting, "b": setting},
                            "routes": {"a": route, "b": route}, "added_work_us_b": n}
  POST /arm/{route}/predict route `a` or `b`: exactly /predict of lab/service/app.py (body,
                            answer, errors, Server-Timing), scored by the setting of the
                            arm it serves (arm a's unless the routes are swapped)
  GET  /arm/{route}/batches /batches of that route's micro-batcher (empty for batcher none)

Why one route with the arm in the path: the two arms' requests must cost the same apart from
their setting. Both match the same route (two routes would not: Starlette tries routes in
order, so the second arm's requests would pay one more failed match), run the same handler
code (`Predictor.predict`), and their request bytes have the same length (`a`, `b`); the arm
picks its Predictor with one dict lookup. A header or a body field would cost about the same
but would put the arm out of sight of the URL and, for the body, inside the parse we time.
Each arm is its own Predictor (its own micro-batcher and SQLite connections), both built
before serving and both batchers started with the app; they share the loaded model.

Routes swapped (`swap_routes`, `--swap-routes`): route `a` serves arm B's setting and route
`b` arm A's, and the predictors are built in route order, so any cost of a route's place
(its name, which predictor was built first) falls on the other arm. A switchback run draws it
per run (counterbalanced, recorded) and its client sends each arm's requests to that arm's
route (`python -m lab openloop --swap-routes`); the arm column stays the arm, not the route.
The added work stays with arm B, whichever route serves it.

Added work (`added_work_us_b`, `--added-work-us-b N`): FOR THE CALIBRATION CHECK ONLY, the
known-effect runs of issue 28 (item 5), never in the campaign design's comparisons. Arm B's
feature lookup, once it has the row, spins (a busy loop on the core, not a sleep) until N µs
have passed on the clock, so every arm B request's Server-Timing `ready` stage holds exactly N
µs more, and a switchback run must recover that known amount. Why the clock and why last
(arms.py `SPIN`, from 2026-12-02's fifth benchmark): a spin to a thread-CPU deadline is stretched on
the clock whenever the client or the model's thread takes the core, so the request met more
than N; and any spin leaves the code right after it a few µs slower (a pilot apart from the
service measured 2-15 µs, with or without system calls in the loop:
data/bench/pilots/2026-12-02-spin-kinds/), so a spin before the lookup made the lookup slower
too. Spun last, to the clock, the stage's extra time is the spin's own, and whatever it costs
afterwards falls outside the stage (in the model call). The arm's GET .../batches adds
`added_work`: `spins`, `added_us` (N), `spin` (SPIN) and `wall_us_p50`, the median time of
its spins on the clock.
"""

import json
import statistics
import time
from collections import deque
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import Response

from lab.model import artifacts
from lab.model.scoring import score
from lab.service.app import NO_TELEMETRY, Predictor, check_setting, json_response, warm_up
from lab.service.arms import ARMS, SPIN, arm_path, route_of_arms
from lab.service.batch_route import error_body
from lab.service.batcher import KEEP_BATCHES, MicroBatcher
from lab.service.openapi import predict_openapi, status_openapi
from lab.servicespec import Setting


def spin(microseconds: float) -> None:
    """Busy-wait until `microseconds` have passed on the clock: work on the core, not a
    sleep. `perf_counter_ns` reads the clock through the vDSO, without a system call per
    turn. (Until 2026-12-02's fifth benchmark the spin came before the lookup: to a thread-CPU
    deadline in the third and fourth, to the clock before them; see the module's docstring.)
    For the calibration check only."""
    end = time.perf_counter_ns() + round(microseconds * 1000)
    while time.perf_counter_ns() < end:
        pass


class StoreWithAddedWork:
    """A feature store whose every one-row lookup, once it has the row, spins `added_work_us`
    on the clock (calibration check only): the work ends the handler's `ready` stage. Each
    spin's time on the clock is kept (the last `KEEP_SPINS`), to show it is the amount asked."""

    KEEP_SPINS = 100_000

    def __init__(self, store, added_work_us: float):
        self.store = store
        self.added_work_us = added_work_us
        self.spins_wall_ns: deque[int] = deque(maxlen=self.KEEP_SPINS)

    def row(self, customer_id: int):
        row = self.store.row(customer_id)
        start = time.perf_counter_ns()
        spin(self.added_work_us)
        self.spins_wall_ns.append(time.perf_counter_ns() - start)
        return row

    def summary(self) -> dict:
        """The spins so far: how many, the amount each was asked for, how it spun and their
        median time on the clock (µs; null before the first)."""
        walls = self.spins_wall_ns
        return {
            "spins": len(walls),
            "added_us": self.added_work_us,
            "spin": SPIN,
            "wall_us_p50": statistics.median(walls) / 1000 if walls else None,
        }


def create_switchback_app(
    arm_a: Setting,
    arm_b: Setting,
    added_work_us_b: float = 0.0,
    swap_routes: bool = False,
    store_path: Path | None = None,
    model=None,
    keep_batches: int = KEEP_BATCHES,
) -> FastAPI:
    """The two-armed service, arm A with setting `arm_a` and arm B with `arm_b`."""
    settings = dict(zip(ARMS, (arm_a, arm_b), strict=True))
    for setting in settings.values():
        check_setting(setting)
    if not added_work_us_b >= 0:
        raise ValueError(f"the added work must be 0 or more µs, got {added_work_us_b}")
    model = artifacts.load_model() if model is None else model
    store_path = artifacts.store_path() if store_path is None else store_path
    warm_up(model)
    routes = route_of_arms(swap_routes)
    arm_of_route = {route: arm for arm, route in routes.items()}
    predictors, batchers = {}, []  # predictors by route, built in route order
    for route in ARMS:
        setting = settings[arm_of_route[route]]
        micro = None
        if setting.batcher == "queue":
            micro = MicroBatcher(partial(score, model), setting.max_batch, setting.max_wait_ms,
                                 keep_batches=keep_batches)  # fmt: skip
            batchers.append(micro)
        predictors[route] = Predictor(model, store_path, micro, max_records=0)
    if added_work_us_b:
        served_b = predictors[routes["b"]]
        served_b.store = StoreWithAddedWork(served_b.store, added_work_us_b)
    health = json.dumps(
        {
            "status": "ok",
            "arms": {arm: setting.record() for arm, setting in settings.items()},
            "routes": routes,
            "added_work_us_b": float(added_work_us_b),
        }
    ).encode()

    @asynccontextmanager
    async def lifespan(_app):
        for micro in batchers:
            micro.start()
        yield
        for micro in batchers:
            await micro.stop()

    app = FastAPI(
        title="batching lesson: switchback service (two arms)",
        lifespan=lifespan,
        telemetry=NO_TELEMETRY,
    )
    app.state.predictors = predictors

    def no_such_arm(request: Request) -> Response:
        message = f"no arm {request.path_params['arm']!r}: the arms are 'a' and 'b'"
        return json_response(error_body(message), 404)

    @app.get("/health", **status_openapi({"type": "object"}))
    async def get_health() -> Response:
        return json_response(health)

    @app.post(arm_path("{arm}"), **predict_openapi())
    async def post_arm_predict(request: Request) -> Response:
        predictor = predictors.get(request.path_params["arm"])
        if predictor is None:
            return no_such_arm(request)
        return await predictor.predict(request)

    @app.get(arm_path("{arm}", "batches"), **status_openapi({"type": "object"}))
    async def get_arm_batches(request: Request) -> Response:
        predictor = predictors.get(request.path_params["arm"])
        if predictor is None:
            return no_such_arm(request)
        if not isinstance(predictor.store, StoreWithAddedWork):
            return predictor.batches()
        found = json.loads(predictor.batches().body)  # and the added work's spins
        found["added_work"] = predictor.store.summary()
        return json_response(json.dumps(found, separators=(",", ":")).encode())

    return app
