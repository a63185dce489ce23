"""The report's own reading of the slow-run rule (not lab/rawformat/slowrun.py, which the lab and
the build share).

From the raw files alone: every attempt file of every run (runs/<run_id>.run.zip,
<run_id>@2.run.zip …), each attempt's probes against the campaign's reference (its own
slowness: the cube root of the product of the three ratios), the rule's verdict on each
attempt, the attempt each run uses, and whether the runner followed the rule (no attempt
after one that passed, none beyond the attempt limit, the re-runs within the budget).
`check_speed_probe` compares all of it with results.json's `speed_probe`.
Used by `python -m generator report`.
"""

from pathlib import Path

PARTS = ("python_us", "model_us", "memory_us")


class RuleBroken(Exception):
    """The raw files show a runner that did not follow the campaign's slow-run rule."""


def attempt_files(folder: Path) -> dict:
    """{run_id: {attempt number: path}} from the file names alone."""
    found = {}
    for path in sorted((folder / "runs").glob("*.run.zip")):
        stem = path.name[: -len(".run.zip")]
        run_id, _, number = stem.partition("@")
        found.setdefault(run_id, {})[int(number or 1)] = path
    return found


def slow_factor(probe: dict, reference: dict) -> float:
    product = 1.0
    for part in PARTS:
        product *= probe[part] / reference[part]
    return product ** (1 / 3)


def judge_run(metas: list[dict], kind: str, rule: dict, reference: dict) -> dict:
    """The rule on one run's attempts (in order): each attempt's two slownesses, slow or not,
    the attempt used and whether it passed."""
    limit = 1 + rule["threshold"]
    probes = rule.get("probes", ("before", "after"))  # full3 probes after the window only
    before, after = (
        [slow_factor(m[f"probe_{moment}"], reference) if moment in probes else None for m in metas]
        for moment in ("before", "after")
    )
    slow = [(b or 0) > limit or (a or 0) > limit for b, a in zip(before, after, strict=True)]
    judged = kind in rule["kinds"]
    if not judged:
        chosen = 1
    elif False in slow:
        chosen = slow.index(False) + 1
    else:
        worst = [max(b or 0, a or 0) for b, a in zip(before, after, strict=True)]
        chosen = min(range(len(worst)), key=lambda i: (worst[i], i)) + 1
    return {"before": before, "after": after, "slow": slow, "chosen": chosen,
            "passed": not judged or not slow[chosen - 1], "judged": judged,
            "at": [m[f"probe_{probes[0]}"]["at"] for m in metas]}  # fmt: skip


def follows_rule(run_id: str, verdict: dict, rule: dict) -> None:
    """Another attempt only after slow ones, and never more than the rule's limit."""
    count = len(verdict["slow"])
    if count > 1 and not verdict["judged"]:
        raise RuleBroken(f"{run_id}: {count} attempts of a kind the rule does not re-run")
    if count > rule["max_attempts"]:
        raise RuleBroken(f"{run_id}: {count} attempts, the rule allows {rule['max_attempts']}")
    if False in verdict["slow"][:-1]:
        raise RuleBroken(f"{run_id}: measured again after an attempt that was not slow")
