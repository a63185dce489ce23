"""Listings and table headers on a phone (issue 34 item 5), in real Chromium at 390×844.

A listing with line numbers must not wrap: a wrapped line pushes every number below it off
its line. It scrolls sideways beside its numbers instead, and one that scrolls is a tab stop
(Material takes the keyboard's way in away on touch screens; site_src/js/tables.js gives it
back). A table header never splits a word: the code in a header (`/predict`) stays on one line.
The explorer's own tables are text in its answer box, which wraps a line longer than the box:
its round-by-round table (each unit under its name) fits a phone's box, so no line of it,
header or row, is wrapped, and no header word is split.
"""

import json

import pytest

from tests.support.browser import new_context

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

# The pages with listings that have line numbers, and the batch route's headers with code.
# (The limits page's listings have no numbers: they wrap, and nothing can come off its line.)
PAGES = ["handler/", "batch-route/", "part-b/"]

# Each element brought into view, as a reader scrolling would (tables sit in boxes the
# browser may skip while off-screen), then measured once it has been laid out.
MEASURE = """async () => {
  const frame = () =>
    new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const listings = [], headers = [];
  for (const table of document.querySelectorAll('.md-typeset .highlighttable')) {
    table.scrollIntoView({block: 'center'});
    await frame();
    const numbers = [...table.querySelectorAll('.linenos a[href*="#__codelineno-"]')];
    if (!numbers.length) continue;
    const lines = numbers.map((a) => table.querySelector(`[id="${a.hash.slice(1)}"]`));
    const top = (el) => el.getBoundingClientRect().top;
    const n0 = top(numbers[0]), l0 = top(lines[0]);
    const off = numbers
      .map((a, i) => ({number: a.textContent, drift: (top(lines[i]) - l0) - (top(a) - n0)}))
      .filter((each) => Math.abs(each.drift) > 2);
    const pre = table.querySelector('.code pre');
    const scrolls = pre.scrollWidth > pre.clientWidth + 1;
    listings.push({first: numbers[0].textContent, lines: numbers.length, off: off.slice(0, 3),
                   scrolls, tabindex: pre.getAttribute('tabindex')});
  }
  for (const th of document.querySelectorAll('.md-typeset th')) {
    const codes = [...th.querySelectorAll('code')];
    if (!codes.length) continue;
    th.scrollIntoView({block: 'center'});
    await frame();
    for (const code of codes) {
      headers.push({text: code.textContent, pieces: code.getClientRects().length});
    }
  }
  return {listings, headers};
}"""


@pytest.fixture(scope="module")
def phone(browser):
    context = new_context(browser, "phone")
    yield context
    context.close()


@pytest.mark.parametrize("path", PAGES)
def test_listing_numbers_stay_on_their_lines_and_header_code_is_whole(served_site, phone, path):
    _, base = served_site
    page = phone.new_page()
    try:
        page.goto(base + path, wait_until="load")
        page.evaluate("document.fonts.ready")
        seen = page.evaluate(MEASURE)
        assert seen["listings"], f"{path}: no listing with line numbers"
        for listing in seen["listings"]:
            assert not listing["off"], f"{path}: lines from {listing['first']} wrap: {listing}"
        # A listing that scrolls sideways is a tab stop (tables.js marks it when it is measured).
        page.wait_for_function(
            "() => [...document.querySelectorAll('.md-typeset .highlighttable .code pre')]"
            ".every((pre) => pre.scrollWidth <= pre.clientWidth + 1"
            " || pre.getAttribute('tabindex') === '0')"
        )
        split = [header for header in seen["headers"] if header["pieces"] != 1]
        assert not split, f"{path}: header code split across lines: {split}"
    finally:
        page.close()


def test_a_long_listing_scrolls_sideways_on_a_phone(served_site, phone):
    """The handler's listing is wider than a phone: it scrolls rather than wrapping."""
    _, base = served_site
    page = phone.new_page()
    try:
        page.goto(base + "handler/", wait_until="load")
        seen = page.evaluate(MEASURE)
        assert any(listing["scrolls"] for listing in seen["listings"]), seen["listings"]
    finally:
        page.close()


# Each line of the explorer's answer from the round-by-round table's title down to its
# verdicts: its text and how many screen lines it takes (a Range over the line's characters).
ANSWER_LINES = """() => {
  const out = document.querySelector('[data-role=output]');
  const node = out.firstChild;
  const text = node.textContent;
  const lines = [];
  let start = 0;
  for (const line of text.split('\\n')) {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, start + line.length);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
      .map((r) => Math.round(r.top)));
    lines.push({text: line, rows: tops.size});
    start += line.length + 1;
  }
  const probe = document.createElement('span');
  probe.textContent = 'x'.repeat(100);
  out.append(probe);
  const perChar = probe.getBoundingClientRect().width / 100;
  probe.remove();
  return {lines, fits: Math.floor(out.clientWidth / perChar) - 2};
}"""


def test_the_explorers_round_by_round_table_keeps_its_lines_on_a_phone(site, phone):
    site_dir, base = site
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    top = results["design"]["rate_multiples"][-1]
    page = phone.new_page()
    try:
        page.goto(f"{base}explorer/#run=lookup(results, b=32, w=0, rate={top})", wait_until="load")
        page.click('[data-role="run"]')  # on a phone Python waits for the reader's Run
        page.wait_for_function(
            "() => document.querySelector('[data-role=output]').dataset.state === 'done'"
        )
        seen = page.evaluate(ANSWER_LINES)
    finally:
        page.close()
    texts = [line["text"] for line in seen["lines"]]
    first = next(i for i, text in enumerate(texts) if "round by round" in text) + 1
    table = seen["lines"][first : first + results["design"]["rounds"] + 3]  # names, units, median
    wrapped = [line for line in table if line["rows"] != 1]
    assert not wrapped, f"lines of the table wrap in a box of {seen['fits']} characters: {wrapped}"
    assert table[0]["text"].split() == ["round", "p50", "p99", "throughput"], table[0]
