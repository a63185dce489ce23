"""Benchmark of the lesson site (not a test): `.venv/bin/python tests/bench_site.py`.

Builds the site, serves it locally, and measures with Debian's chromium (every non-local
request blocked, a fresh browser profile for each cold measurement):
  * the explorer's first answer on a first visit: a cold page load in a new browser profile
    (kept on disk) and a click on Run (Python starts on the click); then the size of the
    snapshot of Python the worker saves in that profile;
  * the first answer on later visits: the browser closed and started again on the same
    profile, the page loaded, Run clicked (Python starts from the saved snapshot), each time;
    with the browser's HTTP cache, as a reader has it (the local server asks for every file
    to be revalidated), and, in turn, without it (every file fetched again);
  * the first answer when Python was started while the page was idle (the reader clicks
    once it is ready), and how long that idle start-up took;
  * a warm answer (median of repeated runs);
  * a warm simulation: `simulate` of one 8 s window at 2.5 × S (and no batching on the same
    arrivals), after a first one, each with its own seed so nothing is reused;
  * page weight without Pyodide: bytes the browser received for each page, Pyodide's files
    left out, after the reader scrolled to every chart and before any interaction;
  * blocking time after the first paint, per page, on a phone-sized page with Chromium's CPU
    really slowed 4× (issue 19: Lighthouse simulates that slowdown; this measures it), and the
    longest task;
  * full rebuild time: the generator alone, and `mkdocs build --strict` (generator included);
  * the two builders side by side (`--builders` measures only this, into "builders"): one docs/
    written by the generator, then MkDocs and Zensical each build it (`mkdocs build --strict`,
    `zensical build --strict --clean`; wall time and the process's CPU time), the built folder's
    size, and each page's weight without Pyodide, before any interaction and after the reader
    scrolled to every chart (each build served in turn).
Targets: warm answer < 50 ms, first answer after idle start < 1 s, first answer on a later
visit < 1 s, warm simulation ≤ 1 s, page weight < 2 MB.
`--builders` runs only the builders' comparison. Writes its keys into data/bench/site.json
(keeping the others, e.g. tests/bench_lighthouse.py's)
and prints them. The browser uses every core it is given, as a reader's does; while the lab
measures on core 1, run it as `taskset -c 0 .venv/bin/python tests/bench_site.py` so it does
not disturb them (the file records the cores used).
"""

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' support package

from tests.support import browser as site_tools  # noqa: E402 (build, serve and browser helpers)
from tests.support import sitebuild  # noqa: E402 (where the site's campaigns are)

OUT = ROOT / "data" / "bench" / "site.json"
WARM_RUNS = 15
LATER_VISITS = 5
SIMULATE_RUNS = 3
BLOCKING_LOADS = 3
SIMULATE = "simulate(results, b=64, w=0.5, rate=2.5, seed={seed})"  # issue 17: 8 s at 2.5 × S
PYODIDE_PATH = "/assets/vendor/pyodide/"
TARGETS = {
    "warm_answer_ms": 50,
    "first_answer_after_idle_start_ms": 1000,
    "later_visit_first_answer_after_click_ms": 1000,
    "warm_simulate_ms": 1000,
    "page_bytes": 2e6,
}
ENGINE = (
    "(({start, reason, note, phases, savedBytes, notSaved}) =>"
    " ({start, reason, note, phases, savedBytes, notSaved}))(window.explorerEngine)"
)


def browser_cpu_s() -> float:
    """CPU seconds used so far by the running chromium processes this script started: unlike
    wall-clock times, it barely moves when other work shares the machine's cores."""
    children, usage = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().rsplit(")", 1)
        except OSError:  # the process ended meanwhile
            continue
        fields, pid = rest.split(), int(stat.parent.name)
        children.setdefault(int(fields[1]), []).append(pid)
        is_chromium = name.split("(", 1)[1].startswith("chromium")
        usage[pid] = int(fields[11]) + int(fields[12]) if is_chromium else 0  # utime + stime
    total, waiting = 0, [os.getpid()]
    while waiting:
        pid = waiting.pop()
        total += usage.get(pid, 0)
        waiting.extend(children.get(pid, []))
    return total / os.sysconf("SC_CLK_TCK")


def timed_answer(page) -> tuple[float, float]:
    """answer_ms, and the browser's CPU seconds from the click to the answer."""
    before = browser_cpu_s()
    ms = answer_ms(page)
    return ms, browser_cpu_s() - before


def answer_ms(page) -> float:
    """Click Run and return the time from the click to the printed answer (the page's own)."""
    site_tools.run_explorer(page)
    return float(page.get_attribute('[data-role="output"]', "data-elapsed-ms"))


class RevalidatedSite(site_tools.SiteHandler):
    """The site as a static host serves it, its files kept in the browser's HTTP cache but
    checked with the server on every use (`no-cache`: the strictest header a host sends;
    GitHub Pages sends `max-age=600`, which spares even the check)."""

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def explorer_page(browser, base: str, idle_start: bool):
    context = browser.new_context()
    if not idle_start:
        context.add_init_script("window.explorerNoIdleStart = true")
    watch = site_tools.Watch(context, base)
    watch.page.goto(base + "explorer/", wait_until="load")
    return context, watch.page


def profile_page(playwright, folder: str, base: str, http_cache: bool):
    """The browser started on the profile in `folder`, the explorer loaded (no idle start).
    The network is blocked by Chromium's host resolver (tests/support/browser.py), so with
    http_cache a later visit finds Pyodide's files in the cache, as a reader's browser does;
    without it, Playwright's request routing turns the cache off."""
    context = site_tools.launch_profile(playwright, folder)
    context.add_init_script("window.explorerNoIdleStart = true")
    page = site_tools.Watch(context, base, http_cache=http_cache).page
    page.goto(base + "explorer/", wait_until="load")
    return context, page


class LaterVisit(NamedTuple):
    ms: float  # the first answer after the click
    browser_cpu_s: float  # the browser's CPU time meanwhile
    phases: dict  # the worker's start-up phases (ms since it began)


def later_visit(playwright, folder: str, base: str, http_cache: bool) -> LaterVisit:
    """A later visit on the kept profile: its first answer, CPU time and worker phases."""
    context, page = profile_page(playwright, folder, base, http_cache)
    ms, cpu = timed_answer(page)
    state = page.evaluate(ENGINE)
    context.close()
    if state["start"] != "saved":
        raise RuntimeError(f"a later visit did not start from the snapshot: {state}")
    return LaterVisit(ms, cpu, state["phases"])


def visits(playwright, base: str) -> dict:
    """A first visit on a new profile, then later visits on it (browser closed in between),
    with the HTTP cache and without it in turn (the order swapped every other round)."""
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder:
        context, page = profile_page(playwright, folder, base, http_cache=True)
        first, first_cpu = timed_answer(page)
        page.wait_for_function(
            "window.explorerEngine.savedBytes !== null || window.explorerEngine.notSaved",
            timeout=site_tools.patience.ms,
        )
        saved = page.evaluate(ENGINE)
        if saved["notSaved"]:
            raise RuntimeError(f"the snapshot was not saved: {saved['notSaved']}")
        usage = page.evaluate("navigator.storage.estimate().then(e => e.usage)")
        context.close()
        later = {True: [], False: []}
        for round_ in range(LATER_VISITS):
            for http_cache in (True, False) if round_ % 2 == 0 else (False, True):
                later[http_cache].append(later_visit(playwright, folder, base, http_cache))
    cached, uncached = (sorted(later[c], key=lambda visit: visit.ms) for c in (True, False))
    cached_ms, uncached_ms = ([visit.ms for visit in group] for group in (cached, uncached))
    return {
        "cold_first_answer_after_click_ms": round(first, 1),
        "cold_first_answer_browser_cpu_s": round(first_cpu, 2),
        "later_visit_first_answer_after_click_ms": round(statistics.median(cached_ms), 1),
        "later_visit_first_answer_after_click_ms_all": [round(ms, 1) for ms in cached_ms],
        "later_visit_first_answer_browser_cpu_s": round(
            statistics.median(visit.browser_cpu_s for visit in cached), 2
        ),
        "later_visit_worker_phases_ms": cached[len(cached) // 2].phases,
        "later_visit_without_http_cache_ms": round(statistics.median(uncached_ms), 1),
        "later_visit_without_http_cache_ms_all": [round(ms, 1) for ms in uncached_ms],
        "later_visit_without_http_cache_phases_ms": uncached[len(uncached) // 2].phases,
        "snapshot_stored_bytes": saved["savedBytes"],
        "site_storage_usage_bytes": usage,
    }


def idle_start_answers(browser, base: str) -> dict:
    """Python started at idle; the reader clicks when it is ready; then warm answers."""
    context, page = explorer_page(browser, base, idle_start=True)
    try:
        page.wait_for_function(
            "window.explorerEngine.state === 'ready'", timeout=site_tools.patience.ms
        )
        ready_ms = page.evaluate("window.explorerEngine.readyMs")
        first = answer_ms(page)
        warm = [answer_ms(page) for _ in range(WARM_RUNS)]
        simulated = warm_simulations(page)
        return {
            **simulated,
            "idle_start_to_ready_ms": round(ready_ms, 1),
            "first_answer_after_idle_start_ms": round(first, 2),
            "warm_answer_ms": round(statistics.median(warm), 2),
            "warm_answer_ms_max": round(max(warm), 2),
        }
    finally:
        context.close()


def warm_simulations(page) -> dict:
    """One simulation first (the simulator's code warms up), then SIMULATE_RUNS timed ones."""
    site_tools.run_explorer(page, SIMULATE.format(seed=0))
    clicks, runs = [], []
    for seed in range(1, SIMULATE_RUNS + 1):
        shown = site_tools.run_explorer(page, SIMULATE.format(seed=seed))
        if "SIMULATED, NOT MEASURED" not in shown:
            raise RuntimeError(f"simulate did not answer: {shown}")
        output = '[data-role="output"]'
        clicks.append(float(page.get_attribute(output, "data-elapsed-ms")))
        runs.append(float(page.get_attribute(output, "data-run-ms")))
    return {
        "warm_simulate_call": SIMULATE.format(seed="1…3"),
        "warm_simulate_ms": round(statistics.median(clicks), 1),
        "warm_simulate_ms_all": [round(ms, 1) for ms in clicks],
        "warm_simulate_python_ms": round(statistics.median(runs), 1),
    }


def page_weights(browser, base: str, read_charts: bool = True) -> dict:
    """Bytes received per page (HTML, CSS, JS, fonts, chart specs, data), Pyodide excluded:
    after the reader scrolled to every chart (plotly.js and the specs loaded), or, with
    read_charts=False, before any interaction (the page as it first arrives)."""
    weights = {}
    for url in site_tools.page_urls(base):
        context = browser.new_context()
        context.add_init_script("window.explorerNoIdleStart = true")
        watch = site_tools.Watch(context, base)
        received = []
        watch.page.on("response", lambda response, got=received: got.append(response))
        watch.page.goto(url, wait_until="load")
        if read_charts:
            site_tools.wait_for_charts(watch.page)
        watch.page.wait_for_load_state("networkidle")
        watch.page.wait_for_timeout(500)
        total = sum(len(r.body()) for r in received if PYODIDE_PATH not in r.url and r.ok)
        weights[url[len(base) :] or "/"] = total
        context.close()
    return weights


# Long tasks as the page reports them, and when it first painted text or a picture.
LONG_TASKS = """window.benchLongTasks = [];
new PerformanceObserver((list) => {
  for (const task of list.getEntries()) window.benchLongTasks.push([task.startTime, task.duration]);
}).observe({type: "longtask", buffered: true});"""
BLOCKING = """() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const after = window.benchLongTasks.filter(([start]) => paint && start >= paint.startTime);
  return {paint_ms: paint ? paint.startTime : null,
          blocking_ms: after.reduce((sum, [, ms]) => sum + Math.max(0, ms - 50), 0),
          longest_task_ms: Math.max(0, ...window.benchLongTasks.map(([, ms]) => ms))};
}"""


def blocking_after_paint(browser, base: str) -> dict:
    """Per page, on a phone-sized page with Chromium's CPU slowed 4× (as Lighthouse's mobile
    profile assumes, but really slowed, not simulated): the time the main thread was blocked
    after the first contentful paint (the sum over long tasks of their time past 50 ms) and
    the longest task; medians of BLOCKING_LOADS loads, the pages in turn."""
    loads = {}
    for _ in range(BLOCKING_LOADS):
        for url in site_tools.page_urls(base):
            context = site_tools.new_context(browser, "phone")
            context.add_init_script(LONG_TASKS)
            watch = site_tools.Watch(context, base)
            cdp = context.new_cdp_session(watch.page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            watch.page.goto(url, wait_until="load")
            watch.page.wait_for_timeout(2000)  # Material's start-up and the charts' stand-ins
            loads.setdefault(url[len(base) :] or "/", []).append(watch.page.evaluate(BLOCKING))
            context.close()
    return {
        page: {
            key: round(statistics.median(load[key] for load in found))
            for key in ("paint_ms", "blocking_ms", "longest_task_ms")
        }
        for page, found in loads.items()
    }


def rebuild_times() -> dict:
    from generator.build import build_site

    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        build_site(raw_dir=sitebuild.raw_dir(), out_dir=Path(out))
        generator_s = time.perf_counter() - began
    with tempfile.TemporaryDirectory() as site:
        began = time.perf_counter()
        site_tools.build_site(Path(site), "http://127.0.0.1:8000/")
        mkdocs_s = time.perf_counter() - began
    return {
        "generator_s": round(generator_s, 2),
        "mkdocs_build_with_generator_s": round(mkdocs_s, 2),
    }


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def builders_side_by_side(runs: int = 3) -> dict:
    """One docs/ from the generator, then each builder's build of it, `runs` times in turn
    (median wall and CPU seconds), the built folder's size, and each page's weight in each
    build (served in turn)."""
    from playwright.sync_api import sync_playwright

    found = {builder: {"build_s": [], "build_cpu_s": []} for builder in sitebuild.BUILDERS}
    with tempfile.TemporaryDirectory(prefix="bench-builders-") as work:
        docs = Path(work) / "docs"
        done = sitebuild.generate(docs)
        if done.returncode != 0:
            raise RuntimeError(f"the generator failed:\n{done.stderr}")
        sites = {builder: Path(work) / sitebuild.SITE_FOLDERS[builder] for builder in found}
        for _ in range(runs):
            for builder, site in sites.items():
                cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
                began = time.perf_counter()
                built = sitebuild.builder_run(builder, docs, site)
                took = time.perf_counter() - began
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if built.returncode != 0:
                    raise RuntimeError(f"{builder} failed:\n{built.stderr}")
                found[builder]["build_s"].append(round(took, 2))
                spent = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
                found[builder]["build_cpu_s"].append(round(spent, 2))
        with sync_playwright() as playwright:
            browser = site_tools.launch(playwright)
            for builder, site in sites.items():
                with site_tools.serve(site, site_tools.free_port()) as base:
                    found[builder]["page_bytes_before_interaction"] = page_weights(
                        browser, base, read_charts=False
                    )
                    found[builder]["page_bytes_without_pyodide"] = page_weights(browser, base)
                found[builder]["site_bytes"] = folder_bytes(site)
            browser.close()
    for result in found.values():
        for key in ("build_s", "build_cpu_s"):
            result[key.replace("_s", "_s_median")] = statistics.median(result[key])
    return {
        "machine": {"cpu_count": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)},
        "runs": runs,
        "versions": builder_versions(),
        **found,
    }


def builder_versions() -> dict:
    from importlib.metadata import version

    return {name: version(name) for name in ("mkdocs", "mkdocs-material", "zensical")}


def write(result: dict) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    kept = json.loads(OUT.read_text()) if OUT.exists() else {}  # other benchmarks' keys stay
    OUT.write_text(json.dumps({**kept, **result}, indent=2) + "\n")
    print(json.dumps(result, indent=2))


def main(argv=None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builders", action="store_true", help="only the builders side by side")
    args = parser.parse_args(argv)
    if args.builders:
        write({"builders": builders_side_by_side()})
        return 0
    rebuild = rebuild_times()
    with tempfile.TemporaryDirectory() as folder:
        site_dir, port = Path(folder), site_tools.free_port()
        site_tools.build_site(site_dir, f"http://127.0.0.1:{port}/")
        results = json.loads((site_dir / "assets" / "data" / "results.json").read_text())
        serving = site_tools.serve(site_dir, port, RevalidatedSite)
        with serving as base, sync_playwright() as playwright:
            visited = visits(playwright, base)
            browser = site_tools.launch(playwright)
            idle = idle_start_answers(browser, base)
            weights = page_weights(browser, base)
            first_weights = page_weights(browser, base, read_charts=False)
            blocking = blocking_after_paint(browser, base)
            browser.close()
    result = {
        "machine": {
            "cpu_count": os.cpu_count(),
            "cores_used": sorted(os.sched_getaffinity(0)),  # `taskset -c 0` keeps it off core 1
            "platform": platform.platform(),
        },
        "campaign": results["campaign"]["name"],
        **visited,
        **idle,
        "page_bytes_without_pyodide": weights,
        "page_bytes_max": max(weights.values()),
        "page_bytes_before_interaction": first_weights,
        "page_bytes_before_interaction_max": max(first_weights.values()),
        "blocking_after_paint_cpu_4x": blocking,
        "rebuild": rebuild,
        "targets": TARGETS,
        "met": {
            "warm_answer_ms": idle["warm_answer_ms"] < TARGETS["warm_answer_ms"],
            "first_answer_after_idle_start_ms": idle["first_answer_after_idle_start_ms"]
            < TARGETS["first_answer_after_idle_start_ms"],
            "later_visit_first_answer_after_click_ms": visited[
                "later_visit_first_answer_after_click_ms"
            ]
            < TARGETS["later_visit_first_answer_after_click_ms"],
            "warm_simulate_ms": idle["warm_simulate_ms"] <= TARGETS["warm_simulate_ms"],
            "page_bytes": max(weights.values()) < TARGETS["page_bytes"],
        },
    }
    write(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
