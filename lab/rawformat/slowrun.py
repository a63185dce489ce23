"""The slow-run rule's decision (lab/design_notes.py, the 2026-11-30 note), in one place for
the lab and the generator: how slow a speed probe ran against the campaign's reference,
whether an attempt was slow, and which attempt of a run counts.

The lab's runner decides with it which runs to measure again and which attempt it used
(lab/campaign/attempts.py, lab/campaign/probe.py); the build reads the same decision back from
the raw files (generator/arithmetic/attempts.py). The report decides again with its own code on
purpose (generator/report/attempts.py; an import-linter contract keeps it from this module).
The rule reads only the probes in an attempt's metadata and the campaign's reference and
threshold, never a run's results. Nothing here imports anything else from `lab`.
"""

import math

PROBE_PARTS = ("python_us", "model_us", "memory_us")  # what one speed probe times


def slowness(probe: dict, reference: dict) -> float:
    """How much slower than the reference a probe ran: the geometric mean of its parts' ratios
    to the reference (1.0 = reference speed, 1.25 = 25% slower). Not rounded: the rule
    compares it with its threshold; raw files store it rounded to 4 decimals, for people."""
    logs = [math.log(probe[part] / reference[part]) for part in PROBE_PARTS]
    return math.exp(sum(logs) / len(logs))


def attempt_is_slow(before: float, after: float, threshold: float) -> bool:
    """The rule: slow when the probe before or the probe after is above 1 + threshold."""
    return max(before, after) > 1 + threshold


def chosen_attempt(worst: list[float], slow: list[bool], rule_applies: bool) -> int:
    """The attempt (1-based) the rule uses: the first not slow; when every one was slow, the
    one whose slower probe was least slow (the earliest on a tie); attempt 1 where the rule
    does not apply (a kind it does not judge)."""
    if not rule_applies:
        return 1
    for number, was_slow in enumerate(slow, start=1):
        if not was_slow:
            return number
    return 1 + worst.index(min(worst))
