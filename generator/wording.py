"""How a number reads on a page and in a picture: the page templates' filters (num, ms, us,
pct, times, rate, yesno; generator/pages/render.py registers them) and the pictures' labels
(generator/charts/drawings.py) write numbers the same way: 3 significant digits with thousands
separators, units after a space, an infinite or missing value as "never answered". Run through
`python -m generator build`.
"""

import math

NEVER = "never answered"


def is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isinf(value))


def significant(value: float, digits: int = 3) -> str:
    """3 significant digits with thousands separators; integers from 100 up shown whole."""
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(digits - 1 - magnitude, 0)
    return f"{value:,.{decimals}f}"


def num(value, digits: int | None = None) -> str:
    if is_missing(value):
        return NEVER
    if isinstance(value, bool):
        return yesno(value)
    if digits is not None:
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return significant(value)


def ms(value) -> str:
    if is_missing(value):
        return NEVER
    if abs(value) >= 1000:
        return f"{significant(value / 1000)} s"
    return f"{significant(value)} ms"


def us(value) -> str:
    return NEVER if is_missing(value) else f"{significant(value)} µs"


def pct(share) -> str:
    return NEVER if is_missing(share) else f"{significant(share * 100)}%"


def times(value) -> str:
    return NEVER if is_missing(value) else f"{significant(value)}×"


def rate(key) -> str:
    return f"{key} × S"


def yesno(value) -> str:
    return "yes" if value else "no"


def quoted(value) -> str:
    """A reference fact as the brief wrote it: thousands separated, no digit added or lost."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float) and abs(value) >= 1000:
        whole, _, fraction = repr(value).partition(".")
        text = f"{int(whole):,}"
        return f"{text}.{fraction}" if fraction and fraction != "0" else text
    return str(value)
