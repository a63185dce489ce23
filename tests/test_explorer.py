"""The explorer's Python (site_src/explorer/explorer.py) under CPython, run by pytest.

Checked on a small results dict written here by hand in the shape of generator/SCHEMA.md
(so each expected line is known without the generator), and on the generator's real
results.json of every committed full campaign (built into a temporary folder). The browser
tests check that Pyodide prints exactly what CPython prints.
"""

import ast
import json
import re
import sys
from pathlib import Path

import pytest

from tests.support.modules import load_explorer

ROOT = Path(__file__).resolve().parent.parent
EXPLORER_PATH = ROOT / "site_src" / "explorer" / "explorer.py"


explorer = load_explorer()

RATES = ["0.5", "1", "2"]
ROUNDS = 3


def cell(rate: str, p50: float, p99, throughput: float, kept: int, mean_batch=None, missing=()):
    """One Part B cell; by_round values are the median shifted by -1, 0, +1 thousandths."""
    rounds = [r for r in range(ROUNDS) if r not in missing]
    shifts = [-0.001, 0.0, 0.001][: len(rounds)]
    body = {
        "rate_multiple": float(rate),
        "arrival_rate": round(float(rate) * 1234.5, 1),
        "rounds": rounds,
        "missing_rounds": list(missing),
        "p50_ms": p50,
        "p99_ms": p99,
        "throughput": throughput,
        "keeps_up": kept == ROUNDS,
        "keeps_up_rounds": kept,
        "by_round": {
            "p50_ms": [round(p50 + s, 5) for s in shifts],
            "p99_ms": [None if p99 is None else round(p99 + s, 5) for s in shifts],
            "throughput": [throughput for _ in shifts],
        },
    }
    if mean_batch is not None:
        body["mean_batch_size"] = mean_batch
    return body


def diff(diffs: list, median: float, told_apart: bool, direction: str) -> dict:
    return {
        "rounds": list(range(len(diffs))),
        "diffs": diffs,
        "median": median,
        "told_apart": told_apart,
        "direction": direction,
    }


def setting(batcher: str, cap: int, wait: float, rates: dict) -> dict:
    return {"batcher": batcher, "max_batch": cap, "max_wait_ms": wait, "rates": rates}


def make_results() -> dict:
    names = ["none", "B=1 W=0", "B=32 W=0", "B=32 W=2"]
    design_setting = {
        "none": {"batcher": "none", "max_batch": 0, "max_wait_ms": 0.0, "name": "none"},
        "B=1 W=0": {"batcher": "queue", "max_batch": 1, "max_wait_ms": 0.0, "name": "B=1 W=0"},
        "B=32 W=0": {"batcher": "queue", "max_batch": 32, "max_wait_ms": 0.0, "name": "B=32 W=0"},
        "B=32 W=2": {"batcher": "queue", "max_batch": 32, "max_wait_ms": 2.0, "name": "B=32 W=2"},
    }
    settings = {
        "none": setting(
            "none",
            0,
            0.0,
            {
                "0.5": cell("0.5", 1.1834, 5.2612, 617.2, 3),
                "1": cell("1", 291.07, None, 1098.4, 0),
                "2": cell("2", 6901.2, None, 1041.5, 0),
            },
        ),
        "B=1 W=0": setting("queue", 1, 0.0, {"0.5": cell("0.5", 1.4274, 6.0, 617.1, 3, 1.0)}),
        "B=32 W=0": setting(
            "queue",
            32,
            0.0,
            {
                "0.5": cell("0.5", 1.2401, 2.5012, 617.25, 3, 1.2),
                "1": cell("1", 1.9, 4.25, 1234.5, 3, 2.1),
                "2": cell("2", 3.3, 8.18, 2469.0, 2, 4.75, missing=(2,)),
            },
        ),
        "B=32 W=2": setting("queue", 32, 2.0, {"0.5": cell("0.5", 3.1104, 6.75, 617.0, 3, 2.4)}),
    }
    paired = {
        "B=32 W=0": {
            "none": {
                "0.5": {
                    "p50_ms": diff([0.05, -0.01, 0.07], 0.05, False, "mixed"),
                    "p99_ms": diff([-2.7, -2.76, -2.9], -2.76, True, "lower"),
                    "throughput": diff([0.1, 0.0, 0.05], 0.05, False, "mixed"),
                },
                "1": {
                    "p50_ms": diff([-289.0, -290.1, -288.7], -289.0, True, "lower"),
                    "p99_ms": diff([-1e9, -1e9, -1e9], -1e9, True, "lower"),
                    "throughput": diff([136.1, 136.0, 135.9], 136.0, True, "higher"),
                },
            }
        },
        "B=32 W=2": {
            "B=32 W=0": {
                "0.5": {
                    "p50_ms": diff([1.87, 1.86, 1.88], 1.87, True, "higher"),
                    "p99_ms": diff([4.2, 4.3, 4.1], 4.2, True, "higher"),
                    "throughput": diff([-0.25, -0.2, -0.3], -0.25, True, "lower"),
                }
            }
        },
    }
    return {
        "schema_version": 1,
        "campaign": {"name": "test-campaign", "profile": "quick", "complete": False},
        "design": {
            "settings": names,
            "setting": design_setting,
            "rate_multiples": RATES,
            "rounds": ROUNDS,
            "window_s": 2.0,
            "keeps_up_share": 0.95,
            "part_a_sizes": [1, 2, 4],
        },
        "part_a": {
            "runs": 2,
            "calls_per_size": 200,
            "sizes": [1, 2, 4],
            "by_size": {
                "1": {"size": 1, "per_call_us": 501.7, "per_row_us": 501.7,
                      "per_call_us_runs": [500.1, 503.3], "calls": 400},
                "2": {"size": 2, "per_call_us": 468.9, "per_row_us": 234.45,
                      "per_call_us_runs": [468.0, 469.8], "calls": 400},
                "4": {"size": 4, "per_call_us": 476.3, "per_row_us": 119.08,
                      "per_call_us_runs": [476.0, 476.6], "calls": 400},
            },
        },
        "bits": {"by_size": {"2": {"scores": 26851, "equal": 26851, "max_abs_diff": 0.0}}},
        "part_b": {"settings": settings},
        "paired": paired,
    }  # fmt: skip


@pytest.fixture
def results():
    return make_results()


# --- formatting ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1098.4, "1,098.4"),
        (5501.0, "5,501"),
        (1.1834, "1.1834"),
        (0.00001, "0.00001"),
        (-2.76, "-2.76"),
        (-1234567.5, "-1,234,567.5"),
        (12, "12"),
        (None, "never answered"),
        (True, "yes"),
    ],
)
def test_plain_prints_the_stored_value_with_every_digit(value, text):
    with explorer.digits(True):
        assert explorer.plain(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1098.4, "1,098"),
        (5501.0, "5,501"),
        (1.1834, "1.18"),
        (119.08, "119"),
        (9.7734, "9.77"),
        (0.00001234, "0.0000123"),
        (-2.76, "-2.76"),
        (-0.051, "-0.051"),
        (-1234567.5, "-1,234,568"),
        (12, "12"),
        (0.0, "0"),
        (None, "never answered"),
    ],
)
def test_plain_rounds_to_three_significant_digits_keeping_whole_numbers(value, text):
    assert explorer.plain(value) == text


def test_full_digits_last_only_for_the_call_that_asked(results):
    assert "1.1834 ms" in explorer.lookup(results, 32, 0, 0.5, full=True)
    rounded = explorer.lookup(results, 32, 0, 0.5)
    assert "1.18 ms" in rounded and "1.1834" not in rounded
    assert rounded.endswith(explorer.ROUNDED_NOTE)
    assert explorer.ROUNDED_NOTE not in explorer.part_a(results, 4, full=True)


def test_signed_marks_higher_with_plus():
    assert explorer.signed(0.05) == "+0.05"
    assert explorer.signed(-2.76) == "-2.76"
    assert explorer.signed(None) == "undefined"
    assert explorer.signed(0.0) == "0"


# --- lookup ---------------------------------------------------------------------------------


def test_lookup_prints_none_first_then_the_setting_then_the_rounds(results):
    text = explorer.lookup(results, 32, 0, 0.5, full=True)
    none_at = text.index("none: no batcher")
    setting_at = text.index("B=32 W=0: batches of up to 32 rows, never waits on purpose")
    rounds_at = text.index("B=32 W=0 minus none, round by round")
    assert none_at < setting_at < rounds_at
    for stored in ("1.1834 ms", "5.2612 ms", "617.2 answers/s", "1.2401 ms", "2.5012 ms"):
        assert stored in text
    assert re.search(r"kept up +3 of 3 rounds", text)
    assert "p99: told apart, lower (all 3 rounds agree in sign)" in text
    assert "p50: not resolved" in text
    assert "-2.76" in text and "+0.07" in text


def test_lookup_accepts_text_choices_as_the_page_writes_them(results):
    assert explorer.lookup(results, "32", "0", "0.5") == explorer.lookup(results, 32, 0.0, 0.5)


def test_never_answered_and_missing_rounds_are_said_plainly(results):
    text = explorer.lookup(results, 32, 0, 2)
    assert re.search(r"p99 +never answered", text)  # none at 2 × S
    assert "round 3 (no raw file)" in text
    assert re.search(r"kept up +2 of 3 rounds", text)


def test_a_round_measured_on_a_slowed_host_is_said_wherever_it_is_used(results):
    """A run that never passed the slow-run rule is kept and marked (SCHEMA.md speed_probe):
    every answer resting on it says so."""
    results["part_b"]["settings"]["none"]["rates"]["0.5"]["never_passed_rounds"] = [1]
    results["part_a"]["never_passed_runs"] = [0]
    for text in (
        explorer.lookup(results, 32, 0, 0.5),
        explorer.compare(results, 1, 0, "none", 0, 0.5),
    ):
        assert re.search(r"slow host +round 2 never passed the slow-run rule", text)
    assert "never passed" not in explorer.lookup(results, 32, 0, 1)
    assert re.search(
        r"slow host +run 1 never passed the slow-run rule", explorer.part_a(results, 2)
    )


def test_every_cell_that_did_not_keep_up_carries_the_warning(results):
    text = explorer.lookup(results, 32, 0, 2)
    cells = text.split("\n\n")[1:3]  # none, then B=32 W=0
    kept = [re.search(r"kept up +(\d) of (\d)", cell).groups() for cell in cells]
    for cell, (up, of) in zip(cells, kept, strict=True):
        warned = "grows with the run's length" in " ".join(cell.split())
        assert warned == (up != of), cell
    assert any(up != of for up, of in kept)


def test_lookup_of_none_is_the_baseline_alone(results):
    text = explorer.lookup(results, "none", 0, 0.5)
    assert "This is the baseline itself" in text
    assert "minus" not in text


@pytest.mark.parametrize(
    ("b", "w", "rate", "message"),
    [
        (64, 0, 0.5, "B=64 was not measured. Measured B: none, 1, 32."),
        (32, 5, 0.5, "W=5 ms was not measured with B=32. Measured W for B=32: 0, 2 ms."),
        (1, 2, 0.5, "B=1 with W>0 is not a setting"),
        (32, 0, 1.1, "RATE=1.1 × S was not measured. Measured rates: 0.5, 1, 2 × S."),
        (32, 2, 1, "B=32 W=2 has no measurement at 1 × S (its runs are missing). "
         "Measured rates for B=32 W=2: 0.5 × S."),
        ("many", 0, 0.5, "B must be a number, not 'many'."),
        (32, "nan", 0.5, "W must be a finite number"),
    ],
)  # fmt: skip
def test_a_choice_not_measured_gets_a_message_naming_the_measured_values(b, w, rate, message):
    assert message in explorer.lookup(make_results(), b, w, rate)


def test_output_is_plain_text_even_when_a_name_looks_like_html(results):
    results["campaign"]["name"] = "<b>bold</b>"
    text = explorer.measured(results)
    assert "<b>bold</b>" in text  # printed as characters; the page sets textContent


# --- compare and Part A --------------------------------------------------------------------


def test_compare_uses_the_stored_pair_in_either_order(results):
    forward = explorer.compare(results, 32, 0, 32, 2, 0.5)
    assert "B=32 W=2 minus B=32 W=0" in forward
    assert "+1.87" in forward
    backward = explorer.compare(results, 32, 2, 32, 0, 0.5)
    assert "B=32 W=2 minus B=32 W=0" in backward


def test_compare_without_a_stored_pair_shows_rounds_side_by_side(results):
    text = explorer.compare(results, 1, 0, 32, 2, 0.5, full=True)
    assert "not such a pair" in text
    assert "1.4274 ms" in text and "3.1104 ms" in text
    assert "queue B=1 p50" in text and "B=1 W=0" not in text  # one name for the setting


def test_compare_names_the_bad_choice(results):
    assert explorer.compare(results, 32, 0, 8, 0, 0.5).startswith("B=8 was not measured")


def test_part_a_prints_one_row_first_then_the_size(results):
    text = explorer.part_a(results, 4, full=True)
    assert text.index("batch of 1 row") < text.index("batch of 4 rows")
    assert "476.3 µs" in text and "119.08 µs" in text and "500.1 µs, 503.3 µs" in text


def test_part_a_unknown_size_names_the_measured_sizes(results):
    assert explorer.part_a(results, 3) == (
        "Batch size 3 was not measured. Measured sizes: 1, 2, 4 rows."
    )
    assert "Measured sizes" in explorer.part_a(results, "big")


def test_measured_lists_what_the_reader_may_choose(results):
    text = explorer.measured(results)
    assert "settings: none, queue B=1, B=32 W=0, B=32 W=2" in text


def test_wrong_schema_version_is_named(results):
    results["schema_version"] = 99
    assert "schema 1" in explorer.lookup(results, 32, 0, 0.5)


# --- the module itself ---------------------------------------------------------------------


def test_explorer_imports_only_the_standard_library():
    tree = ast.parse(EXPLORER_PATH.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names)


def test_every_number_printed_is_a_stored_value_or_a_count(results):
    stored = set()

    def collect(value):
        if isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            stored.add(explorer.plain(value))
            stored.add(explorer.plain(abs(value)))

    collect(results)
    text = explorer.lookup(results, 32, 0, 0.5) + explorer.compare(results, 32, 0, 32, 2, 0.5)
    numbers = re.findall(r"(?<![\w=.])\d[\d,]*(?:\.\d+)?", text)
    small_counts = {str(n) for n in range(ROUNDS + 1)}
    unknown = [n for n in numbers if n not in stored and n not in small_counts]
    assert not unknown


def test_every_measured_cell_of_each_committed_full_campaign(full_campaign_builds):
    """The generator's own results.json of each committed full campaign: every measured cell
    is found by B, W and RATE."""
    assert full_campaign_builds
    for path in full_campaign_builds.values():
        check_every_cell(json.loads(path.read_text()))


def check_every_cell(results: dict) -> None:
    settings = results["part_b"]["settings"]
    for name, body in settings.items():
        for key in body["rates"]:
            cap = "none" if name == "none" else body["max_batch"]
            text = explorer.lookup(results, cap, body["max_wait_ms"], key)
            assert "was not measured" not in text, text
            assert "p50" in text and "kept up" in text


def test_measured_lists_settings_in_the_designs_order_not_as_text(results):
    listed = re.search(r"settings: (.*)", explorer.measured(results)).group(1)
    names = [name.strip() for name in re.split(r",| and ", listed) if name.strip()]
    expected = [explorer.shown_name(results, n) for n in results["design"]["settings"]]
    assert names == expected
    results["design"]["settings"] = []  # no design order: none first, then B and W as numbers
    listed = re.search(r"settings: (.*)", explorer.measured(results)).group(1)
    names = [name.strip() for name in re.split(r",| and ", listed) if name.strip()]
    assert names[0] == "none" and len(names) == len(results["part_b"]["settings"])
