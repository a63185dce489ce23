"""The pictures made from data: which real requests they show, drawn as SVG, checked again.

On the committed full campaign (its quiet-rate Part B runs, read as they are): the build's
picks (generator/arithmetic/pictures.py) and the report's own (generator/report/pictures.py) agree
leaf by leaf; an altered number is named; batches are grouped from the requests only when
the grouping equals the batcher's own list; the chosen stretch is typical by the written
rule; the clump check counts arrivals the slow way too. The drawings print the published
values, are titled and described, take colour from classes only, and place things in
percentages so one SVG reads at any width. The lab's marked code regions are found.

Run: `.venv/bin/pytest tests/test_pictures.py`
"""

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from generator.arithmetic import pictures, results, stats
from generator.charts import drawings
from generator.pages import sources
from generator.reading import load
from generator.report import pictures as report_pictures
from generator.report import runs as report_runs
from generator.report.checker import Checker, Disagreement
from lab.rawformat.names import NONE, rate_key, record_name

ROOT = Path(__file__).resolve().parent.parent
FULL = sorted(
    p.parent
    for p in (ROOT / "data" / "raw").glob("*/campaign.json")
    if json.loads(p.read_text())["profile"] in load.FULL_PROFILES
)
pytestmark = pytest.mark.skipif(not FULL, reason="no committed full campaign in data/raw/")


@pytest.fixture(scope="module")
def campaign():
    return load.choose_campaign(FULL[-1].parent, FULL[-1].name)


@pytest.fixture(scope="module")
def published(campaign) -> dict:
    """results.json's `pictures` (and what the drawings read) as the build makes it."""
    design = results.design_section(campaign)
    built = {"design": design, "part_a": results.part_a_section(campaign, [])}
    built["campaign"] = results.campaign_section(campaign)
    built["part_b"] = results.part_b_section(campaign, design, [])
    built["part_c"] = results.part_c_section(campaign, [])
    built["pictures"] = pictures.build(campaign, design, campaign.description.quiet_rate)
    return results.rounded(built)


@pytest.fixture(scope="module")
def raw_data(campaign) -> dict:
    """The report's view of the quiet-rate Part B runs (what report_pictures reads)."""
    quiet = campaign.description.quiet_rate
    runs = {}
    for entry in campaign.scheduled("part_b"):
        path = campaign.files.get(entry["run_id"])
        if path is not None and rate_key(entry["rate_multiple"]) == quiet:
            runs[entry["run_id"]] = (entry, *report_runs.read_run_file(path))
    return {"runs": runs, "description": campaign.description, "info": campaign.info}


def test_the_report_picks_the_same_requests_and_numbers(published, raw_data):
    pics = published["pictures"]
    assert {"timeline", "clump", "clump_check"} <= set(pics)
    checker = Checker()
    report_pictures.check(raw_data, published, checker, lambda line: None)
    assert checker.count > 50  # every list of arrivals, answers, batches and calls, and more


@pytest.mark.parametrize(
    "path, change",
    [
        (("timeline", "lanes", "B=32 W=2", "calls_ms", 0, 0), lambda v: v + 0.05),
        (("timeline", "arrivals_ms", 3), lambda v: v * 1.01),
        (("timeline", "lanes", "B=32 W=0", "batch_sizes"), lambda v: v[::-1]),
        (("clump", "chosen"), lambda v: v + 1),
        (("clump_check", "slowest_mean", 0), lambda v: v * 1.01),
        (("timeline", "typical_share"), lambda v: 0.5),
    ],
)
def test_an_altered_picture_number_is_named(published, raw_data, path, change):
    altered = json.loads(json.dumps(published))
    container = altered["pictures"]
    for key in path[:-1]:
        container = container[key]
    container[path[-1]] = change(container[path[-1]])
    if container[path[-1]] == published_at(published["pictures"], path):
        pytest.skip("the change left the value as it was")
    with pytest.raises(Disagreement, match=re.escape("pictures/" + "/".join(map(str, path[:2])))):
        report_pictures.check(raw_data, altered, Checker(), lambda line: None)


def published_at(value, path):
    for key in path:
        value = value[key]
    return value


def test_the_timeline_shows_whole_batches_of_a_typical_stretch(published, campaign):
    line = published["pictures"]["timeline"]
    assert line["settings"] == [pictures.W0, pictures.W2]
    for lane in line["lanes"].values():
        assert sum(lane["batch_sizes"]) == line["requests"] == len(lane["answers_ms"])
        assert len(lane["calls_ms"]) == lane["batches"] == len(lane["first_waits_ms"])
        for (start, end), answered in zip(lane["calls_ms"], batch_answers(lane), strict=True):
            assert start < end <= min(answered) + 1e-3  # the first score back ends the call
    w2 = line["lanes"][pictures.W2]
    assert min(w2["first_waits_ms"]) >= 2.0 * (1 - 1 / 256)  # a timed wait is a floor (log8)
    found = pictures.run_files(campaign, published["pictures"]["rate"])
    whole = {}
    for name in line["settings"]:
        _, columns = load.read_run(found[(name, published["pictures"]["round"])], "part_b")
        whole[name] = stats.percentile(
            stats.latencies_us(columns["latency_us"], columns["status"]), 50
        )
        stretch = line["lanes"][name]["latency_ms_p50"] * 1000
        assert abs(stretch - whole[name]) <= line["typical_share"] * whole[name] * 1.001


def batch_answers(lane: dict):
    index = 0
    for size in lane["batch_sizes"]:
        yield lane["answers_ms"][index : index + size]
        index += size


def columns_of(per_request: list, batches: list) -> dict:
    return {
        "batch_size": np.array(per_request, dtype=np.uint16),
        "batches_size": np.array(batches, dtype=np.uint16),
    }


@pytest.mark.parametrize(
    "per_request, batches, expected",
    [
        ([1, 2, 2, 3, 3, 3, 2, 2], [1, 2, 3, 2], [1, 2, 3, 2]),
        ([2, 2, 2, 2], [2, 2], [2, 2]),
        ([1, 2, 2, 3, 3, 3, 2, 2], [1, 2, 3, 1, 1], None),  # the batcher's list disagrees
        ([1, 2, 1, 2], [1, 2, 1, 2], None),  # a batch of two split by another request
        ([1, 0, 1], [1, 1, 1], None),  # a request not scored
        ([3, 3], [3], None),  # a batch cut short
    ],
)
def test_batches_are_grouped_only_when_they_match_the_batchers_list(per_request, batches, expected):
    columns = columns_of(per_request, batches)
    assert pictures.batch_sizes(columns) == expected
    assert report_pictures.groups(columns) == expected  # the report's own reading agrees


def test_the_clump_check_counts_arrivals_the_slow_way_too():
    arrival = np.array([0, 100, 2_900, 3_000, 3_001, 9_000, 9_000], dtype=np.int64)
    slow_way = [sum(1 for j in range(i) if arrival[i] - arrival[j] < 3_000) for i in range(7)]
    assert pictures.arrivals_before(arrival, 3_000).tolist() == slow_way == [0, 1, 2, 2, 3, 0, 1]
    assert report_pictures.company(arrival.tolist()) == slow_way


def test_the_clump_is_the_slowest_one_percent_with_the_most_company(published, campaign):
    clump = published["pictures"]["clump"]
    check = published["pictures"]["clump_check"]
    mean = check["slowest_mean"][check["rounds"].index(clump["round"])]
    assert clump["before"] >= mean  # the most company among its round's slowest 1%
    assert clump["arrivals_ms"][clump["chosen"]] == 0
    assert sum(1 for a in clump["arrivals_ms"] if -clump["window_ms"] < a < 0) <= clump["before"]
    assert clump["chosen_ms"] == clump["answers_ms"][NONE][clump["chosen"]]
    assert clump["inside_ms"] < clump["chosen_ms"]


# --- the drawings --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def drawn(published) -> dict:
    return drawings.all_pictures(published)


def test_every_picture_is_drawn_titled_described_and_styled_by_classes(drawn):
    assert set(drawn) == set(drawings.DRAWINGS)
    for name, svg in drawn.items():
        assert svg.startswith("<svg") and svg.endswith("</svg>"), name
        assert f'aria-labelledby="picture-{name}-title picture-{name}-desc"' in svg
        assert re.search(r"<desc[^>]*>[^<]{40,}</desc>", svg), name
        assert "viewBox" not in svg and 'width="100%"' in svg  # drawn for any width
        assert not re.search(r"#[0-9a-fA-F]{3,6}\b|rgb\(", svg), name  # colours: CSS classes
        assert "\n\n" not in svg  # one HTML block in Markdown
        for x in re.findall(r' (?:x|x1|x2|cx)="([^"]+)"', svg):
            assert x.endswith("%") and -1 <= float(x[:-1]) <= 101, (name, x)


def texts(svg: str) -> str:
    return html.unescape(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg)))


def test_the_drawings_print_the_published_values(published, drawn):
    from generator.pages.render import ms, us

    line = published["pictures"]["timeline"]
    for name in line["settings"]:
        lane = line["lanes"][name]
        said = texts(drawn["timeline"])
        assert f"{lane['batches']} batches for {line['requests']} requests" in said
        assert ms(lane["latency_ms_p50"]) in said
    sizes = published["part_a"]["by_size"]
    copier = texts(drawn["photocopier"])
    assert us(sizes["1"]["per_call_us"]) in copier and us(sizes["32"]["per_call_us"]) in copier
    check = published["pictures"]["clump_check"]
    for value in check["all_mean"] + check["slowest_mean"]:
        assert f"{value:,.2f}" in texts(drawn["clump_check"])
    example = published["part_c"]["example"]
    for record in json.loads(example["request_body"])["records"]:
        assert f"customer_id {json.dumps(record['customer_id'])}" in texts(drawn["slots"])


def test_a_picture_without_its_data_is_not_drawn(published):
    for missing in ("timeline", "clump", "clump_check"):
        partial = json.loads(json.dumps(published))
        del partial["pictures"][missing]
        assert missing not in drawings.all_pictures(partial)
    assert "slots" not in drawings.all_pictures({**published, "part_c": {}})


def test_the_standalone_files_carry_their_own_colours(published):
    for name, svg in drawings.all_pictures(published, standalone=True).items():
        assert "<style>" in svg and "var(--md-default-fg-color" in svg, name


# --- the lab's code, shown from the files the tests run -------------------------------------


@pytest.mark.parametrize(
    "name, path, words",
    [
        ("predict", "lab/service/app.py", "async def predict("),
        ("timer", "lab/service/batcher.py", "self._arm_timer(deadline)"),  # early: armed again
        ("slots", "lab/service/batch_route.py", "def empty_slots("),
    ],
)
def test_the_marked_code_regions_are_the_lab_files(name, path, words):
    found = sources.region(name)
    assert found["path"] == path and words in found["code"] and "--8<--" not in found["code"]
    lines = (ROOT / path).read_text().splitlines()
    first = found["code"].splitlines()[0].strip()
    assert lines[found["line"] - 1].strip() == first  # the page's line numbers are the file's


def test_an_unknown_region_is_named(tmp_path):
    with pytest.raises(sources.SourceError, match="'nowhere': marked in no file under lab/"):
        sources.region("nowhere")
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "a.py").write_text("# --8<-- [start:half]\nx = 1\n")
    with pytest.raises(sources.SourceError, match=r"no '# --8<-- \[end:half\]' line"):
        sources.region("half", tmp_path)


def test_the_unfilled_first_wait_leaves_full_batches_out():
    columns = {
        "batches_size": np.array([8, 3, 8, 5], dtype=np.uint16),
        "batches_first_wait_us": np.array([4_000, 10_300, 6_000, 10_500], dtype=np.uint32),
    }
    metrics = stats.queue_metrics(columns, max_batch=8)
    assert metrics["full_batch_share"] == 0.5
    assert metrics["first_wait_unfilled_us_p50"] == 10_300  # rank 1 of [10.3, 10.5] ms
    assert metrics["first_wait_us_p50"] == 6_000  # over all batches: less than W = 10 ms
    mine = report_runs.timer_waits([4_000, 10_300, 6_000, 10_500], [8, 3, 8, 5], {"max_batch": 8})
    assert mine == {"full_batch_share": 0.5, "first_wait_unfilled_us_p50": 10_300}
    assert "full_batch_share" not in stats.queue_metrics(columns)  # no cap, no claim


def test_names_used_by_the_pictures_are_the_shared_ones():
    assert record_name({"batcher": "queue", "max_batch": 32, "max_wait_ms": 2.0}) == pictures.W2
    assert report_pictures.W0 == pictures.W0 and report_pictures.W2 == pictures.W2
    assert not math.isnan(pictures.TYPICAL_SHARE)
    assert (report_pictures.STRETCH_US, report_pictures.TYPICAL_SHARE) == (
        pictures.TIMELINE_US,
        pictures.TYPICAL_SHARE,
    )
    assert report_pictures.BEFORE_US == pictures.CLUMP_US
    assert (report_pictures.SHOWN_BEFORE_US, report_pictures.SHOWN_AFTER_US) == (
        pictures.CLUMP_SHOWN_US
    )
