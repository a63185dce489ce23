"""What the runner hands every executor (`Context`), what an executor hands back
(`RunResult`), and how a run fails without stopping the campaign (`RunFailed`)."""

from dataclasses import dataclass
from pathlib import Path

from lab.design import Profile


@dataclass
class Context:
    campaign: str
    campaign_dir: Path
    cpu: int | None
    profile: Profile
    seed: int
    saturation_s: float | None = None  # S, answers per second, once measured
    launcher: object = None  # lab.service.launcher.Launcher, when the runner uses one


class RunFailed(Exception):
    pass


@dataclass
class RunResult:
    """What an executor hands the runner for the raw file. columns None: the run wrote its
    own file in a fresh pinned process (Part A, bits) and the runner only checks it."""

    meta: dict
    columns: dict | None = None
    shared: dict | None = None  # column name -> shared zip (Part B's arrivals)
    log8: tuple = ()
