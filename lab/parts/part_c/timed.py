"""One of Part C's methods, timed and then decoded: `time_method` sends its pre-built
requests in turn and keeps when each went and came back; `decode` reads the scores after.
"""

import dataclasses
import time

import numpy as np

from lab.parts.part_c.exchanges import Exchanges, exchange_all
from lab.parts.part_c.methods import LOOP, method_requests
from lab.parts.part_c.scores import batch_scores, loop_scores


@dataclasses.dataclass
class Timed:
    """One method's calls as sent and answered, plus what the client spent around them."""

    chunk: int
    exchanges: Exchanges
    encode_ns: int
    decode_ns: int = 0
    scores: np.ndarray | None = None
    errors: int = 0

    @property
    def wall_ns(self) -> int:
        return self.exchanges.done_ns[-1] - self.exchanges.sent_ns[0]


async def time_method(connection, port: int, customer_ids, chunk: int) -> Timed:
    started = time.perf_counter_ns()
    requests = method_requests(port, customer_ids, chunk)
    encode_ns = time.perf_counter_ns() - started
    return Timed(chunk, await exchange_all(connection, requests), encode_ns)


def decode(timed: Timed, customer_ids) -> None:
    started = time.perf_counter_ns()
    if timed.chunk == LOOP:
        timed.scores = loop_scores(timed.exchanges.body, customer_ids)
    else:
        timed.scores = batch_scores(timed.exchanges.body, customer_ids, timed.chunk)
    timed.decode_ns = time.perf_counter_ns() - started
    timed.errors = int(np.isnan(timed.scores).sum())
