"""Serve the site while editing it, with live reload: `make serve` (http://127.0.0.1:8000/).

    .venv/bin/python site_src/serve.py [--dev-addr 127.0.0.1:8000]

The generator writes docs/ (as `make build` does), then `mkdocs serve` serves it, rebuilding and
reloading the open pages whenever docs/ changes; this process watches site_src/ and data/ and
runs the generator again when anything there changes (it writes only the files whose content
changed, so MkDocs rebuilds only when the site did). A build that fails (a bad template, bad
raw data) prints its one line and the last good site stays served. LESSON_CAMPAIGN and
LESSON_RAW choose the campaign as for `make build`. The theme's overrides (site_src/theme/) are
watched by MkDocs itself. Ctrl-C (or SIGTERM) stops both. Tested by tests/test_serve.py.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SITE_SRC = Path(__file__).resolve().parent  # a copy's own, in a test
ROOT = SITE_SRC.parent
RAW = Path(os.environ.get("LESSON_RAW") or ROOT / "data" / "raw")
POLL_S = 0.5


def snapshot(folders) -> dict:
    """{file: (modified, size)} of every file under the folders (bytecode left out)."""
    found = {}
    for folder in folders:
        for path in Path(folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                found[path] = (stat.st_mtime_ns, stat.st_size)
    return found


def generate() -> bool:
    """One run of the generator into docs/; False (and its one line printed) when it fails."""
    from generator.build import MissingRuntimes, build_site, site_sources
    from generator.pages.render import PageError
    from generator.reading.load import DataError

    began = time.perf_counter()
    try:
        summary = build_site(
            raw_dir=RAW,
            campaign=os.environ.get("LESSON_CAMPAIGN") or None,
            out_dir=ROOT / "docs",
            sources=site_sources(SITE_SRC),
        )
    except (DataError, PageError, MissingRuntimes) as error:
        print(f"serve: generator: {error} (the last good site stays served)", flush=True)
        return False
    print(
        f"serve: generator: campaign {summary['campaign']}, {len(summary['written'])} files "
        f"written in {time.perf_counter() - began:.1f} s",
        flush=True,
    )
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev-addr", default="127.0.0.1:8000", help="address:port to serve at")
    args = parser.parse_args(argv)
    if str(ROOT) not in sys.path:  # the generator package, at the repository's root
        sys.path.insert(0, str(ROOT))
    watched = [folder for folder in (SITE_SRC, ROOT / "data") if folder.is_dir()]
    seen = snapshot(watched)
    if not generate():
        return 2
    command = [sys.executable, "-m", "mkdocs", "serve", "--strict", "-a", args.dev_addr,
               "-f", str(ROOT / "mkdocs.yml")]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    print(f"serve: mkdocs serve is process {server.pid}", flush=True)
    # Stopped by a signal (not only Ctrl-C): stop MkDocs too, never leave it serving alone.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while server.poll() is None:
            time.sleep(POLL_S)
            now = snapshot(watched)
            if now != seen:
                seen = now
                generate()
    except KeyboardInterrupt:
        pass
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
