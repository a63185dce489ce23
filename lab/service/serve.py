"""Run the prediction service: `python -m lab serve --batcher none|queue --max-batch B
--max-wait-ms W --host 127.0.0.1 --port 8000 [--max-records 10000]` (the app is
lab/service/app.py). The pre-loaded launcher (lab/service/preload.py) serves with the same
`run_uvicorn`.
"""

import gc
import sys

import uvicorn

from lab.service.app import create_app


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
