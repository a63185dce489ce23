"""Driving the built site in Debian's chromium with Playwright, for the browser tier and the
site's benchmarks: serving a built site over HTTP, launching chromium, pages whose outside
requests are aborted and counted (`Watch`), waiting for what a page announces (charts drawn,
the explorer's output done), and the one patience every wait uses (`patience`).

Used by tests/conftest.py's browser fixtures, the browser tests and tests/bench_*.py.
"""

import contextlib
import functools
import http.server
import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from tests.support.modules import load_explorer
from tests.support.sitebuild import site_build

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # No network but this machine: every other host name fails to resolve. Unlike Playwright's
    # request routing, this keeps the browser's HTTP cache on, so a page opened again finds
    # Pyodide's files (and their compiled code) in it, as a reader's browser does.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
]
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}


class Patience:
    """How long any wait in a browser test may last, scaled from a start measured on this
    host at this moment (not a fixed number that a slow, shared host outgrows).

    `calibrate(start_ms)` takes the time the session's first Python start took in the
    explorer (conftest.py's `patience` fixture measures it once per session); every wait is
    then `FACTOR` times that, and never under `FLOOR_MS`. Until calibrated (a benchmark run
    without the fixture) it is `UNCALIBRATED_MS`.
    """

    FACTOR = 6  # a later start, or a page's heaviest wait, takes well under six first starts
    FLOOR_MS = 20_000
    UNCALIBRATED_MS = 60_000

    def __init__(self):
        self.start_ms: float | None = None

    def calibrate(self, start_ms: float) -> None:
        self.start_ms = start_ms

    @property
    def ms(self) -> float:
        if self.start_ms is None:
            return self.UNCALIBRATED_MS
        return max(self.FLOOR_MS, self.FACTOR * self.start_ms)


patience = Patience()


class PatientBrowser:
    """A Playwright Browser whose every new context waits with the run's `patience` (its
    clicks, fills and waits without a timeout of their own, too)."""

    def __init__(self, browser):
        self.browser = browser

    def new_context(self, **options):
        context = self.browser.new_context(**options)
        context.set_default_timeout(patience.ms)
        return context

    def __getattr__(self, name):
        return getattr(self.browser, name)


def calibrate_patience(browser, site_dir: Path, base: str) -> None:
    """Time this host's first Python start in the explorer (a click on Run until the printed
    answer), and scale every later wait from it."""
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    context.add_init_script("window.explorerNoIdleStart = true")
    try:
        page = open_page(context, base, base + "explorer/").page
        started = time.perf_counter()
        printed = run_explorer(page, "6 * 7")
        assert printed == "42", f"the explorer's first start printed {printed!r}"
        patience.calibrate((time.perf_counter() - started) * 1000)
    finally:
        context.close()
    print(
        f"browser patience: first Python start {patience.start_ms:.0f} ms, waits up to "
        f"{patience.ms / 1000:.0f} s",
        file=sys.stderr,
    )


# --- building and serving ----------------------------------------------------------------


def build_site(site_dir: Path, base: str, builder: str = "mkdocs") -> None:
    """The site built for serving at `base` (by MkDocs, or `builder`); a failed build raises
    with the generator's and the builder's output."""
    done = site_build(site_dir, site_url=base, builder=builder)
    if done.returncode != 0:
        raise RuntimeError(f"{builder} build failed:\n{done.stdout}\n{done.stderr}")


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


def under(handler_class, folder: str):
    """`handler_class` serving its directory under /<folder>/ only (as a project site is
    served, https://<owner>.github.io/<repo>/); every other path is not found."""
    prefix = f"/{folder.strip('/')}/"

    class Under(handler_class):
        def send_head(self):
            if self.path.split("?")[0] == prefix[:-1]:  # /repo: on to /repo/, as hosts do
                self.send_response(301)
                self.send_header("Location", prefix)
                self.end_headers()
                return None
            if not self.path.startswith(prefix):
                self.send_error(404)
                return None
            return super().send_head()

        def translate_path(self, path):
            return super().translate_path("/" + path[len(prefix) :])

    return Under


@contextlib.contextmanager
def serve(site_dir: Path, port: int, handler_class=SiteHandler, folder: str = ""):
    """Serve site_dir at http://127.0.0.1:<port>/ in a thread, or under /<folder>/ of it;
    yields the base URL."""
    if folder:
        handler_class = under(handler_class, folder)
    handler = functools.partial(handler_class, directory=str(site_dir))
    server = QuietServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/" + (f"{folder.strip('/')}/" if folder else "")
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
    context = playwright.chromium.launch_persistent_context(
        folder, executable_path=chromium(), args=[*CHROMIUM_ARGS, *extra_args], **options
    )
    context.set_default_timeout(patience.ms)
    return context


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
    """A page whose requests to anywhere but the served site are counted (the browser cannot
    reach another host: CHROMIUM_ARGS) and whose errors are collected."""

    def __init__(self, context, base: str, http_cache: bool = True):
        """`http_cache=False`: every request goes through Playwright's routing, which turns
        the browser's HTTP cache off (the site benchmark's later visits without it)."""
        self.base = base
        self.errors: list[str] = []
        self.blocked: list[str] = []
        self.page = context.new_page()
        if not http_cache:
            self.page.route("**/*", lambda route: route.continue_())
        self.page.on("request", self.request)
        self.page.on("console", self.console)
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))

    def request(self, request):
        url = request.url
        if not (url.startswith(self.base) or url.startswith("data:") or url.startswith("blob:")):
            self.blocked.append(url)

    def console(self, message):
        if message.type == "error":
            self.errors.append(f"console error: {message.text} ({message.location})")


def save_python(context, base: str) -> None:
    """A reader's first visit to the explorer in `context`: Python started and saved (its
    snapshot in the context's IndexedDB), so the context's later pages start from it, as a
    reader's later visits do (tests/test_explorer_snapshot.py checks that such a start prints
    what a normal one prints)."""
    page = open_page(context, base, base + "explorer/").page
    page.wait_for_function(
        "window.explorerEngine && (window.explorerEngine.savedBytes !== null"
        " || window.explorerEngine.notSaved)"
    )
    page.close()


READER_FUNCTIONS = ("lookup", "compare", "part_a", "measured", "batch_route_lookup")


def cpython_answer(site_dir: Path, code: str) -> str:
    """What CPython prints for the same call, on the same results.json the site serves."""
    explorer = load_explorer()
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    names = {n: getattr(explorer, n) for n in READER_FUNCTIONS}
    return eval(code, {"results": results, **names})  # the test's own code strings


def open_page(context, base: str, url: str) -> Watch:
    watch = Watch(context, base)
    watch.page.goto(url, wait_until="load")
    return watch


# The explorer's Python is started and its worker answers (site_src/explorer).
EXPLORER_READY = "document.querySelector('[data-explorer]')?.dataset.engine === 'ready'"


def explorer_page(context, base: str) -> Watch:
    """The explorer page opened, once its Python is ready."""
    watch = open_page(context, base, base + "explorer/")
    watch.page.wait_for_function(EXPLORER_READY)
    return watch


def wait_for_charts(page) -> int:
    """Bring every chart into view, as a reader scrolling down would (charts are drawn when
    they come near, once the reader has done something), and wait until each has a drawn
    plot; returns how many there are. A chart already in view when the page opens needs no
    scroll to be seen, so the reader's wheel is turned too: without it nothing would count
    as the reader's interaction and that chart would stay a stand-in."""
    charts = page.locator("div.chart")
    count = charts.count()
    for index in range(count):
        charts.nth(index).scroll_into_view_if_needed()
    if count:
        page.mouse.wheel(0, 1)
    if count:
        page.wait_for_function(
            "() => [...document.querySelectorAll('div.chart')]"
            ".every(el => el.querySelector('svg.main-svg'))",
            timeout=patience.ms,
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
        timeout=patience.ms,
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


# --- colours as the browser computed them ----------------------------------------------------


def luminance(css: str) -> float:
    """Relative luminance of an rgb()/rgba() color (WCAG)."""
    parts = css[css.index("(") + 1 : css.index(")")].split(",")
    channels = [float(v) / 255 for v in parts[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
