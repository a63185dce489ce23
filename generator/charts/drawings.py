"""The site's pictures, drawn as SVG from results.json: nothing in them is typed by hand.

    photocopier   Part A: N one-row calls against one call of N rows
    bus           the micro-batcher as a shuttle bus: B seats, W, one real batch
    timeline      the same arrivals under B=32 W=0 and B=32 W=2 (results `pictures.timeline`)
    clump         a clump of arrivals under no batching and B=32 W=0 (`pictures.clump`)
    clump_check   arrivals just before the slowest 1%, per round (`pictures.clump_check`)
    slots         the captured /predict_batch exchange, record by record (`part_c.example`)
    flow          how the lab ran, step by step, with this campaign's counts

`all_pictures(results)` gives {name: <svg>} for every picture whose data is present (pages
inline them: generator/pages/render.py); `standalone=True` gives files for docs/assets/pictures/.
Every number a picture prints is a value of results.json, which the report checks.
Run through `python -m generator build`.
"""

import json
import math

from generator.charts.svg import Scale, axis, circle, line, picture, rect, text
from generator.wording import ms, num, us
from lab.rawformat.names import NONE

ROW_NAMES = {NONE: "no batching"}


def step_for(span: float) -> float:
    """A tick step giving four to ten ticks over `span`."""
    for step in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        if span / step <= 10:
            return step
    return 10 ** math.ceil(math.log10(span))


def rounded_up(value: float, step: float) -> float:
    return math.ceil(value / step) * step


# --- the opening analogy ------------------------------------------------------------------


def photocopier(results: dict):
    """N requests copied one page at a time (N one-row calls) against one job of N pages."""
    part_a, timeline = results.get("part_a"), results.get("pictures", {}).get("timeline")
    if not part_a:
        return None
    cap = str(cap_of(results, timeline)) if timeline else "32"
    if "1" not in part_a["by_size"] or cap not in part_a["by_size"]:
        return None
    many, one = int(cap), part_a["by_size"]["1"]["per_call_us"]
    together = part_a["by_size"][cap]["per_call_us"]
    scale = Scale(0, max(many * one, together), 0.01, 0.99)
    gaps = "".join(
        line(scale(k * one), 22, scale(k * one), 40, class_="gap") for k in range(1, many)
    )
    body = (
        text(0.01, 14, f"One request at a time: {many} calls × {us(one)} = {ms(many * one / 1000)}")
        + rect(scale(0), scale(many * one), 22, 18, class_="call")
        + gaps
        + text(0.01, 62, f"All {many} requests in one call: {us(together)}")
        + rect(scale(0), scale(together), 70, 18, class_="call")
        + text(
            0.01, 106, f"Part A, the model alone: median of {part_a['runs']} runs", class_="muted"
        )
    )
    desc = (
        f"Scoring {many} requests one call each takes {many} × {us(one)} = "
        f"{ms(many * one / 1000)} of the model; scoring them in one call takes {us(together)}."
    )
    return "The photocopier: one job for many pages", desc, 114, body


def cap_of(results: dict, timeline: dict) -> int:
    return results["design"]["setting"][timeline["settings"][-1]]["max_batch"]


def bus(results: dict):
    """The batcher as a shuttle bus: B seats, the wait W, and the fullest real batch of the
    timeline's W > 0 setting."""
    timeline = results.get("pictures", {}).get("timeline")
    if not timeline:
        return None
    name = timeline["settings"][-1]
    setting = results["design"]["setting"][name]
    seats, wait_ms = setting["max_batch"], setting["max_wait_ms"]
    lane = timeline["lanes"][name]
    fullest = max(range(len(lane["batch_sizes"])), key=lambda b: (lane["batch_sizes"][b], -b))
    taken, waited = lane["batch_sizes"][fullest], lane["first_waits_ms"][fullest]
    per_row = 16 if seats > 16 else seats
    rows = math.ceil(seats / per_row)
    width = 0.98 / per_row
    body = [text(0.01, 14, f"B = {seats} seats: the bus leaves when they are all taken …")]
    for index in range(seats):
        row, column = divmod(index, per_row)
        classes = "seat taken" if index < taken else "seat"
        body.append(
            rect(
                0.01 + column * width,
                0.01 + (column + 0.8) * width,
                24 + row * 20,
                14,
                class_=classes,
                rx=2,
            )  # fmt: skip
        )
    top = 24 + rows * 20 + 16
    body.append(text(0.01, top, f"… or when its first passenger has waited W = {wait_ms:g} ms."))
    scale = Scale(0, rounded_up(max(wait_ms, waited) * 1.1, 1), 0.01, 0.97)
    body.append(rect(scale(0), scale(wait_ms), top + 10, 12, class_="wait"))
    body.append(rect(scale(wait_ms), scale(waited), top + 13, 6, class_="call"))
    body.append(axis(scale, top + 28, step_for(scale.high), "ms"))
    why = "full" if taken == seats else "the timer ran out"
    note = f"A real batch of {name}: {taken} of {seats} seats taken,"
    body.append(text(0.01, top + 62, note, class_="muted"))
    body.append(text(0.01, top + 78, f"gone after {ms(waited)} ({why}).", class_="muted"))
    desc = (
        f"A bus with {seats} seats leaves when every seat is taken or when its first passenger "
        f"has waited {ms(wait_ms)}. In a real batch of {name}, {taken} passengers boarded and "
        f"the first one waited {ms(waited)} before the batcher took the rows."
    )
    return (
        "The shuttle bus: full, or the first passenger has waited W",
        desc,
        top + 86,
        "".join(body),
    )


# --- Part B: the timeline and the clump --------------------------------------------------------


def heading(top: float, title: str, detail: str) -> str:
    """A lane's two-line heading: its name, then what it shows (short enough for a phone)."""
    return text(0.01, top + 14, title, class_="strong") + text(
        0.01, top + 30, detail, class_="muted"
    )


def lane_detail(lane: dict, requests: int) -> str:
    return (
        f"{lane['batches']} batches for {requests} requests, "
        f"median latency {ms(lane['latency_ms_p50'])}"
    )


def timeline(results: dict):
    """The same arrivals under W = 0 and W > 0: who was scored with whom, waits and calls."""
    data = results.get("pictures", {}).get("timeline")
    if not data:
        return None
    arrivals, lanes = data["arrivals_ms"], data["lanes"]
    ends = [
        value
        for lane in lanes.values()
        for value in [*filter(None, lane["answers_ms"]), *(c[1] for c in lane["calls_ms"])]
    ]
    step = step_for(max(ends))
    scale = Scale(0, rounded_up(max(ends), step))
    body, top = [], 0
    for name in data["settings"]:
        lane = lanes[name]
        body.append(heading(top, name, lane_detail(lane, data["requests"])))
        top += 16
        first = 0
        for size, wait, (start, end) in zip(
            lane["batch_sizes"], lane["first_waits_ms"], lane["calls_ms"], strict=True
        ):
            for index in range(first, first + size):
                body.append(line(scale(arrivals[index]), top + 30, scale(start), top + 46,
                                 class_="link"))  # fmt: skip
            body.append(rect(scale(start - wait), scale(start), top + 48, 8, class_="wait"))
            body.append(rect(scale(start), scale(end), top + 46, 12, class_="call"))
            if size > 1:
                middle = scale((start + end) / 2)
                body.append(text(middle, top + 72, str(size), "middle", class_="muted"))
            first += size
        body.extend(circle(scale(a), top + 28, 3.5, class_="dot") for a in arrivals)
        top += 84
    body.append(axis(scale, top + 2, step, "ms"))
    names = data["settings"]
    desc = (
        f"The same {data['requests']} arrivals, {ms(arrivals[-1])} of a run at "
        f"{results['pictures']['rate']} × S. "
        + " ".join(
            f"{name} scored them in {lanes[name]['batches']} batches (mean "
            f"{num(lanes[name]['mean_batch_size'])} rows), median latency "
            f"{ms(lanes[name]['latency_ms_p50'])}."
            for name in names
        )
    )
    return f"Requests forming batches: {names[0]} against {names[1]}", desc, top + 26, "".join(body)


def clump(results: dict):
    """One clump of arrivals, each request a bar from arrival to answer, per setting."""
    data = results.get("pictures", {}).get("clump")
    if not data:
        return None
    arrivals, chosen = data["arrivals_ms"], data["chosen"]
    answers = data["answers_ms"]
    ends = [a for lane in answers.values() for a in lane if a is not None]
    step = step_for(max(ends) - min(arrivals))
    scale = Scale(math.floor(min(arrivals) / step) * step, rounded_up(max(ends), step))
    body, top = [], 0
    for name, lane in answers.items():
        title = ROW_NAMES.get(name, name) + (", the same arrivals" if name != NONE else "")
        rows = len(arrivals) * 12
        body.append(heading(top, title, f"the slowest here waited {ms(data['slowest_ms'][name])}"))
        top += 16
        body.append(rect(scale(-data["window_ms"]), scale(0), top + 20, rows + 4, class_="shade"))
        for index, (arrived, answered) in enumerate(zip(arrivals, lane, strict=True)):
            y = top + 28 + index * 12
            hot = " hot" if index == chosen else ""
            end = scale.high if answered is None else answered
            body.append(line(scale(arrived), y, scale(end), y, class_=f"span{hot}"))
            body.append(circle(scale(arrived), y, 3, class_="accent" if hot else "dot"))
        top += rows + 34
    body.append(axis(scale, top, step, "ms"))
    desc = (
        f"{len(arrivals)} requests around a clump: {data['before']} arrived in the "
        f"{ms(data['window_ms'])} before the chosen one (time 0). "
        + " ".join(
            f"Under {ROW_NAMES.get(n, n)} the slowest of them waited {ms(data['slowest_ms'][n])}."
            for n in answers
        )
    )
    return "A clump of arrivals, answered two ways", desc, top + 24, "".join(body)


def clump_check(results: dict):
    """Per round: mean arrivals in the window before a request, all against the slowest 1%."""
    data = results.get("pictures", {}).get("clump_check")
    if not data:
        return None
    high = rounded_up(max(data["slowest_mean"] + data["all_mean"]) + 0.5, 1)
    scale = Scale(0, high, 0.2, 0.95)
    body = [
        circle(0.2, 10, 4, class_="hollow"),
        text(0.23, 14, "all requests"),
        circle(0.58, 10, 4, class_="accent"),
        text(0.61, 14, "the slowest 1%"),
    ]
    for index, round_ in enumerate(data["rounds"]):
        y = 40 + index * 24
        every, slow = data["all_mean"][index], data["slowest_mean"][index]
        body.append(text(0.01, y + 4, f"round {round_ + 1}", class_="muted"))
        body.append(line(scale(every), y, scale(slow), y, class_="link"))
        low_anchor, high_anchor = ("end", "start") if slow >= every else ("start", "end")
        shift = 0.02 if slow >= every else -0.02
        body.append(text(scale(every) - shift, y + 4, num(every, 2), low_anchor, class_="muted"))
        body.append(text(scale(slow) + shift, y + 4, num(slow, 2), high_anchor))
        body.append(circle(scale(every), y, 4.5, class_="hollow"))
        body.append(circle(scale(slow), y, 4.5, class_="accent"))
    top = 40 + len(data["rounds"]) * 24 - 8
    body.append(axis(scale, top, 1, "arrivals"))
    desc = (
        f"Mean number of arrivals in the {ms(data['window_ms'])} before a request, per round of "
        f"no batching: all requests "
        + ", ".join(num(v, 2) for v in data["all_mean"])
        + "; the slowest 1% "
        + ", ".join(num(v, 2) for v in data["slowest_mean"])
        + "."
    )
    return "Arrivals just before the slowest 1%, round by round", desc, top + 26, "".join(body)


# --- the batch route and the lab ------------------------------------------------------------

KINDS = {"valid": "valid", "unknown": "unknown customer", "malformed": "malformed record"}


def slots(results: dict):
    """The captured exchange: each record sent, and the slot that came back in its place."""
    example = results.get("part_c", {}).get("example")
    if not example:
        return None
    sent = json.loads(example["request_body"])["records"]
    got = json.loads(example["response_body"])["predictions"]
    kinds = example["record_kinds"]
    body = [
        text(0.02, 14, "records sent", class_="strong"),
        text(0.56, 14, "slots returned", class_="strong"),
    ]
    for index, (record, slot, kind) in enumerate(zip(sent, got, kinds, strict=True)):
        y = 24 + index * 50
        bad = "" if kind == "valid" else " bad"
        echoed = json.dumps(slot["customer_id"])
        if slot["error"] is None:
            verdict, style = f"✓ probability {num(slot['probability'])}", None
        else:
            verdict, style = f"✕ {slot['error']['code']}", "hot"
        body += [
            rect(0.02, 0.42, y, 40, class_=f"box{bad}", rx=4),
            text(0.04, y + 17, f"#{index} customer_id {json.dumps(record['customer_id'])}"),
            text(0.04, y + 33, KINDS.get(kind, kind), class_="muted"),
            text(0.49, y + 25, "→", "middle", class_="strong"),
            rect(0.56, 0.98, y, 40, class_=f"box{bad}", rx=4),
            text(0.58, y + 17, f"#{index} customer_id {echoed}"),
            text(0.58, y + 33, verdict, class_=style),
        ]
    height = 24 + len(sent) * 50
    desc = (
        f"{len(sent)} records sent to {example['route']} and {len(got)} slots returned, each in "
        "its record's place: "
        + "; ".join(
            f"record {i} ({kinds[i]}) got "
            + ("a score" if slot["error"] is None else f"the error {slot['error']['code']}")
            for i, slot in enumerate(got)
        )
        + "."
    )
    return (
        "Records into /predict_batch slots: a bad record keeps its place",
        desc,
        height,
        "".join(body),
    )


def flow_steps(results: dict) -> list[tuple[str, str]]:
    """(title, this campaign's numbers) of each step, only the ones it has."""
    campaign, design = results["campaign"], results["design"]
    model = campaign.get("model") or {}
    steps = []
    if model:
        steps += [
            ("The shop's data", f"{num(model.get('store_customers', 0))} customers, "
             f"{num(model.get('rows', 0))} customer-months"),
            ("The model", f"{model.get('trees')} trees, test average precision "
             f"{num(model.get('test_average_precision', 0))}"),
            ("The feature store", "SQLite, one row per customer as of "
             f"{model.get('serving_month')}"),
        ]  # fmt: skip
    steps.append(
        ("The design, written first", f"{len(design['settings'])} settings × "
         f"{len(design['rate_multiples'])} rates × {design['rounds']} rounds"
         + (f", {len(results['guesses'])} guesses" if results.get("guesses") else ""))
    )  # fmt: skip
    if results.get("part_a"):
        a = results["part_a"]
        steps.append(("Part A: the model alone", f"{a['runs']} runs × {len(a['sizes'])} sizes × "
                      f"{num(a['calls_per_size'])} timed calls"))  # fmt: skip
    if results.get("bits"):
        b = results["bits"]
        steps.append(("The bit check", f"{num(b['equal'])} of {num(b['scores'])} scores equal"))
    if results.get("saturation"):
        s = results["saturation"]
        steps.append(("S: one core without batching", f"{len(s['runs'])} closed-loop runs, "
                      f"S = {num(s['S'])} answers/s"))  # fmt: skip
    if results.get("part_b"):
        runs = sum(len(c["rounds"]) for s in results["part_b"]["settings"].values()
                   for c in s["rates"].values())  # fmt: skip
        steps.append(("Part B: the batcher under traffic", f"{num(runs)} runs of "
                      f"{design['window_s']:g} s, a fresh service each"))  # fmt: skip
    if results.get("part_c"):
        c = results["part_c"]
        steps.append(("Part C: the batch route", f"{c['runs']} runs of {num(c['records'])} "
                      f"customers, {len(c['methods'])} methods"))  # fmt: skip
    steps += [
        ("Raw files, never edited", f"{num(campaign['runs_found'])} run files"),
        ("The generator and the report", "every number computed once, then again"),
    ]
    return steps


def flow(results: dict):
    """How the lab ran: numbered steps, each with this campaign's counts."""
    if "campaign" not in results or "design" not in results:
        return None
    steps = flow_steps(results)
    body = []
    for index, (title, detail) in enumerate(steps):
        y = 4 + index * 46
        if index:
            body.append(line(0.05, y - 28, 0.05, y + 2, class_="axis"))
        body.append(circle(0.05, y + 14, 12, class_="call"))
        body.append(text(0.05, y + 18, str(index + 1), "middle", class_="number"))
        body.append(text(0.11, y + 12, title, class_="strong"))
        body.append(text(0.11, y + 28, detail, class_="muted"))
    desc = "; ".join(f"{i + 1}. {title}: {detail}" for i, (title, detail) in enumerate(steps))
    return "How the lab ran, step by step", desc + ".", 4 + len(steps) * 46, "".join(body)


DRAWINGS = {
    "photocopier": photocopier,
    "bus": bus,
    "timeline": timeline,
    "clump": clump,
    "clump_check": clump_check,
    "slots": slots,
    "flow": flow,
}


def all_pictures(results: dict, standalone: bool = False) -> dict[str, str]:
    """{name: <svg>} of every picture this campaign's results can draw."""
    drawn = {}
    for name, draw in DRAWINGS.items():
        parts = draw(results)
        if parts is not None:
            title, desc, height, body = parts
            drawn[name] = picture(name, title, desc, height, body, standalone)
    return drawn
