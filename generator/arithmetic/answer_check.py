"""Every answer checked to the bit, totalled over a campaign's Part B runs (results.json
`answer_check`).

The open-loop client compares each answer with status 200 with the single-row score of its
customer, to the bit, and records in the run's `client` meta `answers_compared`,
`answers_differing` and `answers_differing_first` (data/README.md, the `client` section).
Older clients did not: their runs carry no such key and count as runs without the check;
nothing is filled in for them. Run through `python -m generator build`
(generator/arithmetic/results.py hands over the Part B runs' files, metas and status-200 answers);
the report recomputes it (generator/report/answers.py).
"""

from generator.reading.load import DataError
from lab.rawformat.names import rate_key, record_name

CHECK_KEYS = ("answers_compared", "answers_differing")


def checked(client: dict, where) -> bool:
    """Whether a run's client record carries the check (both counts, as integers)."""
    present = [key for key in CHECK_KEYS if key in client]
    if not present:
        return False
    for key in CHECK_KEYS:
        if not isinstance(client.get(key), int) or isinstance(client.get(key), bool):
            raise DataError(f"{where}: field 'client.{key}' must be a whole number")
    return True


def differing_run(meta: dict, client: dict) -> dict:
    return {
        "run_id": meta["run_id"],
        "setting": record_name(meta["setting"]),
        "rate_multiple": rate_key(meta["rate_multiple"]),
        "round": int(meta["round"]),
        "answers_differing": client["answers_differing"],
        "first": list(client.get("answers_differing_first") or []),
    }


def section(metas: list[tuple]) -> dict | None:
    """The totals over the Part B runs' (path, meta, answers with status 200 in its columns)
    in schedule order; None without Part B runs."""
    if not metas:
        return None
    found = {
        "runs": len(metas),
        "runs_checked": 0,
        "runs_unchecked": 0,
        "answers_compared": 0,
        "answers_differing": 0,
        "answers_status_200": 0,
        "runs_differing": [],
    }
    for where, meta, status_200 in metas:
        client = meta.get("client") or {}
        if not checked(client, where):
            found["runs_unchecked"] += 1
            continue
        found["runs_checked"] += 1
        found["answers_compared"] += client["answers_compared"]
        found["answers_differing"] += client["answers_differing"]
        found["answers_status_200"] += status_200
        if client["answers_differing"]:
            found["runs_differing"].append(differing_run(meta, client))
    return found
