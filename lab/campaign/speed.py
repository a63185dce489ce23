"""The runner's use of the speed probe (lab/campaign/probe.py): the calibration at a
campaign's start, and one probe right before and one right after each attempt's timed part.

    calibrate(probe, profile, cpu)   -> campaign.json's `speed_probe`: {reference, probes, …}
    probe_now(context, "before")     -> {"probe_before": {python_us, model_us, memory_us, at,
                                         cpu, slowness}} ({} when the runner has no probe)

The reference is each part's median over the calibration probes, each taken after a quiet
check; a resumed campaign reuses the recorded one. Used by the runner and the executors.
"""

import time

from lab.campaign.context import Context
from lab.campaign.probe import reference_of, workload
from lab.design import Profile
from lab.machine.quiet import quiet_check
from lab.rawformat.slowrun import slowness

QUIET_KEYS = ("quiet", "tries", "idle_share", "other_cores_idle_share")


def calibrate(probe, profile: Profile, cpu: int | None, echo=None) -> dict:
    """`profile.probe_calibration` probes, each right after a quiet check: the reference."""
    probes = []
    for _ in range(profile.probe_calibration):
        quiet = quiet_check(
            cpu if cpu is not None else 0,
            seconds=profile.quiet_seconds,
            tries=profile.quiet_tries,
            echo=echo,
        )
        reading = probe.measure(None, None, "calibration")
        probes.append({**reading, "quiet": {key: quiet[key] for key in QUIET_KEYS}})
    reference = reference_of(probes)
    for reading in probes:
        reading["slowness"] = round(slowness(reading, reference), 4)
    return {
        "reference": reference,
        "probes": probes,
        "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "workload": workload(),
    }


def probe_now(context: Context, moment: str) -> dict:
    """The probe right now, as the run's `probe_<moment>` with its slowness against the
    campaign's reference; nothing when the runner has no probe (`python -m lab partc`) or the
    profile takes none at this moment (`Profile.probes`: full3 probes after the window only)."""
    if context.probe is None or moment not in context.profile.probes:
        return {}
    run_id, attempt = context.attempt
    reading = context.probe.measure(run_id, attempt, moment)
    if context.reference is not None:
        reading["slowness"] = round(slowness(reading, context.reference), 4)
    context.timeline.mark(f"probe_{moment}")
    return {f"probe_{moment}": reading}
