"""Fetch, check and install the browser runtimes the site serves from its own origin, and
the accessibility checker its browser tests inject.

Pyodide (Python in the browser, for the explorer) and plotly.js (the charts), and axe-core
(tests/test_accessibility.py; never copied into the site) come from the npm registry at
pinned versions, through `npm pack` (the ordinary npm client; no CDN at run
time). Each tarball's sha256 is checked, then only the files the site needs are unpacked into
the git-ignored `vendor/` folder, and each of those files is checked against its own sha256.

    python site_src/vendor.py          # fetch and check (idempotent; what `make vendor` runs)
    python site_src/vendor.py --check  # only check what is already in vendor/

The generator (generator/build.py `runtime_files`) puts the checked files in docs/ under
`assets/vendor/` with `site_files()`, so every builder ships them as they are.
"""

import argparse
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "vendor"
SITE_SUBDIR = Path("assets") / "vendor"


@dataclass(frozen=True)
class Pin:
    """One npm package at one version: the tarball's hash and the files the site ships."""

    package: str
    version: str
    folder: str  # name of the folder under vendor/ and under assets/vendor/ in the site
    tarball_sha256: str
    files: dict  # path inside the tarball's package/ folder -> sha256
    in_site: bool = True  # copied into the built site (False: used by the tests only)

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    @property
    def local_dir(self) -> Path:
        return VENDOR / self.folder


PYODIDE = Pin(
    package="pyodide",
    version="314.0.7",
    folder="pyodide",
    tarball_sha256="66b7949e5a0cba2250b586d7e368bf12fb482800748d182c4618254b685ffaa0",
    files={
        "pyodide.mjs": "6f1d60f7bf529beb300f0f47983c921d3982363640ba20af0e38efdddbc66109",
        "pyodide.asm.mjs": "f7cdc8ece80678ceb712f8e65ebe6d3a83203a180c399865f49612a051693635",
        "pyodide.asm.wasm": "cc36e3cab04fdfc9a63ff13eb52eae2b911bf46c025cc7b281f394bd3de1d5e6",
        "python_stdlib.zip": "fa1957e5777068fc4f7437f96d860ae2fbe9c19732ba06c84e004ec16dd7dd7a",
        "pyodide-lock.json": "5dc2fc119108bc148c7457dc86e7675b5c87e1cafd420b9c34c1eaef7b36c010",
    },
)

# The basic bundle (scatter, bar, pie; linear, log and category axes) is the smallest
# official bundle that draws every chart the generator writes.
PLOTLY = Pin(
    package="plotly.js-basic-dist-min",
    version="4.1.1",
    folder="plotly",
    tarball_sha256="ea907f854b6cec4f6a2fa71540ec019a21ed2c61e6a109ddd5c072103a96eed0",
    files={
        "plotly-basic.min.js": "99784e3abfb07b142a15e521a439e6d9addceadb3f79553fd24c72774f0649ba",
    },
)

# Deque Systems' accessibility rules, run by the browser tests on every built page.
AXE = Pin(
    package="axe-core",
    version="4.10.2",
    folder="axe-core",
    tarball_sha256="9ea2d2d6917da998122bdacfd3b473e31ead53f4b87146c716a12edf89158100",
    files={
        "axe.min.js": "b511cd9dec01c76f4b2ad1723b66b6db37d4c2eb4ed199076e1829d9ee7b75e3",
    },
    in_site=False,
)

PINS = (PYODIDE, PLOTLY, AXE)
SITE_PINS = tuple(pin for pin in PINS if pin.in_site)


class VendorError(RuntimeError):
    """A runtime could not be fetched, or a file's hash is not the pinned one."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def problems(pin: Pin) -> list[str]:
    """What is missing or altered in vendor/ for this pin (empty when all is well)."""
    found = []
    for name, expected in pin.files.items():
        path = pin.local_dir / name
        if not path.is_file():
            found.append(f"{path.relative_to(ROOT)} is missing")
        elif sha256_of(path) != expected:
            found.append(f"{path.relative_to(ROOT)} does not have the pinned sha256")
    return found


def npm_pack(pin: Pin, into: Path) -> Path:
    """Download the package tarball with the npm client and return its path."""
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError(f"npm is needed to fetch {pin.spec}; install Node.js and npm")
    done = subprocess.run(
        [npm, "pack", pin.spec, "--pack-destination", str(into), "--silent"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise VendorError(f"npm pack {pin.spec} failed:\n{done.stderr.strip()}")
    tarballs = list(into.glob("*.tgz"))
    if len(tarballs) != 1:
        raise VendorError(f"npm pack {pin.spec} left {len(tarballs)} tarballs, expected 1")
    return tarballs[0]


def unpack_pinned_files(pin: Pin, tarball: Path) -> None:
    """Extract only the pinned files (by exact name: no path from the archive is trusted)."""
    pin.local_dir.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball, "r:gz") as archive:
        for name in pin.files:
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise VendorError(f"{pin.spec} has no file {name}")
            with (pin.local_dir / name).open("wb") as out:
                shutil.copyfileobj(member, out)


def fetch(pin: Pin) -> None:
    """Fetch and check one pin unless vendor/ already holds its checked files."""
    if not problems(pin):
        return
    with tempfile.TemporaryDirectory() as tmp:
        tarball = npm_pack(pin, Path(tmp))
        actual = sha256_of(tarball)
        if actual != pin.tarball_sha256:
            raise VendorError(
                f"{pin.spec}: tarball sha256 {actual} is not the pinned {pin.tarball_sha256}"
            )
        unpack_pinned_files(pin, tarball)
    left = problems(pin)
    if left:
        raise VendorError(f"{pin.spec}: " + "; ".join(left))
    print(f"vendor: {pin.spec} fetched and checked into {pin.local_dir.relative_to(ROOT)}/")


def ensure_all() -> None:
    for pin in PINS:
        fetch(pin)


def site_files() -> dict[Path, bytes]:
    """{path under the site: content} of every checked runtime file the site ships
    (assets/vendor/<folder>/<name>); VendorError, asking for `make vendor`, when one is
    missing or altered."""
    left = [line for pin in SITE_PINS for line in problems(pin)]
    if left:
        raise VendorError("; ".join(left) + " (run `make vendor`)")
    return {
        SITE_SUBDIR / pin.folder / name: (pin.local_dir / name).read_bytes()
        for pin in SITE_PINS
        for name in pin.files
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check vendor/, fetch nothing")
    args = parser.parse_args(argv)
    try:
        if args.check:
            left = [line for pin in PINS for line in problems(pin)]
            if left:
                raise VendorError("; ".join(left))
            print("vendor: every pinned file is present and checked")
        else:
            ensure_all()
    except VendorError as error:
        print(f"vendor: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
