"""The explorer's box under CPython: the very Python the browser's worker runs.

site_src/js/explorer-worker.mjs holds the box's set-up as Python text (SETUP): the reader's
names (`results`, lookup, compare, …, `simulate` with its own checks), and run_reader_code,
which prints what the box prints. `Box(site)` runs that text in CPython on the site's own
files (results.json, explorer.py, simulate.py, simulation.json, as the worker fetches them),
with three stand-ins: the folder the worker writes its modules to (a temporary one, not
/explorer), Pyodide's eval_code (the value of the last expression), and the worker's fetch of
another campaign's results (read from the site's folder). So a test can compare
what a page shows with what the box prints, without a browser (tests/test_examples.py), and
the browser test of the same example then checks Pyodide agrees.
"""

import ast
import re
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "site_src" / "js" / "explorer-worker.mjs"


def setup_source() -> str:
    """The worker's SETUP Python, as written in the .mjs (a template literal without ${})."""
    found = re.search(r"^const SETUP = `\n(.*?)^`;", WORKER.read_text(), re.S | re.M)
    assert found and "${" not in found.group(1), f"{WORKER}: no SETUP template found"
    return found.group(1)


def eval_code(source, globals_, locals_=None, *, filename="<exec>", **_options):
    """Pyodide's pyodide.code.eval_code in CPython: run `source`, return its last expression."""
    tree = ast.parse(source, filename)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), globals_, locals_)  # noqa: S102 (the tests' code)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), filename, "eval"), globals_, locals_)  # noqa: S307


class Box:
    """The box's Python on the built site in `site` (its assets/ as the worker fetches them)."""

    def __init__(self, site: Path):
        assets = self.assets = Path(site) / "assets"
        self.folder = tempfile.TemporaryDirectory(prefix="explorer-box-")
        simulation = assets / "data" / "simulation.json"
        scope = {
            "__name__": "explorer_box",
            "explorer_source": (assets / "explorer" / "explorer.py").read_text(),
            "simulate_source": (assets / "explorer" / "simulate.py").read_text(),
            "results_text": (assets / "data" / "results.json").read_text(),
            "simulation_text": simulation.read_text() if simulation.exists() else "",
        }
        pyodide = types.ModuleType("pyodide")
        pyodide.code = types.ModuleType("pyodide.code")
        pyodide.code.eval_code = eval_code
        saved = {name: sys.modules.get(name) for name in ("pyodide", "pyodide.code")}
        saved_modules = {name: sys.modules.pop(name, None) for name in ("explorer", "simulate")}
        sys.modules.update({"pyodide": pyodide, "pyodide.code": pyodide.code})
        path = list(sys.path)
        try:
            source = setup_source().replace('"/explorer', f'"{self.folder.name}')
            exec(compile(source, "<explorer set-up>", "exec"), scope)  # noqa: S102
        finally:
            sys.path[:] = path
            for name, module in {**saved, **saved_modules}.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
        self.scope = scope

    def run(self, code: str) -> tuple[bool, str]:
        """(ok, printed text) of the reader's `code`, as the box shows it; the campaigns the
        code wants fetched first, from the site's assets/data/campaigns/, as the worker does."""
        for name in self.scope["wanted_campaigns"](code):
            path = self.assets / "data" / "campaigns" / f"{name}.json"
            if path.exists():
                self.scope["load_campaign"](name, path.read_text(), "")
            else:
                self.scope["load_campaign"](name, "", f"{path.name}: HTTP 404")
        ok, text = self.scope["run_reader_code"](code)
        return ok, text

    def close(self):
        self.folder.cleanup()
