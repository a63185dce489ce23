"""Rebuild a campaign's description sidecar from the git history at the campaign's commit.

Campaigns measured before campaign.json described itself are judged by what the code said
when they started, read at the commit their campaign.json records (`git_commit`):
  lab/design.py         GUESSES, KEEPS_UP_SHARE, the "Told apart:" paragraph of its
                        docstring, and the profile's quiet_seconds and quiet_tries
  lab/machine.py        the quiet check's thresholds: quiet_check's defaults (lab/runs.py,
                        the runner's only caller, is checked to pass no threshold)
  generator/figures.py  HALF_S and BUSY, the quiet and busy rates the pages name
  lab/server_timing.py  PREDICT_NAMES and BATCH_ROUTE_NAMES, the stages each route reports
It writes campaign.description.json beside campaign.json: a new file, since raw files are
append-only. Running it again writes the same bytes.

    python data/rebuild_description.py data/raw/full-20261129          # write the sidecar
    python data/rebuild_description.py --check data/raw/full-20261129  # exit 1 if it differs
"""

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a file (`python data/rebuild_description.py`)
    sys.path.insert(0, str(ROOT))

from generator.reading import description  # noqa: E402 (the checker the generator reads it with)

TOLD_APART_WORDING = {"all rounds agree in sign": "all_rounds_agree_in_sign"}


class RebuildError(Exception):
    """The history does not give a value the description needs; the message says which."""


def git_show(commit: str, path: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RebuildError(f"git show {commit}:{path} failed: {done.stderr.strip()}")
    return done.stdout


def design_at(commit: str) -> dict:
    """lab/design.py as it stood at the commit, run in its own namespace (it defines data
    only: settings, profiles and the guesses)."""
    namespace = {"__name__": "design_at_commit"}
    source = git_show(commit, "lab/design.py")
    exec(compile(source, f"{commit}:lab/design.py", "exec"), namespace)
    return namespace


def told_apart(docstring: str) -> dict:
    """The design's own sentence for the told-apart rule, and the rule it states."""
    found = re.search(r"Told apart: (.*?)(?:\n\n|\n[A-Z][a-z ]+: |$)", docstring, re.S)
    if not found:
        raise RebuildError("lab/design.py: no 'Told apart:' paragraph in the docstring")
    sentence = " ".join(found.group(1).split())
    rules = [rule for words, rule in TOLD_APART_WORDING.items() if words in sentence]
    if len(rules) != 1:
        raise RebuildError(f"lab/design.py: the told-apart rule is not one known: {sentence!r}")
    return {"rule": rules[0], "text": sentence[0].upper() + sentence[1:]}


def function_defaults(source: str, name: str) -> dict:
    """{argument: default} of a module-level function, literal defaults only."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            arguments = node.args.args[len(node.args.args) - len(node.args.defaults) :]
            named = zip(arguments, node.args.defaults, strict=True)
            found = {a.arg: ast.literal_eval(d) for a, d in named}
            kw_named = zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
            found.update({a.arg: ast.literal_eval(d) for a, d in kw_named if d is not None})
            return found
    raise RebuildError(f"no function {name}()")


def constants(source: str, wanted: tuple, where: str) -> dict:
    """Module-level NAME = literal assignments (also `A, B = 1, 2`)."""
    found = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        pairs = [(target, value)]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            pairs = list(zip(target.elts, value.elts, strict=True))
        for name, literal in pairs:
            if isinstance(name, ast.Name) and name.id in wanted:
                found[name.id] = ast.literal_eval(literal)
    missing = [name for name in wanted if name not in found]
    if missing:
        raise RebuildError(f"{where}: no {', '.join(missing)}")
    return found


THRESHOLDS = ("idle_share", "other_cores_idle_share")


def quiet_thresholds(commit: str) -> dict:
    """quiet_check's default thresholds, once the runner is seen to pass none of its own."""
    defaults = function_defaults(git_show(commit, "lab/machine.py"), "quiet_check")
    for node in ast.walk(ast.parse(git_show(commit, "lab/runs.py"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "quiet_check":
            passed = {k.arg for k in node.keywords} & set(THRESHOLDS)
            if passed or len(node.args) > 1:
                raise RebuildError("lab/runs.py passes its own quiet thresholds: read them there")
    return {"idle_share": defaults["idle_share"],
            "other_core_idle_share": defaults.get("other_cores_idle_share")}  # fmt: skip


def rebuild(folder: Path) -> dict:
    """The sidecar's content for one campaign folder."""
    info = json.loads((folder / description.CAMPAIGN_FILE).read_text())
    commit = info["git_commit"]
    design = design_at(commit)
    profile = design["PROFILES"][info["profile"]]
    recorded = info["design"]
    for name in ("quiet_seconds", "quiet_tries"):
        if recorded.get(name) != getattr(profile, name):
            raise RebuildError(f"campaign.json design.{name} is not the profile's at {commit}")
    quiet = quiet_thresholds(commit)
    rates = constants(git_show(commit, "generator/figures.py"), ("HALF_S", "BUSY"), "figures.py")
    stages = constants(
        git_show(commit, "lab/server_timing.py"),
        ("PREDICT_NAMES", "BATCH_ROUTE_NAMES"),
        "server_timing.py",
    )
    return {
        "description_version": description.VERSION,
        "rules": {
            "keeps_up_share": design["KEEPS_UP_SHARE"],
            "told_apart": told_apart(design["__doc__"]),
            "quiet": {
                **quiet,
                "seconds": profile.quiet_seconds,
                "tries": profile.quiet_tries,
            },
        },
        "guesses": {"git_commit": commit, "items": [dict(g) for g in design["GUESSES"]]},
        "names": {
            "quiet_rate": rates["HALF_S"],
            "busy_rate": rates["BUSY"],
            "predict_stages": list(stages["PREDICT_NAMES"]),
            "batch_route_stages": list(stages["BATCH_ROUTE_NAMES"]),
        },
        "rebuilt_from": {
            "git_commit": commit,
            "by": "data/rebuild_description.py",
            "why": "the campaign ran before campaign.json described itself; raw files are "
            "append-only, so its description is this file beside campaign.json",
            "read": {
                "lab/design.py": "GUESSES, KEEPS_UP_SHARE, the 'Told apart:' paragraph, "
                f"PROFILES['{info['profile']}'].quiet_seconds and quiet_tries",
                "lab/machine.py": "quiet_check's defaults idle_share and other_cores_idle_share"
                + (
                    ""
                    if quiet["other_core_idle_share"] is not None
                    else " (not there yet: the check did not look at the other cores, so null)"
                ),
                "lab/runs.py": "the runner's quiet_check call passes no threshold",
                "generator/figures.py": "HALF_S (quiet_rate) and BUSY (busy_rate)",
                "lab/server_timing.py": "PREDICT_NAMES and BATCH_ROUTE_NAMES",
            },
        },
    }


def as_text(content: dict) -> str:
    return json.dumps(content, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("campaigns", nargs="+", type=Path, help="campaign folders")
    parser.add_argument("--check", action="store_true", help="compare with the file, write none")
    args = parser.parse_args(argv)
    status = 0
    for folder in args.campaigns:
        target = folder / description.SIDECAR
        try:
            text = as_text(rebuild(folder))
            description.check(json.loads(text), target)
        except (RebuildError, description.DescriptionError, OSError, KeyError) as error:
            print(f"{folder}: {type(error).__name__}: {error}", file=sys.stderr)
            return 2
        if args.check:
            same = target.exists() and target.read_text() == text
            print(f"{target}: {'as rebuilt' if same else 'DIFFERS from the rebuild'}")
            status = status or (0 if same else 1)
        else:
            target.write_text(text)
            print(f"{target}: written from {json.loads(text)['rebuilt_from']['git_commit']}")
    return status


if __name__ == "__main__":
    sys.exit(main())
