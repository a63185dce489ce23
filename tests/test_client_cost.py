"""The open-loop load client's own CPU per request, shown per cell (issue 14): results.json's
Part B cells carry `client_cpu_us_per_request` (median of the rounds' raw
`client.client_cpu_us_per_request`), the report recomputes it, the explorer prints it for
every cell, and the Part B and lab pages name the lowest and the highest cell. Built from the
committed fixture campaign (real runs of the first machinery's client).

Run: `.venv/bin/pytest tests/test_client_cost.py`
"""

import dataclasses
import json
import statistics
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.build import SITE, build_site
from generator.pages import render as pages
from generator.reading.description import read_description
from generator.report import checks as report
from lab.rawformat import codec
from site_src.explorer import explorer
from tests.support.rawfiles import report_on_altered, with_first_part_b_changed

FIXTURE = Path(__file__).resolve().parent / "fixtures"
RAW = FIXTURE / "raw"
SOURCES = dataclasses.replace(SITE, static=(), bench=None, runtimes=None)


def build(raw: Path, out: Path) -> dict:
    build_site(raw, None, out, SOURCES)
    path = out / "assets" / "data" / "results.json"
    return report.with_table(json.loads(path.read_text()), path)


def rendered(results: dict, raw: Path = RAW) -> dict[str, str]:
    names = read_description(raw / results["campaign"]["name"]).names
    found = pages.page_outputs(results, SITE.pages, names, SITE.reference)
    return {name: content.decode() for name, content in found.items()}


def cells_with_cost(results: dict) -> list[tuple[float, str, str]]:
    return [
        (cell["client_cpu_us_per_request"], name, key)
        for name, body in results["part_b"]["settings"].items()
        for key, cell in body["rates"].items()
        if "client_cpu_us_per_request" in cell
    ]


def part_b_runs(raw: Path) -> list[tuple[Path, dict]]:
    (folder,) = [p for p in raw.iterdir() if p.is_dir()]
    found = []
    for path in sorted((folder / "runs").glob(f"*{codec.SUFFIX}")):
        meta, _ = codec.read_run(path)
        if meta["kind"] == "part_b":
            found.append((path, meta))
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    return build(RAW, tmp_path_factory.mktemp("built"))


def test_each_cell_carries_the_median_of_its_rounds_client_cost(built):
    by_cell: dict = {}
    for _, meta in part_b_runs(RAW):
        key = (meta["setting"]["name"], f"{meta['rate_multiple']:g}")
        by_cell.setdefault(key, []).append(meta["client"]["client_cpu_us_per_request"])
    shown = {(name, key): cpu for cpu, name, key in cells_with_cost(built)}
    assert len(shown) == len(by_cell) > 0
    for cell, values in by_cell.items():
        assert shown[cell] == pytest.approx(statistics.median(values), rel=1e-4), cell
    a_cell = next(iter(built["part_b"]["settings"].values()))["rates"]
    assert all("client_cpu_us_per_request" not in c["by_round"] for c in a_cell.values())


def test_the_pages_name_the_lowest_and_the_highest_cell(built):
    low, high = min(cells_with_cost(built)), max(cells_with_cost(built))
    assert low[0] < high[0]  # the first machinery's client cost depended on the setting
    shown = rendered(built)
    for page in ("part-b.md", "lab.md"):
        text = " ".join(shown[page].split())
        said = (
            f"it took from {pages.us(low[0])} ({low[1]} at {pages.rate(low[2])}) to "
            f"{pages.us(high[0])} ({high[1]} at {pages.rate(high[2])}) over the "
            f"{len(cells_with_cost(built))} cells that recorded it"
        )
        assert said in text, page


def test_the_explorer_prints_it_for_a_cell(built):
    cost, name, key = min(cells_with_cost(built))
    body = built["part_b"]["settings"][name]
    cap = "none" if name == "none" else body["max_batch"]
    text = explorer.lookup(built, cap, body["max_wait_ms"], key)
    assert f"client CPU  {explorer.plain(cost)} µs/request" in text


def test_without_a_recorded_cost_nothing_is_said(built):
    older = json.loads(json.dumps(built))
    for body in older["part_b"]["settings"].values():
        for cell in body["rates"].values():
            cell.pop("client_cpu_us_per_request", None)
    shown = rendered(older)
    assert "own cost" not in shown["part-b.md"] and "own cost" not in shown["lab.md"]
    name = next(iter(older["part_b"]["settings"]))
    body = older["part_b"]["settings"][name]
    cap = "none" if name == "none" else body["max_batch"]
    key = next(iter(body["rates"]))
    assert "client CPU" not in explorer.lookup(older, cap, body["max_wait_ms"], key)


def test_the_report_fails_naming_an_altered_cell_cost(built, tmp_path, capsys):
    altered = json.loads(json.dumps(built))
    _, name, key = max(cells_with_cost(built))
    altered["part_b"]["settings"][name]["rates"][key]["client_cpu_us_per_request"] += 1.0
    code, said = report_on_altered(RAW, altered, tmp_path, capsys)
    assert code == 1
    assert f"part_b/settings/{name}/rates/{key}/client_cpu_us_per_request" in said, said


def test_a_cost_that_is_not_a_number_is_named(tmp_path, capsys):
    raw, path = with_first_part_b_changed(
        RAW,
        tmp_path / "raw",
        lambda meta: meta["client"].update(client_cpu_us_per_request="fast"),
    )
    code = main(["build", "--raw", str(raw), "--out", str(tmp_path / "out"),
                 "--pages", str(FIXTURE / "pages")])  # fmt: skip
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1, error
    assert path.name in error and "client.client_cpu_us_per_request" in error, error
