"""Heatmaps mark the cells where a side did not keep up: `pytest tests/test_heatmaps.py`.

A cell where one setting (or campaign) fell behind holds a queue that grew all run, so its
difference or ratio depends on the run's length (−958 ms, 0.00357×): it is marked "fell
behind", hatched, and not coloured as lower or higher (issue 34 item 6). Part B's paired
heatmap is checked on the site's pages rendered from the committed fixture, under the
fixture's own keeps-up and with a side forced behind; the campaigns page's ratio heatmaps on
the built site against comparison.json.
"""

import copy
import json
import re

from tests.support.pages import fixture_results, render_pages

CELL = re.compile(r'<td class="([^"]*)"(?: title="([^"]*)")?>([^<]*)</td>')


def paired_rows(page: str) -> list[tuple[str, str, list]]:
    """(group heading, row label, [(class, title, text)]) of Part B's paired heatmap."""
    table = page[page.index('<table class="heatmap"') : page.index("</table>")]
    rows, heading = [], None
    for line in table.split("<tr>")[1:]:
        group = re.search(r'class="heatmap-group"[^>]*>([^<]*)<', line)
        if group:
            heading = group[1]
            continue
        label = re.search(r'<th scope="row">([^<]*)</th>', line)
        if label:
            rows.append((heading, label[1], CELL.findall(line)))
    return rows


def check_paired(results: dict) -> int:
    """Every cell of the paired heatmap marked by its sides' keeps-up; the number marked."""
    page = render_pages(results)["part-b.md"]
    settings, rates = results["part_b"]["settings"], results["design"]["rate_multiples"]
    marked = 0
    rows = paired_rows(page)
    assert rows
    for heading, label, cells in rows:
        cap, base = re.match(r"B=(\d+), each W minus (.+)$", heading).groups()
        name = f"B={cap} W={label}"
        assert len(cells) == len(rates)
        for key, (css, title, text) in zip(rates, cells, strict=True):
            if text == "not measured":
                continue
            behind = [s for s in (name, base) if not settings[s]["rates"][key]["keeps_up"]]
            if behind:
                marked += 1
                assert (css, text) == ("hm-behind", "fell behind"), (name, key, css, text)
                assert title.startswith(("both " if len(behind) == 2 else "") + behind[0])
            else:
                assert css != "hm-behind" and re.fullmatch(r"[+−]?[\d,.]+", text), (name, key)
    return marked


def test_the_paired_heatmap_marks_each_cell_a_side_fell_behind_in():
    results = fixture_results()
    check_paired(results)
    forced = copy.deepcopy(results)
    settings = forced["part_b"]["settings"]
    wait = next(n for n, s in settings.items() if s["max_wait_ms"] > 0)
    key = next(iter(settings[wait]["rates"]))
    settings[wait]["rates"][key]["keeps_up"] = False
    assert check_paired(forced) == check_paired(results) + 1
    assert '<span class="hm-behind">fell behind' in render_pages(forced)["part-b.md"]


def test_the_campaigns_ratio_heatmaps_mark_each_cell_a_campaign_fell_behind_in(shared_builds):
    page = (shared_builds.docs / "campaigns.md").read_text()
    comparison = json.loads(
        (shared_builds.docs / "assets" / "data" / "comparison.json").read_text()
    )
    maps = re.findall(r'<table class="heatmap".*?</table>', page, re.S)
    # Three maps (p50, p99, throughput) against each other campaign, newest first.
    assert len(maps) == 3 * len(comparison["against"])
    for index, other in enumerate(reversed(comparison["against"])):
        cells = other["cells"]
        behind = [c for c in cells if all(c["measured"]) and not all(c["keeps_up"])]
        assert behind, "the committed campaigns have cells that fell behind"
        for table in maps[3 * index : 3 * index + 3]:
            assert other["campaign"]["name"] in table
            shown = CELL.findall(table)
            assert sum(text == "fell behind" for _, _, text in shown) == len(behind)
            for css, _, text in shown:
                assert (css == "hm-behind") == (text == "fell behind")
                if text.endswith("×"):
                    assert css in ("hm-lower", "hm-higher", "hm-lower-told", "hm-higher-told", "")
