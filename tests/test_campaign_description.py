"""A new campaign describes itself: campaign.json carries the design it ran, the rules that
judge it, the guesses as they stood (with the commit) and the names the pages use, so the
generator never reads them from today's lab code.

Run: `.venv/bin/pytest tests/test_campaign_description.py`.
"""

import json

import pytest

from lab import design
from lab.campaign.description import description
from lab.campaign.folder import campaign_dir, open_campaign
from lab.campaign.schedule import build_schedule
from lab.guesses import GUESSES
from lab.machine.fingerprint import git_commit
from lab.rawformat.names import rate_key
from lab.service.server_timing import BATCH_ROUTE_NAMES, PREDICT_NAMES
from tests.support.profiles import TINY


@pytest.fixture
def header(tmp_path, monkeypatch, lab_artifacts, processes):  # git, for the commit
    """campaign.json of a new tiny campaign, as the runner writes it, read back from disk."""
    monkeypatch.setenv("LAB_RAW", str(tmp_path))
    folder = campaign_dir("described")
    open_campaign(folder, "tiny", seed=3, cpu=None)
    return json.loads((folder / "campaign.json").read_text())


def test_it_keeps_the_keys_it_always_had(header):
    assert {"campaign", "profile", "seed", "cpu", "runner_cpu", "fingerprint", "git_commit",
            "started_at", "design", "model"} <= set(header)  # fmt: skip
    assert header["profile"] == "tiny" and header["seed"] == 3
    assert [s["name"] for s in header["design"]["settings"]] == [s.name for s in TINY.settings]
    assert header["design"]["rate_multiples"] == list(TINY.rate_multiples)


def test_the_rules_are_the_designs(header):
    assert header["rules"] == {
        "keeps_up_share": design.KEEPS_UP_SHARE,
        "told_apart": {  # the interval rule since 2026-12-01 (lab/design.py)
            "rule": "hodges_lehmann_wilcoxon_95",
            "text": design.TOLD_APART_TEXT,
            "confidence": 0.95,
            "same_within_confidence": 0.90,
            "delta": design.TOLD_APART_DELTA,
        },
        "quiet": {
            "idle_share": design.QUIET_IDLE_SHARE,
            "other_core_idle_share": design.QUIET_OTHER_CORE_IDLE_SHARE,
            "seconds": TINY.quiet_seconds,
            "tries": TINY.quiet_tries,
            "mode": "before",  # the first two campaigns' (full3: "watch", test_full3_profile.py)
        },
        "slow_runs": {
            "threshold": design.SLOW_RUN_THRESHOLD,
            "max_attempts": design.SLOW_RUN_MAX_ATTEMPTS,
            "kinds": list(design.SLOW_RUN_KINDS),
            "budget_share": TINY.slow_budget_share,
            # tiny: 1 Part A run, bits, 1 S run, 2 settings × 2 rates, 1 Part C run
            "budget_runs": 8,
            "budget_bytes": design.CAMPAIGN_BYTES_BUDGET,
            "run_bytes": design.RUN_BYTES,
            "arrivals_bytes": design.ARRIVALS_BYTES,
            "pause_s": TINY.slow_pause_s,
            "selection": "first_not_slow_else_least_slow",
            "probes": ["before", "after"],
            "text": design.SLOW_RUN_TEXT.format(
                threshold=design.SLOW_RUN_THRESHOLD, attempts=design.SLOW_RUN_MAX_ATTEMPTS
            ),
        },
    }
    assert header["rules"]["told_apart"]["text"].endswith(".")
    assert f"{design.SLOW_RUN_THRESHOLD:.0%} slower" in header["rules"]["slow_runs"]["text"]


def test_the_full_profiles_rerun_budget_keeps_it_within_two_and_a_half_hours():
    full = description(design.FULL, "commit")["rules"]["slow_runs"]
    runs = len(build_schedule(design.FULL, seed=1))
    assert runs == 611 and full["budget_runs"] == 153  # about 12 s each: 30 more minutes


def test_the_guesses_are_the_designs_at_the_campaigns_commit(header):
    guesses = header["guesses"]
    assert guesses["git_commit"] == header["git_commit"] == git_commit()
    assert guesses["items"] == [dict(guess) for guess in GUESSES]
    for item in guesses["items"]:
        assert {"id", "date", "text", "figure", "compare", "unit"} <= set(item)
        assert ("value" in item) != ("low" in item and "high" in item)


def test_the_names_are_the_ones_the_pages_use(header):
    assert header["names"] == {
        "quiet_rate": rate_key(design.QUIET_RATE),
        "busy_rate": rate_key(design.BUSY_RATE),
        "predict_stages": list(PREDICT_NAMES),
        "batch_route_stages": list(BATCH_ROUTE_NAMES),
    }
    assert header["names"]["quiet_rate"] == "0.5" and header["names"]["busy_rate"] == "1.6"
    assert header["description_version"] == 1


def test_a_continued_campaign_keeps_its_description(tmp_path, monkeypatch, header):
    folder = campaign_dir("described")
    again = open_campaign(folder, "tiny", seed=99, cpu=None)
    assert again == header  # read back as written, never rewritten
