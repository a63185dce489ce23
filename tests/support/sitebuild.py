"""Building the site as a reader gets it, for the tests, and once per test run.

A build is two steps, as `make build` makes it: `python -m generator build` writes a docs/ folder
(the repository's docs/ is never written by a test), then a builder turns it into the site:
MkDocs (`mkdocs build --strict`, the default) or Zensical (`zensical build --strict`), both from
mkdocs.yml (`site_build`, `builder_run`). `shared_builds` makes the run's one build of everything
the tests read, the first time any test asks, and hands the same folders to every later asker,
in this process, in the other pytest-xdist worker, and in the browser tier's own pytest run when
`make test` gives both runs one folder (LESSON_TEST_BUILDS):

    <shared>/builds/docs/        the docs/ the generator wrote: the newest full campaign's
                                 results.json, charts and pages
    <shared>/builds/site/        MkDocs' build of it with mkdocs.yml's own settings (any address
                                 works: site_src/js/site-address.js)
    <shared>/builds/site-zensical/   Zensical's build of the same docs/, the same mkdocs.yml
    <shared>/builds/campaigns/<name>/   `python -m generator build` of every other committed
                                 full campaign, side by side with the site's build

The deliberately broken builds (tests/test_site_build.py) use `site_build` and `at_once`;
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

from generator.reading import load

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_RAW = ROOT / "tests" / "fixtures" / "raw"
SHARED_ENV = "LESSON_TEST_BUILDS"
BUILDERS = ("mkdocs", "zensical")  # the default builder first
SITE_FOLDERS = {"mkdocs": "site", "zensical": "site-zensical"}  # as `make build*` name them
ZENSICAL_OUT = ".zensical-out"  # Zensical's output folder beside the docs/ it reads


def raw_dir() -> Path:
    """LESSON_RAW when set, else the committed campaigns, else the generator's fixture one."""
    if os.environ.get("LESSON_RAW"):
        return Path(os.environ["LESSON_RAW"])
    committed = ROOT / "data" / "raw"
    if committed.is_dir() and any(p.is_dir() for p in committed.iterdir()):
        return committed
    return FIXTURE_RAW


def run(command: list, **options) -> subprocess.CompletedProcess:
    """A command of this repository's Python, run from its root (the builders import the
    Markdown extension site_src.boxes from there), its output kept."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", **options.pop("env", {}))
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600, check=False, **options,
    )  # fmt: skip


def generate(docs: Path, raw: Path | None = None, site_src: Path = ROOT / "site_src"):
    """`python -m generator build` of the site's sources in `site_src` into `docs`."""
    return run(["generator", "build", "--raw", str(raw or raw_dir()), "--out", str(docs),
                "--site-src", str(site_src)])  # fmt: skip


def builder_config(config: Path, docs: Path, builder: str) -> Path:
    """A config beside `docs` inheriting `config`, reading `docs` (its custom_dir made absolute,
    as the builders resolve it from the config that names it). Zensical also wants its output
    folder and its cache inside the config's own folder: ZENSICAL_OUT and .cache/ there."""
    with config.open() as opened:
        theme = yaml_load(opened)["theme"]
    # Folders relative to the child config's own: Zensical 0.0.73 panics on absolute ones.
    child = {"INHERIT": str(config.resolve()), "docs_dir": docs.name}
    if theme.get("custom_dir"):
        child["theme"] = {"custom_dir": str((config.parent / theme["custom_dir"]).resolve())}
    if builder == "zensical":
        child["site_dir"] = ZENSICAL_OUT
    path = docs.parent / f"{builder}.yml"
    path.write_text(json.dumps(child))  # JSON is YAML
    return path


def builder_run(
    builder: str, docs: Path, site_dir: Path, config: Path = ROOT / "mkdocs.yml",
    site_url: str | None = None,
) -> subprocess.CompletedProcess:  # fmt: skip
    """The builder's strict build of the generated `docs` into `site_dir` (LESSON_SITE_URL:
    `site_url`, when given)."""
    child = builder_config(Path(config), Path(docs), builder)
    env = {"LESSON_SITE_URL": site_url} if site_url else {}
    if builder == "mkdocs":
        return run(["mkdocs", "build", "--strict", "-f", str(child), "-d", str(site_dir)], env=env)
    done = run(["zensical", "build", "--strict", "--clean", "-f", str(child)], env=env)
    if done.returncode == 0:
        shutil.rmtree(site_dir, ignore_errors=True)
        shutil.move(docs.parent / ZENSICAL_OUT, site_dir)
    return done


def site_build(
    site_dir: Path,
    config: Path = ROOT / "mkdocs.yml",
    site_url: str | None = None,
    keep_docs: Path | None = None,
    raw: Path | None = None,
    builder: str = "mkdocs",
) -> subprocess.CompletedProcess:
    """The site of `config` (and the site_src/ beside it) built as `make build` builds it, into
    `site_dir`, from the campaigns in `raw` (default `raw_dir()`): the generator into a
    temporary docs/ folder (removed afterwards unless `keep_docs` names where to keep it), then
    the builder. The result holds both steps' output; its return code is the first failure's."""
    with tempfile.TemporaryDirectory(prefix="lesson-docs-") as work:
        docs = Path(work) / "docs"
        done = generate(docs, raw, Path(config).parent / "site_src")
        if done.returncode == 0:
            built = builder_run(builder, docs, Path(site_dir), Path(config), site_url)
            done = subprocess.CompletedProcess(
                built.args, built.returncode, done.stdout + built.stdout, done.stderr + built.stderr
            )
        if keep_docs is not None and done.returncode == 0:
            shutil.copytree(docs, keep_docs)
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
    """The run's shared build: the site by each builder, their docs/, and every full campaign's
    results.json."""

    sites: dict  # {builder: its site folder}
    docs: Path
    results: dict  # {full campaign: its results.json}

    @property
    def site(self) -> Path:
        """The default builder's (MkDocs') site."""
        return self.sites[BUILDERS[0]]


def full_campaigns(raw: Path) -> list[str]:
    """The committed full campaigns, oldest first (by name: full-YYYYMMDD)."""
    names = []
    for info in sorted(raw.glob("*/campaign.json")):
        if json.loads(info.read_text())["profile"] in load.FULL_PROFILES:
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
    """The site's docs/ and each older full campaign's generator build, side by side (one
    process each, as many at once as there are cores); then both builders' sites of that docs/,
    side by side too."""
    from generator.reading.load import find_campaign  # the campaign the site shows, as it chooses

    raw = raw_dir()
    newest = find_campaign(raw, None).name
    older = [name for name in full_campaigns(raw) if name != newest]
    calls = {"site": functools.partial(generate, folder / "docs", raw)}
    for name in older:
        command = ["generator", "build", "--raw", str(raw), "--campaign", name,
                   "--out", str(folder / "campaigns" / name)]  # fmt: skip
        calls[name] = functools.partial(run, command)
    finished = at_once(calls)
    if finished["site"].returncode == 0:  # the builders read the docs/ it wrote
        sites = {builder: folder / SITE_FOLDERS[builder] for builder in BUILDERS}
        finished |= at_once(
            {b: functools.partial(builder_run, b, folder / "docs", sites[b]) for b in BUILDERS}
        )
    for name, done in finished.items():
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
    sites = {builder: folder / SITE_FOLDERS[builder] for builder in BUILDERS}
    return Builds(sites, folder / "docs", dict(sorted(results.items())))
