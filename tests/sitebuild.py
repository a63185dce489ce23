"""Building the site as a reader gets it, for the tests: `mkdocs build --strict` into a given
folder, with the generated docs/ in a temporary folder (the repository's docs/ is never
written by a test).

Used by tests/test_site_build.py, tests/test_browser.py and tests/bench_site.py; the full
campaigns' generator builds and reports (tests/conftest.py, tests/test_report.py) run side by
side with `side_by_side`, the deliberately broken builds (tests/test_site_build.py) with `at_once`.
"""

import functools
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_RAW = ROOT / "tests" / "fixtures" / "raw"


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
    site_dir: Path, config: Path = ROOT / "mkdocs.yml", site_url: str | None = None
) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of `config` into `site_dir` (the hook runs the generator into
    a temporary docs/ folder, removed afterwards)."""
    env = dict(os.environ, LESSON_RAW=str(raw_dir()), NO_MKDOCS_2_WARNING="1")
    if site_url:
        env["LESSON_SITE_URL"] = site_url
    with tempfile.TemporaryDirectory(prefix="lesson-docs-") as work:
        child = temporary_config(Path(config), Path(work))
        command = ["mkdocs", "build", "--strict", "-f", str(child), "-d", str(site_dir)]
        return subprocess.run(
            [sys.executable, "-m", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


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
