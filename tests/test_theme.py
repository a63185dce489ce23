"""The theme overrides (mkdocs.yml theme.custom_dir: site_src/theme) still match the themes they
override: `pytest tests/test_theme.py`.

Each override is a copy of an installed theme's partial with one attribute added, so a theme
upgrade that changes the partial must fail here rather than quietly serve the old markup: the
search box's MkDocs branch is Material's partial, its Zensical branch Zensical's own; the loading
bar is Material's partial. And the head scripts come from the template, once each, in both
builds, before Material's bundle (the built pages are read in tests/test_builds.py).
"""

import re
from pathlib import Path

import material
import zensical

THEME = Path(__file__).resolve().parents[1] / "site_src" / "theme"
MATERIAL = Path(material.__file__).parent / "templates" / "partials"
ZENSICAL = Path(zensical.__file__).parent / "templates" / "partials"
COMMENT = re.compile(r"\A\{#-.*?-#\}\n", re.DOTALL)


def body(path: Path) -> str:
    """A template without its opening comment."""
    return COMMENT.sub("", path.read_text()).strip("\n")


def branches(path: Path) -> tuple[str, str]:
    """The MkDocs and the Zensical branch of an override that tells the builders apart."""
    text = body(path)
    opening = "{% if mkdocs_version is defined -%}\n"
    assert text.startswith(opening) and text.endswith("\n{%- endif %}"), text[:80]
    mkdocs, zensical_branch = text[len(opening) : -len("\n{%- endif %}")].split("\n{%- else -%}\n")
    return mkdocs, zensical_branch


def test_the_search_box_is_each_themes_own_with_a_name_under_mkdocs():
    mkdocs, zensical_branch = branches(THEME / "partials" / "search.html")
    material_search = body(MATERIAL / "search.html")
    named = material_search.replace(
        'data-md-component="search" role="dialog">',
        'data-md-component="search" role="dialog" aria-label="Search">',
    )
    assert named != material_search, "Material's search partial no longer has its dialog"
    assert mkdocs == named
    assert zensical_branch == body(ZENSICAL / "search.html")
    assert 'role="dialog" aria-label=' in zensical_branch  # Zensical names it itself


def test_the_loading_bar_is_materials_with_a_name():
    material_bar = body(MATERIAL / "progress.html")
    assert (
        material_bar
        == '<div class="md-progress" data-md-component="progress" role="progressbar"></div>'
    )
    named = material_bar.replace(
        'role="progressbar">', 'role="progressbar" aria-label="Loading the page">'
    )
    assert body(THEME / "partials" / "progress.html") == named


def test_the_head_scripts_come_last_in_head_from_the_extrahead_block():
    main = body(THEME / "main.html")
    assert main.startswith('{% extends "base.html" %}\n{% block extrahead %}')
    for script in ("site-address.js", "search-later.js"):
        assert main.count(f"'assets/js/{script}' | url") == 1
    for base in (MATERIAL.parent / "base.html", ZENSICAL.parent / "base.html"):
        head = base.read_text().split("</head>")[0]
        assert head.rstrip().endswith("{% block extrahead %}{% endblock %}"), base
