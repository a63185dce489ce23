"""The report's explorer check: run the site's own Python on six settings, check its numbers.

If site_src/explorer/explorer.py exists and has `lookup(results, b, w, rate) -> str`
(b: the cap B, w: the wait W in ms, rate: the multiple of S as a float), call it for six
(setting, rate) pairs and require every number it prints to be one results.json holds for
that setting or for none at that rate, or a paired difference of it at that rate (at the
printed precision, in ms, µs, s or %).
Used by `python -m generator report`.
"""

import importlib.util
import re
from pathlib import Path

EXPLORER = Path(__file__).resolve().parents[2] / "site_src" / "explorer" / "explorer.py"
NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?")
SCALES = (1.0, 1000.0, 0.001, 100.0)


def load_lookup(path: Path):
    """`lookup` of the explorer file at `path`, loaded from its path on purpose: the check runs
    on whichever file it is given (the site's, or a test's altered copy), and the file may be
    absent (the check is then skipped)."""
    spec = importlib.util.spec_from_file_location("site_explorer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "lookup", None)


def six_cases(results: dict) -> list[tuple[str, str]]:
    """Up to six measured (setting, rate key) pairs, walking settings and rates together so
    that every setting and every rate shows up when there are few of them."""
    settings = results["part_b"]["settings"]
    names = [n for n in results["design"]["settings"] if n != "none"]
    rates = results["design"]["rate_multiples"]
    cases = []
    for index in range(len(names) * len(rates)):
        name = names[index % len(names)]
        rate = rates[(index + index // len(names)) % len(rates)]
        measured = settings[name]["rates"].get(rate, {}).get("rounds")
        if measured and (name, rate) not in cases:
            cases.append((name, rate))
        if len(cases) == 6:
            break
    return cases


def numbers_in(value, into: list) -> list:
    """Every number in a nested JSON value (bools and None skipped)."""
    if isinstance(value, dict):
        for item in value.values():
            numbers_in(item, into)
    elif isinstance(value, list):
        for item in value:
            numbers_in(item, into)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        into.append(float(value))
    return into


def allowed_numbers(results: dict, name: str, rate: str) -> list:
    settings = results["part_b"]["settings"]
    cells = [settings[name]["rates"][rate], settings.get("none", {}).get("rates", {}).get(rate)]
    allowed = numbers_in([c for c in cells if c], [])
    setting = settings[name]
    allowed += [
        setting["max_batch"],
        setting["max_wait_ms"],
        float(rate),
        results.get("saturation", {}).get("S") or 0,
        results["design"]["rounds"],
        results["design"]["keeps_up_share"],
    ]
    allowed += [float(len(c["rounds"]) + len(c["missing_rounds"])) for c in cells if c]
    allowed += [r + 1.0 for c in cells if c for r in c["rounds"] + c["missing_rounds"]]
    for baseline in results.get("paired", {}).get(name, {}).values():
        numbers_in(baseline.get(rate, {}), allowed)
    return allowed


def explained(token: str, allowed: list) -> bool:
    text = token.replace(",", "").replace("−", "-")
    value = float(text)
    decimals = len(text.split(".")[1]) if "." in text else 0
    slack = 0.5 * 10**-decimals + 1e-9
    return any(abs(abs(v) * scale - abs(value)) <= slack for v in allowed for scale in SCALES)


def check_explorer(results: dict, say, path: Path = EXPLORER) -> list[str]:
    """Problems found (empty when all printed numbers are the lab's); prints what it ran."""
    if not path.exists():
        say(f"{path.name} not there yet: skipped")
        return []
    lookup = load_lookup(path)
    if lookup is None or "part_b" not in results:
        say("no lookup(results, b, w, rate) or no Part B results: skipped")
        return []
    problems, cases = [], six_cases(results)
    if not cases:
        say("no measured Part B cell yet: skipped")
    for name, rate in cases:
        setting = results["part_b"]["settings"][name]
        try:
            text = str(lookup(results, setting["max_batch"], setting["max_wait_ms"], float(rate)))
        except Exception as error:  # the explorer is someone else's code: report, not crash
            problems.append(f"explorer lookup for {name} at {rate} × S failed: {error!r}")
            continue
        allowed = allowed_numbers(results, name, rate)
        strange = [t for t in NUMBER.findall(text) if not explained(t, allowed)]
        if strange:
            problems.append(
                f"explorer for {name} at {rate} × S printed {strange}, "
                "numbers results.json does not hold for that setting or none"
            )
        say(
            f"{name} at {rate} × S: {len(NUMBER.findall(text))} numbers printed, "
            f"{'all' if not strange else 'NOT all'} from results.json"
        )
    return problems
