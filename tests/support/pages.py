"""The site's pages (site_src/pages) rendered from the committed fixture campaign's results,
without a build, and a page's words (`prose`): for the tests that read generated prose and
tables (tests/test_prose.py, tests/test_heatmaps.py, tests/test_vocabulary.py)."""

import json
import re
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


def prose(markdown_text: str) -> str:
    """A page's words: code blocks, inline code, HTML and chart boxes left out, lines joined."""
    text = re.sub(r"^([ ]*)```.*?^\1```", "", markdown_text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    text = re.sub(r"<q>.*?</q>", "", text)  # a quotation (a guess as written) is not ours
    text = re.sub(r"\]\([^)\s]*\)", "]", text)  # a link's address is not words
    text = re.sub(r"^\{:.*\}$", "", text, flags=re.M)  # attribute lists
    text = re.sub(r"<[^>]+>", "", text)
    return " ".join(text.split())
