"""One vocabulary of verdicts, the lesson's terms defined on hover, the seed's arc whole (issue
34, items 1, 8 and 10): `pytest tests/test_vocabulary.py`.

* no page says "reversed", "not told apart", or a comparative word in a sentence whose
  difference is "not resolved" (the home page once said "Reversed" of a p99 cut whose rounds
  disagreed, while the guesses page called the same cut "right");
* a guess about a difference the rounds did not tell apart is "not resolved", in the build
  and in the report alike;
* every lesson term is an `abbr` with its definition wherever a page uses it (the Markdown
  as mkdocs.yml configures it, over the site's pages rendered from the fixture);
* the handler and lab pages name the same commits for one campaign, and the handler and
  campaigns pages each say which measurement their machinery numbers are (built site);
* every item of the seed's closing guidance, the bus at both times of day and the first
  guesses beside the second are on their pages;
* the verdicts judged again without the runs that never passed (generator/arithmetic/
  slow_spell.py) on a hand-made campaign, and the campaigns page saying what changed.
"""

import copy
import json
import re
from pathlib import Path

import markdown
import pytest
import yaml

from generator.arithmetic import slow_spell, verdicts
from tests.support.pages import fixture_results, prose, render_pages

ROOT = Path(__file__).resolve().parents[1]
TERMS = ("told apart", "not resolved", "machinery", "attempt", "S", "keeps up", "kept up", "W = 0")
COMPARATIVES = re.compile(
    r"\b(reversed|halved|doubled|cuts?|lower|higher|less|more|faster|slower|better|worse)\b",
    re.I,
)


def without_parentheses(text: str) -> str:
    """The words outside parentheses (a verdict's own explanation is in them)."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\([^()]*\)", "", text)
    return text


def unresolved_compared(words: str) -> list[str]:
    """Sentences that call a difference not resolved and still compare its sides."""
    found = []
    for sentence in re.split(r"(?<=[.;!?])\s+|\|", without_parentheses(words)):
        if re.search(r"not (resolved|told apart)", sentence) and COMPARATIVES.search(sentence):
            found.append(sentence)
    return found


def vocabulary_faults(pages: dict) -> list[str]:
    faults = []
    for page, text in pages.items():
        words = prose(re.sub(r"<[^>]+>", " | ", text))  # an HTML cell or key ends a clause
        for forbidden in ("reversed", "not told apart"):
            if forbidden in words.lower():
                faults.append(f"{page}: says {forbidden!r}")
        faults += [f"{page}: {s}" for s in unresolved_compared(words)]
    return faults


@pytest.fixture(scope="module")
def fixture_pages() -> dict:
    return render_pages(fixture_results())


# --- one vocabulary ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    ["Its p99 was not told apart. **Reversed**: the cut was not repeated here.",
     "B=32 W=0's p99 was halved, not resolved (4 −, 1 +).",
     "The difference was not resolved, so W = 0 is faster when quiet."],
)  # fmt: skip
def test_the_vocabulary_check_catches_what_the_site_once_said(sentence):
    assert vocabulary_faults({"page.md": sentence})


def test_a_verdicts_own_parenthesis_may_say_more_than():
    sentence = "Its p99 was not resolved (a shift of more than ±4.86 ms would have been)."
    assert vocabulary_faults({"page.md": sentence}) == []


def test_no_page_rendered_from_the_fixture_breaks_the_vocabulary(fixture_pages):
    assert vocabulary_faults(fixture_pages) == []


def test_a_not_resolved_p99_cut_reads_not_resolved_on_the_home_page(fixture_pages):
    """The fixture's B=32 W=0 p99 at the quiet rate, made to disagree in sign across rounds:
    the home page and the original-box panel say "not resolved", never "Reversed"."""
    results = copy.deepcopy(fixture_results())
    quiet = sorted(results["part_b"]["settings"]["none"]["rates"], key=float)[0]
    diff = results["paired"]["B=32 W=0"]["none"][quiet]["p99_ms"]
    diff.update(diffs=[-1.0, 0.5][: len(diff["rounds"])], told_apart=False, direction="mixed")
    text = prose(render_pages(results)["index.md"])
    assert "its p99 was not resolved (the rounds' signs: 1 −, 1 +" in text
    assert vocabulary_faults({"index.md": text}) == []


# --- a guess on a difference the rounds did not resolve ----------------------------------------


def figures(cut: float, apart: bool | None) -> dict:
    found = {"b32_w0_p99_cut_at_0_5": {"value": cut, "unit": "×", "what": "cut"}}
    if apart is not None:
        found["b32_w0_p99_told_apart_at_0_5"] = {"value": apart, "unit": "yes/no", "what": ""}
    return found


CUT_GUESS = {"id": "G9", "figure": "b32_w0_p99_cut_at_0_5", "compare": ">=", "value": 1.5,
             "unit": "×", "text": "B=32 W=0 cuts none's p99 by at least 1.5."}  # fmt: skip


@pytest.mark.parametrize(
    ("cut", "apart", "verdict"),
    [(2.11, False, "not resolved"), (2.11, None, "not resolved"), (2.11, True, "right"),
     (1.2, True, "wrong"), (1.2, False, "not resolved")],
)  # fmt: skip
def test_a_guess_needing_a_difference_rests_on_the_paired_verdict(cut, apart, verdict):
    assert verdicts.guess_verdict(CUT_GUESS, figures(cut, apart))["verdict"] == verdict


def test_a_guess_whose_range_holds_no_difference_is_judged_on_its_median():
    guess = {"id": "G17", "figure": "queue_b1_p50_overhead_us_at_0_5", "compare": "between",
             "low": -100, "high": 150, "unit": "µs", "text": "−100 to 150 µs"}  # fmt: skip
    found = {"queue_b1_p50_overhead_us_at_0_5": {"value": 88.0, "unit": "µs", "what": ""},
             "queue_b1_p50_overhead_told_apart": {"value": False, "unit": "yes/no"}}  # fmt: skip
    assert verdicts.guess_verdict(guess, found)["verdict"] == "right"


def test_the_report_judges_the_same_guess_the_same_way():
    from generator.report import figures as report_figures

    values = {"b32_w0_p99_cut_at_0_5": 2.11, "b32_w0_p99_told_apart_at_0_5": False}
    assert report_figures.needs_unresolved_difference(CUT_GUESS, "×", values)
    values["b32_w0_p99_told_apart_at_0_5"] = True
    assert not report_figures.needs_unresolved_difference(CUT_GUESS, "×", values)


# --- the terms, defined on hover ----------------------------------------------------------------


def site_markdown() -> markdown.Markdown:
    """Python-Markdown configured as mkdocs.yml configures MkDocs (snippets from the root)."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    names, configs = [], {}
    for entry in config["markdown_extensions"]:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if name in ("toc", "pymdownx.highlight", "pymdownx.superfences", "pymdownx.tabbed"):
            continue  # not needed to read the words, and their options need Material
        names.append(name)
        if name == "pymdownx.snippets":
            options = dict(options, base_path=[str(ROOT / p) for p in options["base_path"]],
                           check_paths=True)  # fmt: skip
        if options:
            configs[name] = options
    return markdown.Markdown(extensions=names, extension_configs=configs)


def bare_uses(html: str, term: str) -> int:
    """Uses of a term in a page's text that are not inside its <abbr> (code, attributes and
    the abbreviations themselves left out)."""
    text = re.sub(r"<(code|pre|svg|script|style)\b.*?</\1>", "", html, flags=re.S)
    text = re.sub(r"<abbr [^>]*>.*?</abbr>", "", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return len(re.findall(rf"(?<![\w=-]){re.escape(term)}(?![\w=])", text))


def markdown_only(text: str) -> str:
    """A page's Markdown without its raw HTML blocks (the heatmaps, the explorer's form):
    HTML the templates write is not Markdown, and abbr leaves it alone."""
    blocks = re.split(r"\n\s*\n", text)
    return "\n\n".join(b for b in blocks if not b.lstrip().startswith("<"))


def test_every_term_has_its_definition_wherever_a_page_uses_it(fixture_pages):
    defined = dict(re.findall(r"^\*\[(.+?)\]: (.+)$", (ROOT / "site_src/abbreviations.md")
                              .read_text(), re.M))  # fmt: skip
    assert set(TERMS) <= set(defined), set(TERMS) - set(defined)
    converter = site_markdown()
    used = set()
    for page, text in fixture_pages.items():
        html = converter.reset().convert(markdown_only(text))
        for term in TERMS:
            wrapped = html.count(f'<abbr title="{defined[term]}">{term}</abbr>')
            used |= {term} if wrapped else set()
            assert bare_uses(html, term) == 0, (page, term)
    assert used == set(TERMS)  # every term is on some page, and each use there is defined


def test_a_term_without_its_definition_is_caught(fixture_pages):
    html = markdown.markdown(fixture_pages["words.md"], extensions=["def_list", "attr_list"])
    assert bare_uses(html, "told apart") > 0


def test_words_defines_every_verdict_and_term_with_an_anchor(fixture_pages):
    words = fixture_pages["words.md"]
    for anchor in ("verdicts", "told-apart", "same-within", "not-resolved", "rounds-rule",
                   "interval-rule", "machinery", "attempt", "s", "keeps-up", "w-0"):  # fmt: skip
        assert f"{{ #{anchor} }}" in words, anchor


# --- the seed's arc ----------------------------------------------------------------------------

GUIDANCE = (
    "Test with random arrivals, and count from the arrival.",
    "Check the bits before you batch.",
    "On Monday: time your model on 1, 8, 32 and 1,024 rows.",
    "`max_batch_size`",
    "`max_queue_delay_microseconds`",
    "When it is quiet, W = 0: measure it.",
)


def test_the_closing_guidance_keeps_every_item_of_the_seeds(fixture_pages):
    text = fixture_pages["takeaways.md"]
    for item in GUIDANCE:
        assert item in text, item
    monday = prose(text).split("On Monday:")[1].split("Set the dials")[0]
    assert len(re.findall(r"[\d,.]+ µs for [\d,]+ rows?", monday)) == 4, monday


def test_the_bus_runs_at_both_times_of_day_and_the_third_way(fixture_pages):
    text = prose(fixture_pages["index.md"]).replace("**", "")
    for part in ("A quiet morning", "A busy evening", "The third way, W = 0"):
        assert part in text, part


# --- the slow spell -----------------------------------------------------------------------------


def cell(values: list, kept: list, never: list) -> dict:
    rounds = list(range(len(values)))
    found = {"rounds": rounds, "missing_rounds": [], "keeps_up": all(kept),
             "by_round": {"p50_ms": values, "p99_ms": values, "throughput": values,
                          "keeps_up": kept}}  # fmt: skip
    if never:
        found["never_passed_rounds"] = never
    return found


def spell_results(never: list) -> dict:
    from generator.arithmetic import stats

    none = cell([2.0, 2.0, 2.0], [True, True, True], [])
    batched = cell([1.0, 1.5, 3.0], [True, True, False], never)
    paired = {m: stats.paired(dict(enumerate(batched["by_round"][m])),
                              dict(enumerate(none["by_round"][m])), 3)
              for m in slow_spell.METRICS}  # fmt: skip
    return {
        "design": {"rounds": 3},
        "part_b": {"settings": {"none": {"rates": {"1": none}},
                                "B=8 W=0": {"rates": {"1": batched}}}},
        "paired": {"B=8 W=0": {"none": {"1": paired}}},
    }  # fmt: skip


def test_leaving_out_a_slow_round_judges_every_verdict_again():
    found = slow_spell.section(spell_results([2]))
    assert found["cells_touched"] == 1 and found["paired_compared"] == 3
    assert {c["metric"] for c in found["paired_changed"]} == set(slow_spell.METRICS)
    assert found["paired_changed"][0] | {"metric": None} == {
        "setting": "B=8 W=0", "rate": "1", "metric": None, "before": "not resolved",
        "after": "told apart (lower)", "rounds": 2}  # fmt: skip
    assert found["keeps_up_changed"] == [
        {"setting": "B=8 W=0", "rate": "1", "before": False, "after": True, "rounds": 2}
    ]
    assert found["highest_kept_up_changed"] == [{"setting": "B=8 W=0", "before": 0.0, "after": 1.0}]


def test_a_slow_round_that_changes_nothing_is_said_so():
    found = slow_spell.section(spell_results([0]))
    assert found["paired_changed"] == [] and found["keeps_up_changed"] == []
    assert slow_spell.section(spell_results([])) is None  # no run never passed: no section


# --- the built site: one campaign, one story ------------------------------------------------------


@pytest.fixture(scope="module")
def built_pages(shared_builds) -> dict:
    return {p.name: p.read_text() for p in sorted(shared_builds.docs.glob("*.md"))}


def test_the_built_site_keeps_the_vocabulary(built_pages):
    assert vocabulary_faults(built_pages) == []


def test_the_built_site_defines_its_terms_on_hover(shared_builds):
    for page in ("index.html", "part-b/index.html", "campaigns/index.html", "words/index.html"):
        html = (shared_builds.site / page).read_text()
        for term in ("told apart", "S"):
            assert re.search(rf'<abbr title="[^"]+">{re.escape(term)}</abbr>', html), (page, term)


def test_the_handler_and_lab_pages_name_the_same_commits(built_pages):
    code = built_pages["handler.md"].split("## The handler's code")[1].split("```")[0]
    named = re.findall(r"\b[0-9a-f]{12}\b", code)
    assert named, code
    lab = built_pages["lab.md"]
    assert all(commit in lab for commit in named), named


def test_each_machinery_number_says_which_measurement_it_is(built_pages):
    handler = prose(built_pages["handler.md"]).replace("**", "")
    campaigns = prose(built_pages["campaigns.md"]).replace("**", "")
    assert "Which measurement is this? These numbers are this benchmark's" in handler
    assert "These are the campaigns' numbers, each from a day of its own" in campaigns


def test_the_guesses_page_sets_every_campaigns_guesses_side_by_side(built_pages, shared_builds):
    """Every full campaign's guesses (G1–G13, G14–G26, G27–G42 …), each in its own column."""
    text = built_pages["guesses.md"]
    found = [json.loads(path.read_text()) for path in shared_builds.results.values()]
    sets = [r["guesses"] for r in found if r.get("guesses")]
    words = {2: "two", 3: "three", 4: "four"}
    assert f"## Our {words[len(sets)]} sets of guesses" in text
    section = text.split("sets of guesses", 1)[1].split("\n## ")[0]
    for guesses in sets:
        for guess in guesses:
            assert f"| {guess['id']}: **{guess['verdict']}**" in section, guess["id"]


def tally_rows(markdown: str) -> dict:
    """{row label: its cells} of the guesses page's tally table."""
    section = markdown.split("## The tally, beside the original lesson's", 1)[1].split("\n## ")[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("|")]
    return {cells[0].strip(): [c.strip() for c in cells[1:]] for cells in rows[2:]}


def tally_faults(markdown: str, campaigns: list) -> list[str]:
    """What the tally gets wrong: the original lesson's column from the reference box, each
    campaign's counted from its guesses, and the plain word that the original's own guesses
    are not available."""
    box = json.loads((ROOT / "site_src" / "reference_box.json").read_text())["guesses"]
    rows, faults = tally_rows(markdown), []
    prose_text = prose(markdown).replace("**", "")
    if "its individual guesses and their verdicts are not available to this lab" not in prose_text:
        faults.append("the page does not say the original's guesses are not available")
    expected = {"guesses written": [f"{box['guesses']} ({box['statements']} statements)"],
                "right": [str(box["right"])], "wrong": [str(box["wrong"])],
                "each guess with its verdict": ["not published"]}  # fmt: skip
    if box["statements"] == box["right"] + box["wrong"]:
        expected["not resolved"] = ["none"]
    for guesses in campaigns:
        expected["guesses written"].append(str(len(guesses)))
        for verdict in ("right", "wrong", "not resolved"):
            if verdict in expected:
                expected[verdict].append(str(sum(g["verdict"] == verdict for g in guesses)))
        expected["each guess with its verdict"].append(
            f"yes ({guesses[0]['id']}–{guesses[-1]['id']}, above)"
        )
    faults += [f"{label}: {rows.get(label)} is not {cells}" for label, cells in expected.items()
               if rows.get(label) != cells]  # fmt: skip
    return faults


def test_the_guesses_page_sets_the_original_tally_beside_ours(built_pages, shared_builds):
    data = shared_builds.docs / "assets" / "data"
    results = json.loads((data / "results.json").read_text())
    earlier = [a["guesses"] for a in json.loads((data / "comparison.json").read_text())["against"]
               if a["guesses"]]  # fmt: skip
    assert tally_faults(built_pages["guesses.md"], [*earlier, results["guesses"]]) == []
    # the earlier sets are this lab's own, said so where the original's would be expected
    text = prose(built_pages["guesses.md"]).replace("**", "")
    sets = "set" if len(earlier) == 1 else "sets"
    first, last = earlier[0][0]["id"], earlier[-1][-1]["id"]
    assert f"This lab's {first}–{last} above are its own earlier {sets}" in text


def test_the_tally_is_on_the_page_without_a_second_campaign(fixture_pages):
    results = fixture_results()
    assert "comparison" not in results
    assert tally_faults(fixture_pages["guesses.md"], [results["guesses"]]) == []
    broken = fixture_pages["guesses.md"].replace("| right | 11 |", "| right | 13 |")
    assert tally_faults(broken, [results["guesses"]]), "a wrong count must be caught"


def test_the_campaigns_page_says_which_numbers_to_trust(built_pages, shared_builds):
    text = prose(built_pages["campaigns.md"]).replace("**", "")
    spell_path = shared_builds.docs / "assets/data" / slow_spell.TABLE
    spell = spell_path.read_text() if spell_path.exists() else None
    assert "Which numbers to trust" in text
    for part in ("The rule.", "The noise."):
        assert part in text, part
    if spell is None:  # no run of the site's campaign failed the slow-run rule in every attempt
        assert "Without the runs that never passed." not in text
        return
    assert "Without the runs that never passed." in text and "The host's speed." in text
    changed = len(re.findall(r'"before":"(?:not resolved|told apart[^"]*)"', spell))
    assert (f"{changed} of " in text) if changed else ("no verdict changed" in text)


def test_which_numbers_to_trust_is_a_short_list_on_the_campaigns_page(built_pages, shared_builds):
    """Not a dense paragraph (on a phone a screen of prose): each point an item of a list, each
    verdict the slow spell changed an item of its own."""
    section = built_pages["campaigns.md"].split("## Which numbers to trust", 1)[1].split("\n## ")[0]
    spell_path = shared_builds.docs / "assets/data" / slow_spell.TABLE
    spell = json.loads(spell_path.read_text()) if spell_path.exists() else None
    items = re.findall(r"^- \*\*(.+?)\*\*", section, re.M)
    assert items[:2] == ["The rule.", "The noise."], items
    nested = re.findall(r"^    - (.+)$", section, re.M)
    if spell is None:  # nothing judged again: no run of this campaign failed every attempt
        spell = {"paired_changed": [], "keeps_up_changed": []}
    assert len(nested) == len(spell["paired_changed"]) + len(spell["keeps_up_changed"]), nested
    for change in spell["paired_changed"]:
        assert any(f"{change['rate']} × S: {change['before']} → {change['after']}" in line
                   for line in nested), change  # fmt: skip
    blocks = [b for b in re.split(r"\n(?=- |    - )|\n\n", section) if b.strip()]
    longest = max(len(prose(block).split()) for block in blocks)
    assert longest <= 60, f"a block of {longest} words"
