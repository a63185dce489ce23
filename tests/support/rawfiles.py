"""Raw run files and results changed on purpose, for the tests of what reads them."""

import json
import shutil
import zipfile
from pathlib import Path

from generator.report import checks as report
from lab.rawformat import codec


def rewrite_meta(path: Path, change) -> None:
    """Change a run file's meta.json only, every column member kept byte for byte."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(members["meta.json"])
    change(meta)
    members["meta.json"] = json.dumps(meta, indent=1, sort_keys=True).encode()
    path.write_bytes(codec.zip_members(members))


def with_first_part_b_changed(source: Path, where: Path, change) -> tuple[Path, Path]:
    """A copy of the raw folder `source` at `where` whose first Part B run (by file name) has
    its meta changed by `change`: (the copy, that run's file)."""
    shutil.copytree(source, where)
    (folder,) = [p for p in where.iterdir() if p.is_dir()]
    for path in sorted((folder / "runs").glob(f"*{codec.SUFFIX}")):
        if codec.read_run(path)[0]["kind"] == "part_b":
            rewrite_meta(path, change)
            return where, path
    raise ValueError(f"{source}: no Part B run to change")


def report_on_altered(raw: Path, results: dict, tmp_path: Path, capsys) -> tuple[int, str]:
    """`python -m generator report` of the raw folder `raw` against `results` (a results.json
    changed on purpose, written into tmp_path): (its exit code, what it printed)."""
    path = tmp_path / "altered.json"
    path.write_text(json.dumps(results))
    capsys.readouterr()  # only the report's own lines
    code = report.main(raw, None, path)
    return code, capsys.readouterr().out
