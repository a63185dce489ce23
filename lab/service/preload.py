"""The pre-loaded launcher process, like gunicorn's --preload: `python -m lab.service.preload`.

It imports FastAPI, uvicorn and scikit-learn and loads the model once, then reads one JSON
request per line on stdin, `{"spec": ServiceSpec.to_json(), "port", "cpu", "log"}`, and forks
a fresh service for each (the app `python -m lab serve` builds for that spec: a two-armed
switchback service when it has an arm B), answering `{"pid": …}` on stdout. Each child moves
to the measurement core and serves with its own event loop, batcher and SQLite connection.
Started and driven by `lab.service.launcher.Launcher`.
"""

import json
import os
import signal
import sys

from lab.machine.processes import die_with_parent
from lab.model import artifacts
from lab.service.serve import build_app, run_uvicorn
from lab.servicespec import ServiceSpec


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
        app = build_app(ServiceSpec.from_json(request["spec"]), model)
    except ValueError as error:
        print(f"lab serve: {error}", file=sys.stderr, flush=True)
        os._exit(2)
    run_uvicorn(app, "127.0.0.1", request["port"])


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
