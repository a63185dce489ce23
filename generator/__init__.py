"""The generator: raw timings in data/raw/ -> results.json, chart specs and pages in docs/.

`python -m generator build` builds; `python -m generator report` re-checks every published
number from the raw files through its own code path. See generator/SCHEMA.md.
"""
