"""A service on a free port, as a real process: the one handle for a started service,
whether its process was exec'd here (`python -m lab serve …`) or forked by the pre-loaded
launcher (lab/service/launcher.py).

    with ServiceProcess(ServiceSpec(Setting("queue", 32, 2.0)), cpu=1) as service:
        ... send requests to service.url ...
        sizes = service.batches()["size"]

    with ServiceProcess(ServiceSpec(NONE, arm_b=QUEUE_B1)) as service:
        ... two arms in one process (a switchback run): /arm/a/predict, /arm/b/predict;
        service.batches("b") ...

Used by the test suite, the load-client tests and the campaign runner. An exec'd service is
pinned with `taskset` when given a cpu and runs with one BLAS/OpenMP thread; either way the
handle waits until /health answers and always stops the process. HTTP calls use only the
stdlib (http.client).
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
from lab.servicespec import ServiceSpec


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


class ExecdProcess:
    """`python -m lab serve …` exec'd as this process's own child: its exit code is ours."""

    def __init__(self, command: list[str], cwd, env: dict):
        # A file, not a pipe: a chatty service must never block on a full pipe.
        self.output_file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop)
        self.popen = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=self.output_file, stderr=self.output_file,
        )  # fmt: skip

    @property
    def pid(self) -> int:
        return self.popen.pid

    def ended(self) -> str | None:
        """None while the process runs, else how it ended, for an error message."""
        code = self.popen.poll()
        return None if code is None else f"exited with code {code}"

    def output(self) -> str:
        """What the service printed so far (stdout and stderr)."""
        if self.output_file.closed:
            return ""
        self.output_file.seek(0)
        return self.output_file.read().decode(errors="replace")

    def stop(self, timeout: float) -> int | None:
        """SIGTERM, then SIGKILL after `timeout` seconds; always reaps. Returns the exit code."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self.output_file.close()
        return self.popen.returncode


class ServiceProcess:
    """A service in its own process; a context manager that starts and stops it. Exec'd
    here unless `launcher` (lab/service/launcher.py) is given, which forks it instead."""

    host = "127.0.0.1"

    def __init__(
        self,
        spec: ServiceSpec = ServiceSpec(),  # noqa: B008 (frozen: one shared default is safe)
        cpu: int | None = None,
        port: int | None = None,
        extra_env: dict | None = None,
        startup_timeout: float = 120.0,
        cwd=None,
        launcher=None,
    ):
        """`cwd`: the checkout whose `python -m lab serve` runs (default: this one);
        `extra_env` is for that process too. `launcher`: a started Launcher to fork the
        service from instead."""
        self.spec = spec
        self.cpu = cpu
        self.port_given = port is not None
        self.port = port or free_port(self.host)
        self.extra_env = extra_env
        self.startup_timeout = startup_timeout
        self.cwd = cwd or paths.REPO
        self.launcher = launcher
        self.process = None  # an ExecdProcess or the launcher's ForkedProcess, once started

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def command(self) -> list[str]:
        """The exec'd service's command line."""
        serve = [python(), "-m", "lab", "serve", *self.spec.arguments(),
                 "--host", self.host, "--port", str(self.port)]  # fmt: skip
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
        if self.launcher is not None:
            self.process = self.launcher.fork(self.spec, self.port, self.cpu)
        else:
            env = single_thread_env(self.extra_env)
            self.process = ExecdProcess(self.command(), self.cwd, env)
        try:
            self._wait_until_healthy()
        except BaseException:
            self.stop()
            raise

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while True:
            ended = self.process.ended()
            if ended is not None:
                raise ServiceError(
                    f"the service {ended} before answering /health:\n{self.stderr_text()}"
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
        return self.process.output() if self.process is not None else ""

    def health(self) -> dict:
        return self._get("/health")

    def batches(self, arm: str | None = None) -> dict:
        """The micro-batcher's batches: {"size": [...], "first_wait_us": [...], "batches_made":
        n, "rows_scored": n, "records_dropped": n} (see lab.service, GET /batches); of arm
        `a` or `b` of a two-armed service (GET /arm/<route>/batches, the route serving that
        arm: the other one when the spec swaps the routes)."""
        if arm is None:
            return self._get("/batches")
        return self._get(arm_path(route_of_arms(self.spec.swap_routes)[arm], "batches"))

    def _get(self, path: str) -> dict:
        status, found = get_json(self.host, self.port, path)
        if status != 200:
            raise ServiceError(f"GET {path} answered {status}: {found}")
        return found

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout` seconds; always reaps. Returns the exit code
        when this process is its parent (exec'd), else None."""
        if self.process is None:
            return None
        return self.process.stop(timeout)

    def __enter__(self) -> "ServiceProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
