"""MkDocs hooks (mkdocs.yml `hooks:`): build docs/ with the generator before every build.

Runs inside `mkdocs build` and `mkdocs serve`, and only reacts to their events:
  on_config       serve .mjs and .wasm with the types browsers insist on (mkdocs serve)
  on_pre_build    refuse to build without the checked runtimes in vendor/ (`make vendor`
                  fetches them), then run the generator into docs/: results.json, chart
                  specs, pages and the site's JS, CSS and explorer (generator/build.py)
  on_post_page    load assets/js/site-address.js and search-later.js in every page's <head>,
                  before Material's bundle: instant navigation wherever the site is served,
                  the search index fetched when the reader reaches for search; name Material's
                  search dialog and progress bar, and let the keyboard scroll wide tables
                  (the accessibility scan, tests/test_accessibility.py)
  on_post_build   copy the checked Pyodide and plotly.js into the built site (site_src/vendor.py)
  on_serve        rebuild when site_src/ or data/ change; docs/ is output, not watched

The campaign is the generator's choice in data/raw/ unless LESSON_CAMPAIGN names one;
LESSON_RAW points at another raw folder (the tests build from their fixture campaign).
"""

import importlib.util
import mimetypes
import os
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

SITE_SRC = Path(__file__).resolve().parent  # this hook's own folder (a copy's, in a test)
ROOT = SITE_SRC.parent
RAW = Path(os.environ.get("LESSON_RAW") or ROOT / "data" / "raw")

# MkDocs loads this file by its path: the generator package, at the repository root, is on
# sys.path only when mkdocs runs from there.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def load_vendor():
    """vendor.py beside this hook, as a module: by its path, because MkDocs loads the hook by
    its path too, and a copied site (a test's) must check its own vendor/ folder."""
    spec = importlib.util.spec_from_file_location("site_vendor", SITE_SRC / "vendor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vendor = load_vendor()


def on_config(config, **kwargs):
    # Module workers and WebAssembly refuse to load under a wrong Content-Type.
    mimetypes.add_type("text/javascript", ".mjs")
    mimetypes.add_type("application/wasm", ".wasm")
    return config


def on_pre_build(config, **kwargs):
    from generator.build import build_site, site_sources
    from generator.pages.render import PageError
    from generator.reading.load import DataError

    missing = [line for pin in vendor.SITE_PINS for line in vendor.problems(pin)]
    if missing:
        raise PluginError(f"vendor: {'; '.join(missing)} (run `make vendor`)")
    try:
        build_site(
            raw_dir=RAW,
            campaign=os.environ.get("LESSON_CAMPAIGN") or None,
            out_dir=Path(config["docs_dir"]),
            sources=site_sources(SITE_SRC),
        )
    except (DataError, PageError) as error:
        raise PluginError(f"generator: {error}") from error


# Material's own elements that axe finds nameless or out of the keyboard's reach.
NAMED = {
    'data-md-component="search" role="dialog"': (
        'data-md-component="search" role="dialog" aria-label="Search"'
    ),
    'data-md-component="progress" role="progressbar"': (
        'data-md-component="progress" role="progressbar" aria-label="Loading the page"'
    ),
    # Material lets a wide table or code block scroll sideways: focusable, so arrow keys can
    # scroll it.
    "<table>": '<table tabindex="0">',
    "<pre><span></span><code>": '<pre><span></span><code tabindex="0">',
}


HEAD_SCRIPTS = ("site-address.js", "search-later.js")

# A Markdown table (no attributes; they never nest) goes in a box the browser skips until it
# comes near (site.css: content-visibility), so a page of long tables is styled and laid out
# at load as quickly as a page of text. A table itself cannot be skipped, and Material's own
# wrapper comes too late, at start-up. The generator's own tables (with a class) have theirs.
MARKDOWN_TABLE = re.compile(r"<table>.*?</table>", re.DOTALL)


def on_post_page(output, page, config, **kwargs):
    # Before Material's bundle asks for sitemap.xml and the search index (see the scripts).
    root = "../" * page.url.count("/")
    tags = "".join(f'<script src="{root}assets/js/{script}"></script>\n' for script in HEAD_SCRIPTS)
    output = output.replace("</head>", tags + "</head>", 1)
    output = MARKDOWN_TABLE.sub(r'<div class="table-box">\g<0></div>', output)
    for old, new in NAMED.items():
        output = output.replace(old, new)
    return output


def on_post_build(config, **kwargs):
    try:
        vendor.install_into(Path(config["site_dir"]))
    except vendor.VendorError as error:
        raise PluginError(f"vendor: {error}") from error


def on_serve(server, config, builder, **kwargs):
    # docs/ is written by the build itself: watching it would rebuild in a loop.
    server.unwatch(config["docs_dir"])
    for folder in (SITE_SRC, ROOT / "data"):
        if folder.is_dir():
            server.watch(str(folder))
    return server
