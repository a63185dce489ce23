/*
 * The explorer's Python, in a module Web Worker so the page never waits for it.
 *
 * Started by explorer.js (new Worker(url, {type: "module"})). Loads the site's own copy of
 * Pyodide (no CDN, no micropip, no packages), and fetches results.json and explorer.py from
 * the site while Pyodide starts. Then it runs the reader's Python with `results` and the
 * explorer's functions in scope and posts back plain text.
 *
 * Messages in:  {type: "run", id, code}
 * Messages out: {type: "status", text} | {type: "ready", ms} | {type: "failed", text}
 *               {type: "answer", id, text, ok, ms}
 */
import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";

// Every file is found relative to this worker: <site>/assets/js/explorer-worker.mjs.
const INDEX_URL = new URL("../vendor/pyodide/", import.meta.url).href;
const RESULTS_URL = new URL("../data/results.json", import.meta.url).href;
const EXPLORER_URL = new URL("../explorer/explorer.py", import.meta.url).href;

// Runs the reader's code: the value of its last expression is the answer (a str prints as
// it is), anything printed comes first, and an error prints as Python prints it.
const RUNNER = `
import contextlib, io, sys, traceback
import explorer
from pyodide.code import eval_code

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
`;

let runReaderCode = null;

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(url + ": HTTP " + response.status);
  return response.text();
}

async function start() {
  const began = performance.now();
  postMessage({ type: "status", text: "Loading Python…" });
  const [py, resultsText, explorerSource] = await Promise.all([
    loadPyodide({ indexURL: INDEX_URL, packages: [] }),
    fetchText(RESULTS_URL),
    fetchText(EXPLORER_URL),
  ]);
  py.FS.mkdirTree("/explorer");
  py.FS.writeFile("/explorer/explorer.py", explorerSource);
  py.runPython("import sys; sys.path.insert(0, '/explorer')");
  py.globals.set("results_text", resultsText);
  py.runPython("import json; results = json.loads(results_text); del results_text");
  py.runPython(RUNNER);
  runReaderCode = py.globals.get("run_reader_code");
  const python = py.runPython("sys.version.split()[0]");
  postMessage({ type: "ready", ms: performance.now() - began, python });
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
