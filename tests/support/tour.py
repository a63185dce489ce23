"""A reader's tour of every page of the built site at one size, made once per test run and
read by every test that needs every page (each page was loaded, drawn and read through by four
tests before; now once per size):

    for each page of the nav, in a context at the size's viewport, opening in light:
      the palette it opened in (Material keeps the reader's last choice, so the pages open in
      light and dark in turn), the columns of its tables that mix units, the layout problems
      of its stand-ins, then read through, every chart drawn (how many), whether tables.js
      looked at every table, the layout problems of the drawn page, its scroll widths, its
      <h1>s, the accessibility scan (axe-core) in the palette it opened in, Material's toggle,
      the scan in the other palette; and every console error and request to another origin.

The tests assert on the `PageSeen` records: tests/test_accessibility.py (the scans),
tests/test_browser.py (errors, charts, sideways scroll on a phone), tests/test_browser_charts.py
(layout and units). Every rule runs in the light palette; the rules about colour in the dark
one (COLOUR_RULES: the dark palette changes colours only).
"""

from dataclasses import dataclass, field

import pytest

from site_src import vendor
from tests.support.browser import (
    VIEWPORTS,
    PatientBrowser,
    launch,
    open_page,
    page_urls,
    read_through,
    wait_for_charts,
)

FAILING_IMPACTS = ("serious", "critical")

# The rules' results only: passes and incomplete checks are not needed and slow the scan.
SCAN = """async (rules) => {
  const only = rules ? {runOnly: {type: "rule", values: rules}} : {};
  const found = await axe.run(document, {resultTypes: ["violations"], ...only});
  return found.violations.map(v => ({
    rule: v.id, impact: v.impact, help: v.help,
    elements: v.nodes.map(n => n.target.join(" ") + " (" + n.failureSummary.split("\\n")
      .slice(1).join(" ").trim() + ")"),
  }));
}"""

# Problems on the page as a reader sees it now, as sentences (an empty list: none). A table is
# judged for its scroll cue once tables.js has looked at it (when it came near the viewport).
LAYOUT_PROBLEMS = """() => {
  const problems = [];
  const column = document.querySelector('.md-content__inner').getBoundingClientRect();
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const name = (el) => el.tagName.toLowerCase() + ' "' + el.textContent.trim().slice(0, 40) + '"';

  // Wide content: only inside a box that scrolls and itself fits the text column.
  for (const el of document.querySelectorAll('.md-content table, .md-content pre')) {
    if (!el.getClientRects().length) continue;  // not shown (a closed answer, another tab)
    if (el.classList.contains('highlighttable')) {
      // Code with line numbers: Material runs it to the screen's edges on a phone; its <pre>
      // (checked below) scrolls, and the block must stay on the screen.
      const rect = el.getBoundingClientRect();
      if (rect.right > window.innerWidth + 1 || rect.left < -1) {
        problems.push(name(el) + ': a code block sticks out of the screen');
      }
      continue;
    }
    let box = el;
    while (box && box !== document.body && !scrolls(box)) box = box.parentElement;
    const code = el.tagName === 'PRE' ? el.querySelector(':scope > code') : null;
    if (code && scrolls(code)) box = code;
    const holder = box && box !== document.body ? box : null;
    const width = Math.max(el.scrollWidth, code ? code.scrollWidth : 0);
    if (!holder && width > column.width + 1) {
      problems.push(name(el) + ' is ' + width + 'px wide in a ' + column.width + 'px column');
      continue;
    }
    if (!holder) continue;
    const rect = holder.getBoundingClientRect();
    if (rect.right > window.innerWidth + 1 || rect.left < -1) {
      problems.push(name(el) + ': its scroll box sticks out of the screen');
    }
    const looked = el.tagName === 'TABLE' && 'measured' in el.dataset;
    if (looked && holder.scrollWidth > holder.clientWidth + 1) {
      const cue = (holder.closest('.table-box') || holder).previousElementSibling;
      const cueShown = cue && cue.classList.contains('table-cue') && cue.offsetHeight > 0;
      if (!cueShown && !holder.classList.contains('heatmap-scroll')) {
        problems.push(name(el) + ' scrolls sideways without saying so');
      }
      const first = el.querySelector('tbody tr > :first-child');
      if (first && getComputedStyle(first).position !== 'sticky') {
        problems.push(name(el) + ' scrolls sideways but its first column does not stay');
      }
    }
  }

  // Chart text: the drawn chart's (Plotly) or, before it is drawn, the stand-in's.
  const boxes = (root, selector) => [...root.querySelectorAll(selector)]
    .filter((el) => el.getBoundingClientRect().width > 0)
    .map((el) => ({ el, r: el.getBoundingClientRect(), text: el.textContent.trim() }));
  const hit = (a, b) => a.r.left < b.r.right - 1 && b.r.left < a.r.right - 1 &&
    a.r.top < b.r.bottom - 1 && b.r.top < a.r.bottom - 1;
  for (const chart of document.querySelectorAll('div.chart[data-chart]')) {
    const drawn = chart.querySelector('svg.main-svg');
    const standin = [...chart.querySelectorAll('svg.standin')]
      .find((svg) => getComputedStyle(svg).display !== 'none');
    const root = drawn ? chart : standin;
    if (!root) continue;
    const groups = drawn
      ? { title: boxes(chart, '.gtitle'), 'x title': boxes(chart, '.g-xtitle text'),
          'y title': boxes(chart, '.g-ytitle text'), 'x tick': boxes(chart, '.xtick text'),
          'y tick': boxes(chart, '.ytick text'), legend: boxes(chart, '.legend .bg') }
      : { 'x title': boxes(root, '.titles text:first-child'),
          'y title': boxes(root, '.titles text:nth-child(2)'),
          'x tick': boxes(root, '.xticks text'), 'y tick': boxes(root, '.yticks text') };
    const where = chart.dataset.chart + (drawn ? ' (drawn)' : ' (stand-in)');
    const frame = chart.getBoundingClientRect();
    const names = Object.keys(groups);
    names.forEach((group, i) => {
      for (const [j, a] of groups[group].entries()) {
        if (a.r.left < frame.left - 1 || a.r.right > frame.right + 1) {
          problems.push(where + ': ' + group + ' "' + a.text + '" leaves the chart');
        }
        const turned = (a.el.getAttribute('transform') || '').includes('rotate');
        if (group.endsWith('tick') && turned) {
          problems.push(where + ': ' + group + ' "' + a.text + '" is turned');
        }
        for (const other of names.slice(i)) {
          for (const [k, b] of groups[other].entries()) {
            if (other === group && k <= j) continue;
            if (hit(a, b)) {
              problems.push(where + ': ' + group + ' "' + a.text + '" overlaps ' + other +
                ' "' + b.text + '"');
            }
          }
        }
      }
    });
  }
  return problems;
}"""

MIXED_UNITS = """() => {
  const unit = /^[−+-]?[0-9][0-9,.]*\\s*(ms|µs|s|%|×|× S|rows|answers\\/s)$/;
  const mixed = [];
  document.querySelectorAll('.md-content table:not(.highlighttable)').forEach((table) => {
    const corner = table.querySelector('thead th');
    if (corner && !corner.textContent.trim()) return;
    const rows = [...table.querySelectorAll('tbody tr')];
    const width = Math.max(0, ...rows.map((row) => row.children.length));
    for (let index = 0; index < width; index++) {
      const units = new Set();
      rows.forEach((row) => {
        const cell = row.children[index];
        const found = cell && cell.textContent.trim().match(unit);
        if (found) units.add(found[1]);
      });
      if (units.size > 1) {
        const head = table.querySelectorAll('thead th')[index];
        mixed.push((head ? head.textContent.trim() : 'column ' + index) + ': ' + [...units]);
      }
    }
  });
  return mixed;
}"""


# The dark palette changes colours only (Material sets the palette's attributes on <body>; the
# page and its charts are the same elements), so in the dark the rules about colour are run:
# every other rule reads the same elements and gives the same answer in both palettes.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
PALETTES = ("light", "dark")
TOGGLE = "form[data-md-component=palette] label:not([hidden])"
IN_PALETTE = (
    "(scheme) => document.body.getAttribute('data-md-color-scheme') === scheme && [...document"
    ".querySelectorAll('div.chart')].every(chart => chart.dataset.drawn === scheme)"
)
TABLES_NOT_LOOKED_AT = (
    "[...document.querySelectorAll('.md-content table')]"
    ".filter(t => t.checkVisibility() && !('measured' in t.dataset)).length"
)
SCROLL_WIDTHS = "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"


@dataclass
class PageSeen:
    """What one page of the tour showed."""

    url: str
    opened_in: str  # the palette it opened in: light or dark
    mixed_units: list = field(default_factory=list)
    layout_standins: list = field(default_factory=list)  # problems before any chart is drawn
    layout_drawn: list = field(default_factory=list)  # problems once read through and drawn
    charts: int = 0
    tables_not_looked_at: int = 0
    scroll_widths: tuple = (0, 0)  # (scrollWidth, clientWidth) of the page
    headings: int = 0  # <h1>s
    violations: dict = field(default_factory=dict)  # palette -> serious or critical ones
    errors: list = field(default_factory=list)
    blocked: list = field(default_factory=list)


def axe_source() -> str:
    left = vendor.problems(vendor.AXE)
    if left:
        pytest.fail("; ".join(left) + " (run `make vendor`)")
    return (vendor.AXE.local_dir / "axe.min.js").read_text(encoding="utf-8")


def scan(page, source: str) -> tuple[str, list[dict]]:
    """The page's palette and its serious or critical violations: every rule in the light
    palette, the rules about colour in the dark one."""
    palette = "dark" if page.get_attribute("body", "data-md-color-scheme") == "slate" else "light"
    if not page.evaluate("Boolean(window.axe)"):
        page.add_script_tag(content=source)
    found = page.evaluate(SCAN, COLOUR_RULES if palette == "dark" else None)
    return palette, [v for v in found if v["impact"] in FAILING_IMPACTS]


def visit(context, base: str, url: str, source: str) -> PageSeen:
    watch = open_page(context, base, url)
    page = watch.page
    palette = "dark" if page.get_attribute("body", "data-md-color-scheme") == "slate" else "light"
    seen = PageSeen(url, palette)
    page.wait_for_timeout(200)  # tables.js looks at the tables near the first screen
    seen.mixed_units = page.evaluate(MIXED_UNITS)
    seen.layout_standins = page.evaluate(LAYOUT_PROBLEMS)
    # Read through first: boxes the browser skips until they come near (tables, figures) take
    # their real height then, so nothing moves while axe scrolls to what it checks.
    read_through(page)
    seen.charts = wait_for_charts(page)
    seen.tables_not_looked_at = page.evaluate(TABLES_NOT_LOOKED_AT)
    seen.layout_drawn = page.evaluate(LAYOUT_PROBLEMS)
    seen.scroll_widths = tuple(page.evaluate(SCROLL_WIDTHS))
    seen.headings = page.locator("h1").count()
    first, found = scan(page, source)
    page.eval_on_selector(TOGGLE, "label => label.click()")  # no pointer left hovering on it
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.wait_for_function(IN_PALETTE, arg="slate" if first == "light" else "default")
    second, found_after = scan(page, source)
    seen.violations = {first: found, second: found_after}
    seen.errors, seen.blocked = list(watch.errors), list(watch.blocked)
    page.close()
    return seen


def tour(browser, base: str, viewport: str) -> list[PageSeen]:
    """Every page of the nav at `viewport` (a phone's with touch), the system palette light;
    the explorer starts Python when the page is idle on a desktop and waits for Run on a phone,
    as a reader's does."""
    source = axe_source()
    mobile = viewport == "phone"
    context = browser.new_context(
        viewport=VIEWPORTS[viewport], color_scheme="light", is_mobile=mobile, has_touch=mobile
    )
    try:
        return [visit(context, base, url, source) for url in page_urls(base)]
    finally:
        context.close()


def tour_in_its_own_browser(base: str, viewport: str) -> list[PageSeen]:
    """`tour` in a chromium of its own, started on the calling thread (Playwright's sync API
    belongs to the thread that started it), so the two sizes' tours run side by side on two
    threads. A tour keeps about one core busy (its browser's processes), so the pair gains
    what a second core has to spare: 158 s for both on a fresh clone, against 95 + 92 s one
    after the other before (the browser tier's longest work)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as started:
        chromium = launch(started)
        try:
            return tour(PatientBrowser(chromium), base, viewport)
        finally:
            chromium.close()
