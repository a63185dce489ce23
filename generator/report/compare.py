"""The report's check of `comparison` (generator/arithmetic/compare.py), by the report's own code.

For every campaign compared with this one: its raw files are read again (generator/report/runs.py
`load_campaign`), every Part B cell recomputed (`part_b_cells`), and each published pair checked:
the two medians, their ratio, the keeps-up verdicts, and whether the rounds' ranges were told apart
(recounted here with plain comparisons, not generator.arithmetic.stats); then the counts (tallied
again here, as generator/arithmetic/compare.py does, so the report imports nothing of the build),
and each campaign's runs and S. The whole section is read from assets/data/comparison.json beside
results.json (results.json keeps only the facts and counts, which must match it). Called by
`python -m generator report`.
"""

import json
import math
import statistics
from pathlib import Path

from generator.report import runs

METRICS = ("p50_ms", "p99_ms", "throughput")


def with_whole(results: dict, results_path: Path) -> dict:
    """results.json with its comparison as the pages saw it: comparison.json (beside it),
    which must hold the same facts and counts as results.json's short copy."""
    short = results.get("comparison")
    if short is None:
        return results
    whole = json.loads((Path(results_path).parent / "comparison.json").read_text())
    kept = [{k: a[k] for k in ("campaign", "counts")} for a in whole["against"]]
    if whole["main"] != short["main"] or kept != short["against"]:
        raise ValueError("comparison.json and results.json's comparison disagree")
    return dict(results, comparison=whole)


def rounds_of(cell: dict, metric: str) -> list:
    return [cell["rounds"][r].get(metric) for r in sorted(cell["rounds"])]


def median_of(values: list):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None  # as runs.middle


def apart(here: list, there: list) -> str:
    """Every round of one below (above) every round of the other, never answered as +inf."""
    here = [math.inf if v is None else v for v in here]
    there = [math.inf if v is None else v for v in there]
    if here and there and max(here) < min(there):
        return "lower"
    if here and there and min(here) > max(there):
        return "higher"
    return "overlap"


def kept_up(cell: dict) -> bool:
    rounds = sorted(cell["rounds"])
    complete = len(rounds) == len(cell["scheduled"])
    return bool(rounds) and complete and all(cell["rounds"][r]["keeps_up"] for r in rounds)


def check_row(row: dict, here: dict | None, there: dict | None, check, where: str) -> None:
    check.same(f"{where} measured", row["measured"], [here is not None, there is not None])
    check.same(
        f"{where} keeps_up", row["keeps_up"], [kept_up(c) if c else None for c in (here, there)]
    )
    for metric in METRICS:
        values = [median_of(rounds_of(c, metric)) if c else None for c in (here, there)]
        for index, value in enumerate(values):
            if value is not None:
                check.same(f"{where} {metric}[{index}]", row[metric]["values"][index], value)
        if here and there:
            found = apart(rounds_of(here, metric), rounds_of(there, metric))
            check.same(f"{where} {metric} apart", row[metric]["apart"], found)
        finite = [v for v in values if v is not None and not math.isinf(v)]
        if len(finite) == 2 and finite[1]:
            check.same(f"{where} {metric} ratio", row[metric]["ratio"], finite[0] / finite[1])


def recount(rows: list) -> dict:
    both = [row for row in rows if all(row["measured"])]
    found = {"cells": len(both)}
    for metric in METRICS:
        found[metric] = {
            w: sum(r[metric]["apart"] == w for r in both) for w in ("lower", "higher", "overlap")
        }
    found["keeps_up_same"] = sum(r["keeps_up"][0] == r["keeps_up"][1] for r in both)
    found["kept_up_here_only"] = [
        [r["setting"], r["rate"]] for r in both if r["keeps_up"] == [True, False]
    ]
    found["kept_up_there_only"] = [
        [r["setting"], r["rate"]] for r in both if r["keeps_up"] == [False, True]
    ]
    return found


def check_counts(published: dict, found: dict, check, where: str) -> None:
    check.same(f"{where} (keys)", sorted(published), sorted(found))
    for key, value in found.items():
        if isinstance(value, dict):
            for word, count in value.items():
                check.same(f"{where} {key} {word}", published[key].get(word), count)
        else:
            check.same(f"{where} {key}", published[key], value)


def check(raw: Path, cells: dict, whole: dict | None, check, say) -> None:
    """`cells`: this campaign's cells as checks.check_part_b recomputed them."""
    if whole is None:
        say("no other full campaign compared with this one")
        return
    for against in whole["against"]:
        name = against["campaign"]["name"]
        data = runs.load_campaign(raw, name, {})
        theirs = runs.part_b_cells(data)
        for row in against["cells"]:
            key = (row["setting"], row["rate"])
            check_row(row, cells.get(key), theirs.get(key), check, f"comparison {name} {key}")
        check_counts(
            against["counts"], recount(against["cells"]), check, f"comparison {name} counts"
        )
        facts = against["campaign"]
        check.same(
            f"comparison {name} runs_scheduled", facts["runs_scheduled"], len(data["schedule"])
        )
        check.same(f"comparison {name} runs_found", facts["runs_found"], len(data["runs"]))
        throughputs = [
            meta["stats"]["throughput"] for _, meta, _ in runs.of_kind(data, "saturation")
        ]
        if throughputs:
            check.same(f"comparison {name} S", facts["S"], runs.middle(throughputs))
        say(f"{name}: {len(against['cells'])} cells recomputed from its raw files, all agree")
