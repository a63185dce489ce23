"""The pictures as a reader sees them: real headless Chromium against the built site.

On every page with a picture, at 1280×800 and 390×844, in the light and the dark palette:
every picture is there, no word of it runs outside its SVG (the pictures are drawn in
percentages with text of a fixed size, so a long line would be cut on a phone), its text
reads against the page (contrast ≥ 4.5:1) and its marks show (≥ 3:1), and the page does not
scroll sideways. Uses tests/support/browser.py.

Run: `.venv/bin/pytest tests/test_pictures_browser.py`
"""

import pytest

from tests.support.browser import PHONE, luminance, open_page

pytestmark = pytest.mark.timeout(300)

DESK = {"width": 1280, "height": 800}
PAGES = {
    "": ["photocopier", "bus"],
    "part-b/": ["timeline", "clump_check", "clump"],
    "batch-route/": ["slots"],
    "lab/": ["flow"],
}
MEASURE = """() => [...document.querySelectorAll('figure.picture svg')].map(svg => {
    const box = svg.getBoundingClientRect();
    const style = (el, name) => getComputedStyle(el)[name];
    const outside = [...svg.querySelectorAll('text')].filter(t => {
        const r = t.getBoundingClientRect();
        return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
            || r.bottom > box.bottom + 1;
    }).map(t => t.textContent);
    const first = (selector, name) => {
        const el = svg.querySelector(selector);
        return el ? style(el, name) : null;
    };
    return {
        name: svg.getAttribute('class').split(' ')[1].slice(4),
        outside,
        width: box.width,
        page: document.documentElement.clientWidth,
        background: style(document.body, 'backgroundColor'),
        text: first('text.strong', 'fill') || first('text', 'fill'),
        muted: first('text.muted', 'fill'),
        call: first('.call', 'fill'),
        hot: first('.accent', 'fill'),
    };
})"""


def rgba(css: str) -> tuple[list[float], float]:
    parts = [float(v) for v in css[css.index("(") + 1 : css.index(")")].split(",")]
    return parts[:3], parts[3] if len(parts) > 3 else 1.0


def over(color: str, background: str) -> str:
    """A colour with alpha as it shows on the background."""
    (fg, alpha), (bg, _) = rgba(color), rgba(background)
    mixed = [alpha * f + (1 - alpha) * b for f, b in zip(fg, bg, strict=True)]
    return f"rgb({', '.join(str(v) for v in mixed)})"


def contrast(color: str, background: str) -> float:
    high, low = sorted((luminance(over(color, background)), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture(scope="module")
def site(site):
    """The base URL of the session's built and served site (conftest.py's `site`)."""
    return site[1]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["desk", "phone"])
def test_pictures_fit_and_read_in_both_palettes(site, browser, viewport, scheme):
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    try:
        for path, names in PAGES.items():
            watch = open_page(context, site, site + path)
            found = {p["name"]: p for p in watch.page.evaluate(MEASURE)}
            assert set(names) <= set(found), (path, sorted(found))
            for name, seen in found.items():
                where = (path, name, viewport["width"], scheme)
                assert not seen["outside"], (where, seen["outside"])
                assert seen["width"] <= seen["page"], where
                assert contrast(seen["text"], seen["background"]) >= 4.5, (where, seen)
                if seen["muted"]:
                    assert contrast(seen["muted"], seen["background"]) >= 4.5, (where, seen)
                for mark in ("call", "hot"):
                    if seen[mark]:
                        assert contrast(seen[mark], seen["background"]) >= 3, (where, mark, seen)
            widths = watch.page.evaluate(
                "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
            )
            assert widths[0] <= widths[1], (path, widths)
            assert not watch.errors, watch.errors
            watch.page.close()
    finally:
        context.close()
