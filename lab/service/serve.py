"""Run the prediction service: `python -m lab serve --batcher none|queue --max-batch B
--max-wait-ms W --host 127.0.0.1 --port 8000 [--max-records 10000]` (the app is
lab/service/app.py). With `--arm-b-batcher none|queue [--arm-b-max-batch B]
[--arm-b-max-wait-ms W]` it serves the switchback app instead (lab/service/switchback.py):
two arms in one process, arm A with the plain options' setting, arm B with these; the
calibration check alone adds `--added-work-us-b N`. The pre-loaded launcher
(lab/service/preload.py) serves with the same `run_uvicorn`.
"""

import gc
import sys

import uvicorn

from lab.service.app import create_app
from lab.service.switchback import create_switchback_app


def add_arguments(parser) -> None:
    parser.add_argument(
        "--batcher",
        choices=("none", "queue"),
        default="none",
        help="none: each request scores its own row; queue: through the micro-batcher",
    )
    parser.add_argument("--max-batch", type=int, default=0, help="the cap B (queue only)")
    parser.add_argument("--max-wait-ms", type=float, default=0.0, help="the wait W in ms")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument(
        "--max-records",
        type=int,
        default=10_000,
        help="the most records one /predict_batch request may carry",
    )
    parser.add_argument(
        "--arm-b-batcher",
        choices=("none", "queue"),
        default=None,
        help="serve two arms (a switchback run): arm A with the setting above, arm B with "
        "this one, at /arm/a/predict and /arm/b/predict",
    )
    parser.add_argument("--arm-b-max-batch", type=int, default=0, help="arm B's cap B")
    parser.add_argument("--arm-b-max-wait-ms", type=float, default=0.0, help="arm B's wait W")
    parser.add_argument(
        "--added-work-us-b",
        type=float,
        default=0.0,
        help="FOR THE CALIBRATION CHECK ONLY (issue 28's known-effect runs): arm B's handler "
        "spins this many µs of CPU per request; never used by the campaign's comparisons",
    )
    parser.add_argument(
        "--swap-routes",
        action="store_true",
        help="two arms: /arm/a/predict serves arm B and /arm/b/predict arm A (a switchback "
        "run counterbalances the routes' places)",
    )


def build_app(args):
    """The plain service, or the two-armed one when arm B is given."""
    if args.arm_b_batcher is None:
        if args.added_work_us_b or args.swap_routes:
            raise ValueError(
                "--added-work-us-b and --swap-routes need two arms: give --arm-b-batcher"
            )
        return create_app(
            args.batcher, args.max_batch, args.max_wait_ms, max_records=args.max_records
        )
    arm_a = {"batcher": args.batcher, "max_batch": args.max_batch,
             "max_wait_ms": args.max_wait_ms}  # fmt: skip
    arm_b = {"batcher": args.arm_b_batcher, "max_batch": args.arm_b_max_batch,
             "max_wait_ms": args.arm_b_max_wait_ms}  # fmt: skip
    return create_switchback_app(arm_a, arm_b, args.added_work_us_b, args.swap_routes)


def main(args) -> int:
    try:
        app = build_app(args)
    except ValueError as error:
        print(f"lab serve: {error}", file=sys.stderr)
        return 2
    run_uvicorn(app, args.host, args.port)
    return 0


def run_uvicorn(app, host: str, port: int) -> None:
    """Serve `app` until SIGTERM (also used by the pre-loaded launcher's services)."""
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
