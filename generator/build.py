"""Build everything the site shows from one campaign: results.json, chart specs, pictures
(docs/assets/pictures/*.svg, generator/charts/drawings.py), pages and the site's static files, and
the simulator checked against the campaign (generator/simulation/validate.py: results.json's
`simulation`, its per-cell table in assets/data/simulation.json; against every other complete
full campaign too, each calibrated from its own results, as `simulation.others`; its runs
cached in .cache/generator/ or LESSON_CACHE); with the machinery's benchmarks in data/bench/
(results.json `bench`, generator/arithmetic/bench_files.py); and, for a full campaign, every other
complete full campaign beside it cell by cell (generator/arithmetic/compare.py: results.json's
`comparison`, its cells in assets/data/comparison.json, the other campaigns' results in
assets/data/campaigns/<name>.json for the explorer). The verdicts judged again without the
runs that never passed the slow-run rule go to assets/data/slow_spell.json
(generator/arithmetic/slow_spell.py). The speed probe's table of attempts goes
to assets/data/attempts.json (generator/arithmetic/attempts.py); under the interval rule, the grid's
intervals to assets/data/intervals.json (generator/arithmetic/grid_verdicts.py).

`build_site(raw_dir, campaign, out_dir, sources)` is the Python API; `python -m generator build`
is the command (`make build` runs it, then the site's builder, MkDocs or Zensical, over the
docs/ it wrote). The docs/ it writes is complete: pages, data, charts, stand-ins, the site's
JS and CSS, the explorer, and the checked browser runtimes (Pyodide, plotly.js) copied from
vendor/ (site_src/vendor.py; a build without them stops first, asking for `make vendor`). The
campaign is judged by its own rules and guesses and named by its own names (its
description). Every chart a page names must have a spec, or the build fails naming the page.
Files are written only when their content changed, so a serving builder (`make serve`) does
not rebuild for nothing; chart specs, pictures and pages a previous build wrote and this one
does not are removed (those folders are ours).
"""

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from generator.arithmetic import (
    attempts,
    bench_files,
    cells_csv,
    compare,
    grid_verdicts,
    results,
    slow_spell,
)
from generator.charts import core_time as charts_core_time
from generator.charts import drawings, svg
from generator.charts import measured as charts
from generator.charts import simulation as charts_simulation
from generator.charts import style as chart_style
from generator.charts import switchback as charts_switchback
from generator.pages import render as pages
from generator.reading import load
from generator.simulation import cache as simulation_cache
from generator.simulation import validate as simulation

ROOT = Path(__file__).resolve().parent.parent
RESULTS_PATH = Path("assets/data/results.json")
SIMULATION_PATH = RESULTS_PATH.parent / simulation.TABLE
ATTEMPTS_PATH = RESULTS_PATH.parent / attempts.TABLE  # every attempt's probes, for its chart
INTERVALS_PATH = RESULTS_PATH.parent / grid_verdicts.TABLE  # the grid's intervals (issue 28)
EXAMPLE_PATH = RESULTS_PATH.parent / bench_files.EXAMPLE_TABLE  # a switchback run's requests
COMPARISON_PATH = RESULTS_PATH.parent / "comparison.json"  # every cell of both campaigns
CAMPAIGNS_DIR = RESULTS_PATH.parent / "campaigns"  # the other campaigns, for the explorer
SLOW_SPELL_PATH = RESULTS_PATH.parent / slow_spell.TABLE  # verdicts without never-passed runs
CELLS_PATH = Path("assets/data/part_b_cells.csv")
CHART_CSS_PATH = Path("assets/css/chart-colours.css")
CHARTS_DIR = Path("assets/charts")
PICTURES_DIR = Path("assets/pictures")
PICTURES_CSS = Path("assets/css/pictures.css")  # the pictures' colours, for inline SVGs
CHART_MARK = re.compile(r'<div class="chart" data-chart="([^"]+)"')
STATIC_SUFFIXES = {".js", ".mjs", ".css", ".py"}


@dataclass(frozen=True)
class Sources:
    """What a build renders from: the page templates, static folders copied as they are
    ((source folder, folder under the output), …), the reference box `ref()` quotes, the
    what-ifs the simulator answers for the pages (generator/simulation/whatif.py) and `bench`, the
    folder of the machinery's benchmarks the handler page reads (data/bench/,
    generator/arithmetic/bench_files.py; None: no benchmarks shown) and `runtimes`, the module
    that checks the vendored browser runtimes (site_src/vendor.py; None: none shipped)."""

    pages: Path
    static: tuple = ()
    reference: Path | None = None
    bench: Path | None = None
    whatifs: Path | None = None
    python: Path | None = None  # the vendored Pyodide the explorer downloads (vendor/pyodide/)
    runtimes: Path | None = None


class MissingRuntimes(Exception):
    """The vendored browser runtimes are missing or altered (`make vendor` fetches them)."""


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
        whatifs=site_src / "whatifs.json",
        bench=site_src.parent / "data" / "bench",
        python=site_src.parent / "vendor" / "pyodide",
        runtimes=site_src / "vendor.py",
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


def download_bytes(folder: Path | None) -> int | None:
    """Bytes of every file in the vendored folder (site_src/vendor.py unpacks only what the
    site serves, and the explorer's worker fetches all of it to start Python), or None when
    this build has no such folder."""
    if folder is None or not Path(folder).is_dir():
        return None
    return sum(path.stat().st_size for path in sorted(Path(folder).iterdir()) if path.is_file())


def runtime_files(sources: Sources) -> dict[Path, bytes]:
    """{path under the output: content} of the checked browser runtimes (assets/vendor/…),
    or MissingRuntimes naming what is missing. The vendor module is loaded by its path, so a
    copy of site_src/ (a test's) checks the vendor/ folder beside it."""
    if sources.runtimes is None:
        return {}
    spec = importlib.util.spec_from_file_location("site_vendor", sources.runtimes)
    vendor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(vendor)
    try:
        return vendor.site_files()
    except vendor.VendorError as error:
        raise MissingRuntimes(f"vendor: {error}") from error


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


def published_comparison(comparison: dict) -> dict:
    """results.json's `comparison`: each campaign's facts and counts; the cells and the other
    campaigns' figures go to comparison.json (the explorer loads results.json on every
    visit, and does not need them)."""
    kept = ("campaign", "counts")
    return dict(comparison, against=[{k: a[k] for k in kept} for a in comparison["against"]])


@dataclass(frozen=True)
class Build:
    """One campaign's build, made once (`make_build`) and written once (`outputs`).

    `whole`: every section with its side tables in place, what the charts, pictures, pages
    and part_b_cells.csv read. `results`: what results.json holds, each side table replaced
    by its file's name. `tables`: each side table by its path under the output (the
    simulation's cells, the speed probe's attempts, the grid's intervals, the switchback
    example's requests, comparison.json and the compared campaigns' results). `others`: the
    results of the campaigns compared with this one."""

    whole: dict
    results: dict
    tables: dict[Path, object]
    others: tuple[dict, ...] = ()


def published(whole: dict, others: tuple[dict, ...] = ()) -> Build:
    """The Build of a whole result: results.json's sections and the side tables split from
    them, each table under its path (the sections' own `split` say what goes where)."""
    shown = dict(whole)
    tables: dict[Path, object] = {}
    if "simulation" in whole:
        shown["simulation"], table = simulation.split(whole["simulation"])
        if table is not None:
            tables[SIMULATION_PATH] = table
    if "comparison" in whole:
        shown["comparison"] = published_comparison(whole["comparison"])
    speed_probe, table = attempts.split(whole.get("speed_probe") or {})
    if table is not None:
        shown["speed_probe"] = speed_probe
        tables[ATTEMPTS_PATH] = table
    shown, table = grid_verdicts.split(shown)  # None under the rounds rule
    if table is not None:
        tables[INTERVALS_PATH] = table
    shown, table = bench_files.split(shown)  # None without switchback.json
    if table is not None:
        tables[EXAMPLE_PATH] = table
    if "comparison" in whole:
        tables[COMPARISON_PATH] = whole["comparison"]
    if "slow_spell" in whole:  # a side table only: results.json is at its budget
        shown.pop("slow_spell")
        tables[SLOW_SPELL_PATH] = whole["slow_spell"]
    for other in others:
        tables[CAMPAIGNS_DIR / f"{other['campaign']['name']}.json"] = other
    return Build(whole=whole, results=shown, tables=tables, others=tuple(others))


def outputs(
    build: Build, sources: Sources, names: dict, runtimes: dict | None = None
) -> dict[Path, bytes]:
    """{path under out_dir: content} of everything one build writes (`runtimes`: the checked
    browser runtimes, `runtime_files`)."""
    files = {
        RESULTS_PATH: results.to_json(build.results).encode(),
        CELLS_PATH: cells_csv.cells_csv(build.whole).encode(),
        CHART_CSS_PATH: chart_style.chart_css().encode(),
    }
    files.update({path: results.to_json(table).encode() for path, table in build.tables.items()})
    result = build.whole
    specs = charts.all_charts(result, names["quiet_rate"], names["busy_rate"])
    specs.update(charts_simulation.all_simulation_charts(result))
    specs.update(charts_switchback.all_switchback_charts(result))
    specs.update(charts_core_time.all_core_time_charts(result))
    specs = {name: results.rounded(spec) for name, spec in specs.items()}
    for name, spec in specs.items():
        files[CHARTS_DIR / f"{name}.json"] = results.to_json(spec).encode()
    for name, drawn in drawings.all_pictures(result, standalone=True).items():
        files[PICTURES_DIR / f"{name}.svg"] = drawn.encode()
    if sources.static:  # the site (not the fixture's pages alone) styles its inline pictures
        files[PICTURES_CSS] = svg.STANDALONE_STYLE.lstrip().encode()
    page_files = pages.page_outputs(
        result, sources.pages, names, sources.reference, specs,
        python_bytes=download_bytes(sources.python), others=build.others,
    )  # fmt: skip
    check_charts(page_files, set(specs))
    files.update({Path(relative): content for relative, content in page_files.items()})
    files.update(static_files(sources))
    files.update(runtimes or {})
    return files


def remove_stale(out_dir: Path, keep: set) -> list[Path]:
    """Chart specs, pictures, pages and the simulation table a previous build wrote that this
    one does not."""
    found = (
        sorted((out_dir / RESULTS_PATH.parent).glob(simulation.TABLE))
        + sorted((out_dir / RESULTS_PATH.parent).glob(attempts.TABLE))
        + sorted((out_dir / RESULTS_PATH.parent).glob(grid_verdicts.TABLE))
        + sorted((out_dir / RESULTS_PATH.parent).glob(bench_files.EXAMPLE_TABLE))
        + sorted((out_dir / COMPARISON_PATH.parent).glob(COMPARISON_PATH.name))
        + sorted((out_dir / SLOW_SPELL_PATH.parent).glob(SLOW_SPELL_PATH.name))
        + sorted((out_dir / CAMPAIGNS_DIR).glob("*.json"))
        + sorted((out_dir / CHARTS_DIR).glob("*.json"))
        + sorted((out_dir / PICTURES_DIR).glob("*.svg"))
        + sorted(out_dir.rglob("*.md"))
    )
    stale = [path for path in found if path not in keep]
    for path in stale:
        path.unlink()
    return stale


def compared_campaigns(raw_dir: Path, chosen: load.Campaign) -> list[dict]:
    """The results of the other complete full campaigns, when this one is full (a quick
    rehearsal has another design: its cells are not comparable)."""
    if not load.is_full(chosen):
        return []
    return [results.build_results(c) for c in load.other_full_campaigns(raw_dir, chosen.name)]


def make_build(
    raw_dir: Path, chosen: load.Campaign, sources: Sources, cache_dir: Path | None = None
) -> Build:
    """The campaign's Build, made in one place: its results, then the machinery's benchmarks
    (`bench`, issue 14), the simulator checked against it (`simulation`) and, for a full
    campaign, the other full campaigns compared with it (`comparison`), each rounded; each
    section is added to a new dict, none changed after it is made."""
    whole = results.build_results(chosen)
    bench = bench_files.section(sources.bench)
    if bench is not None:
        whole = {**whole, "bench": results.rounded(bench)}
    others = tuple(compared_campaigns(Path(raw_dir), chosen))
    checked = simulation.section(
        whole, sources.whatifs, cache_dir=cache_dir or simulation_cache.folder(), others=others
    )
    whole = {**whole, "simulation": results.rounded(checked)}
    spell = slow_spell.section(whole)
    if spell is not None:
        whole = {**whole, "slow_spell": results.rounded(spell)}
    comparison = compare.section(whole, list(others))
    if comparison is not None:
        whole = {**whole, "comparison": results.rounded(comparison)}
    return published(whole, others)


class Summary(TypedDict):
    """What `build_site` returns (printed by `python -m generator build`)."""

    campaign: str
    chosen: str
    written: list[str]
    unchanged: int
    results_bytes: int
    simulation: str  # skipped, cached or simulated
    charts: list[str]
    missing: int
    compared_with: list[str]


def build_site(
    raw_dir=ROOT / "data" / "raw",
    campaign: str | None = None,
    out_dir=ROOT / "docs",
    sources: Sources = SITE,
    cache_dir: Path | None = None,
) -> Summary:
    """Build results.json, charts, pages and static files; returns what was written.
    The simulator's runs are cached in `cache_dir` (default: simulation_cache.folder()).

    Raises MissingRuntimes (before any other work), load.DataError (bad raw data) or
    pages.PageError (bad template), one line each.
    """
    out_dir = Path(out_dir)
    runtimes = runtime_files(sources)
    chosen = load.choose_campaign(Path(raw_dir), campaign)
    build = make_build(Path(raw_dir), chosen, sources, cache_dir)
    files = outputs(build, sources, chosen.description.names, runtimes)
    written = [
        str(path)
        for path, content in sorted(files.items())
        if write_if_changed(out_dir / path, content)
    ]
    remove_stale(out_dir, {out_dir / path for path in files})
    checked = build.whole["simulation"]
    return {
        "campaign": chosen.name,
        "chosen": chosen.chosen,
        "written": written,
        "unchanged": len(files) - len(written),
        "results_bytes": len(files[RESULTS_PATH]),
        "simulation": "skipped"
        if "skipped" in checked
        else ("cached" if checked["cached"] else "simulated"),
        "charts": sorted(p.stem for p in files if p.parent == CHARTS_DIR),
        "missing": len(build.whole["missing"]),
        "compared_with": [other["campaign"]["name"] for other in build.others],
    }
