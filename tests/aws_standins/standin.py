"""Stand-in for `aws`, `ssh` and `scp`, used by tests/test_aws_steps.py (not run by hand).

The test puts wrappers named aws, ssh and scp first on PATH; each runs
`python standin.py PROGRAM ARGS...`. The stand-in

- appends {"program", "argv", "stdin"} as one JSON line to $STANDIN_LOG (ssh's standard
  input is the script it would run on the box, unless `-n` is given);
- for scp, copies files between the local disk and $STANDIN_BOX, the box's home folder;
- answers with the first rule in the JSON list $STANDIN_RULES whose `program` matches and
  whose every `contains` string occurs in the arguments or the standard input: prints its
  `stdout` and exits with its `rc` (default 0). No matching rule: no output, exit 0.
"""

import json
import os
import re
import shutil
import sys
from pathlib import Path

SCP_OPTIONS_WITH_VALUE = {"-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"}
REMOTE = re.compile(r"^(?:[^@/:]+@)?[^/:]+:(.*)$")


def read_stdin(program: str, argv: list[str]) -> str:
    if program != "ssh" or "-n" in argv:
        return ""
    return sys.stdin.read()


def record(program: str, argv: list[str], stdin: str) -> None:
    with open(os.environ["STANDIN_LOG"], "a") as log:
        log.write(json.dumps({"program": program, "argv": argv, "stdin": stdin}) + "\n")


def answer(program: str, argv: list[str], stdin: str) -> int:
    rules = json.loads(Path(os.environ["STANDIN_RULES"]).read_text())
    text = " ".join(argv) + "\n" + stdin
    for rule in rules:
        if rule["program"] == program and all(part in text for part in rule["contains"]):
            sys.stdout.write(rule.get("stdout", ""))
            return int(rule.get("rc", 0))
    return 0


def box_path(remote_path: str) -> Path:
    """Where a remote path (relative to the login's home) lives in the stand-in box."""
    return Path(os.environ["STANDIN_BOX"]) / remote_path.lstrip("/")


def copy(source: Path, target: Path, recursive: bool) -> None:
    if target.is_dir():
        target = target / source.name
    if source.is_dir():
        if not recursive:
            raise OSError(f"{source}: not a regular file (use -r)")
        shutil.copytree(source, target, dirs_exist_ok=True)
    elif source.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    else:
        raise OSError(f"{source}: No such file or directory")


def scp(argv: list[str]) -> int:
    paths, recursive, index = [], False, 0
    while index < len(argv):
        arg = argv[index]
        if arg in SCP_OPTIONS_WITH_VALUE:
            index += 2
            continue
        if arg.startswith("-"):
            recursive = recursive or "r" in arg
        else:
            paths.append(arg)
        index += 1
    *sources, target = paths

    def where(spec: str) -> Path:
        match = REMOTE.match(spec)
        return box_path(match.group(1)) if match else Path(spec)

    try:
        if target.endswith(":"):  # the login's home on the box
            where(target).mkdir(parents=True, exist_ok=True)
        for source in sources:
            copy(where(source), where(target), recursive)
    except OSError as error:
        print(f"scp: {error}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    program, argv = sys.argv[1], sys.argv[2:]
    stdin = read_stdin(program, argv)
    record(program, argv, stdin)
    if program == "scp" and scp(argv) != 0:
        return 1
    return answer(program, argv, stdin)


if __name__ == "__main__":
    sys.exit(main())
