"""Lighthouse benchmark of the site (not a test): `.venv/bin/python tests/bench_lighthouse.py`.

Builds the site (or takes a built one with --site), serves it locally with the browser tests'
static server, and runs Lighthouse on every page of the nav in its default mobile profile
(simulated slow 4G and a 4× slower CPU), performance only, with Debian's chromium, --runs
times per page (pages in turn, so a busy moment does not hit one page's runs only).
Lighthouse is pinned in tests/lighthouse/package.json and package-lock.json; install it
with `npm ci --prefix tests/lighthouse` (Lighthouse 12 runs on Node 20; 13 needs Node 22).

Records per page the median performance score, first contentful paint, largest contentful
paint and total blocking time (ms), every run's values, and the machine's 1-minute load
average around the runs (the machine may be shared), into data/bench/site.json under
"lighthouse" (or --key; the rest of the file is kept). Targets (issue 19): every chart page
within 5 points of the Words page's score, LCP ≤ 4 s and TBT ≤ 200 ms.

    .venv/bin/python tests/bench_lighthouse.py --runs 3
    .venv/bin/python tests/bench_lighthouse.py --site OLD_SITE --key lighthouse_before
"""

import argparse
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
sys.path.insert(0, str(ROOT / "tests"))

import test_browser as site_tools  # noqa: E402 (build, serve and page helpers)

OUT = ROOT / "data" / "bench" / "site.json"
LIGHTHOUSE_DIR = ROOT / "tests" / "lighthouse"
LIGHTHOUSE = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run"
)
TEXT_PAGE = "/words/"
TARGETS = {"score_below_words_at_most": 5, "lcp_ms": 4000, "tbt_ms": 200}
METRICS = {
    "fcp_ms": "first-contentful-paint",
    "lcp_ms": "largest-contentful-paint",
    "tbt_ms": "total-blocking-time",
}


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
    return result


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


def measure(site_dir: Path, port: int, runs: int) -> dict:
    with site_tools.serve(site_dir, port) as base, tempfile.TemporaryDirectory() as work:
        urls = site_tools.page_urls(base)
        paths = ["/" + url[len(base) :] for url in urls]
        by_page = {path: [] for path in paths}
        load_before = os.getloadavg()[0]
        began = time.time()
        for _ in range(runs):
            for url, path in zip(urls, paths, strict=True):
                by_page[path].append(run_once(url, Path(work) / "report.json"))
                print(path, by_page[path][-1], f"load {os.getloadavg()[0]:.1f}", flush=True)
        load_after = os.getloadavg()[0]
    pages = {path: {**medians(found), "runs": found} for path, found in by_page.items()}
    with_charts = chart_pages(site_dir, paths)
    return {
        "tool": f"lighthouse {lighthouse_version()}, default mobile profile, performance only",
        "chromium": str(site_tools.CHROMIUM),
        "runs_per_page": runs,
        "minutes": round((time.time() - began) / 60, 1),
        "load_1min": {"before": round(load_before, 2), "after": round(load_after, 2)},
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
    parser.add_argument("--key", default="lighthouse", help="the key in data/bench/site.json")
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        print("Lighthouse is missing: run `npm ci --prefix tests/lighthouse`", file=sys.stderr)
        return 1
    port = site_tools.free_port()
    if args.site:
        result = measure(args.site, port, args.runs)
    else:
        with tempfile.TemporaryDirectory() as folder:
            site_tools.build_site(Path(folder), f"http://127.0.0.1:{port}/")
            result = measure(Path(folder), port, args.runs)
    bench = json.loads(OUT.read_text()) if OUT.exists() else {}
    bench[args.key] = result
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(bench, indent=2) + "\n")
    summary = {p: {k: v for k, v in r.items() if k != "runs"} for p, r in result["pages"].items()}
    print(json.dumps({"pages": summary, "met": result["met"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
