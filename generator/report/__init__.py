"""The report: every published number recomputed from the raw files by code of its own, and
compared (`python -m generator report`; generator/report/checks.py runs the checks). It shares
names and the raw-format codec with the build, never formulas: an import-linter contract
(pyproject.toml) forbids it every package of the build's arithmetic, charts and pages."""
