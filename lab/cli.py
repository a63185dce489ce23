"""Command line of the lab. Each command lives in its own module, which defines
`add_arguments(parser)` and `main(args) -> int`; this file only dispatches to it."""

import argparse
import importlib
import sys

# command -> (module, one-line help). Modules are imported only when their command runs,
# so `python -m lab demo` works with fewer packages installed.
COMMANDS = {
    "data": ("lab.model", "fetch the shop log, build features, train the model and the store"),
    "predict": ("lab.part_a", "Part A: time the model alone on batches of 1 … 1,024 rows"),
    "bits": ("lab.bitcheck", "score every test row alone and in batches; compare to the bit"),
    "serve": ("lab.service", "run the prediction service (FastAPI on uvicorn)"),
    "demo": ("lab.demo", "a short demo for your own computer: model timings and a tiny batcher"),
    "openloop": ("lab.openloop", "drive a running service with Poisson arrivals"),
    "saturate": ("lab.closedloop", "closed loop with 16 connections: measure saturation S"),
    "partc": ("lab.part_c", "Part C: a loop of /predict calls versus /predict_batch chunks"),
    "run": ("lab.runner", "run a whole campaign (Part A, bits, S, Part B, Part C), resumable"),
}

# import name -> the package to install
DISTRIBUTIONS = {"sklearn": "scikit-learn", "yaml": "pyyaml", "jinja2": "Jinja2"}

FRIENDLY = ("ShopDataError", "MissingArtifacts", "RawFileError", "CampaignError")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m lab", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(module=module_name)
    return top


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    top = parser()
    known, _ = top.parse_known_args(argv)
    try:
        module = importlib.import_module(known.module)
    except ModuleNotFoundError as error:
        package = DISTRIBUTIONS.get(error.name, error.name)
        print(
            f"lab {known.command}: missing Python package {package!r} "
            f"(run `make setup`, or `pip install {package}`)",
            file=sys.stderr,
        )
        return 2
    command = argparse.ArgumentParser(
        prog=f"python -m lab {known.command}", description=COMMANDS[known.command][1]
    )
    module.add_arguments(command)
    args = command.parse_args(argv[1:])
    try:
        return int(module.main(args) or 0)
    except Exception as error:
        if type(error).__name__ in FRIENDLY:
            print(f"lab {known.command}: {error}", file=sys.stderr)
            return 2
        raise
