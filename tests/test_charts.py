"""The charts' looks, stand-ins and data without a browser: `pytest tests/test_charts.py`.

Checks on the committed campaigns (built once per session) and the fixture campaign: every
colour stands out from both palettes' backgrounds; the main result has one colour per B and
one dash per W, no batching drawn heavier; log axes are ticked at whole numbers; each chart's
stand-in SVG is well-formed, draws the series the page shows first and the spec's tick labels;
the per-cell CSV holds every Part B cell with results.json's values; settings come in numeric
order (B=8 < B=32 < B=128, W=0 < 1 < 2 < 5 < 10) in the tables, charts and controls.
"""

import csv
import io
import json
import math
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from generator.arithmetic import cells_csv
from generator.build import build_site
from generator.charts import html as chart_html
from generator.charts import measured as charts
from generator.charts import standins
from generator.charts import style as chart_style
from generator.report import checks as report

FIXTURE_RAW = Path(__file__).resolve().parent / "fixtures" / "raw"


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture(scope="module")
def full(full_campaign_builds) -> tuple[dict, Path]:
    """The newest committed full campaign: its results and the folder its build wrote."""
    name = sorted(full_campaign_builds)[-1]
    path = full_campaign_builds[name]
    return report.with_table(json.loads(path.read_text()), path), path.parents[2]


@pytest.fixture(scope="module")
def specs(full) -> dict:
    results, _ = full
    return charts.all_charts(results, "0.5", "1.6")


def test_every_chart_colour_stands_out_in_both_palettes():
    for role, (light, dark) in chart_style.COLOURS.items():
        assert contrast(light, chart_style.BACKGROUNDS["light"]) >= 3, role
        assert contrast(dark, chart_style.BACKGROUNDS["dark"]) >= 3, role
    css = chart_style.chart_css()
    for role in chart_style.COLOURS:
        assert css.count(f"--chart-{role}:") == 2 and f".k-{role} " in css


def test_the_main_result_has_one_colour_per_b_and_one_dash_per_w(specs):
    traces = [t for t in specs["p99_vs_rate"]["data"] if "w" in t["meta"]]
    colour_of_b, dash_of_w = {}, {}
    for trace in traces:
        b, w = trace["meta"]["b"], trace["meta"]["w"]
        assert colour_of_b.setdefault(b, trace["line"]["color"]) == trace["line"]["color"]
        if b not in ("none", "1"):
            assert dash_of_w.setdefault(w, trace["line"]["dash"]) == trace["line"]["dash"]
    assert len(set(colour_of_b.values())) == len(colour_of_b)  # no two B share a colour
    assert len(set(dash_of_w.values())) == len(dash_of_w)
    widths = {t["name"]: t["line"]["width"] for t in traces}
    assert widths["none"] > max(w for n, w in widths.items() if n != "none")


def test_log_axes_are_ticked_at_whole_numbers_that_read_as_their_values(specs):
    for name, spec in specs.items():
        for key in ("xaxis", "yaxis"):
            axis = spec["layout"][key]
            if axis.get("type") != "log":
                continue
            low, high = axis["range"]
            for value, label in zip(axis["tickvals"], axis["ticktext"], strict=True):
                assert low <= math.log10(value) <= high, (name, value)
                assert float(label.replace(",", "")) == value, (name, label)


def series_shown(spec: dict, shown) -> int:
    return sum(1 for t in spec["data"] if t["type"] == "scatter" and (shown or (lambda _: 1))(t))


@pytest.mark.parametrize("variant", ["wide", "narrow"])
def test_each_stand_in_is_an_svg_of_the_series_and_ticks_of_its_spec(specs, variant):
    for name, spec in specs.items():
        shown = chart_html.picked(["none", "1", "32"], ["0"]) if "steer" in spec["site"] else None
        svg = ElementTree.fromstring(standins.render(spec, variant, shown))
        groups = [g for g in svg.iter("g") if "series" in g.get("class", "")]
        assert len(groups) == series_shown(spec, shown), name
        layout = standins.merged(
            spec["layout"], spec["site"]["narrow"] if variant == "narrow" else {}
        )
        ticks = [t for g in svg.iter("g") if "xticks" in g.get("class", "") for t in g]
        expected = layout["xaxis"].get("ticktext") or layout["xaxis"].get("categoryarray")
        got = ["<br>".join(s.text for s in t) if len(t) else t.text for t in ticks]
        assert got == [str(x) for x in expected], name
        assert (
            svg.get("viewBox")
            == f"0 0 {standins.SIZES[variant]} {spec['site']['heights'][variant]}"
        )


def test_the_cells_csv_holds_every_part_b_cell_as_results_json_does(full):
    results, _ = full
    rows = list(csv.DictReader(io.StringIO(cells_csv.cells_csv(results))))
    settings = results["part_b"]["settings"]
    assert len(rows) == sum(len(s["rates"]) for s in settings.values())
    for row in rows:
        cell = settings[row["setting"]]["rates"][row["rate_multiple"]]
        assert row["keeps_up"] == ("true" if cell["keeps_up"] else "false")
        for column in ("p50_ms", "p99_ms", "throughput"):
            value = cell.get(column)
            assert row[column] == ("inf" if value is None else f"{value:g}"), (row, column)
    order = [r["setting"] for r in rows]
    assert sorted(set(order), key=order.index) == results["design"]["settings"]


def numeric_order(names: list[str]) -> bool:
    """True when settings named 'none', 'B=b W=w' come in order: none, then B, then W."""

    def key(name):
        found = re.match(r"B=(\d+) W=([\d.]+)", name)
        return (0, 0, 0) if name == "none" else (1, int(found[1]), float(found[2]))

    return names == sorted(names, key=key)


def test_settings_come_in_numeric_order_in_tables_charts_and_controls(full, specs):
    results, out = full
    part_b = (out / "part-b.md").read_text()
    for table in re.findall(r"(?:^\| setting \|.*\n)(?:^\|.*\n)+", part_b, flags=re.M):
        names = re.findall(r"^\| (none|B=\d+ W=[\d.]+) \|", table, flags=re.M)
        assert names and numeric_order(names), names
    groups = part_b.split('class="heatmap-group"')[1:]
    assert groups
    for group in groups:
        waits = [float(w) for w in re.findall(r'<th scope="row">([\d.]+)</th>', group)]
        assert waits and waits == sorted(waits), waits
    for spec in specs.values():
        named = [t["name"] for t in spec["data"] if t.get("meta", {}).get("w") is not None]
        assert numeric_order(named), named
        if "steer" in spec["site"]:
            caps = [b["value"] for b in spec["site"]["steer"]["b"] if b["value"] != "none"]
            assert caps == sorted(caps, key=int)
            waits = [w["value"] for w in spec["site"]["steer"]["w"]]
            assert waits == sorted(waits, key=float)


def test_a_chart_on_a_page_holds_its_stand_ins_key_and_data_links(tmp_path):
    build_site(FIXTURE_RAW, None, tmp_path)
    page = (tmp_path / "part-a.md").read_text()
    figure = re.search(r'<div class="chart-figure" id="chart-part_a_time_vs_size".*', page)[0]
    assert figure.count('class="standin standin-') == 2
    assert 'class="chart-key"' in figure
    after = page[page.index(figure) + len(figure) :]
    assert "(assets/data/results.json)" in after.split("{: .chart-caption }")[0]
    assert (tmp_path / "assets" / "data" / "part_b_cells.csv").read_text().startswith("setting,")
    assert "--chart-none" in (tmp_path / "assets" / "css" / "chart-colours.css").read_text()
