"""Full campaigns side by side, cell by cell (results.json `comparison`; issue 15).

The campaign the site shows against every other complete full campaign committed: for every
Part B setting and rate, p50, p99, throughput and keeps-up in both, their ratio, and whether
the two campaigns' rounds were told apart (stats.ranges_apart: rounds of different campaigns
are not paired, so only ranges that do not overlap count); each campaign's facts (S, the
slow-run rule's re-runs, answers checked to the bit, its machinery, its guesses' score); and
every headline figure of the other campaign, to put beside this one's, and its guesses with
their verdicts (the guesses page sets the first campaign's beside this one's). The page
(site_src/pages/campaigns.md.j2) adds the original box with ref(). Nothing is measured here:
each side is that campaign's own results (generator/arithmetic/results.py), built by
`python -m generator build`.
"""

from generator.arithmetic import stats
from generator.reading.description import ROUNDS_RULE

CELL_METRICS = ("p50_ms", "p99_ms", "throughput")
APART = ("lower", "higher", "overlap")


def facts(result: dict) -> dict:
    """What a reader needs to know about one campaign before comparing its cells."""
    campaign = result["campaign"]
    probe = result.get("speed_probe") or {}
    checked = result.get("answer_check") or {}
    verdicts = [guess["verdict"] for guess in result.get("guesses", [])]
    footprint = result.get("footprint") or {}
    design = result.get("design", {})
    return {
        "name": campaign["name"],
        "rounds": design.get("rounds"),
        "window_s": design.get("window_s"),
        "switchback_runs": (result.get("switchback") or {}).get("runs", 0),
        "wall_minutes": footprint.get("wall_minutes"),
        "raw_mib": footprint.get("raw_mib"),
        "started_at": campaign.get("started_at"),
        "git_commit": campaign.get("git_commit"),
        "rule": (design.get("told_apart") or {}).get("rule", ROUNDS_RULE),
        "runs_scheduled": campaign["runs_scheduled"],
        "runs_found": campaign["runs_found"],
        "S": result.get("figures", {}).get("S", {}).get("value"),
        "machinery": (result.get("machinery") or {}).get("kind"),
        "speed_probe": bool(probe),
        "runs_rerun": probe.get("runs_rerun"),
        "reruns": probe.get("reruns"),
        "never_passed": len(probe["never_passed"]) if probe else None,
        "answers_compared": checked.get("answers_compared"),
        "answers_differing": checked.get("answers_differing"),
        "runs_unchecked": checked.get("runs_unchecked"),
        "guesses": len(verdicts),
        "guesses_dated": sorted(
            {g.get("date") for g in result.get("guesses", []) if g.get("date")}
        ),
        "right": verdicts.count("right"),
        "wrong": verdicts.count("wrong"),
        "not_resolved": verdicts.count("not resolved"),
        "not_testable": verdicts.count("not testable"),
    }


def cell_of(result: dict, setting: str, rate_key: str) -> dict | None:
    return result["part_b"]["settings"].get(setting, {}).get("rates", {}).get(rate_key)


def metric_pair(cell: dict | None, other: dict | None, metric: str) -> dict:
    """One metric of one cell in both campaigns (None: never answered, or not measured)."""
    values = [cell.get(metric) if cell else None, other.get(metric) if other else None]
    apart = "overlap"
    if cell and other:
        apart = stats.ranges_apart(
            cell["by_round"].get(metric, []), other["by_round"].get(metric, [])
        )
    return {"values": values, "ratio": stats.ratio(*values), "apart": apart}


def cell_row(setting: str, rate_key: str, cell: dict | None, other: dict | None) -> dict:
    row = {
        "setting": setting,
        "rate": rate_key,
        "measured": [cell is not None, other is not None],
        "offered_rate": [c.get("offered_rate") if c else None for c in (cell, other)],
        "keeps_up": [c["keeps_up"] if c else None for c in (cell, other)],
    }
    row.update({metric: metric_pair(cell, other, metric) for metric in CELL_METRICS})
    return row


def counts(rows: list[dict]) -> dict:
    """How many cells measured in both were lower, higher or not told apart, per metric; and
    the cells whose keeps-up verdict differed."""
    both = [row for row in rows if all(row["measured"])]
    found = {"cells": len(both)}
    for metric in CELL_METRICS:
        found[metric] = {word: sum(row[metric]["apart"] == word for row in both) for word in APART}
    found["keeps_up_same"] = sum(row["keeps_up"][0] == row["keeps_up"][1] for row in both)
    found["kept_up_here_only"] = [
        [row["setting"], row["rate"]] for row in both if row["keeps_up"] == [True, False]
    ]
    found["kept_up_there_only"] = [
        [row["setting"], row["rate"]] for row in both if row["keeps_up"] == [False, True]
    ]
    return found


def against(result: dict, other: dict) -> dict:
    """This campaign's cells against one other campaign's, in this campaign's design order."""
    design = result["design"]
    rows = [
        cell_row(
            setting, rate_key, cell_of(result, setting, rate_key), cell_of(other, setting, rate_key)
        )
        for setting in design["settings"]
        for rate_key in design["rate_multiples"]
    ]
    return {
        "campaign": facts(other),
        "figures": {name: entry["value"] for name, entry in other.get("figures", {}).items()},
        "guesses": other.get("guesses", []),  # its own guesses and verdicts, for the guesses page
        "cells": rows,
        "counts": counts(rows),
    }


def section(result: dict, others: list[dict]) -> dict | None:
    """results.json `comparison`: None when either side has no Part B (nothing to compare)."""
    others = [other for other in others if other.get("part_b")]
    if not result.get("part_b") or not others:
        return None
    return {"main": facts(result), "against": [against(result, other) for other in others]}
