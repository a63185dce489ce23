"""Real-browser tests of the built site: `pytest -m browser tests/test_browser.py`.

Builds the site with `mkdocs build --strict` into a temporary folder (its docs/ too: see
tests/sitebuild.py), serves it over HTTP on
a free port, and drives Debian's chromium (/usr/bin/chromium) with Playwright. Every request
that is not to the local server is aborted and counted: the site must work with no network.
Checks: every page loads with no console error, every chart draws, the explorer prints
exactly what CPython prints for the same call, a bad value gets its message, the explorer
survives instant navigation, Stop ends runaway code, charts stay visible in the dark
palette, and a phone-sized viewport has no horizontal scroll.

The helpers (build_site, serve, launch, page_urls, Watch) are also used by tests/bench_site.py.
"""

import contextlib
import functools
import http.server
import importlib.util
import json
import socket
import sys
import threading
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sitebuild import mkdocs_build, raw_dir  # noqa: E402, F401 (raw_dir: for bench_site.py)

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}
PYTHON_START_MS = 60_000  # Pyodide's first start on a slow, shared CI core

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


# --- building and serving ----------------------------------------------------------------


def build_site(site_dir: Path, base: str) -> None:
    """The site built for serving at `base`; a failed build raises with mkdocs' output."""
    done = mkdocs_build(site_dir, site_url=base)
    if done.returncode != 0:
        raise RuntimeError(f"mkdocs build failed:\n{done.stdout}\n{done.stderr}")


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the types module workers and WebAssembly insist on; no logging."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".py": "text/plain; charset=utf-8",
    }

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    """A browser that drops a connection mid-file (a cancelled fetch) is not an error here."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serve(site_dir: Path, port: int, handler_class=SiteHandler):
    """Serve site_dir at http://127.0.0.1:<port>/ in a thread; yields the base URL."""
    handler = functools.partial(handler_class, directory=str(site_dir))
    server = QuietServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()
        server.server_close()


def page_urls(base: str) -> list[str]:
    """Every page of the nav in mkdocs.yml, as served (directory URLs)."""
    with (ROOT / "mkdocs.yml").open() as config:
        nav = yaml_load(config)["nav"]
    urls = []
    for entry in nav:
        (source,) = entry.values()
        urls.append(base if source == "index.md" else base + source[: -len(".md")] + "/")
    return urls


def chromium() -> str:
    """Debian's chromium, or the test fails saying how to install it."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make browser` installs Debian's chromium")
    return str(CHROMIUM)


def launch(playwright):
    return playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)


def launch_profile(playwright, folder, extra_args=(), **options):
    """Chromium started on the browser profile kept in `folder` (a reader's later visits):
    a persistent context; `options` as Playwright's (viewport, …)."""
    return playwright.chromium.launch_persistent_context(
        folder, executable_path=chromium(), args=[*CHROMIUM_ARGS, *extra_args], **options
    )


def new_context(browser, viewport: str, scheme: str = "light"):
    """A context at a VIEWPORTS size (a phone's with touch) whose explorer never starts
    Python on its own (tests and benchmarks that are not about the explorer's start)."""
    phone = viewport == "phone"
    context = browser.new_context(
        viewport=VIEWPORTS[viewport], is_mobile=phone, has_touch=phone, color_scheme=scheme
    )
    context.add_init_script("window.explorerNoIdleStart = true")
    return context


class Watch:
    """A page whose non-local requests are aborted and whose errors are collected."""

    def __init__(self, context, base: str):
        self.base = base
        self.errors: list[str] = []
        self.blocked: list[str] = []
        self.page = context.new_page()
        self.page.route("**/*", self.route)
        self.page.on("console", self.console)
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))

    def route(self, route):
        url = route.request.url
        if url.startswith(self.base) or url.startswith("data:") or url.startswith("blob:"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def console(self, message):
        if message.type == "error":
            self.errors.append(f"console error: {message.text} ({message.location})")


def load_explorer():
    path = ROOT / "site_src" / "explorer" / "explorer.py"
    spec = importlib.util.spec_from_file_location("explorer_cpython", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


READER_FUNCTIONS = ("lookup", "compare", "part_a", "measured", "batch_route_lookup")


def cpython_answer(site_dir: Path, code: str) -> str:
    """What CPython prints for the same call, on the same results.json the site serves."""
    explorer = load_explorer()
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    names = {n: getattr(explorer, n) for n in READER_FUNCTIONS}
    return eval(code, {"results": results, **names})  # the test's own code strings


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


def open_page(context, base: str, url: str) -> Watch:
    watch = Watch(context, base)
    watch.page.goto(url, wait_until="load")
    return watch


def wait_for_charts(page) -> int:
    """Bring every chart into view, as a reader scrolling down would (charts are drawn when
    they come near), and wait until each has a drawn plot; returns how many there are."""
    charts = page.locator("div.chart")
    count = charts.count()
    for index in range(count):
        charts.nth(index).scroll_into_view_if_needed()
    if count:
        page.wait_for_function(
            "() => [...document.querySelectorAll('div.chart')]"
            ".every(el => el.querySelector('svg.main-svg'))",
            timeout=30_000,
        )
    return count


def read_through(page) -> None:
    """Scroll down the whole page a screen at a time, as a reader does, then back to the top
    (the page's height is read again at each step: boxes laid out late may change it)."""
    step, top = page.viewport_size["height"], 0
    while top < page.evaluate("document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {top})")
        page.wait_for_timeout(50)
        top += step
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(200)


# --- explorer helpers -----------------------------------------------------------------------


def run_explorer(page, code: str | None = None) -> str:
    """Run the textarea's code (or `code`) and return the printed text once it is done."""
    if code is not None:
        page.fill('[data-role="code"]', code)
    page.evaluate("document.querySelector('[data-role=output]').dataset.state = ''")
    page.click('[data-role="run"]')
    page.wait_for_function(
        "() => ['done', 'error', 'stopped'].includes("
        "document.querySelector('[data-role=output]').dataset.state)",
        timeout=PYTHON_START_MS,
    )
    return page.text_content('[data-role="output"]')


def six_choices(site_dir: Path) -> list[dict]:
    """Six (B, W, RATE) lookups spread over the measured settings and rates."""
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    cells = []
    for name, body in results["part_b"]["settings"].items():
        b = "none" if name == "none" else str(body["max_batch"])
        for key in body["rates"]:
            cells.append({"b": b, "w": f"{body['max_wait_ms']:g}", "rate": key})
    step = max(len(cells) // 6, 1)
    chosen = cells[::step][:6]
    assert len(chosen) == 6, f"only {len(cells)} measured cells"
    return chosen


# --- the tests ---------------------------------------------------------------------------------


def test_every_page_loads_offline_without_errors_and_draws_its_charts(site, context):
    site_dir, base = site
    charts_seen = 0
    for url in page_urls(base):
        watch = open_page(context, base, url)
        charts_seen += wait_for_charts(watch.page)
        assert watch.page.locator("h1").count() == 1, url
        assert not watch.errors, (url, watch.errors)
        assert not watch.blocked, (url, watch.blocked)
        watch.page.close()
    assert charts_seen >= 5


def test_explorer_prints_what_cpython_prints_for_six_settings(site, context):
    site_dir, base = site
    watch = open_page(context, base, base + "explorer/")
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


def test_compare_part_a_and_batch_route_match_cpython(site, context):
    site_dir, base = site
    page = open_page(context, base, base + "explorer/").page
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
            timeout=PYTHON_START_MS,
        )
        assert "is ready" in page.text_content('[data-role="status"]')
        code = page.input_value('[data-role="code"]')
        assert page.text_content('[data-role="output"]') == cpython_answer(site_dir, code)
    finally:
        context.close()


def test_a_value_not_measured_gets_the_message_naming_measured_values(site, context):
    site_dir, base = site
    page = open_page(context, base, base + "explorer/").page
    code = "lookup(results, b=64, w=0, rate=1)"
    shown = run_explorer(page, code)
    assert shown.startswith("B=64 was not measured. Measured B: ")
    assert shown == cpython_answer(site_dir, code)
    code = "lookup(results, b=32, w=0, rate=0.7)"
    assert "was not measured. Measured rates:" in run_explorer(page, code)


def test_reader_errors_print_as_python_prints_them(site, context):
    _, base = site
    page = open_page(context, base, base + "explorer/").page
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


def test_text_pages_load_neither_the_charts_nor_the_explorer_script(site, context):
    """Issue 19: charts.js and explorer.js come only with the pages that use them (on-demand.js),
    and once loaded stay across instant navigation."""
    site_dir, base = site
    requested = []
    context.on("request", lambda request: requested.append(request.url.split("?")[0]))
    watch = open_page(context, base, base + "words/")
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


def test_search_works_offline_its_index_fetched_only_when_wanted(site, context):
    """Issue 19: the search index (the site's whole text) is not fetched on page load, nor
    after instant navigation, but when the reader goes to the search box (search-later.js);
    then search answers, from one fetch."""
    _, base = site
    asked = []
    context.on("request", lambda request: asked.append(request.url.split("?")[0]))
    watch = open_page(context, base, base)
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


def luminance(css: str) -> float:
    """Relative luminance of an rgb()/rgba() color (WCAG)."""
    parts = css[css.index("(") + 1 : css.index(")")].split(",")
    channels = [float(v) / 255 for v in parts[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_dark_palette_redraws_charts_visibly(site, context):
    _, base = site
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


def test_phone_viewport_has_no_horizontal_scroll(site, browser):
    _, base = site
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        for url in page_urls(base):
            watch = open_page(context, base, url)
            wait_for_charts(watch.page)
            widths = watch.page.evaluate(
                "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
            )
            assert widths[0] <= widths[1], (url, widths)
            watch.page.close()
    finally:
        context.close()
