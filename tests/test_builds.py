"""MkDocs' build and Zensical's build of the same docs/ and mkdocs.yml, compared page by page:
`pytest tests/test_builds.py` (tests/support/compare_builds.py reads the pages).

Both builds have the same pages, each with the same article text, the same charts, tables,
pictures, code blocks, headings and links, and the lesson's two head scripts. What differs is
the theme's own words around the lesson and one title, each stated below with why it is
acceptable; the test fails on any other difference and on a stated one that is gone, so the
list stays true. `python -m tests.support.compare_builds site site-zensical` prints the same
listing for two folders built by `make build` and `make build-zensical`.
"""

from tests.support.compare_builds import compare

# Zensical's theme (its classic variant: Material's look) words a few things of its own. None
# is the lesson's: each is the theme's label for its own part of the page.
KNOWN_CHROME = {
    ("", "Navigation"): "a heading Zensical gives the navigation drawer",
    ("", "Skip to content / Navigation"): "the skip link and that heading on Zensical's 404 page",
    ("Initializing search", "Search / Search"): (
        "Zensical's search is its own (a button opening its dialog, reading search.json), "
        "not Material's box and Lunr index"
    ),
    ("Material for MkDocs", "Zensical"): "the footer's 'Made with'",
    ("Table of contents", "On this page"): "the contents sidebar's heading (phone and desktop)",
}
# Material titles the home page with the site's name alone; Zensical adds the page's title.
KNOWN_TITLES = {
    "index.html": ("Does batching help?", "The question and the answer - Does batching help?")
}
KNOWN_FILES = {
    "mkdocs": [
        "search/search_index.json",
        "sitemap.xml.gz",
    ],  # Material's search index; a gzip copy
    "zensical": ["search.json"],  # Zensical's search index
}


def test_both_builds_hold_the_same_lesson_and_differ_only_as_stated(shared_builds):
    found = compare(shared_builds.sites["mkdocs"], shared_builds.sites["zensical"])
    listing = "\n".join(found.lines("MkDocs", "Zensical"))
    print(listing)  # pytest -s: the comparison, as the issue asks for it
    assert not found.only_first and not found.only_second, listing
    titles = {f"{page}: title {old!r} / {new!r}" for page, (old, new) in KNOWN_TITLES.items()}
    assert set(found.content) == titles, listing
    assert set(found.chrome) == set(KNOWN_CHROME), listing
    assert found.files_only_first == KNOWN_FILES["mkdocs"], listing
    assert found.files_only_second == KNOWN_FILES["zensical"], listing


def test_every_page_has_the_lessons_head_scripts_in_both_builds(shared_builds):
    from tests.support.compare_builds import pages, read_page

    for site in shared_builds.sites.values():
        for page in pages(site):
            scripts = read_page(site / page).head_scripts
            assert scripts == ["site-address.js", "search-later.js"], (site.name, page)


def test_the_comparison_sees_a_changed_sentence_and_a_missing_chart(shared_builds, tmp_path):
    """The comparison can fail: a copy of MkDocs' build with a sentence added, a chart gone."""
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(shared_builds.sites["mkdocs"], copy, ignore=shutil.ignore_patterns("vendor"))
    page = copy / "part-b" / "index.html"
    html = page.read_text()
    assert 'class="chart"' in html and "<p>" in html[html.index("<article") :]
    changed = html.replace('class="chart"', 'class="not-a-chart"', 1)
    article = changed.index("<article")
    changed = changed[:article] + changed[article:].replace("<p>", "<p>A sentence more. ", 1)
    page.write_text(changed)
    found = compare(shared_builds.sites["mkdocs"], copy)
    assert any("part-b/index.html: charts" in line for line in found.content), found.content
    assert any("part-b/index.html: article text" in line for line in found.content), found.content
