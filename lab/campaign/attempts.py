"""A run's attempts on disk and the slow-run rule's decisions about them (lab/design.py, the
2026-11-30 note): which attempts were slow, whether a run is due to go again, which attempt
counts, and S from the saturation attempts that count. The rule's decision itself (slowness,
slow or not, the attempt chosen) is lab/rawformat/slowrun.py's, shared with the generator.

The runner derives everything from the files on disk (runs/<run_id>.run.zip, then
<run_id>@2.run.zip …), so a runner killed at any moment resumes with every attempt kept
exactly once. The rule reads only the probes in the attempts' metadata (`probe_before`,
`probe_after`) and the campaign's reference speed, never a run's results. Used by the runner.
"""

import statistics
from dataclasses import dataclass
from pathlib import Path

from lab.campaign.folder import run_path
from lab.rawformat import codec, slowrun

PROBES = ("probe_before", "probe_after")  # the speed probe right before and right after a run


@dataclass(frozen=True)
class SlowRunRule:
    """The rule as campaign.json froze it (`rules.slow_runs`), with the reference speed."""

    threshold: float
    max_attempts: int
    kinds: tuple
    budget_runs: int
    pause_s: float
    reference: dict
    budget_bytes: int | None = None  # None: a campaign from before the data budget rule
    run_bytes: dict | None = None
    arrivals_bytes: int = 0

    @classmethod
    def of(cls, header: dict) -> "SlowRunRule | None":
        """The campaign's rule, or None for a campaign without a speed probe (older ones)."""
        rule = header.get("rules", {}).get("slow_runs")
        probe = header.get("speed_probe")
        if rule is None or probe is None:
            return None
        return cls(
            threshold=rule["threshold"],
            max_attempts=rule["max_attempts"],
            kinds=tuple(rule["kinds"]),
            budget_runs=rule["budget_runs"],
            pause_s=rule["pause_s"],
            reference=probe["reference"],
            budget_bytes=rule.get("budget_bytes"),
            run_bytes=rule.get("run_bytes"),
            arrivals_bytes=rule.get("arrivals_bytes", 0),
        )

    def slownesses(self, meta: dict) -> tuple[float, float]:
        """An attempt's probe before and probe after, as slownesses against the reference."""
        before, after = (slowrun.slowness(meta[key], self.reference) for key in PROBES)
        return before, after

    def worst(self, meta: dict) -> float:
        """The slower of an attempt's two probes, as a slowness against the reference."""
        return max(self.slownesses(meta))

    def is_slow(self, meta: dict) -> bool:
        return slowrun.attempt_is_slow(*self.slownesses(meta), self.threshold)

    def applies_to(self, run: dict) -> bool:
        return run["kind"] in self.kinds


def attempts_made(folder: Path, run_id: str) -> int:
    """How many attempts of the run have a file (attempt files are numbered 1, 2, … in turn)."""
    count = 0
    while run_path(folder, run_id, count + 1).exists():
        count += 1
    return count


def attempt_metas(folder: Path, run_id: str) -> list[dict]:
    return [
        codec.read_meta(run_path(folder, run_id, number))
        for number in range(1, attempts_made(folder, run_id) + 1)
    ]


def reruns_made(folder: Path, schedule: list[dict]) -> int:
    """Attempts after the first, over the whole campaign: what the re-run budget counts."""
    return sum(max(attempts_made(folder, run["run_id"]) - 1, 0) for run in schedule)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def room_for_again(folder: Path, run: dict, schedule: list[dict], rule: SlowRunRule) -> bool:
    """Whether one more attempt of `run` keeps the campaign under its data budget: the folder
    now, the run's latest attempt once more, and every scheduled run not yet measured (at
    the rule's size per kind) must fit. True for a campaign without a data budget."""
    if rule.budget_bytes is None:
        return True
    latest = run_path(folder, run["run_id"], attempts_made(folder, run["run_id"]))
    owed = sum(
        rule.run_bytes[other["kind"]]
        for other in schedule
        if not run_path(folder, other["run_id"]).exists()
    )
    needed = folder_bytes(folder) + latest.stat().st_size + owed + rule.arrivals_bytes
    return needed <= rule.budget_bytes


def due_again(folder: Path, run: dict, rule: SlowRunRule | None) -> bool:
    """The run has attempts, every one of them slow, and attempts left under the rule."""
    if rule is None or not rule.applies_to(run):
        return False
    metas = attempt_metas(folder, run["run_id"])
    if not metas or len(metas) >= rule.max_attempts:
        return False
    return all(rule.is_slow(meta) for meta in metas)


def chosen_attempt(folder: Path, run: dict, rule: SlowRunRule | None) -> int | None:
    """The attempt that counts: the first not slow, else the least slow (earliest on a tie);
    attempt 1 when the rule does not apply; None when the run has no file yet."""
    made = attempts_made(folder, run["run_id"])
    if made == 0:
        return None
    if rule is None or not rule.applies_to(run):
        return 1
    metas = attempt_metas(folder, run["run_id"])
    worst, slow = [rule.worst(meta) for meta in metas], [rule.is_slow(meta) for meta in metas]
    return slowrun.chosen_attempt(worst, slow, rule_applies=True)


def saturation_from_runs(
    folder: Path, schedule: list[dict], rule: SlowRunRule | None
) -> float | None:
    """S = the median throughput of the saturation runs' chosen attempts, once every
    saturation run has one."""
    runs = [run for run in schedule if run["kind"] == "saturation"]
    chosen = [chosen_attempt(folder, run, rule) for run in runs]
    if not runs or None in chosen:
        return None
    paths = [run_path(folder, run["run_id"], n) for run, n in zip(runs, chosen, strict=True)]
    return statistics.median(codec.read_meta(path)["stats"]["throughput"] for path in paths)
