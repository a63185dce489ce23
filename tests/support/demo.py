"""A demo file (`python -m lab demo --save`) made from a campaign's results.json, for the
simulator's and the explorer's tests."""


def demo_of(results: dict, slower: float = 1.0) -> dict:
    """A demo file carrying the lab's own measured Part A (times `slower`) and the lab
    machine's facts, in the demo's format: what the demo would write on that machine."""
    facts = results["campaign"]["machine"]["fingerprint"]
    by_size = {
        key: {"size": entry["size"], "calls": entry["calls"],
              "per_call_us": entry["per_call_us"] * slower,
              "per_row_us": entry["per_row_us"] * slower}
        for key, entry in results["part_a"]["by_size"].items()
    }  # fmt: skip
    return {
        "format": "batching-lab-demo/1",
        "machine": {
            "cpu_model": facts["cpu_model"],
            "cores": facts["cores"],
            "usable_cpus": facts["cores"],
            "machine": facts["machine"],
            "python": facts["python"],
            "loadavg": [0.1, 0.1, 0.1],
        },  # fmt: skip
        "part_a": {"runs": 1, "sizes": sorted(int(k) for k in by_size), "by_size": by_size},
    }
