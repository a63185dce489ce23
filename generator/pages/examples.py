"""Explorer examples as files, the way FastAPI's docs include docs_src/: each file in
site_src/examples/ is exactly what a page tells the reader to paste into the explorer.

`run(name, results)` reads site_src/examples/NAME and runs it as the explorer's box does
(site_src/js/explorer-worker.mjs: the reader's functions and `results` in scope, the value of
the last expression is the answer, a str as it is, anything printed first) on a copy of the
results as results.json holds them. A page shows the file and that answer
(`explorer_example(NAME)` in the templates, `m.explorer_example` in _macros.j2);
tests/test_examples.py runs every example a built page shows in the explorer's own Python,
under CPython and in the browser, and compares with the page. A missing file or one that
fails fails the build naming it (ExampleError). Run through `python -m generator build`.
"""

import ast
import contextlib
import io
import json
from pathlib import Path

from site_src.explorer import explorer, simulate

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "site_src" / "examples"
READER_FUNCTIONS = ("lookup", "compare", "part_a", "measured", "batch_route_lookup")


class ExampleError(Exception):
    """An example that cannot be shown; the message names the file and why."""


def copy(results: dict) -> dict:
    return json.loads(json.dumps(results))


def namespace(results: dict, others: tuple = ()) -> dict:
    """What the reader's code sees in the box: its own copy of results, the functions, and
    campaign(NAME): this campaign's results or a compared one's (`others`), as the box's."""
    names = {name: getattr(explorer, name) for name in READER_FUNCTIONS}
    by_name = {(item.get("campaign") or {}).get("name"): item for item in (results, *others)}

    def campaign(name):
        if name not in by_name:
            known = ", ".join(repr(known) for known in by_name)
            raise ValueError(f"campaign({name!r}): no such campaign here; the campaigns are "
                             f"{known}")  # fmt: skip
        return copy(by_name[name])

    return {"results": copy(results), "simulate": simulate.simulate, "campaign": campaign,
            **names}  # fmt: skip


def answer(code: str, results: dict, where: str = "<example>", others: tuple = ()) -> str:
    """What the box prints for `code`: anything printed, then the last expression's value."""
    tree = ast.parse(code, where)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    scope = namespace(results, others)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, where, "exec"), scope)  # noqa: S102 (the site's own example files)
        value = None
        if last is not None:
            value = eval(compile(ast.Expression(last.value), where, "eval"), scope)  # noqa: S307
    text = printed.getvalue()
    if value is not None:
        text += value if isinstance(value, str) else repr(value)
    return text


def run(name: str, results: dict, folder: Path = FOLDER, others: tuple = ()) -> dict:
    """{"file": its path in the repository, "box": its text, "text": the answer}; `others`:
    the compared campaigns' results, for an example that names one with campaign(NAME)."""
    path = Path(folder) / name
    try:
        code = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ExampleError(f"explorer example {name}: cannot read it ({error})") from error
    try:
        text = answer(code, results, str(path), others)
    except Exception as error:  # the example's own failure, named
        raise ExampleError(f"explorer example {name}: {type(error).__name__}: {error}") from error
    return {"file": f"site_src/examples/{name}", "box": code, "text": text}
