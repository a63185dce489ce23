"""Build everything the site shows from one campaign: results.json, chart specs, pages and
the site's static files.

`build_site(raw_dir, campaign, out_dir, sources)` is the Python API (the MkDocs hook calls
it with `site_sources(site_src)`); `python -m generator build` is the command. The campaign
is judged by its own rules and guesses and named by its own names (its description). Every
chart a page names must have a spec, or the build fails naming the page. Files are written
only when their content changed, so `mkdocs serve` does not rebuild for nothing; chart specs
and pages a previous build wrote and this one does not are removed (those folders are ours).
"""

import re
from dataclasses import dataclass
from pathlib import Path

from generator import cells_csv, chart_style, charts, load, pages, results

ROOT = Path(__file__).resolve().parent.parent
RESULTS_PATH = Path("assets/data/results.json")
CELLS_PATH = Path("assets/data/part_b_cells.csv")
CHART_CSS_PATH = Path("assets/css/chart-colours.css")
CHARTS_DIR = Path("assets/charts")
CHART_MARK = re.compile(r'<div class="chart" data-chart="([^"]+)"')
STATIC_SUFFIXES = {".js", ".mjs", ".css", ".py"}


@dataclass(frozen=True)
class Sources:
    """What a build renders from: the page templates, static folders copied as they are
    ((source folder, folder under the output), …) and the reference box `ref()` quotes."""

    pages: Path
    static: tuple = ()
    reference: Path | None = None


def site_sources(site_src: Path) -> Sources:
    """The site's sources in a site_src/ folder: pages, JS, CSS, the explorer, the box."""
    site_src = Path(site_src)
    return Sources(
        pages=site_src / "pages",
        static=(
            (site_src / "js", Path("assets/js")),
            (site_src / "css", Path("assets/css")),
            (site_src / "explorer", Path("assets/explorer")),
        ),
        reference=site_src / "reference_box.json",
    )


SITE = site_sources(ROOT / "site_src")


def write_if_changed(path: Path, content: bytes) -> bool:
    if path.exists() and path.read_bytes() == content:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(content)
    temporary.replace(path)
    return True


def static_files(sources: Sources) -> dict[Path, bytes]:
    """{path under the output: content} of the static files the pages load."""
    files = {}
    for source_dir, target_dir in sources.static:
        for source in sorted(Path(source_dir).iterdir()):
            if source.is_file() and source.suffix in STATIC_SUFFIXES:
                files[Path(target_dir) / source.name] = source.read_bytes()
    return files


def check_charts(page_files: dict, chart_names: set) -> None:
    """Every chart a page names must have a spec, or the page would show an empty box."""
    for relative, content in sorted(page_files.items()):
        if not relative.endswith(".md"):
            continue
        for name in CHART_MARK.findall(content.decode()):
            if name not in chart_names:
                raise pages.PageError(
                    f"{relative}: chart '{name}' has no spec in {CHARTS_DIR}/ "
                    "(the generator did not write it for this campaign)"
                )


def outputs(result: dict, sources: Sources, names: dict) -> dict[Path, bytes]:
    """{path under out_dir: content} of everything one build writes."""
    files = {
        RESULTS_PATH: results.to_json(result).encode(),
        CELLS_PATH: cells_csv.cells_csv(result).encode(),
        CHART_CSS_PATH: chart_style.chart_css().encode(),
    }
    specs = {
        name: results.rounded(spec)
        for name, spec in charts.all_charts(result, names["quiet_rate"], names["busy_rate"]).items()
    }
    for name, spec in specs.items():
        files[CHARTS_DIR / f"{name}.json"] = results.to_json(spec).encode()
    page_files = pages.page_outputs(result, sources.pages, names, sources.reference, specs)
    check_charts(page_files, set(specs))
    files.update({Path(relative): content for relative, content in page_files.items()})
    files.update(static_files(sources))
    return files


def remove_stale(out_dir: Path, keep: set) -> list[Path]:
    """Chart specs and pages a previous build wrote that this one does not."""
    found = sorted((out_dir / CHARTS_DIR).glob("*.json")) + sorted(out_dir.rglob("*.md"))
    stale = [path for path in found if path not in keep]
    for path in stale:
        path.unlink()
    return stale


def build_site(
    raw_dir=ROOT / "data" / "raw",
    campaign: str | None = None,
    out_dir=ROOT / "docs",
    sources: Sources = SITE,
) -> dict:
    """Build results.json, charts, pages and static files; returns what was written.

    Raises load.DataError (bad raw data) or pages.PageError (bad template), one line each.
    """
    out_dir = Path(out_dir)
    chosen = load.choose_campaign(Path(raw_dir), campaign)
    result = results.build_results(chosen)
    files = outputs(result, sources, chosen.description.names)
    written = [
        str(path)
        for path, content in sorted(files.items())
        if write_if_changed(out_dir / path, content)
    ]
    remove_stale(out_dir, {out_dir / path for path in files})
    return {
        "campaign": chosen.name,
        "chosen": chosen.chosen,
        "written": written,
        "unchanged": len(files) - len(written),
        "results_bytes": len(files[RESULTS_PATH]),
        "charts": sorted(p.stem for p in files if p.parent == CHARTS_DIR),
        "missing": len(result["missing"]),
    }
