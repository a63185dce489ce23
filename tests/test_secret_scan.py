"""The secret scan of `make check` (tests/secret_scan.py) passes on the tracked files and fails,
naming the file, on a private key or an AWS key planted in a copy of them.

The copy is every git-tracked file of this checkout, as on disk, in a local clone under a
temporary folder; the key is made by ssh-keygen (or openssl) at test time, none is ever
committed, and the AWS key is random. Run: .venv/bin/pytest tests/test_secret_scan.py
"""

import re
import secrets
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest
from detect_secrets.plugins.high_entropy_strings import HexHighEntropyString
from detect_secrets.plugins.private_key import PrivateKeyDetector

from tests.secret_scan import is_a_recorded_digest

REPO = Path(__file__).resolve().parents[1]
SCAN = ["tests/secret_scan.py"]  # run with this interpreter from the root, as `make check` does

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier


def git(folder: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *arguments], check=True, capture_output=True, text=True
    )
    return done.stdout


def scan(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *SCAN], cwd=folder, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """A local clone (so this repository's commits are known) holding every file this checkout
    tracks, as it is on disk."""
    copy = tmp_path_factory.mktemp("tracked") / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(REPO), str(copy)], check=True)
    for name in git(REPO, "ls-files", "-z").split("\0"):
        source = REPO / name
        if name and source.is_file() and not source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    git(copy, "add", "-A", "--force")  # exactly the copied files, ignored names included
    return copy


def test_make_check_runs_this_scan():
    recipe = re.search(r"^check:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.M)
    assert recipe is not None, "the Makefile has no check target"
    assert "$(PY) " + " ".join(SCAN) in recipe.group(1)


def test_the_tracked_files_pass(tree: Path):
    done = scan(tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no secrets" in done.stdout


def make_private_key(path: Path) -> None:
    """A real ed25519 private key at `path`: ssh-keygen, else openssl, else skip."""
    if shutil.which("ssh-keygen"):
        command = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "planted", "-f", path]
    elif shutil.which("openssl"):
        command = ["openssl", "genpkey", "-algorithm", "ed25519", "-out", path]
    else:
        pytest.skip("neither ssh-keygen nor openssl is installed to make a key to plant")
    subprocess.run(command, check=True, capture_output=True)


def random_text(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def test_a_planted_private_key_and_aws_key_fail_naming_their_files(tree: Path, tmp_path: Path):
    key_file = "lab/aws/batching-lab-20260101-000000.pem"  # where steps.sh used to write it
    make_private_key(tree / key_file)
    access_key = "AKIA" + random_text(string.ascii_uppercase + "234567", 16)
    secret_key = random_text(string.ascii_letters + string.digits + "/+", 40)
    (tree / "lab" / "aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = {access_key}\naws_secret_access_key = {secret_key}\n"
    )
    # A hex secret is still found: only digests under file, checksum or commit keys are not.
    (tree / "lab" / "settings.py").write_text(f'SESSION_KEY = "{secrets.token_hex(32)}"\n')
    planted = [key_file, "lab/aws/credentials", "lab/settings.py"]
    git(tree, "add", "--force", *planted)
    try:
        done = scan(tree)
    finally:
        git(tree, "rm", "-q", "--cached", *planted)
        for name in [*planted, key_file + ".pub"]:
            (tree / name).unlink(missing_ok=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{key_file}:1: Private Key" in done.stdout
    assert "lab/aws/credentials:2: AWS Access Key" in done.stdout
    assert "lab/settings.py:1: Hex High Entropy String" in done.stdout
    assert access_key not in done.stdout + done.stderr  # it names, never repeats, a secret


@pytest.mark.parametrize(
    ("template", "kind", "left_out"),
    [
        ('    "model.pkl": "{value}",', "sha256", True),
        ('WHEEL_SHA256 = "{value}"', "sha256", True),
        ('        tarball_sha256="{value}",', "sha256", True),
        ('{{"git_commit":"{other}","log_sha256":"{value}","size":1}}', "sha256", True),
        ('  "git_commit": "{value}",', "commit", True),
        ('  "api_key": "{value}",', "sha256", False),
        ('SECRET_KEY = "{value}"', "sha256", False),
        ('{{"log_sha256":"{other}","api_key":"{value}"}}', "sha256", False),
        ('  "token": "{value}",', "commit", False),
        ('  "model.pkl": "{value}",', "commit", False),  # 40 hex is no sha256
        ('  "git_commit": "{value}",', "sha256", False),  # 64 hex is no commit id
        ('  "old": "{value}",', "commit", False),  # 40 hex, no commit of this repository
    ],
)
def test_only_digests_under_file_checksum_or_commit_keys_are_left_out(template, kind, left_out):
    value = secrets.token_hex(32 if kind == "sha256" else 20)
    line = template.format(value=value, other=secrets.token_hex(32 if kind == "commit" else 20))
    assert is_a_recorded_digest(value, line, HexHighEntropyString()) is left_out
    assert not is_a_recorded_digest(value, line, PrivateKeyDetector())  # other plugins: kept


def test_a_commit_of_this_repository_is_left_out_under_any_key():
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    line = f'  "new": "{head}",'
    assert is_a_recorded_digest(head, line, HexHighEntropyString())
    assert not is_a_recorded_digest(head, f'  "new": "{head[::-1]}",', HexHighEntropyString())


def test_a_commit_of_this_repository_is_left_out_as_a_key():
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    line = f'{{"run_commits":{{"{head}":23}}}}'
    assert is_a_recorded_digest(head, line, HexHighEntropyString())
    other = head[::-1]  # 40 hex, no commit of this repository
    assert not is_a_recorded_digest(
        other, f'{{"run_commits":{{"{other}":23}}}}', HexHighEntropyString()
    )
