/*
 * The explorer's Python, in a module Web Worker so the page never waits for it.
 *
 * Started by explorer.js (new Worker(url, {type: "module"})). Loads the site's own copy of
 * Pyodide (no CDN, no micropip, no packages), and fetches results.json and explorer.py from
 * the site meanwhile. Then it runs the reader's Python with `results` and the
 * explorer's functions in scope and posts back plain text.
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
 * Messages in:  {type: "run", id, code}
 * Messages out: {type: "status", text, start} | {type: "failed", text}
 *               {type: "ready", ms, python, start, reason, note, phases}
 *               {type: "saved", bytes, ms} | {type: "not-saved", text}
 *               {type: "answer", id, text, ok, ms}
 */
import { loadPyodide, version as pyodideVersion } from "../vendor/pyodide/pyodide.mjs";
import * as saved from "./explorer-snapshot.mjs";

// Every file is found relative to this worker: <site>/assets/js/explorer-worker.mjs.
const INDEX_URL = new URL("../vendor/pyodide/", import.meta.url).href;
const RESULTS_URL = new URL("../data/results.json", import.meta.url).href;
const EXPLORER_URL = new URL("../explorer/explorer.py", import.meta.url).href;
const FORCE_NORMAL = new URL(import.meta.url).searchParams.get("start") === "normal";
// Saving waits this long after Python is ready, so a Run pressed at once goes first.
const SAVE_DELAY_MS = 1000;

// The whole set-up, run once after a normal start with `explorer_source` and `results_text`
// set. It defines run_reader_code: the value of the reader's last expression is the answer
// (a str prints as it is), anything printed comes first, and an error prints as Python
// prints it. A saved snapshot holds Python as this leaves it.
const SETUP = `
import contextlib, io, json, os, sys, traceback
os.makedirs("/explorer", exist_ok=True)
with open("/explorer/explorer.py", "w", encoding="utf-8") as out:
    out.write(explorer_source)
sys.path.insert(0, "/explorer")
import explorer
from pyodide.code import eval_code

results = json.loads(results_text)
del explorer_source, results_text
namespace = {"results": results}
namespace.update({name: getattr(explorer, name) for name in
                  ("lookup", "compare", "part_a", "measured", "batch_route_lookup")})

def run_reader_code(source):
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            value = eval_code(source, namespace)
    except BaseException as error:  # the reader's error, shown as Python shows it
        lines = traceback.format_exception(type(error), error, error.__traceback__)
        reader = [line for line in lines if "<exec>" in line or not line.startswith("  File")]
        return False, printed.getvalue() + "".join(reader[-6:]).rstrip()
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
with open("/explorer/explorer.py", "w", encoding="utf-8") as out:
    out.write(explorer_source)
del explorer_source
random.seed()
`;

let runReaderCode = null;
const began = performance.now();
const phases = {}; // ms since the worker began, when each step of the start ended
const mark = (step) => (phases[step] = Math.round(performance.now() - began));

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(url + ": HTTP " + response.status);
  return response.text();
}

/** What a snapshot is made from (Python copied the browser's details in as it started). */
async function snapshotKey([explorerSource, resultsText]) {
  const { timeZone } = Intl.DateTimeFormat().resolvedOptions();
  return {
    pyodide: pyodideVersion,
    explorer_sha256: await saved.sha256Hex(explorerSource),
    results_sha256: await saved.sha256Hex(resultsText),
    setup_sha256: await saved.sha256Hex(SETUP + AFTER_SAVED_START),
    browser: [navigator.userAgent, navigator.language, timeZone],
  };
}

// The record is unpacked and checked while Pyodide fetches and compiles its WebAssembly.
async function savedStart(record, explorerSource) {
  const text = "Starting Python from this browser's saved copy…";
  postMessage({ type: "status", start: "saved", text });
  const snapshot = saved.unpack(record);
  snapshot.catch(() => {}); // loadPyodide reports it, unless it failed before asking
  const py = await loadPyodide({ indexURL: INDEX_URL, packages: [], _loadSnapshot: snapshot });
  mark("pyodide");
  py.globals.set("explorer_source", explorerSource);
  py.runPython(AFTER_SAVED_START);
  return py;
}

// Pyodide starts at once; the site's files arrive meanwhile and are needed only for the set-up.
async function normalStart(files, makeSnapshot) {
  postMessage({ type: "status", start: "normal", text: "Loading Python…" });
  const options = { indexURL: INDEX_URL, packages: [], _makeSnapshot: makeSnapshot };
  const py = await loadPyodide(options);
  mark("pyodide");
  const [explorerSource, resultsText] = await files;
  py.globals.set("explorer_source", explorerSource);
  py.globals.set("results_text", resultsText);
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
  const wanted = await key;
  if (!wanted) return { reason: "the files could not be hashed" };
  if (!saved.sameKey(record.key, wanted)) {
    return { reason: "made from other files or another browser" };
  }
  mark("key");
  try {
    return { py: await savedStart(record, (await files)[0]) };
  } catch (error) {
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
  const files = Promise.all([fetchText(EXPLORER_URL), fetchText(RESULTS_URL)]);
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
  postMessage({
    type: "ready",
    ms: performance.now() - began,
    python: py.runPython("import sys; sys.version.split()[0]"),
    start: outcome.py ? "saved" : "normal",
    reason: outcome.reason,
    note: outcome.note || "",
    phases,
  });
  if (snapshot) saveForNextTime(key, snapshot);
}

const started = start().catch((error) => {
  postMessage({ type: "failed", text: "Python could not start: " + error.message });
  throw error;
});

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type !== "run") return;
  await started;
  const began = performance.now();
  const answer = runReaderCode(message.code);
  const [ok, text] = answer.toJs();
  answer.destroy();
  postMessage({ type: "answer", id: message.id, ok, text, ms: performance.now() - began });
};
