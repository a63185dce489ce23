"""A Markdown extension for the lesson's pages (mkdocs.yml `markdown_extensions: site_src.boxes`):
each Markdown table in a box the browser lays out only when it comes near, and every wide table
or code block reachable by the keyboard. Python-Markdown runs it inside whichever builder renders
the pages (MkDocs or Zensical: `make build`, `make build-zensical`); tests/test_boxes.py.

  * A Markdown table (`<table>` with no attributes; they never nest) goes in
    `<div class="table-box">`, which site.css skips until it comes near (content-visibility), so a
    page of long tables is styled and laid out at load as quickly as a page of text. A table
    itself cannot be skipped, and Material's own wrapper comes too late, at start-up. The
    generator's own tables (with a class) carry their box and tabindex already.
  * Material lets a wide table or code block scroll sideways: `tabindex="0"` makes it focusable,
    so arrow keys can scroll it (the accessibility scan, tests/test_accessibility.py).

It works on the page's HTML after Python-Markdown put back the raw HTML and the highlighted code
(pymdownx.highlight hands its blocks over as raw HTML), so it sees every table and code block a
page has and nothing of the theme's.
"""

import re

from markdown import Extension
from markdown.postprocessors import Postprocessor

MARKDOWN_TABLE = re.compile(r"<table>.*?</table>", re.DOTALL)
FOCUSABLE = {
    "<table>": '<table tabindex="0">',
    "<pre><span></span><code>": '<pre><span></span><code tabindex="0">',
}


def boxed(html: str) -> str:
    """The page's HTML with its Markdown tables boxed and its tables and code focusable."""
    html = MARKDOWN_TABLE.sub(r'<div class="table-box">\g<0></div>', html)
    for old, new in FOCUSABLE.items():
        html = html.replace(old, new)
    return html


class BoxesPostprocessor(Postprocessor):
    def run(self, text: str) -> str:
        return boxed(text)


class BoxesExtension(Extension):
    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        # After raw HTML (30) and `&` (20) are put back: the page's final HTML.
        md.postprocessors.register(BoxesPostprocessor(md), "lesson_boxes", 5)


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's entry point)
    return BoxesExtension(**kwargs)
