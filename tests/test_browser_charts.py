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
from pathlib import Path

import pytest

from tests.support.browser import (
    PHONE,
    new_context,
    open_page,
    run_explorer,
    wait_for_charts,
)

pytestmark = pytest.mark.timeout(600)

PLOTLY = "plotly-basic.min.js"


def shown_traces(page, chart: str) -> list[str]:
    """The names of the traces a drawn chart shows (Plotly keeps them on the element)."""
    return page.evaluate(
        "(name) => document.querySelector(`#chart-${name} div.chart`).data"
        ".filter(t => t.visible === true).map(t => t.name)",
        chart,
    )


def results_of(site_dir: Path) -> dict:
    return json.loads((site_dir / "assets" / "data" / "results.json").read_text())


# --- every page, both sizes, both palettes (the run's tour, tests/support/tour.py) ------------

# Layout does not change with the palette (colours only): on the tour the pages open in light
# and dark in turn, so each size reads both; tests/test_accessibility.py scans all four for
# contrast.


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_tables_fit_and_chart_text_never_overlaps(tours, viewport):
    seen = tours(viewport)
    assert {page.opened_in for page in seen} == {"light", "dark"}
    problems = []
    for page in seen:
        assert page.tables_not_looked_at == 0, (page.url, "tables.js did not look at them all")
        problems += [f"{page.url}: {p}" for p in page.layout_standins + page.layout_drawn]
        assert not page.errors, (page.url, page.errors)
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
def test_every_table_column_keeps_one_unit(tours):
    mixed = [f"{page.url}: {column}" for page in tours("desktop") for column in page.mixed_units]
    assert not mixed, "\n".join(mixed)


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
        chart = "document.querySelector('#chart-p99_vs_rate div.chart')"
        page.wait_for_function(f"['drawn', 'failed'].includes({chart}?.dataset.state)")
        assert page.evaluate(f"{chart}.dataset.state") == "drawn"
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
