"""One home for the names that raw data, results.json, pages and the explorer share.

    setting_name("queue", 32, 2.0) -> "B=32 W=2"      rate_key(0.5) -> "0.5"
    slug("B=32 W=2") -> "b32_w2"                        slug("0.5") -> "0_5"

The lab writes these names into raw files; the generator keys results.json by them; the
templates get them as Jinja filters; CELL_ONLY_METRICS names the Part B metrics published per
cell only. Nothing here imports anything else from `lab`.
"""

NONE = "none"
QUEUE_B1 = "B=1 W=0"


def setting_name(batcher: str, max_batch: int = 0, max_wait_ms: float = 0.0) -> str:
    """'none' for no batcher, else 'B=<cap> W=<wait in ms, shortest form>'."""
    if batcher == NONE:
        return NONE
    return f"B={int(max_batch)} W={float(max_wait_ms):g}"


def record_name(setting: dict) -> str:
    """The name of a setting record {batcher, max_batch, max_wait_ms} as raw files store it."""
    return setting_name(
        setting["batcher"], setting.get("max_batch") or 0, setting.get("max_wait_ms") or 0.0
    )


def rate_key(rate_multiple: float) -> str:
    """A rate's key: its multiple of S in the shortest form ('0.5', '1', '2.5')."""
    return f"{float(rate_multiple):g}"


def slug(name: str) -> str:
    """A name as part of a figure's or file's name: 'none' -> 'none', 'B=1 W=0' -> 'queue_b1',
    'B=32 W=2' -> 'b32_w2', 'W=0.5' -> 'w0_5', '0.5' -> '0_5'."""
    if name in (NONE, QUEUE_B1):
        return {NONE: "none", QUEUE_B1: "queue_b1"}[name]
    parts = name.lower().replace("=", "").replace(".", "_").split()
    return "_".join(parts)


# The Part B metrics results.json publishes per cell (the median of its rounds) but not per
# round, to keep it small: the asked rate is the same in every round, and the rest are checks
# rather than results. The build leaves them out of a cell's rounds and the report expects
# them missing there: one list, so the two cannot drift apart.
CELL_ONLY_METRICS = (
    "arrival_rate",
    "offered_rate",
    "p90_ms",
    "max_ms",
    "send_lag_us_p99",
    "batches",
    "full_batch_share",
    "first_wait_unfilled_us_p50",
    "client_cpu_us_per_request",
)
