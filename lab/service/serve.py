"""Run the prediction service: `python -m lab serve --batcher none|queue --max-batch B
--max-wait-ms W --host 127.0.0.1 --port 8000 [--max-records 10000]` (the app is
lab/service/app.py). With `--arm-b-batcher none|queue [--arm-b-max-batch B]
[--arm-b-max-wait-ms W]` it serves the switchback app instead (lab/service/switchback.py):
two arms in one process, arm A with the plain options' setting, arm B with these; the
calibration check alone adds `--added-work-us-b N`. The pre-loaded launcher
(lab/service/preload.py) serves with the same `run_uvicorn`.
"""

import sys

import uvicorn

from lab import servicespec
from lab.service import gc_watch
from lab.service.app import create_app
from lab.service.switchback import create_switchback_app
from lab.servicespec import ServiceSpec


def add_arguments(parser) -> None:
    """The spec's flags (lab/servicespec.py), then where to listen."""
    servicespec.add_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")


def build_app(spec: ServiceSpec, model=None):
    """The plain service, or the two-armed one when the spec has an arm B (used by
    `python -m lab serve` and by the pre-loaded launcher's forked services alike)."""
    if spec.arm_b is None:
        return create_app(spec.setting, model=model, max_records=spec.max_records)
    return create_switchback_app(
        spec.setting, spec.arm_b, spec.added_work_us_b, spec.swap_routes, model=model
    )


def main(args) -> int:
    try:
        app = build_app(ServiceSpec.from_arguments(args))
    except ValueError as error:
        print(f"lab serve: {error}", file=sys.stderr)
        return 2
    run_uvicorn(app, args.host, args.port)
    return 0


def run_uvicorn(app, host: str, port: int) -> None:
    """Serve `app` until SIGTERM (also used by the pre-loaded launcher's services)."""
    # The model and the app are loaded for good: out of the garbage collector's sight, and
    # the collector kept out of the requests' way (why: lab/service/gc_watch.py).
    gc_watch.settle()
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
