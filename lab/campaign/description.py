"""What a campaign says about itself in campaign.json, beyond its machine and model: the
design it ran, the rules that judge it, the guesses as they stood when it started (with the
git commit), and the names the pages use. The generator reads these from the campaign, never
from today's lab code, so editing lab/design.py later does not change a campaign's verdicts.
Written once, when the runner creates the campaign (lab/campaign/folder.py).
"""

import math

from lab.campaign.schedule import build_schedule
from lab.design import (
    ARRIVALS_BYTES,
    BUSY_RATE,
    FLAG_SIGNALS,
    KEEPS_UP_SHARE,
    NO_RERUN_TEXT,
    QUIET_IDLE_SHARE,
    QUIET_OTHER_CORE_IDLE_SHARE,
    QUIET_RATE,
    RUN_BYTES,
    SAME_WITHIN_CONFIDENCE,
    SLOW_RUN_KINDS,
    SLOW_RUN_MAX_ATTEMPTS,
    SLOW_RUN_SELECTION,
    SLOW_RUN_TEXT,
    SLOW_RUN_THRESHOLD,
    TOLD_APART_CONFIDENCE,
    TOLD_APART_DELTA,
    TOLD_APART_RULE,
    TOLD_APART_TEXT,
    Profile,
)
from lab.guesses import GUESSES
from lab.rawformat.names import rate_key
from lab.service.server_timing import BATCH_ROUTE_NAMES, PREDICT_NAMES

# Bump when the keys below change shape, so a reader can tell which description it holds.
DESCRIPTION_VERSION = 1


def design_record(profile: Profile) -> dict:
    """The profile as run: settings, rates, rounds, windows, run counts, quiet tries, and the
    switchback pairs."""
    as_dicts = ("settings", "switchbacks")
    record = {key: value for key, value in vars(profile).items() if key not in as_dicts}
    record["settings"] = [setting.as_dict() for setting in profile.settings]
    record["switchbacks"] = [pair.as_dict() for pair in profile.switchbacks]
    record["rate_multiples"] = list(profile.rate_multiples)
    return record


def rules(profile: Profile) -> dict:
    """The rules the campaign is judged by; the quiet check and the slow-run rule as this
    profile ran them."""
    return {
        "keeps_up_share": KEEPS_UP_SHARE,
        "told_apart": told_apart(),
        "quiet": {
            "idle_share": QUIET_IDLE_SHARE,
            "other_core_idle_share": QUIET_OTHER_CORE_IDLE_SHARE,
            "seconds": profile.quiet_seconds,
            "tries": profile.quiet_tries,
            "mode": profile.quiet_mode,
        },
        "slow_runs": slow_runs(profile),
    }


def told_apart() -> dict:
    """The told-apart rule (lab/design_notes.py, the 2026-12-01 note): its name and words, the two
    confidence levels and δ per statistic in log units (p50, p99, server, throughput)."""
    return {
        "rule": TOLD_APART_RULE,
        "text": TOLD_APART_TEXT,
        "confidence": TOLD_APART_CONFIDENCE,
        "same_within_confidence": SAME_WITHIN_CONFIDENCE,
        "delta": dict(TOLD_APART_DELTA),
    }


def slow_runs(profile: Profile) -> dict:
    """The slow-run rule as this profile runs it (lab/design_notes.py, the 2026-11-30 note),
    and the probes each run takes. A profile without re-runs (`reruns` False, the 2026-12-01
    note on evidence) judges no kind, has no re-run budget, and names the signals it keeps
    as flags."""
    scheduled = len(build_schedule(profile, seed=0))
    record = {
        "threshold": SLOW_RUN_THRESHOLD,
        "max_attempts": SLOW_RUN_MAX_ATTEMPTS if profile.reruns else 1,
        "kinds": list(SLOW_RUN_KINDS) if profile.reruns else [],
        "budget_share": profile.slow_budget_share if profile.reruns else 0.0,
        "budget_runs": math.ceil(profile.slow_budget_share * scheduled) if profile.reruns else 0,
        "budget_bytes": profile.bytes_budget,
        "run_bytes": dict(RUN_BYTES),
        "arrivals_bytes": ARRIVALS_BYTES,
        "pause_s": profile.slow_pause_s,
        "selection": SLOW_RUN_SELECTION,
        "probes": list(profile.probes),
        "text": SLOW_RUN_TEXT.format(threshold=SLOW_RUN_THRESHOLD, attempts=SLOW_RUN_MAX_ATTEMPTS),
    }
    if not profile.reruns:
        record["text"] = NO_RERUN_TEXT.format(threshold=SLOW_RUN_THRESHOLD)
        record["flags"] = list(FLAG_SIGNALS)
    return record


def guesses(git_commit: str) -> dict:
    """The dated guesses exactly as they stand now, and the commit they stand at."""
    return {"git_commit": git_commit, "items": [dict(guess) for guess in GUESSES]}


def names() -> dict:
    """The names the pages use for the quiet and busy rates and each route's stages."""
    return {
        "quiet_rate": rate_key(QUIET_RATE),
        "busy_rate": rate_key(BUSY_RATE),
        "predict_stages": list(PREDICT_NAMES),
        "batch_route_stages": list(BATCH_ROUTE_NAMES),
    }


def description(profile: Profile, git_commit: str) -> dict:
    """The keys campaign.json holds for the campaign to be judged on its own."""
    return {
        "design": design_record(profile),
        "rules": rules(profile),
        "guesses": guesses(git_commit),
        "names": names(),
        "description_version": DESCRIPTION_VERSION,
    }
