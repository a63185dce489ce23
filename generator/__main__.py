"""Command line: `python -m generator build|report|figures [--campaign NAME] [--raw DIR]`.

build   write docs/assets/data/results.json, docs/assets/charts/*.json, the pages and the
        site's JS, CSS and explorer (the tests' fixture has its own rebuild:
        `python -m tests.support.golden`)
report  recompute every published figure from the raw files and compare (exit 1 on the
        first disagreement)
figures list the named figures of the campaign with their values
Bad raw data or a bad template exit 2 with one line naming the file and what is wrong.
"""

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from generator.build import ROOT, SITE

# The explorer loads results.json whole on every visit: a full campaign must fit. Raised from
# 300,000 on 2026-12-01: full-20261130 with its speed probe's counts and the comparison's
# facts is 302 KB (its tables of attempts and cells are in files of their own).
RESULTS_BUDGET = 320_000


def parse(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m generator",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=("build", "report", "figures"))
    parser.add_argument(
        "--campaign",
        default=None,
        help="folder under --raw (default: newest complete full campaign, else newest)",
    )
    parser.add_argument("--raw", type=Path, default=ROOT / "data" / "raw")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--pages", type=Path, default=ROOT / "site_src" / "pages")
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

    sources = dataclasses.replace(SITE, pages=args.pages)
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
    from generator.pages.render import PageError
    from generator.reading.load import DataError

    args = parse(argv)
    try:
        return {"build": build, "report": report, "figures": figures}[args.command](args)
    except (DataError, PageError) as error:
        print(f"generator: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
