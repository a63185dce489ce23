"""What the runner hands every executor (`Context`), what an executor hands back
(`RunResult`), and how a run fails without stopping the campaign (`RunFailed`)."""

from dataclasses import dataclass, field
from pathlib import Path

from lab.campaign.timeline import Timeline
from lab.design import Profile


@dataclass
class Context:
    campaign: str
    campaign_dir: Path
    cpu: int | None
    profile: Profile
    seed: int
    saturation_s: float | None = None  # S, answers per second, once measured
    header: dict | None = None  # the campaign's campaign.json
    launcher: object = None  # lab.service.launcher.Launcher, when the runner uses one
    # The speed probe (lab/campaign/probe.py ProbeWorker, or a test's stand-in slow host with
    # the same measure(run_id, attempt, moment)), None when the runner has none; the
    # campaign's reference speed; and the attempt being run, (run_id, attempt number).
    probe: object = None
    reference: dict | None = None
    attempt: tuple = (None, None)
    timeline: Timeline = field(default_factory=Timeline)  # the attempt's, new per attempt


class RunFailed(Exception):
    pass


@dataclass
class RunResult:
    """What an executor hands the runner for the raw file: metadata, and the columns (none
    for the bit check); `shared` and `log8` (names, or {name: significant bits}) as
    codec.write_run takes them."""

    meta: dict
    columns: dict | None = None
    shared: dict | None = None  # column name -> shared zip (Part B's arrivals)
    log8: tuple | dict = ()
