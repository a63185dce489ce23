"""Where the core's time goes and the batching ceiling on the handler page (issue 33):
data/bench/core_time.json and data/bench/ceiling.json read by the generator (results.json
`bench.core_time`, `bench.ceiling`), drawn and worded from their own numbers, "not run yet"
while absent, clear errors naming the file and the field, and the report recomputing every
number from the files' runs (a summary that does not follow from its runs fails, and so does
an altered number).

The files are written here in a temporary folder from made-up runs (the format, not a
measurement): core_time.json's parts made by the benchmark's own
`lab.bench.core_time.breakdown` and its summary by `summarize`; ceiling.json in batcher.json's
format (tests/support/bench.py) with none's model call recorded, its summary by
`lab.bench.batcher.summarize`.

Run: `.venv/bin/pytest tests/test_bench_core_time.py`
"""

import json
import re
import shutil
import statistics
from pathlib import Path

import numpy as np
import pytest

from generator.arithmetic import bench_files
from generator.build import SITE
from generator.charts import core_time as core_time_chart
from generator.pages import render as pages
from generator.reading.load import DataError
from lab.bench import batcher as bench_batcher
from lab.bench import core_time as bench_core_time
from tests.support.bench import build, handler_page, made_up_runs, report_says, write_batcher

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "data" / "bench" / "handler_trace.json"
RATES = bench_core_time.RATE_MULTIPLES
SETTINGS = [name for name, _ in bench_core_time.SETTINGS]
LAYERS = [layer for layer, _ in bench_core_time.LAYERS] + [bench_core_time.OTHER]


def made_up_core_runs(rounds: int = 2, gc_grows: bool = True, seed: int = 33) -> list[dict]:
    """Runs shaped as lab/bench/core_time.py records them (`one_run`), made up: the old
    service's collector takes a share growing with the rate when `gc_grows` (else a fixed
    one), the new one's almost none; the old client counts only its total CPU, the new one
    user and kernel apart and checks every answer; the new service reports its collector."""
    rng = np.random.default_rng(seed)
    runs = []
    for index in range(rounds):
        for version in ("old", "new"):
            for name in SETTINGS:
                for multiple in RATES:
                    answers = int(300 * multiple * rng.uniform(0.9, 1.0))
                    user_s = answers * 700e-6 * (1.15 if version == "old" else 1.0)
                    service_cpu = (user_s, answers * 150e-6)
                    if version == "old":
                        gc = 0.02 + (0.06 * multiple if gc_grows else 0.0)
                        client = {"client_cpu_us_per_request": float(rng.uniform(80, 100)),
                                  "client_user_us_per_request": None,
                                  "client_system_us_per_request": None,
                                  "answers_differing": None}  # fmt: skip
                    else:
                        gc = 0.001
                        client = {"client_cpu_us_per_request": 30.0,
                                  "client_user_us_per_request": float(rng.uniform(15, 20)),
                                  "client_system_us_per_request": float(rng.uniform(8, 10)),
                                  "answers_differing": 0}  # fmt: skip
                    shares = rng.dirichlet(np.ones(len(LAYERS)))
                    pairs = zip(LAYERS, shares, strict=True)
                    layers = {layer: round(float(share), 4) for layer, share in pairs}
                    counted = None
                    if version == "new":
                        counted = {"collections": [0, 0, 0], "cpu_us": [0.0, 0.0, 0.0],
                                   "threshold": [100_000, 10, 10],
                                   "frozen": int(rng.integers(150_000, 151_000))}  # fmt: skip
                    runs.append({
                        "version": version, "round": index, "setting": name,
                        "rate_multiple": multiple, "arrival_rate": 300 * multiple,
                        "answered": answers, "throughput": float(answers),
                        "kept_up": multiple < 2, "service_cpu_s": list(service_cpu),
                        "gc_share_perf": gc, "perf_user_samples": 1000, "gc_counted": counted,
                        "mean_batch": 1.0, "layers": layers, "client": client,
                        "us_per_answer": bench_core_time.breakdown(service_cpu, client, answers,
                                                                   gc, layers),
                    })  # fmt: skip
    return runs


def write_core_time(folder: Path, rounds: int = 2, window_s: float = 6.0, **made) -> dict:
    runs = made_up_core_runs(rounds, **made)
    found = {
        "what": bench_core_time.__doc__.splitlines()[0],
        "date": "2026-12-02T05:00:00+00:00",
        "smoke": rounds < 2 or window_s < 4,
        "fingerprint": {"cores": 2, "cpu_model": "AMD EPYC"},
        "commits": {"old": "4714b85" + "0" * 33, "new": "b" * 40},
        "cpu": 1,
        "rounds": rounds,
        "window_s": window_s,
        "saturation_S": 300.0,
        "saturation_loops_throughput": [290.0, 300.0, 310.0],
        "nice": 0,
        "shielded": "niceness 0",
        "layers": LAYERS,
        "summary": bench_core_time.summarize(runs),
        "runs": runs,
    }
    (folder / "core_time.json").write_text(json.dumps(found, indent=1))
    return found


# each pair's S at its start, which its rates follow (`--rates-per-pair`)
PAIR_S = [1400.0, 1450.0, 1500.0, 1550.0, 1600.0]


def ceiling_runs(pairs: int, seed: int = 33, rates_per_pair: bool = True) -> list[dict]:
    """Made-up side-by-side runs whose none at 0.5 × S records its model call, and whose new
    closed loop of none its model stage: each a share of 60 to 75% of an answer's core time at
    that pair's S. With `rates_per_pair`, as `--rates-per-pair` records them: a reference run
    per pair, the open loops' rates multiples of its S, and the new client's user and kernel
    time."""
    rng = np.random.default_rng(seed)
    runs = made_up_runs(pairs, seed)
    if rates_per_pair:
        load = runs[0]["load_before"]
        for pair in range(pairs):
            runs.append({"version": "new", "pair": pair, "kind": "reference", "setting": "none",
                         "throughput": PAIR_S[pair], "connections": 16, "probe_before": None,
                         "probe_after": None, "load_before": load, "load_after": load,
                         "core_watch": {"others_share": 0.01}})  # fmt: skip
        for run in runs:
            if run["kind"] != "open":
                continue
            scale = PAIR_S[run["pair"]] / 1500  # made_up_runs offers multiples of 1,500
            run["arrival_rate"] *= scale
            run["throughput"] = round(run["throughput"] * scale, 3)
            run["saturation_reference"] = PAIR_S[run["pair"]]
            if run["version"] == "new":
                cpu = run["client"]["client_cpu_us_per_request"]
                run["client"]["client_user_us_per_request"] = round(cpu * 0.55, 3)
                run["client"]["client_system_us_per_request"] = round(cpu * 0.45, 3)
    for run in runs:
        if run["kind"] == "open" and run["setting"] == "none" and run["rate_multiple"] == 0.5:
            saturation = next(r["throughput"] for r in runs if r["kind"] == "closed"
                              and r["setting"] == "none" and r["version"] == run["version"]
                              and r["pair"] == run["pair"])  # fmt: skip
            run["model_us_p50"] = float(rng.uniform(0.6, 0.75)) * 1e6 / saturation
        if run["kind"] == "closed" and run["setting"] == "none" and run["version"] == "new":
            # the new client reports the model stage of the answers that measure S
            run["model_us_p50"] = float(rng.uniform(0.6, 0.75)) * 1e6 / run["throughput"]
    return runs


def write_ceiling(folder: Path, pairs: int = 5, rates_per_pair: bool = True) -> dict:
    follow = {"rates_follow": "each pair's S", "pair_saturation": PAIR_S[:pairs]}
    return write_batcher(folder, pairs, runs=ceiling_runs(pairs, rates_per_pair=rates_per_pair),
                         name="ceiling.json", saturation_S_reference=300.0,
                         saturation_loops_throughput=[290.0, 300.0, 310.0],
                         **(follow if rates_per_pair else {}))  # fmt: skip


def bench_folder(folder: Path) -> Path:
    """`folder` made a bench folder holding the committed trace, a made-up core_time.json and
    ceiling.json."""
    folder.mkdir(exist_ok=True)
    shutil.copy(TRACE, folder / TRACE.name)
    write_core_time(folder)
    write_ceiling(folder)
    return folder


@pytest.fixture
def bench(tmp_path) -> Path:
    """A bench folder of its own, for a test that changes a file."""
    return bench_folder(tmp_path / "bench")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict]:
    """(the bench folder, results.json built with it), once for the tests that only read."""
    folder = bench_folder(tmp_path_factory.mktemp("bench"))
    return folder, build(tmp_path_factory.mktemp("out"), folder)


def close(shown, found) -> bool:
    """Published (rounded to 5 significant digits) and the file's own values agree, at every
    level of a nested dict."""
    if isinstance(found, dict):
        return set(shown) == set(found) and all(close(shown[k], found[k]) for k in found)
    return shown == pytest.approx(found, rel=1e-4)


def edit(folder: Path, name: str, change) -> None:
    found = json.loads((folder / name).read_text())
    change(found)
    (folder / name).write_text(json.dumps(found))


# --- core_time.json ---------------------------------------------------------------------------


def test_the_core_time_is_shown_as_the_files_own_medians(built):
    folder, results = built
    found = json.loads((folder / "core_time.json").read_text())
    shown = results["bench"]["core_time"]
    assert shown["parts"] == list(found["runs"][0]["us_per_answer"])  # every part, in order
    assert close(shown["summary"], found["summary"])
    assert shown["settings"] == SETTINGS and shown["rate_multiples"] == list(RATES)
    assert shown["client_split"] == {"old": False, "new": True}
    assert shown["answers_differing"] == {"old": None, "new": 0}
    new_runs = [run for run in found["runs"] if run["version"] == "new"]
    assert shown["gc_new"]["threshold"] == [100_000, 10, 10]
    assert shown["gc_new"]["frozen_min"] == min(r["gc_counted"]["frozen"] for r in new_runs)
    assert shown["gc_new"]["answers"] == sum(r["answered"] for r in new_runs)


def test_the_findings_are_the_growth_from_s_to_the_top_rate_and_the_cut_there(built):
    folder, results = built
    found = json.loads((folder / "core_time.json").read_text())
    shown = results["bench"]["core_time"]
    findings = shown["findings"]
    assert (findings["base_multiple"], findings["top_multiple"]) == (1.0, max(RATES))
    parts = shown["parts"]
    for setting in SETTINGS:
        for version in ("old", "new"):
            at_s, top = (found["summary"][version][setting][k] for k in ("x1", "x2.5"))
            grown = {part: top[part] - at_s[part] for part in parts}
            entry = findings["by_setting"][setting][version]
            assert grown[entry["grew_most"]] == max(grown.values())
            assert entry["grew_most_us"] == pytest.approx(max(grown.values()))
            assert entry["outside_model_top_us"] == pytest.approx(top["total"] - top["model"])
            share = top["garbage collector"] / top["total"]
            assert entry["gc_share_top"] == pytest.approx(share, rel=1e-4)
        old, new = (found["summary"][v][setting]["x2.5"] for v in ("old", "new"))
        cut = findings["by_setting"][setting]["cut_at_top"]
        assert cut["total_us"] == pytest.approx(old["total"] - new["total"])
        saved = {part: old[part] - new[part] for part in parts}
        assert saved[cut["most"]] == max(saved.values())


def words(page: str) -> str:
    """The page's text with every run of white space one space (its sentences wrap)."""
    return " ".join(page.split())


def test_the_handler_page_draws_and_words_the_core_time_from_its_numbers(built):
    _, results = built
    shown = results["bench"]["core_time"]
    page = handler_page(results)
    assert "## Where the core's time goes" in page
    assert "The profile of where the core's time goes" not in page
    assert 'data-chart="core_time"' in page
    summary, said = shown["summary"], words(page)
    for setting in SETTINGS:
        cells = " | ".join(
            f"{pages.num(summary['old'][setting][k]['garbage collector'])} → "
            f"{pages.num(summary['new'][setting][k]['garbage collector'])}"
            for k in ("x0.5", "x1", "x2.5")
        )
        assert f"| garbage collector | {cells} |" in page
        grew = shown["findings"]["by_setting"][setting]["old"]
        went = pages.us(grew["total_base_us"])
        assert f"- **{setting}**: the core time per answer went from {went}" in said
        if grew["grew_most_us"] > 0:
            bullet = re.escape(f"- **{setting}**:")
            amount = re.escape(f" (+{pages.us(grew['grew_most_us'])})")
            named = re.search(f"{bullet}[^-]*the part that grew most was ([^(]+){amount}", said)
            assert named, setting
            # the part named in a sentence by its own words ("load client, user": the load
            # client's user time)
            own_words = re.findall(r"\w+", grew["grew_most"].split("(")[0])
            assert all(word in named.group(1) for word in own_words)
        else:
            assert "no part grew" in said
        gc_words = (
            f"The garbage collector took {pages.us(grew['gc_base_us'])} per answer "
            f"({pages.pct(grew['gc_share_base'])} of the total), then "
            f"{pages.us(grew['gc_top_us'])} ({pages.pct(grew['gc_share_top'])})."
        )
        assert gc_words in said
        cut = shown["findings"]["by_setting"][setting]["cut_at_top"]
        more_or_less = "less" if cut["total_us"] >= 0 else "more"
        assert f"{pages.us(abs(cut['total_us']))} {more_or_less}" in said
    assert "* The old load client counted only its total CPU time" in said
    assert "| load client, user \\* |" in page
    assert "the collector's CPU per answer grows with the requests in flight" in said
    assert f"raises the young generation's threshold to {pages.num(100_000)} new objects" in said
    assert "1 round" not in page and "A smoke run" not in page


def test_the_words_follow_the_data_when_the_collector_did_not_grow(tmp_path):
    folder = tmp_path / "bench"
    folder.mkdir()
    write_core_time(folder, rounds=1, window_s=2.0, gc_grows=False)
    page = handler_page(build(tmp_path / "out", folder))
    assert "the collector's CPU per answer grows with the requests in flight" not in page
    assert '!!! warning "A smoke run"' in page and "This profile ran 1 round with" in page


def test_the_chart_stacks_every_part_once_per_setting_rate_and_version(built):
    shown = built[1]["bench"]["core_time"]
    spec = core_time_chart.core_time(shown)
    groups = core_time_chart.groups_of(shown["parts"])
    drawn = [part for _, members, _ in groups for part in members]
    assert sorted(drawn) == sorted(shown["parts"])  # each part in exactly one bar segment
    rows = spec["data"][0]["y"]
    assert len(rows) == len(SETTINGS) * len(RATES) * 2
    for index, (setting, multiple, version) in enumerate(
        (s, m, v) for s in SETTINGS for m in RATES for v in ("old", "new")
    ):
        assert rows[index] == core_time_chart.row_label(setting, multiple, version)
        cell = shown["summary"][version][setting][f"x{multiple:g}"]
        stacked = sum(trace["x"][index] for trace in spec["data"])
        assert stacked == pytest.approx(sum(cell[part] for part in shown["parts"]))
    assert spec["data"][0]["name"] == "garbage collector"  # the finding lines up at the left
    assert spec["layout"]["barmode"] == "stack"


def test_absent_files_are_said_not_to_have_run_yet(tmp_path):
    folder = tmp_path / "bench"
    folder.mkdir()
    shutil.copy(TRACE, folder / TRACE.name)
    results = build(tmp_path / "out", folder)
    assert not {"core_time", "ceiling"} & set(results["bench"])
    page = handler_page(results)
    assert "`data/bench/core_time.json`) has not run yet" in page
    assert "`data/bench/ceiling.json`) has not run yet" in page
    assert 'data-chart="core_time"' not in page


BROKEN_CORE = {
    "a part missing from a run": (
        lambda f: f["runs"][3]["us_per_answer"].pop("garbage collector"),
        r"core_time\.json runs\[3\]: missing field 'us_per_answer\.garbage collector'",
    ),
    "a part that is not a number": (
        lambda f: f["runs"][0]["us_per_answer"].update(model="fast"),
        r"core_time\.json runs\[0\]: field 'us_per_answer\.model' is 'fast', expected µs",
    ),
    "a summary cell missing": (
        lambda f: f["summary"]["new"]["B=32 W=0"].pop("x2.5"),
        r"core_time\.json: missing field 'summary\.new\.B=32 W=0\.x2\.5\.load client, user'",
    ),
    "a version that never ran a cell": (
        lambda f: f.update(runs=[r for r in f["runs"] if not (
            r["version"] == "new" and r["setting"] == "none" and r["rate_multiple"] == 2.5)]),
        r"core_time\.json: no run of version 'new' with setting 'none' at 2\.5 × S",
    ),
    "layers without the model": (
        lambda f: f["layers"].remove("model"),
        r"core_time\.json: field 'layers' must name the 'model'",
    ),
    "a commit missing": (
        lambda f: f["commits"].pop("old"),
        r"core_time\.json: missing field 'commits\.old'",
    ),
    "not JSON": (None, r"core_time\.json: not readable JSON"),
}  # fmt: skip


@pytest.mark.parametrize("what", sorted(BROKEN_CORE))
def test_a_broken_core_time_file_is_named_with_its_field(what, bench):
    change, message = BROKEN_CORE[what]
    if change is None:
        (bench / "core_time.json").write_text("{not json")
    else:
        edit(bench, "core_time.json", change)
    with pytest.raises(DataError, match=message):
        bench_files.section(bench)


# --- ceiling.json -----------------------------------------------------------------------------


def test_the_ceiling_is_shown_old_next_to_new_with_its_target(built):
    folder, results = built
    found = json.loads((folder / "ceiling.json").read_text())
    shown = results["bench"]["ceiling"]
    summary = found["summary"]
    for measure in bench_files.CEILING_MEASURES:
        assert close(shown["summary"][measure], summary[measure])
    assert shown["saturation_S"] == found["saturation_S_reference"]
    assert shown["saturation_loops"] == found["saturation_loops_throughput"]
    assert shown["model_share_in_closed_loop"] == {"old": False, "new": True}
    page = handler_page(results)
    said = " ".join(page.split())
    assert "both from the same answers of one closed loop in each pair" in said
    assert "the old service's client did not report the model's time" in said
    share = summary["best_batched_share_of_ceiling"]
    target = bench_batcher.TARGETS["best_batched_share_of_ceiling"]
    row = (
        f"| that, as a share of the ceiling | {pages.num(share['old']['median'], 2)} → "
        f"{pages.num(share['new']['median'], 2)} | at least {pages.num(target['at_least'], 2)} "
        f"(stretch: {pages.num(target['stretch'], 2)}) | {pages.yesno(share['met'])} "
        f"(stretch: {pages.yesno(share['stretch_met'])}) |"
    )
    assert row in page, row
    kept = summary["b32_w0_kept_up_at_2.5"]
    assert (
        f"| B=32 W=0 kept up at 2.5 × S (pairs) | {kept['old']['pairs_kept_up']} of 5 → "
        f"{kept['new']['pairs_kept_up']} of 5 |"
    ) in page
    per_pair = ", ".join(pages.num(x, 2) for x in share["new"]["per_pair"])
    assert f"pair by pair\n{per_pair}." in page
    ceiling = shown["summary"]["ceiling_over_none"]  # as published (5 digits), as the page
    old, new = (pages.num(ceiling[version]["median"], 2) for version in ("old", "new"))
    assert f"| the ceiling (× S) | {old} → {new} |" in page


BATCHED = ("B=32 W=0", "B=128 W=0")  # the batched settings at 2.5 × S and in closed loop


def run_value(runs: list, version: str, pair: int, key: str, **where):
    """`key` of the one run of `version` in `pair` that matches `where` (None if it lacks it)."""
    (run,) = [r for r in runs if r["version"] == version and r["pair"] == pair
              and all(r.get(k) == v for k, v in where.items())]  # fmt: skip
    return run.get(key)


def s_and_ceiling(runs: list, version: str, pair: int) -> tuple[float, float]:
    """S of the pair (none's closed loop) and its ceiling, 1 ÷ (1 − the model share), the model
    stage from that closed loop, else from none's open loop at 0.5 × S."""
    s = run_value(runs, version, pair, "throughput", kind="closed", setting="none")
    model_us = run_value(runs, version, pair, "model_us_p50", kind="closed", setting="none")
    if model_us is None:
        model_us = run_value(runs, version, pair, "model_us_p50", kind="open", setting="none",
                             rate_multiple=0.5)  # fmt: skip
    return s, 1 / (1 - model_us * s / 1e6)


def test_the_best_batched_is_also_divided_by_s_the_ceilings_own_unit(built):
    """none's own answers at 2.5 × S fall below S when it is swamped, so the generator also
    divides the best batched by S (none's closed loop in the pair), and takes that ÷ the
    ceiling: recomputed here from the runs, pair by pair."""
    folder, results = built
    runs = json.loads((folder / "ceiling.json").read_text())["runs"]
    shown = results["bench"]["ceiling"]["over_saturation"]

    medians = {}
    for version in ("old", "new"):
        over_s, of_ceiling = [], []
        for pair in range(5):
            s, ceiling = s_and_ceiling(runs, version, pair)
            best = max(run_value(runs, version, pair, "throughput", kind="open", setting=name,
                                 rate_multiple=2.5) for name in BATCHED)  # fmt: skip
            over_s.append(best / s)
            of_ceiling.append(best / s / ceiling)
        assert shown["best_batched_over_s_at_2.5"][version]["per_pair"] == pytest.approx(
            over_s, rel=1e-4)  # fmt: skip
        assert shown["share_of_ceiling"][version]["per_pair"] == pytest.approx(
            of_ceiling, rel=1e-4)  # fmt: skip
        medians[version] = (statistics.median(over_s), statistics.median(of_ceiling))
    page = handler_page(results)
    (old_s, old_share), (new_s, new_share) = medians["old"], medians["new"]
    assert (f"| best batched at 2.5 × S ÷ S (none's closed loop) | {pages.num(old_s, 2)} → "
            f"{pages.num(new_s, 2)} | | |") in page  # fmt: skip
    said = " ".join(page.split())
    new_old = f"{pages.num(new_share, 2)} of the ceiling (the old: {pages.num(old_share, 2)})"
    assert f"which is {new_old}" in said


def test_the_rates_followed_each_pairs_own_s(built):
    folder, results = built
    shown = results["bench"]["ceiling"]
    assert shown["pair_saturation"] == PAIR_S
    said = " ".join(handler_page(results).split())
    assert ("The rates of each pair were multiples of its own S, measured at the pair's start by "
            "one closed loop of none: 1,400 to 1,600 answers per second") in said  # fmt: skip
    assert "before the first pair, S was 300" in said


def test_a_ceiling_file_from_before_the_rates_per_pair_still_builds(tmp_path):
    folder = tmp_path / "bench"
    folder.mkdir()
    write_ceiling(folder, rates_per_pair=False)
    # a file from before 2026-12-02 evening: its summary has no user and kernel split at all
    edit(folder, "ceiling.json", lambda f: f["summary"].pop("client_user_kernel_us_per_request"))
    results = build(tmp_path / "out", folder)
    shown = results["bench"]["ceiling"]
    assert "pair_saturation" not in shown
    assert "client_user_kernel_us_per_request" not in shown["summary"]
    said = " ".join(handler_page(results).split())
    assert "The rates were multiples of S = 300 answers per second, the median of 3" in said
    assert "its own code" not in said  # no user and kernel split to show


def test_the_load_clients_cost_per_request_is_shown_with_its_split(built):
    folder, results = built
    found = json.loads((folder / "ceiling.json").read_text())
    cpu = found["summary"]["client_cpu_us_per_request"]
    split = found["summary"]["client_user_kernel_us_per_request"]["new"]["B=32 W=0 x2.5"]
    # the medians, recomputed here from the runs
    for version in ("old", "new"):
        for setting in ("B=32 W=0", "none"):
            values = [r["client"]["client_cpu_us_per_request"] for r in found["runs"]
                      if r["kind"] == "open" and r["version"] == version
                      and r["setting"] == setting and r["rate_multiple"] == 2.5]  # fmt: skip
            assert cpu[version][f"{setting} x2.5"] == statistics.median(values)
    said = " ".join(handler_page(results).split())
    assert (f"At 2.5 × S the new client used {pages.num(cpu['new']['B=32 W=0 x2.5'], 1)} µs of "
            f"the core per request with B=32 W=0 and {pages.num(cpu['new']['none x2.5'], 1)} µs "
            f"with none (the old client: {pages.num(cpu['old']['B=32 W=0 x2.5'], 1)} and "
            f"{pages.num(cpu['old']['none x2.5'], 1)} µs)") in said  # fmt: skip
    assert (f"With B=32 W=0 it spent about {pages.num(split['user'], 1)} µs in its own code "
            f"and {pages.num(split['kernel'], 1)} µs in the kernel") in said  # fmt: skip


def test_what_the_ratio_could_show_and_the_capacity_beside_it(built):
    """A batched setting that keeps up answers what it is offered, so beside the ratio at
    2.5 × S the generator shows what answering everything offered would give, how many pairs'
    best batched setting kept up, and the closed loop's capacity ÷ S and ÷ the ceiling:
    recomputed here from the runs, pair by pair."""
    folder, results = built
    runs = json.loads((folder / "ceiling.json").read_text())["runs"]
    shown = results["bench"]["ceiling"]["over_saturation"]

    for version in ("old", "new"):
        offered_share, capacity, capacity_share, kept = [], [], [], 0
        for pair in range(5):
            s, ceiling = s_and_ceiling(runs, version, pair)
            at_top = {"kind": "open", "rate_multiple": 2.5}
            top = {name: run_value(runs, version, pair, "throughput", setting=name, **at_top)
                   for name in BATCHED}  # fmt: skip
            best = max(top, key=top.get)
            kept += run_value(runs, version, pair, "kept_up", setting=best, **at_top)
            offered = run_value(runs, version, pair, "arrival_rate", setting=best, **at_top)
            none_top = run_value(runs, version, pair, "throughput", setting="none", **at_top)
            offered_share.append(offered / none_top / ceiling)
            most = max(run_value(runs, version, pair, "throughput", kind="closed", setting=name)
                       for name in BATCHED)  # fmt: skip
            capacity.append(most / s)
            capacity_share.append(most / s / ceiling)
        assert shown["best_kept_up_pairs"][version] == kept
        for key, values in (("offered_share_of_ceiling", offered_share),
                            ("closed_loop_over_s", capacity),
                            ("closed_loop_share_of_ceiling", capacity_share)):  # fmt: skip
            assert shown[key][version]["per_pair"] == pytest.approx(values, rel=1e-4), key
        past = sum(x > 1 for x in capacity_share)
        assert shown["closed_loop_share_of_ceiling"][version]["past_ceiling"] == past
    said = " ".join(handler_page(results).split())
    o, kept = shown, shown["best_kept_up_pairs"]
    assert (f"The best batched setting kept up there in {kept['new']} of 5 pairs with the new "
            f"service ({kept['old']} with the old)") in said  # fmt: skip
    share = results["bench"]["ceiling"]["summary"]["best_batched_share_of_ceiling"]
    short = "though in every pair the best batched setting answered all it was offered"
    assert (short in said) == (not share["met"] and kept["new"] == 5)
    per_pair = ", ".join(pages.num(x, 2) for x in o["offered_share_of_ceiling"]["new"]["per_pair"])
    assert f"of the ceiling, pair by pair {per_pair}." in said
    capacity = o["closed_loop_share_of_ceiling"]
    assert (f"there the best batched setting answered "
            f"{pages.times(o['closed_loop_over_s']['new']['median'])} S with the new service, "
            f"{pages.num(capacity['new']['median'], 2)} of the ceiling (the old: "
            f"{pages.num(capacity['old']['median'], 2)})") in said  # fmt: skip


BROKEN_CEILING = {
    "a pair's S not the S its open loops followed": (
        lambda f: f["pair_saturation"].__setitem__(2, 9999.0),
        r"ceiling\.json: pair 2's S is 9999\.0 in pair_saturation, 1500\.0 in its reference run",
    ),
    "a reference run missing": (
        lambda f: f.update(runs=[r for r in f["runs"]
                                 if not (r["kind"] == "reference" and r["pair"] == 4)]),
        r"ceiling\.json: pair_saturation lists 5 pairs, but the reference runs are of pairs "
        r"\[0, 1, 2, 3\]",
    ),
    "the client's CPU missing": (
        lambda f: f["summary"].pop("client_cpu_us_per_request"),
        r"ceiling\.json: missing field 'summary\.client_cpu_us_per_request'",
    ),
    "the share of the ceiling missing": (
        lambda f: f["summary"].pop("best_batched_share_of_ceiling"),
        r"ceiling\.json: missing field 'summary\.best_batched_share_of_ceiling'",
    ),
    "its target missing": (
        lambda f: f["summary"]["best_batched_share_of_ceiling"].pop("target"),
        r"ceiling\.json summary\.best_batched_share_of_ceiling: missing field 'target\.at_least'",
    ),
    "a version's kept-up pairs missing": (
        lambda f: f["summary"]["b32_w0_kept_up_at_2.5"].pop("new"),
        r"ceiling\.json summary\.b32_w0_kept_up_at_2\.5: missing field 'new'",
    ),
    "S missing": (
        lambda f: f.pop("saturation_S_reference"),
        r"ceiling\.json: missing field 'saturation_S_reference'",
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", sorted(BROKEN_CEILING))
def test_a_broken_ceiling_file_is_named_with_its_field(what, bench):
    change, message = BROKEN_CEILING[what]
    edit(bench, "ceiling.json", change)
    with pytest.raises(DataError, match=message):
        bench_files.section(bench)


# --- the report's own check -------------------------------------------------------------------


def test_the_report_recomputes_both_files_from_their_runs(built, tmp_path, capsys):
    code, said = report_says(built[1], tmp_path, capsys)
    assert code == 0, said
    for name in ("core_time.json", "ceiling.json"):
        assert f"{name}: " in said and "values recomputed from the file's runs" in said


def one_part_moved(found: dict) -> None:
    found["summary"]["old"]["none"]["x1"]["model"] += 5.0  # the runs say otherwise


def share_moved(found: dict) -> None:
    found["summary"]["best_batched_share_of_ceiling"]["new"]["median"] += 0.05


def ceiling_moved(found: dict) -> None:
    """One pair's ceiling as if none's model call had been measured longer."""
    for run in found["runs"]:
        if run.get("model_us_p50") is not None and run["version"] == "old" and run["pair"] == 0:
            run["model_us_p50"] *= 1.05


@pytest.mark.parametrize(
    "name, change, named",
    [
        ("core_time.json", one_part_moved, "bench/core_time/summary/old/none/x1/model"),
        ("ceiling.json", share_moved,
         "bench/ceiling/summary/best_batched_share_of_ceiling/new/median"),
        ("ceiling.json", ceiling_moved, "bench/ceiling/summary/ceiling_over_none/old/per_pair"),
    ],
)  # fmt: skip
def test_a_summary_not_following_from_its_runs_fails_the_report(
    name, change, named, bench, tmp_path, capsys
):
    edit(bench, name, change)
    results = build(tmp_path / "out", bench)
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and named in said, said


ALTERED = {
    "the part that grew most": (
        lambda b: b["core_time"]["findings"]["by_setting"]["none"]["old"].update(grew_most="x"),
        "bench/core_time/findings/by_setting/none/old/grew_most",
    ),
    "a cut": (
        lambda b: b["core_time"]["findings"]["by_setting"]["B=32 W=0"]["cut_at_top"].update(
            total_us=1.0),
        "bench/core_time/findings/by_setting/B=32 W=0/cut_at_top/total_us",
    ),
    "the collector's threshold": (
        lambda b: b["core_time"]["gc_new"].update(threshold=[700, 10, 10]),
        "bench/core_time/gc_new/threshold",
    ),
    "whether the stretch goal was met": (
        lambda b: b["ceiling"]["summary"]["best_batched_share_of_ceiling"].update(
            stretch_met=not b["ceiling"]["summary"]["best_batched_share_of_ceiling"][
                "stretch_met"]),
        "bench/ceiling/summary/best_batched_share_of_ceiling/stretch_met",
    ),
    "a pair's S": (
        lambda b: b["ceiling"]["pair_saturation"].__setitem__(0, 1.0),
        "bench/ceiling/pair_saturation",
    ),
    "the client's kernel time": (
        lambda b: b["ceiling"]["summary"]["client_user_kernel_us_per_request"]["new"][
            "B=32 W=0 x2.5"].update(kernel=1.0),
        "bench/ceiling/summary/client_user_kernel_us_per_request/new/B=32 W=0 x2.5/kernel",
    ),
    "the closed loop's share of the ceiling": (
        lambda b: b["ceiling"]["over_saturation"]["closed_loop_share_of_ceiling"]["new"].update(
            median=0.5),
        "bench/ceiling/over_saturation/closed_loop_share_of_ceiling/new/median",
    ),
    "the kept-up pairs": (
        lambda b: b["ceiling"]["summary"]["b32_w0_kept_up_at_2.5"]["new"].update(pairs_kept_up=9),
        "bench/ceiling/summary/b32_w0_kept_up_at_2.5/new/pairs_kept_up",
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", sorted(ALTERED))
def test_the_report_fails_naming_an_altered_number(what, built, tmp_path, capsys):
    results = json.loads(json.dumps(built[1]))
    change, named = ALTERED[what]
    change(results["bench"])
    code, said = report_says(results, tmp_path, capsys)
    assert code == 1 and named in said, said


def test_the_ceiling_recomputed_is_s_over_one_minus_the_model_share(built):
    folder, results = built
    found = json.loads((folder / "ceiling.json").read_text())
    shown = results["bench"]["ceiling"]["summary"]["ceiling_over_none"]
    for version in ("old", "new"):
        values = []
        for pair in range(found["pairs"]):
            chosen = [r for r in found["runs"] if r["version"] == version and r["pair"] == pair]
            closed = next(r for r in chosen if r["kind"] == "closed" and r["setting"] == "none")
            s = closed["throughput"]
            model = closed.get("model_us_p50")  # the same answers as S, when reported
            if model is None:
                model = next(r["model_us_p50"] for r in chosen if r["kind"] == "open"
                             and r["setting"] == "none" and r["rate_multiple"] == 0.5)  # fmt: skip
            values.append(1 / (1 - model * s / 1e6))
        assert shown[version]["per_pair"] == pytest.approx(values, rel=1e-4)
        assert shown[version]["median"] == pytest.approx(statistics.median(values), rel=1e-4)


# --- the committed files ------------------------------------------------------------------------


def test_the_committed_runs_are_on_the_handler_page(tmp_path):
    results = build(tmp_path / "out", SITE.bench)
    page = handler_page(results)
    assert "has not run yet" not in page and 'data-chart="core_time"' in page
    core_time, ceiling = results["bench"]["core_time"], results["bench"]["ceiling"]
    assert not core_time["smoke"] and core_time["rounds"] >= 2
    assert not ceiling["smoke"] and ceiling["pairs"] >= 5
    for name in ("core_time", "ceiling"):
        found = json.loads((SITE.bench / f"{name}.json").read_text())
        assert results["bench"][name]["date"] == found["date"]
