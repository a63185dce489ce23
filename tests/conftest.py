"""Shared test fixtures, and the tiers they put a test in (tests/support/tiers.py).

    the model and its data   lab_artifacts, model, store, known_ids, expected_scores,
                             unknown_ids (built once if missing)
    process tier             processes, service_launcher, none_service, start_service
    campaign tier            lab_runner, tiny_campaign
    fulldata tier            built_site, full_campaign_builds (the run's one build)
    browser tier             playwright, browser, patience, site, tours

Run: `make test-fast` (no tier, in parallel, about a minute) or `make test` (everything).
Heavy modules (scikit-learn, the service, Playwright) are imported inside the fixtures that
need them, so the fast tier does not pay for them.
"""

import os

# The model runs on one thread in tests, as in the lab: set before sklearn loads OpenMP, since
# OpenMP threads spinning on a busy 2-core machine make every small call slow.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from tests.support import profiles, tiers  # noqa: E402

SAMPLE_SEED = 20261129

profiles.register()  # the lab may run the tests' `tiny` profile in every test process

# No per-example deadline: on a shared 2-core machine one slow example measures the other
# work on the machine, not the code (the suite's own timeout still stops a hung test).
settings.register_profile("shared_machine", deadline=None)
settings.load_profile("shared_machine")


def pytest_configure(config):
    tiers.register(config)


def pytest_collection_modifyitems(config, items):
    tiers.mark(items)
    tiers.heaviest_first(items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    with tiers.guard(item):  # a test of no tier starts no process, in its fixtures neither
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    with tiers.guard(item):
        return (yield)


# --- the model and its data ------------------------------------------------------------------


@pytest.fixture(scope="session")
def lab_artifacts():
    """The artifact folder; builds the model, store and request list first if missing."""
    from lab.errors import MissingArtifacts
    from lab.model import artifacts

    try:
        return artifacts.folder()
    except MissingArtifacts:
        # Imported only here: building brings pandas and scikit-learn into every test run.
        from lab.model.build import build

        build(echo=lambda *_: None)
        return artifacts.folder()


@pytest.fixture(scope="session")
def model(lab_artifacts):
    from lab.model import artifacts

    return artifacts.load_model()


@pytest.fixture(scope="session")
def store(lab_artifacts):
    from lab.model import artifacts
    from lab.model.store import FeatureStore

    opened = FeatureStore(artifacts.store_path(), check_same_thread=False)
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def known_ids(store) -> list[int]:
    return store.customer_ids()


@pytest.fixture(scope="session")
def expected_scores(model, store, known_ids) -> dict[int, float]:
    """1,000 distinct customers (seeded) and the single-row `score` of each: the reference
    every service answer must equal to the bit."""
    import numpy as np

    from lab.model.scoring import score

    chosen = np.random.default_rng(SAMPLE_SEED).choice(known_ids, 1000, replace=False)
    return {int(cid): float(score(model, store.row(int(cid)))[0]) for cid in chosen}


@pytest.fixture(scope="session")
def unknown_ids(known_ids) -> list[int]:
    """Ids in the valid range that the feature store does not hold."""
    known = set(known_ids)
    candidates = [0, max(known) + 1, max(known) + 12_345, 2**40, 2**53 - 1]
    return [cid for cid in candidates if cid not in known]


# --- the process tier ------------------------------------------------------------------------


@pytest.fixture
def processes():
    """The subprocess module, for a test that starts processes itself: asking for it puts the
    test in the process tier (a test of no tier may not start one)."""
    return tiers.processes()


@pytest.fixture(scope="session")
def service_launcher(lab_artifacts):
    """The lab's pre-loaded launcher (lab/service/launcher.py), as the campaign runner uses it:
    each service it starts is a fresh real uvicorn process forked from one that imported the
    libraries once, so a test pays a fork, not 4 s of imports. Tests of how a service is
    started (`python -m lab serve`, pinning, the launcher itself) start theirs their own way."""
    from lab.service.launcher import Launcher

    with Launcher() as launcher:
        yield launcher


@pytest.fixture(scope="session")
def none_service(service_launcher):
    """One real `batcher none` service for the whole session (read-only tests share it)."""
    with service_launcher.service() as service:  # the default spec: batcher none
        yield service


@pytest.fixture
def start_service(service_launcher):
    """start_service(spec, **options) -> a started real service for that ServiceSpec
    (forked by the launcher), stopped when the test ends."""
    started = []

    def start(spec, **options):
        service = service_launcher.service(spec, **options)
        started.append(service)
        return service.start()

    yield start
    for service in started:
        service.stop()


# --- the campaign tier -----------------------------------------------------------------------


@pytest.fixture
def lab_runner(tmp_path, lab_artifacts):
    """The runner on a raw folder of the test's own (tests/support/labrun.py: stand-in
    executors and a stand-in slow host where the property is the runner's)."""
    from tests.support.labrun import LabRunner

    return LabRunner(tmp_path)


# The one real tiny campaign end to end: real services, clients, Part A, bits and Part C, on
# the stand-in slow host (its probe's figures chosen, so the slow attempts are known).
TINY_SLOW = [
    "bits@1",  # probed, but the rule never re-runs the bit check
    "part_a-0@1",  # slow once: the second attempt counts
    "saturation-0@1",
    "saturation-0@2",  # slow twice: the third attempt counts
    "part_b-r0-x0.5-none@*",  # slow every time: three attempts, marked as never passing
]


@pytest.fixture(scope="session")
def tiny_campaign(tmp_path_factory, lab_artifacts) -> dict:
    """The real tiny campaign `slowhost` on the stand-in slow host, built by the generator:
    {raw, folder, out, output, results_path, results, slow}."""
    import json
    import subprocess
    import sys

    from generator.report import checks as report
    from tests.support.labrun import LabRunner

    raw = tmp_path_factory.mktemp("raw")
    runner = LabRunner(raw)
    done = runner.popen(
        runner.command("slowhost", *TINY_SLOW), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    output, _ = done.communicate(timeout=1200)
    assert done.returncode == 0, output[-3000:]
    out = tmp_path_factory.mktemp("built")
    command = [sys.executable, "-m", "generator", "build", "--raw", str(raw),
               "--campaign", "slowhost", "--out", str(out)]  # fmt: skip
    built = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    results_path = out / "assets" / "data" / "results.json"
    results = report.with_table(json.loads(results_path.read_text()), results_path)
    return {"raw": raw, "folder": raw / "slowhost", "out": out, "output": output,
            "results_path": results_path, "results": results, "slow": TINY_SLOW}  # fmt: skip


# --- the fulldata tier: the run's one build ------------------------------------------------


@pytest.fixture(scope="session")
def shared_builds(tmp_path_factory):
    from tests.support.sitebuild import shared_builds

    return shared_builds(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session", params=["mkdocs", "zensical"])
def built_site(request, shared_builds):
    """The committed data's site with mkdocs.yml's own settings, built by MkDocs and by Zensical
    (each test that reads it runs on both), made once per test run
    (tests/support/sitebuild.py); tests only read it."""
    return shared_builds.sites[request.param]


@pytest.fixture(scope="session")
def full_campaign_builds(shared_builds) -> dict:
    """{campaign: its results.json} for every committed full campaign, from the run's one
    build (the newest is the site's own docs/; the others `python -m generator build`)."""
    return shared_builds.results


# --- the browser tier ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as started:
        yield started


@pytest.fixture(scope="session")
def browser(playwright):
    """One chromium for the session; every context it makes waits with the run's patience."""
    from tests.support.browser import PatientBrowser, launch

    chromium = launch(playwright)
    yield PatientBrowser(chromium)
    chromium.close()


@pytest.fixture(scope="session")
def served_site(shared_builds):
    """(site_dir, base URL): the run's MkDocs build served on a free port of 127.0.0.1, an
    address other than the build's own (site_src/js/site-address.js makes any address work).
    Every browser test runs on it; tests/test_builds_browser.py runs a stated subset on
    Zensical's build and under a sub-path too."""
    from tests.support.browser import free_port, serve

    with serve(shared_builds.site, free_port()) as base:
        yield shared_builds.site, base


@pytest.fixture(scope="session")
def patience(browser, served_site):
    """Every browser wait, scaled from this host's first Python start in the explorer
    (tests/support/browser.py `Patience`), measured once per session."""
    from tests.support.browser import calibrate_patience, patience

    calibrate_patience(browser, *served_site)
    return patience


@pytest.fixture(scope="session")
def site(served_site, patience):
    """(site_dir, base URL) of the served build, with the browser's patience measured."""
    return served_site


@pytest.fixture(scope="session")
def tours(site):
    """tours(viewport) -> [PageSeen]: a reader's tour of every page at that size
    (tests/support/tour.py), once per run. The first test that asks starts every size's tour,
    side by side on threads with a browser each, and waits for its own."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.support.browser import VIEWPORTS
    from tests.support.tour import tour_in_its_own_browser

    pool = ThreadPoolExecutor(max_workers=len(VIEWPORTS), thread_name_prefix="tour")
    made = {}

    def of(viewport: str):
        if not made:
            made.update(
                {size: pool.submit(tour_in_its_own_browser, site[1], size) for size in VIEWPORTS}
            )
        return made[viewport].result()

    yield of
    pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="module")
def shared_context(browser, site):
    """One browser context for a module's tests: its pages are a reader's later visits, so
    the explorer starts from the Python saved on a first visit (the saved start prints what a
    normal start prints: tests/test_explorer_snapshot.py). A test that changes what a context
    keeps (the palette, the saved Python) or counts requests makes its own."""
    from tests.support.browser import save_python

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    save_python(context, site[1])
    yield context
    context.close()


@pytest.fixture
def fresh_context(browser):
    """A context of the test's own: an empty HTTP cache, nothing saved (a test that counts the
    requests a page makes)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


@pytest.fixture
def context(shared_context):
    """The module's shared context, with every page a test opened closed after it."""
    yield shared_context
    for page in shared_context.pages:
        page.close()
