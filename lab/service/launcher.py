"""A pre-loaded launcher of fresh services, like gunicorn's --preload.

Starting `python -m lab serve` costs about 5 s (importing scikit-learn alone is 4 s), paid
about 600 times in a full campaign. The launcher imports FastAPI, uvicorn and scikit-learn
and loads the model once, on the orchestrator's core; for each run it forks a new service
process, which moves itself to the measurement core and serves with its own event loop,
batcher and SQLite connection. Every run still meets a fresh service; only the imports are
shared. Used by the campaign runner:

    with Launcher({0}) as launcher, launcher.service(spec, cpu=1) as service:
        ... service.url, service.batches() ...

`service` is the one handle of a started service (lab/service/process.py, ServiceProcess);
what differs is its process, a ForkedProcess here.

The launcher process itself is `python -m lab.service.preload` (lab/service/preload.py,
driven over stdin/stdout); this file is the runner's side of it.
"""

import json
import os
import signal
import subprocess
import tempfile
import time

from lab import paths
from lab.errors import ServiceError
from lab.machine.processes import die_with_parent, end_piped_worker, python, single_thread_env
from lab.service.process import ServiceProcess
from lab.servicespec import ServiceSpec


class Launcher:
    """The runner's handle on the launcher process."""

    def __init__(self, cores: set[int] | None = None):
        def prepare() -> None:  # in the launcher process, before it starts Python
            die_with_parent()
            if cores:
                os.sched_setaffinity(0, cores)  # the orchestrator's cores, not the measured one

        self.process = subprocess.Popen(
            [python(), "-m", "lab.service.preload"], cwd=paths.REPO, env=single_thread_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, preexec_fn=prepare,
        )  # fmt: skip
        self.ask({"ready": True})

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise ServiceError(f"the launcher exited (code {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise ServiceError(f"the launcher could not start a service: {answer['error']}")
        return answer

    def service(self, spec: ServiceSpec = ServiceSpec(), cpu=None, **options):  # noqa: B008
        """A service this launcher forks when it starts (`start()` or `with`)."""
        return ServiceProcess(spec, cpu=cpu, launcher=self, **options)

    def fork(self, spec: ServiceSpec, port: int, cpu: int | None) -> "ForkedProcess":
        """Fork a service for `spec` on `port`, moved to `cpu`; not yet answering."""
        handle, log_path = tempfile.mkstemp(prefix="lab-service-", suffix=".log")
        os.close(handle)
        try:
            request = {"spec": spec.to_json(), "port": port, "cpu": cpu, "log": log_path}
            pid = self.ask(request)["pid"]
        except BaseException:
            os.unlink(log_path)
            raise
        return ForkedProcess(pid, log_path)

    def close(self) -> None:
        end_piped_worker(self.process)

    def __enter__(self) -> "Launcher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ForkedProcess:
    """A service process the launcher forked: the launcher, not we, is its parent, so its
    exit code is not ours to read (its output says what happened); we watch it in /proc."""

    def __init__(self, pid: int, log_path: str):
        self.pid = pid
        self.log_path: str | None = log_path

    def ended(self) -> str | None:
        """None while the process runs, else how it ended, for an error message."""
        return None if self._running() else "exited (its exit code is the launcher's to read)"

    def _running(self) -> bool:
        return os.path.exists(f"/proc/{self.pid}") and not self._zombie()

    def _zombie(self) -> bool:
        try:
            with open(f"/proc/{self.pid}/stat") as handle:
                return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return False

    def _wait_until_reaped(self, timeout: float = 5.0) -> None:
        """A zombie is still exiting (its threads, its memory): the next run must not share
        the core with it, so wait until the launcher's automatic reaping has removed it."""
        deadline = time.monotonic() + timeout
        while os.path.exists(f"/proc/{self.pid}") and time.monotonic() < deadline:
            time.sleep(0.005)

    def output(self) -> str:
        """What the service printed so far (stdout and stderr)."""
        if self.log_path is None:
            return ""
        try:
            with open(self.log_path, errors="replace") as handle:
                return handle.read()
        except OSError:
            return ""

    def stop(self, timeout: float) -> None:
        """SIGTERM, then SIGKILL after `timeout` seconds; waits until it is reaped. Returns
        None: the exit code is the launcher's."""
        if self._running():
            os.kill(self.pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while self._running() and time.monotonic() < deadline:
                time.sleep(0.02)
            if self._running():
                os.kill(self.pid, signal.SIGKILL)
                while self._running():
                    time.sleep(0.02)
        self._wait_until_reaped()
        if self.log_path:
            os.unlink(self.log_path)
            self.log_path = None
