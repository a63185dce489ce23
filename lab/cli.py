"""The lab's command line: `python -m lab COMMAND [options]`, and `python -m lab COMMAND --help`
for a command's options.

Each command lives in its own module, which defines `add_arguments(parser)` and
`main(args) -> int`; this file names the commands and dispatches to one. A command's module
is imported only when that command runs, so `python -m lab --help` answers at once and the
demo runs with fewer packages installed. A failure the user can cause (`lab.errors.LabError`,
or a raw file that cannot be read) is one line on stderr and exit 2; anything else is a bug
and keeps its traceback.
"""

import argparse
import importlib
import sys

from lab.errors import LabError
from lab.rawformat.errors import RawFileError

# command -> (module, one-line help), in the order a newcomer meets them.
COMMANDS = {
    "data": (
        "lab.model.build",
        "fetch the shop log, build features, train the model and the store",
    ),
    "demo": ("lab.demo", "a short demo for your own computer: model timings and a tiny batcher"),
    "serve": ("lab.service.serve", "run the prediction service (FastAPI on uvicorn)"),
    "predict": ("lab.parts.part_a", "Part A: time the model alone on batches of 1 … 1,024 rows"),
    "bits": ("lab.parts.bits", "score every test row alone and in batches; compare to the bit"),
    "saturate": ("lab.load.closedloop", "closed loop with 16 connections: measure saturation S"),
    "openloop": ("lab.load.openloop", "drive a running service with Poisson arrivals"),
    "partc": (
        "lab.parts.part_c.command",
        "Part C: a loop of /predict calls versus /predict_batch chunks",
    ),
    "partc-client": (
        "lab.parts.part_c.client",
        "Part C's client for one run, against a running service",
    ),
    "probe": (
        "lab.campaign.probe",
        "time the speed probe on a core: how much this host's speed moves",
    ),
    "run": (
        "lab.campaign.runner",
        "run a whole campaign (Part A, bits, S, Part B, Part C), resumable",
    ),
    "crosscheck": ("lab.load.crosscheck", "S by our closed-loop client versus wrk, side by side"),
}

DESCRIPTION = """\
The lab measures, on one CPU core of this machine, what micro-batching saves and what it
costs for a small model served over HTTP. It writes raw timings to data/raw/."""

EPILOG = """\
Start with `python -m lab data` (once), then `python -m lab demo` (half a minute).
A whole campaign: `python -m lab run --profile quick --campaign my-quick --cpu 1`.
`python -m lab COMMAND --help` lists a command's options."""

# import name -> the package to install, where the two differ
DISTRIBUTIONS = {"sklearn": "scikit-learn"}


def parser() -> argparse.ArgumentParser:
    """The commands, for `python -m lab --help`; each command's options come from its module
    (sub-parsers without their own --help, so `COMMAND --help` reaches the command)."""
    top = argparse.ArgumentParser(
        prog="python -m lab",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return top


def command_parser(name: str, module) -> argparse.ArgumentParser:
    """The parser of one command, with the options its module declares."""
    command = argparse.ArgumentParser(prog=f"python -m lab {name}", description=COMMANDS[name][1])
    module.add_arguments(command)
    return command


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    known, rest = parser().parse_known_args(argv)
    name = known.command
    try:
        module = importlib.import_module(COMMANDS[name][0])
    except ModuleNotFoundError as error:
        package = DISTRIBUTIONS.get(error.name, error.name)
        print(
            f"lab {name}: missing Python package {package!r} "
            f"(run `make setup`, or `pip install {package}`)",
            file=sys.stderr,
        )
        return 2
    args = command_parser(name, module).parse_args(rest)
    try:
        return int(module.main(args) or 0)
    except (LabError, RawFileError) as error:
        print(f"lab {name}: {error}", file=sys.stderr)
        return 2
