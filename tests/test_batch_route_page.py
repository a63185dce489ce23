"""The batch-route lesson: the page shows the exchange the lab recorded, and it is aligned;
the alignment check can fail; the explorer's batch_route_lookup prints the loop first, then
the chunk, with results.json's numbers, and names the measured chunks for a bad one.

Built from the committed fixture campaign (cut from real raw data) with the real page
template. Run: `.venv/bin/pytest tests/test_batch_route_page.py`
"""

import json
import re
from pathlib import Path

import pytest

from generator.arithmetic import stats
from generator.build import SITE, build_site
from generator.report import checks as report
from lab.rawformat import codec
from tests.support.modules import load_explorer

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "tests" / "fixtures" / "raw"
PAGES = ROOT / "site_src" / "pages"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(RAW, None, out, SITE)
    return out


@pytest.fixture(scope="module")
def results(built) -> dict:
    return json.loads((built / "assets" / "data" / "results.json").read_text())


def recorded_exchange(results: dict) -> dict:
    """The exchange as the lab wrote it into the raw file the page names."""
    (campaign,) = [p for p in RAW.iterdir() if p.is_dir()]
    run_id = results["part_c"]["example"]["run_id"]
    meta, _ = codec.read_run(campaign / "runs" / f"{run_id}{codec.SUFFIX}")
    return meta["example_exchange"]


def code_blocks(markdown: str) -> list[str]:
    return re.findall(r"```json\n(.*?)\n```", markdown, flags=re.S)


# --- the page -------------------------------------------------------------------------------


def test_the_page_shows_the_recorded_exchange_byte_for_byte(built, results):
    page = (built / "batch-route.md").read_text()
    recorded = recorded_exchange(results)
    assert code_blocks(page) == [recorded["request_body"], recorded["response_body"]]


def test_the_shown_exchange_is_aligned(built, results):
    recorded = recorded_exchange(results)
    sent = json.loads(recorded["request_body"])["records"]
    got = json.loads(recorded["response_body"])["predictions"]
    assert recorded["status"] == 200 and len(sent) == len(got)
    for record, slot, kind in zip(sent, got, recorded["record_kinds"], strict=True):
        assert slot["customer_id"] == record["customer_id"]
        assert (slot["error"] is None) == (kind == "valid")
        assert (slot["probability"] is None) == (kind != "valid")
    assert results["part_c"]["example"]["aligned"] is True
    page = (built / "batch-route.md").read_text()
    assert "aligned, **yes**" in page
    for index, slot in enumerate(got):  # the slot table: each slot in its own row
        echoed = json.dumps(slot["customer_id"])
        assert f"| {index} | `{json.dumps(sent[index]['customer_id'])}` |" in page
        assert f"| `{echoed}` |" in page


def swapped(body: str) -> str:
    answer = json.loads(body)
    answer["predictions"][0], answer["predictions"][-1] = (
        answer["predictions"][-1],
        answer["predictions"][0],
    )
    return json.dumps(answer)


def dropped_error(body: str) -> str:
    answer = json.loads(body)
    answer["predictions"] = [s for s in answer["predictions"] if s["error"] is None]
    return json.dumps(answer)


@pytest.mark.parametrize("spoil", [swapped, dropped_error])
def test_a_misaligned_exchange_is_caught_by_build_and_report(results, spoil):
    recorded = dict(recorded_exchange(results))
    recorded["response_body"] = spoil(recorded["response_body"])
    kinds = list(recorded["record_kinds"])
    assert not stats.exchange_aligned(
        recorded["request_body"], recorded["response_body"], 200, kinds
    )
    assert not report.own_aligned(recorded)


def test_no_number_on_the_page_is_typed_in_the_template():
    template = (PAGES / "batch-route.md.j2").read_text()
    prose = re.sub(r"\{[{%#].*?[}%#]\}", "", template, flags=re.S)
    prose = re.sub(r"`[^`]*`", "", prose)  # code names such as /predict_batch
    assert not re.findall(r"(?<![\w/])\d[\d,.]*\s*(?:µs|ms|%|×)", prose)


# --- the explorer ----------------------------------------------------------------------------


def explorer():
    return load_explorer()


def chunk_keys(results: dict) -> list[str]:
    return [key for key in results["part_c"]["methods"] if key != "loop"]


def test_every_measured_chunk_prints_the_loop_first_then_the_chunk(results):
    box = explorer()
    by_method = results["part_c"]["by_method"]
    for key in chunk_keys(results):
        text = box.batch_route_lookup(results, int(key))
        loop_at, chunk_at = text.index("loop of /predict"), text.index("chunks of")
        assert loop_at < chunk_at
        loop_part, chunk_part = text[loop_at:chunk_at], text[chunk_at:]
        assert box.plain(by_method["loop"]["per_record_us"]) + " µs" in loop_part
        assert box.plain(by_method["loop"]["wall_ms"]) + " ms" in loop_part
        entry = by_method[key]
        assert box.plain(entry["per_record_us"]) + " µs" in chunk_part
        assert box.plain(entry["wall_ms"]) + " ms" in chunk_part
        assert box.plain(entry["speedup"]) + "× the loop" in chunk_part
        expected = "same as the loop" if entry["mismatches"] == 0 else "DIFFERENT"
        assert expected in chunk_part


@pytest.mark.parametrize("bad", [7, "abc", 0.5, -10])
def test_an_unmeasured_chunk_names_the_measured_ones(results, bad):
    text = explorer().batch_route_lookup(results, bad)
    assert "was not measured" in text
    for key in chunk_keys(results):
        assert key in text
    assert "<" not in text  # plain text, never HTML


def test_a_campaign_without_part_c_says_so(results):
    without = {k: v for k, v in results.items() if k != "part_c"}
    assert "no batch-route" in explorer().batch_route_lookup(without, 1000)
