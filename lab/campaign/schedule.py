"""The campaign's whole schedule, built up front from a seed and saved as schedule.json.

Order: Part A, bits, saturation, Part B (rounds in turn, settings × rates shuffled inside
each round), the switchback runs (indexes in turn, the pairs shuffled inside each, each run's
first arm drawn), Part C. Run ids are stable names, so a resumed campaign finds its runs again.
"""

import numpy as np

from lab.design import Profile, Setting, Switchback
from lab.rawformat.names import rate_key


def setting_slug(setting: Setting) -> str:
    """A setting in a run id: 'none' or 'b<cap>-w<wait>' (run ids never change, so a resumed
    campaign finds its runs; this is not the figure slug of lab.rawformat.names.slug)."""
    if setting.batcher == "none":
        return "none"
    return f"b{setting.max_batch}-w{setting.max_wait_ms:g}"


def part_b_run(profile: Profile, round_index: int, setting: Setting, rate: float) -> dict:
    return {
        "run_id": f"part_b-r{round_index}-x{rate_key(rate)}-{setting_slug(setting)}",
        "kind": "part_b",
        "round": round_index,
        "rate_multiple": rate,
        "setting": setting.as_dict(),
        "window_s": profile.window_s,
    }


def part_b_round(profile: Profile, round_index: int, seed: int) -> list[dict]:
    runs = [
        part_b_run(profile, round_index, setting, rate)
        for setting in profile.settings
        for rate in profile.rate_multiples
    ]
    order = np.random.default_rng([seed, round_index]).permutation(len(runs))
    return [runs[i] for i in order]


# Seeds the switchback block's generator apart from the Part B rounds' ([seed, round]).
SWITCHBACK_STREAM = 28


def switchback_run(
    profile: Profile, index: int, pair: Switchback, first_arm: str, swap_routes: bool = False
) -> dict:
    work = f"-plus{pair.added_work_us_b:g}us" if pair.added_work_us_b else ""
    twin = "-twin" if pair.twin_slices else ""
    slugs = f"{setting_slug(pair.arm_a)}-vs-{setting_slug(pair.arm_b)}{work}{twin}"
    return {
        "run_id": f"switchback-{index}-{slugs}",
        "kind": "switchback",
        "run_index": index,
        "arm_a": pair.arm_a.as_dict(),
        "arm_b": pair.arm_b.as_dict(),
        "added_work_us_b": pair.added_work_us_b,
        "first_arm": first_arm,
        "swap_routes": swap_routes,
        **({"twin_slices": True} if pair.twin_slices else {}),  # absent: independent slices
        "rate_multiple": profile.switchback_rate,
        "window_s": profile.switchback_window,
        "slice_s": profile.slice_s,
    }


# A pair's runs take these (first arm, routes swapped) in turn, in a seeded order: over every
# 4 runs each first arm twice and each route on each arm twice.
BALANCED = (("a", False), ("b", True), ("b", False), ("a", True))


def counterbalanced(runs: int, seed: int, pair: int) -> list[tuple[str, bool]]:
    """(first arm, swap routes) for each of a pair's runs: the BALANCED cycle repeated and
    shuffled, so the first arm and the routes' places are as near even as `runs` allows
    (exactly even when it is a multiple of 4) and unknown in advance."""
    cycle = [BALANCED[i % len(BALANCED)] for i in range(runs)]
    order = np.random.default_rng([seed, SWITCHBACK_STREAM, 1 << 20, pair]).permutation(runs)
    return [cycle[i] for i in order]


def switchback_block(profile: Profile, seed: int) -> list[dict]:
    """`profile.switchback_runs` runs of every pair: index by index, the pairs shuffled inside
    each index (a seeded generator per index); each pair's first arms and swapped routes (route
    a serving arm B: a route's place counterbalanced) as `counterbalanced` deals them."""
    plans = [counterbalanced(profile.switchback_runs, seed, pair)
             for pair in range(len(profile.switchbacks))]  # fmt: skip
    runs = []
    for index in range(profile.switchback_runs):
        rng = np.random.default_rng([seed, SWITCHBACK_STREAM, index])
        for pair in rng.permutation(len(profile.switchbacks)):
            first, swap = plans[pair][index]
            runs.append(switchback_run(profile, index, profile.switchbacks[pair], first, swap))
    return runs


def indexed_runs(kind: str, count: int, **fields) -> list[dict]:
    """`count` runs of one kind, named `<kind>-<index>`."""
    return [
        {"run_id": f"{kind}-{index}", "kind": kind, "run_index": index, **fields}
        for index in range(count)
    ]


def build_schedule(profile: Profile, seed: int, with_part_c: bool = True) -> list[dict]:
    runs = indexed_runs("part_a", profile.part_a_runs, calls_per_size=profile.calls_per_size)
    runs.append({"run_id": "bits", "kind": "bits", "rows": profile.bit_rows})
    runs += indexed_runs("saturation", profile.saturation_runs, counted_s=profile.saturation_s)
    for round_index in range(profile.rounds):
        runs += part_b_round(profile, round_index, seed)
    runs += switchback_block(profile, seed)
    if with_part_c:
        runs += indexed_runs("part_c", profile.part_c_runs, records=profile.part_c_records)
    return runs
