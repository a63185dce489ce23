"""The tidy per-cell table a reader can take away: assets/data/part_b_cells.csv.

One row per Part B cell (one setting at one arrival rate), settings in the design's order (B
and W ascending as numbers) and rates ascending; one column per quantity, its unit in its
name, the values exactly as results.json holds them (medians over the measured rounds).
A p50 or p99 that is infinite (too many requests never answered) is written `inf`; a value
the cell does not have (no round measured, no batcher, a paired difference that is undefined
or infinite: results.json `paired` has its rounds) is left empty. Columns: see COLUMNS and
generator/SCHEMA.md. Run through `python -m generator build`.
"""

import csv
import io

from lab.rawformat.names import NONE

COLUMNS = (
    "setting",
    "batcher",
    "max_batch",
    "max_wait_ms",
    "rate_multiple",
    "arrival_rate",
    "rounds_measured",
    "rounds_missing",
    "keeps_up",
    "keeps_up_rounds",
    "throughput",
    "p50_ms",
    "p99_ms",
    "mean_batch_size",
    "never_answered",
    "first_wait_us_p50",
    "ready_us_p50",
    "queued_us_p50",
    "model_us_p50",
    "p50_minus_none_ms",
    "p50_told_apart_from_none",
    "p99_minus_none_ms",
    "p99_told_apart_from_none",
)
LATENCIES = {"p50_ms", "p99_ms"}


def value_text(column: str, value) -> str:
    if value is None:
        return "inf" if column in LATENCIES else ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


def cell_row(results: dict, name: str, rate: str) -> dict:
    setting = results["part_b"]["settings"][name]
    cell = setting["rates"][rate]
    row = {
        "setting": name,
        "batcher": setting["batcher"],
        "max_batch": setting["max_batch"],
        "max_wait_ms": setting["max_wait_ms"],
        "rate_multiple": cell["rate_multiple"],
        "rounds_measured": len(cell["rounds"]),
        "rounds_missing": len(cell["missing_rounds"]),
        "keeps_up": cell["keeps_up"],
        "keeps_up_rounds": cell["keeps_up_rounds"],
    }
    measured = bool(cell["rounds"])
    for column in COLUMNS:
        if column not in row and column in cell:
            row[column] = cell[column]
        elif column not in row and not measured:
            row[column] = ""
    pair = results.get("paired", {}).get(name, {}).get(NONE, {}).get(rate)
    for metric in ("p50", "p99"):
        if pair:
            row[f"{metric}_minus_none_ms"] = pair[f"{metric}_ms"]["median"]
            row[f"{metric}_told_apart_from_none"] = pair[f"{metric}_ms"]["told_apart"]
        else:
            row[f"{metric}_minus_none_ms"] = row[f"{metric}_told_apart_from_none"] = ""
    return row


def cells_csv(results: dict) -> str:
    """The CSV text ('' when the campaign has no Part B)."""
    if "part_b" not in results:
        return ""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    settings = results["part_b"]["settings"]
    for name in results["design"]["settings"]:
        if name not in settings:
            continue
        for rate in sorted(settings[name]["rates"], key=float):
            row = cell_row(results, name, rate)
            writer.writerow(
                "" if row.get(c, "") == "" else value_text(c, row.get(c)) for c in COLUMNS
            )
    return out.getvalue()
