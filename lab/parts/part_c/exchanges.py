"""Part C's requests on one kept-alive connection, one after another: each answer sends the
next from inside the response callback, so no event-loop round sits between calls. Used by
Part C's client and breakdown (lab/parts/part_c/client.py, breakdown.py).
"""

import asyncio
import gc

from lab.load import httpclient

HOST = "127.0.0.1"


class Exchanges:
    """Pre-built requests sent one after another on one connection; each answer sends the
    next from inside the response callback, so no event-loop round sits between calls."""

    def __init__(self, connection: httpclient.Connection, requests: list[bytes]):
        count = len(requests)
        self.connection = connection
        self.requests = requests
        self.sent_ns = [0] * count
        self.done_ns = [0] * count
        self.status = [0] * count
        self.timing = [b""] * count
        self.body = [b""] * count
        self.finished = asyncio.get_running_loop().create_future()

    def start(self) -> None:
        self.connection.on_response = self.on_response
        self.connection.on_failure = self.on_failure
        if self.requests:
            self.connection.send(self.requests[0], 0)
        else:
            self.finished.set_result(None)

    def on_response(self, connection, done_ns, status, timing, body) -> None:
        index = connection.tag
        self.sent_ns[index] = connection.sent_ns
        self.done_ns[index] = done_ns
        self.status[index] = status
        self.timing[index] = timing
        self.body[index] = body
        if index + 1 < len(self.requests):
            connection.send(self.requests[index + 1], index + 1)
        elif not self.finished.done():
            self.finished.set_result(None)

    def on_failure(self, error: Exception) -> None:
        if not self.finished.done():
            self.finished.set_exception(error)


async def exchange_all(connection: httpclient.Connection, requests: list[bytes]) -> Exchanges:
    """Send every request in turn; the collector is off so no pause lands inside a method."""
    exchanges = Exchanges(connection, requests)
    gc.collect()
    gc.disable()
    try:
        exchanges.start()
        await exchanges.finished
    finally:
        gc.enable()
    return exchanges


async def open_one(port: int) -> httpclient.Connection:
    def not_yet(*_):
        raise httpclient.BadResponse("an answer arrived before any request was sent")

    connection = (await httpclient.open_connections(HOST, port, 1, not_yet, not_yet))[0]
    await httpclient.check_connections([connection], HOST, port)
    return connection
