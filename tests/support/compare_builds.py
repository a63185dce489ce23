"""Two builds of the site compared page by page: the same pages, the same text, the same charts,
tables and code; what differs, listed. For tests/test_builds.py (MkDocs' build against
Zensical's) and by hand:

    .venv/bin/python -m tests.support.compare_builds site site-zensical

Each page (every .html file) is read into its parts: the title, the text of its article (the
lesson itself), the text of everything else on the page (the theme's header, navigation,
search, footer: "chrome"), the counts of what the article holds (charts, tables, pictures,
code blocks, headings, links with an address) and the lesson's scripts in <head>. Scripts,
styles and inline SVG are not text. Differences come back as sentences, and the chrome's as
(first build's words, second build's words) pairs, so a test can hold them to a stated list.
"""

import difflib
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

NOT_TEXT = {"script", "style", "svg", "template"}
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
THEME_FILES = ("assets/javascripts/", "assets/stylesheets/", "assets/images/")


@dataclass
class Page:
    title: str = ""
    article: list = field(default_factory=list)  # text runs of <article>
    chrome: list = field(default_factory=list)  # text runs outside it
    counts: dict = field(default_factory=dict)  # what the article holds
    head_scripts: list = field(default_factory=list)  # the lesson's scripts in <head>


class Reader(HTMLParser):
    """One page's parts (`Page`), read in one pass."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.page = Page(counts=dict.fromkeys(
            ("charts", "tables", "pictures", "code blocks", "headings", "links"), 0
        ))  # fmt: skip
        self.open: list[str] = []
        self.hidden = 0  # inside a script, style or svg
        self.article = 0  # inside <article>
        self.in_head = False
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "head":
            self.in_head = True
        if tag == "title" and self.in_head:  # not an SVG picture's title
            self.in_title = True
        if (
            self.in_head
            and tag == "script"
            and "/assets/js/" in "/" + (attributes.get("src") or "")
        ):
            self.page.head_scripts.append(attributes["src"].rsplit("/", 1)[-1])
        if tag == "article":
            self.article += 1
        if self.article:
            self.count(tag, attributes)
        if tag in NOT_TEXT:
            self.hidden += 1
        if tag not in VOID:
            self.open.append(tag)

    def count(self, tag: str, attributes: dict) -> None:
        classes = (attributes.get("class") or "").split()
        counts = self.page.counts
        counts["charts"] += tag == "div" and "chart" in classes
        counts["tables"] += tag == "table"
        counts["pictures"] += tag == "img" or (tag == "svg" and not self.hidden)
        counts["code blocks"] += tag == "pre"
        counts["headings"] += tag in ("h1", "h2", "h3", "h4", "h5", "h6")
        counts["links"] += tag == "a" and "href" in attributes and "headerlink" not in classes

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == "title":
            self.in_title = False
        if tag in NOT_TEXT:
            self.hidden -= 1
        if tag == "article":
            self.article -= 1
        if tag not in VOID and tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_data(self, data):
        text = " ".join(data.split())
        if not text:
            return
        if self.in_title:
            self.page.title += text
        elif not self.hidden:
            (self.page.article if self.article else self.page.chrome).append(text)


def read_page(path: Path) -> Page:
    reader = Reader()
    reader.feed(path.read_text())
    return reader.page


def pages(site: Path) -> list[str]:
    """Every page of a build (its .html files, relative), the theme's own files left out."""
    return sorted(
        str(path.relative_to(site)) for path in site.rglob("*.html")
        if not str(path.relative_to(site)).startswith(THEME_FILES)
    )  # fmt: skip


def files(site: Path) -> set[str]:
    """Every file of a build but the theme's own (scripts, styles, icons: each builder ships its
    theme's) and the pages."""
    return {
        str(path.relative_to(site)) for path in site.rglob("*")
        if path.is_file() and path.suffix != ".html"
        and not str(path.relative_to(site)).startswith(THEME_FILES)
    }  # fmt: skip


def changed_words(first: list, second: list) -> list[tuple[str, str]]:
    """(the first's words, the second's words) for each run of text that differs."""
    found = []
    matcher = difflib.SequenceMatcher(a=first, b=second, autojunk=False)
    for kind, a0, a1, b0, b1 in matcher.get_opcodes():
        if kind != "equal":
            found.append((" / ".join(first[a0:a1]), " / ".join(second[b0:b1])))
    return found


@dataclass
class Comparison:
    """What differs between two builds (empty lists: nothing)."""

    only_first: list  # pages only the first build has
    only_second: list
    content: list  # sentences: a page's title, article text, counts or head scripts differ
    chrome: dict  # {(first's words, second's words): [pages]} outside the article
    files_only_first: list  # other files (data, search index, sitemap) only one build has
    files_only_second: list

    def lines(self, first: str, second: str) -> list[str]:
        """Every difference as a line to read."""
        out = [f"page only in {first}: {p}" for p in self.only_first]
        out += [f"page only in {second}: {p}" for p in self.only_second]
        out += self.content
        for (old, new), where in sorted(self.chrome.items()):
            out.append(f"theme text {old!r} in {first} is {new!r} in {second} ({len(where)} pages)")
        out += [f"file only in {first}: {f}" for f in self.files_only_first]
        out += [f"file only in {second}: {f}" for f in self.files_only_second]
        return out


def compare(first: Path, second: Path) -> Comparison:
    a, b = pages(first), pages(second)
    content, chrome = [], {}
    for name in sorted(set(a) & set(b)):
        one, other = read_page(first / name), read_page(second / name)
        if one.title != other.title:
            content.append(f"{name}: title {one.title!r} / {other.title!r}")
        for old, new in changed_words(one.article, other.article):
            content.append(f"{name}: article text {old[:120]!r} / {new[:120]!r}")
        for what, count in one.counts.items():
            if count != other.counts[what]:
                content.append(f"{name}: {what} {count} / {other.counts[what]}")
        if one.head_scripts != other.head_scripts:
            content.append(f"{name}: head scripts {one.head_scripts} / {other.head_scripts}")
        for pair in changed_words(one.chrome, other.chrome):
            chrome.setdefault(pair, []).append(name)
    fa, fb = files(first), files(second)
    return Comparison(
        only_first=sorted(set(a) - set(b)),
        only_second=sorted(set(b) - set(a)),
        content=content,
        chrome=chrome,
        files_only_first=sorted(fa - fb),
        files_only_second=sorted(fb - fa),
    )


def main(argv=None) -> int:
    first, second = (Path(arg) for arg in (argv or sys.argv[1:]))
    found = compare(first, second)
    for line in found.lines(str(first), str(second)):
        print(line)
    print(f"{len(pages(first))} pages in {first}, {len(pages(second))} in {second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
