"""Named figures survive a percentile that landed on a never-answered request (null).

Run: `.venv/bin/pytest tests/test_figures.py`.
"""

import json
import math
from pathlib import Path

from generator import figures

GOLDEN = Path(__file__).parent / "fixtures" / "golden" / "assets" / "data" / "results.json"


def test_a_null_p99_makes_the_worst_p99_infinite_instead_of_crashing():
    results = json.loads(GOLDEN.read_text())
    name, setting = next(iter(results["part_b"]["settings"].items()))
    rate = next(iter(setting["rates"]))
    setting["rates"][rate]["p99_ms"] = None
    computed = figures.compute(results)
    assert math.isinf(computed[f"{figures.slug(name)}_p99_ms_max"]["value"])
