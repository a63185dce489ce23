"""The report's own recount of every answer checked to the bit (results.json `answer_check`)
and of the machinery the Part B runs recorded (`machinery`), from the run files it read.

Not generator/arithmetic/answer_check.py or machinery.py: the answers with status 200 are counted
here from the runs' `status` column (the build takes them from the client's counts), and the
event loop a client recorded is mapped to its machinery by this module's own table. Used by
`python -m generator report` (generator/report/checks.py); the figures `answers_compared` and
`answers_differing` follow from what `check` returns (generator/report/figures.py).
"""

from collections import Counter

from lab.rawformat.names import rate_key, record_name

# The client's recorded event loop -> the machinery it came with (data/README.md, `client`).
MACHINERY_OF_LOOP = {"none": "second", "uvloop": "first", "asyncio": "first"}


def machinery_kind(loops: list) -> str:
    kinds = {MACHINERY_OF_LOOP.get(loop, "unknown") for loop in loops}
    if kinds == {"unknown"}:
        return "unknown"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def tally(values) -> dict:
    return dict(sorted(Counter(values).items()))


def recount(runs: list) -> dict:
    """Totals over the Part B runs [(schedule entry, meta, columns)], schedule order."""
    found = {"runs": len(runs), "runs_checked": 0, "runs_unchecked": 0, "answers_compared": 0,
             "answers_differing": 0, "answers_status_200": 0, "runs_differing": []}  # fmt: skip
    for _, meta, columns in runs:
        client = meta.get("client") or {}
        if "answers_compared" not in client:
            found["runs_unchecked"] += 1
            continue
        found["runs_checked"] += 1
        found["answers_compared"] += client["answers_compared"]
        found["answers_differing"] += client["answers_differing"]
        found["answers_status_200"] += int((columns["status"] == 200).sum())
        if client["answers_differing"] > 0:
            found["runs_differing"].append(
                {
                    "run_id": meta["run_id"],
                    "setting": record_name(meta["setting"]),
                    "rate_multiple": rate_key(meta["rate_multiple"]),
                    "round": meta["round"],
                    "answers_differing": client["answers_differing"],
                    "first": list(client.get("answers_differing_first") or []),
                }
            )
    return found


def machinery(info: dict, runs: list) -> dict:
    clients = [meta.get("client") or {} for _, meta, _ in runs]
    loops = [client.get("event_loop", "not recorded") for client in clients]
    return {
        "kind": machinery_kind(loops),
        "runs": len(runs),
        "event_loops": tally(loops),
        "answer_clocks": tally(c["answer_clock"] for c in clients if "answer_clock" in c),
        "campaign_commit": info.get("git_commit"),
        "run_commits": tally(meta.get("git_commit", "not recorded") for _, meta, _ in runs),
    }


def published_at(results: dict, path: tuple):
    """results.json's value at a path of keys and list indexes (None when there is none)."""
    value = results
    for key in path:
        in_list = isinstance(value, list) and isinstance(key, int) and key < len(value)
        if not (in_list or (isinstance(value, dict) and key in value)):
            return None
        value = value[key]
    return value


def compare(checker, results: dict, path: tuple, mine) -> None:
    """Every value recomputed against results.json at `path`, down to each number: a dict
    must have the same keys (nothing published that was not recomputed), a list of records
    the same length."""
    published, where = published_at(results, path), "/".join(map(str, path))
    if isinstance(mine, dict):
        keys = sorted(published) if isinstance(published, dict) else published
        checker.same(f"{where} (its keys)", keys, sorted(mine))
        for key, value in mine.items():
            compare(checker, results, (*path, key), value)
    elif isinstance(mine, list) and any(isinstance(item, dict | list) for item in mine):
        size = len(published) if isinstance(published, list) else published
        checker.same(f"{where} (its length)", size, len(mine))
        for index, value in enumerate(mine):
            compare(checker, results, (*path, index), value)
    else:
        checker.dig(results, path, mine)


def check(runs: list, info: dict, results: dict, checker, say) -> dict:
    """Recount both sections from the Part B runs; returns the answer totals for the figures
    (empty when the campaign has no Part B run)."""
    if not runs:
        published = ["answer_check" in results, "machinery" in results]
        checker.same("answer_check and machinery published", published, [False, False])
        say("no Part B runs")
        return {}
    found, ran_with = recount(runs), machinery(info, runs)
    compare(checker, results, ("answer_check",), found)
    compare(checker, results, ("machinery",), ran_with)
    if found["runs_checked"]:
        say(
            f"{found['answers_compared']:,} answers compared with the single-row score in "
            f"{found['runs_checked']} runs ({found['answers_status_200']:,} with status 200), "
            f"{found['answers_differing']:,} differed; {found['runs_unchecked']} runs without "
            "the check"
        )
    else:
        say(f"none of the {found['runs']} Part B runs checked its answers (older client)")
    say(f"machinery: {ran_with['kind']} (client event loops {ran_with['event_loops']})")
    return found
