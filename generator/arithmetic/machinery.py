"""Which batching machinery a campaign's Part B ran with (results.json `machinery`), from what
its runs recorded, never from the lab's code of today.

The lab has had two: the **first** (a batcher task woken by an event for every batch, W timed
by the event loop's `call_later`, an open-loop client on an event loop) and the **second**
(issue 14: no task or event per batch, W on a timerfd, a one-thread open-loop client with no
event loop, timed by the kernel's receive timestamps). Both changed in the same merge, and the
client says which it was: its `event_loop` is `uvloop` or `asyncio` in the first, `none` in the
second (data/README.md, the `client` section). The benchmarks' versions are named the same
way (generator/arithmetic/bench_files.py). Run through `python -m generator build`; the report
recomputes it (generator/report/answers.py).
"""

from collections import Counter

FIRST, SECOND, MIXED, UNKNOWN = "first", "second", "mixed", "unknown"
FIRST_LOOPS = ("uvloop", "asyncio")


def kind_of(event_loop) -> str:
    """The machinery a client's recorded `event_loop` belongs to."""
    if event_loop == "none":
        return SECOND
    return FIRST if event_loop in FIRST_LOOPS else UNKNOWN


def overall(kinds: list[str]) -> str:
    """One machinery for many runs: theirs when they agree, else mixed (unknown if none)."""
    known = set(kinds) - {UNKNOWN}
    if not known:
        return UNKNOWN
    return known.pop() if len(known) == 1 and UNKNOWN not in kinds else MIXED


def counts(values) -> dict:
    return dict(sorted(Counter(values).items()))


def section(info: dict, metas: list[tuple]) -> dict | None:
    """From campaign.json and the Part B runs' (path, meta, …); None without Part B runs."""
    if not metas:
        return None
    clients = [meta.get("client") or {} for _, meta, *_ in metas]
    loops = [client.get("event_loop", "not recorded") for client in clients]
    return {
        "kind": overall([kind_of(loop) for loop in loops]),
        "runs": len(metas),
        "event_loops": counts(loops),
        "answer_clocks": counts(c["answer_clock"] for c in clients if "answer_clock" in c),
        "campaign_commit": info.get("git_commit"),
        "run_commits": counts(meta.get("git_commit", "not recorded") for _, meta, *_ in metas),
    }
