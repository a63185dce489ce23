"""The raw data format: one zip file per run holding `meta.json` and one `.npy` per column.

Written atomically (temp file in the same folder, fsync, rename), so a killed writer
never leaves a partial file. Needs only the standard library and numpy, so any tool can
read it. Documented in data/README.md.
"""

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np

FORMAT = "batching-lab-run/1"
SUFFIX = ".run.zip"


class RawFileError(Exception):
    """A raw file that cannot be read; the message names the file and what is wrong."""


def write_run(path: Path, meta: dict, columns: dict[str, np.ndarray] | None = None) -> None:
    """Write one run atomically. `meta` must be JSON-serialisable."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    columns = columns or {}
    body = {"format": FORMAT, **meta, "columns": sorted(columns)}
    with open(tmp, "wb") as handle:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_LZMA) as archive:
            archive.writestr("meta.json", json.dumps(body, indent=1, sort_keys=True))
            for name in sorted(columns):
                buffer = io.BytesIO()
                np.save(buffer, np.ascontiguousarray(columns[name]), allow_pickle=False)
                archive.writestr(f"{name}.npy", buffer.getvalue())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_meta(path: Path) -> dict:
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("meta.json"))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, EOFError) as error:
        raise RawFileError(f"{path}: cannot read meta.json ({error})") from error
    if meta.get("format") != FORMAT:
        raise RawFileError(f"{path}: field 'format' is {meta.get('format')!r}, expected {FORMAT!r}")
    return meta


def read_run(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, columns) of one run; RawFileError names the file and the part that failed."""
    meta = read_meta(path)
    columns = {}
    with zipfile.ZipFile(path) as archive:
        for name in meta["columns"]:
            try:
                columns[name] = np.load(io.BytesIO(archive.read(f"{name}.npy")), allow_pickle=False)
            except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
                raise RawFileError(f"{path}: cannot read column {name!r} ({error})") from error
    return meta, columns


def write_json(path: Path, value) -> None:
    """Atomic JSON write for small campaign files (schedule, campaign metadata)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w") as handle:
        json.dump(value, handle, indent=1, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def run_files(campaign: Path) -> list[Path]:
    return sorted((Path(campaign) / "runs").glob(f"*{SUFFIX}"))
