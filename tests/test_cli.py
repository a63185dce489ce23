"""The command line a person uses: `python -m lab --help` lists the commands in words for
users, `python -m lab COMMAND --help` shows that command's own options, and a failure the
user can cause is one line naming the command, with exit 2 and no traceback.

Run: `.venv/bin/pytest tests/test_cli.py`.
"""

import argparse
import importlib
import os
import subprocess
import sys

import pytest

from lab import cli
from lab.paths import REPO

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier


def lab(*arguments, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lab", *map(str, arguments)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)  # fmt: skip


class Recorder(argparse.ArgumentParser):
    """A parser that notes every option a command's module declares for users."""

    def __init__(self):
        self.declared = []  # before the base class adds --help through add_argument
        super().__init__()

    def add_argument(self, *names, **kwargs):
        if kwargs.get("help") is not argparse.SUPPRESS:
            self.declared += [name for name in names if name.startswith("--")]
        return super().add_argument(*names, **kwargs)


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_command_shows_its_own_options(name, capsys):
    recorder = Recorder()
    importlib.import_module(cli.COMMANDS[name][0]).add_arguments(recorder)
    assert recorder.declared, f"{name} declares no options"
    with pytest.raises(SystemExit) as done:
        cli.main([name, "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"usage: python -m lab {name} ")
    assert cli.COMMANDS[name][1] in shown.replace("\n", " ")
    for option in recorder.declared:
        assert option in shown, f"{name} --help does not show {option}"


def test_the_top_level_help_speaks_to_users():
    done = lab("--help")
    assert done.returncode == 0
    for name in cli.COMMANDS:
        assert f"\n    {name}" in done.stdout
    assert "python -m lab data" in done.stdout and "COMMAND --help" in done.stdout
    for developer_word in ("add_arguments", "dispatch", "module", "main(args"):
        assert developer_word not in done.stdout


def test_a_command_help_through_the_real_entry_point():
    done = lab("serve", "--help")
    assert done.returncode == 0
    assert "--max-batch" in done.stdout and "--max-wait-ms" in done.stdout


def test_no_command_or_an_unknown_one_is_a_usage_error():
    for arguments in ((), ("launch-everything",)):
        done = lab(*arguments)
        assert done.returncode == 2 and "usage: python -m lab" in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "arguments",
    [
        ("bits", "--rows", "4", "--campaign", "c"),
        ("predict", "--runs", "1", "--campaign", "c"),
        ("openloop", "--port", "9", "--arrival-rate", "1", "--seed", "1", "--out", "x.run.zip"),
        ("partc", "--runs", "1", "--campaign", "c"),
        ("run", "--profile", "quick", "--campaign", "c"),
        ("demo",),
    ],
    ids=lambda arguments: arguments[0],
)
def test_no_model_yet_is_one_clear_line_and_exit_2(tmp_path, arguments):
    env = {**os.environ, "LAB_HOME": str(tmp_path / "home"), "LAB_RAW": str(tmp_path / "raw")}
    done = lab(*arguments, env=env)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"lab {arguments[0]}: no model in ")
    assert "run `python -m lab data` first" in lines[0]
    assert not (tmp_path / "raw").exists() or not list((tmp_path / "raw").rglob("*.run.zip"))


def test_an_unreadable_campaign_file_is_one_clear_line(tmp_path, lab_artifacts):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "campaign.json").write_text("{ not json")
    done = lab("run", "--profile", "quick", "--campaign", "broken",
               env={**os.environ, "LAB_RAW": str(tmp_path)})  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("lab run: ") and "campaign.json" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
