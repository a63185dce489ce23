"""Shared test fixtures: the built artifacts (built once if missing), the model, a sample of
customers with their single-row scores, and real service processes on free ports.

Run: `.venv/bin/pytest` (or `make test`).
"""

import os

# The model runs on one thread in tests, as in the lab: set before sklearn loads OpenMP, since
# OpenMP threads spinning on a busy 2-core machine make every small call slow.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from lab.errors import MissingArtifacts  # noqa: E402
from lab.model import artifacts  # noqa: E402
from lab.model.scoring import score  # noqa: E402
from lab.model.store import FeatureStore  # noqa: E402
from lab.service.process import ServiceProcess  # noqa: E402

SAMPLE_SEED = 20261129

# No per-example deadline: on a shared 2-core machine one slow example measures the other
# work on the machine, not the code (the suite's own timeout still stops a hung test).
settings.register_profile("shared_machine", deadline=None)
settings.load_profile("shared_machine")


@pytest.fixture(scope="session")
def lab_artifacts():
    """The artifact folder; builds the model, store and request list first if missing."""
    try:
        return artifacts.folder()
    except MissingArtifacts:
        # Imported only here: building brings pandas and scikit-learn into every test run.
        from lab.model.build import build

        build(echo=lambda *_: None)
        return artifacts.folder()


@pytest.fixture(scope="session")
def model(lab_artifacts):
    return artifacts.load_model()


@pytest.fixture(scope="session")
def store(lab_artifacts):
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
    chosen = np.random.default_rng(SAMPLE_SEED).choice(known_ids, 1000, replace=False)
    return {int(cid): float(score(model, store.row(int(cid)))[0]) for cid in chosen}


@pytest.fixture(scope="session")
def unknown_ids(known_ids) -> list[int]:
    """Ids in the valid range that the feature store does not hold."""
    known = set(known_ids)
    candidates = [0, max(known) + 1, max(known) + 12_345, 2**40, 2**53 - 1]
    return [cid for cid in candidates if cid not in known]


@pytest.fixture(scope="session")
def none_service(lab_artifacts):
    """One real `batcher none` service for the whole session (read-only tests share it)."""
    with ServiceProcess(batcher="none") as service:
        yield service


@pytest.fixture
def start_service(lab_artifacts):
    """start_service(batcher, max_batch, max_wait_ms, **kwargs) -> a started ServiceProcess,
    stopped when the test ends."""
    started = []

    def start(batcher="none", max_batch=0, max_wait_ms=0.0, **kwargs) -> ServiceProcess:
        service = ServiceProcess(batcher, max_batch, max_wait_ms, **kwargs)
        started.append(service)
        return service.start()

    yield start
    for service in started:
        service.stop()


# --- the committed campaigns, built into a temporary folder ------------------------------


@pytest.fixture(scope="session")
def full_campaign_builds(tmp_path_factory) -> dict:
    """{campaign: its results.json} for every committed full campaign, each built once per
    session by `python -m generator build` into a temporary folder (never into docs/); the
    builds run side by side, one per core."""
    import json
    import sys
    from pathlib import Path

    from sitebuild import side_by_side

    root = Path(__file__).resolve().parent.parent
    commands, built = {}, {}
    for info_path in sorted((root / "data" / "raw").glob("*/campaign.json")):
        if json.loads(info_path.read_text())["profile"] != "full":
            continue
        name = info_path.parent.name
        out = tmp_path_factory.mktemp(f"built-{name}")
        commands[name] = [sys.executable, "-m", "generator", "build", "--campaign", name,
                          "--out", str(out)]  # fmt: skip
        built[name] = out / "assets" / "data" / "results.json"
    for name, done in side_by_side(commands, cwd=root).items():
        assert done.returncode == 0, f"{name}: " + done.stdout + done.stderr
    return built


# --- the site as a reader gets it, built once per session and served over HTTP -------------


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """(site_dir, base URL): `mkdocs build --strict` of the committed data for a free port on
    127.0.0.1, served there for the whole session. The browser tests only read it; a test that
    needs another build (another address, a changed config) makes its own `site`."""
    import test_browser as site_tools

    site_dir, port = tmp_path_factory.mktemp("served-site"), site_tools.free_port()
    site_tools.build_site(site_dir, f"http://127.0.0.1:{port}/")
    with site_tools.serve(site_dir, port) as base:
        yield site_dir, base


@pytest.fixture(scope="session")
def default_site(tmp_path_factory):
    """`mkdocs build --strict` of the committed data with mkdocs.yml's own settings (no site
    address given), once per session; tests only read it (test_site_build, test_explorer_box)."""
    from sitebuild import mkdocs_build

    site_dir = tmp_path_factory.mktemp("default-site")
    done = mkdocs_build(site_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    return site_dir
