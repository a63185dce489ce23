"""The explorer: look up what the lab measured, as plain text. Standard library only.

It runs in two places and must print the same text in both:
  * in the reader's browser, inside Pyodide in a Web Worker (site_src/js/explorer-worker.mjs
    fetches this file and results.json from the site and runs the reader's call);
  * under CPython, in the tests and in the generator's report:
        import json, explorer
        results = json.load(open("docs/assets/data/results.json"))
        print(explorer.lookup(results, 32, 2, 1.0))

Every number printed is a value the generator wrote into results.json: this module formats
and never recomputes a metric. Numbers are rounded for reading (three significant digits,
whole numbers kept whole); `full=True` prints every stored digit. Names are read from results.json
too (a setting's key by its cap and wait, a rate's key by its value), never spelled here.
A choice that was not measured gets a message naming the values that were. The output is
plain text; the page shows it with textContent, never as HTML.

Reader's functions: lookup(results, b, w, rate), compare(results, b1, w1, b2, w2, rate),
part_a(results, size), measured(results), batch_route_lookup(results, chunk); each but
measured takes full=True. Given another campaign's results (the site's `campaign(name)`,
marked `chosen: "compared"` by the generator), an answer names that campaign first.
"""

import decimal
import math
import re
import textwrap

SCHEMA_VERSION = 1
NONE = "none"  # the reader's word for no batcher, and that setting's batcher in results.json


class NotMeasured(ValueError):
    """A choice the campaign has no measurement for; the message names what it has."""


# Set by each reader's function for the length of its call (Python in the box is one thread).
FULL_DIGITS = [False]
ROUNDED_NOTE = "(numbers rounded for reading; add full=True for every stored digit)"
SLOW_NOTE = (
    "did not keep up in every round: its queue grew all run long, so its latency grows "
    "with the run's length (a longer run would show a higher p50 and p99)"
)


def digits(full: bool):
    """Run the body with every digit (full=True) or rounded numbers."""

    class Digits:
        def __enter__(self):
            self.before = FULL_DIGITS[0]
            FULL_DIGITS[0] = bool(full)

        def __exit__(self, *error):
            FULL_DIGITS[0] = self.before

    return Digits()


def with_note(text: str) -> str:
    return text if FULL_DIGITS[0] else text + "\n\n" + ROUNDED_NOTE


def named(results, text: str) -> str:
    """The answer, first naming its campaign when it is not the one the site shows (the
    generator marks the other full campaigns' results `chosen: "compared"`)."""
    campaign = results.get("campaign", {}) if isinstance(results, dict) else {}
    if campaign.get("chosen") != "compared":
        return text
    return f"Campaign {campaign.get('name')} (not the one this site shows):\n\n{text}"


# --- formatting: every value printed exactly as stored ---------------------------------


def plain(value) -> str:
    """A stored number for reading: rounded to three significant digits (whole numbers and
    the integer part kept), or every digit under full=True; null = never answered."""
    if value is None:
        return "never answered"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if FULL_DIGITS[0] or isinstance(value, int) or value == 0:
        return every_digit(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, 2 - magnitude)
    return every_digit(float(f"{value:.{decimals}f}"))


def every_digit(value) -> str:
    """A stored number with all its digits and thousands separators (null = never answered)."""
    if value is None:
        return "never answered"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    text = repr(value)
    if "e" in text:  # very small or large: positional notation, no digit lost
        text = format(decimal.Decimal(text), "f")
    whole, _, fraction = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return f"{sign}{int(whole.lstrip('-')):,}.{fraction}"


def signed(value) -> str:
    """A difference with its sign (+ for higher, - for lower)."""
    if value is None:
        return "undefined"
    if value == 0:
        return "0"
    return plain(value) if value < 0 else "+" + plain(value)


def with_unit(value, unit: str) -> str:
    return "never answered" if value is None else f"{plain(value)} {unit}"


def listing(values) -> str:
    return ", ".join(str(value) for value in values)


def table(rows, indent: str = "  ") -> str:
    """Left-aligned columns; rows are lists of strings."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


# --- reading the reader's choices -------------------------------------------------------


def number_text(value) -> str:
    """How a choice is written in a key: 2.0 -> '2', 0.5 -> '0.5' (Python's :g)."""
    return f"{float(value):g}"


def as_number(value, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise NotMeasured(f"{what} must be a number, not {value!r}.") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise NotMeasured(f"{what} must be a finite number, not {value!r}.")
    return number


def need_results(results) -> None:
    """The first argument of every reader's function is the campaign's results (a dict): a
    call written without it, lookup(32, 0, 1), is refused naming the arguments' order."""
    if not isinstance(results, dict):
        raise NotMeasured(
            "The first argument is the campaign's results (the name `results`, or "
            f"campaign(name)), then the choices; got {results!r} where results goes."
        )


def part_b(results) -> dict:
    need_results(results)
    if results.get("schema_version") != SCHEMA_VERSION:
        raise NotMeasured(
            f"This explorer reads results schema {SCHEMA_VERSION}; "
            f"the file says {results.get('schema_version')!r}."
        )
    if "part_b" not in results:
        raise NotMeasured("This campaign has no Part B measurements.")
    return results["part_b"]["settings"]


def caps_measured(settings: dict) -> list:
    """The B values measured: 'none' (when measured) first, then the caps, ascending."""
    caps = sorted({s["max_batch"] for s in settings.values() if s["batcher"] != NONE})
    return ([NONE] if NONE in settings else []) + caps


def setting_name(results, b, w) -> str:
    """The setting's key in results.json for B and W, or a message naming the measured ones."""
    settings = part_b(results)
    caps = caps_measured(settings)
    if b is None or str(b).strip().lower() == NONE:
        if NONE not in settings:
            raise NotMeasured(f"'none' was not measured. Measured B: {listing(caps)}.")
        return NONE
    cap = as_number(b, "B")
    if cap != int(cap) or int(cap) not in caps:
        raise NotMeasured(f"B={number_text(b)} was not measured. Measured B: {listing(caps)}.")
    cap = int(cap)
    wait = as_number(w, "W")
    waits = sorted(s["max_wait_ms"] for s in settings.values() if s["max_batch"] == cap)
    if cap == 1 and wait != 0:
        raise NotMeasured(
            "B=1 with W>0 is not a setting: a batch of one never waits for a second request. "
            "Use w=0 (queue B=1)."
        )
    for name, setting in settings.items():
        dials = (setting["max_batch"], setting["max_wait_ms"])
        if setting["batcher"] != NONE and dials == (cap, wait):
            return name
    measured_waits = listing(number_text(x) for x in waits)
    raise NotMeasured(
        f"W={number_text(w)} ms was not measured with B={cap}. "
        f"Measured W for B={cap}: {measured_waits} ms."
    )


def rate_key(results, name: str, rate) -> str:
    """The rate's key for this setting, or a message naming the measured rates."""
    multiple = as_number(rate, "RATE")
    design_rates = results["design"]["rate_multiples"]
    measured = list(part_b(results)[name]["rates"])
    key = next((k for k in design_rates if float(k) == multiple), None)
    if key is None:
        raise NotMeasured(
            f"RATE={number_text(multiple)} × S was not measured. "
            f"Measured rates: {listing(design_rates)} × S."
        )
    if key not in measured:
        raise NotMeasured(
            f"{shown_name(results, name)} has no measurement at {key} × S (its runs are missing). "
            f"Measured rates for {shown_name(results, name)}: {listing(measured) or 'none'} × S."
        )
    return key


def shared_rate_key(results, rate, *names: str) -> str:
    """The rate's key, checked for every named setting (the first missing one is named)."""
    keys = [rate_key(results, name, rate) for name in names]
    return keys[0]


# --- describing a cell --------------------------------------------------------------------


def shown_name(results, name: str) -> str:
    """The one name the reader sees for a setting: 'queue B=1' for the batcher with B=1."""
    setting = results.get("part_b", {}).get("settings", {}).get(name, {})
    if setting.get("batcher") != NONE and setting.get("max_batch") == 1:
        return "queue B=1"
    return name


def describe_setting(results, name: str) -> str:
    if name == NONE:
        return "none: no batcher; the handler scores its own row"
    setting = results["design"]["setting"][name]
    if setting["max_batch"] == 1:
        return "queue B=1: through the batcher, never grouped (the machinery's cost)"
    cap, wait = setting["max_batch"], setting["max_wait_ms"]
    if wait == 0:
        return f"{name}: batches of up to {cap} rows, never waits on purpose (W=0)"
    return f"{name}: batches of up to {cap} rows, the first request waits up to {plain(wait)} ms"


def cell_lines(results, name: str, key: str) -> str:
    cell = results["part_b"]["settings"][name]["rates"][key]
    rounds = results["design"]["rounds"]
    rows = [
        ["p50", with_unit(cell.get("p50_ms"), "ms")],
        ["p99", with_unit(cell.get("p99_ms"), "ms")],
        ["throughput", with_unit(cell.get("throughput"), "answers/s")],
        ["kept up", f"{cell['keeps_up_rounds']} of {rounds} rounds"],
    ]
    if "mean_batch_size" in cell:
        mean = cell["mean_batch_size"]
        rows.append(["mean batch", with_unit(mean, "row" if mean == 1 else "rows")])
    if "client_cpu_us_per_request" in cell:  # the load client's own cost (older files lack it)
        rows.append(["client CPU", with_unit(cell["client_cpu_us_per_request"], "µs/request")])
    if cell["missing_rounds"]:
        missing = listing(r + 1 for r in cell["missing_rounds"])
        rows.append(["missing", f"round {missing} (no raw file)"])
    if cell.get("never_passed_rounds"):
        rounds = listing(r + 1 for r in cell["never_passed_rounds"])
        rows.append(["slow host", never_passed_text(f"round {rounds}")])
    text = describe_setting(results, name) + "\n" + table(rows)
    if cell["keeps_up_rounds"] < len(cell["rounds"]) or not cell.get("keeps_up", True):
        text += "\n" + textwrap.fill(
            "warning: " + SLOW_NOTE, width=80, initial_indent="  ", subsequent_indent="    "
        )
    return text


def run_number(run_id: str) -> int:
    """A run as a reader counts it, from 1: the lab's ids count from 0 ("part_c-4" is run 5;
    generator/wording.py run_number is the site's own, which this box cannot import)."""
    return int(run_id.rsplit("-", 1)[1]) + 1


def never_passed_text(which: str) -> str:
    """Runs the slow-run rule measured again and again: kept, but on a slowed host."""
    return (
        f"{which} never passed the slow-run rule "
        "(the speed probe found the core slow at every attempt; its least slow attempt is used)"
    )


METRICS = (("p50_ms", "p50", "ms"), ("p99_ms", "p99", "ms"), ("throughput", "throughput", "/s"))


def verdict_line(label: str, diff: dict, rounds: int) -> str:
    if "verdict" in diff:  # a campaign judged by the interval rule (issue 28)
        side = f", {diff['direction']}" if diff["told_apart"] else ""
        return f"{label}: {diff['verdict']}{side} (by the campaign's interval rule)"
    if diff["told_apart"]:
        return f"{label}: told apart, {diff['direction']} (all {rounds} rounds agree in sign)"
    return f"{label}: not resolved (the rounds do not all agree in sign)"


def paired_lines(results, name: str, baseline: str, key: str) -> str:
    """The stored round-by-round differences and verdicts, name minus baseline."""
    pair = results.get("paired", {}).get(name, {}).get(baseline, {}).get(key)
    if pair is None:
        first, second = shown_name(results, name), shown_name(results, baseline)
        return f"No paired differences of {first} against {second} at {key} × S were published."
    rounds = pair["p50_ms"]["rounds"]
    # Each unit on a line of its own under its name: "throughput (/s)" on one line made the
    # table wider than a phone's box, which wrapped it (tests/test_phone_layout.py).
    names = ["round"] + [label for _, label, _ in METRICS]
    rows = [names, [""] + [f"({unit})" for _, _, unit in METRICS]]
    for index, number in enumerate(rounds):
        rows.append([str(number + 1)] + [signed(pair[m]["diffs"][index]) for m, _, _ in METRICS])
    rows.append(["median"] + [signed(pair[m]["median"]) for m, _, _ in METRICS])
    design_rounds = results["design"]["rounds"]
    verdicts = [verdict_line(label, pair[m], design_rounds) for m, label, _ in METRICS]
    first, second = shown_name(results, name), shown_name(results, baseline)
    title = f"{first} minus {second}, round by round (the same arrivals in each round):"
    return title + "\n" + table(rows) + "\n" + "\n".join("  " + line for line in verdicts)


def heading(results, key: str) -> str:
    """The rate, as a multiple of S and in requests per second (the campaign is on the page)."""
    settings = results["part_b"]["settings"]
    any_cell = next(s["rates"][key] for s in settings.values() if key in s["rates"])
    return f"At {key} × S ({plain(any_cell['arrival_rate'])} requests/s arriving)"


# --- the reader's functions ---------------------------------------------------------------


def lookup(results, b, w=0, rate=1, full=False) -> str:
    """No batching first at the same rate, then the setting B, W, and their paired rounds."""
    with digits(full):
        return named(results, lookup_text(results, b, w, rate))


def lookup_text(results, b, w, rate) -> str:
    try:
        name = setting_name(results, b, w)
        key = shared_rate_key(results, rate, name, NONE)
    except NotMeasured as message:
        return str(message)
    parts = [heading(results, key), cell_lines(results, NONE, key)]
    if name == NONE:
        parts.append("This is the baseline itself: choose B to compare a batcher with it.")
    else:
        parts.append(cell_lines(results, name, key))
        parts.append(paired_lines(results, name, NONE, key))
    return with_note("\n\n".join(parts))


def compare(results, b1, w1, b2, w2, rate=1, full=False) -> str:
    """Two settings at one rate; their stored paired differences when the generator made them."""
    with digits(full):
        return named(results, compare_text(results, b1, w1, b2, w2, rate))


def compare_text(results, b1, w1, b2, w2, rate) -> str:
    try:
        first = setting_name(results, b1, w1)
        second = setting_name(results, b2, w2)
        key = shared_rate_key(results, rate, first, second)
    except NotMeasured as message:
        return str(message)
    parts = [heading(results, key), cell_lines(results, first, key)]
    if first == second:
        parts.append("Both choices are the same setting.")
        return with_note("\n\n".join(parts))
    parts.append(cell_lines(results, second, key))
    paired = results.get("paired", {})
    if key in paired.get(second, {}).get(first, {}):
        parts.append(paired_lines(results, second, first, key))
    elif key in paired.get(first, {}).get(second, {}):
        parts.append(paired_lines(results, first, second, key))
    else:
        parts.append(by_round_side_by_side(results, first, second, key))
    return with_note("\n\n".join(parts))


def by_round_side_by_side(results, first: str, second: str, key: str) -> str:
    """Each round's p50 and p99 of both settings, when no paired difference was published."""
    cells = [results["part_b"]["settings"][n]["rates"][key] for n in (first, second)]
    one, two = shown_name(results, first), shown_name(results, second)
    rows = [["round", f"{one} p50", f"{two} p50", f"{one} p99", f"{two} p99"]]
    shared = [r for r in cells[0]["rounds"] if r in cells[1]["rounds"]]
    for number in shared:
        at = [cell["rounds"].index(number) for cell in cells]
        rows.append(
            [str(number + 1)]
            + [with_unit(cells[i]["by_round"]["p50_ms"][at[i]], "ms") for i in (0, 1)]
            + [with_unit(cells[i]["by_round"]["p99_ms"][at[i]], "ms") for i in (0, 1)]
        )
    note = (
        "The generator pairs each setting with none, with W=0 at the same B and with queue "
        "B=1;\nthese two are not such a pair, so here are their rounds side by side:"
    )
    return note + "\n" + table(rows)


def size_key(size) -> str | None:
    """A Part A size as its key ('32'), or None when it is not a whole number."""
    try:
        number = as_number(size, "size")
    except NotMeasured:
        return None
    return str(int(number)) if number == int(number) else None


def part_a(results, size=1, full=False) -> str:
    """Part A, the model alone: one row first, then the chosen batch size."""
    with digits(full):
        return named(results, part_a_text(results, size))


def part_a_text(results, size) -> str:
    try:
        need_results(results)
    except NotMeasured as message:
        return str(message)
    if "part_a" not in results:
        return "This campaign has no Part A measurements."
    sizes = results["part_a"]["sizes"]
    chosen_key = size_key(size)
    if chosen_key not in results["part_a"]["by_size"]:
        return f"Batch size {size!r} was not measured. Measured sizes: {listing(sizes)} rows."
    runs = results["part_a"]["runs"]
    parts = [f"Part A, the model alone ({runs} runs; each value: the median of the runs' medians)"]
    for chosen in dict.fromkeys(["1", chosen_key]):
        if chosen not in results["part_a"]["by_size"]:
            continue
        entry = results["part_a"]["by_size"][chosen]
        rows = [
            ["per call", with_unit(entry["per_call_us"], "µs")],
            ["per row", with_unit(entry["per_row_us"], "µs")],
            ["each run", listing(with_unit(x, "µs") for x in entry["per_call_us_runs"])],
            ["timed calls", plain(entry["calls"])],
        ]
        bits = results.get("bits", {}).get("by_size", {}).get(chosen)
        if bits is not None:
            rows.append(["same bits", f"{plain(bits['equal'])} of {plain(bits['scores'])} scores"])
        marked = results["part_a"].get("never_passed_runs")
        if marked:
            runs = listing(r + 1 for r in marked)
            rows.append(["slow host", never_passed_text(f"run {runs}")])
        parts.append(f"batch of {chosen} row{'s' if chosen != '1' else ''}\n" + table(rows))
    return with_note("\n\n".join(parts))


def setting_order(name: str) -> tuple:
    """none first, then by B and W as numbers ("B=8 W=0" before "B=32 W=0")."""
    numbers = re.findall(r"[\d.]+", name)
    return (name != "none", *(float(number) for number in numbers))


def measured(results) -> str:
    """What this campaign measured: the values the reader may choose."""
    try:
        settings = part_b(results)
    except NotMeasured as message:
        return str(message)
    lines = [f"campaign {results['campaign']['name']} ({results['campaign']['profile']} profile)"]
    # The design's order (none, then by B and W), never the text order of the JSON keys.
    order = [name for name in results["design"]["settings"] if name in settings]
    order += sorted(set(settings) - set(order), key=setting_order)
    lines.append(f"settings: {listing(shown_name(results, name) for name in order)}")
    lines.append(f"rates: {listing(results['design']['rate_multiples'])} × S")
    if "part_a" in results:
        lines.append(f"Part A sizes: {listing(results['part_a']['sizes'])} rows")
    return "\n".join(lines)


# --- the batch route (Part C): the loop first, then the chosen chunk size ------------------


def batch_route_key(chunk) -> str | None:
    """A chunk size as its key in part_c.by_method ('1000'), or None when not a whole number."""
    try:
        number = as_number(chunk, "chunk")
    except NotMeasured:
        return None
    return str(int(number)) if number == int(number) and number > 0 else None


def batch_route_rows(part_c: dict, key: str) -> list:
    method = part_c["by_method"][key]
    rows = [
        ["per record", with_unit(method["per_record_us"], "µs")],
        [f"{plain(part_c['records'])} records", with_unit(method["wall_ms"], "ms")],
        ["each run", listing(with_unit(x, "ms") for x in method["wall_ms_runs"])],
    ]
    if key != "loop":
        rows.append(["speedup", f"{plain(method['speedup'])}× the loop"])
    rows.append(["bits", "same as the loop" if method["mismatches"] == 0 else "DIFFERENT"])
    rows.append(["mismatches", plain(method["mismatches"])])
    rows.append(["errors", plain(method["errors"])])
    return rows


def batch_route_lookup(results, chunk, full=False) -> str:
    """Part C, the batch route: the loop of single /predict calls first, then /predict_batch
    in chunks of `chunk` records (wall time for the N records, per record, speedup, bits)."""
    with digits(full):
        return named(results, batch_route_text(results, chunk))


def batch_route_text(results, chunk) -> str:
    try:
        need_results(results)
    except NotMeasured as message:
        return str(message)
    part_c = results.get("part_c")
    if not part_c:
        return "This campaign has no batch-route (Part C) measurements."
    key = batch_route_key(chunk)
    chunks = [int(k) for k in part_c["methods"] if k != "loop"]
    if key not in part_c["by_method"]:
        return f"Chunk size {chunk!r} was not measured. Measured chunk sizes: {listing(chunks)}."
    parts = [
        f"The batch route: {plain(part_c['records'])} records, {part_c['runs']} runs "
        "(each time: the median of the runs)"
    ]
    if "loop" in part_c["by_method"]:
        parts.append(
            "loop of /predict, one record per call\n" + table(batch_route_rows(part_c, "loop"))
        )
    label = f"/predict_batch, chunks of {plain(int(key))} record{'s' if key != '1' else ''}"
    parts.append(label + "\n" + table(batch_route_rows(part_c, key)))
    if part_c.get("never_passed_runs"):
        numbers = [run_number(run_id) for run_id in part_c["never_passed_runs"]]
        which = f"run{'s' if len(numbers) > 1 else ''} {listing(sorted(numbers))}"
        parts.append("slow host: " + never_passed_text(which))
    return with_note("\n\n".join(parts))
