"""The site builds strictly and fails loudly: `pytest tests/test_site_build.py`.

Builds as `make build` does, the generator then the builder (tests/support/sitebuild.py: the
committed campaign, or the generator's fixture campaign before one is committed), into a
temporary folder, its docs/ too, and checks what a reader gets, in MkDocs' build and in
Zensical's (`built_site`): every page of the nav, every chart named by a page has a spec, the
runtimes are the pinned files, the original box's facts are filled in, and nothing is fetched
from another origin. Then it breaks things on purpose (MkDocs, the default builder): a template
naming a missing value, an unknown reference fact, a chart without a spec, a page left out of
the nav, a broken link (those five built side by side), missing runtimes.
"""

import functools
import hashlib
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.__main__ import RESULTS_BUDGET
from generator.reading import load
from tests.support.sitebuild import FIXTURE_RAW, at_once, raw_dir, site_build

ROOT = Path(__file__).resolve().parent.parent

PAGES = ROOT / "site_src" / "pages"
NAV_PAGES = [
    "index.html",
    "words/index.html",
    "design/index.html",
    "lab/index.html",
    "part-a/index.html",
    "saturation/index.html",
    "part-b/index.html",
    "handler/index.html",
    "batch-route/index.html",
    "explorer/index.html",
    "simulator/index.html",
    "guesses/index.html",
    "campaigns/index.html",
    "limits/index.html",
    "takeaways/index.html",
    "run-it/index.html",
]


@pytest.fixture(scope="module")
def site(built_site):
    """The run's one build with mkdocs.yml's own settings, by each builder (conftest.py's
    `built_site`)."""
    return built_site


def test_every_page_of_the_nav_is_built(site):
    for page in NAV_PAGES:
        assert (site / page).is_file(), page
    assert not (site / "_macros.j2").exists()


class Nesting(HTMLParser):
    """Every element's depth, counted as the page's tags open and close (void ones excepted)."""

    VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}

    def __init__(self):
        super().__init__()
        self.open: list[str] = []
        self.problems: list[str] = []
        self.boxed_tables = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table" and self.open[-1:] == ["div.table-box"]:
            self.boxed_tables += 1
        if tag not in self.VOID:
            is_box = tag == "div" and ("class", "table-box") in attrs
            self.open.append("div.table-box" if is_box else tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.open or self.open[-1].split(".")[0] != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else None}>")
            return
        self.open.pop()


def test_every_page_closes_what_it_opens_and_each_table_box_holds_its_table(site):
    """The pages' own rewriting (site_src/boxes.py puts Markdown tables in a .table-box) leaves
    every page well nested: a stray </div> would close Material's text column early."""
    for page in NAV_PAGES:
        html = (site / page).read_text()
        nesting = Nesting()
        nesting.feed(html)
        assert not nesting.problems, (page, nesting.problems[:3])
        assert nesting.boxed_tables == html.count('<div class="table-box">'), page


def test_every_chart_a_page_names_has_a_spec(site):
    named = set()
    for page in NAV_PAGES:
        named |= set(re.findall(r'data-chart="([^"]+)"', (site / page).read_text()))
    assert named
    for name in named:
        assert (site / "assets" / "charts" / f"{name}.json").is_file(), name


def test_the_runtimes_are_the_pinned_files(site):
    from site_src import vendor

    for pin in vendor.SITE_PINS:
        for name, sha256 in pin.files.items():
            path = site / "assets" / "vendor" / pin.folder / name
            assert hashlib.sha256(path.read_bytes()).hexdigest() == sha256, path
    # The tests' accessibility checker is pinned the same way and never shipped.
    assert vendor.AXE in vendor.PINS and vendor.AXE not in vendor.SITE_PINS
    assert not (site / "assets" / "vendor" / vendor.AXE.folder).exists()


def test_the_explorer_and_its_data_ship_with_the_site(site):
    shipped = site / "assets" / "explorer" / "explorer.py"
    assert shipped.read_bytes() == (ROOT / "site_src/explorer/explorer.py").read_bytes()
    assert (site / "assets" / "data" / "results.json").is_file()
    assert "data-explorer" in (site / "explorer" / "index.html").read_text()
    simulator = site / "assets" / "explorer" / "simulate.py"  # and the simulator, with its check
    assert simulator.read_bytes() == (ROOT / "site_src/explorer/simulate.py").read_bytes()
    assert (site / "assets" / "data" / "simulation.json").is_file()


def test_reference_facts_are_filled_in_and_no_mark_is_left(site):
    guesses = (site / "guesses" / "index.html").read_text()
    assert "[[ref:" not in guesses
    assert "1,098.4" in guesses  # S on the original box, from reference_box.json
    assert "c7g.medium" in guesses


def test_pages_name_their_campaign_and_machine(site):
    pages = ["index.html", "part-a/index.html", "part-b/index.html", "explorer/index.html",
             "simulator/index.html"]  # fmt: skip
    campaign = json.loads((site / "assets" / "data" / "results.json").read_text())["campaign"]
    for page in pages:
        line = re.search(r'<p class="provenance">(.*?)</p>', (site / page).read_text(), re.S)
        assert line, page
        text = re.sub(r"<[^>]+>", "", line[1])  # the line's words (a phone hides some spans)
        assert f"Measured in {campaign['name']}" in text and "<strong>" in line[1], page
        assert campaign["machine"]["fingerprint"]["cpu_model"] in text, page
        assert '<a href="../lab/">details</a>' in line[1] or 'href="lab/">details' in line[1]
    lab = (site / "lab" / "index.html").read_text()
    line = re.search(r'<p class="provenance">(.*?)</p>', lab, re.S)
    assert line and "href" not in line[1]  # the box page is the details: no link to itself


def complete_full_campaigns() -> list[str]:
    """The committed full campaigns with every scheduled run, oldest first (issue 15)."""
    return [c.name for c in load.opened_campaigns(raw_dir(), "newest") if load.is_full(c)]


def test_the_newest_full_campaign_is_shown_and_compared_with_the_others(site):
    full = complete_full_campaigns()
    assert full, "no complete full campaign committed"
    data = site / "assets" / "data"
    shown = json.loads((data / "results.json").read_text())
    assert shown["campaign"]["name"] == full[-1]
    if len(full) == 1:  # nothing to compare: no comparison, and the page says so
        assert "comparison" not in shown and not (data / "comparison.json").exists()
        assert "nothing to compare yet" in (site / "campaigns" / "index.html").read_text()
        return
    whole = json.loads((data / "comparison.json").read_text())
    assert [a["campaign"]["name"] for a in whole["against"]] == full[:-1]
    page = (site / "campaigns" / "index.html").read_text()
    for name in full:
        assert name in page
    # p50, p99 and throughput against each other campaign
    assert page.count('<table class="heatmap" tabindex="0">') == 3 * (len(full) - 1)
    against = whole["against"][-1]
    other = json.loads((data / "campaigns" / f"{full[-2]}.json").read_text())
    assert other["campaign"]["chosen"] == "compared"
    row = next(r for r in against["cells"] if all(r["measured"]) and r["p50_ms"]["values"][1])
    cell = other["part_b"]["settings"][row["setting"]]["rates"][row["rate"]]
    assert row["p50_ms"]["values"][1] == cell["p50_ms"]  # the same number, from the same build
    mine = shown["part_b"]["settings"][row["setting"]]["rates"][row["rate"]]
    assert row["p50_ms"]["values"][0] == mine["p50_ms"]


def test_the_results_fit_the_explorers_budget(site):
    """The explorer loads results.json whole on every visit (generator/__main__.py says why
    the budget is what it is)."""
    size = (site / "assets" / "data" / "results.json").stat().st_size
    assert 0 < size <= RESULTS_BUDGET, f"results.json is {size:,} bytes"


def test_the_simulator_is_checked_against_every_full_campaign(site):
    """results.json's `simulation.others`: every other complete full campaign, each on its
    own calibration, its summary over all its measured cells and the batched ones held out."""
    full = complete_full_campaigns()
    shown = json.loads((site / "assets" / "data" / "results.json").read_text())["simulation"]
    assert sorted(shown.get("others", {})) == full[:-1]
    for name, other in shown.get("others", {}).items():
        assert other["summary"]["cells"] > other["held_out"]["cells"] > 0, name
        assert 0 <= other["summary"]["keeps_up_agree"] <= other["summary"]["cells"], name
    page = (site / "simulator" / "index.html").read_text()
    assert all(name in page for name in full)


def test_no_page_loads_anything_from_another_origin(site):
    pattern = re.compile(r'(?:src|href)="(https?:)?//(?!127\.0\.0\.1)[^"]+\.(?:js|css|mjs|woff2?)"')
    for page in NAV_PAGES:
        assert not pattern.findall((site / page).read_text()), page


# --- failing loudly ---------------------------------------------------------------------


def make_scratch(folder: Path) -> Path:
    """A copy of the site sources (config, site_src/) to break without touching the real ones."""
    copy = folder / "project"
    shutil.copytree(
        ROOT / "site_src", copy / "site_src", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copyfile(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    (copy / "vendor").symlink_to(ROOT / "vendor")  # the checked runtimes, not fetched again
    return copy


@pytest.fixture
def scratch(tmp_path):
    return make_scratch(tmp_path)


def build_scratch(scratch: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    # The generator (the real repository's) renders the copy's own site_src/ and checks the copy's
    # vendor/. The small fixture campaign: a broken page fails the same way on any campaign.
    return site_build(tmp_path / "site", scratch / "mkdocs.yml", raw=FIXTURE_RAW)


BROKEN_PAGES = {
    "a template naming a missing value": (
        "words.md.j2",
        "\n{{ fig.no_such_figure|num }}\n",
        ["words.md.j2", "no_such_figure"],
    ),
    "an unknown reference fact": (
        "limits.md.j2",
        '\n{{ ref("saturation.no_such_fact") }}\n',
        ["limits.md.j2", "saturation.no_such_fact"],
    ),
    "a chart without a spec": (
        "limits.md.j2",
        '\n<div class="chart" data-chart="no_such_chart"></div>\n',
        ["no_such_chart"],
    ),
    "a page left out of the nav": ("stray.md", "# A page nobody links\n", ["stray.md"]),
    "a broken link": (
        "limits.md.j2",
        "\nSee [nowhere](no-such-page.md#nothing).\n",
        ["no-such-page.md"],
    ),
}


@pytest.fixture(scope="module")
def broken_builds(tmp_path_factory) -> dict:
    """{case: the finished build} of every case of BROKEN_PAGES, each in its own copy of the
    sources, built side by side (as many at once as the machine has cores)."""
    prepared = {}
    for case, (page_name, added, _) in BROKEN_PAGES.items():
        folder = tmp_path_factory.mktemp("broken")
        copy = make_scratch(folder)
        page = copy / "site_src" / "pages" / page_name
        page.write_text((page.read_text() if page.exists() else "") + added)
        prepared[case] = functools.partial(build_scratch, copy, folder)
    return at_once(prepared)


@pytest.mark.parametrize("case", BROKEN_PAGES)
def test_a_broken_page_fails_the_build_naming_it(case, broken_builds, processes):
    done = broken_builds[case]
    assert done.returncode != 0
    for text in BROKEN_PAGES[case][2]:
        assert text in done.stderr + done.stdout


def test_missing_runtimes_stop_the_build_asking_for_make_vendor(scratch, tmp_path, processes):
    (scratch / "vendor").unlink()
    (scratch / "vendor").mkdir()
    done = build_scratch(scratch, tmp_path)
    assert done.returncode != 0
    assert "run `make vendor`" in done.stderr + done.stdout
    assert not any((scratch / "vendor").iterdir())  # the build fetched nothing


def test_a_runtime_file_altered_or_missing_is_refused(tmp_path, monkeypatch):
    from site_src import vendor

    monkeypatch.setattr(vendor, "VENDOR", tmp_path / "vendor")
    monkeypatch.setattr(vendor, "ROOT", tmp_path)
    pin = vendor.PLOTLY
    assert any("is missing" in line for line in vendor.problems(pin))
    (tmp_path / "vendor" / pin.folder).mkdir(parents=True)
    (tmp_path / "vendor" / pin.folder / "plotly-basic.min.js").write_text("alert('not plotly')")
    assert any("pinned sha256" in line for line in vendor.problems(pin))
    with pytest.raises(vendor.VendorError, match="run `make vendor`"):
        vendor.site_files()


def test_pages_render_when_every_named_figure_is_absent(site):
    """A campaign with rounds missing lacks figures; pages must say so, not fail the build."""
    from generator.build import SITE
    from generator.pages import render as pages
    from generator.reading.description import read_description
    from generator.report import checks as report
    from generator.report import compare as report_compare

    # as the pages saw it: the tables published beside results.json read back in
    path = site / "assets" / "data" / "results.json"
    results = report_compare.with_whole(report.with_table(json.loads(path.read_text()), path), path)
    results["figures"] = {}
    names = read_description(raw_dir() / results["campaign"]["name"]).names
    rendered = pages.page_outputs(results, PAGES, names, SITE.reference)
    assert "index.md" in rendered
    assert "not in this campaign" in rendered["guesses.md"].decode()
