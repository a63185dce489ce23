"""Issue 28, items 3, 4 and 7 (the generator's side): the interval rule written in the design
and frozen by a campaign, each campaign judged by the rule it ran under (the grid's verdicts
with their intervals under the new rule, exactly as before under the old one), and the
switchback benchmark's file read, judged and re-checked by the report, with the pages saying
so when the file is absent.

Run: `.venv/bin/pytest tests/test_verdicts.py`
"""

import json
import math
import re
import shutil
import statistics
from pathlib import Path

import numpy as np
import pytest

from generator.arithmetic import bench_files, grid_verdicts, intervals
from generator.build import Sources, build_site
from generator.charts import switchback as charts_switchback
from generator.pages import render as pages
from generator.reading import description
from generator.reading.load import DataError
from generator.report import bench as report_bench
from generator.report import checks as report
from generator.report import intervals as report_intervals
from lab import design
from lab.bench import switchback as bench
from lab.campaign.description import told_apart
from lab.rawformat import codec
from tests.support.modules import load_explorer

FIXTURE = Path(__file__).resolve().parent / "fixtures"
RAW, PAGES, BENCH = FIXTURE / "raw", FIXTURE / "pages", FIXTURE / "bench"
SITE_PAGES = FIXTURE.parents[1] / "site_src" / "pages"
ROUNDS_RULE, INTERVAL_RULE = "all_rounds_agree_in_sign", "hodges_lehmann_wilcoxon_95"


def results_of(out: Path) -> dict:
    return json.loads((out / "assets" / "data" / "results.json").read_text())


def described_file(raw: Path) -> Path:
    """The file holding the fixture campaign's description (its sidecar, or campaign.json)."""
    (folder,) = [p.parent for p in raw.glob("*/campaign.json")]
    sidecar = folder / description.SIDECAR
    return sidecar if sidecar.exists() else folder / description.CAMPAIGN_FILE


def with_rule(tmp_path: Path, rule: dict) -> Path:
    """A copy of the fixture's raw folder whose campaign froze `rule` as its told-apart rule."""
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    path = described_file(raw)
    found = json.loads(path.read_text())
    found["rules"]["told_apart"] = rule
    path.write_text(json.dumps(found))
    return raw


def build(raw: Path, out: Path, bench_dir: Path | None = None, cache: Path | None = None):
    return build_site(
        raw, None, out, Sources(PAGES, bench=bench_dir), cache_dir=cache or out.parent
    )


@pytest.fixture(scope="module")
def interval_build(tmp_path_factory) -> tuple[Path, Path]:
    """The fixture campaign as if it had run under the interval rule, built with the fixture
    switchback file: (raw folder, output folder)."""
    tmp = tmp_path_factory.mktemp("interval")
    raw = with_rule(tmp, told_apart())
    build(raw, tmp / "out", BENCH, tmp / "cache")
    return raw, tmp / "out"


# --- item 3: the rule, written in the design and frozen ---------------------------------------


def test_the_design_writes_the_interval_rule_with_its_levels_and_deltas():
    assert design.TOLD_APART_RULE == INTERVAL_RULE
    assert design.ROUNDS_RULE == ROUNDS_RULE  # the first two campaigns' rule, kept
    assert (design.TOLD_APART_CONFIDENCE, design.SAME_WITHIN_CONFIDENCE) == (0.95, 0.90)
    delta = design.TOLD_APART_DELTA
    assert delta["p50"] == delta["server"] == delta["throughput"] == pytest.approx(math.log(1.05))
    assert delta["p99"] == pytest.approx(math.log(1.25))
    assert "2026-12-01" in Path(design.__file__).read_text()
    frozen = told_apart()
    assert frozen["rule"] == INTERVAL_RULE and frozen["delta"] == delta
    assert (frozen["confidence"], frozen["same_within_confidence"]) == (0.95, 0.90)


def test_the_generator_computes_the_levels_the_description_names():
    levels = description.INTERVAL_LEVELS
    assert levels["confidence"] == intervals.CONFIDENCE == design.TOLD_APART_CONFIDENCE
    assert levels["same_within_confidence"] == intervals.EQUIVALENCE_CONFIDENCE
    assert set(description.DELTA_STATISTICS) == set(design.TOLD_APART_DELTA)


def test_both_rules_are_read_and_an_unknown_one_is_refused(tmp_path):
    where = tmp_path / "campaign.json"
    rounds = {"rules": {"told_apart": {"rule": ROUNDS_RULE, "text": "All rounds agree."}}}
    assert description.told_apart_rule(rounds, where) == rounds["rules"]["told_apart"]
    interval = {"rules": {"told_apart": told_apart()}}
    assert description.told_apart_rule(interval, where) == told_apart()
    unknown = {"rules": {"told_apart": {"rule": "most_rounds", "text": "Most rounds."}}}
    with pytest.raises(description.DescriptionError) as refused:
        description.told_apart_rule(unknown, where)
    message = str(refused.value)
    assert "'most_rounds'" in message and "cannot judge" in message and INTERVAL_RULE in message
    assert "rules.told_apart.rule" in message and str(where) in message


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda rule: rule.update(confidence=0.99), "rules.told_apart.confidence"),
        (lambda rule: rule["delta"].pop("p99"), "rules.told_apart.delta.p99"),
        (lambda rule: rule["delta"].update(p50=-0.1), "rules.told_apart.delta.p50"),
    ],
)
def test_an_interval_rule_the_generator_cannot_compute_is_refused(tmp_path, change, named):
    rule = told_apart()
    change(rule)
    with pytest.raises(description.DescriptionError, match=re.escape(f"'{named}'")):
        description.told_apart_rule({"rules": {"told_apart": rule}}, tmp_path / "x.json")


# --- item 4: the grid judged by the rule the campaign ran under --------------------------------


def test_a_campaign_under_the_rounds_rule_publishes_what_it_always_did(tmp_path):
    out = tmp_path / "out"
    build(RAW, out)
    found = results_of(out)
    assert "told_apart" not in found["design"]
    assert not (out / "assets" / "data" / grid_verdicts.TABLE).exists()
    for baselines in found["paired"].values():
        for rates in baselines.values():
            for diff in (d for metrics in rates.values() for d in metrics.values()):
                assert set(diff) == {"rounds", "diffs", "median", "told_apart", "direction"}
    assert "all differences have the same sign" in found["methods"]["told_apart"]


def test_a_campaign_under_the_interval_rule_is_judged_by_it(interval_build):
    raw, out = interval_build
    found = results_of(out)
    assert found["design"]["told_apart"]["rule"] == INTERVAL_RULE
    assert found["design"]["told_apart"]["table"] == grid_verdicts.TABLE
    assert found["design"]["told_apart"]["delta_share"]["p99"] == pytest.approx(0.25)
    assert "Wilcoxon" in found["methods"]["told_apart"]
    table = json.loads((out / "assets" / "data" / grid_verdicts.TABLE).read_text())
    compared = 0
    for name, baselines in found["paired"].items():
        for baseline, rates in baselines.items():
            for rate, metrics in rates.items():
                for metric, diff in metrics.items():
                    interval = table["paired"][name][baseline][rate][metric]
                    assert "interval" not in diff  # published beside, not in results.json
                    assert diff["verdict"] in intervals.VERDICTS
                    assert diff["told_apart"] is (diff["verdict"] == intervals.TOLD_APART)
                    assert interval["n"] == len(diff["rounds"])
                    assert ("level_us" in interval) is (metric != "throughput")
                    compared += 1
    assert compared > 0
    for rate, entry in found["best"]["by_rate"].items():
        if "versus" in entry:
            assert set(table["best"][rate]) == set(entry["versus"])
    assert report.main(raw, None, out / "assets" / "data" / "results.json") == 0


def test_the_report_names_an_altered_interval_end(interval_build, tmp_path, capsys):
    raw, out = interval_build
    altered = tmp_path / "out"
    shutil.copytree(out, altered)
    path = altered / "assets" / "data" / grid_verdicts.TABLE
    table = json.loads(path.read_text())
    name = next(iter(table["paired"]))
    baseline = next(iter(table["paired"][name]))
    rate = next(iter(table["paired"][name][baseline]))
    table["paired"][name][baseline][rate]["p50_ms"]["high95"] += 0.01
    path.write_text(json.dumps(table))
    capsys.readouterr()
    assert report.main(raw, None, altered / "assets" / "data" / "results.json") == 1
    said = capsys.readouterr().out
    assert f"paired/{name}/{baseline}/{rate}/p50_ms/interval high95" in said


def test_the_report_refuses_results_judged_by_the_other_rule(interval_build, tmp_path, capsys):
    """results.json built under the rounds rule does not pass for a campaign that froze the
    interval rule: a campaign is judged by its own rule."""
    raw, _ = interval_build
    out = tmp_path / "out"
    build(RAW, out)
    capsys.readouterr()
    assert report.main(raw, None, out / "assets" / "data" / "results.json") == 1
    assert "design/told_apart" in capsys.readouterr().out


def rounds(values: list) -> dict:
    return dict(enumerate(values))


def judged(setting: list, baseline: list, metric: str = "p50_ms") -> dict:
    from generator.arithmetic import stats

    rule = {"delta": dict(design.TOLD_APART_DELTA)}
    diff = stats.paired(rounds(setting), rounds(baseline), len(setting))
    level = stats.median(baseline)
    return grid_verdicts.judged(diff, rounds(setting), rounds(baseline), metric, rule, level)


def test_a_clear_shift_over_eight_rounds_is_told_apart_in_us_at_the_baselines_level():
    baseline = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.15, 1.0]
    found = judged([b * 1.10 for b in baseline], baseline)
    assert found["verdict"] == intervals.TOLD_APART and found["told_apart"]
    assert found["direction"] == "higher"
    interval = found["interval"]
    assert interval["n"] == 8 and interval["reaches95"]
    assert interval["estimate"] == pytest.approx(math.log(1.10), rel=1e-4)
    assert interval["level_us"] == pytest.approx(statistics.median(baseline) * 1000)
    assert interval["estimate_us"] == pytest.approx(0.10 * interval["level_us"], rel=1e-3)


def test_a_tiny_difference_is_the_same_within_delta_and_five_rounds_cannot_tell_apart():
    baseline = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.15, 1.0]
    wobble = [1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0, 1.001]
    same = judged([b * w for b, w in zip(baseline, wobble, strict=True)], baseline)
    assert same["verdict"] == intervals.SAME_WITHIN and not same["told_apart"]
    five = judged([b * 1.5 for b in baseline[:5]], baseline[:5])
    assert five["verdict"] == intervals.NOT_RESOLVED and not five["interval"]["reaches95"]
    assert five["interval"]["resolvable"] is None  # +inf: no difference could be told apart
    assert five["direction"] == "higher"


def test_a_never_answered_round_leaves_no_interval():
    found = judged([1.0, None, 1.1, 1.2, 1.0, 0.9], [1.0, 1.0, 1.0, 1.1, 1.0, 1.0], "p99_ms")
    assert found["interval"] is None and found["verdict"] == intervals.NOT_RESOLVED
    assert not found["told_apart"]


# --- item 7: the switchback benchmark's file ---------------------------------------------------


@pytest.fixture(scope="module")
def switchback() -> dict:
    return bench_files.section(BENCH)["switchback"]


def test_the_fixture_is_a_real_small_benchmark_file():
    found = json.loads((BENCH / "switchback.json").read_text())
    assert found["smoke"] is True and found["rule"]["rule"] == INTERVAL_RULE
    assert {run["pair"] for run in found["runs"]} == {pair["name"] for pair in found["pairs"]}
    size = sum(p.stat().st_size for p in BENCH.iterdir())
    assert size < 60_000


def test_the_switchback_file_is_read_and_judged_run_by_run(switchback):
    found = json.loads((BENCH / "switchback.json").read_text())
    assert switchback["names"] == [pair["name"] for pair in found["pairs"]]
    assert switchback["comparisons"][switchback["aa"]]["kind"] == "aa"
    for name in switchback["names"]:
        comparison = switchback["comparisons"][name]
        runs = [run for run in found["runs"] if run["pair"] == name]
        assert comparison["runs"] == len(runs)
        recorded = {short: key for short, key in bench_files.SWITCHBACK_STATISTICS.items()
                    if all(key in run["arms"][arm] for run in runs for arm in "ab")}  # fmt: skip
        assert set(comparison["statistics"]) == set(recorded)  # the fixture predates `ready`
        for short, key in recorded.items():
            entry = comparison["statistics"][short]
            d = [math.log(run["arms"]["b"][key] / run["arms"]["a"][key]) for run in runs]
            assert entry["d"] == pytest.approx(d)
            assert entry["sd_d"] == pytest.approx(statistics.stdev(d))
            level = statistics.median(run["arms"]["a"][key] for run in runs)
            assert entry["level_us"] == pytest.approx(level)
            delta = found["rule"]["delta"][short]
            verdict = intervals.interval_verdict(d, delta)
            assert entry["interval"] == verdict.as_dict(level)
            assert report_intervals.check(d, entry["interval"], delta) == []
            assert entry["contains_zero"] is (verdict.low95 <= 0 <= verdict.high95)


def test_the_added_work_is_recovered_only_by_an_interval_holding_it_and_not_zero(switchback):
    added = [n for n in switchback["names"] if switchback["comparisons"][n]["kind"] == "added_work"]
    assert {switchback["comparisons"][n]["added_work_us"] for n in added} == {50.0, 150.0}
    for name in added:
        comparison = switchback["comparisons"][name]
        for short, recovered in comparison["recovery"].items():
            interval = comparison["statistics"][short]["interval"]
            low, high = interval["low95_us"], interval["high95_us"]
            assert recovered["contains_added"] is (low <= comparison["added_work_us"] <= high)
            assert recovered["excludes_zero"] is (low > 0 or high < 0)
            assert recovered["recovered"] is (
                recovered["contains_added"] and recovered["excludes_zero"] and interval["reaches95"]
            )


def test_a_known_shift_is_recovered(tmp_path):
    """Synthetic runs where arm B is 150 µs slower at the server than A: recovered."""
    found = json.loads((BENCH / "switchback.json").read_text())
    rng = np.random.default_rng(3)
    for run in found["runs"]:
        level = 700.0 * math.exp(rng.normal(0, 0.02))
        run["arms"]["a"]["server_us_p50"] = level
        run["arms"]["b"]["server_us_p50"] = level + 150.0
    (tmp_path / "switchback.json").write_text(json.dumps(found))
    shutil.copy(BENCH / found["example"]["file"], tmp_path)
    section = bench_files.section(tmp_path)["switchback"]
    for name in section["names"]:
        if section["comparisons"][name]["kind"] == "added_work":
            server = section["comparisons"][name]["recovery"]["server"]
            assert server["recovered"] is (section["comparisons"][name]["added_work_us"] == 150)


def test_the_ready_stage_and_the_spins_on_the_clock_are_read_where_every_run_records_them(
    tmp_path,
):
    """Synthetic runs recording the ready stage: arm B's spins took 180 µs on the clock for
    150 µs of CPU, and its ready stage is 180 µs longer than A's. The ready stage becomes a
    statistic judged with the server time's δ; the recovery holds the clock's amount and not
    the CPU's; the report recomputes the same."""
    found = json.loads((BENCH / "switchback.json").read_text())
    pairs = {pair["name"]: pair for pair in found["pairs"]}
    rng = np.random.default_rng(5)
    for run in found["runs"]:
        added = pairs[run["pair"]]["added_work_us_b"]
        level = 200.0 * math.exp(rng.normal(0, 0.01))
        run["arms"]["a"]["ready_us_p50"] = level
        run["arms"]["b"]["ready_us_p50"] = level + (180.0 if added == 150 else 0.0)
        if added:
            run["arms"]["b"]["added_work_spins"] = run["arms"]["b"]["answered"]
            run["arms"]["b"]["added_work_wall_us_p50"] = 1.2 * added + rng.normal(0, 0.5)
    (tmp_path / "switchback.json").write_text(json.dumps(found))
    shutil.copy(BENCH / found["example"]["file"], tmp_path)
    section = bench_files.section(tmp_path)["switchback"]
    server_delta = found["rule"]["delta"]["server"]
    for name in section["names"]:
        comparison = section["comparisons"][name]
        ready = comparison["statistics"]["ready"]
        assert ready["interval"]["delta"] == pytest.approx(server_delta, rel=1e-3)
        if comparison["kind"] != "added_work":
            assert "added_work_wall" not in comparison
            continue
        wall = comparison["added_work_wall"]
        assert wall["median_us"] == pytest.approx(1.2 * comparison["added_work_us"], abs=2)
        assert wall["low_us"] <= wall["median_us"] <= wall["high_us"]
        recovery = comparison["recovery"]["ready"]
        if comparison["added_work_us"] == 150:
            assert recovery["excludes_zero"] and not recovery["contains_added"]
            assert recovery["contains_wall"] is (
                ready["interval"]["low95_us"] <= wall["median_us"] <= ready["interval"]["high95_us"]
            )
        else:  # 50 µs of CPU, 60 on the clock, and no difference in the ready stage
            assert not recovery["recovered"] and not recovery["recovered_wall"]
    recomputed = report_bench.switchback_numbers(found, tmp_path)["comparisons"]
    for name in section["names"]:
        mine, theirs = recomputed[name], section["comparisons"][name]
        assert (
            mine["statistics"]["ready"]["interval"]["verdict"]
            == (theirs["statistics"]["ready"]["interval"]["verdict"])
        )
        assert mine.get("recovery") == theirs.get("recovery")
        if "added_work_wall" in theirs:
            assert mine["added_work_wall"] == pytest.approx(theirs["added_work_wall"])


def counterbalanced_copy(tmp_path: Path, route_b_costs: float, overshoot_us: float) -> dict:
    """The fixture file as if its routes had been swapped in every other run and each arm had
    recorded its batches: route b costing `route_b_costs` times route a (every statistic),
    W arms' unfilled batches waiting W + `overshoot_us` (± 20 µs)."""
    found = json.loads((BENCH / "switchback.json").read_text())
    pairs = {pair["name"]: pair for pair in found["pairs"]}
    rng = np.random.default_rng(8)
    seen = dict.fromkeys(pairs, 0)
    for run in found["runs"]:
        run["swap_routes"] = seen[run["pair"]] % 2 == 1  # every other run of each pair
        seen[run["pair"]] += 1
        on_route_b = "a" if run["swap_routes"] else "b"
        for arm, values in run["arms"].items():
            setting = pairs[run["pair"]][f"arm_{arm}"]
            if pairs[run["pair"]]["arm_a"]["name"] == pairs[run["pair"]]["arm_b"]["name"]:
                for key in bench_files.SWITCHBACK_STATISTICS.values():
                    values[key] = 900.0 * (route_b_costs if arm == on_route_b else 1.0)
            wait_ms = setting.get("max_wait_ms") or 0.0
            values["batches"] = 0 if setting["batcher"] == "none" else 40
            values["batches_unfilled"] = 40 if wait_ms else 0
            values["unfilled_first_wait_us_p50"] = (
                1000 * wait_ms + overshoot_us + rng.uniform(-20, 20) if wait_ms else None
            )
    (tmp_path / "switchback.json").write_text(json.dumps(found))
    shutil.copy(BENCH / found["example"]["file"], tmp_path)
    return found


def test_a_routes_place_shows_in_the_route_effect_and_cancels_in_the_aa_comparison(tmp_path):
    found = counterbalanced_copy(tmp_path, route_b_costs=1.1, overshoot_us=60.0)
    section = bench_files.section(tmp_path)["switchback"]
    aa = section["comparisons"][section["aa"]]
    runs = [run for run in found["runs"] if run["pair"] == section["aa"]]
    assert aa["swapped_runs"] == sum(run["swap_routes"] for run in runs) > 0
    for short in bench_files.SWITCHBACK_STATISTICS:
        # d is +ln 1.1 where route b served B, −ln 1.1 where it served A: the route effect
        # turns the sign back and finds route b's 10%; the arms themselves differ by nothing
        # when the swaps balance
        effect = aa["route_effect"][short]["interval"]
        assert effect["estimate"] == pytest.approx(math.log(1.1), rel=1e-4)
        assert effect["estimate_us"] == pytest.approx(0.1 * effect["level_us"], rel=1e-4)
        unturned = [math.log(1.1) * (-1 if run["swap_routes"] else 1) for run in runs]
        assert aa["statistics"][short]["d"] == pytest.approx(unturned)
    for name in section["names"]:
        comparison = section["comparisons"][name]
        assert ("route_effect" in comparison) is (comparison["kind"] == "aa")


def test_the_w_overshoot_is_the_unfilled_batches_first_wait_minus_w_with_its_interval(tmp_path):
    found = counterbalanced_copy(tmp_path, route_b_costs=1.0, overshoot_us=60.0)
    section = bench_files.section(tmp_path)["switchback"]
    waited = [name for name in section["names"] if "overshoot" in section["comparisons"][name]]
    assert waited == ["B=32 W=0 vs B=32 W=1"]
    overshoot = section["comparisons"][waited[0]]["overshoot"]
    assert list(overshoot) == ["b"] and overshoot["b"]["max_wait_ms"] == 1.0
    runs = [run for run in found["runs"] if run["pair"] == waited[0]]
    per_run = [run["arms"]["b"]["unfilled_first_wait_us_p50"] - 1000 for run in runs]
    assert overshoot["b"]["per_run_us"] == pytest.approx(per_run)
    interval = overshoot["b"]["interval"]
    wide = intervals.signed_rank_interval(per_run)
    assert (interval["low95_us"], interval["high95_us"]) == pytest.approx((wide.low, wide.high),
                                                                          rel=1e-3)  # fmt: skip
    assert 40 <= interval["estimate_us"] <= 80 and interval["n"] == len(runs)


def test_an_older_file_without_swaps_or_first_waits_has_neither(switchback):
    for comparison in switchback["comparisons"].values():
        assert not {"swapped_runs", "route_effect", "overshoot"} & set(comparison)


def test_the_report_recomputes_the_route_effect_and_the_overshoot(tmp_path, capsys):
    counterbalanced_copy(tmp_path, route_b_costs=1.05, overshoot_us=45.0)
    raw = with_rule(tmp_path, told_apart())
    out = tmp_path / "out"
    build(raw, out, tmp_path, tmp_path / "cache")
    path = out / "assets" / "data" / "results.json"
    capsys.readouterr()
    assert report.main(raw, None, path, tmp_path) == 0, capsys.readouterr().out
    published = results_of(out)["bench"]["switchback"]
    for change, named in (
        (lambda c: c[published["aa"]]["route_effect"]["p50"]["interval"].update(estimate=0.2),
         "route_effect/p50/interval/estimate"),
        (lambda c: c["B=32 W=0 vs B=32 W=1"]["overshoot"]["b"]["interval"].update(low95_us=1.0),
         "overshoot/b/interval/low95_us"),
        (lambda c: c[published["aa"]].update(swapped_runs=0), "swapped_runs"),
    ):  # fmt: skip
        copy = tmp_path / f"altered-{named.replace('/', '-')}"
        shutil.copytree(out, copy)
        altered = copy / "assets" / "data" / "results.json"
        found = json.loads(altered.read_text())
        change(found["bench"]["switchback"]["comparisons"])
        altered.write_text(json.dumps(found))
        assert report.main(raw, None, altered, tmp_path) == 1
        assert named in capsys.readouterr().out


def test_twin_slices_pairs_are_marked_and_the_pages_read_the_twin_aa(tmp_path):
    """A file whose pairs ran in twin slices, with the A/A control also in independent slices
    beside them (the benchmark from 2026-12-02): the generator and the report both mark every
    comparison's slices, read the twin A/A as the control and name the independent one."""
    from generator.report import bench as report_bench

    found = json.loads((BENCH / "switchback.json").read_text())
    twin = {pair["name"]: f"{pair['name']}, twin slices" for pair in found["pairs"]}
    aa = next(p for p in found["pairs"] if p["arm_a"] == p["arm_b"] and not p["added_work_us_b"])
    independent = dict(aa, twin_slices=False)
    independent_runs = [dict(run) for run in found["runs"] if run["pair"] == aa["name"]]
    assert independent_runs
    for pair in found["pairs"]:
        pair.update(name=twin[pair["name"]], twin_slices=True)
    for run in found["runs"]:
        run["pair"] = twin[run["pair"]]
    found["pairs"].append(independent)
    found["runs"] += independent_runs
    shutil.copy(BENCH / found["example"]["file"], tmp_path)
    (tmp_path / "switchback.json").write_text(json.dumps(found))
    section = bench_files.section(tmp_path)["switchback"]
    assert section["aa"] == f"{independent['name']}, twin slices"
    assert section["aa_independent"] == independent["name"]
    assert [section["comparisons"][n]["twin_slices"] for n in section["names"]] == (
        [True] * (len(section["names"]) - 1) + [False]
    )
    # The pages show the twins' names without their suffix and mark the independent one.
    assert bench_files.comparison_label(section["aa"], section) == independent["name"]
    assert bench_files.comparison_label(independent["name"], section) == (
        f"{independent['name']} (independent slices)"
    )
    charted = {row[1] for row in charts_switchback.interval_rows(section)}
    assert charted == set(section["names"]) - {independent["name"]}  # the table holds it
    mine = report_bench.switchback_numbers(found, tmp_path)
    assert (mine["aa"], mine["aa_independent"]) == (section["aa"], section["aa_independent"])
    for name in section["names"]:
        assert (
            mine["comparisons"][name]["twin_slices"] is section["comparisons"][name]["twin_slices"]
        )
    # Only independent A/A runs: no twin one to prefer, and none named beside it.
    shutil.copy(BENCH / "switchback.json", tmp_path)
    plain = bench_files.section(tmp_path)["switchback"]
    assert plain["aa"] == independent["name"] and "aa_independent" not in plain
    assert [bench_files.comparison_label(n, plain) for n in plain["names"]] == plain["names"]
    assert not any(c["twin_slices"] for c in plain["comparisons"].values())


def test_the_example_runs_slices_alternate_from_its_first_arm(switchback):
    example = switchback["example"]
    meta, columns = codec.read_run(BENCH / example["file"])
    first = "ab".index(meta["first_arm"])
    assert example["slice_table"]["arm"] == [(first + k) % 2 for k in range(example["slices"])]
    assert sum(example["slice_table"]["requests"]) == example["requests"] == columns["arm"].size
    shown = example["shown"]
    assert len(shown["arm"]) == len(shown["arrival_ms"]) == len(shown["latency_ms"])
    assert max(shown["arrival_ms"]) < example["shown_slices"] * switchback["slice_s"] * 1000


def test_an_example_file_that_is_not_the_one_named_is_refused(tmp_path):
    shutil.copy(BENCH / "switchback.json", tmp_path)
    example = json.loads((BENCH / "switchback.json").read_text())["example"]["file"]
    (tmp_path / example).write_bytes((BENCH / example).read_bytes() + b"x")
    with pytest.raises(DataError, match="sha256"):
        bench_files.section(tmp_path)


def test_an_absent_file_leaves_no_section_and_the_build_does_not_fail(tmp_path):
    assert "switchback" not in bench_files.section(tmp_path)
    out = tmp_path / "out"
    build(RAW, out, tmp_path)
    assert "switchback" not in results_of(out)["bench"]
    assert not (out / "assets" / "data" / bench_files.EXAMPLE_TABLE).exists()
    assert not list((out / "assets" / "charts").glob("switchback_*"))


def test_the_build_publishes_the_switchback_results_and_the_report_rechecks_them(
    interval_build, tmp_path, capsys
):
    raw, out = interval_build
    data = out / "assets" / "data"
    published = results_of(out)["bench"]["switchback"]
    assert published["example"]["table"] == bench_files.EXAMPLE_TABLE
    assert "shown" not in published["example"]  # its own file: results.json stays compact
    assert "shown" in json.loads((data / bench_files.EXAMPLE_TABLE).read_text())
    for chart in ("switchback_slices", "switchback_intervals"):
        spec = json.loads((out / "assets" / "charts" / f"{chart}.json").read_text())
        assert spec["data"] and spec["site"]["heights"]
    capsys.readouterr()
    assert report.main(raw, None, data / "results.json", BENCH) == 0
    assert "switchback.json:" in capsys.readouterr().out
    altered = tmp_path / "out"
    shutil.copytree(out, altered)
    path = altered / "assets" / "data" / "results.json"
    found = json.loads(path.read_text())
    interval = found["bench"]["switchback"]["comparisons"][published["aa"]]["statistics"]["p50"]
    interval["interval"]["low95_us"] -= 7.0
    path.write_text(json.dumps(found))
    assert report.main(raw, None, path, BENCH) == 1
    assert "statistics/p50/interval/low95_us" in capsys.readouterr().out


def test_the_bench_keeps_one_runs_requests_beside_its_json(tmp_path):
    columns = {
        "arrival_us": np.array([10, 400_000, 600_000, 900_000], dtype=np.uint32),
        "arm": np.array([0, 0, 1, 1], dtype=np.uint8),
        "latency_us": np.array([1500, 2100, -1, 1800], dtype=np.int64),
        "status": np.array([200, 200, 0, 200], dtype=np.uint16),
        "ready_us": np.zeros(4, dtype=np.uint32),
    }
    summary = {"pair": "none vs none", "index": 0, "seed": 7, "first_arm": "a", "slices": 2}
    out = tmp_path / "switchback.json"
    recorded = bench.write_example(out, (summary, columns))
    path = tmp_path / recorded["file"]
    assert path == bench.example_file(out) and recorded["requests"] == 4
    assert recorded["sha256"] == codec.sha256_bytes(path.read_bytes())
    meta, read = codec.read_run(path)
    assert set(read) == set(bench.EXAMPLE_COLUMNS)
    for name in bench.EXAMPLE_COLUMNS:
        assert read[name].tolist() == columns[name].tolist()
    assert meta["first_arm"] == "a" and meta["slices"] == 2
    assert bench.write_example(out, None) is None


# --- the pages: switchback and the interval in plain words -----------------------------------


def render_section(results: dict, macro: str) -> str:
    env = pages.environment(SITE_PAGES)
    template = env.from_string(
        f'{{% import "_switchback.j2" as sw with context %}}{{{{ sw.{macro}() }}}}'
    )

    def chart_figure(name, caption, **_):
        return f"[chart {name}: {caption}]"

    return template.render(results=results, chart_figure=chart_figure, fig={}, names={})


def test_the_pages_say_the_benchmark_has_not_run_when_the_file_is_absent():
    said = render_section({"design": {}, "bench": {"dir": "data/bench"}}, "measured")
    assert "has not been run yet" in said
    explained = render_section({"design": {}}, "explain")
    assert "switchback run" in explained and "Hodges–Lehmann" in explained


def test_the_pages_show_the_benchmark_from_the_results(switchback):
    from generator.arithmetic import results as build_results

    shown = build_results.rounded(switchback)
    said = render_section({"design": {}, "bench": {"switchback": shown}}, "measured")
    assert "has not been run yet" not in said
    assert "[chart switchback_slices:" in said and "[chart switchback_intervals:" in said
    for name in shown["names"]:
        assert name in said
    explained = render_section({"design": {}, "bench": {"switchback": shown}}, "explain")
    assert "95% interval" in explained and "25%" in explained  # from the file's rule


def test_no_number_is_typed_in_the_switchback_templates():
    template = (SITE_PAGES / "_switchback.j2").read_text()
    prose = re.sub(r"\{[{%#].*?[}%#]\}", "", template, flags=re.S)
    prose = re.sub(r"`[^`]*`", "", prose)
    assert not re.findall(r"(?<![\w/])\d[\d,.]*\s*(?:µs|ms|%|×|s\b)", prose)


def test_the_charts_are_drawn_only_from_the_switchback_section(switchback):
    from generator.arithmetic import results as build_results

    shown = build_results.rounded(switchback)
    charts = charts_switchback.all_switchback_charts({"bench": {"switchback": shown}})
    assert set(charts) == {"switchback_slices", "switchback_intervals"}
    slices = charts["switchback_slices"]
    dots = [trace for trace in slices["data"] if trace["mode"] == "markers"]
    assert sum(len(trace["x"]) for trace in dots) == len(shown["example"]["shown"]["arm"])
    assert charts_switchback.all_switchback_charts({"bench": {}}) == {}


def test_the_explorer_names_the_rule_a_campaign_ran_under():
    explorer = load_explorer()
    rounds_rule = {"told_apart": True, "direction": "lower", "rounds": [0, 1]}
    assert "agree in sign" in explorer.verdict_line("p99", rounds_rule, 2)
    interval = dict(rounds_rule, told_apart=False, verdict=intervals.NOT_RESOLVED)
    line = explorer.verdict_line("p99", interval, 2)
    assert line == "p99: not resolved (by the campaign's interval rule)"
    apart = dict(interval, told_apart=True, verdict=intervals.TOLD_APART)
    assert explorer.verdict_line("p50", apart, 6).startswith("p50: told apart, lower")


@pytest.mark.parametrize("variant", ["wide", "narrow"])
def test_the_switchback_stand_ins_draw_every_series_and_tick(switchback, variant):
    import xml.etree.ElementTree as ElementTree

    from generator.arithmetic import results as build_results
    from generator.charts import standins

    shown = build_results.rounded(switchback)
    for name, spec in charts_switchback.all_switchback_charts(
        {"bench": {"switchback": shown}}
    ).items():
        svg = ElementTree.fromstring(standins.render(spec, variant))
        groups = [g for g in svg.iter("g") if "series" in g.get("class", "")]
        assert len(groups) == len(spec["data"]), name
        layout = standins.merged(
            spec["layout"], spec["site"]["narrow"] if variant == "narrow" else {}
        )
        ticks = [t for g in svg.iter("g") if "xticks" in g.get("class", "") for t in g]
        assert [t.text for t in ticks] == layout["xaxis"]["ticktext"], name
        for trace in spec["data"]:
            assert trace["meta"]["role"] in ("s1", "s2", "s3", "ref"), name
        y_axis = spec["layout"]["yaxis"]
        if y_axis.get("type") == "log":
            for value, label in zip(y_axis["tickvals"], y_axis["ticktext"], strict=True):
                assert float(label.replace(",", "")) == value


def test_the_handler_section_says_the_route_effect_the_overshoot_and_the_loops(tmp_path):
    from generator.arithmetic import results as build_results

    found = counterbalanced_copy(tmp_path, route_b_costs=1.1, overshoot_us=60.0)
    found["saturation_measured"] = {"throughput": 500.0, "loops_throughput": [400.0, 500.0, 600.0]}
    found["saturation_S"] = 500.0
    (tmp_path / "switchback.json").write_text(json.dumps(found))
    shown = build_results.rounded(bench_files.section(tmp_path)["switchback"])
    said = " ".join(
        render_section({"design": {}, "bench": {"switchback": shown}}, "measured").split()
    )
    aa = shown["comparisons"][shown["aa"]]
    assert f"In {aa['swapped_runs']} of these {aa['runs']} runs route `a` served arm B" in said
    assert "a route's place costs something" in said  # route b's 10% is told apart
    overshoot = shown["comparisons"]["B=32 W=0 vs B=32 W=1"]["overshoot"]["b"]["interval"]
    assert f"waited W + {pages.us(overshoot['estimate_us'])}" in said
    assert (
        "400, 500, 600 a second" in said and f"the fastest {pages.times(1.5)} the slowest" in said
    )
    explained = render_section({"design": {}, "bench": {"switchback": shown}}, "explain")
    assert "Which route serves which arm is drawn at random" in explained
