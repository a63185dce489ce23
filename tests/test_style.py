"""The code is ruff-clean (lint and format), as `make check` demands, and the lab's imports
sit at the top of its modules (none hidden in a function to dodge a circle; the import
rules themselves are `make check`'s import-linter contracts in pyproject.toml), and no test
module imports another: what tests share is tests/support/ (and tests/conftest.py).

Run: `.venv/bin/pytest tests/test_style.py`.
"""

import ast
import subprocess
import sys

from lab.paths import REPO


def ruff(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *arguments], cwd=REPO,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_ruff_lint_is_clean(processes):
    done = ruff("check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean(processes):
    done = ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_lab_imports_at_the_top_of_its_modules():
    hidden = []
    for path in sorted((REPO / "lab").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                hidden += [
                    f"{path.relative_to(REPO)}:{node.lineno}"
                    for node in ast.walk(function)
                    if isinstance(node, ast.Import | ast.ImportFrom)
                ]
    assert not hidden, hidden


def test_no_test_module_imports_another():
    tests = REPO / "tests"
    names = {path.stem for path in tests.glob("*.py")}
    found = []
    for path in sorted(tests.glob("test_*.py")) + sorted((tests / "support").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported = [node.module]
            else:
                continue
            for name in imported:
                module = name.removeprefix("tests.")
                if module.startswith("test_") or module in names - {"conftest", "secret_scan"}:
                    found.append(f"{path.relative_to(REPO)}:{node.lineno} imports {name}")
    assert not found, "\n".join(found)
