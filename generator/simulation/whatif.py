"""The what-ifs the limits page runs: the simulator on stated assumptions, at build time.

site_src/whatifs.json lists each example: `name`, `title`, `example` (a file in
site_src/examples/ holding the one call the reader pastes into the explorer,
`simulate(results, b, w, rate, per_call_us=…, per_row_us=…)`) and `assumed` (what the numbers
stand for, in sentences). `examples()` reads each call's arguments from its file (`call`:
`b`, `w`, `rate` and the assumed `per_call_us`, `per_row_us` or `overhead_us`), runs the real
site_src/explorer/simulate.py on this campaign's results and keeps the file's text as the
reader pastes it (`box`, and its path, `file`), the same call on a command line (`command`),
the answer it printed (`text`), the simulated machine's S, and the setting's and none's
numbers (`setting`, `none`) for the page's words. tests/test_examples.py runs each file in
the explorer's own Python (CPython and the browser) and compares with `text`. Used by
generator/simulation/validate.py; the report runs them again.
"""

import ast
import inspect
import json
from pathlib import Path

from generator.reading.load import DataError

ASSUMED_COSTS = ("per_call_us", "per_row_us", "overhead_us")
OPTIONS = {"b": "--max-batch", "w": "--max-wait-ms", "rate": "--rate",
           "per_call_us": "--per-call-us", "per_row_us": "--per-row-us",
           "overhead_us": "--overhead-us"}  # fmt: skip
OUTCOME = ("p50_ms", "p99_ms", "throughput", "offered_rate", "keeps_up", "mean_batch_size")


class WhatIfError(DataError):
    """A what-if file the generator cannot run; the message names the file and the field."""


POSITIONAL = ("b", "w", "rate")


def call_of(code: str, where: str) -> dict:
    """simulate()'s arguments in an example file: one call, results first, then literals."""
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        raise WhatIfError(f"{where}: not Python ({error})") from error
    body = tree.body
    call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "simulate" and call.args
            and isinstance(call.args[0], ast.Name) and call.args[0].id == "results"):  # fmt: skip
        raise WhatIfError(f"{where}: needs one call simulate(results, b, w, rate, ...)")
    try:
        found = dict(zip(POSITIONAL, (ast.literal_eval(a) for a in call.args[1:]), strict=False))
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg in found:
                raise WhatIfError(f"{where}: `{keyword.arg}` given twice")
            found[keyword.arg] = ast.literal_eval(keyword.value)
    except ValueError as error:
        raise WhatIfError(f"{where}: every argument after results is a number") from error
    if len(call.args) > 1 + len(POSITIONAL):
        raise WhatIfError(f"{where}: simulate() takes results, b, w, rate, then names")
    return found


def read(path: Path) -> list:
    """The examples of a what-if file, each with its `file` (site_src/examples/…), its text
    (`box`) and its call's arguments (`call`), checked for the fields every example needs."""
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8"))["examples"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise WhatIfError(f"{path}: cannot read its `examples` ({error})") from error
    folder = Path(path).parent / "examples"
    for index, example in enumerate(found):
        for field in ("name", "title", "example", "assumed"):
            if field not in example:
                raise WhatIfError(f"{path}: examples[{index}] has no `{field}`")
    for index, example in enumerate(found):
        file = folder / example["example"]
        where = f"{path}: examples[{index}] ({file.parent.parent.name}/examples/{file.name})"
        try:
            example["box"] = file.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise WhatIfError(f"{where}: cannot read it ({error})") from error
        example["file"] = f"{file.parent.parent.name}/examples/{file.name}"
        example["call"] = call_of(example["box"], where)
        unknown = set(example["call"]) - set(OPTIONS)
        if unknown or not {"b", "w", "rate"} <= set(example["call"]):
            raise WhatIfError(
                f"{where}: the call needs b, w and rate and takes only "
                f"{', '.join(OPTIONS)}; got {sorted(example['call'])}"
            )
    return found


def command_line(call: dict) -> str:
    """The same call from a shell, on the built site's results.json."""
    options = " ".join(f"{OPTIONS[key]} {call[key]!r}" for key in OPTIONS if key in call)
    return f"python site_src/explorer/simulate.py --results docs/assets/data/results.json {options}"


def outcome(sim, results: dict, call: dict) -> dict:
    """The simulated machine's S and the numbers behind the printed answer (same runs)."""
    costs = sim.calibrate_results(results)
    costs = sim.with_costs(costs, *(call.get(key) for key in ASSUMED_COSTS))
    share = results.get("design", {}).get("keeps_up_share", sim.KEEPS_UP_SHARE)
    arrival_rate = float(call["rate"]) * costs["S"]
    mine = sim.run(call["b"], call["w"], arrival_rate, costs, keeps_up_share=share)
    plain = sim.baseline(arrival_rate, costs, 8.0, 0, share)
    return {
        "S": costs["S"],
        "window_s": inspect.signature(sim.simulate).parameters["window_s"].default,
        "model_us_1": sim.model_table(costs, 1)[1],
        "outside_us": sim.one_row_us(costs) - sim.model_table(costs, 1)[1],
        "setting": {key: mine[key] for key in OUTCOME},
        "none": {key: plain[key] for key in OUTCOME},
    }


def examples(results: dict, path: Path, sim) -> list:
    """Each example of `path`, run on `results` by the simulator `sim`."""
    found = []
    for example in read(path):
        call = example["call"]
        text = sim.simulate(results, **call)
        found.append({**example, "command": command_line(call), "text": text,
                      **outcome(sim, results, call)})  # fmt: skip
    return found
