/*
 * The explorer box on the explorer page. Runs in the browser on every page (MkDocs
 * extra_javascript) and mounts only where a [data-explorer] box exists.
 *
 * The reader picks B, W and RATE (or two settings, or a Part A batch size); the box writes
 * the Python call into an editable textarea; Run sends that code to a module Web Worker
 * (explorer-worker.mjs) that runs it in Pyodide and answers with plain text, shown with
 * textContent. Python starts when the page is idle (requestIdleCallback) or on the first
 * Run, whichever comes first; on a later visit the worker starts it from the snapshot this
 * browser saved (see explorer-worker.mjs), and should that start hang, the box ends that
 * worker and starts one that skips the snapshot. Stop terminates the worker (runaway code)
 * and starts a fresh one. The worker outlives page changes, and the box is mounted again
 * through Material's document$ after every instant navigation.
 */
(function () {
  "use strict";

  // This script lives at <site>/assets/js/explorer.js: the worker sits beside it.
  const WORKER_URL = new URL("explorer-worker.mjs", document.currentScript.src);
  // A start from the saved snapshot takes about half a second; past this, start normally.
  const SAVED_START_LIMIT_MS = 15000;

  const engine = {
    worker: null,
    state: "off", // off | loading | ready | failed
    python: "",
    pending: new Map(), // run id -> {code, resolve, reject}
    nextId: 1,
    startedAt: 0,
    readyMs: null,
    start: "", // how Python started: "saved" (this browser's snapshot) or "normal"
    reason: "", // why not from a saved snapshot (empty when it was)
    note: "", // a saved start that failed, in words for the status line
    savedBytes: null, // bytes of the snapshot saved for the next visit
    notSaved: "", // why it could not be saved
    phases: null, // when each step of the start ended (ms after the worker began)
    watchdog: null,
  };
  let box = null; // the mounted box's elements (null when this page has none)

  // ---- the worker --------------------------------------------------------------------------

  function startWorker(url = WORKER_URL) {
    if (engine.worker) return;
    engine.state = "loading";
    engine.start = engine.reason = engine.note = engine.notSaved = "";
    engine.savedBytes = engine.phases = null;
    engine.startedAt = performance.now();
    engine.worker = new Worker(url, { type: "module" });
    engine.worker.onmessage = (event) => onWorkerMessage(event.data);
    engine.worker.onerror = (event) => {
      event.preventDefault();
      failAll("Python stopped: " + (event.message || "the worker failed to load"));
    };
    showStatus();
  }

  function onWorkerMessage(message) {
    if (message.type === "status") {
      if (message.start === "saved") watchSavedStart();
      showStatus(message.text);
    } else if (message.type === "ready") {
      window.clearTimeout(engine.watchdog);
      engine.state = "ready";
      engine.python = message.python;
      engine.readyMs = performance.now() - engine.startedAt;
      engine.start = message.start;
      engine.reason = message.reason;
      engine.note = message.note;
      engine.phases = message.phases;
      showStatus();
    } else if (message.type === "saved") {
      engine.savedBytes = message.bytes;
    } else if (message.type === "not-saved") {
      engine.notSaved = message.text;
    } else if (message.type === "failed") {
      failAll(message.text);
    } else if (message.type === "answer") {
      const waiting = engine.pending.get(message.id);
      engine.pending.delete(message.id);
      if (waiting) waiting.resolve(message);
    }
  }

  function failAll(text) {
    engine.state = "failed";
    for (const waiting of engine.pending.values()) waiting.reject(new Error(text));
    engine.pending.clear();
    showStatus(text);
  }

  function runInWorker(code) {
    startWorker();
    const id = engine.nextId++;
    return new Promise((resolve, reject) => {
      engine.pending.set(id, { code, resolve, reject });
      engine.worker.postMessage({ type: "run", id, code });
    });
  }

  // A saved start that hangs (a snapshot Pyodide cannot use) must not leave the reader
  // waiting: end that worker, start one that skips the snapshot, and resend the runs.
  function watchSavedStart() {
    const limit = window.explorerSavedStartLimitMs ?? SAVED_START_LIMIT_MS; // tests shorten it
    window.clearTimeout(engine.watchdog);
    engine.watchdog = window.setTimeout(() => {
      if (engine.state !== "loading") return;
      engine.worker.terminate();
      engine.worker = null;
      const url = new URL(WORKER_URL);
      url.searchParams.set("start", "normal");
      startWorker(url);
      for (const [id, waiting] of engine.pending) {
        engine.worker.postMessage({ type: "run", id, code: waiting.code });
      }
    }, limit);
  }

  // Runaway code cannot be interrupted inside the worker: end the worker and start anew.
  function stopWorker() {
    window.clearTimeout(engine.watchdog);
    if (engine.worker) engine.worker.terminate();
    engine.worker = null;
    engine.state = "off";
    for (const waiting of engine.pending.values()) {
      waiting.reject(new Error("Stopped. Python is starting again…"));
    }
    engine.pending.clear();
    startWorker();
  }

  // ---- the box -----------------------------------------------------------------------------

  function statusText() {
    if (engine.state === "ready") {
      const ready = "Python " + engine.python + " is ready in your browser";
      if (engine.note) {
        const why = engine.note[0].toUpperCase() + engine.note.slice(1);
        return ready + ". " + why + ", so it started the normal way.";
      }
      if (engine.start === "saved") return ready + " (started from this browser's saved copy).";
      return ready + ".";
    }
    if (engine.state === "loading") return "Loading Python (once per visit)…";
    if (engine.state === "failed") return "Python could not start.";
    return "Python starts when the page is idle, or when you press Run.";
  }

  function showStatus(text) {
    if (!box) return;
    box.status.textContent = text || statusText();
    box.root.dataset.engine = engine.state;
    box.root.dataset.start = engine.start;
  }

  function pythonLiteral(choice) {
    return /^-?[0-9.]+$/.test(choice) ? choice : JSON.stringify(choice);
  }

  // The call the controls stand for, written as the Python that will run.
  function callFromControls() {
    const value = (role) => pythonLiteral(box.controls[role].value);
    const mode = box.controls.mode.value;
    if (mode === "compare") {
      return (
        "compare(results, b1=" + value("b") + ", w1=" + value("w") +
        ", b2=" + value("b2") + ", w2=" + value("w2") + ", rate=" + value("rate") + ")"
      );
    }
    if (mode === "part_a") return "part_a(results, size=" + value("size") + ")";
    if (mode === "batch_route") return "batch_route_lookup(results, chunk=" + value("chunk") + ")";
    return "lookup(results, b=" + value("b") + ", w=" + value("w") + ", rate=" + value("rate") + ")";
  }

  function showControlsFor(mode) {
    box.root.querySelectorAll("[data-modes]").forEach((element) => {
      element.hidden = !element.dataset.modes.split(" ").includes(mode);
    });
  }

  function onControlChange() {
    showControlsFor(box.controls.mode.value);
    box.code.value = callFromControls();
  }

  async function onRun() {
    const current = box;
    const clickedAt = performance.now();
    current.output.dataset.state = "running";
    current.output.textContent = "";
    current.stop.hidden = false;
    current.run.disabled = true;
    if (engine.state !== "ready") startWorker();
    try {
      const answer = await runInWorker(current.code.value);
      current.output.textContent = answer.text;
      current.output.dataset.state = answer.ok ? "done" : "error";
      current.output.dataset.runMs = answer.ms.toFixed(2);
    } catch (error) {
      current.output.textContent = error.message;
      current.output.dataset.state = "stopped";
    } finally {
      current.output.dataset.elapsedMs = (performance.now() - clickedAt).toFixed(2);
      current.stop.hidden = true;
      current.run.disabled = false;
    }
  }

  function onKey(event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      box.run.click();
    }
  }

  function whenIdle(callback) {
    if ("requestIdleCallback" in window) window.requestIdleCallback(callback, { timeout: 4000 });
    else window.setTimeout(callback, 1000);
  }

  function mount() {
    const root = document.querySelector("[data-explorer]");
    if (!root) {
      box = null;
      return;
    }
    const role = (name) => root.querySelector('[data-role="' + name + '"]');
    box = {
      root,
      controls: {},
      code: role("code"),
      run: role("run"),
      stop: role("stop"),
      status: role("status"),
      output: role("output"),
    };
    for (const name of ["mode", "b", "w", "rate", "b2", "w2", "size", "chunk"]) {
      const control = role(name);
      if (control) {
        box.controls[name] = control;
        control.addEventListener("change", onControlChange);
      }
    }
    box.run.addEventListener("click", onRun);
    box.stop.addEventListener("click", stopWorker);
    box.code.addEventListener("keydown", onKey);
    showControlsFor(box.controls.mode.value);
    box.code.value = callFromControls();
    showStatus();
    // A benchmark may ask for a cold start on the first click instead of at idle.
    if (!window.explorerNoIdleStart) whenIdle(() => startWorker());
  }

  window.explorerEngine = engine; // read by the benchmark (start-up and answer times)
  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
