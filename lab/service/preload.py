"""The pre-loaded launcher process, like gunicorn's --preload: `python -m lab.service.preload`.

It imports FastAPI, uvicorn and scikit-learn and loads the model once, then reads one JSON
request per line on stdin and forks a fresh service for each (a two-armed switchback service
when the request has `arm_b`), answering `{"pid": …}` on stdout. Each child moves to the
measurement core and serves with its own event loop, batcher and SQLite connection. Started
and driven by `lab.service.launcher.Launcher`.
"""

import json
import os
import signal
import sys

from lab.machine.processes import die_with_parent
from lab.model import artifacts
from lab.service.app import create_app
from lab.service.serve import run_uvicorn
from lab.service.switchback import create_switchback_app


def serve_in_child(request: dict, model) -> None:
    """In the forked child: move to the measurement core, then serve until SIGTERM."""
    die_with_parent()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if request["cpu"] is not None:
        os.sched_setaffinity(0, {request["cpu"]})
    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    try:
        app = build_app(request, model)
    except ValueError as error:
        print(f"lab serve: {error}", file=sys.stderr, flush=True)
        os._exit(2)
    run_uvicorn(app, "127.0.0.1", request["port"])


def build_app(request: dict, model):
    """The plain service, or the two-armed switchback one when the request names arm B."""
    if request.get("arm_b") is None:
        return create_app(request["batcher"], request["max_batch"], request["max_wait_ms"],
                          model=model, max_records=request["max_records"])  # fmt: skip
    arm_a = {key: request[key] for key in ("batcher", "max_batch", "max_wait_ms")}
    return create_switchback_app(
        arm_a, request["arm_b"], request.get("added_work_us_b", 0.0),
        request.get("swap_routes", False), model=model,
    )  # fmt: skip


def launcher_main() -> int:
    model = artifacts.load_model()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("ready"):
            answer = {"ready": True}
        else:
            pid = os.fork()
            if pid == 0:
                try:
                    serve_in_child(request, model)
                finally:
                    os._exit(0)
            answer = {"pid": pid}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(launcher_main())
