"""A demo file (`python -m lab demo --save`) made from a campaign's results.json, for the
simulator's and the explorer's tests."""

from lab.model import timing

RUN_SHAPE = (-0.5, -0.25, 0.0, 0.25, 0.5)  # each run's distance from the median, in spreads


def demo_of(results: dict, slower: float = 1.0, spread: float = 0.05, old: bool = False) -> dict:
    """A demo file carrying the lab's own measured Part A (times `slower`) and the lab
    machine's facts, in the demo's format: what the demo would write on that machine, its
    runs of every size `spread` apart (slowest − fastest, over the median; the demo's
    TOO_NOISY_SPREAD decides whether that is too noisy). `old`: the first format
    ("batching-lab-demo/1": one run, no spread recorded)."""
    facts = results["campaign"]["machine"]["fingerprint"]
    by_size, medians = {}, {}
    for key, entry in results["part_a"]["by_size"].items():
        per_call = entry["per_call_us"] * slower
        runs = [per_call * (1 + spread * share) for share in RUN_SHAPE]
        medians[entry["size"]] = runs
        by_size[key] = {"size": entry["size"], "calls": entry["calls"], "per_call_us": per_call,
                        "per_row_us": entry["per_row_us"] * slower}  # fmt: skip
        if not old:
            by_size[key].update(per_call_us_runs=runs, spread=timing.spread(runs))
    sizes = sorted(int(k) for k in by_size)
    part_a = {"runs": 1, "sizes": sizes, "by_size": by_size}
    if not old:
        orders = [timing.sizes_order(run, sizes) for run in range(len(RUN_SHAPE))]
        part_a.update(runs=len(RUN_SHAPE), orders=orders, noise=timing.noise(medians))
    return {
        "format": "batching-lab-demo/1" if old else "batching-lab-demo/2",
        "machine": {
            "cpu_model": facts["cpu_model"],
            "cores": facts["cores"],
            "usable_cpus": facts["cores"],
            "machine": facts["machine"],
            "python": facts["python"],
            "loadavg": [0.1, 0.1, 0.1],
        },  # fmt: skip
        "part_a": part_a,
    }
