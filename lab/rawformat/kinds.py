"""One home for a run kind: its name, the raw fields and columns its run files carry, whether
results.json publishes it, and whether the slow-run rule judges it.

    KINDS["part_b"].columns -> (("arrival_us", …), ("batches_size", …))
    published_kinds() -> ("part_a", "bits", "saturation", "part_b", "part_c", "switchback")

The lab keys on it (lab/campaign/runner.py: one executor per kind, checked against KINDS;
lab/design.py: SLOW_RUN_KINDS, the kinds a new campaign's slow-run rule judges), and so does
the generator (generator/reading/load.py: the fields and columns a run file must have;
generator/arithmetic/results.py: the published sections, the other kinds counted) and the
report (generator/report/checks.py). A campaign's own rule (campaign.json
`rules.slow_runs.kinds`) still decides which of its runs the rule judged: a campaign is judged
by what it froze. Adding a kind means adding it here, with an executor in the lab, and (when
published) a section in the generator and a check in the report. Nothing here imports anything
else from `lab`.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class RunKind:
    """A kind of run as its raw files carry it.

    `meta`: the meta fields (dotted = nested) a run file of the kind must have; `columns`:
    its column groups (the columns of one group have equal lengths); `published`: results.json
    has a section of its own for it (the other kinds are counted in `other_kinds`);
    `slow_run_judged`: the slow-run rule judges its attempts in a new campaign (lab/design.py).
    """

    name: str
    meta: tuple = ()
    columns: tuple = ()
    published: bool = False
    slow_run_judged: bool = False


PART_B_REQUESTS = (
    "arrival_us",
    "send_lag_us",
    "latency_us",
    "status",
    "batch_size",
    "ready_us",
    "queued_us",
    "model_us",
)
# Format 4 (lab/rawformat/codec.py, from the third full campaign's profile on): a per-request
# column a Part B or switchback run may carry only as the one figure the generator reads of
# it, in its meta (column -> meta key); a run that does lacks the column.
FOLDED_COLUMNS = {"send_lag_us": "send_lag_us_p99"}
PART_C_BREAKDOWN_STAGES = ("ready", "queued", "parse", "validate", "lookup", "model", "serialize")

# In the order a campaign schedules them.
ALL = (
    RunKind(
        "part_a",
        meta=("run_index", "calls_per_size"),
        columns=(("size", "call_ns"),),
        published=True,
        slow_run_judged=True,
    ),
    RunKind(
        "bits",
        meta=("rows", "sizes", "results"),
        published=True,  # probed, never re-run: it times nothing
    ),
    RunKind(
        "saturation",
        meta=(
            "run_index",
            "connections",
            "counted_s",
            "stats.throughput",
            "stats.answers",
            "stats.errors",
        ),
        published=True,
        slow_run_judged=True,
    ),
    RunKind(
        "part_b",
        meta=(
            "round",
            "rate_multiple",
            "arrival_rate",
            "window_s",
            "setting.batcher",
            "setting.max_batch",
            "setting.max_wait_ms",
            "setting.name",
        ),
        columns=(PART_B_REQUESTS, ("batches_size", "batches_first_wait_us")),
        published=True,
        slow_run_judged=True,
    ),
    RunKind(
        "part_c",
        meta=(
            "run_index",
            "records",
            "chunks",
            "bits.mismatches",
            "bits.errors",
            "bits.all_equal",
            "breakdown.batch_records",
            "example_exchange.request_body",
            "example_exchange.response_body",
            "example_exchange.status",
            "example_exchange.record_kinds",
        ),
        columns=(
            (
                "method_chunk",
                "method_records",
                "method_calls",
                "method_wall_ns",
                "method_errors",
                "method_mismatches",
            ),
            (
                "breakdown_route",
                "breakdown_records",
                "breakdown_round_trip_us",
                "breakdown_outside_us",
            )
            + tuple(f"breakdown_{stage}_us" for stage in PART_C_BREAKDOWN_STAGES),
        ),
        published=True,
        slow_run_judged=True,
    ),
    # issue 28: two settings in one service; not re-run (lab/design.py's 2026-12-01 note);
    # published from the third full campaign's profile on (results.json `switchback`).
    RunKind(
        "switchback",
        meta=(
            "run_index",
            "rate_multiple",
            "window_s",
            "slice_s",
            "first_arm",
            "added_work_us_b",
            "arm_a.name",
            "arm_b.name",
        ),
        columns=(
            PART_B_REQUESTS + ("arm",),
            ("batches_arm", "batches_size", "batches_first_wait_us"),
        ),
        published=True,
    ),
)
KINDS = {kind.name: kind for kind in ALL}


def published_kinds() -> tuple:
    """The kinds results.json has a section for, in schedule order."""
    return tuple(kind.name for kind in ALL if kind.published)


def slow_run_kinds() -> tuple:
    """The kinds a new campaign's slow-run rule judges, in schedule order."""
    return tuple(kind.name for kind in ALL if kind.slow_run_judged)
