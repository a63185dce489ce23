"""The site in the browser as other builds and hosts serve it:
`pytest tests/test_builds_browser.py`.

Every other browser test runs on MkDocs' build served at a server's root. This one runs a stated
subset on Zensical's build of the same docs/ and mkdocs.yml and on MkDocs' build, both served
under a sub-path, as a GitHub project site is (https://<owner>.github.io/<repo>/; here
http://127.0.0.1:PORT/repo/, built for http://127.0.0.1:8000/ as mkdocs.yml says: the built
address is never the served one). On each:
  * pages load with no console error and no request to another origin, have one <h1>, and draw
    every chart they hold: every page of the nav on Zensical's build, the home page, Part B and
    the explorer on MkDocs' (every page of which tests/test_browser.py loads at the root);
  * the explorer prints what CPython prints, and keeps the same Python (no page reload) after
    instant navigation to another page and back; charts mount after an instant page change;
  * search finds a word, offline (Material's box and index under MkDocs, Zensical's own);
and on Zensical's build, the accessibility scan (axe-core, as tests/test_accessibility.py runs
it on MkDocs' every page) finds nothing serious on Words, Part B, the batch route and the
explorer. What this leaves to the MkDocs-only tests: the phone tour and its layout checks, the
dark palette, the explorer box's own behaviour, the snapshot of Python.
"""

import pytest

from tests.support.browser import (
    cpython_answer,
    free_port,
    open_page,
    page_urls,
    run_explorer,
    serve,
    wait_for_charts,
)
from tests.support.tour import axe_source, scan

pytestmark = pytest.mark.timeout(400)

SERVED = {  # id: (builder, folder it is served under)
    "mkdocs-under-repo": ("mkdocs", "repo"),
    "zensical-under-repo": ("zensical", "repo"),
}
LOADED = {"mkdocs": ("", "part-b/", "explorer/"), "zensical": None}  # None: every page
SCANNED = ("words/", "part-b/", "batch-route/", "explorer/")


@pytest.fixture(scope="module", params=SERVED)
def served(request, shared_builds, patience):
    """(builder, site folder, base URL) of one way of serving the site."""
    builder, folder = SERVED[request.param]
    site = shared_builds.sites[builder]
    with serve(site, free_port(), folder=folder) as base:
        yield builder, site, base


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("window.explorerNoIdleStart = true")
    yield context
    context.close()


def test_pages_load_without_errors_and_draw_their_charts(served, context):
    builder, site, base = served
    urls = page_urls(base)
    assert urls[0] == base and len(urls) == 16
    if LOADED[builder] is not None:
        urls = [base + path for path in LOADED[builder]]
    drawn = 0
    for url in urls:
        watch = open_page(context, base, url)
        html = (site / url[len(base) :] / "index.html").read_text()
        charts = wait_for_charts(watch.page)
        assert charts == html.count('<div class="chart"'), url
        assert watch.page.locator("h1").count() == 1, url
        assert not watch.errors and not watch.blocked, (url, watch.errors, watch.blocked)
        drawn += charts
        watch.page.close()
    assert drawn >= 3


def test_the_explorer_answers_and_keeps_its_python_across_instant_navigation(served, context):
    _, site, base = served
    watch = open_page(context, base, base + "explorer/")
    page = watch.page
    first = run_explorer(page)
    assert first == cpython_answer(site, page.input_value('[data-role="code"]'))
    page.evaluate("window.__sameDocument = true")  # gone if the browser loads a page anew
    page.click('a.md-nav__link[href$="words/"]')
    page.wait_for_url(base + "words/")
    page.click('a.md-nav__link[href$="explorer/"]')
    page.wait_for_url(base + "explorer/")
    page.wait_for_function("document.querySelector('[data-role=code]')?.value.length > 0")
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    assert page.evaluate("window.explorerEngine.state") == "ready"  # the same Python, started
    assert run_explorer(page, "6 * 7") == "42"
    page.click('a.md-nav__link[href$="part-a/"]')
    page.wait_for_url(base + "part-a/")
    page.wait_for_selector("div.chart[data-chart]")
    assert wait_for_charts(page) >= 1
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)


def test_search_finds_a_word_offline(served, context):
    builder, _, base = served
    watch = open_page(context, base, base + "words/")
    page = watch.page
    if builder == "mkdocs":
        page.click(".md-search__input")
        page.keyboard.type("saturation", delay=20)  # Material listens to keys, not to fill()
        page.wait_for_selector(".md-search-result__item")
        found = page.locator(".md-search-result__item").count()
    else:  # Zensical's search: a button opening its own dialog (in a shadow root)
        page.click(".md-search__button")
        page.locator('dialog[aria-label="Search"] input').wait_for()
        page.keyboard.type("saturation", delay=20)
        results = page.locator('dialog[aria-label="Search"] ol[role="listbox"] > li')
        results.first.wait_for()
        found = results.count()
    assert found >= 1
    assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)


def test_zensicals_pages_pass_the_accessibility_scan(served, context):
    builder, _, base = served
    if builder != "zensical":
        pytest.skip("MkDocs' every page is scanned by tests/test_accessibility.py")
    source = axe_source()
    for path in SCANNED:
        watch = open_page(context, base, base + path)
        wait_for_charts(watch.page)
        palette, found = scan(watch.page, source)
        assert not found, (path, palette, found)
        watch.page.close()
