"""Would a snapshot made at build time, shipped as a static gzip file, speed up a first visit?
A measurement (not a test): `taskset -c 0 .venv/bin/python tests/bench_shipped_snapshot.py`.

The site does not ship one; this script measures what it would buy and cost. It builds the
site, lets the real explorer make and save its snapshot in Chromium, reads it back from
IndexedDB and gzips it (the file a build step would ship). Then, on a server that limits its
total bandwidth, it times a reader's first visit from the start of the worker to the first
answer, each in a new browser profile (nothing cached):
  * today's path: the site's own explorer worker (Pyodide's normal start);
  * the shipped path: a worker that downloads the gzip file while Pyodide downloads its
    files, unpacks it and starts Python from it (what the explorer worker would do).
Writes data/bench/shipped_snapshot.json and prints it.
"""

import base64
import functools
import gzip
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' support package

from tests.support import browser as site_tools  # noqa: E402 (build, serve and browser helpers)

OUT = ROOT / "data" / "bench" / "shipped_snapshot.json"
BANDWIDTHS_MBIT = [0, 100, 50, 20, 10]  # 0: no limit (localhost)
REPEATS = 2
CALL = "lookup(results, b=32, w=2, rate=1)"
SHIPPED = "assets/snapshot/explorer.snapshot.gz"

# The measuring page: go(mode, code) starts a worker and resolves with the ms to its answer.
PAGE = """<!doctype html><meta charset="utf-8"><title>bench</title><script>
window.go = (mode, code) => new Promise((resolve, reject) => {
  const began = performance.now();
  const url = mode === "normal" ? "../js/explorer-worker.mjs" : "shipped-worker.mjs";
  const worker = new Worker(url, {type: "module"});
  worker.onerror = (event) => reject(new Error(event.message));
  worker.onmessage = ({data}) => {
    if (data.type === "failed") reject(new Error(data.text));
    if (data.type !== "answer") return;
    resolve({ms: performance.now() - began, text: data.text});
    worker.terminate();
  };
  worker.postMessage({type: "run", id: 1, code});
});
</script>"""

# The shipped path, as the explorer worker would take it: the site's files fetched and hashed
# (to check the snapshot's key), the gzip file fetched and unpacked while Pyodide loads.
WORKER = """import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
const here = (path) => new URL(path, import.meta.url).href;
const text = (path) => fetch(here(path)).then((response) => response.text());
const sha256 = (t) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(t));
self.onmessage = async ({data}) => {
  const snapshot = fetch(here("../snapshot/explorer.snapshot.gz"))
    .then((r) => new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer())
    .then((buffer) => new Uint8Array(buffer));
  const [source, results] = await Promise.all([text("../explorer/explorer.py"),
                                              text("../data/results.json")]);
  await Promise.all([sha256(source), sha256(results)]);
  const py = await loadPyodide({indexURL: here("../vendor/pyodide/"), packages: [],
                                _loadSnapshot: snapshot});
  py.runPython("import random, sys; sys.path[:] = normal_sys_path; random.seed()");
  const answer = py.globals.get("run_reader_code")(data.code);
  const [ok, shown] = answer.toJs();
  postMessage({type: "answer", id: data.id, ok, text: shown});
};
"""

READ_SAVED = """async () => {
    const request = (r) => new Promise((ok, fail) => {
        r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
    const db = await request(indexedDB.open("lesson-explorer", 1));
    const record = await request(db.transaction("snapshots").objectStore("snapshots")
        .get("python"));
    const url = await new Promise((ok) => {
        const reader = new FileReader(); reader.onload = () => ok(reader.result);
        reader.readAsDataURL(record.data); });
    return {length: record.length, pages: Array.from(record.pages),
            data: url.slice(url.indexOf(",") + 1)};
}"""


def unpack(saved: dict) -> bytes:
    """The snapshot from the saved record (64 KiB pages; the left-out ones are zero)."""
    page = 65536
    data = base64.b64decode(saved["data"])
    memory = bytearray(-(-saved["length"] // page) * page)
    for i, index in enumerate(saved["pages"]):
        memory[index * page : (index + 1) * page] = data[i * page : (i + 1) * page]
    return bytes(memory[: saved["length"]])


def make_shipped_file(playwright, site_dir: Path, base: str) -> dict:
    """The explorer's own snapshot, gzipped into the site where a build step would put it."""
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder:
        context = site_tools.launch_profile(playwright, folder)
        page = site_tools.Watch(context, base).page
        page.goto(base + "explorer/", wait_until="load")
        page.wait_for_function(
            "window.explorerEngine.savedBytes !== null", timeout=site_tools.patience.ms
        )
        snapshot = unpack(page.evaluate(READ_SAVED))
        context.close()
    compressed = gzip.compress(snapshot, compresslevel=6, mtime=0)
    target = site_dir / SHIPPED
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(compressed)
    (site_dir / "assets" / "bench").mkdir(exist_ok=True)
    (site_dir / "assets" / "bench" / "index.html").write_text(PAGE)
    (site_dir / "assets" / "bench" / "shipped-worker.mjs").write_text(WORKER)
    pyodide = site_dir / "assets" / "vendor" / "pyodide"
    return {
        "snapshot_bytes": len(snapshot),
        "shipped_gzip_bytes": len(compressed),
        "pyodide_bytes": sum(p.stat().st_size for p in pyodide.iterdir()),
    }


class Bandwidth:
    """One limit shared by every connection of the server (a token bucket in time)."""

    def __init__(self):
        self.mbit = 0.0
        self.lock = threading.Lock()
        self.free_at = 0.0

    def spend(self, size: int) -> None:
        if not self.mbit:
            return
        with self.lock:
            now = time.monotonic()
            self.free_at = max(now, self.free_at) + size * 8 / (self.mbit * 1e6)
            wait = self.free_at - now
        time.sleep(wait)


class LimitedHandler(site_tools.SiteHandler):
    bandwidth: Bandwidth

    def copyfile(self, source, outputfile):
        while block := source.read(16384):
            self.bandwidth.spend(len(block))
            outputfile.write(block)


def first_visit_ms(browser, base: str, mode: str) -> tuple[float, str]:
    context = browser.new_context()
    try:
        page = site_tools.Watch(context, base).page
        page.goto(base + "assets/bench/index.html", wait_until="load")
        done = page.evaluate("([mode, code]) => go(mode, code)", [mode, CALL])
        return done["ms"], done["text"]
    finally:
        context.close()


def main() -> int:
    from playwright.sync_api import sync_playwright

    bandwidth = Bandwidth()
    handler = type("Handler", (LimitedHandler,), {"bandwidth": bandwidth})
    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        site_dir, port = Path(folder), site_tools.free_port()
        site_tools.build_site(site_dir, f"http://127.0.0.1:{port}/")
        server = site_tools.QuietServer(
            ("127.0.0.1", port), functools.partial(handler, directory=str(site_dir))
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{port}/"
        sizes = make_shipped_file(playwright, site_dir, base)
        browser = site_tools.launch(playwright)
        for mbit in BANDWIDTHS_MBIT:
            bandwidth.mbit = mbit
            times = {"normal": [], "shipped": []}
            for _ in range(REPEATS):
                for mode, taken in times.items():
                    ms, shown = first_visit_ms(browser, base, mode)
                    if shown != site_tools.cpython_answer(site_dir, CALL):
                        raise RuntimeError(f"{mode} start printed something else: {shown}")
                    taken.append(round(ms))
            rows.append(
                {
                    "bandwidth_mbit_s": mbit or "unlimited",
                    "first_answer_ms_normal": times["normal"],
                    "first_answer_ms_shipped": times["shipped"],
                    "median_saving_ms": round(
                        statistics.median(times["normal"]) - statistics.median(times["shipped"])
                    ),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
        browser.close()
        server.shutdown()
    result = {
        "machine": {"cpu_count": os.cpu_count(), "cores_used": sorted(os.sched_getaffinity(0))},
        "call": CALL,
        **sizes,
        "first_visit": rows,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
