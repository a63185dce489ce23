"""A pre-loaded launcher of fresh services, like gunicorn's --preload.

Starting `python -m lab serve` costs about 5 s (importing scikit-learn alone is 4 s), paid
about 600 times in a full campaign. The launcher imports FastAPI, uvicorn and scikit-learn
and loads the model once, on the orchestrator's core; for each run it forks a new service
process, which moves itself to the measurement core and serves with its own event loop,
batcher and SQLite connection. Every run still meets a fresh service; only the imports are
shared. Used by the campaign runner:

    with Launcher({0}) as launcher, launcher.service("queue", 32, 2.0, cpu=1) as service:
        ... service.url, service.batches() ...

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
from lab.machine.processes import die_with_parent, python, single_thread_env
from lab.service.process import ServiceProcess


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

    def service(self, batcher="none", max_batch=0, max_wait_ms=0.0, cpu=None, **options):
        return LaunchedService(self, batcher, max_batch, max_wait_ms, cpu=cpu, **options)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "Launcher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LaunchedService(ServiceProcess):
    """A ServiceProcess whose process is forked by the launcher instead of exec'd."""

    def __init__(self, launcher: Launcher, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.launcher = launcher
        self.child_pid: int | None = None
        self.log_path = None

    @property
    def pid(self) -> int | None:
        return self.child_pid

    def _launch(self) -> None:
        handle, self.log_path = tempfile.mkstemp(prefix="lab-service-", suffix=".log")
        os.close(handle)
        request = {
            "batcher": self.batcher,
            "max_batch": self.max_batch,
            "max_wait_ms": float(self.max_wait_ms),
            "port": self.port,
            "cpu": self.cpu,
            "max_records": self.max_records,
            "log": self.log_path,
            "arm_b": self.arm_b,
            "added_work_us_b": float(self.added_work_us_b),
            "swap_routes": self.swap_routes,
        }
        self.child_pid = self.launcher.ask(request)["pid"]
        self.process = self  # the base class polls self.process
        try:
            self._wait_until_healthy()
        except BaseException:
            self.stop()
            raise

    # The few Popen-like calls the base class makes on self.process (the launcher, not we,
    # is the parent, so the exit code is not ours to read: the output says what happened).
    returncode = "unknown (see the output below)"

    def poll(self) -> int | None:
        return None if os.path.exists(f"/proc/{self.child_pid}") and not self._zombie() else 0

    def _zombie(self) -> bool:
        try:
            with open(f"/proc/{self.child_pid}/stat") as handle:
                return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return False

    def _wait_until_reaped(self, timeout: float = 5.0) -> None:
        """A zombie is still exiting (its threads, its memory): the next run must not share
        the core with it, so wait until the launcher's automatic reaping has removed it."""
        deadline = time.monotonic() + timeout
        while os.path.exists(f"/proc/{self.child_pid}") and time.monotonic() < deadline:
            time.sleep(0.005)

    def stderr_text(self) -> str:
        try:
            with open(self.log_path, errors="replace") as handle:
                return handle.read()
        except (OSError, TypeError):
            return ""

    def stop(self, timeout: float = 10.0) -> int | None:
        if self.child_pid is None:
            return None
        if self.poll() is None:
            os.kill(self.child_pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while self.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            if self.poll() is None:
                os.kill(self.child_pid, signal.SIGKILL)
                while self.poll() is None:
                    time.sleep(0.02)
        self._wait_until_reaped()
        if self.log_path:
            os.unlink(self.log_path)
            self.log_path = None
        return 0
