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
    slugs = f"{setting_slug(pair.arm_a)}-vs-{setting_slug(pair.arm_b)}{work}"
    return {
        "run_id": f"switchback-{index}-{slugs}",
        "kind": "switchback",
        "run_index": index,
        "arm_a": pair.arm_a.as_dict(),
        "arm_b": pair.arm_b.as_dict(),
        "added_work_us_b": pair.added_work_us_b,
        "first_arm": first_arm,
        "swap_routes": swap_routes,
        "rate_multiple": profile.switchback_rate,
        "window_s": profile.window_s,
        "slice_s": profile.slice_s,
    }


def switchback_block(profile: Profile, seed: int) -> list[dict]:
    """`profile.switchback_runs` runs of every pair: index by index, the pairs shuffled inside
    each index, and each run's first arm and whether its routes are swapped (route a serving
    arm B: a route's place counterbalanced) drawn from the same seeded generator."""
    runs = []
    for index in range(profile.switchback_runs):
        rng = np.random.default_rng([seed, SWITCHBACK_STREAM, index])
        order = rng.permutation(len(profile.switchbacks))
        firsts = rng.integers(0, 2, len(profile.switchbacks))
        swaps = rng.integers(0, 2, len(profile.switchbacks))  # drawn after: firsts unchanged
        runs += [
            switchback_run(profile, index, profile.switchbacks[i], "ab"[first], bool(swap))
            for i, first, swap in zip(order, firsts, swaps, strict=True)
        ]
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
