"""The explorer's Python (the site_src.explorer package) loaded as a fresh module, as the
browser gets it on every visit: no state carried over from another test. Found by its module
name (the import system's own spec), executed into a new module object each time."""

import importlib.util


def fresh(name: str):
    """site_src/explorer/<name>.py as a new module object."""
    spec = importlib.util.find_spec(f"site_src.explorer.{name}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_explorer():
    return fresh("explorer")


def load_simulator():
    return fresh("simulate")
