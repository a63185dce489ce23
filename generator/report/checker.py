"""The report's comparison of a published number with the one it recomputed: `Checker`
counts every check and raises `Disagreement` on the first that fails (`agrees`: exact for
counts, yes/no and names, floats within RELATIVE_TOLERANCE: results.json rounds to 5
significant digits, an error of at most 5e-5). Used by every check of `python -m generator
report` (generator/report/checks.py).
"""

import math

RELATIVE_TOLERANCE = 1e-4


class Disagreement(Exception):
    """A published number that the raw data does not give."""


def agrees(published, computed) -> bool:
    """Exact for counts, yes/no, names and lists of them; floats within the tolerance."""
    if isinstance(computed, list):
        return (
            isinstance(published, list)
            and len(published) == len(computed)
            and all(agrees(p, c) for p, c in zip(published, computed, strict=True))
        )
    exact = isinstance(computed, bool | str) or computed is None
    if exact or (isinstance(computed, int) and not isinstance(published, float)):
        return published == computed and type(published) is type(computed)
    if isinstance(computed, float) and math.isinf(computed):
        return published is None
    number = isinstance(published, int | float) and not isinstance(published, bool)
    return number and abs(published - computed) <= RELATIVE_TOLERANCE * abs(computed) + 1e-9


class Checker:
    """Compares published values with recomputed ones and counts what it checked."""

    def __init__(self):
        self.count = 0

    def same(self, name: str, published, computed) -> None:
        self.count += 1
        if not agrees(published, computed):
            raise Disagreement(
                f"{name}: results.json has {published!r}, the raw data gives {computed!r}"
            )

    def dig(self, results: dict, path: tuple, computed) -> None:
        value = results
        for key in path:
            if isinstance(value, list) and isinstance(key, int) and key < len(value):
                value = value[key]
                continue
            if not isinstance(value, dict) or key not in value:
                raise Disagreement(
                    f"{'/'.join(map(str, path))}: missing from results.json "
                    f"(the raw data gives {computed!r})"
                )
            value = value[key]
        self.same("/".join(map(str, path)), value, computed)
