"""The test tiers, given by the fixtures a test uses (tests/conftest.py applies them at
collection, so a test cannot forget its tier):

    browser   real chromium against the built site        (fixtures: playwright, browser,
                                                            served_site, patience, site)
    fulldata  the committed full campaigns built           (shared_builds, built_site,
                                                            full_campaign_builds)
    campaign  the lab's runner on a tiny campaign          (lab_runner, tiny_campaign)
    process   real services or other processes             (processes, service_launcher,
                                                            none_service, start_service)

`make test-fast` runs every test in none of them; `make test` runs them all (the browser
tier in a run of its own, after the others). A test in no tier may not start a process:
`guard` turns such a start into a failure naming the fixture to ask for, so a slow test
cannot hide in the fast tier.
"""

import contextlib
import subprocess

TIERS = {
    "browser": {"playwright", "browser", "served_site", "patience", "site"},
    "fulldata": {"shared_builds", "built_site", "full_campaign_builds"},
    "campaign": {"lab_runner", "tiny_campaign"},
    "process": {"processes", "service_launcher", "none_service", "start_service"},
}
DESCRIPTIONS = {
    "browser": "real headless Chromium against the built site",
    "fulldata": "builds or reads the committed full campaigns' builds",
    "campaign": "runs the lab's campaign runner",
    "process": "starts a real service or another process",
}
FAST = "not (" + " or ".join(TIERS) + ")"


def register(config) -> None:
    for tier, text in DESCRIPTIONS.items():
        config.addinivalue_line("markers", f"{tier}: {text} (applied from its fixtures)")


def mark(items) -> None:
    """Each test gets the marker of every tier whose fixtures it uses (directly or through
    other fixtures: pytest's closure of its fixture names)."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for tier, fixtures in TIERS.items():
            if used & fixtures:
                item.add_marker(tier)


# The order files start in when the tiers share two workers: the longest work first, so no
# long file starts late and runs alone at the end (pytest-xdist hands out files in order).
START_ORDER = ("tiny_campaign", "full_campaign_builds", "built_site", "lab_runner",
               "service_launcher", "processes")  # fmt: skip


def heaviest_first(items) -> None:
    """Reorder `items` in place, file by file (a file's tests stay together and in their
    order): a file goes as early as the earliest START_ORDER fixture any of its tests uses."""

    def rank(item) -> int:
        used = set(getattr(item, "fixturenames", ()))
        return min([START_ORDER.index(f) for f in START_ORDER if f in used] or [len(START_ORDER)])

    files: dict = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    ordered = sorted(files.values(), key=lambda group: min(rank(item) for item in group))
    items[:] = [item for group in ordered for item in group]


def in_a_tier(node) -> bool:
    return any(node.get_closest_marker(tier) for tier in TIERS)


@contextlib.contextmanager
def guard(item):
    """While a test of no tier is set up and run (its module's and session's fixtures too),
    starting a process fails, naming the fixture that would put the test in its tier."""
    if in_a_tier(item):
        yield
        return
    original = subprocess.Popen.__init__

    def refuse(self, args, *rest, **options):
        raise AssertionError(
            f"{item.nodeid} starts a process ({args!r}) but uses no fixture of a tier: ask "
            f"for `processes` (or the fixture of its tier, tests/support/tiers.py)"
        )

    subprocess.Popen.__init__ = refuse
    try:
        yield
    finally:
        subprocess.Popen.__init__ = original


def processes():
    """The fixture `processes`: the subprocess module, for a test that starts processes
    itself (asking for it is what puts the test in the process tier)."""
    return subprocess
