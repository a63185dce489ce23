"""Generated prose is checked like code: `pytest tests/test_prose.py`.

* the wording helpers (generator/wording.py) give articles, signs and units under edge
  values: 0, negative, absent, one, many;
* sentence templates whose words depend on data render under edge values and read right
  (the W-floor paragraph of Part B, the processor on the limits page);
* no page reads "a AMD", "−100 to 150 µs more", "(0: none)" or a parenthesis inside a
  parenthesis in a guess's evidence: on the site's pages rendered from the committed
  fixture (fast) and on the built site;
* every Markdown table a page writes becomes an HTML table with exactly its rows: a
  paragraph glued to a table (no blank line) turns into bogus rows, and fails here.
"""

import copy
import re

import markdown
import pytest

from generator import wording
from tests.support.pages import fixture_results, prose, render_pages

EXTENSIONS = ["abbr", "admonition", "attr_list", "def_list", "footnotes", "md_in_html",
              "tables", "pymdownx.details", "pymdownx.superfences"]  # fmt: skip

# What a reader must never meet (each found once on the site before issue 34).
BROKEN = {
    "an article before a vowel-named initialism": re.compile(
        r"\b[Aa] (?=[AEFHILMNORSX][A-Z]{1,}\b)"
    ),
    "a signed range read as one direction": re.compile(
        r"[−-]\d[\d,.]* to [\d,.]+ ?\S* (more|less)\b"
    ),
    "a bare legend in parentheses": re.compile(r"\(0: none\)"),
    "a parenthesis inside a parenthesis closing together": re.compile(r"\([^()]*\([^()]*\)\)"),
    "the same median said twice as a contrast": re.compile(
        r"first wait was (\S+ \S+) \((?:more|less) than W\), while its batches that did not "
        r"fill waited \1"
    ),
}


# --- the helpers, under edge values -----------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [("AMD EPYC 7R13", "an AMD EPYC 7R13"), ("Intel(R) Xeon(R)", "an Intel(R) Xeon(R)"),
     ("Apple M2", "an Apple M2"), ("Graviton3", "a Graviton3"), ("CPU", "a CPU"),
     ("SSD", "an SSD"), ("8-core", "an 8-core"), ("1,024-row", "a 1,024-row"),
     ("95% interval", "a 95% interval"), ("80% interval", "an 80% interval"),
     ("unit", "a unit"), ("hour", "an hour"), ("one core", "a one core")],
)  # fmt: skip
def test_the_article_follows_how_the_word_sounds(phrase, expected):
    assert wording.article(phrase) == expected


def test_an_empty_phrase_has_no_article():
    with pytest.raises(ValueError, match="empty phrase"):
        wording.article("  ")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(48.0, "48.0 µs more than W"), (-12.0, "12.0 µs less than W"), (0, "exactly W"),
     (None, "never answered"), (float("inf"), "never answered"), (1, "1.00 µs more than W"),
     (1500.0, "1,500 µs more than W")],
)  # fmt: skip
def test_a_signed_difference_reads_as_more_or_less(value, expected):
    assert wording.than(value, "us", "W") == expected


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [(20, 150, "20.0 to 150 µs more"), (-100, 150, "from 100 µs less to 150 µs more"),
     (-30, -10, "10.0 to 30.0 µs less"), (0, 0, "no change"), (0, 150, "up to 150 µs more"),
     (-100, 0, "up to 100 µs less"), (150, -100, "from 100 µs less to 150 µs more"),
     (None, 5, "never answered")],
)  # fmt: skip
def test_a_range_of_signed_amounts_never_reads_minus_to_more(low, high, expected):
    text = wording.amount_range(low, high, "us")
    assert text == expected
    assert not BROKEN["a signed range read as one direction"].search("costs " + text)


def test_the_broken_patterns_catch_what_the_site_once_said():
    once = {
        "an article before a vowel-named initialism": "one pinned core of a AMD EPYC processor",
        "a signed range read as one direction": "Queue B=1 costs −100 to 150 µs more than none",
        "a bare legend in parentheses": "highest rate none kept up in all rounds (0: none)",
        "a parenthesis inside a parenthesis closing together": (
            "measured 0 answers (of those, answers not equal to it to the bit (or not echoing))"
        ),
        "the same median said twice as a contrast": (
            "the first wait was 10.0 ms (more than W), while its batches that did not fill "
            "waited 10.0 ms"
        ),
    }
    for name, sentence in once.items():
        assert BROKEN[name].search(sentence), name


# --- the site's pages, rendered from the committed fixture ------------------------------------


@pytest.fixture(scope="module")
def fixture_pages() -> dict:
    return render_pages(fixture_results())


def broken_sentences(pages: dict) -> list[str]:
    found = []
    for page, text in pages.items():
        words = prose(text)
        for name, pattern in BROKEN.items():
            for match in pattern.finditer(words):
                found.append(
                    f"{page}: {name}: …{words[max(match.start() - 60, 0) : match.end() + 20]}…"
                )
    return found


def test_no_page_rendered_from_the_fixture_reads_broken(fixture_pages):
    assert broken_sentences(fixture_pages) == []


def test_a_guess_is_quoted_as_written_and_a_range_across_zero_read_in_words():
    results = fixture_results()
    guess = dict(results["guesses"][0], id="G99", compare="between", low=-100, high=150,
                 unit="µs", text="Queue B=1 costs −100 to 150 µs more than none.")  # fmt: skip
    changed = dict(results, guesses=[guess, *results["guesses"][1:]])
    for page in ("guesses.md", "design.md"):
        text = render_pages(changed)[page]
        assert (
            "<q>Queue B=1 costs −100 to 150 µs more than none.</q> (read: from 100 µs less " in text
        )
        assert broken_sentences({page: text}) == []


def w_floor(pages: dict) -> str:
    words = prose(pages["part-b.md"])
    start = words.index("W is a floor, not a target.")
    return words[start : words.index("Why never less", start)]


def with_wait(results: dict, **changes) -> dict:
    """The fixture's results with the fullest timed setting's wait figures changed."""
    changed = copy.deepcopy(results)
    timed = {n: s for n, s in changed["waits"]["by_setting"].items()
             if s["max_wait_ms"] > 0 and "overshoot_unfilled_us" in s}  # fmt: skip
    fullest = max(timed.values(), key=lambda s: s["full_batch_share"])
    fullest.update(changes)
    return changed


@pytest.mark.parametrize(
    ("changes", "reads"),
    [({"full_batch_share": 0.4, "overshoot_us": 48.0, "overshoot_unfilled_us": 48.0},
      "the median first wait was 48.0 µs more than W, as for its batches that did not fill"),
     ({"full_batch_share": 0.4, "overshoot_us": -120.0, "overshoot_unfilled_us": 48.0},
      "the median first wait was 120 µs less than W, while its batches that did not fill "
      "waited 48.0 µs more than W"),
     ({"full_batch_share": 0.4, "overshoot_us": 0.0, "overshoot_unfilled_us": 1.0},
      "the median first wait was exactly W, while its batches that did not fill waited "
      "1.00 µs more than W"),
     ({"full_batch_share": 0}, "(median of the rounds).")],
)  # fmt: skip
def test_the_w_floor_paragraph_reads_right_under_edge_values(changes, reads):
    paragraph = w_floor(render_pages(with_wait(fixture_results(), **changes)))
    assert reads in paragraph, paragraph
    assert broken_sentences({"part-b.md": paragraph}) == []
    if changes.get("full_batch_share") == 0:
        assert "filled" not in paragraph


def test_the_processor_takes_its_article_from_its_name(fixture_pages):
    results = fixture_results()
    for model, reads in (("AMD EPYC 7R13", "of an AMD EPYC 7R13 processor"),
                         ("Graviton3", "of a Graviton3 processor")):  # fmt: skip
        changed = copy.deepcopy(results)
        changed["campaign"]["machine"]["fingerprint"]["cpu_model"] = model
        assert reads in prose(render_pages(changed)["limits.md"])


# --- tables: each Markdown table becomes an HTML table with its rows ---------------------------


def markdown_tables(text: str) -> list[int]:
    """The body rows of each pipe table the Markdown writes (header and rule not counted)."""
    text = re.sub(r"^([ ]*)```.*?^\1```", "", text, flags=re.S | re.M)
    rows, counts = 0, []
    for line in text.split("\n") + [""]:
        if line.lstrip().startswith("|"):
            rows += 1
        elif rows:
            counts.append(rows - 2)
            rows = 0
    return counts


def html_tables(text: str) -> list[int]:
    html = markdown.markdown(text, extensions=EXTENSIONS)
    return rows_of(re.findall(r"<table>(.*?)</table>", html, re.S))


def rows_of(tables: list[str]) -> list[int]:
    """Body rows of each table Markdown wrote (`<table>` with no class: not the pages' own
    HTML tables, the heatmaps)."""
    bodies = [re.sub(r"<thead>.*?</thead>", "", table, flags=re.S) for table in tables]
    return [len(re.findall(r"<tr>", body)) for body in bodies]


def test_a_paragraph_glued_to_a_table_is_caught():
    glued = "| a | b |\n| --- | --- |\n| 1 | 2 |\nThe next paragraph.\nIts second line.\n"
    assert markdown_tables(glued) == [1]
    assert html_tables(glued) == [3]
    kept = glued.replace("| 1 | 2 |\n", "| 1 | 2 |\n\n")
    assert html_tables(kept) == markdown_tables(kept) == [1]


def test_every_table_rendered_from_the_fixture_has_the_rows_it_was_written_with(fixture_pages):
    for page, text in fixture_pages.items():
        assert html_tables(text) == markdown_tables(text), page


# --- the built site ---------------------------------------------------------------------------


def test_the_built_site_reads_right_and_its_tables_keep_their_rows(shared_builds):
    pages = {p.name: p.read_text() for p in sorted(shared_builds.docs.glob("*.md"))}
    assert broken_sentences(pages) == []
    for page, text in pages.items():
        built = shared_builds.site / ("" if page == "index.md" else page[:-3]) / "index.html"
        # Markdown tables (site_src/boxes.py makes them focusable to scroll); not heatmaps or code
        tables = re.findall(r"<table(?: tabindex=\"0\")?>(.*?)</table>", built.read_text(), re.S)
        assert rows_of(tables) == markdown_tables(text), page


@pytest.mark.parametrize(
    ("count", "words", "often"),
    [(1, "one", "once"), (2, "two", "twice"), (3, "three", "three times"),
     (6, "six", "six times"), (7, "7", "7 times"), (1200, "1,200", "1,200 times")],
)  # fmt: skip
def test_small_counts_read_as_words(count, words, often):
    assert wording.in_words(count) == words
    assert wording.how_often(count) == often
