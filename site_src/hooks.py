"""MkDocs hooks (mkdocs.yml `hooks:`): build docs/ from data/ and site_src/ before every build.

Runs inside `mkdocs build` and `mkdocs serve`:
  on_config       make sure .mjs and .wasm are served with the right types (mkdocs serve)
  on_pre_build    fetch/check the pinned runtimes (site_src/vendor.py), run the generator
                  (results.json, chart specs, pages from site_src/pages/), then copy the
                  site's JS, CSS and the explorer's Python into docs/assets/
  on_page_markdown  fill the [[ref:...]] marks with the original lesson's box facts
                  (site_src/reference_box.json); an unknown mark fails the build
  on_post_build   copy Pyodide and plotly.js into the built site (assets/vendor/)
  on_serve        rebuild when site_src/ or data/ change; docs/ is output, not watched

The campaign is the generator's choice in data/raw/ unless LESSON_CAMPAIGN names one;
LESSON_RAW points at another raw folder (the tests build from their fixture campaign).
"""

import importlib.util
import json
import mimetypes
import os
import re
import shutil
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
SITE_SRC = ROOT / "site_src"
RAW = Path(os.environ.get("LESSON_RAW") or ROOT / "data" / "raw")
REFERENCE = SITE_SRC / "reference_box.json"
REFERENCE_MARK = re.compile(r"\[\[ref:([a-z0-9_.]+)\]\]")
CHART_MARK = re.compile(r'<div class="chart" data-chart="([^"]+)"')

# Static files the pages need, copied as they are: source folder -> folder under docs/.
STATIC = {
    SITE_SRC / "js": Path("assets/js"),
    SITE_SRC / "css": Path("assets/css"),
    SITE_SRC / "explorer": Path("assets/explorer"),
}
STATIC_SUFFIXES = {".js", ".mjs", ".css", ".py"}

if str(ROOT) not in sys.path:  # the generator package lives at the repository root
    sys.path.insert(0, str(ROOT))


def load_vendor():
    """site_src/vendor.py as a module (site_src is not a package)."""
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


def copy_if_changed(source: Path, target: Path) -> None:
    """Write only changed files, so a rebuild leaves unchanged outputs untouched."""
    if target.exists() and target.read_bytes() == source.read_bytes():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def copy_static(docs: Path) -> None:
    for source_dir, target_dir in STATIC.items():
        for source in sorted(source_dir.iterdir()):
            if source.is_file() and source.suffix in STATIC_SUFFIXES:
                copy_if_changed(source, docs / target_dir / source.name)


def run_generator(docs: Path) -> dict:
    from generator.build import build_site
    from generator.load import DataError
    from generator.pages import PageError

    try:
        return build_site(
            raw_dir=RAW,
            campaign=os.environ.get("LESSON_CAMPAIGN") or None,
            out_dir=docs,
            pages_dir=SITE_SRC / "pages",
        )
    except (DataError, PageError) as error:
        raise PluginError(f"generator: {error}") from error


def expected_pages(pages_dir: Path) -> set:
    """The Markdown files the generator makes from site_src/pages/ (paths under docs/)."""
    pages = set()
    for path in pages_dir.rglob("*"):
        relative = path.relative_to(pages_dir).as_posix()
        if relative.endswith(".md.j2"):
            pages.add(relative[: -len(".j2")])
        elif relative.endswith(".md"):
            pages.add(relative)
    return pages


def remove_stale_pages(docs: Path) -> None:
    """A page renamed or deleted in site_src/ must not live on in docs/ (nor in the site)."""
    keep = expected_pages(SITE_SRC / "pages")
    for page in docs.rglob("*.md"):
        if page.relative_to(docs).as_posix() not in keep:
            page.unlink()


def on_pre_build(config, **kwargs):
    docs = Path(config["docs_dir"])
    docs.mkdir(exist_ok=True)
    try:
        vendor.ensure_all()
    except vendor.VendorError as error:
        raise PluginError(f"vendor: {error}") from error
    run_generator(docs)
    remove_stale_pages(docs)
    copy_static(docs)


def reference_value(path: str):
    """A fact from reference_box.json by dotted path, or a build error naming the path."""
    value = json.loads(REFERENCE.read_text())
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise PluginError(f"reference_box.json has no '{path}'")
        value = value[part]
    if isinstance(value, dict | list):
        raise PluginError(f"reference_box.json '{path}' is not a single value")
    return value


def quoted(value) -> str:
    """A reference fact as the brief wrote it: thousands separated, no digit added or lost."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float) and abs(value) >= 1000:
        whole, _, fraction = repr(value).partition(".")
        text = f"{int(whole):,}"
        return f"{text}.{fraction}" if fraction and fraction != "0" else text
    return str(value)


def check_charts(markdown: str, page, docs: Path) -> None:
    """Every chart a page names must have a spec, or the page would show an empty box."""
    for name in CHART_MARK.findall(markdown):
        if not (docs / "assets" / "charts" / f"{name}.json").is_file():
            raise PluginError(
                f"{page.file.src_path}: chart '{name}' has no spec in docs/assets/charts/ "
                "(the generator did not write it for this campaign)"
            )


def on_page_markdown(markdown, page, config, files, **kwargs):
    check_charts(markdown, page, Path(config["docs_dir"]))
    return REFERENCE_MARK.sub(lambda match: quoted(reference_value(match.group(1))), markdown)


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
