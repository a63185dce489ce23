"""Every answer checked to the bit, totalled (issue 14): the generator's `answer_check`,
`machinery` and the figures `answers_compared` / `answers_differing`, the report recounting
them with its own code, and the pages saying it, for the committed fixture campaign (whose
runs ran before the check existed) and for a copy of it whose Part B runs carry the check
the way today's open-loop client records it (only each run's meta.json changed).

Run: `.venv/bin/pytest tests/test_answer_check.py`
"""

import copy
import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.build import SITE, build_site
from generator.pages import render as pages
from generator.reading.description import read_description
from generator.report import checks as report
from lab.rawformat import codec
from tests.support.rawfiles import report_on_altered, rewrite_meta

FIXTURE = Path(__file__).resolve().parent / "fixtures"
RAW = FIXTURE / "raw"
# The site's own pages, without its static files or benchmarks (not what these tests check).
SOURCES = dataclasses.replace(SITE, static=(), bench=None, runtimes=None)
DIFFERING_FIRST = [3, 17]


def part_b_files(raw: Path) -> list[Path]:
    (folder,) = [p.parent for p in raw.glob("*/campaign.json")]
    schedule = json.loads((folder / "schedule.json").read_text())
    found = [folder / "runs" / f"{e['run_id']}{codec.SUFFIX}" for e in schedule
             if e["kind"] == "part_b"]  # fmt: skip
    return [path for path in found if path.exists()]


def add_check(path: Path, differing: int = 0) -> int:
    """Record the check as today's client does: every status-200 answer compared; returns
    how many were compared."""
    _, columns = codec.read_run(path)
    compared = int((columns["status"] == 200).sum())

    def change(meta):
        meta["client"].update(
            answers_compared=compared,
            answers_differing=differing,
            answers_differing_first=DIFFERING_FIRST[:differing],
            event_loop="none",
            answer_clock="kernel receive timestamp",
        )

    rewrite_meta(path, change)
    return compared


@pytest.fixture(scope="module")
def checked_raw(tmp_path_factory) -> tuple[Path, dict]:
    """A copy of the fixture whose Part B runs all carry the check; the last run found two
    answers that differ, made once for the module (tests only read it). Returns (raw folder,
    what was written)."""
    raw = tmp_path_factory.mktemp("checked") / "raw"
    shutil.copytree(RAW, raw)
    files = part_b_files(raw)
    compared = [add_check(path) for path in files[:-1]]
    compared.append(add_check(files[-1], differing=len(DIFFERING_FIRST)))
    written = {"runs": len(files), "compared": sum(compared), "last": files[-1]}
    return raw, written


def build(raw: Path, out: Path) -> dict:
    """results.json as the pages saw it (the simulator's table read in)."""
    build_site(raw, None, out, SOURCES)
    path = out / "assets" / "data" / "results.json"
    return report.with_table(json.loads(path.read_text()), path)


@pytest.fixture(scope="module")
def checked_build(checked_raw, tmp_path_factory) -> tuple[Path, dict]:
    """(the built folder, its results) of the checked copy, built once for the module; a
    test that alters the results alters a copy of its own (`copy.deepcopy`)."""
    raw, _ = checked_raw
    out = tmp_path_factory.mktemp("checked-out")
    return out, build(raw, out)


def rendered(results: dict, raw: Path) -> dict[str, str]:
    names = read_description(raw / results["campaign"]["name"]).names
    found = pages.page_outputs(results, SITE.pages, names, SITE.reference)
    return {name: content.decode() for name, content in found.items()}


def report_line(raw: Path, results: dict, tmp_path: Path, capsys) -> tuple[int, str]:
    code, out = report_on_altered(raw, results, tmp_path, capsys)
    return code, next((x for x in out.splitlines() if x.startswith("DISAGREES")), out[-400:])


# --- a campaign that ran before the check ---------------------------------------------------


def test_a_campaign_without_the_check_says_so_and_has_no_figures(tmp_path, capsys):
    results = build(RAW, tmp_path / "out")
    check = results["answer_check"]
    assert check["runs"] == len(part_b_files(RAW)) == check["runs_unchecked"] > 0
    assert check["runs_checked"] == check["answers_compared"] == 0
    assert "answers_compared" not in results["figures"]
    assert "answers_differing" not in results["figures"]
    assert results["machinery"]["kind"] == "first"
    assert results["machinery"]["event_loops"] == {"uvloop": check["runs"]}
    shown = rendered(results, RAW)
    for page in ("part-b.md", "lab.md"):
        assert "This campaign did not check its answers" in shown[page], page
        assert f"None of its {check['runs']} Part B runs" in shown[page], page
        assert "first machinery" in shown[page]
    assert "not checked (the campaign ran before the check existed)" in shown["guesses.md"]
    assert report.main(RAW, None, tmp_path / "out" / "assets" / "data" / "results.json") == 0
    assert "none of the" in capsys.readouterr().out


# --- a campaign whose runs carry the check ------------------------------------------------------


def test_the_answers_checked_are_totalled_and_the_differing_run_named(checked_raw, checked_build):
    raw, written = checked_raw
    _, results = checked_build
    check = results["answer_check"]
    assert check["runs"] == check["runs_checked"] == written["runs"]
    assert check["runs_unchecked"] == 0
    assert check["answers_compared"] == written["compared"] == check["answers_status_200"]
    assert check["answers_differing"] == len(DIFFERING_FIRST)
    (differing,) = check["runs_differing"]
    assert differing["run_id"] == written["last"].name[: -len(codec.SUFFIX)]
    assert differing["first"] == DIFFERING_FIRST
    assert results["figures"]["answers_compared"]["value"] == written["compared"]
    assert results["figures"]["answers_differing"]["value"] == len(DIFFERING_FIRST)
    assert results["machinery"]["kind"] == "second"
    assert results["machinery"]["answer_clocks"] == {"kernel receive timestamp": written["runs"]}


def test_the_pages_say_how_many_answers_were_compared_and_how_many_differed(
    checked_raw, checked_build
):
    raw, written = checked_raw
    _, results = checked_build
    shown = rendered(results, raw)
    said = f"{written['compared']:,} answers compared to the single-row score,\n2 differed"
    for page in ("part-b.md", "lab.md"):
        assert said in shown[page], page
        assert "second machinery" in shown[page]
    assert f"{written['compared']:,} compared, 2 differed" in shown["guesses.md"]
    name = results["answer_check"]["runs_differing"][0]["setting"]
    assert f"The answers that differed were in\n{name} at" in shown["part-b.md"]
    # The timer is introduced as today's code whichever machinery the campaign ran.
    assert "Below is **today's** timer" in shown["part-b.md"]


def test_the_report_recounts_the_answers_and_passes(checked_raw, checked_build, capsys):
    raw, written = checked_raw
    out, _ = checked_build
    assert report.main(raw, None, out / "assets" / "data" / "results.json") == 0
    out = capsys.readouterr().out
    assert f"{written['compared']:,} answers compared with the single-row score" in out
    assert "machinery: second" in out


# what is altered in results.json: (change, words the DISAGREES line must name)
ALTERED = {
    "answers compared": (
        lambda r: r["answer_check"].update(answers_compared=r["answer_check"]["answers_compared"]
                                           + 1),
        "answer_check/answers_compared",
    ),
    "the figure": (
        lambda r: r["figures"]["answers_differing"].update(value=0),
        "figure answers_differing",
    ),
    "a run that differed": (
        lambda r: r["answer_check"]["runs_differing"].clear(),
        "answer_check/runs_differing",
    ),
    "status-200 answers": (
        lambda r: r["answer_check"].update(answers_status_200=1),
        "answer_check/answers_status_200",
    ),
    "the machinery": (
        lambda r: r["machinery"].update(kind="first"),
        "machinery/kind",
    ),
    "an extra key": (
        lambda r: r["answer_check"].update(answers_all_equal=True),
        "answer_check (its keys)",
    ),
}  # fmt: skip


@pytest.mark.parametrize("what", sorted(ALTERED))
def test_the_report_fails_naming_an_altered_count(
    what, checked_raw, checked_build, tmp_path, capsys
):
    raw, _ = checked_raw
    results = copy.deepcopy(checked_build[1])
    change, named = ALTERED[what]
    change(results)
    code, line = report_line(raw, results, tmp_path, capsys)
    assert code == 1 and named in line, line


def test_a_campaign_partly_checked_counts_both_kinds_of_run(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    files = part_b_files(raw)
    compared = sum(add_check(path) for path in files[:2])
    results = build(raw, tmp_path / "out")
    check = results["answer_check"]
    assert (check["runs_checked"], check["runs_unchecked"]) == (2, len(files) - 2)
    assert check["answers_compared"] == compared
    assert results["machinery"]["kind"] == "mixed"
    shown = rendered(results, raw)["part-b.md"]
    assert f"{len(files) - 2} of the {len(files)} runs did not check their" in shown
    assert "did not all record the same machinery" in shown
    assert report.main(raw, None, tmp_path / "out" / "assets" / "data" / "results.json") == 0


def test_a_check_count_that_is_not_a_number_is_named(tmp_path, capsys):
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    path = part_b_files(raw)[0]
    rewrite_meta(path, lambda meta: meta["client"].update(answers_compared="all of them",
                                                         answers_differing=0))  # fmt: skip
    code = main(["build", "--raw", str(raw), "--out", str(tmp_path / "out"),
                 "--pages", str(FIXTURE / "pages")])  # fmt: skip
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1, error
    assert path.name in error and "client.answers_compared" in error
