"""Real-browser tests of the built site: `pytest tests/test_browser.py`.

The run's one build of the site (tests/support/sitebuild.py), served over HTTP on a free
port, driven in Debian's chromium (/usr/bin/chromium) with Playwright. Every request
that is not to the local server is aborted and counted: the site must work with no network.
Checks: every page loads with no console error, every chart draws, the explorer prints
exactly what CPython prints for the same call, a bad value gets its message, the explorer
survives instant navigation, Stop ends runaway code, charts stay visible in the dark
palette, and a phone-sized viewport has no horizontal scroll.

The helpers (serve, launch, page_urls, Watch …) are tests/support/browser.py.
"""

import pytest

from tests.support.browser import (
    contrast,
    cpython_answer,
    open_page,
    patience,
    run_explorer,
    six_choices,
    wait_for_charts,
)

pytestmark = pytest.mark.timeout(240)

# --- the tests ---------------------------------------------------------------------------------


def test_every_page_loads_offline_without_errors_and_draws_its_charts(tours):
    seen = tours("desktop")  # the run's tour of every page (tests/support/tour.py)
    for page in seen:
        assert page.headings == 1, page.url
        assert not page.errors, (page.url, page.errors)
        assert not page.blocked, (page.url, page.blocked)
    assert sum(page.charts for page in seen) >= 5


@pytest.fixture(scope="module")
def explorer(site, browser):
    """One explorer page for the tests that only run code in it and read what it prints (each
    run gets a fresh `results`: tests/test_explorer_box.py), so Python starts once."""
    _, base = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield open_page(context, base, base + "explorer/")
    context.close()


def test_explorer_prints_what_cpython_prints_for_six_settings(site, explorer):
    site_dir, _ = site
    watch = explorer
    page = watch.page
    for choice in six_choices(site_dir):
        page.select_option('[data-role="mode"]', "setting")
        page.select_option('[data-role="b"]', choice["b"])
        if choice["b"] not in ("none", "1"):
            page.select_option('[data-role="w"]', choice["w"])
        else:
            page.select_option('[data-role="w"]', "0")
        page.select_option('[data-role="rate"]', choice["rate"])
        code = page.input_value('[data-role="code"]')
        assert code.startswith("lookup(results, b=")
        shown = run_explorer(page)
        assert page.get_attribute('[data-role="output"]', "data-state") == "done", shown
        assert shown == cpython_answer(site_dir, code), code
    assert not watch.errors, watch.errors
    assert not watch.blocked, watch.blocked


def test_compare_part_a_and_batch_route_match_cpython(site, explorer):
    site_dir, _ = site
    page = explorer.page
    page.select_option('[data-role="mode"]', "compare")
    code = page.input_value('[data-role="code"]')
    assert code.startswith("compare(results, b1=")
    assert run_explorer(page) == cpython_answer(site_dir, code)
    page.select_option('[data-role="mode"]', "part_a")
    code = page.input_value('[data-role="code"]')
    assert code.startswith("part_a(results, size=")
    assert run_explorer(page) == cpython_answer(site_dir, code)
    page.select_option('[data-role="mode"]', "batch_route")
    page.select_option('[data-role="chunk"]', "1000")
    code = page.input_value('[data-role="code"]')
    assert code == "batch_route_lookup(results, chunk=1000)"
    shown = run_explorer(page)
    assert shown == cpython_answer(site_dir, code) and "loop of /predict" in shown


def test_python_starts_on_the_first_run_with_a_visible_loading_state(site, browser):
    site_dir, base = site
    context = browser.new_context()
    context.add_init_script("window.explorerNoIdleStart = true")  # no start at idle
    try:
        page = open_page(context, base, base + "explorer/").page
        page.wait_for_timeout(500)
        assert page.get_attribute("[data-explorer]", "data-engine") == "off"
        page.click('[data-role="run"]')
        assert page.get_attribute("[data-explorer]", "data-engine") == "loading"
        assert "Loading Python" in page.text_content('[data-role="status"]')
        page.wait_for_function(
            "document.querySelector('[data-role=output]').dataset.state === 'done'",
            timeout=patience.ms,
        )
        assert "is ready" in page.text_content('[data-role="status"]')
        code = page.input_value('[data-role="code"]')
        assert page.text_content('[data-role="output"]') == cpython_answer(site_dir, code)
    finally:
        context.close()


def test_a_value_not_measured_gets_the_message_naming_measured_values(site, explorer):
    site_dir, _ = site
    page = explorer.page
    code = "lookup(results, b=64, w=0, rate=1)"
    shown = run_explorer(page, code)
    assert shown.startswith("B=64 was not measured. Measured B: ")
    assert shown == cpython_answer(site_dir, code)
    code = "lookup(results, b=32, w=0, rate=0.7)"
    assert "was not measured. Measured rates:" in run_explorer(page, code)


def test_reader_errors_print_as_python_prints_them(explorer):
    page = explorer.page
    shown = run_explorer(page, "lookup(results, b=32")
    assert "SyntaxError" in shown
    assert page.get_attribute('[data-role="output"]', "data-state") == "error"


def test_explorer_still_works_after_instant_navigation(site, context):
    site_dir, base = site
    watch = open_page(context, base, base + "explorer/")
    page = watch.page
    first = run_explorer(page)
    # Material's instant navigation: click links, no full reload.
    page.evaluate("window.__sameDocument = true")
    page.click('a.md-nav__link[href$="words/"]')
    page.wait_for_url("**/words/")
    page.click('a.md-nav__link[href$="explorer/"]')
    page.wait_for_url("**/explorer/")
    page.wait_for_function("document.querySelector('[data-role=code]')?.value.length > 0")
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    assert page.input_value('[data-role="code"]').startswith("lookup(")
    assert run_explorer(page) == first == cpython_answer(site_dir, page.input_value("textarea"))
    # Charts mount after an instant page change too.
    page.click('a.md-nav__link[href$="part-a/"]')
    page.wait_for_url("**/part-a/")
    page.wait_for_selector("div.chart[data-chart]")  # the new content is swapped in
    assert wait_for_charts(page) >= 1
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    assert not watch.errors, watch.errors


def test_text_pages_load_neither_the_charts_nor_the_explorer_script(site, fresh_context):
    """Issue 19: charts.js and explorer.js come only with the pages that use them (on-demand.js),
    and once loaded stay across instant navigation."""
    site_dir, base = site
    requested = []
    fresh_context.on("request", lambda request: requested.append(request.url.split("?")[0]))
    watch = open_page(fresh_context, base, base + "words/")
    page = watch.page
    page.wait_for_timeout(500)
    scripts = ("/assets/js/charts.js", "/assets/js/explorer.js")
    assert not [url for url in requested if url.endswith(scripts)], requested
    page.evaluate("window.__sameDocument = true")
    page.click('a.md-nav__link[href$="part-a/"]')
    page.wait_for_url("**/part-a/")
    page.wait_for_selector("div.chart[data-chart]")  # the new content is swapped in
    assert wait_for_charts(page) >= 1
    page.click('a.md-nav__link[href$="explorer/"]')
    page.wait_for_url("**/explorer/")
    page.wait_for_function("document.querySelector('[data-role=code]')?.value.length > 0")
    code = page.input_value('[data-role="code"]')
    assert run_explorer(page) == cpython_answer(site_dir, code)
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    for script in scripts:
        assert sum(url.endswith(script) for url in requested) == 1, (script, requested)
    assert not watch.errors, watch.errors


def test_search_works_offline_its_index_fetched_only_when_wanted(site, fresh_context):
    """Issue 19: the search index (the site's whole text) is not fetched on page load, nor
    after instant navigation, but when the reader goes to the search box (search-later.js);
    then search answers, from one fetch."""
    _, base = site
    asked = []
    fresh_context.on("request", lambda request: asked.append(request.url.split("?")[0]))
    watch = open_page(fresh_context, base, base)
    page = watch.page
    index = base + "search/search_index.json"
    page.wait_for_timeout(1000)  # Material has set up its search by now
    page.click('a.md-nav__link[href$="words/"]')
    page.wait_for_url("**/words/")
    page.wait_for_timeout(500)
    assert index not in asked, "the search index was fetched before anyone searched"
    page.click(".md-search__input")
    page.keyboard.type("saturation", delay=20)  # Material listens to keys, not to fill()
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    assert asked.count(index) == 1, asked
    assert not watch.errors and not watch.blocked


def test_a_page_opened_from_a_search_result_highlights_its_words(site, context):
    """Material highlights a search result's words on the page it opens (?h=); that needs the
    index at once, so search-later.js lets it through."""
    _, base = site
    page = open_page(context, base, base + "words/?h=saturation").page
    page.wait_for_selector("article mark", timeout=20_000)
    assert "saturation" in page.locator("article mark").first.inner_text().lower()


def test_stop_ends_runaway_code_and_python_starts_again(site, context):
    _, base = site
    page = open_page(context, base, base + "explorer/").page
    run_explorer(page, "1 + 1")  # Python is up
    page.fill('[data-role="code"]', "while True:\n    pass")
    page.click('[data-role="run"]')
    page.wait_for_selector('[data-role="stop"]:not([hidden])')
    page.click('[data-role="stop"]')
    page.wait_for_function(
        "document.querySelector('[data-role=output]').dataset.state === 'stopped'"
    )
    assert "Stopped" in page.text_content('[data-role="output"]')
    assert run_explorer(page, "6 * 7") == "42"


def chart_colors(page) -> list[dict]:
    """Per chart: the page background, tick label color and every trace's line color."""
    return page.evaluate(
        r"""() => [...document.querySelectorAll('div.chart')].map(chart => ({
            background: getComputedStyle(document.body).backgroundColor,
            ticks: [...chart.querySelectorAll('.xtick text, .ytick text')]
                .map(t => getComputedStyle(t).fill),
            traces: [...chart.querySelectorAll('.scatterlayer path.js-line, .barlayer path')]
                .map(p => getComputedStyle(p).stroke !== 'none' && p.classList.contains('js-line')
                    ? getComputedStyle(p).stroke : getComputedStyle(p).fill)
                .filter(color => !/^rgba\(.*, 0\)$/.test(color)),  // hollow bars: no fill
        }))"""
    )


def test_dark_palette_redraws_charts_visibly(site, browser):
    _, base = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # keeps the palette
    try:
        page = open_page(context, base, base).page
        wait_for_charts(page)
        light = chart_colors(page)
        page.click("form[data-md-component=palette] label:visible")
        page.wait_for_function(
            "document.body.getAttribute('data-md-color-scheme') === 'slate' && "
            "[...document.querySelectorAll('div.chart')].every(c => c.dataset.drawn === 'slate')"
        )
        dark = chart_colors(page)
        assert dark[0]["background"] != light[0]["background"]
        for chart in dark:
            assert chart["ticks"] and chart["traces"]
            for color in chart["ticks"]:
                assert contrast(color, chart["background"]) >= 4.5, color
            for color in chart["traces"]:
                if color.startswith("rgb"):
                    assert contrast(color, chart["background"]) >= 1.8, color
    finally:
        context.close()


def test_phone_viewport_has_no_horizontal_scroll(tours):
    for page in tours("phone"):
        width, shown = page.scroll_widths
        assert width <= shown, (page.url, page.scroll_widths)
