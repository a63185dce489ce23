"""The explorer's Python (site_src/explorer/) loaded as a fresh module, as the browser gets it
on every visit: no state carried over from another test."""

import importlib.util
from pathlib import Path

EXPLORER_DIR = Path(__file__).resolve().parents[2] / "site_src" / "explorer"


def fresh(name: str):
    """site_src/explorer/<name>.py as a new module object."""
    spec = importlib.util.spec_from_file_location(f"fresh_{name}", EXPLORER_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_explorer():
    return fresh("explorer")


def load_simulator():
    return fresh("simulate")
