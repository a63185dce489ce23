"""The secret scan: detect-secrets over every git-tracked file, against `.secrets.baseline`.

Run: .venv/bin/python tests/secret_scan.py      (part of `make check`)

Exits 1 naming the file, line and kind of every finding the baseline does not list, so a
committed private key or token fails the check. The plugins, the files left out and the
filters are the baseline's own (`filters_used`), so `detect-secrets audit .secrets.baseline`
sees the same. Left out, and why:

- `.venv-uv/`: a third-party virtualenv (pip, uv) that should not be tracked at all; pip's
  vendored urllib3 has a sample `user:pass@` URL and uv's SBOM lists package hashes.
- `.secrets.baseline`: it holds only the hashes of audited findings.
- a sha256 digest or git commit id recorded under a key that names a file, a checksum or a
  commit (`is_a_recorded_digest` below): the data files' and vendored files' pins, and the
  commit and artifact checksums every campaign.json records; and a 40-hex value, or key,
  that is a commit of this repository (the benchmarks' `commits`, results.json's
  `machinery.run_commits` counted by commit), public by construction. Any other
  long hex value is still reported. Binary files (the raw `.run.zip` timings) are skipped by
  detect-secrets.

A line that must hold key-like text (a test's fake key) says so with an inline
`pragma: allowlist secret` comment. To record a reviewed finding instead:
`.venv/bin/detect-secrets scan --baseline .secrets.baseline`, then
`.venv/bin/detect-secrets audit .secrets.baseline`, and commit the baseline.
"""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

from detect_secrets.core import baseline
from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.plugins.high_entropy_strings import HexHighEntropyString

BASELINE = ".secrets.baseline"
# `"model.pkl": "<64 hex>"`, `WHEEL_SHA256 = "<64 hex>"`, `"git_commit": "<40 hex>"`
KEYED_HEX = re.compile(r"""["']?([\w.-]+)["']?\s*[:=]\s*["']([0-9a-f]{40}|[0-9a-f]{64})["']""")
# `"<40 hex>": 23`: a count keyed by commit
HEX_KEY = re.compile(r"""["']([0-9a-f]{40})["']\s*:""")


def is_a_recorded_digest(secret: str, line: str, plugin) -> bool:
    """True (leave it out) when a hex finding is a sha256 digest under a file name or a
    `…sha256` key, or a git commit id under `git_commit` or naming a commit of this repository
    (as a value or as a key)."""
    if not isinstance(plugin, HexHighEntropyString):
        return False
    for key, value in KEYED_HEX.findall(line):
        if value != secret:
            continue
        if len(value) == 64 and ("." in key or key.lower().endswith("sha256")):
            return True
        if len(value) == 40 and (key == "git_commit" or is_a_commit_here(value)):
            return True
    return secret in HEX_KEY.findall(line) and is_a_commit_here(secret)


@functools.cache
def is_a_commit_here(value: str) -> bool:
    """True when `value` names a commit of the repository the scan runs in."""
    done = subprocess.run(
        ["git", "cat-file", "-e", f"{value}^{{commit}}"], capture_output=True, check=False
    )
    return done.returncode == 0


def tracked_files(root: Path) -> list[str]:
    """Every file git tracks (or has staged) that exists here as a regular file."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], check=True, capture_output=True
    ).stdout.decode()
    names = [name for name in listed.split("\0") if name]
    return [name for name in names if (root / name).is_file() and not (root / name).is_symlink()]


def findings() -> SecretsCollection:
    """What the scan finds in the tracked files of the current folder, a repository's root,
    that the baseline does not list."""
    saved = baseline.load(baseline.load_from_file(BASELINE), BASELINE)
    found = SecretsCollection()
    found.scan_files(*tracked_files(Path.cwd()))
    return found - saved


def main() -> int:
    # Paths relative to the root: the baseline's excluded files and custom filter are.
    os.chdir(Path(__file__).resolve().parents[1])
    new = findings()
    if not new:
        print(f"secret scan: no secrets in the tracked files beyond {BASELINE}")
        return 0
    lines = [f"{name}:{secret.line_number}: {secret.type}" for name, secret in new]
    print("secret scan: possible secrets in tracked files:", *sorted(lines), sep="\n  ")
    print("Remove them (and rotate a real key), or review a false alarm and record it as")
    print("tests/secret_scan.py says.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
