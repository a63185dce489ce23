"""Named figures: a never-answered percentile (null) counts as infinite; a cell with no
measured round leaves its figures out; only the Absent marker leaves a figure out, so a bug
(any other error) stops the build; the quiet and busy rates name the figures.

Run: `.venv/bin/pytest tests/test_figures.py`.
"""

import json
import math
from pathlib import Path

import pytest

from generator.arithmetic import figures
from lab.rawformat.names import slug

GOLDEN = Path(__file__).parent / "fixtures" / "golden" / "assets" / "data" / "results.json"
QUIET, BUSY = "0.5", "1.6"


def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def test_the_golden_figures_are_computed_again_from_its_results():
    results = golden()
    computed = figures.compute(results, QUIET, BUSY)
    assert sorted(computed) == sorted(results["figures"])
    for name, entry in computed.items():  # from rounded inputs: the same within rounding
        published = results["figures"][name]["value"]
        value = entry["value"]
        if isinstance(value, float) and math.isinf(value):
            assert published is None, name
        elif isinstance(value, float):
            assert value == pytest.approx(published, rel=1e-3), name
        else:
            assert value == published, name


def test_a_null_p99_makes_the_worst_p99_infinite_instead_of_crashing():
    results = golden()
    name, setting = next(iter(results["part_b"]["settings"].items()))
    rate = next(iter(setting["rates"]))
    setting["rates"][rate]["p99_ms"] = None
    computed = figures.compute(results, QUIET, BUSY)
    assert math.isinf(computed[f"{slug(name)}_p99_ms_max"]["value"])


def test_a_cell_without_a_measured_round_leaves_its_figures_out():
    results = golden()
    cell = results["part_b"]["settings"]["none"]["rates"][QUIET]
    for key in [k for k in cell if k.endswith(("_ms", "_us_p50")) or k == "throughput"]:
        cell.pop(key)
    cell.update(rounds=[], by_round={}, keeps_up=False, keeps_up_rounds=0, missing_rounds=[0, 1])
    computed = figures.compute(results, QUIET, BUSY)
    for name in ("none_p50_ms_at_0_5", "none_p99_ms_at_0_5", "b32_w0_p99_cut_at_0_5"):
        assert name not in computed
    assert "b32_w0_p50_ms_at_0_5" in computed  # the other cells still give theirs


def test_an_error_that_is_not_absent_data_stops_the_build():
    results = golden()
    del results["part_b"]["settings"]["none"]["rates"][QUIET]["keeps_up"]  # a malformed cell
    with pytest.raises(KeyError):
        figures.compute(results, QUIET, BUSY)


def test_the_campaigns_quiet_rate_names_the_figures():
    results = golden()
    computed = figures.compute(results, "1", BUSY)  # another quiet rate the fixture measured
    assert "none_p50_ms_at_1" in computed and "none_p50_ms_at_0_5" not in computed
    measured = results["part_b"]["settings"]["none"]["rates"]["1"]["p50_ms"]
    assert computed["none_p50_ms_at_1"]["value"] == measured
    assert "at 1 × S" in computed["none_p50_ms_at_1"]["what"]
