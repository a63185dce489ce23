"""The service's CPU per answer, published per Part B cell (issue 33): results.json's cells
carry `service_cpu_us_per_answer` (the median over the rounds of each run's
`core_watch.service_cpu_s` over its answered requests), as a cell value only; the report
recomputes it from the raw runs and names an altered one; a run whose watch is not a number
is refused naming the file and the field. The simulator fits its wake cost on it
(tests/test_simulate.py). Built from the committed fixture campaign.

Run: `.venv/bin/pytest tests/test_service_cpu.py`
"""

import dataclasses
import json
import shutil
import statistics
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.build import SITE, build_site
from generator.report import checks as report
from lab.rawformat import codec
from tests.support.rawfiles import report_on_altered, rewrite_meta, with_first_part_b_changed

FIXTURE = Path(__file__).resolve().parent / "fixtures"
RAW = FIXTURE / "raw"
SOURCES = dataclasses.replace(SITE, static=(), bench=None, runtimes=None)
FIELD = "service_cpu_us_per_answer"


def part_b_runs(raw: Path) -> list[tuple[Path, dict, dict]]:
    (folder,) = [p for p in raw.iterdir() if p.is_dir()]
    found = []
    for path in sorted((folder / "runs").glob(f"*{codec.SUFFIX}")):
        meta, columns = codec.read_run(path)
        if meta["kind"] == "part_b":
            found.append((path, meta, columns))
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("built")
    build_site(RAW, None, out, SOURCES)
    path = out / "assets" / "data" / "results.json"
    return report.with_table(json.loads(path.read_text()), path)


def test_each_cell_carries_the_median_of_its_rounds_service_cpu_per_answer(built):
    by_cell: dict = {}
    for _, meta, columns in part_b_runs(RAW):
        answered = int(((columns["status"] == 200) & (columns["latency_us"] >= 0)).sum())
        per_answer = meta["core_watch"]["service_cpu_s"] * 1e6 / answered
        key = (meta["setting"]["name"], f"{meta['rate_multiple']:g}")
        by_cell.setdefault(key, []).append(per_answer)
    shown = {(name, key): cell[FIELD] for name, body in built["part_b"]["settings"].items()
             for key, cell in body["rates"].items() if FIELD in cell}  # fmt: skip
    assert len(shown) == len(by_cell) > 0
    for cell, values in by_cell.items():
        assert shown[cell] == pytest.approx(statistics.median(values), rel=1e-4), cell
    assert len({round(value) for value in shown.values()}) > 1  # not one number everywhere
    for body in built["part_b"]["settings"].values():
        assert all(FIELD not in cell["by_round"] for cell in body["rates"].values())


def test_the_report_fails_naming_an_altered_cell(built, tmp_path, capsys):
    altered = json.loads(json.dumps(built))
    name = next(iter(altered["part_b"]["settings"]))
    key, cell = next(iter(altered["part_b"]["settings"][name]["rates"].items()))
    cell[FIELD] *= 1.01
    code, said = report_on_altered(RAW, altered, tmp_path, capsys)
    assert code == 1
    assert f"part_b/settings/{name}/rates/{key}/{FIELD}" in said, said


def test_a_service_cpu_that_is_not_a_number_is_named(tmp_path, capsys):
    raw, path = with_first_part_b_changed(
        RAW, tmp_path / "raw", lambda meta: meta["core_watch"].update(service_cpu_s="busy")
    )
    code = main(["build", "--raw", str(raw), "--out", str(tmp_path / "out"),
                 "--pages", str(FIXTURE / "pages")])  # fmt: skip
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1, error
    assert path.name in error and "core_watch.service_cpu_s" in error, error


def test_a_run_without_a_watch_leaves_its_cell_without_it(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    for path, _, _ in part_b_runs(raw):
        rewrite_meta(path, lambda meta: meta.pop("core_watch"))
    out = tmp_path / "out"
    build_site(raw, None, out, SOURCES)
    found = json.loads((out / "assets" / "data" / "results.json").read_text())
    cells = [cell for body in found["part_b"]["settings"].values()
             for cell in body["rates"].values()]  # fmt: skip
    assert cells and all(FIELD not in cell for cell in cells)
    # the simulator's wake cost then comes from the client's line, and says so
    assert found["simulation"]["calibration"]["load"]["wake_from"] == "client"
