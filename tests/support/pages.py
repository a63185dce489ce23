"""The site's pages (site_src/pages) rendered from the committed fixture campaign's results,
without a build: for the tests that read generated prose and tables (tests/test_prose.py,
tests/test_heatmaps.py)."""

import json
from pathlib import Path

from generator.reading import load
from generator.report import checks as report

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures"
GOLDEN_RESULTS = FIXTURE / "golden" / "assets" / "data" / "results.json"


def fixture_results() -> dict:
    """The golden results with the simulation table read in, as the pages see them."""
    return report.with_table(json.loads(GOLDEN_RESULTS.read_text()), GOLDEN_RESULTS)


def render_pages(results: dict) -> dict:
    """{page.md: Markdown} of every site page rendered from `results`."""
    from generator.pages import render

    names = load.choose_campaign(FIXTURE / "raw").description.names
    rendered = render.page_outputs(results, ROOT / "site_src" / "pages", names,
                                   ROOT / "site_src" / "reference_box.json")  # fmt: skip
    return {name: content.decode() for name, content in rendered.items() if name.endswith(".md")}
