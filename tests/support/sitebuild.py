"""Building the site as a reader gets it, for the tests, and once per test run.

`mkdocs_build` runs `mkdocs build --strict` into a given folder, with the generated docs/ in a
folder of its own (the repository's docs/ is never written by a test). `shared_builds` makes
the run's one build of everything the tests read, the first time any test asks, and hands the
same folders to every later asker, in this process, in the other pytest-xdist worker, and in
the browser tier's own pytest run when `make test` gives both runs one folder
(LESSON_TEST_BUILDS):

    <shared>/builds/site/        mkdocs.yml's own settings, the committed data (any address
                                 works: site_src/js/site-address.js)
    <shared>/builds/docs/        the docs/ that build generated: the newest full campaign's
                                 results.json, charts and pages
    <shared>/builds/campaigns/<name>/   `python -m generator build` of every other committed
                                 full campaign, side by side with the site's build

The deliberately broken builds (tests/test_site_build.py) use `mkdocs_build` and `at_once`;
the full campaigns' reports (tests/test_report.py) `side_by_side`.
"""

import fcntl
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_RAW = ROOT / "tests" / "fixtures" / "raw"
SHARED_ENV = "LESSON_TEST_BUILDS"


def raw_dir() -> Path:
    """LESSON_RAW when set, else the committed campaigns, else the generator's fixture one."""
    if os.environ.get("LESSON_RAW"):
        return Path(os.environ["LESSON_RAW"])
    committed = ROOT / "data" / "raw"
    if committed.is_dir() and any(p.is_dir() for p in committed.iterdir()):
        return committed
    return FIXTURE_RAW


def temporary_config(config: Path, work: Path) -> Path:
    """A config inheriting `config` whose docs_dir is work/docs (hooks kept, made absolute)."""
    with config.open() as opened:
        hooks = yaml_load(opened).get("hooks", [])
    child = {
        "INHERIT": str(config.resolve()),
        "docs_dir": str(work / "docs"),
        "hooks": [str((config.parent / hook).resolve()) for hook in hooks],
    }
    (work / "docs").mkdir()
    path = work / "mkdocs.yml"
    path.write_text(json.dumps(child))  # JSON is YAML
    return path


def mkdocs_build(
    site_dir: Path,
    config: Path = ROOT / "mkdocs.yml",
    site_url: str | None = None,
    keep_docs: Path | None = None,
    raw: Path | None = None,
) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of `config` into `site_dir` from the campaigns in `raw` (default
    `raw_dir()`); the hook runs the generator into a temporary docs/ folder, removed
    afterwards unless `keep_docs` names where to keep it."""
    env = dict(os.environ, LESSON_RAW=str(raw or raw_dir()), NO_MKDOCS_2_WARNING="1")
    if site_url:
        env["LESSON_SITE_URL"] = site_url
    with tempfile.TemporaryDirectory(prefix="lesson-docs-") as work:
        child = temporary_config(Path(config), Path(work))
        command = ["mkdocs", "build", "--strict", "-f", str(child), "-d", str(site_dir)]
        done = subprocess.run(
            [sys.executable, "-m", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if keep_docs is not None and done.returncode == 0:
            shutil.copytree(Path(work) / "docs", keep_docs)
        return done


def at_once(calls: dict) -> dict:
    """{name: result} of calls (name: a function of no arguments that runs one process and
    waits for it) made at once, as many as the machine has cores (the generator's builds and
    reports, and mkdocs, are one process each, on one core)."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        started = {name: pool.submit(call) for name, call in calls.items()}
        return {name: future.result() for name, future in started.items()}


def side_by_side(commands: dict, cwd: Path, timeout: float = 600) -> dict:
    """{name: CompletedProcess} of commands run at once (`at_once`)."""
    run = functools.partial(
        subprocess.run, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    return at_once({name: functools.partial(run, command) for name, command in commands.items()})


# --- the run's one build ----------------------------------------------------------------------


@dataclass(frozen=True)
class Builds:
    """The run's shared build: the site, its docs/, and every full campaign's results.json."""

    site: Path
    docs: Path
    results: dict  # {full campaign: its results.json}


def full_campaigns(raw: Path) -> list[str]:
    """The committed full campaigns, oldest first (by name: full-YYYYMMDD)."""
    names = []
    for info in sorted(raw.glob("*/campaign.json")):
        if json.loads(info.read_text())["profile"] == "full":
            names.append(info.parent.name)
    return names


def shared_folder(basetemp: Path) -> Path:
    """Where this test run's shared builds live: LESSON_TEST_BUILDS (`make test` gives both of
    its pytest runs one), else the folder every xdist worker of this run shares, else this
    pytest run's own temporary folder."""
    if os.environ.get(SHARED_ENV):
        folder = Path(os.environ[SHARED_ENV])
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        folder = basetemp.parent / "shared"
    else:
        folder = basetemp / "shared"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def once(folder: Path, make) -> Path:
    """`folder`, made by `make(folder)` by the first of the run's processes to ask (the others
    wait on a lock, then reuse it). A failed make leaves no folder: the next asker tries again
    and fails the same way, with its own message."""
    with open(folder.with_name(folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        complete = folder / ".complete"
        if not complete.exists():
            shutil.rmtree(folder, ignore_errors=True)
            try:
                make(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            complete.write_text("made\n")
    return folder


def make_builds(folder: Path) -> None:
    """The site (its docs/ kept) and each older full campaign's generator build, side by
    side (one process each, as many at once as there are cores)."""
    from generator.reading.load import find_campaign  # the campaign the site shows, as it chooses

    raw = raw_dir()
    newest = find_campaign(raw, None).name
    older = [name for name in full_campaigns(raw) if name != newest]
    calls = {
        "site": functools.partial(mkdocs_build, folder / "site", keep_docs=folder / "docs"),
    }
    for name in older:
        command = [sys.executable, "-m", "generator", "build", "--raw", str(raw),
                   "--campaign", name, "--out", str(folder / "campaigns" / name)]  # fmt: skip
        calls[name] = functools.partial(
            subprocess.run, command, cwd=ROOT, capture_output=True, text=True, timeout=600
        )
    for name, done in at_once(calls).items():
        if done.returncode != 0:
            raise RuntimeError(f"{name}: the build failed:\n{done.stdout}\n{done.stderr}")
    (folder / "newest.txt").write_text(newest if newest in full_campaigns(raw) else "")


def shared_builds(basetemp: Path) -> Builds:
    """The run's one build of the site and of every committed full campaign (`once`)."""
    folder = once(shared_folder(basetemp) / "builds", make_builds)
    results = {}
    newest = (folder / "newest.txt").read_text()
    if newest:
        results[newest] = folder / "docs" / "assets" / "data" / "results.json"
    for campaign in sorted((folder / "campaigns").glob("*")):
        results[campaign.name] = campaign / "assets" / "data" / "results.json"
    return Builds(folder / "site", folder / "docs", dict(sorted(results.items())))
