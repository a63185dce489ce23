"""The verdicts again without the runs that never passed the slow-run rule (issue 34, item 10).

A run whose every attempt found the core slow is kept, its least slow attempt used and marked
(generator/arithmetic/attempts.py; a Part B cell's `never_passed_rounds`). To show whether that
slow spell changed a verdict, every Part B verdict is judged again on the rounds that remain
once those are left out: each setting's paired difference from no batching (p50, p99,
throughput) and each cell's keeps-up, with the highest rate each setting kept up to. A paired
comparison leaves out a round when either side's run of it never passed.

The campaign's own rule judges both: under the rounds rule, every remaining round agreeing in
sign (fewer rounds agree by chance more often: 2 of 2^n sign patterns, 1 in 8 for 4 rounds
against 1 in 16 for 5, so a verdict that appears only without the slow runs is weaker than
one that held on every round); under the interval rule, its interval on the remaining
rounds (generator/arithmetic/grid_verdicts.py). A cell keeps up when every remaining round did.

Published beside results.json as assets/data/slow_spell.json (results.json is at its size
budget); the campaigns page reads it. Built by `python -m generator build`
(generator/build.py); tests/test_slow_spell.py checks it against a hand-made campaign.
"""

from generator.arithmetic import grid_verdicts, stats
from lab.rawformat.names import NONE

TABLE = "slow_spell.json"
METRICS = ("p50_ms", "p99_ms", "throughput")


def word(diff: dict) -> str:
    """A paired verdict in the Words page's vocabulary."""
    if diff["told_apart"]:
        return f"told apart ({diff['direction']})"
    return diff.get("verdict", "not resolved")


def rounds_of(cell: dict, metric: str, left_out: set) -> dict:
    values = cell["by_round"].get(metric, [])
    return {r: v for r, v in zip(cell["rounds"], values, strict=False) if r not in left_out}


def paired_again(cell: dict, base: dict, metric: str, rule: dict | None) -> tuple[dict, int]:
    """The paired diff of one metric on the rounds neither side lost to the slow spell, and
    how many rounds that is. Under the rounds rule every remaining round must agree."""
    left_out = set(cell.get("never_passed_rounds", [])) | set(base.get("never_passed_rounds", []))
    mine, theirs = rounds_of(cell, metric, left_out), rounds_of(base, metric, left_out)
    kept = len(set(mine) & set(theirs))
    diff = stats.paired(mine, theirs, kept)
    if rule is not None and kept:
        diff = grid_verdicts.judged(diff, mine, theirs, metric, rule, base.get(metric))
    return diff, kept


def kept_up_again(cell: dict) -> tuple[bool, int]:
    """Keeps-up on the rounds that remain: every one measured and kept up."""
    left_out = set(cell.get("never_passed_rounds", []))
    flags = rounds_of(cell, "keeps_up", left_out)
    remaining = len(flags)
    return bool(remaining) and all(flags.values()) and not cell["missing_rounds"], remaining


def highest(rates: dict, verdicts: dict) -> float:
    """The highest rate (as a number) kept up at, every lower rate kept up too; 0 when none."""
    found = 0.0
    for key in sorted(rates, key=float):
        if not verdicts[key]:
            break
        found = float(key)
    return found


def section(result: dict) -> dict | None:
    """The slow spell's section, or None when no Part B cell rests on a run that never
    passed (nothing to judge again)."""
    part_b = result.get("part_b") or {}
    settings = part_b.get("settings", {})
    touched = [
        (name, rate)
        for name, setting in settings.items()
        for rate, cell in setting["rates"].items()
        if cell.get("never_passed_rounds")
    ]
    if not touched:
        return None
    rule = result["design"].get("told_apart")
    paired, kept_changes, highest_changes = [], [], []
    compared = 0
    for name, setting in settings.items():
        before, after = {}, {}
        for rate, cell in setting["rates"].items():
            again, remaining = kept_up_again(cell)
            before[rate], after[rate] = cell["keeps_up"], again
            if again != cell["keeps_up"]:
                kept_changes.append(
                    {"setting": name, "rate": rate, "before": cell["keeps_up"], "after": again,
                     "rounds": remaining}
                )  # fmt: skip
            base = settings.get(NONE, {}).get("rates", {}).get(rate)
            if name == NONE or base is None or name not in result.get("paired", {}):
                continue
            for metric in METRICS:
                published = result["paired"][name][NONE][rate][metric]
                diff, remaining = paired_again(cell, base, metric, rule)
                compared += 1
                if word(diff) != word(published):
                    paired.append(
                        {"setting": name, "rate": rate, "metric": metric,
                         "before": word(published), "after": word(diff), "rounds": remaining}
                    )  # fmt: skip
        if highest(setting["rates"], before) != highest(setting["rates"], after):
            highest_changes.append(
                {"setting": name, "before": highest(setting["rates"], before),
                 "after": highest(setting["rates"], after)}
            )  # fmt: skip
    return {
        "rule": rule["rule"] if rule else "all_rounds_agree_in_sign",
        "cells_touched": len(touched),
        "cells": sum(len(setting["rates"]) for setting in settings.values()),
        "paired_compared": compared,
        "paired_changed": paired,
        "keeps_up_changed": kept_changes,
        "highest_kept_up_changed": highest_changes,
    }
