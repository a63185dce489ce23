"""An accessibility scan of every page of the built site with axe-core, in real Chromium:
`pytest tests/test_accessibility.py` (the scans are the tour's, tests/support/tour.py).

axe-core is the pinned copy in vendor/axe-core/ (site_src/vendor.py checks its sha256; `make
vendor` fetches it), injected into each page by the test and never shipped with the site.
Every page of the nav is scanned at 1280×800 and 390×844, in the light and the dark palette,
after its charts are drawn and the page read through: in the palette it opens in, then again
after the reader switches palette with Material's toggle (Material keeps the choice, so the
pages open in the two palettes in turn; the first opens in the system's, light). Every rule
runs in the light palette, the rules about colour in the dark one (COLOUR_RULES). Any serious
or critical violation fails, named by page, viewport, palette, rule and element.
"""

import pytest

from tests.support.browser import VIEWPORTS

pytestmark = pytest.mark.timeout(900)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_serious_or_critical_violation_on_any_page(site, tours, viewport):
    _, base = site
    problems, scanned = [], []
    for seen in tours(viewport):
        assert set(seen.violations) == {"light", "dark"}, (seen.url, seen.violations.keys())
        for palette, violations in seen.violations.items():
            scanned.append(palette)
            page = seen.url[len(base) :] or "home"
            problems += [
                f"{page} at {viewport}, {palette}: {violation['rule']} "
                f"({violation['impact']}: {violation['help']}) on {element}"
                for violation in violations
                for element in violation["elements"]
            ]
    assert scanned.count("light") == scanned.count("dark") == len(tours(viewport))
    assert not problems, f"{len(problems)} violations:\n" + "\n".join(problems)
