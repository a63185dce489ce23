"""The `Server-Timing` response header: how the service writes it and how clients read it.

/predict:       ready;dur=0.051, queued;dur=0.000, model;dur=0.412, call;dur=0.405,
                batch;desc="1"
/predict_batch: parse;dur=…, validate;dur=…, lookup;dur=…, model;dur=…, serialize;dur=…

ready: handler start to row ready for the model (read, check, feature lookup); queued: row
ready to its model call starting (waiting in the micro-batcher; 0 with batcher none); model:
model call starting to the handler holding the score again (the call, then the way back to the
handler, which with a queue can include other requests' work); call: the model call alone
(part of `model`); batch: rows in that call (0: not scored).


Durations are milliseconds with 3 decimals (microsecond resolution). The one home of the
stage names (the campaign records them in campaign.json). Used by the service
(lab/service/app.py, lab/service/batch_route.py), by the load clients and by Part C's
breakdown; nothing to run on its own.
"""

import re

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


_TIMING_ITEM = re.compile(rb'\s*([a-z0-9_-]+)\s*(?:;\s*(dur|desc)\s*=\s*"?([^",;]*)"?)?')


def server_timing_moments(value: bytes) -> tuple[int, int, int, int, int]:
    """(ready_us, queued_us, model_us, batch_size, call_us) from a lower-cased Server-Timing
    value such as `ready;dur=0.051, queued;dur=0.000, model;dur=0.412, call;dur=0.405,
    batch;desc="1"` (ms), as the load clients keep it (raw bytes, parsed after the run).
    Missing entries are 0 (services before `call` existed send none)."""
    found = {}
    for item in value.split(b","):
        match = _TIMING_ITEM.match(item)
        if match and match.group(3) is not None:
            found[match.group(1)] = match.group(3)
    return (
        _ms_to_us(found.get(b"ready")),
        _ms_to_us(found.get(b"queued")),
        _ms_to_us(found.get(b"model")),
        int(found.get(b"batch", b"0") or 0),
        _ms_to_us(found.get(b"call")),
    )


def _ms_to_us(text: bytes | None) -> int:
    return round(float(text) * 1000) if text else 0
