"""The slow-run rule applied to a campaign's attempts: which attempt of each run counts, and
the speed probe's record over the whole campaign (results.json `speed_probe`).

A run the rule measured again has several files: runs/<run_id>.run.zip (attempt 1),
<run_id>@2.run.zip … (data/README.md). The rule is the campaign's own (its description's
`slow_runs` and the reference speed of its `speed_probe`); it reads only the probes in each
attempt's metadata. `choose_attempts(campaign)` points `campaign.files` at the attempt each
run uses and returns the section (None for a campaign without the probe: every run has one
attempt). Used by the build (generator/arithmetic/results.py); the report decides again with its own
code (generator/report/attempts.py). The table of every attempt's probes and the decisions
are published in their own file, assets/data/attempts.json (`split`): only the probe's chart
and the report read them, and results.json, which the explorer loads on every visit, stays
within its budget.
"""

from generator.reading.load import Campaign, DataError, need, read_meta
from lab.rawformat import slowrun

PROBES = ("probe_before", "probe_after")


def probe_slowness(meta: dict, moment: str, reference: dict, path) -> float:
    probe = need(meta, moment, path)
    for part in slowrun.PROBE_PARTS:
        value = need(probe, part, path)
        if not isinstance(value, int | float) or value <= 0:
            raise DataError(f"{path}: field '{moment}.{part}' is {value!r}, expected µs > 0")
    return slowrun.slowness(probe, reference)


def attempt_record(
    meta: dict, path, reference: dict, threshold: float, probes=("before", "after")
) -> dict:
    """One attempt's probes (None for a moment the campaign did not probe at) and verdict."""
    before, after = (
        probe_slowness(meta, f"probe_{moment}", reference, path) if moment in probes else None
        for moment in ("before", "after")
    )
    taken = [value for value in (before, after) if value is not None]
    quiet = meta.get("quiet") or {}
    return {
        "at": need(meta, f"probe_{probes[0]}.at", path),
        "before": before,
        "after": after,
        "slow": slowrun.attempt_is_slow(max(taken), max(taken), threshold),
        "quiet": bool(quiet.get("quiet")),
    }


def run_decision(campaign: Campaign, entry: dict, rule: dict, reference: dict) -> dict:
    """Every attempt of one run, judged, and the attempt the rule uses."""
    paths = campaign.attempts[entry["run_id"]]
    probes = rule.get("probes", ("before", "after"))
    records = [
        attempt_record(read_meta(path), path, reference, rule["threshold"], probes)
        for path in paths
    ]
    applies = entry["kind"] in rule["kinds"]
    slow = [record["slow"] for record in records]
    worst = [max(v for v in (r["before"], r["after"]) if v is not None) for r in records]
    chosen = slowrun.chosen_attempt(worst, slow, applies)
    return {
        "records": records,
        "slow": slow,
        "chosen": chosen,
        "passed": not slow[chosen - 1] or not applies,
        "applies": applies,
    }


def choose_attempts(campaign: Campaign) -> dict | None:
    """Point campaign.files at the attempt the rule uses; the `speed_probe` section."""
    described = campaign.description
    extra = sorted(run_id for run_id, paths in campaign.attempts.items() if len(paths) > 1)
    if described.slow_runs is None or described.speed_probe is None:
        if extra:
            raise DataError(
                f"{campaign.attempts[extra[0]][1]}: a second attempt, but campaign.json has no "
                "slow-run rule (rules.slow_runs and speed_probe)"
            )
        return None
    rule, reference = described.slow_runs, described.speed_probe["reference"]
    decisions = {}
    for entry in campaign.schedule:
        if entry["run_id"] in campaign.attempts:
            decision = run_decision(campaign, entry, rule, reference)
            decisions[entry["run_id"]] = decision
            campaign.files[entry["run_id"]] = campaign.attempts[entry["run_id"]][
                decision["chosen"] - 1
            ]
    return section(campaign, rule, decisions)


def section(campaign: Campaign, rule: dict, decisions: dict) -> dict:
    """results.json `speed_probe`: the rule, the reference, every attempt in the order they
    ran, the decisions about runs with a slow attempt, and counts for the pages."""
    calibration = campaign.description.speed_probe
    reference = calibration["reference"]
    order = sorted(
        ((record["at"], run_id, number) for run_id, decision in decisions.items()
         for number, record in enumerate(decision["records"], start=1)),
    )  # fmt: skip
    records = [decisions[run_id]["records"][number - 1] for _, run_id, number in order]
    judged = {run_id: d for run_id, d in decisions.items() if d["applies"]}
    # Counts are over the runs the rule judges (not the bit check, which times nothing).
    judged_records = [r for run_id, d in judged.items() for r in d["records"]]
    slow_records = [r for r in judged_records if r["slow"]]
    rerun = sorted(run_id for run_id, d in judged.items() if len(d["records"]) > 1)
    never = [run_id for run_id, d in judged.items() if not d["passed"]]
    values = [value for r in records for value in (r["before"], r["after"]) if value is not None]
    threshold = rule["threshold"]
    return {
        "rule": {
            key: rule[key]
            for key in ("threshold", "max_attempts", "kinds", "budget_runs", "pause_s", "text")
        },  # fmt: skip
        "reference": reference,
        "workload": calibration.get("workload"),
        "calibration": {
            "made_at": calibration.get("made_at"),
            "probes": len(calibration["probes"]),
            "slowness": [slowrun.slowness(p, reference) for p in calibration["probes"]],
        },
        "attempts": {
            "run_id": [run_id for _, run_id, _ in order],
            "attempt": [number for _, _, number in order],
            "before": [r["before"] for r in records],
            "after": [r["after"] for r in records],
            "not_judged": [
                index for index, (_, run_id, _) in enumerate(order) if run_id not in judged
            ],
        },
        "decisions": {
            run_id: {"slow": d["slow"], "chosen": d["chosen"], "passed": d["passed"]}
            for run_id, d in sorted(judged.items())
            if any(d["slow"])
        },
        "attempts_made": len(judged_records),
        "runs_rerun": len(rerun),
        "reruns": sum(len(judged[run_id]["records"]) - 1 for run_id in rerun),
        "slow_attempts": len(slow_records),
        "slow_before": sum((r["before"] or 0) > 1 + threshold for r in slow_records),
        "slow_after": sum((r["after"] or 0) > 1 + threshold for r in slow_records),
        "never_passed": never,
        "never_passed_by_kind": never_by_kind(campaign.schedule, never),
        "quiet_but_slow": sum(r["quiet"] and r["slow"] for r in judged_records),
        "quiet_attempts": sum(r["quiet"] for r in judged_records),
        "slowness_min": min(values, default=None),
        "slowness_max": max(values, default=None),
    }


def never_by_kind(schedule: list, never: list) -> dict:
    """{kind: {runs, rounds (1-based, Part B's)}} of the runs that never passed, in schedule
    order, for the pages' one-line summary."""
    found = {}
    for entry in schedule:
        if entry["run_id"] in never:
            kind = found.setdefault(entry["kind"], {"runs": 0, "rounds": []})
            kind["runs"] += 1
            if "round" in entry and entry["round"] + 1 not in kind["rounds"]:
                kind["rounds"].append(entry["round"] + 1)
    return {kind: dict(v, rounds=sorted(v["rounds"])) for kind, v in found.items()}


TABLE = "attempts.json"  # every attempt's probes and the rule's decisions, beside results.json
SIDE = ("attempts", "decisions")  # what only the probe's chart and the report read


def split(speed_probe: dict) -> tuple[dict, dict | None]:
    """(results.json's `speed_probe` naming the table's file instead of holding it, the table
    {attempts, decisions}); the table is None when there is none. The report reads it back
    itself (generator/report/checks.py `with_table`)."""
    if "attempts" not in speed_probe:
        return speed_probe, None
    kept = {key: value for key, value in speed_probe.items() if key not in SIDE}
    return dict(kept, attempts_table=TABLE), {key: speed_probe[key] for key in SIDE}
