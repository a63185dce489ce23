"""How a number reads on a page and in a picture: the page templates' filters (num, ms, us,
pct, times, rate, yesno, megabytes; generator/pages/render.py registers them) and the
pictures' labels (generator/charts/drawings.py) write numbers the same way: 3 significant
digits with thousands separators, units after a space, an infinite or missing value as "never
answered". Run through `python -m generator build`.
"""

import math
import re

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


def megabytes(count) -> str:
    """A download's size: 13,531,207 bytes -> "13.5 MB" (10⁶ bytes, as browsers count)."""
    return NEVER if is_missing(count) else f"{significant(count / 1e6)} MB"


def rate(key) -> str:
    return f"{key} × S"


NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
HOW_OFTEN = {1: "once", 2: "twice"}


def in_words(count: int) -> str:
    """A small count as a word: 3 -> "three"; from 7 on, digits ("7")."""
    return NUMBER_WORDS.get(count, num(count))


def how_often(count: int) -> str:
    """How many times something was done: "once", "twice", "three times", "7 times"."""
    return HOW_OFTEN.get(count, f"{in_words(count)} times")


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


# Letters whose names start with a vowel sound: "an" before an initialism that starts with
# one ("an AMD EPYC", "an M2", "an SSD"), "a" before the others ("a CPU", "a Xeon").
VOWEL_NAMED_LETTERS = set("AEFHILMNORSX")


def article(phrase) -> str:
    """The phrase with "a" or "an" before it, by how its first word sounds: "an Intel Xeon",
    "an AMD EPYC", "a Graviton", "a 4-core" (a number reads as a word: "an 8-core")."""
    text = str(phrase).strip()
    if not text:
        raise ValueError("article(): an empty phrase")
    letters = text.split()[0].rstrip(",.;:")
    number = re.match(r"[\d,]*", letters)[0].replace(",", "")
    if number:  # "an 8-core", "an 11-inch", "an 18", "a 4-core", "a 1,024-row"
        vowel = number.startswith("8") or number in ("11", "18")
    elif len(letters) > 1 and letters.isupper() and letters.isalpha():  # an initialism
        vowel = letters[0] in VOWEL_NAMED_LETTERS
    else:
        lower = letters.lower()
        vowel = (lower[:1] in "aeiou" and not lower.startswith(("uni", "use", "usu", "eu", "one"))
                 ) or lower.startswith(("hour", "honest", "honour"))  # fmt: skip
    return f"{'an' if vowel else 'a'} {text}"


UNITS = {"us": us, "µs": us, "ms": ms, "num": num, "pct": pct, "times": times}


def than(value, unit, reference: str) -> str:
    """A signed difference as words: "48.0 µs more than W", "12.0 µs less than W", "exactly
    W" (0), "never answered" (missing); `unit` is a filter of this module (us, ms, …)."""
    unit = UNITS.get(unit, unit)
    if is_missing(value):
        return NEVER
    if value == 0:
        return f"exactly {reference}"
    return f"{unit(abs(value))} {'more' if value > 0 else 'less'} than {reference}"


def amount_range(low, high, unit, more: str = "more", less: str = "less") -> str:
    """A range of signed amounts in words, never "−100 to 150 µs more": "20 to 150 µs more",
    "from 100 µs less to 150 µs more", "10 to 30 µs less", "no change" (0 to 0)."""
    unit = UNITS.get(unit, unit)
    if is_missing(low) or is_missing(high):
        return NEVER
    low, high = sorted((low, high))
    if low >= 0 and high > 0:
        return f"{significant(low)} to {unit(high)} {more}" if low else f"up to {unit(high)} {more}"
    if high <= 0 and low < 0:
        if high == 0:
            return f"up to {unit(-low)} {less}"
        return f"{significant(-high)} to {unit(-low)} {less}"
    if low == high == 0:
        return "no change"
    return f"from {unit(-low)} {less} to {unit(high)} {more}"


RUN_ID = re.compile(
    r"^(?P<kind>part_a|part_c|saturation)-(?P<run>\d+)$"
    r"|^part_b-r(?P<round>\d+)-x(?P<rate>[\d.]+)-(?:(?P<none>none)|b(?P<b>\d+)-w(?P<w>[\d.]+))$"
)
KIND_NAMES = {"part_a": "Part A", "part_c": "Part C", "saturation": "S"}


def run_label(run_id: str) -> str:
    """A run as a reader counts it, rounds and runs from 1: "part_b-r4-x1-b128-w1" is
    "Part B round 5, B=128 W=1 at 1 × S"; "part_a-0" is "Part A run 1". An id of another
    form is shown as it is."""
    found = RUN_ID.match(run_id)
    if not found:
        return run_id
    if found["kind"]:
        return f"{KIND_NAMES[found['kind']]} run {int(found['run']) + 1}"
    setting = "none" if found["none"] else f"B={found['b']} W={found['w']}"
    if setting == "B=1 W=0":
        setting = "queue B=1"
    return f"Part B round {int(found['round']) + 1}, {setting} at {rate(found['rate'])}"


def run_number(run_id: str) -> int:
    """The number a reader counts a run by, from 1: a Part A, S or Part C run's own number
    ("part_c-4" is run 5), a Part B run's round ("part_b-r4-x1-none" is round 5)."""
    found = RUN_ID.match(run_id)
    if not found:
        raise ValueError(f"{run_id!r} is not a run id of this lab (part_a-N, part_b-rN-x…, …)")
    return int(found["run"] if found["kind"] else found["round"]) + 1
