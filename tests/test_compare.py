"""Two campaigns cell by cell (generator/arithmetic/compare.py) and the report's check of it
(generator/report/compare.py), on the committed fixture campaign (cut from real raw data):
compared with itself nothing is told apart; compared with a copy whose rounds were moved,
every moved cell is; the report recomputes each side from the raw files and names an altered
number. The site's comparison of the committed full campaigns is checked in
tests/test_site_build.py and, in the browser, tests/test_explorer_box.py.

Run: `.venv/bin/pytest tests/test_compare.py`.
"""

import copy
from pathlib import Path

import pytest

from generator.arithmetic import compare, results, stats
from generator.build import published_comparison
from generator.reading import load
from generator.report import checker as report_checker
from generator.report import compare as report_compare
from generator.report import runs as report_runs

RAW = Path(__file__).resolve().parent / "fixtures" / "raw"


@pytest.fixture(scope="module")
def fixture_results() -> dict:
    (folder,) = load.campaign_folders(RAW)
    return results.build_results(load.choose_campaign(RAW, folder.name))


@pytest.fixture(scope="module")
def fixture_cells(fixture_results) -> dict:
    """The fixture's cells as the report recomputes them from the raw files."""
    return report_runs.part_b_cells(report_runs.load_campaign(RAW, None, fixture_results))


def scaled(result: dict, metric: str, factor: float) -> dict:
    """A copy whose every round (and median) of `metric` is multiplied by `factor`."""
    moved = copy.deepcopy(result)
    for setting in moved["part_b"]["settings"].values():
        for cell in setting["rates"].values():
            rounds = cell["by_round"][metric]
            cell["by_round"][metric] = [None if v is None else v * factor for v in rounds]
            if cell.get(metric) is not None:
                cell[metric] *= factor
    return moved


@pytest.mark.parametrize(
    ("here", "there", "word"),
    [
        ([1, 2], [3, 4], "lower"),
        ([5, 6], [3, 4], "higher"),
        ([1, 4], [3, 5], "overlap"),
        ([1, 2], [2, 3], "overlap"),  # touching ranges are not apart
        ([1, 2], [None, None], "lower"),  # never answered counts as +inf
        ([None], [None], "overlap"),
        ([], [1], "overlap"),
    ],
)
def test_ranges_apart(here, there, word):
    assert stats.ranges_apart(here, there) == word
    assert report_compare.apart(here, there) == word  # the report's own code agrees


def test_a_campaign_against_itself_tells_nothing_apart(fixture_results):
    section = compare.section(fixture_results, [fixture_results])
    (against,) = section["against"]
    design = fixture_results["design"]
    assert [(r["setting"], r["rate"]) for r in against["cells"]] == [
        (s, k) for s in design["settings"] for k in design["rate_multiples"]
    ]
    counts = against["counts"]
    measured = sum(all(r["measured"]) for r in against["cells"])
    assert counts["cells"] == measured > 0
    for metric in compare.CELL_METRICS:
        assert counts[metric] == {"lower": 0, "higher": 0, "overlap": measured}
    assert counts["keeps_up_same"] == measured
    assert counts["kept_up_here_only"] == counts["kept_up_there_only"] == []
    ratios = [r["p50_ms"]["ratio"] for r in against["cells"] if r["p50_ms"]["ratio"] is not None]
    assert ratios and all(ratio == pytest.approx(1) for ratio in ratios)
    assert section["main"] == against["campaign"] == compare.facts(fixture_results)


def test_moved_rounds_are_told_apart_with_their_ratio(fixture_results):
    slower = scaled(fixture_results, "p50_ms", 100.0)  # beyond any spread of rounds
    (against,) = compare.section(fixture_results, [slower])["against"]
    finite = [
        row for row in against["cells"]
        if all(row["measured"]) and None not in row["p50_ms"]["values"]
    ]  # fmt: skip
    assert finite
    for row in finite:
        assert row["p50_ms"]["apart"] == "lower", row
        assert row["p50_ms"]["ratio"] == pytest.approx(1 / 100)
        assert row["p99_ms"]["apart"] == "overlap"  # untouched
    assert against["counts"]["p50_ms"]["lower"] == len(finite)


def test_a_cell_missing_on_one_side_is_not_counted(fixture_results):
    other = copy.deepcopy(fixture_results)
    setting = fixture_results["design"]["settings"][-1]
    rate_key = next(iter(other["part_b"]["settings"][setting]["rates"]))
    del other["part_b"]["settings"][setting]["rates"][rate_key]
    (against,) = compare.section(fixture_results, [other])["against"]
    (row,) = [r for r in against["cells"] if (r["setting"], r["rate"]) == (setting, rate_key)]
    assert row["measured"] == [True, False]
    assert row["p50_ms"]["values"][1] is None and row["p50_ms"]["ratio"] is None
    measured_here = sum(r["measured"][0] for r in against["cells"])
    assert against["counts"]["cells"] == measured_here - 1


def test_keeps_up_changes_are_listed(fixture_results):
    other = copy.deepcopy(fixture_results)
    kept = [
        (name, key)
        for name, setting in other["part_b"]["settings"].items()
        for key, cell in setting["rates"].items()
        if cell["keeps_up"]
    ]
    assert kept, "the fixture has a cell that kept up"
    name, key = kept[0]
    other["part_b"]["settings"][name]["rates"][key]["keeps_up"] = False
    counts = compare.section(fixture_results, [other])["against"][0]["counts"]
    assert counts["kept_up_here_only"] == [[name, key]]
    assert counts["kept_up_there_only"] == []


def test_nothing_to_compare_without_another_campaign_or_part_b(fixture_results):
    assert compare.section(fixture_results, []) is None
    no_part_b = {k: v for k, v in fixture_results.items() if k != "part_b"}
    assert compare.section(fixture_results, [no_part_b]) is None


def whole_against_itself(fixture_results) -> dict:
    return results.rounded(compare.section(fixture_results, [fixture_results]))


def test_the_report_recomputes_both_sides_from_the_raw_files(fixture_results, fixture_cells):
    checker, said = report_checker.Checker(), []
    whole = whole_against_itself(fixture_results)
    report_compare.check(RAW, fixture_cells, whole, checker, said.append)
    cells = len(whole["against"][0]["cells"])
    assert checker.count > cells * 3  # every cell's pairs, ratios, verdicts, then the counts
    assert said and "cells recomputed from its raw files" in said[-1]


def other_p50_raised(row):
    row["p50_ms"]["values"][1] *= 1.1


def p99_said_lower(row):
    row["p99_ms"]["apart"] = "lower"


def keeps_up_flipped(row):
    row["keeps_up"][0] = not row["keeps_up"][0]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (other_p50_raised, "p50_ms.1."),
        (p99_said_lower, "p99_ms apart"),
        (keeps_up_flipped, "keeps_up"),
    ],
)
def test_the_report_names_an_altered_comparison(fixture_results, fixture_cells, change, named):
    whole = whole_against_itself(fixture_results)
    row = next(
        r for r in whole["against"][0]["cells"]
        if all(r["measured"]) and None not in r["p50_ms"]["values"]
    )  # fmt: skip
    change(row)
    with pytest.raises(report_checker.Disagreement, match=named):
        report_compare.check(RAW, fixture_cells, whole, report_checker.Checker(), lambda line: None)


def test_results_json_and_comparison_json_must_agree(fixture_results, tmp_path):
    whole = whole_against_itself(fixture_results)
    short = dict(fixture_results, comparison=published_comparison(copy.deepcopy(whole)))
    (tmp_path / "comparison.json").write_text(results.to_json(whole))
    assert report_compare.with_whole(short, tmp_path / "results.json")["comparison"] == whole
    whole["against"][0]["counts"]["cells"] += 1
    (tmp_path / "comparison.json").write_text(results.to_json(whole))
    with pytest.raises(ValueError, match="disagree"):
        report_compare.with_whole(short, tmp_path / "results.json")
