"""The explorer as a reader keeps using it, in real Chromium:
`pytest tests/test_explorer_reader.py`.

Issue 34, item 7 (and item 9's warning):
  * a control changed after the reader typed asks, in the box, whether its call may replace
    the typed code; "Keep my code" keeps it, "Replace and run" writes the call and runs it, and
    from then on the controls write the box again; the campaign switch too;
  * every answer has a permalink (this page's address, the code in its fragment) that opens
    the box with the same code and controls and runs it, printing the same;
  * on a phone (a narrow screen, a coarse pointer) or when the browser asks to save data,
    Python is not fetched until the reader presses Run, and the status line says its size,
    the bytes of the site's own Pyodide files; a desktop browser fetches it at idle;
  * a demo file too noisy to lean on, or from the older demo, is read with its caution.
"""

import json

import pytest

from generator.wording import megabytes
from tests.support import browser as site_tools
from tests.support.demo import demo_of
from tests.support.modules import load_simulator

pytestmark = pytest.mark.timeout(300)

DONE = (
    "() => ['done', 'error'].includes(document.querySelector('[data-role=output]').dataset.state)"
)
PYODIDE = "/assets/vendor/pyodide/"
SAVE_DATA = """Object.defineProperty(Navigator.prototype, "connection", {
  configurable: true, get: () => ({saveData: true, effectiveType: "4g"})});"""
# Resolves once the page has been idle (when the explorer would start Python on a desktop)
# and the worker had a second to ask for its files.
AFTER_IDLE = """() => new Promise((done) => requestIdleCallback(
  () => setTimeout(done, 1000), {timeout: 5000}))"""


def offered(page) -> bool:
    return page.is_visible('[data-role="offer"]')


# --- a control after an edit -----------------------------------------------------------------


def test_a_control_changed_after_an_edit_asks_then_replaces_and_runs(site, context):
    site_dir, base = site
    watch = site_tools.explorer_page(context, base)
    page = watch.page
    page.fill('[data-role="code"]', "6 * 7")
    page.select_option('[data-role="rate"]', "1")
    assert offered(page), "a control changed after an edit must ask"
    asked = page.text_content('[data-role="offer-call"]')
    assert asked.startswith("lookup(results, b=") and asked.endswith("rate=1)")
    assert page.input_value('[data-role="code"]') == "6 * 7"  # not replaced unasked
    assert page.get_attribute('[data-role="output"]', "data-state") in (None, "")
    page.click('[data-role="offer-keep"]')
    assert not offered(page) and page.input_value('[data-role="code"]') == "6 * 7"
    page.select_option('[data-role="b"]', "none")  # asks again: a new change
    assert offered(page)
    call = page.text_content('[data-role="offer-call"]')
    assert call.startswith('lookup(results, b="none"') and "rate=1)" in call
    page.click('[data-role="offer-use"]')
    page.wait_for_function(DONE)
    assert page.input_value('[data-role="code"]') == call
    assert page.text_content('[data-role="output"]') == site_tools.cpython_answer(site_dir, call)
    assert not offered(page)
    page.select_option('[data-role="rate"]', "0.5")  # the controls drive the box again
    assert not offered(page)
    assert page.input_value('[data-role="code"]') == call.replace("rate=1)", "rate=0.5)")
    assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)


def test_the_campaign_switch_after_an_edit_asks_and_runs_the_other_campaign(site, context):
    site_dir, base = site
    shown = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    if "comparison" not in shown:
        pytest.skip("one full campaign: the site has no campaign switch")
    other = shown["comparison"]["against"][-1]["campaign"]["name"]
    page = site_tools.explorer_page(context, base).page
    page.fill('[data-role="code"]', "measured(results)")
    page.select_option('[data-role="campaign"]', other)
    assert offered(page)
    call = page.text_content('[data-role="offer-call"]')
    assert call.startswith(f'lookup(campaign("{other}"), b=')
    assert page.input_value('[data-role="code"]') == "measured(results)"
    page.click('[data-role="offer-use"]')
    page.wait_for_function(DONE)
    assert page.input_value('[data-role="code"]') == call
    answer = page.text_content('[data-role="output"]')
    assert answer.startswith(f"Campaign {other} (not the one this site shows):")


# --- permalinks ------------------------------------------------------------------------------


def test_an_answers_permalink_reopens_the_box_and_prints_the_same(site, context):
    site_dir, base = site
    page = site_tools.explorer_page(context, base).page
    page.select_option('[data-role="mode"]', "compare")
    page.select_option('[data-role="rate"]', "1")
    page.check('[data-role="full"]')
    call = page.input_value('[data-role="code"]')
    first = site_tools.run_explorer(page)
    assert first == site_tools.cpython_answer(site_dir, call)
    link = page.get_attribute('[data-role="permalink-link"]', "href")
    assert page.is_visible('[data-role="permalink"]')
    assert link.startswith(base + "explorer/#run=")
    again = context.new_page()
    again.goto(link)
    again.wait_for_function(DONE)
    assert again.input_value('[data-role="code"]') == call
    assert again.text_content('[data-role="output"]') == first
    for role, value in (("mode", "compare"), ("rate", "1")):
        assert again.input_value(f'[data-role="{role}"]') == value
    assert again.is_checked('[data-role="full"]')
    assert not again.is_visible('[data-role="offer"]')


def test_a_permalink_of_typed_code_keeps_every_character(site, context):
    _, base = site
    page = site_tools.explorer_page(context, base).page
    code = "mark = '#&+= é %20'\nprint(mark)\nmeasured(results).splitlines()[0]"
    first = site_tools.run_explorer(page, code)
    assert first.startswith("#&+= é %20\n")
    link = page.get_attribute('[data-role="permalink-link"]', "href")
    again = context.new_page()
    again.goto(link)
    again.wait_for_function(DONE)
    assert again.input_value('[data-role="code"]') == code
    assert again.text_content('[data-role="output"]') == first


# --- phones and saving data --------------------------------------------------------------------


def python_size(site_dir) -> str:
    """The size the status line must show: the site's own Pyodide files, summed here."""
    folder = site_dir / "assets" / "vendor" / "pyodide"
    return megabytes(sum(path.stat().st_size for path in folder.iterdir() if path.is_file()))


@pytest.mark.parametrize("reader", ["phone", "save-data"])
def test_python_waits_for_run_on_a_phone_or_when_saving_data(site, browser, reader):
    site_dir, base = site
    phone = reader == "phone"
    context = browser.new_context(
        viewport=site_tools.VIEWPORTS["phone" if phone else "desktop"],
        is_mobile=phone, has_touch=phone,
    )  # fmt: skip
    if not phone:
        context.add_init_script(SAVE_DATA)
    fetched = []
    context.on("request", lambda request: fetched.append(request.url))
    try:
        watch = site_tools.open_page(context, base, base + "explorer/")
        page = watch.page
        page.evaluate(AFTER_IDLE)
        assert not [url for url in fetched if PYODIDE in url], "Python fetched unasked"
        assert page.get_attribute("[data-explorer]", "data-engine") == "off"
        status = page.text_content('[data-role="status"]')
        assert f"Python ({python_size(site_dir)}) downloads only when you ask" in status
        assert status.startswith("On a phone" if phone else "Your browser asks to save data")
        call = page.input_value('[data-role="code"]')
        page.click('[data-role="run"]')
        page.wait_for_function(DONE)
        assert [url for url in fetched if PYODIDE in url], "Run did not fetch Python"
        assert page.text_content('[data-role="output"]') == site_tools.cpython_answer(
            site_dir, call
        )
        assert not watch.errors and not watch.blocked, (watch.errors, watch.blocked)
    finally:
        context.close()


def test_a_desktop_browser_fetches_python_at_idle(site, browser):
    """The other side of the test above: where nothing asks to wait, Python comes at idle."""
    _, base = site
    context = browser.new_context(viewport=site_tools.VIEWPORTS["desktop"])
    fetched = []
    context.on("request", lambda request: fetched.append(request.url))
    try:
        page = site_tools.open_page(context, base, base + "explorer/").page
        page.evaluate(AFTER_IDLE)
        page.wait_for_function("window.explorerEngine.state !== 'off'")
        assert [url for url in fetched if PYODIDE in url]
    finally:
        context.close()


def test_a_phones_permalink_fills_the_box_and_waits_for_run(site, browser):
    site_dir, base = site
    context = browser.new_context(viewport=site_tools.PHONE, is_mobile=True, has_touch=True)
    fetched = []
    context.on("request", lambda request: fetched.append(request.url))
    code = "lookup(results, b='none', w=0, rate=0.5)"
    try:
        page = context.new_page()
        page.goto(base + "explorer/#run=" + code.replace(" ", "+").replace("=", "%3D"))
        page.evaluate(AFTER_IDLE)
        assert page.input_value('[data-role="code"]') == code
        assert "press Run to load it and run the linked code" in page.text_content(
            '[data-role="status"]'
        )
        assert not [url for url in fetched if PYODIDE in url]
        page.click('[data-role="run"]')
        page.wait_for_function(DONE)
        assert page.text_content('[data-role="output"]') == site_tools.cpython_answer(
            site_dir, code
        )
    finally:
        context.close()


# --- the reader's demo file --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["noisy", "old", "steady"])
def test_a_demo_file_too_noisy_or_old_is_read_with_its_caution(site, context, tmp_path, kind):
    site_dir, base = site
    results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
    from lab.model.timing import TOO_NOISY_SPREAD

    spread = TOO_NOISY_SPREAD * (2 if kind == "noisy" else 0.5)
    demo = demo_of(results, spread=spread, old=kind == "old")
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(demo))
    simulator = load_simulator()
    caution = simulator.demo_caution(simulator.read_demo(demo))
    assert bool(caution) == (kind != "steady")
    page = site_tools.explorer_page(context, base).page
    page.set_input_files('[data-role="machine-file"]', str(path))
    state = "done" if kind == "steady" else "caution"
    page.wait_for_selector(f'[data-role="machine-status"][data-state="{state}"]')
    shown = page.text_content('[data-role="machine-status"]')
    assert shown.startswith("Your machine: ")
    if caution:
        assert page.text_content(".explorer-caution") == caution
        first = "Warning: this demo file's timings are too noisy" if kind == "noisy" else "Note:"
        assert caution.startswith(first)
    else:
        assert page.query_selector(".explorer-caution") is None
