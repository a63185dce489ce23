"""Guess verdicts: each dated guess of the campaign against the named figure it names.

A guess is right, wrong, not resolved or not testable (its figure was not measured, its unit
does not convert, or only a rate higher than the campaign ran could make it right), with the
measured value and the evidence in words. A guess about a difference between two settings
(a figure in RESTS_ON) that needs a difference at all (the value of "no difference" is outside
its range) is **not resolved** unless the paired rounds told the two apart by the campaign's
rule (issue 34: one vocabulary; a median ratio of 2× whose rounds disagree in sign does not
make "B cuts A's p99" right). The guesses are the campaign's own
(generator/reading/description.py). Used by `python -m generator build`; the report
(generator/report/figures.py) judges again.
"""

import math

from generator.arithmetic.stats import round_sig

UNIT_SCALES = {  # unit -> (family, factor to the family's base unit)
    "s": ("time", 1.0),
    "ms": ("time", 1e-3),
    "µs": ("time", 1e-6),
    "us": ("time", 1e-6),
    "share": ("fraction", 1.0),
    "%": ("fraction", 0.01),
    "×": ("times", 1.0),
    "x": ("times", 1.0),
}


def convert(value: float, unit: str, to_unit: str) -> float | None:
    """value in `unit` expressed in `to_unit`; None when the units do not convert."""
    if unit == to_unit:
        return value
    (family, factor), (to_family, to_factor) = (
        UNIT_SCALES.get(unit, (unit, 1.0)),
        UNIT_SCALES.get(to_unit, (to_unit, 1.0)),
    )
    return value * factor / to_factor if family == to_family else None


def guess_holds(measured, guess: dict) -> bool:
    compare = guess["compare"]
    if compare == "<=":
        return measured <= guess["value"]
    if compare == ">=":
        return measured >= guess["value"]
    if compare == "between":
        low, high = guess["value"] if "low" not in guess else (guess["low"], guess["high"])
        return low <= measured <= high
    if compare == "==":
        return measured == guess["value"]
    raise ValueError(f"guess {guess.get('id')}: unknown compare {compare!r}")


def past_top_rate(value: float, guess: dict, top_rate: float | None) -> bool:
    """A rate figure that reached the campaign's top rate and a guess that only a higher,
    unmeasured rate could make right: kept up everywhere measured is not 'wrong'."""
    if top_rate is None or value < top_rate or guess_holds(value, guess):
        return False
    above = guess["high"] if "high" in guess else guess["value"]
    if isinstance(above, list | tuple):
        above = above[-1]
    return guess["compare"] in (">=", "between", "==") and above > top_rate


# A figure that measures a difference between two settings -> (the figure saying whether the
# paired rounds told them apart, the figure's value when there is no difference). Figures at
# the quiet rate end in the rate's slug, which the told-apart figure of the p99 cut shares.
RESTS_ON = {
    "b32_w0_p99_cut_at_": ("b32_w0_p99_told_apart_at_", 1.0),
    "queue_b1_p50_overhead_us_at_": ("queue_b1_p50_overhead_told_apart", 0.0),
    # the switchback runs' differences, told apart by their interval over the runs
    "switchback_b1_p50_overhead_us": ("switchback_b1_p50_overhead_told_apart", 0.0),
    "switchback_w1_server_cost_us": ("switchback_w1_server_cost_told_apart", 0.0),
}


def resting_on(name: str) -> tuple[str, float] | None:
    """(told-apart figure, no-difference value) of a difference figure, else None."""
    for prefix, (apart, null) in RESTS_ON.items():
        if name.startswith(prefix):
            return (apart + name[len(prefix) :] if apart.endswith("_at_") else apart), null
    return None


def guess_verdict(guess: dict, figures: dict) -> dict:
    """The guess with verdict right / wrong / not resolved / not testable, the measured
    value and evidence."""
    judged = dict(guess)
    figure = figures.get(guess.get("figure"))
    if figure is None:
        judged["verdict"] = "not testable"
        judged["evidence"] = f"figure {guess.get('figure')!r} was not measured in this campaign"
        return judged
    value = figure["value"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = convert(value, figure["unit"], guess.get("unit", figure["unit"]))
    if value is None:
        judged["verdict"] = "not testable"
        judged["evidence"] = (
            f"figure {guess['figure']!r} is in {figure['unit']}, the guess in {guess.get('unit')}"
        )
        return judged
    judged["measured"] = value
    top = figures.get("top_rate", {}).get("value")
    if figure["unit"] == "× S" and past_top_rate(value, guess, top):
        judged["verdict"] = "not testable"
        judged["evidence"] = (
            f"measured {evidence_value(value)} × S, the highest rate this campaign ran: "
            "the guess needs a higher one"
        )
        return judged
    judged["verdict"] = "right" if guess_holds(value, guess) else "wrong"
    judged["evidence"] = (
        f"measured {evidence_value(value)} {guess.get('unit', figure['unit'])}: {figure['what']}"
    )
    rests = resting_on(guess["figure"])
    if rests is not None:
        apart, null = rests
        told = figures.get(apart, {}).get("value")
        null_value = convert(null, figure["unit"], guess.get("unit", figure["unit"]))
        if told is not True and null_value is not None and not guess_holds(null_value, guess):
            judged["verdict"] = "not resolved"
            judged["evidence"] += (
                "; the paired rounds did not tell the two settings apart by the campaign's "
                "rule, and the guess needs a difference"
            )
    return judged


def evidence_value(value) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "infinite (requests never answered)"
    return str(round_sig(value, 4)) if isinstance(value, float) else str(value)
