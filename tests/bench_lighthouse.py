"""Lighthouse benchmark of the site (not a test): `.venv/bin/python tests/bench_lighthouse.py`.

Builds the site (or takes a built one with --site), serves it locally with the browser tests'
static server, and runs Lighthouse on every page of the nav in its default mobile profile
(simulated slow 4G and a 4× slower CPU), performance only, with Debian's chromium, --runs
times per page (pages in turn, so a busy moment does not hit one page's runs only).
Lighthouse is pinned in tests/lighthouse/package.json and package-lock.json; install it
with `npm ci --prefix tests/lighthouse` (Lighthouse 12 runs on Node 20; 13 needs Node 22).

Records per page the median performance score, first contentful paint, largest contentful
paint and total blocking time (ms), the part of that blocking time Material's own start-up
makes (material_tbt_ms: nearly all of it when the page paints before Material's script runs,
on text pages too), every run's values, and the machine's 1-minute load
average around the runs (the machine may be shared), into data/bench/site.json under
"lighthouse" (the rest of the file is kept). With --before OLD_SITE (a site built from an
earlier commit), that site is measured too, page by page in turn with this one, so both see
the same moments of a busy machine, and recorded under "lighthouse_before"; without it, an
earlier run's "lighthouse_before" is dropped (it was measured beside other numbers). With
--zensical, the site is built once by the generator and then by both builders (MkDocs and
Zensical, from the same mkdocs.yml), and both are measured page by page in turn on Words, Part B
and the batch route (unless --pages says otherwise), into "lighthouse_builders" {builder:
result} (the rest of the file, "lighthouse" too, is kept). Targets
(issue 19): every chart page within 5 points of the Words page's score, LCP ≤ 4 s and
TBT ≤ 200 ms.

    .venv/bin/python tests/bench_lighthouse.py --runs 3
    .venv/bin/python tests/bench_lighthouse.py --runs 3 --before OLD_SITE --before-commit SHA
    .venv/bin/python tests/bench_lighthouse.py --runs 1 --pages / /part-b/ --note "busy machine"
    .venv/bin/python tests/bench_lighthouse.py --runs 3 --zensical
"""

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' support package

from tests.support import browser as site_tools  # noqa: E402 (build, serve and page helpers)
from tests.support import sitebuild  # noqa: E402 (the generator and the two builders)

OUT = ROOT / "data" / "bench" / "site.json"
LIGHTHOUSE_DIR = ROOT / "tests" / "lighthouse"
LIGHTHOUSE = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run"
)
TEXT_PAGE = "/words/"
BUILDER_PAGES = [TEXT_PAGE, "/part-b/", "/batch-route/"]  # --zensical's pages
TARGETS = {"score_below_words_at_most": 5, "lcp_ms": 4000, "tbt_ms": 200}
METRICS = {
    "fcp_ms": "first-contentful-paint",
    "lcp_ms": "largest-contentful-paint",
    "tbt_ms": "total-blocking-time",
}
MATERIAL_BUNDLE = "/assets/javascripts/bundle."  # Material's own script (its start-up)
BLOCKING_MS = 50  # a task's first 50 ms do not block, in Lighthouse's total blocking time


def lighthouse_version() -> str:
    lock = json.loads((LIGHTHOUSE_DIR / "package-lock.json").read_text())
    return lock["packages"]["node_modules/lighthouse"]["version"]


def run_once(url: str, report: Path) -> dict:
    """One Lighthouse run of one page: score (0-100) and the metrics in ms."""
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--only-categories=performance",
        "--output=json",
        f"--output-path={report}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    env = dict(os.environ, CHROME_PATH=str(site_tools.CHROMIUM))
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url}:\n{done.stderr[-2000:]}")
    found = json.loads(report.read_text())
    audits = found["audits"]
    result = {"score": round(found["categories"]["performance"]["score"] * 100)}
    for key, audit in METRICS.items():
        result[key] = round(audits[audit]["numericValue"])
    result["material_tbt_ms"] = material_blocking_ms(audits)
    return result


def material_blocking_ms(audits: dict) -> int:
    """The part of the total blocking time that Material's own start-up makes: its long tasks
    (Lighthouse's long-tasks audit, simulated timeline) from the first contentful paint on,
    less 50 ms each. Nearly all of a page's blocking time when the browser paints before the
    parser reaches Material's script (within 39 ms in 80 runs, issue 19), none when after."""
    first_paint = audits["first-contentful-paint"]["numericValue"]
    blocking = 0.0
    for task in audits["long-tasks"]["details"]["items"]:
        end = task["startTime"] + task["duration"]
        if MATERIAL_BUNDLE in task["url"] and end > first_paint:
            blocking += max(0.0, end - max(task["startTime"], first_paint) - BLOCKING_MS)
    return round(blocking)


def medians(runs: list) -> dict:
    return {key: round(statistics.median(r[key] for r in runs)) for key in runs[0]}


def judged(pages: dict, chart_pages: list) -> dict:
    words = pages[TEXT_PAGE]["score"]
    return {
        page: {
            "score_within_5_of_words": pages[page]["score"]
            >= words - TARGETS["score_below_words_at_most"],
            "lcp_ms": pages[page]["lcp_ms"] <= TARGETS["lcp_ms"],
            "tbt_ms": pages[page]["tbt_ms"] <= TARGETS["tbt_ms"],
        }
        for page in chart_pages
    }


def chart_pages(site_dir: Path, paths: list) -> list:
    """The pages that hold a chart (a chart box in their HTML)."""
    found = []
    for path in paths:
        html = (site_dir / path.strip("/") / "index.html").read_text()
        if 'class="chart"' in html:
            found.append(path)
    return found


def measure(sites: dict, runs: int, only: list | None = None, note: str = "") -> dict:
    """{label: result} for {label: site folder}, each page of each site in turn, `runs` times
    (every page of the nav, or the paths in `only`)."""
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as work:
        bases = {
            label: stack.enter_context(site_tools.serve(folder, site_tools.free_port()))
            for label, folder in sites.items()
        }
        paths = [
            "/" + url[len(base) :]
            for base in list(bases.values())[:1]
            for url in site_tools.page_urls(base)
        ]
        if only:
            unknown = sorted(set(only) - set(paths))
            if unknown:
                raise SystemExit(f"--pages: {unknown} not in the nav; pages are {paths}")
            paths = [path for path in paths if path in only]
        found = {label: {path: [] for path in paths} for label in sites}
        loads = []
        began = time.time()
        for _ in range(runs):
            for path in paths:
                for label, base in bases.items():
                    result = run_once(base + path[1:], Path(work) / "report.json")
                    found[label][path].append(result)
                    loads.append(os.getloadavg()[0])
                    print(label, path, result, f"load {loads[-1]:.1f}", flush=True)
    minutes = round((time.time() - began) / 60, 1)
    return {
        label: {**summary(sites[label], found[label], runs, loads, minutes), "note": note}
        for label in sites
    }


def summary(site_dir: Path, by_page: dict, runs: int, loads: list, minutes: float) -> dict:
    pages = {path: {**medians(found), "runs": found} for path, found in by_page.items()}
    with_charts = chart_pages(site_dir, list(by_page))
    return {
        "tool": f"lighthouse {lighthouse_version()}, default mobile profile, performance only",
        "chromium": str(site_tools.CHROMIUM),
        "runs_per_page": runs,
        "minutes": minutes,
        "load_1min": {
            "min": round(min(loads), 2),
            "median": round(statistics.median(loads), 2),
            "max": round(max(loads), 2),
        },
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform()},
        "pages": pages,
        "chart_pages": with_charts,
        "targets": TARGETS,
        "met": judged(pages, with_charts),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page")
    parser.add_argument("--site", type=Path, help="a built site to measure (default: build)")
    parser.add_argument("--before", type=Path, help="an earlier build, measured in turn")
    parser.add_argument("--before-commit", default="", help="the commit --before was built from")
    parser.add_argument(
        "--pages", nargs="+", help=f"only these paths (e.g. / {TEXT_PAGE} /part-b/); default all"
    )
    parser.add_argument("--note", default="", help="a sentence kept with the numbers")
    parser.add_argument(
        "--zensical", action="store_true", help="MkDocs' and Zensical's builds side by side"
    )
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        print("Lighthouse is missing: run `npm ci --prefix tests/lighthouse`", file=sys.stderr)
        return 1
    if args.zensical:
        return builders(args)
    with tempfile.TemporaryDirectory() as folder:
        site = args.site
        if site is None:  # built for its own address; the server's port does not matter here
            site = Path(folder)
            site_tools.build_site(site, f"http://127.0.0.1:{site_tools.free_port()}/")
        sites = {"lighthouse": site, **({"lighthouse_before": args.before} if args.before else {})}
        if args.pages and TEXT_PAGE not in args.pages:
            args.pages.append(TEXT_PAGE)  # the targets are judged against the Words page
        results = measure(sites, args.runs, args.pages, args.note)
    if args.before:
        results["lighthouse_before"]["built_from_commit"] = args.before_commit
    bench = json.loads(OUT.read_text()) if OUT.exists() else {}
    if not args.before:
        bench.pop("lighthouse_before", None)  # measured in turn with the numbers replaced now
    bench.update(results)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(bench, indent=2) + "\n")
    for label, result in results.items():
        pages = {p: {k: v for k, v in r.items() if k != "runs"} for p, r in result["pages"].items()}
        print(label, json.dumps({"pages": pages, "met": result["met"]}, indent=2))
    return 0


def builders(args) -> int:
    """MkDocs' and Zensical's builds of one docs/, measured page by page in turn."""
    with tempfile.TemporaryDirectory(prefix="lighthouse-builders-") as work:
        docs = Path(work) / "docs"
        done = sitebuild.generate(docs)
        if done.returncode != 0:
            raise SystemExit(f"the generator failed:\n{done.stderr}")
        sites = {}
        for builder in sitebuild.BUILDERS:
            sites[builder] = Path(work) / sitebuild.SITE_FOLDERS[builder]
            built = sitebuild.builder_run(builder, docs, sites[builder])
            if built.returncode != 0:
                raise SystemExit(f"{builder} failed:\n{built.stderr}")
        results = measure(sites, args.runs, args.pages or list(BUILDER_PAGES), args.note)
    bench = json.loads(OUT.read_text()) if OUT.exists() else {}
    bench["lighthouse_builders"] = results
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(bench, indent=2) + "\n")
    for label, result in results.items():
        pages = {p: {k: v for k, v in r.items() if k != "runs"} for p, r in result["pages"].items()}
        print(label, json.dumps(pages, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
