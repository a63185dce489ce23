"""The simulator in the build (generator/simulation/: validate.py, cache.py, whatif.py;
generator/charts/simulation.py): the validation's runs cached and reused to the byte, a broken cache
simulated again, the per-cell table in its own file, a campaign the calibration cannot use
skipped with the reason, the what-ifs' calls pasteable (in the explorer's form and on the
command line) giving the printed answers, and the site's validation and limits pages
rendered from it.

Run: `.venv/bin/pytest -q tests/test_simulation_build.py`.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.build import Sources, build_site
from generator.pages import render as pages
from generator.reading import load
from generator.report import checks as report
from generator.simulation import cache as simulation_cache
from generator.simulation import validate as simulation
from generator.simulation import whatif
from lab.rawformat import codec

FIXTURE = Path(__file__).resolve().parent / "fixtures"
RAW, PAGES, GOLDEN = FIXTURE / "raw", FIXTURE / "pages", FIXTURE / "golden"
ROOT = FIXTURE.parents[1]
WHATIFS = ROOT / "site_src" / "whatifs.json"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def build(out: Path, cache: Path, raw: Path = RAW) -> dict:
    return build_site(raw, None, out, Sources(PAGES), cache_dir=cache)


@pytest.fixture(scope="module")
def golden_results() -> dict:
    """The golden results with the table read in, as the pages see them."""
    path = GOLDEN / "assets" / "data" / "results.json"
    return report.with_table(json.loads(path.read_text()), path)


# --- the cache ---------------------------------------------------------------------------


def test_a_second_build_reuses_the_runs_and_writes_the_same_bytes(tmp_path):
    cache = tmp_path / "cache"
    first = build(tmp_path / "one", cache)
    assert first["simulation"] == "simulated"
    assert len(list(cache.glob("simulation-*.json"))) == 1
    second = build(tmp_path / "two", cache)
    assert second["simulation"] == "cached"
    assert tree(tmp_path / "one") == tree(tmp_path / "two") == tree(GOLDEN)


def test_a_broken_cache_file_is_simulated_again(tmp_path):
    cache = tmp_path / "cache"
    build(tmp_path / "one", cache)
    (stored,) = cache.glob("simulation-*.json")
    stored.write_text('{"key": "')
    again = build(tmp_path / "two", cache)
    assert again["simulation"] == "simulated"
    assert tree(tmp_path / "two") == tree(GOLDEN)
    foreign = json.loads(stored.read_text())
    foreign["key"] = "another"  # a file that is not this key's is not trusted
    stored.write_text(json.dumps(foreign))
    assert build(tmp_path / "three", cache)["simulation"] == "simulated"


def test_the_key_changes_with_every_input():
    costs, cells, seeds = {"S": 1000.0}, [[32, 2.0, 800.0, 8.0, 0.95]], [0, 1]
    base = simulation_cache.key(b"simulator", costs, cells, seeds)
    assert base == simulation_cache.key(b"simulator", dict(costs), [list(cells[0])], [0, 1])
    assert base != simulation_cache.key(b"simulator!", costs, cells, seeds)
    assert base != simulation_cache.key(b"simulator", {"S": 1000.5}, cells, seeds)
    assert base != simulation_cache.key(b"simulator", costs, [[32, 2.0, 801.0, 8.0, 0.95]], seeds)
    assert base != simulation_cache.key(b"simulator", costs, cells, [0, 1, 2])


def test_the_cache_keeps_only_the_newest_files(tmp_path):
    for index in range(simulation_cache.KEEP + 3):
        simulation_cache.store(tmp_path, f"{index:064d}", [[{"p50_ms": float(index)}]])
    assert len(list(tmp_path.glob("simulation-*.json"))) == simulation_cache.KEEP
    newest = f"{simulation_cache.KEEP + 2:064d}"
    assert simulation_cache.load(tmp_path, newest) == [[{"p50_ms": simulation_cache.KEEP + 2.0}]]
    assert simulation_cache.load(tmp_path, f"{0:064d}") is None


# --- what is published -------------------------------------------------------------------


def test_results_json_names_the_table_and_the_table_has_every_measured_cell():
    data = GOLDEN / "assets" / "data"
    published = json.loads((data / "results.json").read_text())
    section = published["simulation"]
    assert "settings" not in section and section["table"] == "simulation.json"
    table = json.loads((data / section["table"]).read_text())
    measured = {(name, key) for name, setting in published["part_b"]["settings"].items()
                for key, cell in setting["rates"].items() if cell["rounds"]}  # fmt: skip
    simulated = {(name, key) for name, setting in table["settings"].items()
                 for key in setting["rates"]}  # fmt: skip
    assert simulated == measured
    assert table["seeds"] == section["seeds"] == simulation.DEFAULT_SEEDS
    assert section["summary"]["cells"] == len(measured)
    assert set(section["calibration"]["sources"]["read"]) >= {"saturation.S"}


def test_a_campaign_without_the_clients_cpu_is_skipped_naming_it(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    for path in sorted(raw.glob(f"*/runs/saturation-*{codec.SUFFIX}")):
        meta, columns = codec.read_run(path)
        drop = {"format", "columns", "column_layout", "shared_columns"}
        meta = {key: value for key, value in meta.items() if key not in drop}
        del meta["stats"]["client_cpu_us_per_request"]
        codec.write_run(path, meta, columns)
    out = tmp_path / "out"
    build(out, tmp_path / "cache")  # an earlier build left a table behind: it must go
    shutil.copy(GOLDEN / "assets" / "data" / "simulation.json", out / "assets" / "data")
    summary = build(out, tmp_path / "cache", raw)
    assert summary["simulation"] == "skipped"
    results = json.loads((out / "assets" / "data" / "results.json").read_text())
    assert "client_cpu_us_per_request" not in results["saturation"]
    assert "saturation.client_cpu_us_per_request" in results["simulation"]["skipped"]
    assert not (out / "assets" / "data" / "simulation.json").exists()
    assert not list((out / "assets" / "charts").glob("simulat*.json"))


# --- the what-ifs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def examples(golden_results) -> list:
    return whatif.examples(golden_results, WHATIFS, simulation.load_simulator())


def test_each_what_if_call_pasted_into_the_explorer_prints_its_answer(golden_results, examples):
    """The names the box gives the reader: `results` and simulate(results, b, w, rate, …)
    (the call is the example file's text; tests/test_examples.py runs it in the box itself)."""
    sim = simulation.load_simulator()  # a fresh copy: no answer remembered from the build
    box = {"simulate": sim.simulate, "results": golden_results}
    assert [example["name"] for example in examples] == ["big_model", "gpu"]
    for example in examples:
        assert example["box"] == (ROOT / example["file"]).read_text().strip()
        assert example["box"].startswith("simulate(results, ")
        assert eval(example["box"], box) == example["text"]  # noqa: S307 (our own call text)
        assert "SIMULATED, NOT MEASURED" in example["text"].splitlines()[0]
        assert f"so S = {sim.per_second(example['S'])} requests/s" in example["text"]


def test_each_what_if_command_line_prints_its_answer(examples, tmp_path, processes):
    data = GOLDEN / "assets" / "data"
    for example in examples:
        command = example["command"].replace("docs/assets/data/results.json",
                                             str(data / "results.json")).split()  # fmt: skip
        assert command[:2] == ["python", "site_src/explorer/simulate.py"]
        done = subprocess.run([sys.executable, *command[1:]], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip("\n") == example["text"]


def test_a_what_if_file_with_a_missing_field_fails_the_build_naming_it(tmp_path, capsys):
    broken = json.loads(WHATIFS.read_text())
    del broken["examples"][1]["assumed"]
    path = tmp_path / "whatifs.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(whatif.WhatIfError, match=r"whatifs.json: examples\[1\] has no `assumed`"):
        whatif.read(path)
    broken["examples"][1]["assumed"] = ["a sentence"]
    path.write_text(json.dumps(broken))
    with pytest.raises(whatif.WhatIfError, match=r"examples\[0\] \(.*big_model.py\): cannot read"):
        whatif.read(path)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "gpu.py").write_text("simulate(results, 32, 2, 2)\n")
    calls = {"simulate(results, 8, 2, max_batch=8)": r"the call .* got \['b', 'max_batch', 'w'\]",
             "simulate(32, 2, 1.25)": r"needs one call simulate\(results, b, w, rate, ...\)",
             "simulate(results, 32, w=2, rate=x)": "every argument after results is a number",
             "simulate(results, 32, 2, 1, w=1)": "`w` given twice"}  # fmt: skip
    for call, message in calls.items():
        (tmp_path / "examples" / "big_model.py").write_text(call + "\n")
        with pytest.raises(whatif.WhatIfError, match=r"examples\[0\] .*big_model.py\): " + message):
            whatif.read(path)


# --- the site's pages --------------------------------------------------------------------


def site_pages(results: dict) -> dict:
    """Every page of the site rendered from `results` (the fixture campaign's names)."""
    names = load.choose_campaign(RAW).description.names
    return pages.page_outputs(results, ROOT / "site_src" / "pages", names,
                              ROOT / "site_src" / "reference_box.json")  # fmt: skip


def test_the_validation_page_shows_every_cell_and_the_summary(golden_results, examples):
    results = dict(golden_results, simulation=dict(golden_results["simulation"],
                                                   examples=examples))  # fmt: skip
    rendered = site_pages(results)
    page = rendered["simulator.md"].decode()
    section = results["simulation"]
    summary = section["summary"]
    assert page.count("simulated, not measured") >= 3
    assert f"agree on {summary['keeps_up_agree']} of\n{summary['cells']} cells" in page
    for name, setting in section["settings"].items():
        for key, cell in setting["rates"].items():
            row = f"| {name} | {key} × S | "
            assert row in page, row
            assert f"({cell['keeps_up_seeds']} of {section['seeds']})" in page
    worst = summary["p99_ms"]
    assert f"{worst['worst_setting']} at {worst['worst_rate']} × S |" in page
    for sentence in section["calibration"]["sources"]["assumed"]:
        assert f"- {sentence}" in page
    for chart in ("simulated_vs_measured", "simulation_errors", "simulation_keeps_up"):
        assert f'data-chart="{chart}"' in page
    limits = rendered["limits.md"].decode()
    for example in examples:
        assert f'```python title="{example["file"]}"\n{example["box"]}\n```' in limits
        assert f'```text title="the explorer prints"\n{example["text"]}\n```' in limits
        for sentence in example["assumed"]:
            assert f"- {sentence}" in limits


def test_a_skipped_simulation_says_why_on_its_page(golden_results):
    results = dict(golden_results, simulation={"skipped": "no Part B cell to check against"})
    rendered = site_pages(results)
    page = rendered["simulator.md"].decode()
    assert "No simulation for this campaign" in page and "no Part B cell to check" in page
    assert "What the simulator says about other models" not in rendered["limits.md"].decode()


def test_the_build_command_says_whether_it_simulated(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LESSON_CACHE", str(tmp_path / "cache"))
    arguments = ["build", "--raw", str(RAW), "--out", str(tmp_path / "out"), "--pages", str(PAGES)]
    assert main(arguments) == 0
    assert "the simulator's check simulated" in capsys.readouterr().out
    assert main(arguments) == 0
    assert "the simulator's check cached" in capsys.readouterr().out
