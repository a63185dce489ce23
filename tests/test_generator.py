"""The whole build on the committed fixture campaign (cut from real raw data): the golden
output, byte-identical rebuilds, bad data named in one line, missing runs listed, the
campaign's own description (rules, guesses, names) read from campaign.json or its sidecar,
strict templates, reference facts, the campaign choice, the filters and the chart specs.

Run: `.venv/bin/pytest tests/test_generator.py`. After a deliberate change of output,
rebuild the golden files with `.venv/bin/python -m tests.support.golden` and review the
diff.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.arithmetic import figures
from generator.build import SITE, Sources, build_site
from generator.charts import measured as charts
from generator.pages import render as pages
from generator.reading import load
from generator.reading.description import SIDECAR
from generator.report import figures as report_figures
from lab.rawformat import codec
from tests.support.golden import GOLDEN, PAGES, RAW, build_fixture

ROOT = Path(__file__).resolve().parent.parent


def campaign_dir(raw: Path = RAW) -> Path:
    (folder,) = load.campaign_folders(raw)
    return folder


def build(out: Path, raw: Path = RAW, pages_dir: Path = PAGES) -> dict:
    return build_fixture(out, raw, pages_dir)


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def results_of(out: Path) -> dict:
    return json.loads((out / "assets" / "data" / "results.json").read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("built")
    build(out)
    return out


@pytest.fixture
def raw_copy(tmp_path) -> Path:
    copy = tmp_path / "raw"
    shutil.copytree(RAW, copy)
    return copy


def run_path(raw: Path, kind: str) -> Path:
    """The first run file of a kind in the copied campaign."""
    folder = campaign_dir(raw)
    schedule = json.loads((folder / "schedule.json").read_text())
    for entry in schedule:
        path = folder / "runs" / f"{entry['run_id']}{codec.SUFFIX}"
        if entry["kind"] == kind and path.exists():
            return path
    raise AssertionError(f"no {kind} run in the fixture")


def without(meta: dict, *fields) -> dict:
    """A run's meta ready to be written again (the codec adds its format keys), minus `fields`."""
    drop = {"format", "columns", "column_layout", "shared_columns", *fields}
    return {key: value for key, value in meta.items() if key not in drop}


def build_error(raw: Path, tmp_path: Path, capsys) -> str:
    code = main(["build", "--raw", str(raw), "--out", str(tmp_path / "out"), "--pages", str(PAGES)])
    error = capsys.readouterr().err
    assert code == 2, error
    assert error.count("\n") == 1, f"not one line: {error!r}"
    return error


# --- golden and byte-identical ---------------------------------------------------------------


def test_fixture_is_small_and_real():
    size = sum(len(content) for content in tree(RAW).values())
    assert size < 1_000_000
    info = json.loads((campaign_dir() / "campaign.json").read_text())
    assert info["profile"] in ("quick", "full")


def test_build_matches_the_golden_output(built):
    expected, actual = tree(GOLDEN), tree(built)
    assert sorted(actual) == sorted(expected), "files differ; see the module docstring"
    changed = [name for name in expected if expected[name] != actual[name]]
    assert not changed, (
        f"output changed: {changed}; if deliberate, run `python -m tests.support.golden`"
    )


def test_build_twice_is_byte_identical_and_writes_nothing_new(built, tmp_path):
    first = tree(built)
    again = build(built)
    assert again["written"] == []
    assert tree(built) == first
    build(tmp_path)
    assert tree(tmp_path) == first


def test_results_are_compact_and_versioned(built):
    text = (built / "assets" / "data" / "results.json").read_text()
    assert text.startswith('{"') and ", " not in text[:200]
    results = json.loads(text)
    assert results["schema_version"] == 1
    assert results["campaign"]["chosen"] == "newest"
    assert "Infinity" not in text and "NaN" not in text


def test_pages_rendered_and_plain_files_copied(built):
    index = (built / "index.md").read_text()
    assert "answers per second" in index and "{{" not in index
    notes = (built / "lesson" / "notes.md").read_text()
    assert notes == (PAGES / "lesson" / "notes.md").read_text()


# --- bad data -------------------------------------------------------------------------------------


def test_a_truncated_run_file_is_named(raw_copy, tmp_path, capsys):
    path = run_path(raw_copy, "part_b")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert path.name in build_error(raw_copy, tmp_path, capsys)


def test_a_corrupt_column_is_named(raw_copy, tmp_path, capsys):
    path = run_path(raw_copy, "part_a")
    meta, columns = codec.read_run(path)
    meta = without(meta)
    columns["call_ns"] = columns["call_ns"][:-3]  # a column shorter than its table
    codec.write_run(path, meta, columns)
    error = build_error(raw_copy, tmp_path, capsys)
    assert path.name in error and "unequal length" in error


@pytest.mark.parametrize(
    ("kind", "field"), [("part_b", "window_s"), ("saturation", "stats"), ("part_a", "run_index")]
)
def test_a_missing_field_is_named(raw_copy, tmp_path, capsys, kind, field):
    path = run_path(raw_copy, kind)
    meta, columns = codec.read_run(path)
    meta = without(meta, field)
    codec.write_run(path, meta, columns)
    error = build_error(raw_copy, tmp_path, capsys)
    assert path.name in error and f"missing field '{field}" in error


def test_a_missing_column_is_named(raw_copy, tmp_path, capsys):
    path = run_path(raw_copy, "part_b")
    meta, columns = codec.read_run(path)
    meta = without(meta)
    columns.pop("latency_us")
    codec.write_run(path, meta, columns)
    error = build_error(raw_copy, tmp_path, capsys)
    assert path.name in error and "missing column 'latency_us'" in error


def test_the_command_exits_2_without_a_traceback(raw_copy, tmp_path, processes):
    path = run_path(raw_copy, "part_b")
    path.write_bytes(b"not a zip at all")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "build",
            "--raw",
            str(raw_copy),
            "--out",
            str(tmp_path / "out"),
            "--pages",
            str(PAGES),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and path.name in done.stderr


def test_attempt_files_with_a_gap_are_named(raw_copy, tmp_path, capsys):
    path = run_path(raw_copy, "part_b")
    shutil.copy(path, path.with_name(path.name.replace(codec.SUFFIX, f"@9{codec.SUFFIX}")))
    error = build_error(raw_copy, tmp_path, capsys)
    run_id = path.name.removesuffix(codec.SUFFIX)
    assert f"the attempts of {run_id} are [1" in error and "9]" in error


def test_a_second_attempt_without_a_slow_run_rule_is_named(raw_copy, tmp_path, capsys):
    edit_description(raw_copy, lambda d: d["rules"].pop("slow_runs", None))
    path = run_path(raw_copy, "part_c")
    run_id = path.name.removesuffix(codec.SUFFIX)
    later = len(list(path.parent.glob(f"{run_id}@*"))) + 2
    shutil.copy(path, path.with_name(f"{run_id}@{later}{codec.SUFFIX}"))
    error = build_error(raw_copy, tmp_path, capsys)
    assert f"{run_id}@2{codec.SUFFIX}" in error and "no slow-run rule" in error


def test_missing_runs_are_listed_never_filled_in(raw_copy, tmp_path):
    path = run_path(raw_copy, "part_b")
    meta, _ = codec.read_run(path)
    path.unlink()
    results = results_of_build(raw_copy, tmp_path)
    missing = {m["run_id"]: m for m in results["missing"]}
    assert meta["run_id"] in missing
    record = missing[meta["run_id"]]
    assert record["round"] == meta["round"] and record["kind"] == "part_b"
    rate = f"{meta['rate_multiple']:g}"
    cell = results["part_b"]["settings"][record["setting"]]["rates"][rate]
    assert meta["round"] in cell["missing_rounds"] and meta["round"] not in cell["rounds"]
    assert cell["keeps_up"] is False
    assert len(cell["by_round"]["p50_ms"]) == len(cell["rounds"])
    assert results["campaign"]["complete"] is False


def results_of_build(raw: Path, tmp_path: Path) -> dict:
    build(tmp_path / "out", raw)
    return results_of(tmp_path / "out")


# --- the campaign's own description ------------------------------------------------------


def description_file(raw: Path) -> Path:
    """Where the copied campaign describes itself: its sidecar (campaigns measured before
    campaign.json carried the description), else campaign.json."""
    sidecar = campaign_dir(raw) / SIDECAR
    return sidecar if sidecar.exists() else campaign_dir(raw) / "campaign.json"


def edit_description(raw: Path, change) -> None:
    path = description_file(raw)
    described = json.loads(path.read_text())
    change(described)
    path.write_text(json.dumps(described, ensure_ascii=False))


DESCRIPTION_KEYS = ("rules", "guesses", "names", "description_version")


def test_a_description_in_campaign_json_or_in_a_sidecar_builds_the_same(raw_copy, tmp_path):
    info_path = campaign_dir(raw_copy) / "campaign.json"
    info, sidecar = json.loads(info_path.read_text()), campaign_dir(raw_copy) / SIDECAR
    if sidecar.exists():  # move it into campaign.json
        described = json.loads(sidecar.read_text())
        described.pop("rebuilt_from")
        info_path.write_text(json.dumps({**info, **described}))
        sidecar.unlink()
    else:  # move it out, into a sidecar
        described = {key: info.pop(key) for key in DESCRIPTION_KEYS}
        sidecar.write_text(json.dumps({**described, "rebuilt_from": "a test"}))
        info_path.write_text(json.dumps(info))
    build(tmp_path / "out", raw_copy)
    assert tree(tmp_path / "out") == tree(GOLDEN)


def test_a_campaign_without_a_description_is_named(raw_copy, tmp_path, capsys):
    (campaign_dir(raw_copy) / SIDECAR).unlink(missing_ok=True)
    edit_description(raw_copy, lambda info: [info.pop(key, None) for key in DESCRIPTION_KEYS])
    error = build_error(raw_copy, tmp_path, capsys)
    assert "campaign.json: missing field 'rules'" in error and SIDECAR in error


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["rules"]["told_apart"].update(rule="most_rounds"), "rules.told_apart.rule"),
        (lambda d: d["names"].pop("quiet_rate"), "names.quiet_rate"),
        (lambda d: d["names"].update(busy_rate="1.60"), "names.busy_rate"),
        (lambda d: d["rules"].update(keeps_up_share=95), "rules.keeps_up_share"),
        (lambda d: d["guesses"]["items"][0].pop("low"), "guesses.items[0].low"),
        (lambda d: d["guesses"]["items"][2].update(compare="~"), "guesses.items[2].compare"),
        (lambda d: d.update(description_version=2), "description_version"),
    ],
)
def test_a_bad_description_is_named(raw_copy, tmp_path, capsys, change, named):
    edit_description(raw_copy, change)
    error = build_error(raw_copy, tmp_path, capsys)
    assert description_file(raw_copy).name in error and f"'{named}'" in error


def test_the_verdicts_follow_the_campaigns_rules_and_guesses(raw_copy, tmp_path):
    """Nothing of the lab's code of today judges a campaign: change its description and the
    verdicts move with it."""
    golden = results_of(GOLDEN)

    def change(described):
        described["rules"]["keeps_up_share"] = 0.25  # a far laxer rule than the lab's
        described["guesses"]["items"] = described["guesses"]["items"][:1]
        described["guesses"]["items"][0].update(low=1, high=2, text="A guess written later.")

    edit_description(raw_copy, change)
    results = results_of_build(raw_copy, tmp_path)
    assert results["design"]["keeps_up_share"] == 0.25
    assert "throughput >= 0.25 x offered_rate" in results["methods"]["keeps_up"]

    def kept_rounds(found: dict) -> int:
        settings = found["part_b"]["settings"].values()
        return sum(c["keeps_up_rounds"] for s in settings for c in s["rates"].values())

    assert kept_rounds(results) > kept_rounds(golden)
    (guess,) = results["guesses"]
    assert guess["text"] == "A guess written later." and guess["verdict"] == "wrong"


# --- templates, campaign choice, filters, charts -----------------------------------------


def test_a_template_naming_a_missing_value_fails_naming_both(tmp_path):
    (tmp_path / "pages" / "part").mkdir(parents=True)
    template = tmp_path / "pages" / "part" / "page.md.j2"
    template.write_text("S is {{ fig.S|num }}\nand {{ fig.no_such_figure|ms }}\n")
    with pytest.raises(pages.PageError) as caught:
        build(tmp_path / "out", pages_dir=tmp_path / "pages")
    message = str(caught.value)
    assert "part/page.md.j2:2" in message and "no_such_figure" in message


def test_reference_facts_are_quoted_as_written_and_unknown_ones_named():
    ref = pages.reference_lookup(SITE.reference)
    assert ref("saturation.s_per_s") == "1,098.4"
    assert ref("quiet_side.b32_w0_p99_ms") == "2.50"  # a string keeps its trailing zero
    assert ref("part_a.bits_equal_every_size") == "yes"
    with pytest.raises(pages.PageError, match="no 'saturation.no_such_fact'"):
        ref("saturation.no_such_fact")
    with pytest.raises(pages.PageError, match="not a single value"):
        ref("part_a.per_call_us")


def test_a_page_naming_an_unknown_fact_or_chart_fails_naming_both(tmp_path):
    (tmp_path / "pages").mkdir()
    page = tmp_path / "pages" / "page.md.j2"
    page.write_text('S was {{ ref("saturation.s_per_s") }}.\n{{ ref("no.such") }}\n')
    with pytest.raises(pages.PageError) as caught:
        build_site(RAW, None, tmp_path / "out", Sources(tmp_path / "pages", (), SITE.reference))
    assert "page.md.j2:2" in str(caught.value) and "no.such" in str(caught.value)
    page.write_text('<div class="chart" data-chart="no_such_chart"></div>\n')
    with pytest.raises(pages.PageError) as caught:
        build(tmp_path / "out", pages_dir=tmp_path / "pages")
    assert "page.md" in str(caught.value) and "no_such_chart" in str(caught.value)


def test_the_site_build_copies_the_static_files_and_drops_stale_pages(tmp_path):
    out = tmp_path / "out"
    (out / "gone.md").parent.mkdir(parents=True)
    (out / "gone.md").write_text("a page an earlier build wrote\n")
    build_site(RAW, None, out, Sources(PAGES, SITE.static))
    assert not (out / "gone.md").exists()
    for source_dir, target in SITE.static:
        for source in source_dir.glob("*.*"):
            if source.suffix in (".js", ".mjs", ".css", ".py"):
                assert (out / target / source.name).read_bytes() == source.read_bytes()


def test_the_newest_complete_full_campaign_is_chosen(tmp_path):
    source = campaign_dir()
    for name, profile, started, complete in (
        ("a-full", "full", "2026-01-01", True),
        ("a2-full3", "full3", "2026-01-15", True),  # the third full design is full too
        ("b-full-partial", "full", "2026-02-01", False),
        ("c-quick", "quick", "2026-03-01", False),
    ):
        folder = tmp_path / name
        shutil.copytree(source, folder)
        info = json.loads((folder / "campaign.json").read_text())
        info.update(profile=profile, started_at=started)
        (folder / "campaign.json").write_text(json.dumps(info))
        if complete:  # drop the schedule entries that have no file
            schedule = json.loads((folder / "schedule.json").read_text())
            present = [
                e for e in schedule if (folder / "runs" / f"{e['run_id']}{codec.SUFFIX}").exists()
            ]
            (folder / "schedule.json").write_text(json.dumps(present))
    chosen = load.choose_campaign(tmp_path)
    assert (chosen.name, chosen.chosen) == ("a2-full3", "newest complete full")
    assert [c.name for c in load.other_full_campaigns(tmp_path, "a2-full3")] == ["a-full"]
    shutil.rmtree(tmp_path / "a2-full3")
    chosen = load.choose_campaign(tmp_path)
    assert (chosen.name, chosen.chosen) == ("a-full", "newest complete full")
    shutil.rmtree(tmp_path / "a-full")
    chosen = load.choose_campaign(tmp_path)
    assert (chosen.name, chosen.chosen) == ("c-quick", "newest")  # none is complete
    shutil.copytree(source, tmp_path / "d-quick-done")
    schedule_path = tmp_path / "d-quick-done" / "schedule.json"
    schedule = json.loads(schedule_path.read_text())
    runs = tmp_path / "d-quick-done" / "runs"
    done = [e for e in schedule if (runs / f"{e['run_id']}{codec.SUFFIX}").exists()]
    schedule_path.write_text(json.dumps(done))
    info_path = tmp_path / "d-quick-done" / "campaign.json"
    info = json.loads(info_path.read_text())
    info["started_at"] = "2025-12-01"  # older than the running ones
    info_path.write_text(json.dumps(info))
    chosen = load.choose_campaign(tmp_path)
    assert (chosen.name, chosen.chosen) == ("d-quick-done", "newest complete")
    assert load.choose_campaign(tmp_path, "b-full-partial").chosen == "asked"
    with pytest.raises(load.DataError, match="no such campaign"):
        load.choose_campaign(tmp_path, "nope")


@pytest.mark.parametrize(
    ("name", "value", "args", "text"),
    [
        ("ms", 1.18, (), "1.18 ms"),
        ("ms", 291.4, (), "291 ms"),
        ("ms", 5501.0, (), "5.50 s"),
        ("ms", None, (), "never answered"),
        ("us", 501.7, (), "502 µs"),
        ("us", 2628.8, (), "2,629 µs"),
        ("num", 1098.4, (1,), "1,098.4"),
        ("num", 26851, (), "26,851"),
        ("pct", 0.175, (), "17.5%"),
        ("times", 5.24, (), "5.24×"),
        ("rate", "0.5", (), "0.5 × S"),
        ("yesno", True, (), "yes"),
    ],
)
def test_filters(name, value, args, text):
    assert pages.FILTERS[name](value, *args) == text


def test_chart_specs_have_units_and_mark_what_did_not_keep_up(built):
    specs = {p.stem: json.loads(p.read_text()) for p in (built / "assets" / "charts").glob("*")}
    assert {"p99_vs_rate", "part_a_time_vs_size", "throughput_vs_rate"} <= set(specs)
    for name, spec in specs.items():
        assert set(spec) == {"data", "layout", "site"}, name
        for axis in ("xaxis", "yaxis"):
            title = spec["layout"][axis]["title"]["text"]
            categories = spec["layout"][axis].get("type") == "category"
            assert categories or "(" in title, (name, title)  # numbers carry their unit
    p99 = specs["p99_vs_rate"]
    assert p99["layout"]["yaxis"]["type"] == "log"
    results = results_of(built)
    failed = [
        c
        for s in results["part_b"]["settings"].values()
        for c in s["rates"].values()
        if c["rounds"] and not c["keeps_up"]  # a cell with no run at all is not drawn
    ]
    marks = [s for trace in p99["data"] for s in trace["marker"]["symbol"] if s == charts.NOT_KEPT]
    assert len(marks) == len(failed)
    assert all("rounds" in text for trace in p99["data"] for text in trace["text"])


def test_never_answered_latency_is_marked_above_the_finite_points():
    traces = [
        {"name": "none", "x": [0.5, 2.0], "y": [3.0, None]},
        {"name": "B=32 W=0", "x": [0.5, 2.0], "y": [1.0, 8.0]},
    ]
    (mark,) = charts.never_answered_marks(traces, "p99")
    assert mark["x"] == [2.0] and mark["y"] == [16.0]
    assert "never answered" in mark["text"][0] and "none at 2 × S" in mark["text"][0]
    assert charts.never_answered_marks(traces[1:], "p99") == []


def cell_record(kept: list, missing: int = 0) -> dict:
    """A results cell (for figures) and its report-side twin, from per-round keeps-up flags."""
    rounds = list(range(len(kept)))
    return {
        "rounds": rounds,
        "missing_rounds": list(range(len(kept), len(kept) + missing)),
        "keeps_up": all(kept) and bool(kept) and not missing,
        "keeps_up_rounds": sum(kept),
    }


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ({"0.5": ([True, True], 0), "1": ([True, True], 0)}, 1.0),  # kept up everywhere
        ({"0.5": ([True, True], 0), "1": ([True, False], 0)}, 0.5),  # one round failed at 1
        ({"0.5": ([False, True], 0), "1": ([True, True], 0)}, 0.0),  # failed at the lowest
        ({"0.5": ([True, True], 0), "1": ([True], 1)}, None),  # unknown: a round missing
        ({"0.5": ([True, True], 0), "1": ([False], 1)}, 0.5),  # a measured round failed
        ({"0.5": ([], 2)}, None),  # nothing measured yet
    ],
)
def test_highest_rate_kept_up_never_guesses_from_missing_rounds(cells, expected):
    setting = {"rates": {rate: cell_record(*spec) for rate, spec in cells.items()}}
    try:
        found = figures.highest_kept_up(setting)
    except figures.Absent:
        found = None
    assert found == expected
    twin = {
        rate: {
            "scheduled": list(range(len(kept) + missing)),
            "rounds": {r: {"keeps_up": k} for r, k in enumerate(kept)},
        }
        for rate, (kept, missing) in cells.items()
    }
    assert report_figures.kept_up_to(twin) == expected
