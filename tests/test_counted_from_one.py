"""Rounds and runs are counted from 1 wherever a reader reads them (issue 34 item 4):
`pytest tests/test_counted_from_one.py`.

The lab's own ids count from 0 ("part_b-r4-x1-none" is round 5, "part_c-4" is run 5); a reader
must never meet that count. `zero_counts` finds, in text a reader reads, a raw run id, a
round or run numbered 0 ("round 0", "run 0", "r0:"), and a table whose round or run column
starts at 0. It reads:
  * the site's pages rendered from the committed fixture, and the fixture's chart specs
    (their hover text) as tests/fixtures/golden holds them (fast);
  * the built site: every page's visible text and tooltips, every table, every chart spec's
    text, and the explorer's answers for every measured cell, Part A size, batch-route chunk
    and a pair of settings the generator did not pair (their rounds side by side).
The check is first shown to catch what the site once said (hover text "r0: 3,932 ms", the
lab page's "part_b-r4-x1-b128-w1", the explorer's "slow host: part_c-1").
"""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.wording import run_label, run_number
from tests.support.box import Box
from tests.support.pages import fixture_results, prose, render_pages

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_CHARTS = ROOT / "tests" / "fixtures" / "golden" / "assets" / "charts"

RAW_ID = re.compile(r"\b(?:part_[ac]|saturation)-\d+\b|\bpart_b-r\d+-x[\d.]+")
# "round 0", "runs 0, 1", "r0:", but not a value ("rounds 0.336 ms, …", "rounds 0 ms, …").
ZERO = re.compile(r"\b(?:rounds?|runs?) 0\b(?![.,]\d)(?! ?(?:ms|µs|s|%|×)(?!\w))|\br0\b", re.I)
COUNTED = {"round", "rounds", "run", "runs"}


def zero_counts(text: str) -> list[str]:
    """Each place in `text` where a reader meets a count from 0 (with some context)."""
    found = [f"raw run id {m[0]!r}" for m in RAW_ID.finditer(text)]
    found += [f"{text[max(m.start() - 30, 0) : m.end() + 30]!r}" for m in ZERO.finditer(text)]
    lines = text.splitlines()
    for index, line in enumerate(lines):  # the explorer's text tables: "  round  p50 …"
        if line.split()[:1] and line.split()[0].lower() in COUNTED:
            below = [row.split() for row in lines[index + 1 : index + 4] if row.split()]
            first = next((cells[0] for cells in below if cells[0][0].isdigit()), None)
            if first == "0":
                found.append(f"a table counting from 0 under {line.strip()!r}")
    return found


class Reading(HTMLParser):
    """A page as a reader meets it: its text and tooltips (title, aria-label, alt), and its
    tables as rows of cell texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.tables = [], []
        self.skip = 0
        self.row = None

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self.skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "alt") and value:
                self.text.append(value)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.row = []
            self.tables[-1].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.row.append("")
        if tag in ("p", "div", "li", "tr", "td", "th", "br", "h1", "h2", "h3", "pre", "text"):
            self.text.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template"):
            self.skip -= 1
        elif tag in ("tr", "table"):
            self.row = None

    def handle_data(self, data):
        if self.skip:
            return
        self.text.append(data)
        if self.row:
            self.row[-1] += data


def table_counts(tables: list) -> list[str]:
    """A table whose round or run column's first value is 0."""
    found = []
    for rows in tables:
        if len(rows) < 2:
            continue
        header = [re.sub(r"\(.*?\)", "", cell).strip().lower() for cell in rows[0]]
        for column, name in enumerate(header):
            if name in COUNTED and column < len(rows[1]) and rows[1][column].strip() == "0":
                found.append(f"a table whose {name} column starts at 0: {rows[:2]}")
    return found


def chart_strings(spec) -> list[str]:
    """Every string in a chart spec (hover text, names, axis titles, tick labels)."""
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, dict):
        return [s for value in spec.values() for s in chart_strings(value)]
    if isinstance(spec, list):
        return [s for value in spec for s in chart_strings(value)]
    return []


# --- the check itself ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "B=32 W=0 p99 at 1.6 × S<br>rounds r0: 3,932 ms, r1: 3,932 ms",  # chart hover, once
        "They are kept: part_a-0, part_b-r4-x1-b128-w1, part_c-4.",  # the lab page, once
        "slow host: part_c-1, part_c-3, part_c-4 never passed the slow-run rule",  # explorer
        "the exchange the lab captured in run `part_c-4`",
        "measured again in round 0 of 5",
        "  round   p50\n          (ms)\n  0       -7,691\n  1       -7,360",
    ],
)
def test_the_check_catches_a_count_from_zero(said):
    assert zero_counts(said), said


@pytest.mark.parametrize(
    "said",
    [
        "rounds 0.336 ms, 0.144 ms, -0.336 ms",  # a round's value, not its number
        "rounds 0 ms, -3.936 ms",
        "kept up in 0 of 5 rounds; 0 runs were measured again",
        "Part B round 5, B=128 W=1 at 1 × S; the batch route's runs 2, 4 and 5",
        "  round   p50\n          (ms)\n  1       -7,691",
    ],
)
def test_the_check_leaves_counts_from_one_and_values_alone(said):
    assert zero_counts(said) == [], said


def test_a_table_counting_runs_from_zero_is_caught():
    page = Reading()
    page.feed("<table><tr><th>run</th><th>answers</th></tr><tr><td>0</td><td>9,446</td></tr>"
              "</table>")  # fmt: skip
    assert table_counts(page.tables)
    page = Reading()
    page.feed("<table><tr><th>run</th><th>errors</th></tr><tr><td>1</td><td>0</td></tr></table>")
    assert table_counts(page.tables) == []


def test_a_run_is_labelled_and_numbered_from_one():
    assert run_label("part_b-r4-x1-b128-w1") == "Part B round 5, B=128 W=1 at 1 × S"
    assert run_label("part_c-0") == "Part C run 1"
    assert [run_number(i) for i in ("part_a-0", "part_c-4", "part_b-r0-x0.5-none")] == [1, 5, 1]
    with pytest.raises(ValueError, match="'probe-3' is not a run id"):
        run_number("probe-3")


# --- the fixture's pages and chart specs (fast) -----------------------------------------------


def test_no_page_rendered_from_the_fixture_counts_from_zero():
    pages = render_pages(fixture_results())
    found = {page: zero_counts(prose(text)) for page, text in pages.items()}
    assert not {page: f for page, f in found.items() if f}


def test_no_chart_of_the_fixture_counts_rounds_from_zero():
    specs = sorted(GOLDEN_CHARTS.glob("*.json"))
    assert specs
    found = {p.name: zero_counts("\n".join(chart_strings(json.loads(p.read_text()))))
             for p in specs}  # fmt: skip
    assert not {name: f for name, f in found.items() if f}
    # the hover text that numbers rounds does number them, from 1
    assert any("rounds r1: " in s for p in specs for s in chart_strings(json.loads(p.read_text())))


# --- the built site -----------------------------------------------------------------------------


def test_no_built_page_or_chart_counts_from_zero(shared_builds):
    site = shared_builds.site
    pages = sorted(site.glob("**/index.html"))
    assert len(pages) >= 16
    found = {}
    for path in pages:
        page = Reading()
        page.feed(path.read_text())
        problems = zero_counts("".join(page.text)) + table_counts(page.tables)
        if problems:
            found[str(path.relative_to(site))] = problems
    for path in sorted((site / "assets" / "charts").glob("*.json")):
        problems = zero_counts("\n".join(chart_strings(json.loads(path.read_text()))))
        if problems:
            found[path.name] = problems
    assert not found


def explorer_calls(results: dict) -> list[str]:
    """Every measured cell, Part A size and batch-route chunk, and two settings the
    generator did not pair (their rounds side by side)."""
    calls = ["measured(results)"]
    for name, body in results["part_b"]["settings"].items():
        b = '"none"' if name == "none" else body["max_batch"]
        calls += [
            f"lookup(results, {b}, {body['max_wait_ms']:g}, {rate})" for rate in body["rates"]
        ]
    calls += [f"part_a(results, {size})" for size in results["part_a"]["sizes"]]
    if "part_c" in results:
        calls += [f"batch_route_lookup(results, {chunk})" for chunk in results["part_c"]["methods"]
                  if chunk != "loop"]  # fmt: skip
    busy = results["design"]["rate_multiples"][-1]
    calls.append(f"compare(results, 8, 0, 128, 10, {busy})")
    return calls


def test_no_explorer_answer_counts_from_zero(shared_builds):
    site = shared_builds.site
    results = json.loads((site / "assets" / "data" / "results.json").read_text())
    box = Box(site)
    found, answers = {}, []
    try:
        for call in explorer_calls(results):
            ok, text = box.run(call)
            assert ok, f"{call}: {text}"
            answers.append(text)
            if zero_counts(text):
                found[call] = zero_counts(text)
    finally:
        box.close()
    assert not found
    # the answers do count rounds and runs: the check had something to read
    assert any("round by round" in text for text in answers)
    assert any("rounds side by side" in text for text in answers)
    if results.get("speed_probe", {}).get("never_passed"):
        assert any("never passed the slow-run rule" in text for text in answers)
