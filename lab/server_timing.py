"""The `Server-Timing` response header: how the service writes it and how clients read it.

/predict:       ready;dur=0.051, queued;dur=0.000, model;dur=0.412, call;dur=0.405,
                batch;desc="1"
/predict_batch: parse;dur=…, validate;dur=…, lookup;dur=…, model;dur=…, serialize;dur=…

ready: handler start to row ready for the model (read, check, feature lookup); queued: row
ready to its model call starting (waiting in the micro-batcher; 0 with batcher none); model:
model call starting to the handler holding the score again (the call, then the way back to the
handler, which with a queue can include other requests' work); call: the model call alone
(part of `model`); batch: rows in that call (0: not scored).

Durations are milliseconds with 3 decimals (microsecond resolution). Used by `lab.service`
and by the load clients; nothing to run on its own.
"""

HEADER = "server-timing"
PREDICT_NAMES = ("ready", "queued", "model")  # they add up; `call` is inside `model`
BATCH_ROUTE_NAMES = ("parse", "validate", "lookup", "model", "serialize")


def format_server_timing(
    ready_s: float, queued_s: float, model_s: float, batch: int, call_s: float = 0.0
) -> str:
    """The /predict header from four durations in seconds and the batch size (0: not scored)."""
    return (
        f"ready;dur={ready_s * 1e3:.3f}, queued;dur={queued_s * 1e3:.3f}, "
        f'model;dur={model_s * 1e3:.3f}, call;dur={call_s * 1e3:.3f}, batch;desc="{batch}"'
    )


def format_durations(durations: dict[str, float]) -> str:
    """A header of `name;dur=…` entries, in the dict's order, from durations in seconds."""
    return ", ".join(f"{name};dur={seconds * 1e3:.3f}" for name, seconds in durations.items())


def parse_server_timing(header: str) -> dict:
    """Entries of a Server-Timing header: `dur` as float milliseconds, `desc` as a string,
    or as an int when the description is an integer (the batch size).

    >>> parse_server_timing('ready;dur=0.051, model;dur=0.412, batch;desc="1"')
    {'ready': 0.051, 'model': 0.412, 'batch': 1}
    """
    found = {}
    for entry in header.split(","):
        name, _, params = entry.strip().partition(";")
        key, _, value = params.partition("=")
        key = key.strip()
        if key == "dur":
            found[name] = float(value)
        elif key == "desc":
            value = value.strip().strip('"')
            found[name] = int(value) if value.isdigit() else value
        elif name:
            found[name] = None
    return found
