"""Command line: `python -m generator build|report|figures [--campaign NAME] [--raw DIR]`.

build   write the whole docs/ the site's builder reads: results.json, chart specs, pictures,
        the pages, the site's JS, CSS and explorer and the checked runtimes (`make build` runs
        it, then MkDocs; the tests' fixture has its own rebuild: `python -m tests.support.golden`)
report  recompute every published figure from the raw files and compare (exit 1 on the
        first disagreement)
figures list the named figures of the campaign with their values
Bad raw data, a bad template or missing runtimes exit 2 with one line naming what is wrong.
The campaign and the raw folder default to LESSON_CAMPAIGN and LESSON_RAW when they are set.
"""

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

from generator.build import ROOT, SITE, site_sources

# The explorer loads results.json whole on every visit: a full campaign must fit. Raised from
# 300,000 on 2026-12-01: full-20261130 with its speed probe's counts and the comparison's
# facts is 302 KB (its tables of attempts and cells are in files of their own). Raised from
# 320,000 on 2026-12-02: the core-time bench had brought it to 328 KB; issue 33 adds each
# Part B cell's service CPU per answer (4.2 KB: the simulator's wake cost is fitted on it)
# and the simulator's check of every other full campaign (1.8 KB); the second switchback
# benchmark publishes six comparisons with each run's d (the A/A control in independent
# slices beside the twin one). Raised from 340,000 on 2026-12-02: full-20261202 (the third full
# campaign) has 8 paired rounds where the first two had 5, so every cell's per-round arrays and
# every paired comparison's differences are 8 long, and it adds its switchback runs' section
# (10 KB): 414,823 bytes, 84,545 gzipped on the wire. Raised from 420,000 on 2026-12-02: the
# third switchback benchmark records each arm's ready stage, a fourth statistic of every
# comparison with its per-run d (about 6 KB): 420,749 bytes. tests/test_site_build.py holds the
# built site to it.
RESULTS_BUDGET = 428_000


def parse(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m generator",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=("build", "report", "figures"))
    parser.add_argument(
        "--campaign",
        default=os.environ.get("LESSON_CAMPAIGN") or None,
        help="folder under --raw (default: LESSON_CAMPAIGN, else the newest complete full "
        "campaign, else the newest)",
    )
    parser.add_argument(
        "--raw", type=Path, default=Path(os.environ.get("LESSON_RAW") or ROOT / "data" / "raw")
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument(
        "--site-src",
        type=Path,
        default=None,
        help="build: the site's sources (default site_src/; a copy's own vendor/ is checked)",
    )
    parser.add_argument("--pages", type=Path, default=None, help="build: other page templates")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="report: results.json to check (default <out>/assets/data/…)",
    )
    parser.add_argument(
        "--bench",
        type=Path,
        default=None,
        help="report: the benchmarks' folder (default: the one results.json names)",
    )
    return parser.parse_args(argv)


def build(args) -> int:
    from generator.build import build_site

    sources = site_sources(args.site_src) if args.site_src else SITE
    if args.pages:
        sources = dataclasses.replace(sources, pages=args.pages)
    started = time.perf_counter()
    summary = build_site(args.raw, args.campaign, args.out, sources)
    took = time.perf_counter() - started
    print(
        f"built campaign {summary['campaign']} ({summary['chosen']}) in {took:.1f} s: "
        f"results.json {summary['results_bytes']:,} bytes, {len(summary['charts'])} charts, "
        f"{summary['missing']} missing runs; {len(summary['written'])} files written, "
        f"{summary['unchanged']} unchanged; the simulator's check {summary['simulation']}"
    )
    if summary["compared_with"]:
        print(f"compared cell by cell with {', '.join(summary['compared_with'])}")
    if summary["results_bytes"] > RESULTS_BUDGET:
        print(f"warning: results.json is over its {RESULTS_BUDGET:,}-byte budget (issue 5)")
    return 0


def figures(args) -> int:
    from generator.arithmetic import results
    from generator.reading import load

    chosen = load.choose_campaign(args.raw, args.campaign)
    built = results.build_results(chosen)
    for name, entry in built["figures"].items():
        print(f"{name:45} {entry['value']!s:>12} {entry['unit']:10} {entry['what']}")
    return 0


def report(args) -> int:
    from generator.report import checks as checker

    path = args.results or args.out / "assets" / "data" / "results.json"
    return checker.main(args.raw, args.campaign, path, args.bench)


def main(argv=None) -> int:
    from generator.build import MissingRuntimes
    from generator.pages.render import PageError
    from generator.reading.load import DataError

    args = parse(argv)
    try:
        return {"build": build, "report": report, "figures": figures}[args.command](args)
    except (DataError, PageError, MissingRuntimes) as error:
        print(f"generator: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
