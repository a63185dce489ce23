"""The report: passes on the fixture's golden results.json and, run as `python -m generator
report`, on every committed full campaign and every committed campaign with a speed probe;
fails naming the number when one published value is altered (guesses included: they must
be the campaign's own); checks the explorer's printed numbers.

Run: `.venv/bin/pytest tests/test_report.py`
"""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.reading import load
from generator.report import checker as report_checker
from generator.report import checks as report
from generator.report import explorer as report_explorer
from generator.report import simulation as report_simulation
from generator.simulation import whatif
from tests.support.sitebuild import side_by_side

FIXTURE = Path(__file__).resolve().parent / "fixtures"
ROOT = FIXTURE.parents[1]
RAW = FIXTURE / "raw"
GOLDEN_RESULTS = FIXTURE / "golden" / "assets" / "data" / "results.json"
WHATIFS = ROOT / "site_src" / "whatifs.json"


def golden() -> dict:
    """The golden results with the simulator's table read in (an altered copy written
    elsewhere then carries it inline)."""
    return report.with_table(json.loads(GOLDEN_RESULTS.read_text()), GOLDEN_RESULTS)


def worst_p99_cell(results: dict) -> dict:
    """The simulated cell with the worst p99 error: the report always simulates it again."""
    worst = results["simulation"]["summary"]["p99_ms"]
    return results["simulation"]["settings"][worst["worst_setting"]]["rates"][worst["worst_rate"]]


def first_cell(results: dict) -> tuple[str, str]:
    for name, setting in results["part_b"]["settings"].items():
        for rate, cell in setting["rates"].items():
            if cell["rounds"]:
                return name, rate
    raise AssertionError("no measured Part B cell in the fixture")


def test_report_passes_on_the_golden_results(capsys):
    assert report.main(RAW, None, GOLDEN_RESULTS) == 0
    printed = capsys.readouterr().out
    for section in ("quiet check", "Part A", "bits", "== S", "Part B", "Part C", "guesses"):
        assert section in printed
    assert "published numbers agree" in printed


def test_report_passes_on_every_committed_full_campaign(full_campaign_builds):
    assert full_campaign_builds, "no committed full campaign in data/raw/"
    report_command = [sys.executable, "-m", "generator", "report", "--campaign"]
    commands = {
        name: [*report_command, name, "--results", str(results_path)]
        for name, results_path in full_campaign_builds.items()
    }
    reports = side_by_side(commands, cwd=ROOT)
    for name, results_path in full_campaign_builds.items():
        done = reports[name]
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr
        assert "published numbers agree with the raw data" in done.stdout
        # Every guess the campaign wrote (13 in the first two full campaigns, 16 in the third).
        written = len(json.loads(results_path.read_text())["guesses"])
        assert written >= 13 and f"{written} guesses, as the campaign wrote them" in done.stdout
        info = json.loads((ROOT / "data" / "raw" / name / "campaign.json").read_text())
        if "speed_probe" in info:  # its slow-run rule judged again, its probe drawn
            assert "attempts of" in done.stdout
            assert (results_path.parents[1] / "charts" / "probe_weather.json").exists()
        others = sorted(set(full_campaign_builds) - {name})
        for other in others:  # issue 15: every other full campaign's cells, from its raw files
            assert f"{other}: " in done.stdout and "cells recomputed" in done.stdout


def committed_campaigns() -> dict[str, dict]:
    """{name: campaign.json} of every committed campaign."""
    return {path.parent.name: json.loads(path.read_text())
            for path in sorted((ROOT / "data" / "raw").glob("*/campaign.json"))}  # fmt: skip


# The speed probe and the slow-run rule exist from this day (lab/design_notes.py's dated note).
PROBE_SINCE = "2026-11-30"


def test_report_passes_on_every_committed_campaign_with_a_speed_probe(tmp_path, processes):
    campaigns = committed_campaigns()
    assert campaigns, "no committed campaign in data/raw/"
    unprobed = [
        name
        for name, info in campaigns.items()
        if "speed_probe" not in info and info["started_at"][:10] >= PROBE_SINCE
    ]
    assert not unprobed, f"campaigns started after the probe existed but without it: {unprobed}"
    probed = [name for name, info in campaigns.items() if "speed_probe" in info]
    # Full ones are built and reported once, by the test above.
    not_full = [name for name in probed if campaigns[name]["profile"] not in load.FULL_PROFILES]
    for name in sorted(not_full):
        out = tmp_path / name
        build = [sys.executable, "-m", "generator", "build", "--campaign", name, "--out", str(out)]
        done = subprocess.run(build, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        results_path = out / "assets" / "data" / "results.json"
        command = [sys.executable, "-m", "generator", "report", "--campaign", name,
                   "--results", str(results_path)]  # fmt: skip
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr
        assert "attempts of" in done.stdout and "published numbers agree" in done.stdout
        assert (out / "assets" / "charts" / "probe_weather.json").exists()


def scale(value, factor=1.01):
    return value * factor


def cell_of(results: dict) -> dict:
    name, rate = first_cell(results)
    return results["part_b"]["settings"][name]["rates"][rate]


# what is altered: (container, key, change, words the DISAGREES line must name)
ALTERATIONS = {
    "S": (lambda r: r["saturation"], "S", scale, "saturation/S"),
    "figure": (
        lambda r: r["figures"]["part_a_per_call_us_1"],
        "value",
        scale,
        "figure part_a_per_call_us_1",
    ),
    "part_a": (
        lambda r: r["part_a"]["by_size"]["1024"],
        "per_call_us",
        scale,
        "part_a/by_size/1024/per_call_us",
    ),
    "bits": (lambda r: r["bits"], "equal", lambda v: v - 1, "bits/equal"),
    "p99 of one round": (lambda r: cell_of(r)["by_round"]["p99_ms"], 0, scale, "by_round/p99_ms/0"),
    "a count": (
        lambda r: cell_of(r)["by_round"]["answered"],
        0,
        lambda v: v + 1,
        "by_round/answered/0",
    ),
    "keeps up": (cell_of, "keeps_up", lambda v: not v, "/keeps_up"),
    "told apart": (
        lambda r: r["paired"]["B=32 W=0"]["none"]["0.5"]["p99_ms"],
        "told_apart",
        lambda v: not v,
        "paired/B=32 W=0/none/0.5/p99_ms/told_apart",
    ),
    "missing": (lambda r: r, "missing", lambda v: [], "missing"),
    "Part C per record": (
        lambda r: r["part_c"]["by_method"]["1000"],
        "per_record_us",
        scale,
        "part_c/by_method/1000/per_record_us",
    ),
    "Part C speedup": (
        lambda r: r["part_c"]["by_method"]["10"],
        "speedup",
        scale,
        "part_c/by_method/10/speedup",
    ),
    "Part C model share": (
        lambda r: r["part_c"]["breakdown"]["single"],
        "model_share",
        scale,
        "part_c/breakdown/single/model_share",
    ),
    "Part C exchange": (
        lambda r: r["part_c"]["example"],
        "response_body",
        lambda v: v.replace("unknown_customer", "ok"),
        "part_c/example/response_body",
    ),
    "Part C figure": (
        lambda r: r["figures"]["part_c_speedup_1000"],
        "value",
        scale,
        "figure part_c_speedup_1000",
    ),
    "guess verdict": (
        lambda r: r["guesses"][0],
        "verdict",
        lambda v: "wrong" if v == "right" else "right",
        "guess G1 verdict",
    ),
    "guess rewritten": (
        lambda r: r["guesses"][1],
        "high",
        lambda v: v * 2,
        "guesses/1/high",
    ),
    "keeps-up share": (lambda r: r["design"], "keeps_up_share", lambda v: 0.9, "keeps_up_share"),
    "first wait of batches that did not fill": (
        lambda r: r["waits"]["by_setting"]["B=32 W=2"],
        "overshoot_unfilled_us",
        scale,
        "waits/by_setting/B=32 W=2/overshoot_unfilled_us",
    ),
    "best setting's runner-up": (
        lambda r: r["best"]["by_rate"]["0.5"],
        "runner_up",
        lambda v: "none" if v != "none" else "B=1 W=0",
        "best/by_rate/0.5/runner_up",
    ),
    "Part C p99": (
        lambda r: r["part_c"]["breakdown"]["batch"],
        "round_trip_us_p99",
        scale,
        "part_c/breakdown/batch/round_trip_us_p99",
    ),
    "a picture's number": (
        lambda r: r["pictures"]["clump_check"],
        "all_mean",
        lambda v: [x * 1.01 for x in v],
        "pictures/clump_check/all_mean",
    ),
    "Part A oddity": (
        lambda r: r["figures"]["part_a_runs_2_rows_below_1"],
        "value",
        lambda v: v + 1,
        "figure part_a_runs_2_rows_below_1",
    ),
    "client CPU per request": (
        lambda r: r["saturation"],
        "client_cpu_us_per_request",
        scale,
        "saturation/client_cpu_us_per_request",
    ),
    "simulator's calibration": (
        lambda r: r["simulation"]["calibration"],
        "answer_us",
        scale,
        "simulation/calibration/answer_us",
    ),
    "a simulated cell simulated again": (
        worst_p99_cell,
        "p50_ms",
        scale,
        "simulation/settings/",
    ),
    "a simulated cell's keeps-up": (
        worst_p99_cell,
        "keeps_up_seeds",
        lambda v: v - 1,
        "/keeps_up_seeds",
    ),
    "a simulated error": (
        lambda r: r["simulation"]["settings"]["none"]["rates"]["2"]["error"],
        "throughput",
        lambda v: v + 0.01,
        "simulation none at 2 error throughput",
    ),
    "the simulator's summary": (
        lambda r: r["simulation"]["summary"]["p50_ms"],
        "median_abs_error",
        scale,
        "simulation summary p50_ms median_abs_error",
    ),
    "where the simulator is worst": (
        lambda r: r["simulation"]["summary"]["p99_ms"],
        "worst_rate",
        lambda v: "0.5" if v != "0.5" else "1",
        "simulation summary p99_ms worst at",
    ),
    "Part C stages": (
        lambda r: r["part_c"]["breakdown"]["batch"],
        "stages",
        lambda v: v[:-1],
        "part_c/breakdown/batch/stages",
    ),
}


@pytest.mark.parametrize("what", sorted(ALTERATIONS))
def test_report_fails_naming_an_altered_number(what, tmp_path, capsys):
    results = golden()
    where, key, change, named = ALTERATIONS[what]
    container = where(results)
    container[key] = change(container[key])
    altered = tmp_path / "results.json"
    altered.write_text(json.dumps(results))
    assert report.main(RAW, None, altered) == 1
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("DISAGREES")]
    assert line and named in line[0], line


def test_an_unpublished_figure_is_a_disagreement(tmp_path, capsys):
    results = golden()
    results["figures"].pop("S")
    altered = tmp_path / "results.json"
    altered.write_text(json.dumps(results))
    assert report.main(RAW, None, altered) == 1
    assert "figure S" in capsys.readouterr().out


def test_report_reads_a_missing_raw_file_as_missing(tmp_path, capsys):
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    (removed,) = list((next(raw.iterdir()) / "runs").glob("part_a-0*"))
    removed.unlink()
    assert report.main(raw, None, GOLDEN_RESULTS) == 1  # results.json still has it
    assert "missing" in capsys.readouterr().out


def test_the_quiet_rule_judged_again_is_the_campaigns(tmp_path, capsys):
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    (sidecar,) = raw.glob("*/campaign.description.json")
    described = json.loads(sidecar.read_text())
    described["rules"]["quiet"]["seconds"] = 5.0  # not how these runs were checked
    sidecar.write_text(json.dumps(described))
    assert report.main(raw, None, GOLDEN_RESULTS) == 1
    assert "quiet/quiet_runs" in capsys.readouterr().out


# --- the explorer check ----------------------------------------------------------------------


def explorer_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "explorer.py"
    path.write_text(body)
    return path


def test_explorer_printing_the_labs_numbers_passes(tmp_path):
    path = explorer_file(
        tmp_path,
        (
            "def lookup(results, b, w, rate):\n"
            "    name = f'B={b} W={w:g}'\n"
            "    cell = results['part_b']['settings'][name]['rates'][f'{rate:g}']\n"
            "    return (f\"{name} at {rate:g} x S: p99 {cell['p99_ms']} ms, \"\n"
            "            f\"{cell['keeps_up_rounds']} rounds kept up\")\n"
        ),
    )
    said = []
    assert report_explorer.check_explorer(golden(), said.append, path) == []
    assert len(said) == 6


def test_explorer_printing_a_number_not_in_results_fails(tmp_path):
    path = explorer_file(
        tmp_path, "def lookup(results, b, w, rate):\n    return f'B={b}: p99 123456.7 ms'\n"
    )
    problems = report_explorer.check_explorer(golden(), lambda line: None, path)
    assert problems and "123456.7" in problems[0]


def test_no_explorer_yet_is_skipped(tmp_path):
    said = []
    assert report_explorer.check_explorer(golden(), said.append, tmp_path / "none.py") == []
    assert "skipped" in said[0]


def generator_packages_imported(path) -> set:
    """The generator's packages a module imports (`generator.X…` and `from generator import X`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "generator":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("generator."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("generator.")}
    return found


def test_the_report_shares_no_arithmetic_with_the_build():
    """The report's modules import of the generator only the report itself and the reading of
    campaigns (names, descriptions): none of the build's arithmetic, charts, pages or simulation
    (pyproject.toml's import-linter contract says the same for `make check`)."""
    for path in sorted((ROOT / "generator" / "report").glob("*.py")):
        assert generator_packages_imported(path) <= {"report", "reading"}, path.name


def test_the_report_runs_the_what_ifs_again_and_names_an_altered_answer():
    results = golden()
    sim = report_simulation.load_simulator()
    results["simulation"]["examples"] = whatif.examples(results, WHATIFS, sim)
    checked = report_checker.Checker()
    assert report_simulation.check_examples(sim, results, checked) == 2
    assert checked.count == 4  # each example's text and its S
    gpu = results["simulation"]["examples"][1]
    gpu["text"] = gpu["text"].replace("keeps up: ", "keeps up: not ", 1)
    with pytest.raises(report_checker.Disagreement, match="what-if gpu text"):
        report_simulation.check_examples(sim, results, report_checker.Checker())
