"""Every explorer example a page shows is a file that runs: `pytest tests/test_examples.py`.

A page shows an example as a Python block titled with its file (site_src/examples/NAME),
then a text block titled "the explorer prints" (`m.explorer_example` in _macros.j2). Here:
  * every file of site_src/examples/ is on a page (one that reads another campaign with
    campaign() on a site that has one), and every Python block a page shows is either such a
    file or the lab's own code (titled lab/…): nothing to paste that no test runs; the
    explorer page's own examples among them;
  * each example, run in the explorer's own Python under CPython (tests/support/box.py runs
    the worker's set-up), prints exactly what the page shows: on the site's pages rendered
    from the committed fixture (fast), and on the built site (the full campaign);
  * in the browser, each example typed into the explorer prints what its page shows;
  * under each example on any page but the explorer's, a "Run this in the explorer" link:
    the explorer's permalink with the example's own code in it; opened in the browser (the
    first by a click, as a reader navigates), the explorer shows that code, runs it and prints
    what the page shows;
  * the call the limits page once showed, simulate(32, 2, 1.25, …) without `results`,
    answers with the order of the arguments instead of AttributeError ('int' object has no
    attribute 'get'), and so do the reader's other functions.
"""

import json
import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from generator.pages import examples as page_examples
from generator.reading import load
from generator.report import checks as report
from generator.simulation import validate as simulation
from generator.simulation import whatif
from tests.support import browser as site_tools
from tests.support.box import Box

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures"
GOLDEN_DATA = FIXTURE / "golden" / "assets" / "data"
EXAMPLES = ROOT / "site_src" / "examples"

EXAMPLE = re.compile(
    r'^(?P<indent>[ ]*)```python title="(?P<file>site_src/examples/[^"]+)"\n(?P<code>.*?)\n'
    r"(?P=indent)```\n\n"
    r'(?P=indent)```text title="the explorer prints"\n(?P<text>.*?)\n(?P=indent)```$',
    re.S | re.M,
)
PYTHON_BLOCK = re.compile(r"^[ ]*```python(?P<options>[^\n]*)$", re.M)


def shown_examples(markdown: str) -> list[dict]:
    """{file, code, text} of each explorer example a page's Markdown shows."""
    found = []
    for match in EXAMPLE.finditer(markdown):
        indent = len(match["indent"])

        def undent(block: str, indent: int = indent) -> str:
            return "\n".join(line[indent:] for line in block.split("\n"))

        found.append({"file": match["file"], "code": undent(match["code"]),
                      "text": undent(match["text"])})  # fmt: skip
    return found


RUN_LINK = re.compile(
    r'\n*<p class="explorer-run"><a href="(?P<href>[^"]+)" target="_self" data-explorer-run>'
    r"Run this in the explorer</a></p>"
)


def run_links(markdown: str) -> list[str | None]:
    """The "Run this in the explorer" link right under each example a page shows (None: no
    link there)."""
    found = []
    for match in EXAMPLE.finditer(markdown):
        link = RUN_LINK.match(markdown, match.end())
        found.append(link["href"] if link else None)
    return found


def linked_code(href: str, page: str) -> str:
    """The code a link's permalink carries, after checking it leads to the explorer page from
    `page` (a directory URL: limits.md is served at limits/)."""
    parts = urlsplit(href)
    depth = page.count("/") + (0 if page.endswith("index.md") else 1)
    assert parts.path == "../" * depth + "explorer/", (page, href)
    return parse_qs(parts.fragment)["run"][0]


def every_example(pages: dict) -> dict:
    """{(page, file): example} of every page's examples."""
    return {
        (page, example["file"]): example
        for page, markdown in pages.items()
        for example in shown_examples(markdown)
    }


# --- the site's pages, rendered from the committed fixture (fast) ---------------------------


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    """The fixture campaign's results as the site's pages see them (its what-ifs run), and a
    folder laid out as the built site's assets/ for the box: (pages, site folder)."""
    from generator.pages import render

    path = GOLDEN_DATA / "results.json"
    results = report.with_table(json.loads(path.read_text()), path)
    section = dict(results["simulation"], examples=whatif.examples(
        results, ROOT / "site_src" / "whatifs.json", simulation.load_simulator()))  # fmt: skip
    results = dict(results, simulation=section)
    names = load.choose_campaign(FIXTURE / "raw").description.names
    rendered = render.page_outputs(results, ROOT / "site_src" / "pages", names,
                                   ROOT / "site_src" / "reference_box.json")  # fmt: skip
    pages = {name: content.decode() for name, content in rendered.items() if name.endswith(".md")}
    site = tmp_path_factory.mktemp("fixture-site")
    (site / "assets" / "data").mkdir(parents=True)
    shutil.copytree(ROOT / "site_src" / "explorer", site / "assets" / "explorer")
    for name in ("results.json", "simulation.json"):
        shutil.copy(GOLDEN_DATA / name, site / "assets" / "data" / name)
    return pages, site


def reads_another_campaign(path: Path) -> bool:
    """An example that calls campaign(): shown only on a site with another campaign (the
    fixture's quick campaign has none; the built site's full one does)."""
    return "campaign(" in path.read_text()


def test_every_example_file_is_on_a_page_and_every_python_block_is_a_file(fixture_site):
    pages, _ = fixture_site
    shown = {file for _, file in every_example(pages)}
    assert shown == {f"site_src/examples/{p.name}" for p in EXAMPLES.glob("*.py")
                     if not reads_another_campaign(p)}  # fmt: skip
    for page, markdown in pages.items():
        for block in PYTHON_BLOCK.finditer(markdown):
            title = re.search(r'title="([^"]*)"', block["options"])
            assert title and title[1].startswith(("lab/", "site_src/examples/")), (
                f"{page}: a Python block that is neither the lab's code nor an example file: "
                f"{block[0]!r}"
            )
    assert len(every_example(pages)) == sum(map(len, map(shown_examples, pages.values())))


def test_each_example_on_a_page_prints_the_same_in_the_box(fixture_site):
    pages, site = fixture_site
    box = Box(site)
    try:
        found = every_example(pages)
        assert {file for _, file in found} >= {"site_src/examples/big_model.py",
                                               "site_src/examples/kept_up_by_rate.py"}  # fmt: skip
        for (page, file), example in found.items():
            assert example["code"] == (ROOT / file).read_text().strip(), (page, file)
            ok, printed = box.run(example["code"])
            assert ok, f"{page} {file}: {printed}"
            assert printed == example["text"], f"{page} {file}"
    finally:
        box.close()


def test_each_example_off_the_explorer_page_links_to_the_explorer_with_its_code(fixture_site):
    pages, _ = fixture_site
    linked = 0
    for page, markdown in pages.items():
        for example, href in zip(shown_examples(markdown), run_links(markdown), strict=True):
            if page == "explorer.md":  # the explorer page's own examples: already in its box
                assert href is None, (page, example["file"])
                continue
            assert href, f"{page} {example['file']}: no link to run it in the explorer"
            assert linked_code(href, page) == example["code"], (page, example["file"])
            linked += 1
    assert linked >= 1


def test_the_link_check_catches_a_link_to_other_code_or_another_page(fixture_site):
    pages, _ = fixture_site
    example, href = shown_examples(pages["limits.md"])[0], run_links(pages["limits.md"])[0]
    assert linked_code(href, "limits.md") == example["code"]
    with pytest.raises(AssertionError):
        linked_code(href, "index.md")  # from the home page the explorer is explorer/
    assert linked_code(href.replace("simulate", "lookup", 1), "limits.md") != example["code"]
    assert run_links(pages["limits.md"].replace("Run this in the explorer", "Run it")) == [
        None
    ] * len(shown_examples(pages["limits.md"]))


def test_a_call_without_results_says_what_goes_first(fixture_site):
    """The limits page once showed simulate(32, 2, 1.25, …): the box answered AttributeError."""
    _, site = fixture_site
    box = Box(site)
    try:
        ok, printed = box.run("simulate(32, 2, 1.25, per_call_us=300, per_row_us=10000)")
        assert ok and "AttributeError" not in printed, printed
        assert printed.startswith("simulate: the first argument is the campaign's results")
        assert "simulate(results, b, w, rate, ...); got 32" in printed
        for call in ("lookup(32, 0, 1)", "compare(32, 0, 8, 0, 1)", "part_a(32)",
                     "measured(32)", "batch_route_lookup(1000, 10)"):  # fmt: skip
            ok, printed = box.run(call)
            assert ok and "Error" not in printed, (call, printed)
            assert printed.startswith("The first argument is the campaign's results"), call
    finally:
        box.close()


def test_a_what_if_says_how_many_arrived_next_to_the_mean_it_asked(fixture_site):
    """Random arrivals: the run's own count differs from the asked mean; both are named."""
    pages, _ = fixture_site
    results = json.loads((GOLDEN_DATA / "results.json").read_text())
    for example in whatif.examples(results, ROOT / "site_src" / "whatifs.json",
                                   simulation.load_simulator()):  # fmt: skip
        first, setting = example["text"].splitlines()[:3:2]
        mean = example["call"]["rate"] * example["S"]
        assert f"random arrivals averaging {page_examples.simulate.per_second(mean)}/s" in first
        arrived = page_examples.simulate.per_second(example["setting"]["offered_rate"])
        assert f"of the {arrived}/s that arrived; keeps up:" in setting
        assert "offered" not in example["text"]
        limits = " ".join(pages["limits.md"].split())
        assert f"averaging {page_examples.simulate.per_second(mean)} per second" in limits


def test_an_example_file_that_fails_fails_the_build_naming_it(tmp_path):
    (tmp_path / "broken.py").write_text('results["no such part"]\n')
    with pytest.raises(page_examples.ExampleError, match=r"broken.py: KeyError: 'no such part'"):
        page_examples.run("broken.py", {"campaign": {}}, tmp_path)
    with pytest.raises(page_examples.ExampleError, match=r"missing.py: cannot read it"):
        page_examples.run("missing.py", {}, tmp_path)


# --- the built site: the full campaign ------------------------------------------------------


def built_pages(shared_builds) -> dict:
    return {p.name: p.read_text() for p in sorted(shared_builds.docs.glob("*.md"))}


def test_each_example_on_the_built_site_prints_the_same_in_the_box(shared_builds):
    pages = built_pages(shared_builds)
    found = every_example(pages)
    assert {file for _, file in found} == {
        f"site_src/examples/{p.name}" for p in EXAMPLES.glob("*.py")
    }
    box = Box(shared_builds.site)
    try:
        for (page, file), example in found.items():
            ok, printed = box.run(example["code"])
            assert ok and printed == example["text"], f"{page} {file}:\n{printed}"
    finally:
        box.close()


def test_each_example_typed_into_the_explorer_prints_what_its_page_shows(site, browser):
    """In Chromium: each page's example blocks as the reader sees them, typed into the box."""
    site_dir, base = site
    context = site_tools.new_context(browser, "desktop")
    try:
        pages = {p.parent.name: p for p in sorted(site_dir.glob("*/index.html"))}
        seen = 0
        for name in pages:
            page = context.new_page()
            page.goto(base + name + "/", wait_until="load")
            shown = page.evaluate(
                """() => [...document.querySelectorAll('.highlight')].map((block) => ({
                  title: block.querySelector('.filename')?.textContent || '',
                  text: block.querySelector('code').textContent}))"""
            )
            page.close()
            pairs = [(shown[i], shown[i + 1]) for i in range(len(shown) - 1)
                     if shown[i]["title"].startswith("site_src/examples/")]  # fmt: skip
            for code, answer in pairs:
                assert answer["title"] == "the explorer prints", (name, code["title"])
                box = context.new_page()
                box.goto(base + "explorer/", wait_until="load")
                printed = site_tools.run_explorer(box, code["text"].rstrip("\n"))
                box.close()
                # a code block on a page cannot end in a blank line: printed text may
                assert printed.rstrip("\n") == answer["text"].rstrip("\n"), (
                    f"{name} {code['title']}"
                )
                seen += 1
        assert seen == len(list(EXAMPLES.glob("*.py")))
    finally:
        context.close()


# Each link under an example as the page shows it: the code and answer blocks just above it.
LINKED_EXAMPLES = """() => [...document.querySelectorAll('a[data-explorer-run]')].map((a) => {
  const answer = a.closest('p').previousElementSibling;
  const code = answer.previousElementSibling;
  return {href: a.href, title: code.querySelector('.filename')?.textContent || '',
          code: code.querySelector('code').textContent,
          printed: answer.querySelector('code').textContent,
          answerTitle: answer.querySelector('.filename')?.textContent || ''};
})"""
DONE = """() => ['done', 'error', 'stopped'].includes(
  document.querySelector('[data-role=output]')?.dataset.state)"""


def test_each_examples_link_opens_the_explorer_and_prints_what_its_page_shows(site, browser):
    """In Chromium: the reader follows each "Run this in the explorer" link; the explorer
    shows the example's code and prints, unasked, the answer the page shows under it."""
    site_dir, base = site
    context = site_tools.new_context(browser, "desktop")
    try:
        pages = [p.parent.name for p in sorted(site_dir.glob("*/index.html"))]
        followed = 0
        for name in pages:
            page = context.new_page()
            page.goto(base + name + "/", wait_until="load")
            linked = page.evaluate(LINKED_EXAMPLES)
            if name == "explorer":
                assert linked == [], "the explorer page links its own examples to itself"
            for index, example in enumerate(linked):
                assert example["title"].startswith("site_src/examples/"), (name, example)
                assert example["answerTitle"] == "the explorer prints", (name, example)
                if index == 0:  # as a reader does: a click, Material's instant navigation
                    page.click("a[data-explorer-run] >> nth=0")
                    page.wait_for_url(re.compile(r"/explorer/#run="))
                else:
                    page.goto(example["href"], wait_until="load")
                page.wait_for_function(DONE)
                shown = page.input_value('[data-role="code"]')
                printed = page.text_content('[data-role="output"]')
                assert page.get_attribute('[data-role="output"]', "data-state") == "done", printed
                assert shown == example["code"].rstrip("\n"), (name, example["title"])
                # a code block on a page cannot end in a blank line: printed text may
                assert printed.rstrip("\n") == example["printed"].rstrip("\n"), (
                    f"{name} {example['title']}"
                )
                followed += 1
                page.goto(base + name + "/", wait_until="load")
            page.close()
        assert followed >= 1
    finally:
        context.close()
