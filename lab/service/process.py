"""Run the prediction service as a real process: `python -m lab serve …` on a free port.

    with ServiceProcess("queue", max_batch=32, max_wait_ms=2.0, cpu=1) as service:
        ... send requests to service.url ...
        sizes = service.batches()["size"]

    with ServiceProcess("none", arm_b={"batcher": "queue", "max_batch": 1}) as service:
        ... two arms in one process (a switchback run): /arm/a/predict, /arm/b/predict;
        service.batches("b") ...

Used by the test suite, the load-client tests and the campaign runner. It pins the service
with `taskset` when given a cpu, runs it with one BLAS/OpenMP thread, waits until /health
answers, and always reaps the process. HTTP calls use only the stdlib (http.client).
"""

import http.client
import json
import signal
import socket
import subprocess
import tempfile
import time

from lab import paths
from lab.errors import ServiceError
from lab.machine.processes import pin_command, python, single_thread_env
from lab.service.arms import arm_path, route_of_arms


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def get_json(host: str, port: int, path: str, timeout: float = 10.0) -> tuple[int, dict | None]:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        return response.status, json.loads(body) if body else None
    finally:
        connection.close()


class ServiceProcess:
    """The service in its own process; a context manager that starts and stops it."""

    host = "127.0.0.1"

    def __init__(
        self,
        batcher: str = "none",
        max_batch: int = 0,
        max_wait_ms: float = 0.0,
        cpu: int | None = None,
        port: int | None = None,
        max_records: int = 10_000,
        extra_env: dict | None = None,
        startup_timeout: float = 120.0,
        cwd=None,
        arm_b: dict | None = None,
        added_work_us_b: float = 0.0,
        swap_routes: bool = False,
    ):
        """`cwd`: the checkout whose `python -m lab serve` runs (default: this one). `arm_b`
        (a setting record {batcher, max_batch, max_wait_ms}): serve two arms, A with the
        setting above and B with this one (lab/service/switchback.py); `added_work_us_b` is
        for the calibration check only (its known-effect runs); `swap_routes` crosses the
        two arms' routes (route a serves arm B)."""
        self.batcher = batcher
        self.max_batch = max_batch
        self.max_wait_ms = max_wait_ms
        self.cpu = cpu
        self.port_given = port is not None
        self.port = port or free_port(self.host)
        self.max_records = max_records
        self.extra_env = extra_env
        self.startup_timeout = startup_timeout
        self.cwd = cwd or paths.REPO
        self.arm_b = arm_b
        self.added_work_us_b = added_work_us_b
        self.swap_routes = swap_routes
        self.process: subprocess.Popen | None = None
        self._stderr = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def command(self) -> list[str]:
        serve = [
            python(), "-m", "lab", "serve",
            "--batcher", self.batcher,
            "--max-batch", str(self.max_batch),
            "--max-wait-ms", repr(float(self.max_wait_ms)),
            "--host", self.host,
            "--port", str(self.port),
            "--max-records", str(self.max_records),
        ]  # fmt: skip
        if self.arm_b is not None:
            serve += [
                "--arm-b-batcher", self.arm_b["batcher"],
                "--arm-b-max-batch", str(self.arm_b.get("max_batch") or 0),
                "--arm-b-max-wait-ms", repr(float(self.arm_b.get("max_wait_ms") or 0.0)),
                "--added-work-us-b", repr(float(self.added_work_us_b)),
            ] + (["--swap-routes"] if self.swap_routes else [])  # fmt: skip
        return pin_command(self.cpu, serve)

    def start(self) -> "ServiceProcess":
        if self.process is not None:
            raise ServiceError("this service is already started")
        try:
            self._launch()
        except ServiceError as error:
            # Another process may have taken the port we picked: pick again, once.
            if self.port_given or "address already in use" not in str(error).lower():
                raise
            self.process, self.port = None, free_port(self.host)
            self._launch()
        return self

    def _launch(self) -> None:
        # A file, not a pipe: a chatty service must never block on a full pipe.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop)
        self.process = subprocess.Popen(
            self.command(),
            cwd=self.cwd,
            env=single_thread_env(self.extra_env),
            stdin=subprocess.DEVNULL,
            stdout=self._stderr,
            stderr=self._stderr,
        )
        try:
            self._wait_until_healthy()
        except BaseException:
            self.stop()
            raise

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.process.poll() is not None:
                raise ServiceError(
                    f"the service exited with code {self.process.returncode} before answering "
                    f"/health:\n{self.stderr_text()}"
                )
            try:
                status, _ = get_json(self.host, self.port, "/health", timeout=2.0)
                if status == 200:
                    return
            except (OSError, http.client.HTTPException, ValueError):
                pass
            if time.monotonic() > deadline:
                raise ServiceError(
                    f"the service did not answer /health on port {self.port} within "
                    f"{self.startup_timeout:g} s:\n{self.stderr_text()}"
                )
            time.sleep(0.05)

    def stderr_text(self) -> str:
        """What the service printed so far (stdout and stderr)."""
        if self._stderr is None or self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def health(self) -> dict:
        return self._get("/health")

    def batches(self, arm: str | None = None) -> dict:
        """The micro-batcher's batches: {"size": [...], "first_wait_us": [...], "batches_made":
        n, "rows_scored": n, "records_dropped": n} (see lab.service, GET /batches); of arm
        `a` or `b` of a two-armed service (GET /arm/<route>/batches, the route serving that
        arm)."""
        if arm is None:
            return self._get("/batches")
        return self._get(arm_path(route_of_arms(self.swap_routes)[arm], "batches"))

    def _get(self, path: str) -> dict:
        status, found = get_json(self.host, self.port, path)
        if status != 200:
            raise ServiceError(f"GET {path} answered {status}: {found}")
        return found

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout` seconds; always reaps. Returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode
        if self._stderr is not None:
            self._stderr.close()
        return code

    def __enter__(self) -> "ServiceProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
