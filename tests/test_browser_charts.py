"""Real-browser tests of the charts and tables: `pytest -m browser tests/test_browser_charts.py`.

Builds and serves the site as tests/test_browser.py does (its helpers), and drives Debian's
chromium. Checks: every page at 1280×800 (light) and 390×844 (dark) has no table or output
wider than the text column outside a scroll container, a table that scrolls says so and keeps
its first column, and no chart (its stand-in, then the drawn chart) whose titles and tick labels
overlap, leave the chart or are turned; charts wait for the reader before plotly.js loads,
are drawn when they come near, and plotly.js stays loaded across instant navigation; a drawn
chart follows its box when the window is resized (a phone's layout below 480px); the main
result shows the settings picked by B and W and switches metric; a key entry hides its series;
an explorer answer links to its point; every chart spec is valid for Plotly's own validator.
"""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_browser  # noqa: E402 (its helpers and fixtures: the built site, the browser)
from test_browser import (  # noqa: E402
    PHONE,
    PYTHON_START_MS,
    new_context,
    open_page,
    page_urls,
    read_through,
    run_explorer,
    wait_for_charts,
)

browser = test_browser.browser  # the fixture, shared by name (`site`: conftest.py)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

PLOTLY = "plotly-basic.min.js"

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


def shown_traces(page, chart: str) -> list[str]:
    """The names of the traces a drawn chart shows (Plotly keeps them on the element)."""
    return page.evaluate(
        "(name) => document.querySelector(`#chart-${name} div.chart`).data"
        ".filter(t => t.visible === true).map(t => t.name)",
        chart,
    )


def results_of(site_dir: Path) -> dict:
    return json.loads((site_dir / "assets" / "data" / "results.json").read_text())


# --- every page, both sizes, both palettes ---------------------------------------------------

# Layout does not change with the palette (colours only), so each size is read in one palette
# and both palettes are read; tests/test_accessibility.py scans all four for contrast.
SIZES_AND_PALETTES = [("desktop", "light"), ("phone", "dark")]


@pytest.mark.parametrize(("viewport", "scheme"), SIZES_AND_PALETTES)
def test_tables_fit_and_chart_text_never_overlaps(site, browser, viewport, scheme):
    _, base = site
    context = new_context(browser, viewport, scheme)
    problems = []
    try:
        for url in page_urls(base):
            watch = open_page(context, base, url)
            page = watch.page
            palette = page.get_attribute("body", "data-md-color-scheme")
            assert palette == ("slate" if scheme == "dark" else "default"), url
            page.wait_for_timeout(200)  # tables.js looks at the tables near the first screen
            standins = page.evaluate(LAYOUT_PROBLEMS)
            read_through(page)
            wait_for_charts(page)
            unlooked = page.evaluate(
                "[...document.querySelectorAll('.md-content table')]"
                ".filter(t => t.checkVisibility() && !('measured' in t.dataset)).length"
            )
            assert unlooked == 0, (url, "tables.js did not look at every table")
            drawn = page.evaluate(LAYOUT_PROBLEMS)
            problems += [f"{url}: {p}" for p in standins + drawn]
            assert not watch.errors, (url, watch.errors)
            page.close()
    finally:
        context.close()
    assert not problems, "\n".join(problems)


# --- lazy drawing ------------------------------------------------------------------------------


def test_charts_wait_for_the_reader_and_plotly_stays_loaded(site, browser):
    _, base = site
    context = new_context(browser, "desktop")
    try:
        requests = []
        context.on("request", lambda request: requests.append(request.url))
        watch = open_page(context, base, base + "part-b/")
        page = watch.page
        page.wait_for_timeout(1500)  # the page is idle: nothing heavy may load
        assert not [u for u in requests if PLOTLY in u or "/assets/charts/" in u]
        charts = page.locator("div.chart")
        count = charts.count()
        assert count >= 4
        assert page.locator("div.chart svg.main-svg").count() == 0
        assert page.locator("div.chart svg.standin-wide:visible").count() == count
        # The reader jumps to the last chart: it is drawn, the ones skipped are not.
        charts.nth(count - 1).scroll_into_view_if_needed()
        page.wait_for_function(
            "[...document.querySelectorAll('div.chart')].at(-1).dataset.state === 'drawn'",
            timeout=30_000,
        )
        states = page.evaluate(
            "[...document.querySelectorAll('div.chart')].map(c => c.dataset.state || '')"
        )
        assert "" in states[1:-1], states  # far from the viewport: still the stand-in
        assert len([u for u in requests if PLOTLY in u]) == 1
        # Instant navigation: the next page's charts are drawn with the plotly.js loaded.
        page.evaluate("window.__sameDocument = true")
        page.click('a.md-nav__link[href$="part-a/"]')
        page.wait_for_url(lambda url: "/part-a/" in url)  # Material may add a #section
        page.wait_for_selector('div.chart[data-chart="part_a_time_vs_size"]')  # swapped in
        assert wait_for_charts(page) >= 1
        assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
        assert len([u for u in requests if PLOTLY in u]) == 1
        assert not watch.errors, watch.errors
    finally:
        context.close()


def test_a_drawn_chart_follows_its_box_when_the_window_is_resized(site, browser):
    site_dir, base = site
    spec = json.loads((site_dir / "assets" / "charts" / "part_a_time_vs_size.json").read_text())
    narrow_ticks = spec["site"]["narrow"]["xaxis"]["tickvals"]
    context = new_context(browser, "desktop")
    try:
        page = open_page(context, base, base + "part-a/").page
        wait_for_charts(page)
        chart = "document.querySelector('#chart-part_a_time_vs_size div.chart')"
        assert page.evaluate(f"{chart}.layout.xaxis.tickvals.length") > len(narrow_ticks)
        page.set_viewport_size(PHONE)
        page.wait_for_function(f"{chart}.dataset.narrow === '1'")
        assert page.evaluate(f"{chart}.layout.xaxis.tickvals") == narrow_ticks
        widths = page.evaluate(
            f"[{chart}.querySelector('svg.main-svg').getBoundingClientRect().width, "
            f"{chart}.clientWidth]"
        )
        assert abs(widths[0] - widths[1]) <= 1, widths
    finally:
        context.close()


# Columns of a table that print numbers in more than one unit (an empty list: none). A cell
# counts when it is a number followed by a unit; words ("never answered", "—") do not. A
# table whose first column has no heading is a list of facts, one quantity per row (the
# guesses page's): its units belong to the rows.
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


def test_every_table_column_keeps_one_unit(site, browser):
    _, base = site
    context = new_context(browser, "desktop")
    try:
        mixed = []
        for url in page_urls(base):
            watch = open_page(context, base, url)
            mixed += [f"{url}: {column}" for column in watch.page.evaluate(MIXED_UNITS)]
            watch.page.close()
        assert not mixed, "\n".join(mixed)
    finally:
        context.close()


# --- the main result, the keys, the explorer's links -------------------------------------------


def test_the_main_result_shows_the_settings_picked_by_b_and_w(site, browser):
    site_dir, base = site
    design = results_of(site_dir)["design"]
    context = new_context(browser, "desktop")
    try:
        page = open_page(context, base, base).page
        figure = "#chart-p99_vs_rate"
        waits_zero = {n for n in design["settings"] if design["setting"][n]["max_wait_ms"] == 0}
        standin_series = page.locator(f"{figure} svg.standin-wide g.series").count()
        assert standin_series == len(waits_zero)
        page.locator(f"{figure} div.chart").scroll_into_view_if_needed()
        page.wait_for_selector(f"{figure} svg.main-svg")
        assert set(shown_traces(page, "p99_vs_rate")) == waits_zero
        page.uncheck(f'{figure} [data-pick="b"] input[value="8"]')
        page.check(f'{figure} [data-pick="w"] input[value="2"]')
        expected = {
            n
            for n in design["settings"]
            if design["setting"][n]["max_batch"] != 8
            and (
                design["setting"][n]["max_batch"] <= 1
                or design["setting"][n]["max_wait_ms"] in (0, 2)
            )
        }
        page.wait_for_function(
            "(n) => document.querySelector('#chart-p99_vs_rate div.chart').data"
            ".filter(t => t.visible === true).length === n",
            arg=len(expected),
        )
        assert set(shown_traces(page, "p99_vs_rate")) == expected
        page.check(f'{figure} input[value="throughput_vs_rate"]')
        page.wait_for_function(
            "document.querySelector('#chart-p99_vs_rate div.chart').layout.yaxis.title.text"
            ".startsWith('throughput')"
        )
        shown = set(shown_traces(page, "p99_vs_rate"))
        assert shown == expected | {"arrivals (rate × S)"}
    finally:
        context.close()


def test_a_key_entry_hides_and_shows_its_series(site, browser):
    _, base = site
    context = new_context(browser, "phone")
    try:
        page = open_page(context, base, base + "part-a/").page
        wait_for_charts(page)
        button = page.locator("#chart-part_a_time_vs_size .chart-key-item", has_text="per-row")
        button.click()
        page.wait_for_function(
            "document.querySelector('#chart-part_a_time_vs_size div.chart').data"
            ".filter(t => t.visible === true).length === 1"
        )
        assert button.get_attribute("aria-pressed") == "false"
        assert shown_traces(page, "part_a_time_vs_size") == ["per-call time"]
        button.click()
        page.wait_for_function(
            "document.querySelector('#chart-part_a_time_vs_size div.chart').data"
            ".every(t => t.visible === true)"
        )
    finally:
        context.close()


def test_an_explorer_answer_links_to_its_point_on_the_main_result(site, browser):
    _, base = site
    context = new_context(browser, "desktop")
    try:
        page = open_page(context, base, base + "explorer/").page
        code = "lookup(results, b=32, w=0, rate=1)"
        run_explorer(page, code)
        link = page.locator(".answer-link a")
        assert "this point on the main result" in link.text_content()
        run_explorer(page, "lookup(results, b=64, w=0, rate=1)")  # not measured: no link
        assert page.locator(".answer-link").count() == 0
        run_explorer(page, code)
        page.click(".answer-link a")
        page.wait_for_url(lambda url: "point=" in url)
        page.wait_for_function(
            "document.querySelector('#chart-p99_vs_rate div.chart')?.dataset.state === 'drawn'",
            timeout=PYTHON_START_MS,
        )
        note = page.evaluate(
            "document.querySelector('#chart-p99_vs_rate div.chart').layout.annotations"
            ".map(a => a.text)"
        )
        assert note == ["B=32 W=0 at 1 × S"]
    finally:
        context.close()


# --- the specs, checked by Plotly itself -------------------------------------------------------


def test_every_chart_spec_is_valid_for_plotly(site, browser):
    site_dir, base = site
    names = sorted(p.stem for p in (site_dir / "assets" / "charts").glob("*.json"))
    context = new_context(browser, "desktop")
    try:
        page = open_page(context, base, base + "part-a/").page
        wait_for_charts(page)  # plotly.js is loaded now
        for name in names:
            errors = page.evaluate(
                """async (name) => {
                    const spec = await (await fetch('../assets/charts/' + name + '.json')).json();
                    return (Plotly.validate(spec.data, spec.layout) || [])
                        .map(e => e.msg);
                }""",
                name,
            )
            assert errors == [], (name, errors)
    finally:
        context.close()
