"""The runner's data budget at run time (issue 29): once S is measured, before the first run
whose size depends on it, the projection is made again at the measured S; over the profile's
bytes budget the runner stops there with a clear message and every file kept, unless
`--over-budget` says to go on. The projection of full3 itself, after the byte cuts, fits its
budget at this host's S and at the faster host's.

Run: `.venv/bin/pytest tests/test_budget_guard.py`.
"""

import dataclasses

import pytest

from lab import design
from lab.campaign import attempts, projection, runner
from lab.campaign.context import Context
from lab.campaign.progress import Progress
from lab.campaign.schedule import build_schedule
from lab.errors import CampaignError

FAST_HOST_S = 1510.0  # full-20261129's S: a faster host gives more requests, so more bytes
SLOW_HOST_S = 1177.25  # full-20261130's


def small_profile():
    """quick3 with half the bytes its projection at the fast host's S needs."""
    needed = projection.project(design.QUICK3, FAST_HOST_S)["bytes"]
    return dataclasses.replace(design.QUICK3, bytes_budget=int(needed / 2))


def session_of(profile, tmp_path, over_budget: bool, lines: list) -> runner.Session:
    schedule = build_schedule(profile, seed=1)
    context = Context("c", tmp_path, 1, profile, 1)
    progress = Progress(len(schedule), 0, lines.append)
    return runner.Session(context, schedule, None, progress, 5, over_budget=over_budget)


@pytest.fixture
def attempted(monkeypatch):
    """The kinds of the runs the runner starts (no run is really made), with S measured as
    the fast host's once the S runs have gone."""
    made = []

    def fake_attempt(session, run, attempt):
        made.append(run["kind"])
        return True

    def measured(folder, schedule, rule):
        return FAST_HOST_S if "saturation" in made else None

    monkeypatch.setattr(runner, "run_attempt", fake_attempt)
    monkeypatch.setattr(attempts, "saturation_from_runs", measured)
    return made


def test_over_budget_at_the_measured_s_it_stops_before_the_runs_sized_by_s(tmp_path, attempted):
    small = small_profile()
    lines = []
    with pytest.raises(CampaignError) as stopped:
        runner.run_blocks(session_of(small, tmp_path, False, lines))
    assert set(attempted) == {"part_a", "bits", "saturation"}
    found = projection.project(small, FAST_HOST_S)
    assert found["bytes"] > small.bytes_budget
    message = str(stopped.value)
    assert f"at the measured S = {FAST_HOST_S:,.0f}/s" in message
    budget = f"{small.bytes_budget / 2**20:g} MiB"
    assert f"{found['bytes'] / 2**20:.1f} MiB, over its profile's budget of {budget}" in message
    assert "nothing is lost" in message and "--over-budget" in message


def test_with_over_budget_it_goes_on_and_says_so(tmp_path, attempted):
    small = small_profile()
    lines = []
    runner.run_blocks(session_of(small, tmp_path, True, lines))
    assert attempted == [run["kind"] for run in build_schedule(small, seed=1)]
    budget = f"{small.bytes_budget / 2**20:g} MiB"
    assert any(f"going on over the {budget} budget (--over-budget)" in line for line in lines)


def test_within_budget_it_goes_on_and_prints_the_projection_at_the_measured_s(tmp_path, attempted):
    lines = []
    runner.run_blocks(session_of(design.QUICK3, tmp_path, False, lines))
    assert attempted == [run["kind"] for run in build_schedule(design.QUICK3, seed=1)]
    checked = [line for line in lines if "at the measured S" in line]
    assert len(checked) == 1 and "projected: " in checked[0]


def test_the_command_line_has_the_override():
    import argparse

    parser = argparse.ArgumentParser()
    runner.add_arguments(parser)
    assert parser.parse_args(["--campaign", "x", "--over-budget"]).over_budget is True
    assert parser.parse_args(["--campaign", "x"]).over_budget is False


@pytest.mark.parametrize(("saturation", "mib"), [(SLOW_HOST_S, 17.0), (FAST_HOST_S, 18.0)])
def test_full3_fits_its_bytes_at_either_host(saturation, mib):
    found = projection.project(design.FULL3, saturation)
    assert found["bytes"] <= mib * 2**20
    assert found["bytes"] <= design.FULL3.bytes_budget
