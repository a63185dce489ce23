"""The what-ifs the limits page runs: the simulator on stated assumptions, at build time.

site_src/whatifs.json lists each example: `name`, `title`, `call` (simulate()'s keyword
arguments: `b`, `w`, `rate` and the assumed `per_call_us`, `per_row_us` or `overhead_us`)
and `assumed` (what the numbers stand for, in sentences). `examples()` runs the real
site_src/explorer/simulate.py on this campaign's results for each and keeps the call as the
reader types it in the explorer (`box`) and on a command line (`command`), the answer it
printed (`text`), the simulated machine's S, and the setting's and none's numbers (`setting`,
`none`) for the page's words. Used by generator/simulation/validate.py; the report runs them again.
"""

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


def read(path: Path) -> list:
    """The examples of a what-if file, checked for the fields every example needs."""
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8"))["examples"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise WhatIfError(f"{path}: cannot read its `examples` ({error})") from error
    for index, example in enumerate(found):
        for field in ("name", "title", "call", "assumed"):
            if field not in example:
                raise WhatIfError(f"{path}: examples[{index}] has no `{field}`")
        unknown = set(example["call"]) - set(OPTIONS)
        if unknown or not {"b", "w", "rate"} <= set(example["call"]):
            raise WhatIfError(
                f"{path}: examples[{index}].call needs b, w and rate and takes only "
                f"{', '.join(OPTIONS)}; got {sorted(example['call'])}"
            )
    return found


def box_call(call: dict) -> str:
    """The call as the reader types it in the explorer: simulate(32, 2, 1.25, per_row_us=…)."""
    named = [f"{key}={call[key]!r}" for key in ASSUMED_COSTS if key in call]
    return f"simulate({', '.join([repr(call[k]) for k in ('b', 'w', 'rate')] + named)})"


def command_line(call: dict) -> str:
    """The same call from a shell, on the built site's results.json."""
    options = " ".join(f"{OPTIONS[key]} {call[key]!r}" for key in OPTIONS if key in call)
    return f"python site_src/explorer/simulate.py --results docs/assets/data/results.json {options}"


def outcome(sim, results: dict, call: dict) -> dict:
    """The simulated machine's S and the numbers behind the printed answer (same runs)."""
    costs = sim.calibrate(results.get("part_a"), results.get("saturation"), results.get("part_c"))
    costs = sim.with_costs(costs, *(call.get(key) for key in ASSUMED_COSTS))
    share = results.get("design", {}).get("keeps_up_share", sim.KEEPS_UP_SHARE)
    arrival_rate = float(call["rate"]) * costs["S"]
    mine = sim.run(call["b"], call["w"], arrival_rate, costs, keeps_up_share=share)
    plain = sim.baseline(arrival_rate, costs, 8.0, 0, share)
    return {
        "S": costs["S"],
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
        found.append({**example, "box": box_call(call), "command": command_line(call),
                      "text": text, **outcome(sim, results, call)})  # fmt: skip
    return found
