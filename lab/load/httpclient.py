"""A minimal, fast HTTP/1.1 keep-alive client for the load generators (BRIEF §6).

The client shares one core with the service it measures, so its own cost per request must
be small and the same in every setting: requests are pre-built bytes, each connection is a
raw `asyncio.Protocol` on uvloop (when installed) with at most one request outstanding, and
a response is cut out of the byte stream with a few `bytes.find` calls. Server-Timing
values are kept as raw bytes during a run and parsed afterwards
(`lab.service.server_timing.server_timing_moments`).

A connection closed or reset by the service, or bytes the client cannot read, raise a
clear error (`PeerClosed`, `BadResponse`): the load generators fail loudly rather than lose
requests. (The arrivals' precise timer is lab/load/timer.py.)

Used by lab/load/openloop.py (`python -m lab openloop`), lab/load/closedloop.py
(`python -m lab saturate`) and Part C's client (`python -m lab partc-client`); tested
through them in tests/test_openloop.py, tests/test_closedloop.py and tests/test_part_c.py.
"""

import asyncio
import re
import resource
import time
from collections.abc import Callable

try:
    import uvloop
except ImportError:  # the client still works on the standard loop, only slower
    uvloop = None

HEAD_END = b"\r\n\r\n"
CONTENT_LENGTH = b"\r\ncontent-length:"
SERVER_TIMING = b"\r\nserver-timing:"
# A response head larger than this is not one the lab's service sends.
MAX_HEAD_BYTES = 16_384
CONNECT_BATCH = 128  # connections opened at once, so the service's accept loop keeps up


class PeerClosed(Exception):
    """The service closed or reset a kept-alive connection under the client."""


class BadResponse(Exception):
    """The service sent bytes the client cannot read as one HTTP/1.1 response."""


def event_loop_name() -> str:
    return "uvloop" if uvloop is not None else "asyncio"


def run(coroutine):
    """Run a coroutine on a fresh uvloop event loop (the standard loop without uvloop)."""
    factory = uvloop.new_event_loop if uvloop is not None else None
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(coroutine)


# ---------------------------------------------------------------- requests, built up front


def post_request(host: str, port: int, path: str, body: bytes) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def get_request(host: str, port: int, path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()


def predict_requests(host: str, port: int, customer_ids, paths=None) -> list[bytes]:
    """One ready-to-send `POST /predict` per customer id, in order; `paths[i]`, when given,
    is request i's path instead (a switchback run's `/arm/a/predict` or `/arm/b/predict`)."""
    heads = {}
    built = []
    for index, customer_id in enumerate(customer_ids):
        path = "/predict" if paths is None else paths[index]
        if path not in heads:
            heads[path] = (
                f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            ).encode()
        body = b'{"customer_id": %d}' % int(customer_id)
        built.append(b"%sContent-Length: %d\r\n\r\n%s" % (heads[path], len(body), body))
    return built


# ---------------------------------------------------------------- one response, cut out of bytes


def read_response(data: bytes) -> tuple[int, bytes, bytes] | None:
    """(status, lower-cased Server-Timing value, body) of the one HTTP/1.1 response that
    `data` holds, None while it is incomplete; BadResponse for bytes that are not one
    response with a Content-Length, or that run beyond it (the clients never pipeline)."""
    head_end = data.find(HEAD_END)
    if head_end < 0:
        return None
    head = data[:head_end].lower()
    at = head.find(CONTENT_LENGTH)
    if at < 0 or not head.startswith(b"http/1."):
        raise BadResponse(f"response without Content-Length or status line: {bytes(data[:200])!r}")
    line_end = head.find(b"\r\n", at + len(CONTENT_LENGTH))
    length = int(head[at + len(CONTENT_LENGTH) : line_end if line_end >= 0 else head_end])
    total = head_end + 4 + length
    if len(data) < total:
        return None
    if len(data) > total:
        raise BadResponse(
            f"{len(data) - total} bytes beyond the answer (the client never pipelines)"
        )
    at = head.find(SERVER_TIMING)
    if at < 0:
        timing = b""
    else:
        line_end = head.find(b"\r\n", at + len(SERVER_TIMING))
        timing = head[at + len(SERVER_TIMING) : line_end if line_end >= 0 else head_end]
    return int(data[9:12]), timing, data[head_end + 4 :]


CONTENT_LENGTH_LINE = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)


def response_length(data: bytes) -> int | None:
    """The whole length of the one HTTP/1.1 response that `data` starts, None while its head
    has not ended; BadResponse for a head without Content-Length. Cheaper than
    `read_response` (one search in C): the open-loop client calls it inside the window."""
    head_end = data.find(HEAD_END)
    if head_end < 0:
        return None
    length = CONTENT_LENGTH_LINE.search(data, 0, head_end + 2)
    if length is None:
        raise BadResponse(f"response without Content-Length: {bytes(data[:200])!r}")
    return head_end + 4 + int(length.group(1))


def head_ended(data: bytes) -> bool:
    """Whether the response head in `data` has ended within the largest head the lab reads."""
    return data.find(HEAD_END, 0, MAX_HEAD_BYTES + len(HEAD_END)) >= 0


# ---------------------------------------------------------------- one kept-alive connection

# on_response(connection, done_ns, status, server_timing_bytes, body_bytes)
ResponseCallback = Callable[["Connection", int, int, bytes, bytes], None]
FailureCallback = Callable[[Exception], None]


class Connection(asyncio.Protocol):
    """One kept-alive connection with at most one request outstanding (no pipelining).

    `tag` and `sent_ns` belong to the caller: it sets them when it sends, reads them back in
    `on_response`. Every failure goes to `on_failure` once; closing it ourselves is silent.
    """

    def __init__(
        self, index: int, peer: str, on_response: ResponseCallback, on_failure: FailureCallback
    ):
        self.index = index
        self.peer = peer
        self.on_response = on_response
        self.on_failure = on_failure
        self.transport = None
        self.buffer = b""
        self.busy = False
        self.closing = False
        self.tag = -1
        self.sent_ns = 0

    def connection_made(self, transport):
        self.transport = transport

    def send(self, request: bytes, tag: int) -> None:
        self.busy = True
        self.tag = tag
        self.sent_ns = time.monotonic_ns()
        self.transport.write(request)

    def close(self) -> None:
        self.closing = True
        if self.transport is not None:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        done_ns = time.monotonic_ns()  # when the last piece of the answer came in
        if self.buffer:
            data = self.buffer + data
            self.buffer = b""
        if not self.busy:
            self._fail(
                BadResponse(
                    f"{self._where()}: {len(data)} bytes arrived with no request outstanding"
                )
            )
            return
        try:
            answer = read_response(data)
        except BadResponse as bad:
            self._fail(BadResponse(f"{self._where()}: {bad}"))
            return
        if answer is None:
            self._keep_partial(data)
            return
        status, timing, body = answer
        self.busy = False
        self.on_response(self, done_ns, status, timing, body)

    def _keep_partial(self, data: bytes) -> None:
        # Only a head that has not ended is bounded: a large body (Part C's full profile sends
        # answers of hundreds of kilobytes) arrives in many pieces after a short head.
        if len(data) > MAX_HEAD_BYTES and not head_ended(data):
            self._fail(BadResponse(f"{self._where()}: no end of headers in {len(data)} bytes"))
        else:
            self.buffer = data

    def eof_received(self):
        return False  # let the transport close; connection_lost reports it

    def connection_lost(self, exc) -> None:
        if self.closing:
            return
        how = f"reset ({exc})" if exc is not None else "closed"
        state = (
            f"with request {self.tag} outstanding" if self.busy else "while idle between requests"
        )
        self._fail(PeerClosed(f"{self._where()} was {how} by the service {state}"))

    def _fail(self, error: Exception) -> None:
        self.closing = True
        if self.transport is not None:
            self.transport.close()
        self.on_failure(error)

    def _where(self) -> str:
        return f"connection {self.index} to {self.peer}"


async def open_connections(
    host: str, port: int, count: int, on_response: ResponseCallback, on_failure: FailureCallback
) -> list[Connection]:
    """Open `count` kept-alive connections (TCP_NODELAY is set by the event loop)."""
    loop = asyncio.get_running_loop()
    peer = f"{host}:{port}"
    opened: list[Connection] = []
    for first in range(0, count, CONNECT_BATCH):
        batch = range(first, min(first + CONNECT_BATCH, count))
        pairs = await asyncio.gather(
            *(
                loop.create_connection(
                    lambda index=index: Connection(index, peer, on_response, on_failure), host, port
                )
                for index in batch
            )
        )
        opened.extend(protocol for _, protocol in pairs)
    return opened


async def check_connections(
    connections: list[Connection], host: str, port: int, timeout_s: float = 30.0
) -> None:
    """One `GET /health` on every connection, so the service has accepted them all before
    the measured window starts (a connected socket may still sit in the listen backlog)."""
    loop = asyncio.get_running_loop()
    waiting = {id(connection) for connection in connections}
    all_answered = loop.create_future()

    def answered(connection, done_ns, status, timing, body):
        if status != 200 and not all_answered.done():
            all_answered.set_exception(BadResponse(f"GET /health answered {status}"))
        waiting.discard(id(connection))
        if not waiting and not all_answered.done():
            all_answered.set_result(None)

    def failed(error):
        if not all_answered.done():
            all_answered.set_exception(error)

    saved = [(connection.on_response, connection.on_failure) for connection in connections]
    request = get_request(host, port, "/health")
    for connection in connections:
        connection.on_response, connection.on_failure = answered, failed
        connection.send(request, -1)
    try:
        await asyncio.wait_for(all_answered, timeout_s)
    finally:
        for connection, (on_response, on_failure) in zip(connections, saved, strict=True):
            connection.on_response, connection.on_failure = on_response, on_failure


def close_all(connections: list[Connection]) -> None:
    for connection in connections:
        connection.close()


def raise_open_files_limit(wanted: int) -> None:
    """Allow at least `wanted` open files if the hard limit permits (one per connection)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
