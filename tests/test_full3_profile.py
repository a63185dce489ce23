"""The third full campaign's profile, `full3` (issue 29): its schedule (every run exactly once,
R = 8 paired rounds of the 17 × 7 grid, the switchback block counterbalanced), the choices
campaign.json freezes (no re-runs, one probe after the window, the quiet rule judged on the
run's core watch, the load snapshot overlapped, 2 s windows), the first two campaigns'
profile `full` frozen as before, the generator reading an old description as before, the
quiet rule's arithmetic when it overlaps the service's start, and the projection `lab run`
prints before it starts (within 100 minutes and 18 MiB).

Run: `.venv/bin/pytest tests/test_full3_profile.py`.
"""

import collections
import json

import pytest

from generator.reading.description import read_description
from lab import design
from lab.campaign import projection
from lab.campaign.description import description
from lab.campaign.schedule import build_schedule
from lab.machine.cpu import TICKS
from lab.machine.quiet import load_between
from lab.paths import REPO

FULL3 = design.FULL3


@pytest.fixture(scope="module")
def schedule() -> list[dict]:
    return build_schedule(FULL3, seed=7)


def test_every_run_is_scheduled_exactly_once(schedule):
    ids = [run["run_id"] for run in schedule]
    assert len(ids) == len(set(ids))
    counts = collections.Counter(run["kind"] for run in schedule)
    assert counts == {"part_a": 5, "bits": 1, "saturation": 5, "part_b": 17 * 7 * 8,
                      "switchback": 3 * 40, "part_c": 5}  # fmt: skip
    assert [run["kind"] for run in schedule][:11] == ["part_a"] * 5 + ["bits"] + ["saturation"] * 5
    assert schedule[-1]["kind"] == "part_c"


def test_part_b_is_eight_rounds_of_the_whole_grid_in_2_s_windows(schedule):
    part_b = [run for run in schedule if run["kind"] == "part_b"]
    cells = collections.Counter(
        (run["round"], run["setting"]["name"], run["rate_multiple"]) for run in part_b
    )
    assert set(cells.values()) == {1}
    assert {r for r, _, _ in cells} == set(range(8))
    assert {name for _, name, _ in cells} == {s.name for s in design.SETTINGS}
    assert {rate for _, _, rate in cells} == set(design.RATE_MULTIPLES)
    assert {run["window_s"] for run in part_b} == {2.0}
    rounds = [run["round"] for run in part_b]
    assert rounds == sorted(rounds)  # round by round, shuffled inside each
    first = [run["run_id"] for run in part_b if run["round"] == 0]
    second = [run["run_id"].replace("-r1-", "-r0-") for run in part_b if run["round"] == 1]
    assert first != second


def test_the_switchback_block_is_counterbalanced(schedule):
    runs = [run for run in schedule if run["kind"] == "switchback"]
    by_pair = collections.defaultdict(list)
    for run in runs:
        by_pair[(run["arm_a"]["name"], run["arm_b"]["name"])].append(run)
    assert set(by_pair) == {("none", "B=1 W=0"), ("B=32 W=0", "B=32 W=1"), ("none", "none")}
    for pair, found in by_pair.items():
        assert [run["run_index"] for run in found] == list(range(40)), pair
        combos = collections.Counter((run["first_arm"], run["swap_routes"]) for run in found)
        assert combos == {(f, s): 10 for f in "ab" for s in (False, True)}, pair
    assert {(r["window_s"], r["slice_s"], r["rate_multiple"], r["twin_slices"]) for r in runs} == {
        (5.0, 0.1, 0.5, True)
    }
    indexes = [run["run_index"] for run in runs]
    assert indexes == sorted(indexes)  # index by index: every pair meets each index's arrivals
    orders = {tuple(r["arm_b"]["name"] for r in runs if r["run_index"] == i) for i in range(40)}
    assert len(orders) > 1  # the pairs' order inside an index is drawn


def test_an_odd_number_of_runs_is_as_even_as_it_can_be():
    from lab.campaign.schedule import counterbalanced

    for runs in (1, 2, 5, 7, 13):
        firsts = collections.Counter(first for first, _ in counterbalanced(runs, 3, 0))
        swaps = collections.Counter(swap for _, swap in counterbalanced(runs, 3, 0))
        assert abs(firsts["a"] - firsts["b"]) <= 1 and abs(swaps[True] - swaps[False]) <= 1


def test_full3_freezes_its_time_cuts_in_its_description():
    found = description(FULL3, "commit")
    slow = found["rules"]["slow_runs"]
    assert slow["kinds"] == [] and slow["budget_runs"] == 0 and slow["max_attempts"] == 1
    assert slow["probes"] == ["after"]
    assert slow["flags"] == list(design.FLAG_SIGNALS)
    assert slow["text"].startswith("No run is measured again")
    assert slow["budget_bytes"] == 18 * 2**20
    assert found["rules"]["quiet"] == {"idle_share": design.QUIET_IDLE_SHARE,
                                       "other_core_idle_share": design.QUIET_OTHER_CORE_IDLE_SHARE,
                                       "seconds": 0.5, "tries": 60, "mode": "watch"}  # fmt: skip
    record = found["design"]
    assert record["name"] == "full3" and record["rounds"] == 8 and record["window_s"] == 2.0
    assert record["reruns"] is False and record["probes"] == ("after",)
    assert record["load_after_overlapped"] is True and record["switchback_window_s"] == 5.0
    assert [pair["name"] for pair in record["switchbacks"]] == [
        "none vs B=1 W=0, twin slices", "B=32 W=0 vs B=32 W=1, twin slices",
        "none vs none, twin slices"]  # fmt: skip
    # The byte cuts (the 2026-12-02 note on full3): format 4's folds, 6-bit Part B durations.
    assert record["send_lag_column"] is False and record["machine_per_run"] is False
    assert record["part_b_request_bits"] == 6
    assert found["rules"]["told_apart"]["rule"] == design.TOLD_APART_RULE
    json.dumps(found)  # campaign.json can hold it


def test_the_first_two_campaigns_profile_is_frozen_as_before():
    slow = description(design.FULL, "commit")["rules"]["slow_runs"]
    assert slow["kinds"] == list(design.SLOW_RUN_KINDS) and slow["budget_runs"] == 153
    assert slow["probes"] == ["before", "after"] and "flags" not in slow
    assert slow["budget_bytes"] == design.CAMPAIGN_BYTES_BUDGET == 40 * 2**20
    assert design.FULL.quiet_mode == "before" and not design.FULL.load_after_overlapped
    assert design.PROFILES["full"] is design.FULL and design.PROFILES["full3"] is FULL3


@pytest.mark.parametrize("name", ["full-20261129", "full-20261130"])
def test_an_old_campaign_reads_with_both_probes(name):
    """Their frozen rules have no `probes`: the generator reads them as probed before and
    after (full-20261129 has no rule at all)."""
    found = read_description(REPO / "data" / "raw" / name)
    if name == "full-20261130":
        assert found.slow_runs["probes"] == ["before", "after"]
        assert found.slow_runs["kinds"] == ["part_a", "saturation", "part_b", "part_c"]
    else:
        assert found.slow_runs is None


def test_a_profile_with_an_unknown_quiet_mode_or_probe_is_refused():
    import dataclasses

    with pytest.raises(ValueError, match="quiet_mode"):
        dataclasses.replace(FULL3, quiet_mode="sometimes")
    with pytest.raises(ValueError, match="probes"):
        dataclasses.replace(FULL3, probes=("during",))


def test_the_services_own_cpu_counts_as_idle_in_the_overlapped_quiet_check():
    """quiet_mode "startup": the core was busy 30 of 50 ticks, 25 of them the run's own
    service; what anything else took is 5 ticks, 10%."""
    start = (0.0, (100, 0, 200), (300, 0, 500))
    end = (0.5, (120, 0, 250), (350, 0, 600))
    plain = load_between(1, start, end)
    assert plain["idle_share"] == 0.4 and plain["seconds"] == 0.5
    overlapped = load_between(1, start, end, own_busy_s=25 / TICKS)
    assert overlapped["idle_share"] == 0.9
    capped = load_between(1, start, end, own_busy_s=99 / TICKS)
    assert capped["idle_share"] == 1.0  # never more than the core's busy ticks


def test_full3_is_projected_within_its_time_budget():
    found = projection.project(FULL3)
    assert 0 < found["minutes"] <= 100 and found["reruns_minutes"] == 0
    assert found["by_kind"]["part_b"]["runs"] == 952 and found["bytes"] > 10 * 2**20
    old = projection.project(design.FULL)
    assert old["reruns_minutes"] > 0 and old["minutes"] > found["minutes"]
    # The same host with the quiet check before every run, as the first two campaigns had it:
    import dataclasses

    checked = projection.project(dataclasses.replace(FULL3, quiet_mode="before"))
    assert checked["minutes"] - found["minutes"] == pytest.approx(1077 * 0.5 / 60, rel=0.01)


def test_the_projection_warns_when_over_its_budget():
    import dataclasses

    small = dataclasses.replace(FULL3, minutes_budget=10.0, bytes_budget=2**20)
    text = projection.describe(projection.project(small))
    assert "WARNING: the projection is over its 10 min and over its 1 MiB" in text


def test_lab_run_prints_the_projection_before_it_starts(tmp_path, monkeypatch, capsys):
    from lab.cli import main

    monkeypatch.setenv("LAB_RAW", str(tmp_path))
    assert main(["run", "--profile", "full3", "--campaign", "x", "--projection-only"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("lab run: full3: projected: ")
    assert "min and" in out and "MiB" in out and "part_b 952 runs" in out
    assert not list(tmp_path.iterdir())  # nothing started


@pytest.mark.parametrize(("mode", "seconds", "idle", "quiet"), [
    ("watch", 3.031, 0.9775, True), ("watch", 3.031, 0.90, False), ("watch", 0.2, 0.99, False),
    (None, 0.5, 0.99, True), (None, 3.0, 0.99, False)])  # fmt: skip
def test_the_report_judges_a_watched_run_on_its_shares_and_its_own_seconds(
    mode, seconds, idle, quiet
):
    from generator.report.checks import meets_quiet_rule

    rule = description(FULL3, "commit")["rules"]["quiet"]
    record = {"seconds": seconds, "idle_share": idle, "other_cores_idle_share": 0.88}
    if mode:
        record["mode"] = mode
    assert meets_quiet_rule(record, rule) is quiet
