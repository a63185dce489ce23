"""Rebuild the committed fixture's expected output, tests/fixtures/golden/, after a deliberate
change of the generator's output; review the diff before committing it.

    .venv/bin/python -m tests.support.golden

The fixture campaign (tests/fixtures/raw/, cut from a real one by tests/fixtures/make_fixture.py)
built with the fixture's pages (tests/fixtures/pages/) only: no static files, no reference
box. tests/test_generator.py builds it with `build_fixture` and compares byte for byte.
"""

import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures"
RAW, PAGES, GOLDEN = FIXTURE / "raw", FIXTURE / "pages", FIXTURE / "golden"


def build_fixture(out: Path, raw: Path = RAW, pages: Path = PAGES) -> dict:
    """The fixture campaign (or a changed copy in `raw`) built into `out` with the fixture's
    pages; the build's summary."""
    from generator.build import Sources, build_site

    return build_site(raw, None, out, Sources(pages))


def main() -> int:
    summary = build_fixture(GOLDEN)
    print(
        f"golden: {len(summary['written'])} files written, {summary['unchanged']} unchanged "
        f"in {GOLDEN} (campaign {summary['campaign']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
