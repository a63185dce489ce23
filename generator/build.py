"""Build everything the site shows from one campaign: results.json, chart specs, pages.

`build_site(raw_dir, campaign, out_dir, pages_dir)` is the Python API (the MkDocs hook
calls it); `python -m generator build` is the command. Files are written only when their
content changed, so `mkdocs serve` does not rebuild for nothing.
"""

from pathlib import Path

from generator import charts, load, pages, results

ROOT = Path(__file__).resolve().parent.parent
RESULTS_PATH = Path("assets/data/results.json")
CHARTS_DIR = Path("assets/charts")


def design_guesses() -> tuple:
    """The lab's dated guesses (lab/design.py GUESSES), empty until they are written."""
    from lab import design

    return tuple(getattr(design, "GUESSES", ()))


def write_if_changed(path: Path, content: bytes) -> bool:
    if path.exists() and path.read_bytes() == content:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(content)
    temporary.replace(path)
    return True


def outputs(result: dict, pages_dir: Path) -> dict[Path, bytes]:
    """{path under out_dir: content} of everything one build writes."""
    files = {RESULTS_PATH: results.to_json(result).encode()}
    for name, spec in charts.all_charts(result).items():
        files[CHARTS_DIR / f"{name}.json"] = results.to_json(results.rounded(spec)).encode()
    for relative, content in pages.page_outputs(result, pages_dir).items():
        files[Path(relative)] = content
    return files


def remove_stale_charts(out_dir: Path, keep: set) -> list[Path]:
    """Chart specs a previous build wrote that this one does not (the folder is ours)."""
    stale = [p for p in sorted((out_dir / CHARTS_DIR).glob("*.json")) if p not in keep]
    for path in stale:
        path.unlink()
    return stale


def build_site(
    raw_dir=ROOT / "data" / "raw",
    campaign: str | None = None,
    out_dir=ROOT / "docs",
    pages_dir=ROOT / "site_src" / "pages",
    guesses: tuple | None = None,
) -> dict:
    """Build results.json, charts and pages; returns what was written and unchanged.

    Raises load.DataError (bad raw data) or pages.PageError (bad template), one line each.
    """
    out_dir = Path(out_dir)
    chosen = load.choose_campaign(Path(raw_dir), campaign)
    result = results.build_results(chosen, design_guesses() if guesses is None else guesses)
    files = outputs(result, Path(pages_dir))
    written = [
        str(path)
        for path, content in sorted(files.items())
        if write_if_changed(out_dir / path, content)
    ]
    remove_stale_charts(out_dir, {out_dir / path for path in files})
    return {
        "campaign": chosen.name,
        "chosen": chosen.chosen,
        "written": written,
        "unchanged": len(files) - len(written),
        "results_bytes": len(files[RESULTS_PATH]),
        "charts": sorted(p.stem for p in files if p.parent == CHARTS_DIR),
        "missing": len(result["missing"]),
    }
