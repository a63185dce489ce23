"""The code is ruff-clean (lint and format), as `make check` demands.

Run: `.venv/bin/pytest tests/test_style.py`.
"""

import subprocess
import sys

from lab.paths import REPO


def ruff(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *arguments], cwd=REPO,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_ruff_lint_is_clean():
    done = ruff("check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean():
    done = ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
