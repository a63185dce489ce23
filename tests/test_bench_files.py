"""The machinery's benchmarks on the handler page (issue 14): data/bench/handler_trace.json
read by the generator (results.json `bench`), the page's table equal to the file's own
numbers, the report recomputing every number from the file's runs (so a summary that does
not follow from its runs fails, and so does an altered number, a changed file or a new one),
clear errors naming the file and the field, and data/bench/batcher.json: "still to come"
while it is absent, old next to new with the targets once it exists.

The committed batcher.json is checked on the page; the other cases (a smoke run, an old client
without an answer check, …) write one in a temporary folder: its summary made by the
benchmark's own `lab.bench.batcher.summarize` from runs made up in tests/support/bench.py (the
format, not a measurement).

Run: `.venv/bin/pytest tests/test_bench_files.py`
"""

import json
import shutil
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.build import SITE
from generator.pages import render as pages
from lab.bench import batcher as bench_batcher
from tests.support.bench import (
    build,
    handler_page,
    made_up_runs,
    report_says,
    sources,
    write_batcher,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_RAW = ROOT / "tests" / "fixtures" / "raw"
TRACE = ROOT / "data" / "bench" / "handler_trace.json"
ROWS = {  # the handler page's trace table: row label -> the file's measure
    "turns of the service's event loop between reading the request and answering it": (
        "loop_iterations_read_to_answer"
    ),
    "context switches on the core (service, client or anything else)": "context_switches_on_core",
    "times the load client woke up": "client_woken",
    "load client's reads per answer": "client_message_reads",
    "load client's CPU time (µs)": "client_cpu_us_per_request",
}


@pytest.fixture
def bench_copy(tmp_path) -> Path:
    """A bench folder holding a copy of the committed trace only."""
    folder = tmp_path / "bench"
    folder.mkdir()
    shutil.copy(TRACE, folder / TRACE.name)
    return folder


@pytest.fixture(scope="module")
def committed(tmp_path_factory) -> dict:
    """results.json built with the site's own bench folder, data/bench/."""
    return build(tmp_path_factory.mktemp("committed"), SITE.bench)


# --- the committed trace ---------------------------------------------------------------------


def test_the_handler_page_shows_the_files_own_numbers(committed):
    found = json.loads(TRACE.read_text())
    summary = found["summary"]
    page = handler_page(committed)
    assert "## Where the machinery's time goes" in page
    for label, measure in ROWS.items():
        cells = [
            f"{pages.num(summary['old'][s][measure])} → {pages.num(summary['new'][s][measure])}"
            for s in ("none", "queue B=1")
        ]
        row = f"| {label} | " + " | ".join(cells) + " |"
        assert row in page, row
    for version in ("old", "new"):
        assert f"`{found['commits'][version][:12]}`" in page
    busiest = max(run[k]["loadavg"][0] for run in found["runs"]
                  for k in ("load_before", "load_after"))  # fmt: skip
    assert f"and\n{pages.num(busiest)} on {found['fingerprint']['cores']} cores" in page


def test_the_trace_is_said_to_be_measured_on_a_busy_machine_when_its_load_says_so(committed):
    trace = committed["bench"]["handler_trace"]
    busy = trace["load"]["loadavg_min"] >= trace["cores"]
    page = handler_page(committed)
    assert ("**Measured on a busy machine.**" in page) == busy
    assert "reads counts, not times" in page if busy else "**Measured on a quiet machine.**" in page
    quiet = json.loads(json.dumps(committed))
    quiet_load = quiet["bench"]["handler_trace"]["load"]
    quiet_load.update(loadavg_min=0.2, loadavg_max=0.4)
    assert "**Measured on a quiet machine.**" in handler_page(quiet)


def test_the_versions_are_named_by_the_machinery_their_client_recorded(committed):
    versions = committed["bench"]["handler_trace"]["versions"]
    assert versions["old"]["machinery"] == "first"  # its client ran on uvloop
    assert versions["new"]["machinery"] == "second"  # no event loop
    assert committed["bench"]["dir"] == "data/bench"


def test_the_side_by_side_run_is_still_to_come_without_batcher_json(bench_copy, tmp_path):
    results = build(tmp_path / "out", bench_copy)  # the trace only, no batcher.json
    assert "batcher" not in results["bench"]
    assert "is still to come" in handler_page(results)


def test_the_committed_side_by_side_run_is_on_the_page_with_its_own_numbers(committed):
    found = json.loads((SITE.bench / "batcher.json").read_text())
    page = handler_page(committed)
    assert "is still to come" not in page and "### The two machineries side by side" in page
    overhead = found["summary"]["queue_b1_p50_overhead_us"]
    old, new = (pages.num(overhead[v]["median"]) for v in ("old", "new"))
    assert f"| {old} → {new} (" in page
    assert not found["smoke"] and found["pairs"] >= 5


def test_the_report_recomputes_the_trace_from_its_runs(committed, tmp_path, capsys):
    code, said = report_says(committed, tmp_path, capsys)
    assert code == 0, said
    assert "handler_trace.json:" in said and "values recomputed from the file's runs" in said


# what is altered in results.json: (change, words the DISAGREES line must name)
ALTERED = {
    "a count per request": (
        lambda b: b["handler_trace"]["summary"]["old"]["queue B=1"].update(
            loop_iterations_read_to_answer=1.0
        ),
        "bench/handler_trace/summary/old/queue B=1/loop_iterations_read_to_answer",
    ),
    "the load": (
        lambda b: b["handler_trace"]["load"].update(loadavg_max=1.0),
        "bench/handler_trace/load/loadavg_max",
    ),
    "a version's machinery": (
        lambda b: b["handler_trace"]["versions"]["new"].update(machinery="first"),
        "bench/handler_trace/versions/new/machinery",
    ),
    "a round's overhead": (
        lambda b: b["handler_trace"]["queue_b1_p50_overhead_us"]["new"]["per_round"].reverse(),
        "queue_b1_p50_overhead_us/new/per_round",
    ),
    "a number not recomputed": (
        lambda b: b["handler_trace"]["summary"]["new"]["none"].update(made_up=1),
        "bench/handler_trace/summary/new/none (its keys)",
    ),
}


@pytest.mark.parametrize("what", sorted(ALTERED))
def test_the_report_fails_naming_an_altered_number(what, committed, tmp_path, capsys):
    results = json.loads(json.dumps(committed))
    change, named = ALTERED[what]
    change(results["bench"])
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and named in said, said


def test_a_summary_that_does_not_follow_from_its_runs_fails_the_report(
    bench_copy, tmp_path, capsys
):
    found = json.loads((bench_copy / TRACE.name).read_text())
    found["summary"]["new"]["queue B=1"]["client_woken"] += 1.0  # the runs say otherwise
    (bench_copy / TRACE.name).write_text(json.dumps(found))
    results = build(tmp_path / "out", bench_copy)
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and "summary/new/queue B=1/client_woken" in said, said


def test_a_file_changed_or_added_after_the_build_fails_the_report(bench_copy, tmp_path, capsys):
    results = build(tmp_path / "out", bench_copy)
    assert report_says(results, tmp_path, capsys)[0] == 0
    assert results["bench"]["dir"] == str(bench_copy.resolve())
    trace = bench_copy / TRACE.name
    trace.write_text(trace.read_text() + "\n")
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and "changed since the build" in said, said
    shutil.copy(TRACE, trace)
    (bench_copy / "batcher.json").write_text("{}")
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and "exists, but results.json does not show it" in said, said


@pytest.mark.parametrize(
    "field", ["summary.new.none.client_woken", "fingerprint.cores", "commits.old", "runs"]
)
def test_a_missing_field_is_named_with_its_file(field, bench_copy, tmp_path, capsys):
    found = json.loads((bench_copy / TRACE.name).read_text())
    *parents, last = field.split(".")
    holder = found
    for key in parents:
        holder = holder[key]
    del holder[last]
    (bench_copy / TRACE.name).write_text(json.dumps(found))
    raw, out = str(FIXTURE_RAW), str(tmp_path / "out")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("generator.__main__.SITE", sources(bench_copy))
        code = main(["build", "--raw", raw, "--out", out])
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1, error
    assert "handler_trace.json" in error and f"'{field}'" in error, error


# --- batcher.json: old and new side by side -------------------------------------------------------


def test_batcher_json_is_shown_old_next_to_new_with_the_targets(bench_copy, tmp_path, capsys):
    found = write_batcher(bench_copy)
    results = build(tmp_path / "out", bench_copy)
    shown = results["bench"]["batcher"]
    assert shown["versions"]["old"]["machinery"] == "first"
    assert shown["versions"]["new"]["machinery"] == "second"
    page = handler_page(results)
    assert "is still to come" not in page and "A smoke run" not in page
    overhead = found["summary"]["queue_b1_p50_overhead_us"]
    target = overhead["target"]
    row = (
        f"| queue B=1 p50 minus no batching's, at 0.5 × S (µs) | "
        f"{pages.num(overhead['old']['median'])} → {pages.num(overhead['new']['median'])} "
        f"({pages.times(overhead['new_over_old'])}) | at most {pages.num(target['at_most'])} "
        f"(stretch: {pages.num(target['stretch'])}) | {pages.yesno(overhead['met'])} "
        f"(stretch: {pages.yesno(overhead['stretch_met'])}) |"
    )
    assert row in page, row
    best = found["summary"]["best_batched_over_none_at_2.5"]
    assert f"at least {pages.num(best['target']['at_least'])}" in page
    box = json.loads(SITE.reference.read_text())
    assert f"queue B=1 added {box['quiet_side']['queue_b1_p50_extra_us']} µs" in page
    assert f"measured as {box['waits']['measured_ms']['1']} ms" in page
    checked = found["summary"]["answers_checked_new"]
    assert f"{pages.num(checked['compared'])} compared, 0\ndiffered" in page
    code, said = report_says(results, tmp_path, capsys)
    assert code == 0, said


def test_the_benchmarks_targets_are_the_reference_boxs_own_measures():
    box = json.loads(SITE.reference.read_text())
    targets = bench_batcher.TARGETS
    assert (
        targets["queue_b1_p50_overhead_us"]["at_most"] == box["quiet_side"]["queue_b1_p50_extra_us"]
    )
    overshoot_us = (box["waits"]["measured_ms"]["1"] - 1) * 1000  # measured W minus W
    assert targets["w1_overshoot_us"]["at_most"] == pytest.approx(overshoot_us)
    assert (
        targets["best_batched_over_none_at_2.5"]["at_least"]
        == (box["saturation"]["best_batched_over_s"])
    )
    assert box["saturation"]["best_batched_rate_x_s"] == 2.5
    assert (
        targets["b32_w0_kept_up_at_2"]["all_pairs"]
        == box["busy_side"]["b32_b128_kept_up_everywhere"]
    )
    for name in ("queue_b1_p50_overhead_us", "w1_overshoot_us"):
        assert targets[name]["stretch"] < targets[name]["at_most"]


def test_a_smoke_run_is_said_to_be_one(bench_copy, tmp_path):
    write_batcher(bench_copy, pairs=2, window_s=1.0)
    page = handler_page(build(tmp_path / "out", bench_copy))
    assert '!!! warning "A smoke run"' in page
    assert "This benchmark ran 2 pairs with windows of 1 s" in page


@pytest.mark.parametrize(
    "change, named",
    [
        (lambda s: s["w1_overshoot_us"]["new"].update(median=1.0), "w1_overshoot_us/new/median"),
        (lambda s: s["queue_b1_p50_overhead_us"].update(
            met=not s["queue_b1_p50_overhead_us"]["met"]), "queue_b1_p50_overhead_us/met"),
        (lambda s: s["b32_w0_kept_up_at_2"]["new"].update(pairs_kept_up=0),
         "b32_w0_kept_up_at_2/new/pairs_kept_up"),
        (lambda s: s["closed_loop_answers_per_s"]["none"]["old"]["per_pair"].reverse(),
         "closed_loop_answers_per_s/none/old/per_pair"),
    ],
)  # fmt: skip
def test_a_batcher_summary_not_following_from_its_runs_fails_the_report(
    change, named, bench_copy, tmp_path, capsys
):
    found = write_batcher(bench_copy)
    change(found["summary"])
    (bench_copy / "batcher.json").write_text(json.dumps(found))
    results = build(tmp_path / "out", bench_copy)
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and named in said, said


def test_batcher_json_missing_a_measure_is_named(bench_copy, tmp_path):
    found = write_batcher(bench_copy)
    del found["summary"]["w1_overshoot_us"]
    (bench_copy / "batcher.json").write_text(json.dumps(found))
    from generator.reading.load import DataError

    with pytest.raises(DataError, match=r"batcher\.json: missing field 'summary.w1_overshoot_us'"):
        build(tmp_path / "out", bench_copy)


def test_the_ceiling_takes_the_model_share_from_nones_closed_loop_when_it_reported_it():
    """None's closed loop reported its model stage (new client), so its share comes from the
    same answers as S, not from the open loop at 0.5 × S; the old client's closed loop did not
    report it, so the old version keeps the open loop's."""
    runs = made_up_runs(2)
    for run in runs:
        if run["kind"] == "open" and run["setting"] == "none" and run["rate_multiple"] == 0.5:
            run["model_us_p50"] = 100.0
        if run["kind"] == "closed" and run["setting"] == "none" and run["version"] == "new":
            run["model_us_p50"] = 150.0
    summary = bench_batcher.summarize(runs, 2)
    found = bench_batcher.Found(runs, 2)
    for pair in (0, 1):
        for version, model_us in (("new", 150.0), ("old", 100.0)):
            s_closed = found.value(version, pair, "throughput", kind="closed", setting="none")
            ceiling = 1 / (1 - model_us * s_closed / 1e6)
            shown = summary["ceiling_over_none"][version]["per_pair"][pair]
            assert shown == pytest.approx(ceiling)


def test_the_ceiling_is_measured_in_each_pair_and_the_best_batched_set_against_it():
    runs = made_up_runs(2)
    for run in runs:
        if run["kind"] == "open" and run["setting"] == "none" and run["rate_multiple"] == 0.5:
            run["model_us_p50"] = 100.0 if run["version"] == "new" else 90.0
    summary = bench_batcher.summarize(runs, 2)
    found = bench_batcher.Found(runs, 2)
    for pair in (0, 1):
        s_closed = found.value("new", pair, "throughput", kind="closed", setting="none")
        ceiling = 1 / (1 - 100.0 * s_closed / 1e6)  # S / (1 - model share), as a multiple of S
        assert summary["ceiling_over_none"]["new"]["per_pair"][pair] == pytest.approx(ceiling)
        best = found.best_over_none("new", pair)
        shares = summary["best_batched_share_of_ceiling"]["new"]["per_pair"]
        assert shares[pair] == pytest.approx(best / ceiling)
    target = summary["best_batched_share_of_ceiling"]["target"]
    assert target == {"at_least": 0.90, "stretch": 0.95}
    assert summary["best_batched_share_of_ceiling"]["met"] == (
        summary["best_batched_share_of_ceiling"]["new"]["median"] >= 0.90
    )
