"""Marked regions of the lab's own source files, for pages that show the code the tests run.

A region is marked in a file under lab/ by two comment lines, in pymdownx.snippets' syntax:
`# --8<-- [start:NAME]` and `# --8<-- [end:NAME]` (words may follow on the same line).
`region(NAME)` finds the one file that holds it (so a page keeps showing the code when a
file moves), and gives its path, the line number of its first line and its lines without
the markers, dedented. A name marked in no file, in two files, or without its end fails the
build naming it (SourceError). Used by the page templates (`code_region(NAME)`,
generator/pages/render.py) through `python -m generator build`.
"""

import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARK = "# --8<-- [{side}:{name}]"


class SourceError(Exception):
    """A region that cannot be shown; the message names the region and why."""


def marked_files(name: str, root: Path) -> list[Path]:
    start = MARK.format(side="start", name=name)
    return sorted(p for p in (root / "lab").rglob("*.py") if start in p.read_text())


def line_of(lines: list[str], mark: str, after: int) -> int | None:
    """Index of the first line from `after` on that starts with the mark (a comment may
    follow it on the same line)."""
    for index in range(after, len(lines)):
        if lines[index].strip().startswith(mark):
            return index
    return None


def region(name: str, root: Path = ROOT) -> dict:
    """{"path": file relative to the repository, "line": first line, "code": the lines}."""
    found = marked_files(name, root)
    if len(found) != 1:
        where = ", ".join(str(p.relative_to(root)) for p in found) or "no file under lab/"
        raise SourceError(f"source region '{name}': marked in {where} (needs exactly one)")
    lines = found[0].read_text().splitlines()
    begin = line_of(lines, MARK.format(side="start", name=name), 0)
    end_mark = MARK.format(side="end", name=name)
    end = line_of(lines, end_mark, begin)
    if end is None:
        raise SourceError(f"source region '{name}' in {found[0].name}: no '{end_mark}' line")
    inside = [line for line in lines[begin + 1 : end] if not line.strip().startswith("# --8<--")]
    return {
        "path": found[0].relative_to(root).as_posix(),
        "line": begin + 2,
        "code": textwrap.dedent("\n".join(inside)).strip("\n"),
    }
