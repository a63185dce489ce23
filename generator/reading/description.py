"""A campaign's description of itself: the rules, guesses and names it is judged by.

A campaign is judged by what it recorded when it started, never by the lab's code of today:
    rules    keeps_up_share, told_apart {rule, text; under the interval rule also
             confidence, same_within_confidence, delta {p50, p99, server, throughput}},
             quiet {idle_share,
             other_core_idle_share, seconds, tries}, and from issue 13 on slow_runs
             {threshold, max_attempts, kinds, budget_runs, pause_s, selection, text, and
             probes: the moments each run was probed at, both when absent (before full3)}
    speed_probe  (campaign.json only, from issue 13 on) {reference, probes, made_at, workload}:
             the speed probe's calibration at the campaign's start
    guesses  git_commit and items [{id, date, text, figure, compare, unit, low, high | value}]
    names    quiet_rate, busy_rate (rate keys), predict_stages, batch_route_stages
New campaigns carry these keys (and description_version) in campaign.json. A campaign
without `rules.slow_runs` or `speed_probe` (every one before issue 13) had no speed probe and
no slow-run rule: both read as None, and its runs have one attempt each. The campaigns
measured before that carry them in a sidecar beside it, campaign.description.json, rebuilt
from the git history at the campaign's commit (data/rebuild_description.py).

Two told-apart rules are known (TOLD_APART_RULES): `all_rounds_agree_in_sign`, the first two
campaigns' (every round's paired difference of one sign), and `hodges_lehmann_wilcoxon_95`,
the interval rule of lab/design_notes.py's 2026-12-01 note (generator/arithmetic/intervals.py),
which records its two confidence levels (they must be the ones generator/arithmetic/intervals.py
computes) and δ per statistic in log units. Any other rule is refused, naming it: a campaign is
judged by the rule it ran under or not at all.

`read_description(folder)` returns the checked Description, or raises DescriptionError
naming the file and the key. Used by the build (generator.reading.load) and by the report
(generator.report.checks), so neither reads the lab's live code.
"""

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path

from lab.rawformat import names

CAMPAIGN_FILE = "campaign.json"
SIDECAR = "campaign.description.json"
VERSION = 1
KEYS = ("rules", "guesses", "names", "description_version")
ROUNDS_RULE = "all_rounds_agree_in_sign"  # generator.arithmetic.stats.told_apart
INTERVAL_RULE = "hodges_lehmann_wilcoxon_95"  # generator.arithmetic.intervals.interval_verdict
TOLD_APART_RULES = (ROUNDS_RULE, INTERVAL_RULE)  # the rules this generator judges by
# The interval rule's levels as generator/arithmetic/intervals.py computes them (a test holds
# the two equal; this module does not import it, as the report reads descriptions too).
INTERVAL_LEVELS = {"confidence": 0.95, "same_within_confidence": 0.90}
DELTA_STATISTICS = ("p50", "p99", "server", "throughput")
SLOW_RUN_SELECTIONS = (
    "first_not_slow_else_least_slow",
)  # the one generator.arithmetic.stats implements
PROBE_PARTS = ("python_us", "model_us", "memory_us")
# When a run's speed probe was taken; a rule without `probes` (every campaign before full3)
# took both.
PROBE_MOMENTS = ("before", "after")
COMPARES = ("between", ">=", "<=", "==")
GUESS_FIELDS = ("id", "date", "text", "figure", "compare", "unit")


class DescriptionError(ValueError):
    """A missing or bad description; the message is one line naming the file and the key."""


@dataclass(frozen=True)
class Description:
    """What one campaign says about how it is judged and named (see the module docstring)."""

    source: Path
    keeps_up_share: float
    told_apart: dict
    quiet: dict
    guesses: tuple
    guesses_commit: str
    quiet_rate: str
    busy_rate: str
    stages: dict  # route ("predict", "predict_batch") -> its Server-Timing stage names
    slow_runs: dict | None = None  # the slow-run rule; None: the campaign had none
    speed_probe: dict | None = None  # the calibration: reference, probes, made_at, workload

    @property
    def names(self) -> dict:
        """The names pages use: quiet and busy rate keys and each route's stages."""
        return {"quiet_rate": self.quiet_rate, "busy_rate": self.busy_rate, "stages": self.stages}

    @property
    def interval_rule(self) -> bool:
        """True when the campaign is judged by the interval rule (else all rounds agree)."""
        return self.told_apart["rule"] == INTERVAL_RULE

    @property
    def rules(self) -> dict:
        rules = {
            "keeps_up_share": self.keeps_up_share,
            "told_apart": self.told_apart,
            "quiet": self.quiet,
        }
        if self.slow_runs is not None:
            rules["slow_runs"] = self.slow_runs
        return rules


def field(mapping, dotted: str, where: Path):
    """mapping['a']['b'] for 'a.b', or DescriptionError naming the file and the key."""
    value = mapping
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise DescriptionError(f"{where}: missing field '{dotted}'")
        value = value[part]
    return value


def number(mapping, dotted: str, where: Path, low: float, high: float) -> float:
    value = field(mapping, dotted, where)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not low <= value <= high:
        raise DescriptionError(
            f"{where}: field '{dotted}' is {value!r}, expected a number from {low:g} to {high:g}"
        )
    return value


def text(mapping, dotted: str, where: Path) -> str:
    value = field(mapping, dotted, where)
    if not isinstance(value, str) or not value:
        raise DescriptionError(f"{where}: field '{dotted}' is {value!r}, expected a text")
    return value


def rate(mapping, dotted: str, where: Path) -> str:
    """A rate key as results.json writes it ('0.5', '1.6')."""
    value = text(mapping, dotted, where)
    try:
        canonical = names.rate_key(float(value))
    except ValueError:
        canonical = None
    if canonical != value:
        raise DescriptionError(
            f"{where}: field '{dotted}' is {value!r}, expected a rate key such as '0.5'"
        )
    return value


def stage_list(mapping, dotted: str, where: Path) -> list:
    value = field(mapping, dotted, where)
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        raise DescriptionError(f"{where}: field '{dotted}' is {value!r}, expected stage names")
    return list(value)


def check_guess(item, index: int, where: Path) -> dict:
    """One guess: its fields, a known comparison and the bounds that comparison needs."""
    label = f"guesses.items[{index}]"
    if not isinstance(item, dict):
        raise DescriptionError(f"{where}: field '{label}' is not an object")
    bounds = ("low", "high") if item.get("compare") == "between" and "value" not in item else ()
    for name in (*GUESS_FIELDS, *(bounds or ("value",))):
        if name not in item:
            raise DescriptionError(f"{where}: missing field '{label}.{name}'")
    if item["compare"] not in COMPARES:
        raise DescriptionError(
            f"{where}: field '{label}.compare' is {item['compare']!r}, expected one of {COMPARES}"
        )
    return dict(item)


def slow_run_rule(raw: dict, where: Path) -> dict | None:
    """rules.slow_runs, checked; None when the campaign has no slow-run rule."""
    if "slow_runs" not in field(raw, "rules", where):
        return None
    selection = text(raw, "rules.slow_runs.selection", where)
    if selection not in SLOW_RUN_SELECTIONS:
        raise DescriptionError(
            f"{where}: field 'rules.slow_runs.selection' is {selection!r}, expected one of "
            f"{SLOW_RUN_SELECTIONS}"
        )
    kinds = field(raw, "rules.slow_runs.kinds", where)
    if not isinstance(kinds, list) or not all(isinstance(kind, str) for kind in kinds):
        raise DescriptionError(f"{where}: field 'rules.slow_runs.kinds' is {kinds!r}, "
                               "expected a list of run kinds")  # fmt: skip
    probes = raw["rules"]["slow_runs"].get("probes", list(PROBE_MOMENTS))
    if not isinstance(probes, list) or not probes or not set(probes) <= set(PROBE_MOMENTS):
        raise DescriptionError(f"{where}: field 'rules.slow_runs.probes' is {probes!r}, "
                               f"expected some of {list(PROBE_MOMENTS)}")  # fmt: skip
    return {
        "probes": probes,
        "threshold": number(raw, "rules.slow_runs.threshold", where, 0, math.inf),
        "max_attempts": int(number(raw, "rules.slow_runs.max_attempts", where, 1, math.inf)),
        "kinds": list(kinds),
        "budget_runs": int(number(raw, "rules.slow_runs.budget_runs", where, 0, math.inf)),
        "pause_s": number(raw, "rules.slow_runs.pause_s", where, 0, math.inf),
        "selection": selection,
        "text": text(raw, "rules.slow_runs.text", where),
    }


def speed_probe(raw: dict, where: Path) -> dict | None:
    """speed_probe (the calibration), its reference checked; None when there is none."""
    if "speed_probe" not in raw:
        return None
    for part in PROBE_PARTS:
        number(raw, f"speed_probe.reference.{part}", where, 1e-9, math.inf)
    probes = field(raw, "speed_probe.probes", where)
    if not isinstance(probes, list) or not probes:
        raise DescriptionError(f"{where}: field 'speed_probe.probes' is not a list of probes")
    return dict(raw["speed_probe"])


def told_apart_rule(raw: dict, where: Path, at: str = "rules.told_apart") -> dict:
    """The told-apart rule at `at` in `raw`, checked: {rule, text} for the rounds rule; for the
    interval rule also its levels and δ per statistic (log units, finite, > 0). An unknown
    rule is refused naming it and the rules this generator knows."""
    rule = text(raw, f"{at}.rule", where)
    if rule not in TOLD_APART_RULES:
        raise DescriptionError(
            f"{where}: field '{at}.rule' is {rule!r}, a rule this generator cannot judge by "
            f"(it knows {', '.join(TOLD_APART_RULES)})"
        )
    found = {"rule": rule, "text": text(raw, f"{at}.text", where)}
    if rule == INTERVAL_RULE:
        for name, level in INTERVAL_LEVELS.items():
            value = number(raw, f"{at}.{name}", where, 0, 1)
            if value != level:
                raise DescriptionError(
                    f"{where}: field '{at}.{name}' is {value!r}, but this generator computes "
                    f"the interval rule at {level!r} only"
                )
            found[name] = value
        found["delta"] = {
            name: number(raw, f"{at}.delta.{name}", where, 1e-12, 10) for name in DELTA_STATISTICS
        }
    return found


def check(raw: dict, where: Path) -> Description:
    """The description in `raw` (campaign.json or the sidecar), checked key by key."""
    version = field(raw, "description_version", where)
    if version != VERSION:
        raise DescriptionError(
            f"{where}: field 'description_version' is {version!r}, this generator reads {VERSION}"
        )
    told_apart = told_apart_rule(raw, where)
    other = field(raw, "rules.quiet.other_core_idle_share", where)
    if other is not None:
        other = number(raw, "rules.quiet.other_core_idle_share", where, 0, 1)
    items = field(raw, "guesses.items", where)
    if not isinstance(items, list):
        raise DescriptionError(f"{where}: field 'guesses.items' is not a list")
    return Description(
        source=where,
        keeps_up_share=number(raw, "rules.keeps_up_share", where, 0, 1),
        told_apart=told_apart,
        quiet={
            "idle_share": number(raw, "rules.quiet.idle_share", where, 0, 1),
            "other_core_idle_share": other,
            "seconds": number(raw, "rules.quiet.seconds", where, 0, math.inf),
            "tries": number(raw, "rules.quiet.tries", where, 1, math.inf),
        },
        guesses=tuple(check_guess(item, i, where) for i, item in enumerate(items)),
        guesses_commit=text(raw, "guesses.git_commit", where),
        quiet_rate=rate(raw, "names.quiet_rate", where),
        busy_rate=rate(raw, "names.busy_rate", where),
        stages={
            "predict": stage_list(raw, "names.predict_stages", where),
            "predict_batch": stage_list(raw, "names.batch_route_stages", where),
        },
        slow_runs=slow_run_rule(raw, where),
    )


def read_json(path: Path) -> dict:
    try:
        value = json.loads(Path(path).read_text())
    except FileNotFoundError as error:
        raise DescriptionError(f"{path}: file not found") from error
    except (OSError, ValueError) as error:
        raise DescriptionError(f"{path}: not readable JSON ({error})") from error
    if not isinstance(value, dict):
        raise DescriptionError(f"{path}: expected a JSON object")
    return value


def read_description(folder: Path, info: dict | None = None) -> Description:
    """The campaign's description: from campaign.json when it carries one, else from the
    sidecar beside it; a campaign with neither is an error naming campaign.json's key."""
    folder = Path(folder)
    campaign_file = folder / CAMPAIGN_FILE
    info = read_json(campaign_file) if info is None else info
    calibration = speed_probe(info, campaign_file)  # measured, so in campaign.json only
    if any(key in info for key in KEYS):
        return dataclasses.replace(check(info, campaign_file), speed_probe=calibration)
    sidecar = folder / SIDECAR
    if sidecar.exists():
        return dataclasses.replace(check(read_json(sidecar), sidecar), speed_probe=calibration)
    raise DescriptionError(
        f"{campaign_file}: missing field '{KEYS[0]}' (the campaign does not describe its "
        f"rules, guesses and names, and there is no {SIDECAR} beside it)"
    )
