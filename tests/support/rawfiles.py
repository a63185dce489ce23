"""Raw run files changed on purpose, for the tests of what reads them."""

import json
import zipfile
from pathlib import Path

from lab.rawformat import codec


def rewrite_meta(path: Path, change) -> None:
    """Change a run file's meta.json only, every column member kept byte for byte."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(members["meta.json"])
    change(meta)
    members["meta.json"] = json.dumps(meta, indent=1, sort_keys=True).encode()
    path.write_bytes(codec.zip_members(members))
