/*
 * The explorer box on the explorer page. Loaded by on-demand.js on the first page with a
 * [data-explorer] box, then kept (its Python too) and mounted wherever such a box exists.
 *
 * The reader picks B, W and RATE (or two settings, a Part A batch size, a chunk size, or a
 * simulation); the box writes the Python call into an editable textarea; Run sends that code
 * to a module Web Worker (explorer-worker.mjs) that runs it in Pyodide and answers with plain
 * text, shown with textContent. A control never replaces code the reader typed without
 * asking: a control changed after an edit asks, in the box, whether to replace the code with
 * the controls' call and run it (and from then on the controls drive the box again). Every
 * answer has a permalink: this page's address with the code (and the controls) in its
 * fragment, #run=…; opening it fills the box and runs the code again. The status line says
 * what the worker is doing (loading, running, stopping, ready). A demo file (`python -m lab
 * demo --save`) chosen in the file input is read here and sent to the worker only: nothing
 * leaves the browser. Python starts when the page is idle (requestIdleCallback) or on the
 * first Run, whichever comes first, except on a phone (a narrow screen or a coarse pointer)
 * or when the browser asks to save data (navigator.connection.saveData): there Python's
 * download (its size, written by the generator into the box's data-python-size) waits for
 * the reader's Run. On a later visit the worker starts it from the snapshot this
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
    starts: 0, // how many times Python was started on this visit (Stop starts it again)
    running: false, // a run is in the worker now
    stopping: false,
    machineText: null, // the reader's demo file, sent again to every new worker
    machine: null, // the worker's answer about it: {ok, text, curve}
    code: null, // the box's code when the reader last edited it (kept across page changes)
    asking: false, // the box asks whether the controls' call may replace the reader's code
  };
  let box = null; // the mounted box's elements (null when this page has none)

  // ---- the worker --------------------------------------------------------------------------

  function startWorker(url = WORKER_URL) {
    if (engine.worker) return;
    engine.state = "loading";
    engine.starts += 1;
    engine.start = engine.reason = engine.note = engine.notSaved = "";
    engine.savedBytes = engine.phases = null;
    engine.startedAt = performance.now();
    engine.worker = new Worker(url, { type: "module" });
    engine.worker.onmessage = (event) => onWorkerMessage(event.data);
    engine.worker.onerror = (event) => {
      event.preventDefault();
      failAll("Python stopped: " + (event.message || "the worker failed to load"));
    };
    if (engine.machineText) engine.worker.postMessage({ type: "machine", text: engine.machineText });
    showStatus();
  }

  function onWorkerMessage(message) {
    if (message.type === "status") {
      if (message.start === "saved") watchSavedStart();
      // A saved start that failed fell back to a normal one: that one is not timed.
      if (message.start === "normal") window.clearTimeout(engine.watchdog);
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
    } else if (message.type === "machine") {
      engine.machine = message;
      showMachine();
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
    engine.stopping = true;
    showStatus();
    window.clearTimeout(engine.watchdog);
    if (engine.worker) engine.worker.terminate();
    engine.worker = null;
    engine.state = "off";
    for (const waiting of engine.pending.values()) {
      waiting.reject(new Error("Stopped. Python is starting again…"));
    }
    engine.pending.clear();
    engine.stopping = false;
    startWorker();
  }

  // ---- the box -----------------------------------------------------------------------------

  function statusText() {
    if (engine.stopping) return "Stopping…";
    if (engine.running && engine.state === "ready") return "Running… (Stop ends it)";
    if (engine.state === "ready") {
      const ready = "Python " + engine.python + " is ready in your browser";
      if (engine.note) {
        const why = engine.note[0].toUpperCase() + engine.note.slice(1);
        return ready + ". " + why + ", so it started the normal way.";
      }
      if (engine.start === "saved") return ready + " (started from this browser's saved copy).";
      return ready + ".";
    }
    if (engine.state === "loading" && engine.starts > 1) {
      return "Stopped. Starting a fresh Python…" + (engine.running ? " Your run waits for it." : "");
    }
    if (engine.state === "loading") {
      return "Loading Python (once per visit)…" + (engine.running ? " Your run waits for it." : "");
    }
    if (engine.state === "failed") return "Python could not start.";
    const asked = askFirst();
    if (asked) {
      const size = box.root.dataset.pythonSize;
      const python = "Python" + (size ? " (" + size + ")" : "");
      const why = asked === "save-data" ? "Your browser asks to save data, so " : "On a phone, ";
      const what = box.root.dataset.linked ? "load it and run the linked code." : "load it.";
      return why + python + " downloads only when you ask: press Run to " + what;
    }
    return "Python starts when the page is idle, or when you press Run.";
  }

  // Why Python waits for the reader's Run ("phone", "save-data"), or "" when it starts at
  // idle: a 14 MB download is not to be made unasked on a phone or a metered connection.
  function askFirst() {
    if (navigator.connection && navigator.connection.saveData) return "save-data";
    const phone = "(max-width: 44.9375em), (pointer: coarse)"; // site.css's phone width
    return window.matchMedia && window.matchMedia(phone).matches ? "phone" : "";
  }

  function showStatus(text) {
    if (!box) return;
    box.status.textContent = text || statusText();
    box.root.dataset.engine = engine.state;
    box.root.dataset.start = engine.start;
    box.root.dataset.run = engine.stopping ? "stopping" : engine.running ? "running" : "idle";
  }

  function pythonLiteral(choice) {
    return /^-?[0-9.]+$/.test(choice) ? choice : JSON.stringify(choice);
  }

  // The call the controls stand for, written as the Python that will run.
  function callFromControls() {
    const value = (role) => pythonLiteral(box.controls[role].value);
    const mode = box.controls.mode.value;
    const full = box.controls.full && box.controls.full.checked ? ", full=True" : "";
    if (mode === "simulate") {
      const number = (role) => pythonLiteral(String(Number(box.controls[role].value) || 0));
      const mine = box.controls.mine && box.controls.mine.checked ? ", machine=my_machine" : "";
      return (
        "simulate(results, b=" + number("sim_b") + ", w=" + number("sim_w") +
        ", rate=" + number("sim_rate") + mine + ")"
      );
    }
    return callWithoutDigits(value, mode).replace(/\)$/, full + ")");
  }

  // The results the call reads: this site's campaign, or another one named by the
  // campaign control (the worker fetches it when the code names it).
  function resultsFromControls() {
    const chosen = box.controls.campaign && box.controls.campaign.value;
    return chosen ? "campaign(" + JSON.stringify(chosen) + ")" : "results";
  }

  function callWithoutDigits(value, mode) {
    const results = resultsFromControls();
    if (mode === "compare") {
      return (
        "compare(" + results + ", b1=" + value("b") + ", w1=" + value("w") +
        ", b2=" + value("b2") + ", w2=" + value("w2") + ", rate=" + value("rate") + ")"
      );
    }
    if (mode === "part_a") return "part_a(" + results + ", size=" + value("size") + ")";
    if (mode === "batch_route") {
      return "batch_route_lookup(" + results + ", chunk=" + value("chunk") + ")";
    }
    return "lookup(" + results + ", b=" + value("b") + ", w=" + value("w") + ", rate=" + value("rate") + ")";
  }

  function showControlsFor(mode) {
    box.root.querySelectorAll("[data-modes]").forEach((element) => {
      element.hidden = !element.dataset.modes.split(" ").includes(mode);
    });
  }

  // The code is the controls' call until the reader types: then a control asks, once per
  // change, whether its call may replace the typed code (and be run); yes hands the box back
  // to the controls, no keeps the reader's code.
  function onControlChange() {
    showControlsFor(box.controls.mode.value);
    const call = callFromControls();
    if (box.code.value === box.written || box.code.value.trim() === "") {
      writeCode(call);
    } else {
      ask(call);
    }
  }

  function ask(call) {
    engine.asking = true;
    box.offer.hidden = false;
    box.offerCall.textContent = call;
  }

  function useControls() {
    writeCode(callFromControls());
    onRun();
  }

  function keepCode() {
    engine.asking = false;
    box.offer.hidden = true;
    box.code.focus();
  }

  function writeCode(call) {
    box.code.value = box.written = call;
    engine.code = null;
    engine.asking = false;
    box.offer.hidden = true;
  }

  function onType() {
    engine.code = box.code.value === box.written ? null : box.code.value;
  }

  async function onRun() {
    const current = box;
    const clickedAt = performance.now();
    current.output.dataset.state = "running";
    current.output.textContent = "";
    current.stop.hidden = false;
    current.run.disabled = true;
    engine.running = true;
    if (engine.state !== "ready") startWorker();
    showStatus();
    current.permalink.hidden = true;
    const code = current.code.value;
    try {
      const answer = await runInWorker(code);
      current.output.textContent = answer.text;
      current.output.dataset.state = answer.ok ? "done" : "error";
      current.output.dataset.runMs = answer.ms.toFixed(2);
      showPermalink(current, code);
    } catch (error) {
      current.output.textContent = error.message;
      current.output.dataset.state = "stopped";
    } finally {
      current.output.dataset.elapsedMs = (performance.now() - clickedAt).toFixed(2);
      current.stop.hidden = true;
      current.run.disabled = false;
      engine.running = false;
      showStatus();
    }
  }

  // ---- permalinks: this page's address with the code in it -------------------------------

  // The fragment: run=<the code>, and the values of the controls this mode shows when the
  // code is their call (so the controls come back as they were).
  function permalinkFor(code) {
    const fields = new URLSearchParams();
    fields.set("run", code);
    if (code === box.written) {
      for (const [name, control] of Object.entries(box.controls)) {
        if (control.closest("label[hidden]")) continue; // not this mode's
        if (control.type === "checkbox") fields.set(name, control.checked ? "1" : "0");
        else fields.set(name, control.value);
      }
    }
    const url = new URL(window.location.href);
    url.hash = fields.toString();
    return url.href;
  }

  function showPermalink(current, code) {
    current.permalinkLink.href = permalinkFor(code);
    current.permalinkNote.textContent = /\bmy_machine\b/.test(code)
      ? " (it reads your demo file: choose it again there)"
      : "";
    current.permalink.hidden = false;
  }

  // A permalink opened (or this page's fragment changed to one): the controls and the code it
  // carries go in the box, which runs it (or, where Python waits to be asked, says so).
  function openPermalink() {
    const fields = new URLSearchParams(window.location.hash.slice(1));
    const code = fields.get("run");
    if (code === null || !box) return false;
    for (const [name, control] of Object.entries(box.controls)) {
      const value = fields.get(name);
      if (value === null) continue;
      if (control.type === "checkbox") control.checked = value === "1";
      else if (control.tagName !== "SELECT" || [...control.options].some((o) => o.value === value)) {
        control.value = value;
      }
    }
    showControlsFor(box.controls.mode.value);
    writeCode(callFromControls());
    if (code !== box.written) box.code.value = engine.code = code; // the reader's own code
    box.root.dataset.linked = "true";
    if (engine.state === "ready" || engine.state === "loading" || !askFirst()) onRun();
    else showStatus();
    return true;
  }

  // ---- the reader's machine: a demo file, read here, checked and kept by the worker -------

  async function onMachineFile() {
    const file = box.machineFile.files[0];
    if (!file) return;
    engine.machineText = await file.text();
    engine.machine = null;
    box.machineStatus.textContent = "Checking " + file.name + "…";
    startWorker();
    engine.worker.postMessage({ type: "machine", text: engine.machineText });
  }

  function showMachine() {
    if (!box || !engine.machine || !box.machineStatus) return;
    const { ok, text, curve, caution } = engine.machine;
    box.machineStatus.textContent = text;
    box.machineStatus.dataset.state = ok ? (caution ? "caution" : "done") : "error";
    if (caution) {
      const line = document.createElement("strong");
      line.className = "explorer-caution";
      line.textContent = caution;
      box.machineStatus.append(document.createElement("br"), line);
    }
    box.controls.mine.disabled = !ok;
    if (!ok) return;
    if (!box.controls.mine.checked) {
      box.controls.mine.checked = true;
      onControlChange();
    }
    drawMachine(curve);
  }

  // Per row, both Part A curves on log axes: where batching stops paying on each machine.
  function drawMachine(curve) {
    const chart = box.machineChart;
    chart.hidden = false;
    const perRow = (sizes, perCall) => sizes.map((size, i) => perCall[i] / size);
    const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    const ink = dark ? "#e2e4e9" : "#1f2430";
    const grid = dark ? "rgba(226, 228, 233, 0.15)" : "rgba(31, 36, 48, 0.12)";
    const data = [
      {
        x: curve.lab_sizes, y: perRow(curve.lab_sizes, curve.lab_per_call_us),
        name: "the lab's core", mode: "lines+markers", line: { color: "#0072b2" },
      },
      {
        x: curve.sizes, y: perRow(curve.sizes, curve.per_call_us),
        name: "your machine", mode: "lines+markers", line: { color: "#d55e00", dash: "dash" },
      },
    ];
    const layout = {
      title: { text: "Part A: µs per row by batch size", font: { size: 14 } },
      // Decades only: minor ticks labelled 2 and 5 read as values.
      xaxis: { type: "log", dtick: 1, title: { text: "rows in one call" }, color: ink, gridcolor: grid },
      yaxis: { type: "log", dtick: 1, title: { text: "µs per row" }, color: ink, gridcolor: grid },
      legend: { orientation: "h", y: -0.3 },
      margin: { t: 40, r: 10, b: 90, l: 60 },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: ink }, height: 320,
    };
    loadPlotly().then(
      (Plotly) => Plotly.react(chart, data, layout, { displayModeBar: false, responsive: true }),
      (error) => (box.machineStatus.textContent += " (the chart could not load: " + error.message + ")"),
    );
  }

  // The site's own plotly.js (charts.js loads the same file on pages with charts).
  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL("../vendor/plotly/plotly-basic.min.js", WORKER_URL).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("plotly.js did not load"));
      document.head.appendChild(script);
    });
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
    // The demo file's input and chart sit below the box, in their own section.
    const page = (name) => document.querySelector('[data-role="' + name + '"]');
    box = {
      root,
      controls: {},
      code: role("code"),
      run: role("run"),
      stop: role("stop"),
      status: role("status"),
      output: role("output"),
      offer: role("offer"),
      offerCall: role("offer-call"),
      permalink: role("permalink"),
      permalinkLink: role("permalink-link"),
      permalinkNote: role("permalink-note"),
      machineFile: page("machine-file"),
      machineStatus: page("machine-status"),
      machineChart: page("machine-chart"),
      written: "",
    };
    const names = ["mode", "campaign", "b", "w", "rate", "b2", "w2", "size", "chunk"];
    for (const name of [...names, "full", "sim_b", "sim_w", "sim_rate", "mine"]) {
      const control = role(name);
      if (control) {
        box.controls[name] = control;
        control.addEventListener("change", onControlChange);
      }
    }
    box.run.addEventListener("click", onRun);
    box.stop.addEventListener("click", stopWorker);
    box.code.addEventListener("keydown", onKey);
    box.code.addEventListener("input", onType);
    role("offer-use").addEventListener("click", useControls);
    role("offer-keep").addEventListener("click", keepCode);
    if (box.machineFile) box.machineFile.addEventListener("change", onMachineFile);
    showControlsFor(box.controls.mode.value);
    const typed = engine.code;
    const asking = engine.asking;
    writeCode(callFromControls());
    if (typed !== null) {
      box.code.value = engine.code = typed; // the reader's code, back after a page change
      if (asking) ask(callFromControls());
    }
    showMachine();
    if (!openPermalink()) showStatus();
    // A benchmark may ask for a cold start on the first click instead of at idle; a phone, or
    // a browser saving data, waits for the reader's Run.
    if (!window.explorerNoIdleStart && !askFirst()) whenIdle(() => startWorker());
  }

  window.explorerEngine = engine; // read by the benchmark (start-up and answer times)
  window.addEventListener("hashchange", () => openPermalink());
  if (window.document$) window.document$.subscribe(mount);
  else document.addEventListener("DOMContentLoaded", mount);
})();
