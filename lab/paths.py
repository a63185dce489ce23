"""Where the lab keeps its rebuildable files (git-ignored) and its raw data (committed).

Set LAB_HOME to move the cache (tests use a temporary folder).
"""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
RAW = DATA / "raw"


def lab_home() -> Path:
    """The git-ignored cache: the fetched wheel, the shop log and the built artifacts."""
    return Path(os.environ.get("LAB_HOME", REPO / ".cache" / "lab"))


def downloads() -> Path:
    return lab_home() / "downloads"


def artifacts() -> Path:
    return lab_home() / "artifacts"


def raw() -> Path:
    """Where campaigns are written (data/raw; set LAB_RAW to write elsewhere, e.g. in tests)."""
    return Path(os.environ.get("LAB_RAW", RAW))
