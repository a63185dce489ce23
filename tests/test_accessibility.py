"""An accessibility scan of every page of the built site with axe-core, in real Chromium:
`pytest -m browser tests/test_accessibility.py`.

axe-core is the pinned copy in vendor/axe-core/ (site_src/vendor.py checks its sha256; `make
vendor` fetches it), injected into each page by the test and never shipped with the site.
Every page of the nav is scanned at 1280×800 and 390×844, in the light and the dark palette,
after its charts are drawn and the page read through: in the palette it opens in, then again
after the reader switches palette with Material's toggle (Material keeps the choice, so the
pages open in the two palettes in turn; the first opens in the system's, light). Every rule
runs in the light palette, the rules about colour in the dark one (COLOUR_RULES). Any serious
or critical violation fails, named by page, viewport, palette, rule and element.
"""

import sys
from pathlib import Path

import pytest
import test_browser as site_tools

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site_src"))
import vendor  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

VIEWPORTS = site_tools.VIEWPORTS
PALETTES = ("light", "dark")
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


def axe_source() -> str:
    left = vendor.problems(vendor.AXE)
    if left:
        pytest.fail("; ".join(left) + " (run `make vendor`)")
    return (vendor.AXE.local_dir / "axe.min.js").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = site_tools.launch(playwright)
        yield chromium
        chromium.close()


# The dark palette changes colours only (Material sets the palette's attributes on <body>; the
# page and its charts are the same elements), so in the dark the rules about colour are run:
# every other rule reads the same elements and gives the same answer in both palettes.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


TOGGLE = "form[data-md-component=palette] label:not([hidden])"
IN_PALETTE = (
    "(scheme) => document.body.getAttribute('data-md-color-scheme') === scheme && [...document"
    ".querySelectorAll('div.chart')].every(chart => chart.dataset.drawn === scheme)"
)


def scan(page, source: str) -> tuple[str, list[dict]]:
    """The page's palette and its serious or critical violations: every rule in the light
    palette, the rules about colour in the dark one."""
    palette = "dark" if page.get_attribute("body", "data-md-color-scheme") == "slate" else "light"
    if not page.evaluate("Boolean(window.axe)"):
        page.add_script_tag(content=source)
    found = page.evaluate(SCAN, COLOUR_RULES if palette == "dark" else None)
    return palette, [v for v in found if v["impact"] in FAILING_IMPACTS]


def violations_on(context, base: str, url: str, source: str) -> dict[str, list[dict]]:
    """{palette: violations} for one page in both palettes: as it opens (the palette the
    reader chose last, else the system's), then after the reader switches palette with
    Material's toggle (the next page opens in that one: the pages take turns)."""
    watch = site_tools.open_page(context, base, url)
    page = watch.page
    site_tools.wait_for_charts(page)
    # Read through first: boxes the browser skips until they come near (tables, figures) take
    # their real height then, so nothing moves while axe scrolls to what it checks.
    site_tools.read_through(page)
    first, found = scan(page, source)
    page.eval_on_selector(TOGGLE, "label => label.click()")  # no pointer left hovering on it
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.wait_for_function(IN_PALETTE, arg="slate" if first == "light" else "default")
    second, found_after = scan(page, source)
    page.close()
    assert {first, second} == set(PALETTES), (url, first, second)
    return {first: found, second: found_after}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_serious_or_critical_violation_on_any_page(site, browser, viewport):
    _, base = site
    source = axe_source()
    mobile = viewport == "phone"
    context = browser.new_context(
        viewport=VIEWPORTS[viewport], color_scheme="light", is_mobile=mobile, has_touch=mobile
    )
    problems, scanned = [], []
    try:
        for url in site_tools.page_urls(base):
            for palette, violations in violations_on(context, base, url, source).items():
                scanned.append(palette)
                page = url[len(base) :] or "home"
                problems += [
                    f"{page} at {viewport}, {palette}: {violation['rule']} "
                    f"({violation['impact']}: {violation['help']}) on {element}"
                    for violation in violations
                    for element in violation["elements"]
                ]
    finally:
        context.close()
    assert scanned.count("light") == scanned.count("dark") == len(site_tools.page_urls(base))
    assert not problems, f"{len(problems)} violations:\n" + "\n".join(problems)
