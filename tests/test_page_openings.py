"""Every page opens with where its numbers come from, in one line, and the slow-host warning is
said once, where its runs are used (issue 34 item 4): `pytest tests/test_page_openings.py`.

A page once opened with a provenance box and the slow-host warning before its lesson (a
phone's whole first screen). Now:
  * every page of the nav opens with the one-line provenance (the campaign, the day it
    started, the machine and a "details" link; the box page, which is the details, without
    it) and then its title: in the Markdown rendered from the fixture, in the built pages'
    HTML, and in Chromium at 1280×800 and 390×844, where the line is one line high above the
    title with none of its facts cut off;
  * the slow-host warning is on the pages whose runs never passed the slow-run rule, once,
    below the page's first section heading, naming those runs from 1 (from results.json);
    the box page lists every such run as a reader counts it;
  * the warning's wording for each kind of run, on hand-made results.
"""

import json
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from generator.pages import render as pages
from generator.wording import run_label, run_number
from tests.support.browser import new_context, page_urls
from tests.support.pages import fixture_results, render_pages

ROOT = Path(__file__).resolve().parents[1]
SITE_PAGES = ROOT / "site_src" / "pages"
WARNING = "Runs measured on a slowed host"
KIND_PAGES = {"part_a": "part-a.md", "saturation": "saturation.md", "part_b": "part-b.md",
              "part_c": "batch-route.md"}  # fmt: skip


def nav_pages() -> list[str]:
    with (ROOT / "mkdocs.yml").open() as config:
        return [next(iter(entry.values())) for entry in yaml_load(config)["nav"]]


def provenance_faults(page: str, markdown: str, campaign: dict) -> list[str]:
    """What is wrong with how a page's Markdown opens: the provenance line, then the title."""
    lines = markdown.lstrip("\n").split("\n")
    if not (
        lines[0].startswith('<span class="provenance-facts"') and lines[1] == "{: .provenance }"
    ):
        return [f"{page} opens with {lines[:2]!r}, not the provenance line"]
    faults = [] if lines[2] == "" and lines[3].startswith("# ") else [f"{page}: no title below"]
    line = lines[0]
    machine = campaign["machine"]
    facts = [f"**{campaign['name']}**", campaign["started_at"][:10],
             machine["fingerprint"]["cpu_model"], f", core {machine['cpu']}"]  # fmt: skip
    faults += [f"{page}: {fact!r} missing" for fact in facts if fact not in line]
    if ("[details](lab.md)" in line) == (page == "lab.md"):
        faults.append(f"{page}: the details link {'on' if page == 'lab.md' else 'missing'}")
    if not campaign["complete"] and "not complete" not in line:
        faults.append(f"{page}: an incomplete campaign not said to be")
    return faults


# --- the pages rendered from the fixture (fast) -------------------------------------------------


def test_every_page_opens_with_its_one_line_provenance():
    results = fixture_results()
    rendered = render_pages(results)
    assert set(nav_pages()) <= set(rendered)
    campaign = results["campaign"]
    faults = [f for page in nav_pages() for f in provenance_faults(page, rendered[page], campaign)]
    assert faults == []


def test_the_opening_check_catches_a_page_that_starts_with_anything_else():
    results = fixture_results()
    page = render_pages(results)["part-a.md"]
    title = page.index("\n# ")
    assert provenance_faults("part-a.md", page, results["campaign"]) == []
    assert provenance_faults("part-a.md", "Intro first.\n\n" + page, results["campaign"])
    assert provenance_faults("part-a.md", page[:title] + "\nA line.\n" + page[title:],
                             results["campaign"])  # fmt: skip
    assert provenance_faults("lab.md", page, results["campaign"])  # the box page links to itself


def slow_host(results: dict, kind: str) -> str:
    env = pages.environment(SITE_PAGES)
    template = env.from_string(
        f'{{% import "_macros.j2" as m with context %}}{{{{ m.slow_host("{kind}") }}}}'
    )
    return " ".join(template.render(results=results).split())


def probe(never: list[str]) -> dict:
    by_kind = {}
    for run in never:
        kind = run.split("-")[0]
        entry = by_kind.setdefault(kind, {"runs": 0, "rounds": []})
        entry["runs"] += 1
        if kind == "part_b" and run_number(run) not in entry["rounds"]:
            entry["rounds"].append(run_number(run))
    return {"speed_probe": {"never_passed": never, "never_passed_by_kind": by_kind}}


@pytest.mark.parametrize(
    ("never", "kind", "says"),
    [
        (["part_a-0"], "part_a", "Part A's run 1 never passed the slow-run rule"),
        (["part_c-4", "part_c-1", "part_c-3"], "part_c",
         "The batch route's runs 2, 4 and 5 never passed"),
        (["part_b-r0-x1-none", "part_b-r0-x2-b8-w0"], "part_b",
         "2 of Part B's runs, all in round 1, never passed"),
        (["saturation-2"], "saturation", "S's run 3 never passed"),
    ],
)  # fmt: skip
def test_the_slow_host_warning_names_its_runs_from_one(never, kind, says):
    said = slow_host(probe(never), kind)
    assert said.startswith(f'!!! warning "{WARNING}"') and says in said, said
    assert ("It is kept" if len(never) == 1 else "They are kept") in said
    assert "lab.md#the-hosts-weather-the-speed-probe" in said


def test_no_slow_host_warning_without_such_runs():
    assert slow_host(probe(["part_a-0"]), "part_b") == ""
    assert slow_host({}, "part_a") == ""  # a campaign before the speed probe


# --- the built site ---------------------------------------------------------------------------


def test_every_built_page_opens_with_its_provenance_line(shared_builds):
    results = json.loads((shared_builds.docs / "assets" / "data" / "results.json").read_text())
    faults = []
    for page in nav_pages():
        markdown = (shared_builds.docs / page).read_text()
        faults += provenance_faults(page, markdown, results["campaign"])
        folder = "" if page == "index.md" else page[: -len(".md")] + "/"
        html = (shared_builds.site / folder / "index.html").read_text()
        article = html.split('<article class="md-content__inner md-typeset">', 1)[1].lstrip()
        line, _, rest = article.partition("</p>")
        if not line.startswith('<p class="provenance">') or not rest.lstrip().startswith("<h1"):
            faults.append(f"{folder or '/'} opens with {article[:120]!r}")
    assert faults == []


def test_the_slow_host_warning_is_once_where_its_runs_are_used(shared_builds):
    docs = shared_builds.docs
    results = json.loads((docs / "assets" / "data" / "results.json").read_text())
    never = results.get("speed_probe", {}).get("never_passed", [])
    if not never:
        pytest.skip("no run of this campaign failed the slow-run rule")
    kinds = {run.split("-")[0] for run in never}
    for page in nav_pages():
        text = (docs / page).read_text()
        count = text.count(f'!!! warning "{WARNING}"')
        used = [kind for kind, shown in KIND_PAGES.items() if shown == page and kind in kinds]
        assert count == (1 if used else 0), (page, count)
        if used:
            assert text.index(WARNING) > text.index("\n## "), f"{page}: the warning opens the page"
            said = " ".join(text[text.index(WARNING) :].split("\n\n")[0].split())
            if used[0] == "part_b":
                rounds = sorted({run_number(r) for r in never if r.startswith("part_b-")})
                assert (
                    f"all in round{'s' if len(rounds) > 1 else ''} {', '.join(map(str, rounds))}"
                    in said
                )
            else:
                numbers = sorted(run_number(r) for r in never if r.startswith(used[0] + "-"))
                assert str(numbers[-1]) in said and "never passed" in said, said
    lab = " ".join((docs / "lab.md").read_text().split())
    assert all(run_label(run) in lab for run in never)


# --- in Chromium, at a desktop's size and a phone's ----------------------------------------------

OPENING = """() => {
  const article = document.querySelector('.md-content__inner');
  const line = article.querySelector(':scope > p.provenance');
  const title = article.querySelector(':scope > h1');
  const first = [...article.children].find((el) => el.getClientRects().length);
  if (!line || !title) return {missing: !line ? 'provenance' : 'h1'};
  const facts = line.querySelector('.provenance-facts');
  const link = line.querySelector('a');
  const box = line.getBoundingClientRect();
  return {
    first: first === line, above: box.bottom <= title.getBoundingClientRect().top,
    lines: Math.round(box.height / parseFloat(getComputedStyle(line).lineHeight)),
    cut: facts.scrollWidth > facts.clientWidth + 1, text: line.textContent,
    link: link ? link.textContent : null,
    linkShown: link ? link.getBoundingClientRect().right <= window.innerWidth : null,
  };
}"""


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_provenance_is_one_whole_line_above_every_title(served_site, browser, viewport):
    _, base = served_site
    context = new_context(browser, viewport)
    try:
        page = context.new_page()
        seen = {}
        for url in page_urls(base):
            page.goto(url, wait_until="load")
            page.evaluate("document.fonts.ready")
            seen[url[len(base) :] or "/"] = page.evaluate(OPENING)
        page.close()
    finally:
        context.close()
    for where, found in seen.items():
        assert "missing" not in found, (where, found)
        assert found["first"] and found["above"], (where, found)
        assert found["lines"] == 1 and not found["cut"], (viewport, where, found)
        assert (found["link"] is None) == (where == "lab/"), (where, found)
        if found["link"]:
            assert found["link"] == "details" and found["linkShown"], (where, found)
