"""The Markdown extension that boxes the pages' tables and makes wide tables and code focusable
(site_src/boxes.py, in mkdocs.yml's markdown_extensions): `pytest tests/test_boxes.py`.

Rendered by Python-Markdown with the site's own extensions, as both builders render a page: a
Markdown table lands in a .table-box and is focusable, a highlighted code block's <code> is
focusable, a table the generator wrote with a class is left as it is, and nothing else moves.
"""

import markdown
from mkdocs.utils.yaml import yaml_load

from site_src import boxes
from tests.support.sitebuild import ROOT


def site_markdown() -> markdown.Markdown:
    """Python-Markdown with mkdocs.yml's extensions and their settings."""
    with (ROOT / "mkdocs.yml").open() as config:
        listed = yaml_load(config)["markdown_extensions"]
    names, settings = [], {}
    for entry in listed:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, {})
        names.append(name)
        settings[name] = options or {}
    assert "site_src.boxes" in names
    return markdown.Markdown(extensions=names, extension_configs=settings)


def test_a_markdown_table_is_boxed_and_focusable():
    html = site_markdown().convert("Text.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nMore.\n")
    assert '<div class="table-box"><table tabindex="0">' in html
    assert html.count("<table") == 1 and "</table></div>" in html
    assert html.startswith("<p>Text.</p>") and html.endswith("<p>More.</p>")


def test_highlighted_code_is_focusable_and_plain_text_untouched():
    html = site_markdown().convert("```python\nprint(1)\n```\n\nSay `<table>` in a sentence.\n")
    assert '<pre><span></span><code tabindex="0">' in html
    assert "<code>&lt;table&gt;</code>" in html  # escaped: not a table
    assert "table-box" not in html


def test_a_table_with_a_class_is_left_as_the_generator_wrote_it():
    written = '<table class="heatmap" tabindex="0"><tr><td>1</td></tr></table>'
    assert boxes.boxed(written) == written
    two = "<table><tr><td>1</td></tr></table> and <table><tr><td>2</td></tr></table>"
    assert boxes.boxed(two).count('<div class="table-box"><table tabindex="0">') == 2
