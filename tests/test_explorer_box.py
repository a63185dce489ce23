"""The explorer box tells the truth about itself, in real Chromium:
`pytest tests/test_explorer_box.py`.

The site is built with mkdocs.yml's default site_url (http://127.0.0.1:8000/) and served on
another port, reached both as 127.0.0.1 and as localhost: an address other than the build's.
Checks: the status line follows the worker (loading, running, stopped and starting again,
ready); each run gets a fresh `results`; a control never replaces typed code without asking
(tests/test_explorer_reader.py: the question it asks, permalinks, phones);
numbers are rounded unless every digit is asked for; tracebacks show the reader's frames
only; `simulate` prints exactly what CPython prints; a demo file chosen in the file input is
checked, drawn and simulated (and a broken one is named); instant navigation keeps the same
Python across pages; the campaign control points the box at another committed full
campaign; the box's controls are on screen at 1280×800 and its output wraps on a phone.
"""

import copy
import json
from pathlib import Path

import pytest

from tests.support import browser as site_tools
from tests.support.demo import demo_of
from tests.support.modules import load_simulator

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def site(shared_builds, patience):
    """The run's MkDocs build (mkdocs.yml's own address) served on another port, reached both
    as 127.0.0.1 and as localhost: (site_dir, [two base URLs])."""
    port = site_tools.free_port()
    with site_tools.serve(shared_builds.site, port) as base:
        yield shared_builds.site, [base, base.replace("127.0.0.1", "localhost")]


@pytest.fixture(scope="module")
def shared_context(browser, site):
    """The module's one context at 1280×800 (conftest.py's `context` closes each test's
    pages), Python saved on a first visit, so each test's page starts from it."""
    _, (base, _) = site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    site_tools.save_python(context, base)
    yield context
    context.close()


def status(page) -> str:
    return page.text_content('[data-role="status"]')


def cpython_simulate(site_dir: Path, *args, **options) -> str:
    simulator = load_simulator()
    folder = site_dir / "assets" / "data"
    results = simulator.with_table(json.loads((folder / "results.json").read_text()), folder)
    return simulator.simulate(results, *args, **options)


# --- states ------------------------------------------------------------------------------------


def test_the_status_line_follows_the_worker(site, browser):
    _, (base, _) = site
    context = browser.new_context()
    context.add_init_script("window.explorerNoIdleStart = true")
    try:
        page = site_tools.open_page(context, base, base + "explorer/").page
        assert "starts when the page is idle" in status(page)
        page.fill('[data-role="code"]', "while True:\n    pass")
        page.click('[data-role="run"]')
        # "(once per visit)" until the worker's first word ("Loading Python…"), which a slow
        # host may already have shown: either is the visible loading state.
        assert page.get_attribute("[data-explorer]", "data-engine") == "loading"
        assert status(page).startswith("Loading Python")
        page.wait_for_function(site_tools.EXPLORER_READY, timeout=site_tools.patience.ms)
        # Python is up and the endless loop runs: the box says so, not "ready".
        assert page.get_attribute("[data-explorer]", "data-run") == "running"
        assert status(page) == "Running… (Stop ends it)"
        page.click('[data-role="stop"]')
        # "Stopped. Starting a fresh Python…" until the new worker's first word ("Loading
        # Python…"), which a slow host may already have shown; never "once per visit".
        assert page.get_attribute("[data-explorer]", "data-engine") == "loading"
        assert status(page).startswith(("Stopped. Starting a fresh Python…", "Loading Python…"))
        assert "once per visit" not in status(page)
        assert page.text_content('[data-role="output"]').startswith("Stopped.")
        page.wait_for_function(site_tools.EXPLORER_READY, timeout=site_tools.patience.ms)
        assert "is ready" in status(page)
        assert page.get_attribute("[data-explorer]", "data-run") == "idle"
        assert site_tools.run_explorer(page, "6 * 7") == "42"
        assert "is ready" in status(page)
    finally:
        context.close()


def test_each_run_gets_a_fresh_copy_of_results(site, context):
    site_dir, (base, _) = site
    page = site_tools.explorer_page(context, base).page
    site_tools.run_explorer(page, "results.clear()\nresults['mine'] = mine = 1\nlookup = None")
    shown = site_tools.run_explorer(page, "'mine' in results, len(results) > 5, mine")
    assert shown == "(False, True, 1)"  # a fresh results; the reader's own name stays
    code = "lookup(results, b=32, w=2, rate=1)"
    assert site_tools.run_explorer(page, code) == site_tools.cpython_answer(site_dir, code)


def test_a_control_never_replaces_typed_code_without_asking(site, context):
    _, (base, _) = site
    page = site_tools.explorer_page(context, base).page
    written = page.input_value('[data-role="code"]')
    page.select_option('[data-role="rate"]', "1")
    assert page.input_value('[data-role="code"]') != written  # untouched: the controls write
    page.fill('[data-role="code"]', "my = 'own code'")
    page.select_option('[data-role="b"]', "none")
    assert page.input_value('[data-role="code"]') == "my = 'own code'"
    assert page.is_visible('[data-role="offer"]')
    offered = page.text_content('[data-role="offer-call"]')
    assert offered.startswith("lookup(results, b='none'") or offered.startswith(
        'lookup(results, b="none"'
    )
    # The typed code survives a trip to another page and back.
    page.click('a.md-nav__link[href$="words/"]')
    page.wait_for_url("**/words/")
    page.click('a.md-nav__link[href$="explorer/"]')
    page.wait_for_url("**/explorer/")
    page.wait_for_selector('[data-role="offer"]:not([hidden])')
    assert page.input_value('[data-role="code"]') == "my = 'own code'"
    page.click('[data-role="offer-use"]')
    assert page.input_value('[data-role="code"]').startswith("lookup(results, b=")
    assert not page.is_visible('[data-role="offer"]')


def test_numbers_are_rounded_unless_every_digit_is_asked_for(site, context):
    site_dir, (base, _) = site
    page = site_tools.explorer_page(context, base).page
    rounded = site_tools.run_explorer(page)
    assert "numbers rounded for reading" in rounded
    page.check('[data-role="full"]')
    code = page.input_value('[data-role="code"]')
    assert code.endswith(", full=True)")
    full = site_tools.run_explorer(page)
    assert full == site_tools.cpython_answer(site_dir, code)
    assert "numbers rounded" not in full and len(full) > len(rounded) - 80


def test_a_cell_that_did_not_keep_up_carries_the_warning(site, context):
    site_dir, (base, _) = site
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    top = results["design"]["rate_multiples"][-1]
    page = site_tools.explorer_page(context, base).page
    shown = site_tools.run_explorer(page, f"lookup(results, b='none', w=0, rate={top})")
    cell = results["part_b"]["settings"]["none"]["rates"][top]
    assert cell["keeps_up_rounds"] < len(cell["rounds"])  # the campaign's overload rate
    assert "grows with the run's length" in shown.replace("\n    ", " ")


def test_the_campaign_control_points_the_box_at_another_campaign(site, context):
    """Issue 15: the box reads either committed full campaign; an answer from the other names
    it, and prints what CPython prints from that campaign's published results."""
    site_dir, (base, _) = site
    data = site_dir / "assets" / "data"
    shown = json.loads((data / "results.json").read_text())
    page = site_tools.explorer_page(context, base).page
    if "comparison" not in shown:  # one full campaign: no control, and campaign() names it
        assert page.query_selector('[data-role="campaign"]') is None
        wrong = site_tools.run_explorer(page, 'campaign("full-19990101")')
        assert f"the campaigns are {shown['campaign']['name']!r}" in wrong
        return
    others = [a["campaign"]["name"] for a in shown["comparison"]["against"]]
    options = page.eval_on_selector_all(
        '[data-role="campaign"] option', "options => options.map(o => o.value)"
    )
    assert options == ["", *reversed(others)]  # this site's first, then the newest other
    other = others[-1]
    page.select_option('[data-role="campaign"]', other)
    code = page.input_value('[data-role="code"]')
    assert code.startswith(f'lookup(campaign("{other}"), b=')
    answer = site_tools.run_explorer(page)
    assert answer.startswith(f"Campaign {other} (not the one this site shows):")
    explorer = site_tools.load_explorer()
    theirs = json.loads((data / "campaigns" / f"{other}.json").read_text())
    call = code.replace(f'campaign("{other}")', "results")
    names = {n: getattr(explorer, n) for n in site_tools.READER_FUNCTIONS}
    assert answer == eval(call, {"results": theirs, **names})  # the test's own code string
    page.wait_for_timeout(300)  # the answer's link to a chart would be added by now
    assert page.query_selector(".answer-link") is None  # this site's charts are not its
    page.select_option('[data-role="campaign"]', "")
    assert page.input_value('[data-role="code"]').startswith("lookup(results, b=")
    wrong = site_tools.run_explorer(page, 'campaign("full-19990101")')
    assert "no such campaign here; the campaigns are" in wrong
    assert all(repr(name) in wrong for name in [shown["campaign"]["name"], *others])


def test_a_traceback_shows_the_readers_frames_only(site, context):
    _, (base, _) = site
    page = site_tools.explorer_page(context, base).page
    shown = site_tools.run_explorer(page, "def share(n):\n    return 1 / n\n\nshare(0)")
    assert page.get_attribute('[data-role="output"]', "data-state") == "error"
    assert shown.startswith("Traceback (most recent call last):")
    assert 'File "<your code>", line 4' in shown and 'File "<your code>", line 2' in shown
    assert "return 1 / n" in shown and shown.endswith("ZeroDivisionError: division by zero")
    for machinery in ("run_reader_code", "_pyodide", "eval_code", "<exec>"):
        assert machinery not in shown
    syntax = site_tools.run_explorer(page, "lookup(results, b=32")
    assert syntax.startswith('  File "<your code>", line 1') and "SyntaxError" in syntax


# --- simulate and the reader's machine ------------------------------------------------------


def test_simulate_prints_what_cpython_prints(site, context):
    site_dir, (base, _) = site
    page = site_tools.explorer_page(context, base).page
    page.select_option('[data-role="mode"]', "simulate")
    page.fill('[data-role="sim_b"]', "48")
    page.fill('[data-role="sim_w"]', "1.5")
    page.fill('[data-role="sim_rate"]', "1.7")
    page.dispatch_event('[data-role="sim_rate"]', "change")
    code = page.input_value('[data-role="code"]')
    assert code == "simulate(results, b=48, w=1.5, rate=1.7)"
    shown = site_tools.run_explorer(page)
    assert shown == cpython_simulate(site_dir, 48, 1.5, 1.7)
    assert "SIMULATED, NOT MEASURED" in shown and "nearest measured cell" in shown
    code = (
        "simulate(results, b='none', w=0, rate=0.5, seed=3, window_s=2, "
        "per_call_us=900, per_row_us=4)"
    )
    assert site_tools.run_explorer(page, code) == cpython_simulate(
        site_dir, 0, 0, 0.5, seed=3, window_s=2, per_call_us=900, per_row_us=4
    )
    assert site_tools.run_explorer(page, "simulate(results, b=1, w=2, rate=1)").startswith(
        "simulate: B=1 with W>0 is not a setting"
    )


def test_a_demo_file_is_checked_drawn_and_simulated_in_the_browser(site, context, tmp_path):
    site_dir, (base, _) = site
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    demo = demo_of(results, slower=2.0)
    broken = copy.deepcopy(demo)
    del broken["machine"]["cores"]
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    (tmp_path / "mine.json").write_text(json.dumps(demo))
    watch = site_tools.explorer_page(context, base)
    page = watch.page
    page.set_input_files('[data-role="machine-file"]', str(tmp_path / "broken.json"))
    page.wait_for_selector('[data-role="machine-status"][data-state="error"]')
    assert page.text_content('[data-role="machine-status"]') == (
        "demo file: machine.cores is missing; it should be a whole number, 1 or more"
    )
    page.set_input_files('[data-role="machine-file"]', str(tmp_path / "mine.json"))
    page.wait_for_selector('[data-role="machine-status"][data-state="done"]')
    assert page.text_content('[data-role="machine-status"]').startswith("Your machine: ")
    page.wait_for_selector('[data-role="machine-chart"] svg.main-svg')
    assert page.locator('[data-role="machine-chart"] .scatterlayer .trace').count() == 2
    page.select_option('[data-role="mode"]', "simulate")
    code = page.input_value('[data-role="code"]')
    assert code.endswith(", machine=my_machine)")
    shown = site_tools.run_explorer(page, code.replace(")", ", window_s=2)"))
    assert shown == cpython_simulate(site_dir, 48, 1.5, 1.7, window_s=2, machine=demo)
    assert "your machine:" in shown
    assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)


# --- where and how it is shown ---------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_same_python_serves_every_page_served_elsewhere(site, context, host):
    site_dir, bases = site
    base = bases[0] if host == "127.0.0.1" else bases[1]
    assert ":8000/" not in base  # not the address the site was built for
    watch = site_tools.explorer_page(context, base)
    page = watch.page
    first = site_tools.run_explorer(page)
    page.evaluate("window.__sameDocument = true")
    for target in ("words/", "part-a/", "explorer/"):
        page.click(f'a.md-nav__link[href$="{target}"]')
        page.wait_for_url(f"**/{target}")
    page.wait_for_function(site_tools.EXPLORER_READY)
    assert page.evaluate("window.__sameDocument === true"), "a full page load"
    assert page.evaluate("window.explorerEngine.starts") == 1, "Python started again"
    again = site_tools.run_explorer(page)
    assert again == first
    assert float(page.get_attribute('[data-role="output"]', "data-elapsed-ms")) < 5000
    assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)


def test_the_controls_are_on_screen_at_1280_by_800(site, context):
    _, (base, _) = site
    page = site_tools.explorer_page(context, base).page
    bottom = page.evaluate(
        "document.querySelector('[data-role=run]').getBoundingClientRect().bottom"
    )
    assert bottom <= 800, f"the Run button ends at {bottom} px"


def test_the_output_wraps_on_a_phone(site, browser):
    _, (base, _) = site
    context = browser.new_context(viewport=site_tools.PHONE, is_mobile=True, has_touch=True)
    try:
        # A phone starts Python on the first Run (tests/test_explorer_reader.py), not at idle.
        page = site_tools.open_page(context, base, base + "explorer/").page
        page.select_option('[data-role="mode"]', "simulate")
        site_tools.run_explorer(page)
        page.select_option('[data-role="mode"]', "setting")
        site_tools.run_explorer(page)
        widths = page.evaluate(
            "[...document.querySelectorAll('[data-explorer], [data-explorer] *')]"
            ".filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)"
            ".map(e => e.tagName + '.' + e.className + ' ' + e.scrollWidth + '>' + e.clientWidth)"
        )
        assert not widths, widths
        page_width = page.evaluate(
            "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
        )
        assert page_width[0] <= page_width[1], page_width
    finally:
        context.close()
