/*
 * The explorer's Python, in a module Web Worker so the page never waits for it.
 *
 * Started by explorer.js (new Worker(url, {type: "module"})). Loads the site's own copy of
 * Pyodide (no CDN, no micropip, no packages), and fetches results.json, explorer.py,
 * simulate.py and the simulator's validation table (simulation.json) from the site
 * meanwhile. Then it runs the reader's Python with a fresh copy of `results`, the explorer's
 * functions and `simulate` in scope (the reader's own names stay from run to run) and posts
 * back plain text; an error prints as Python
 * prints it, with only the reader's frames (and the explorer's) in the traceback.
 *
 * Start-up, fastest first:
 *   saved   from the memory snapshot this browser saved after an earlier normal start
 *           (explorer-snapshot.mjs), when it was made from the same Pyodide, explorer.py,
 *           results.json and set-up code in the same browser;
 *   normal  Pyodide's own start; right after it, before any of the reader's code runs, the
 *           worker snapshots Python's memory and saves it for next time.
 * Any failure of a saved start falls back to a normal one, and the ready message says why.
 * The URL parameter ?start=normal skips the saved snapshot (explorer.js uses it when a saved
 * start takes too long).
 *
 * Messages in:  {type: "run", id, code}: code naming another campaign (campaign("full-…"))
 *               first fetches that campaign's results
 *               {type: "machine", text}: a demo file's JSON (`python -m lab demo --save`),
 *               checked by simulate.read_demo; from then on `my_machine` is in scope
 * Messages out: {type: "status", text, start} | {type: "failed", text}
 *               {type: "ready", ms, python, start, reason, note, phases}
 *               {type: "saved", bytes, ms} | {type: "not-saved", text}
 *               {type: "answer", id, text, ok, ms}
 *               {type: "machine", ok, text, curve, caution}: the demo file's check, both
 *               Part A curves (the reader's and the lab's) for the page to draw, and what to
 *               keep in mind before leaning on it (simulate.demo_caution; "" when nothing)
 */
import { loadPyodide, version as pyodideVersion } from "../vendor/pyodide/pyodide.mjs";
import * as saved from "./explorer-snapshot.mjs";

// Every file is found relative to this worker: <site>/assets/js/explorer-worker.mjs.
const INDEX_URL = new URL("../vendor/pyodide/", import.meta.url).href;
const RESULTS_URL = new URL("../data/results.json", import.meta.url).href;
const EXPLORER_URL = new URL("../explorer/explorer.py", import.meta.url).href;
const SIMULATE_URL = new URL("../explorer/simulate.py", import.meta.url).href;
const SIMULATION_URL = new URL("../data/simulation.json", import.meta.url).href;
const FORCE_NORMAL = new URL(import.meta.url).searchParams.get("start") === "normal";
// Saving waits this long after Python is ready, so a Run pressed at once goes first.
const SAVE_DELAY_MS = 1000;

// The whole set-up, run once after a normal start with `explorer_source` and `results_text`
// set. It defines run_reader_code: the value of the reader's last expression is the answer
// (a str prints as it is), anything printed comes first, and an error prints as Python
// prints it. A saved snapshot holds Python as this leaves it.
const SETUP = `
import contextlib, io, json, linecache, marshal, os, sys, traceback
os.makedirs("/explorer", exist_ok=True)
for name, source in (("explorer", explorer_source), ("simulate", simulate_source)):
    with open(f"/explorer/{name}.py", "w", encoding="utf-8") as out:
        out.write(source)
sys.path.insert(0, "/explorer")
import explorer
import simulate as simulator
from pyodide.code import eval_code

RESULTS_TEXT = results_text
MAIN = json.loads(results_text)
RESULTS_COPY = marshal.dumps(MAIN)  # marshal: 3 times quicker than JSON
MAIN_NAME = MAIN["campaign"]["name"]
# The other full campaigns compared with this one (generator/compare.py); their results are
# fetched only when the reader's code names one (campaigns/<name>.json beside results.json).
COMPARED = [a["campaign"]["name"] for a in (MAIN.get("comparison") or {}).get("against", [])]
del MAIN
OTHER = {}  # name: marshalled results, once fetched
OTHER_FAILED = {}  # name: why it could not be fetched
SIMULATION_TABLE = json.loads(simulation_text).get("settings") if simulation_text else None
del explorer_source, simulate_source, results_text, simulation_text
READER_FILE = "<your code>"
READER_NAMES = ("lookup", "compare", "part_a", "measured", "batch_route_lookup")
spare = []  # a copy of results, ready for the next run
machine = []  # the reader's demo file, once given
namespace = {}  # the reader's names, kept from run to run


def campaign(name):
    """The results of a campaign by name: this site's, or another full campaign compared
    with it on the page "Two campaigns, cell by cell"."""
    if name == MAIN_NAME:
        return marshal.loads(RESULTS_COPY)
    if name in OTHER:
        return marshal.loads(OTHER[name])
    if name in OTHER_FAILED:
        raise ValueError(f"campaign({name!r}): its results could not be fetched ({OTHER_FAILED[name]})")
    known = ", ".join(repr(n) for n in [MAIN_NAME, *COMPARED])
    raise ValueError(f"campaign({name!r}): no such campaign here; the campaigns are {known}")


def wanted_campaigns(source):
    """The compared campaigns the reader's code names and this worker has not fetched yet;
    every one when the code calls campaign() with a name it works out itself."""
    named = [name for name in COMPARED if name in source]
    if not named and "campaign(" in source:
        named = list(COMPARED)
    return [name for name in named if name not in OTHER]


def load_campaign(name, text, failure):
    if failure:
        OTHER_FAILED[name] = failure
    else:
        OTHER[name] = marshal.dumps(json.loads(text))
        OTHER_FAILED.pop(name, None)


def simulate(results, b, w=0, rate=1, **options):
    if isinstance(b, str) and b.strip().lower() == "none":  # the box's word for B=0
        b = 0
    try:
        simulator.check_results(results)  # simulate(32, 2, 1.25) names what goes first
        this_site = (results.get("campaign") or {}).get("name") == MAIN_NAME
        if this_site and SIMULATION_TABLE and "settings" not in (results.get("simulation") or {}):
            section = dict(results.get("simulation") or {}, settings=SIMULATION_TABLE)
            results = dict(results, simulation=section)
        return simulator.simulate(results, b, w, rate, **options)
    except simulator.DemoFileError as error:
        return str(error)
    except ValueError as error:  # a choice the simulator refuses, with its reason
        return f"simulate: {error}"


simulate.__doc__ = simulator.simulate.__doc__


def prepare_spare():
    if not spare:
        spare.append(marshal.loads(RESULTS_COPY))


def fresh_namespace():
    """What a run sees: the reader's names from earlier runs, and its own copy of results
    and of the box's functions (a run that changes them changes no later run)."""
    prepare_spare()
    namespace.update(results=spare.pop(), simulate=simulate, read_demo=simulator.read_demo,
                     campaign=campaign)
    namespace.update({name: getattr(explorer, name) for name in READER_NAMES})
    if machine:
        namespace["my_machine"] = json.loads(machine[0])
    return namespace


def use_machine(text):
    """Check a demo file; (ok, message, curve, caution) with both Part A curves for the page,
    and what to keep in mind before leaning on it (too noisy, or an older demo's file)."""
    try:
        found = simulator.read_demo(json.loads(text))
    except json.JSONDecodeError as error:
        return False, f"demo file: not JSON ({error})", None, ""
    except simulator.DemoFileError as error:
        return False, str(error), None, ""
    machine[:] = [text]
    lab = json.loads(RESULTS_TEXT).get("part_a", {}).get("by_size", {})
    lab_sizes = sorted(int(size) for size in lab)
    curve = {"sizes": found["sizes"], "per_call_us": found["per_call_us"],
             "lab_sizes": lab_sizes,
             "lab_per_call_us": [lab[str(size)]["per_call_us"] for size in lab_sizes]}
    facts = found["machine"]
    text = (f"Your machine: {facts['cpu_model']}, {facts['cores']} cores, Python "
            f"{facts['python']}; {len(found['sizes'])} batch sizes. "
            "It is in the box as my_machine.")
    return True, text, json.dumps(curve), simulator.demo_caution(found)


def reader_error(error):
    """The error as Python prints it, keeping only the reader's frames and the explorer's."""
    shown = traceback.TracebackException.from_exception(error)
    frames = [frame for frame in shown.stack
              if frame.filename == READER_FILE or frame.filename.startswith("/explorer/")]
    shown.stack = traceback.StackSummary.from_list(frames)
    return "".join(shown.format()).rstrip()


def run_reader_code(source):
    printed = io.StringIO()
    linecache.cache[READER_FILE] = (len(source), None, source.splitlines(True), READER_FILE)
    try:
        with contextlib.redirect_stdout(printed):
            value = eval_code(source, fresh_namespace(), filename=READER_FILE)
    except BaseException as error:  # the reader's error, shown as Python shows it
        return False, printed.getvalue() + reader_error(error)
    text = printed.getvalue()
    if value is not None:
        text += value if isinstance(value, str) else repr(value)
    return True, text

normal_sys_path = list(sys.path)
`;

// After a saved start: the same Python as after a normal one. Pyodide adds "" to sys.path
// on every start, the file system (JavaScript's, not in the snapshot) lacks explorer.py,
// and the random generator would repeat the saved visit's numbers.
const AFTER_SAVED_START = `
import os, random, sys
sys.path[:] = normal_sys_path
os.makedirs("/explorer", exist_ok=True)
for name, source in (("explorer", explorer_source), ("simulate", simulate_source)):
    with open(f"/explorer/{name}.py", "w", encoding="utf-8") as out:
        out.write(source)
del explorer_source, simulate_source
random.seed()
`;

let runReaderCode = null;
let wantedCampaigns = null;
let loadCampaign = null;
let useMachine = null;
let prepareSpare = null;
const began = performance.now();
const phases = {}; // ms since the worker began, when each step of the start ended
const mark = (step) => (phases[step] = Math.round(performance.now() - began));

/** When Pyodide's WebAssembly was asked for and received, as the browser saw it. */
function wasmTiming() {
  const [entry] = performance.getEntriesByName(INDEX_URL + "pyodide.asm.wasm");
  if (!entry) return {};
  const since = (ms) => Math.round(ms - began);
  return { wasm_asked: since(entry.startTime), wasm_received: since(entry.responseEnd) };
}

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(url + ": HTTP " + response.status);
  return response.text();
}

/** What a snapshot is made from (Python copied the browser's details in as it started). */
async function snapshotKey([explorerSource, resultsText, simulateSource, simulationText]) {
  const { timeZone } = Intl.DateTimeFormat().resolvedOptions();
  return {
    pyodide: pyodideVersion,
    explorer_sha256: await saved.sha256Hex(explorerSource + "\n" + simulateSource),
    simulation_sha256: await saved.sha256Hex(simulationText),
    results_sha256: await saved.sha256Hex(resultsText),
    setup_sha256: await saved.sha256Hex(SETUP + AFTER_SAVED_START),
    browser: [navigator.userAgent, navigator.language, timeZone],
  };
}

/** A saved record that is not for these files: not a failure, only a reason to start afresh. */
class NotThisOne extends Error {}

// Pyodide starts fetching and compiling its WebAssembly at once, while the record's key is
// checked and the record unpacked: a record that does not fit makes loadPyodide fail before
// anything of it runs, and the caller starts the normal way.
async function savedStart(record, key, files) {
  const snapshot = key.then((wanted) => {
    if (!wanted) throw new NotThisOne("the files could not be hashed");
    if (!saved.sameKey(record.key, wanted)) {
      throw new NotThisOne("made from other files or another browser");
    }
    mark("key");
    const text = "Starting Python from this browser's saved copy…";
    postMessage({ type: "status", start: "saved", text });
    return saved.unpack(record);
  });
  snapshot.then(() => mark("unpacked"), () => {}); // loadPyodide reports a failure
  const py = await loadPyodide({ indexURL: INDEX_URL, packages: [], _loadSnapshot: snapshot });
  mark("pyodide");
  const [explorerSource, , simulateSource] = await files;
  py.globals.set("explorer_source", explorerSource);
  py.globals.set("simulate_source", simulateSource);
  py.runPython(AFTER_SAVED_START);
  return py;
}

// Pyodide starts at once; the site's files arrive meanwhile and are needed only for the set-up.
async function normalStart(files, makeSnapshot) {
  postMessage({ type: "status", start: "normal", text: "Loading Python…" });
  const options = { indexURL: INDEX_URL, packages: [], _makeSnapshot: makeSnapshot };
  const py = await loadPyodide(options);
  mark("pyodide");
  const [explorerSource, resultsText, simulateSource, simulationText] = await files;
  py.globals.set("explorer_source", explorerSource);
  py.globals.set("results_text", resultsText);
  py.globals.set("simulate_source", simulateSource);
  py.globals.set("simulation_text", simulationText);
  py.runPython(SETUP);
  return py;
}

/** Start from the saved snapshot: {py}, or {reason, note} saying why not (note: a failure). */
async function trySaved(files, key) {
  if (FORCE_NORMAL) {
    const note = "starting from this browser's saved copy took too long";
    return { reason: "too slow", note };
  }
  let record;
  try {
    record = await saved.readRecord();
  } catch (error) {
    // No storage here (a private window, say): not a failure worth a word on the page.
    return { reason: "no storage: " + error.message };
  }
  mark("read_saved");
  if (!record) return { reason: "none saved" };
  try {
    return { py: await savedStart(record, key, files) };
  } catch (error) {
    if (error instanceof NotThisOne) return { reason: error.message };
    await saved.forget().catch(() => {});
    const damaged = error instanceof saved.SnapshotDamaged;
    const why = (damaged ? "it is damaged: " : "") + error.message;
    return { reason: "failed", note: "this browser's saved copy could not be used (" + why + ")" };
  }
}

async function saveForNextTime(key, snapshot) {
  await new Promise((resolve) => setTimeout(resolve, SAVE_DELAY_MS));
  const began = performance.now();
  try {
    const wanted = await key;
    if (!wanted) throw new Error("the files could not be hashed");
    const bytes = await saved.save(wanted, snapshot);
    postMessage({ type: "saved", bytes, ms: performance.now() - began });
  } catch (error) {
    postMessage({ type: "not-saved", text: String(error && error.message) });
  }
}

async function start() {
  postMessage({ type: "status", text: "Loading Python…" });
  // Pyodide's 1.2 MB script loads while IndexedDB is read; loadPyodide imports this same module.
  import(INDEX_URL + "pyodide.asm.mjs").catch(() => {});
  const files = Promise.all([
    fetchText(EXPLORER_URL),
    fetchText(RESULTS_URL),
    fetchText(SIMULATE_URL),
    fetchText(SIMULATION_URL).catch(() => ""), // no validation table: answers say less
  ]);
  const possible = saved.snapshotsPossible();
  const key = possible ? files.then(snapshotKey).catch(() => null) : null;
  files.catch(() => {}); // reported where the set-up awaits them
  const outcome = possible ? await trySaved(files, key) : { reason: "not possible here" };
  let py = outcome.py;
  let snapshot = null;
  if (!py) {
    py = await normalStart(files, possible);
    // Before the reader's first line runs: the snapshot holds only the set-up.
    if (possible) snapshot = py.makeMemorySnapshot();
    mark("snapshot");
  }
  runReaderCode = py.globals.get("run_reader_code");
  wantedCampaigns = py.globals.get("wanted_campaigns");
  loadCampaign = py.globals.get("load_campaign");
  useMachine = py.globals.get("use_machine");
  prepareSpare = py.globals.get("prepare_spare");
  postMessage({
    type: "ready",
    ms: performance.now() - began,
    python: py.runPython("import sys; sys.version.split()[0]"),
    start: outcome.py ? "saved" : "normal",
    reason: outcome.reason,
    note: outcome.note || "",
    phases: { ...phases, ...wasmTiming() },
  });
  if (snapshot) saveForNextTime(key, snapshot);
}

const started = start().catch((error) => {
  postMessage({ type: "failed", text: "Python could not start: " + error.message });
  throw error;
});

// Another campaign's results, fetched the first time the reader's code names it.
async function fetchCampaigns(code) {
  const wanted = wantedCampaigns(code);
  const names = wanted.toJs();
  wanted.destroy();
  for (const name of names) {
    const url = new URL("../data/campaigns/" + encodeURIComponent(name) + ".json", import.meta.url);
    try {
      loadCampaign(name, await fetchText(url.href), "");
    } catch (error) {
      loadCampaign(name, "", String(error && error.message));
    }
  }
}

// The next run's copy of results is parsed while the reader reads this answer.
const prepareNext = () => setTimeout(() => prepareSpare(), 0);

self.onmessage = async (event) => {
  const message = event.data;
  await started;
  if (message.type === "machine") {
    const answer = useMachine(message.text);
    const [ok, text, curve, caution] = answer.toJs();
    answer.destroy();
    postMessage({ type: "machine", ok, text, curve: curve && JSON.parse(curve), caution });
    return;
  }
  if (message.type !== "run") return;
  const began = performance.now();
  await fetchCampaigns(message.code);
  const answer = runReaderCode(message.code);
  const [ok, text] = answer.toJs();
  answer.destroy();
  postMessage({ type: "answer", id: message.id, ok, text, ms: performance.now() - began });
  prepareNext();
};
