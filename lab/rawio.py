"""The raw data format: one zip file per run holding `meta.json` and one member per column.

Columns are stored compactly (byte planes, optionally delta-coded, LZMA in the zip) and a
column shared by many runs (the arrival times every setting of a round and rate meets) is
stored once beside the runs and checked by sha256. `read_run` undoes all of it. Written
atomically (temp file in the same folder, fsync, rename), so a killed writer never leaves a
partial file. Needs only the standard library and numpy. Documented in data/README.md.
"""

import hashlib
import io
import json
import lzma
import os
import zipfile
from pathlib import Path

import numpy as np

FORMAT = "batching-lab-run/2"
SUFFIX = ".run.zip"
ENCODINGS = ("planes", "delta-planes")


class RawFileError(Exception):
    """A raw file that cannot be read; the message names the file and what is wrong."""


def to_planes(array: np.ndarray) -> bytes:
    """Byte plane k holds byte k of every value: high bytes (mostly equal) compress well."""
    flat = np.ascontiguousarray(array).reshape(-1)
    return flat.view(np.uint8).reshape(len(flat), flat.dtype.itemsize).T.tobytes()


def from_planes(data: bytes, dtype: str, length: int) -> np.ndarray:
    width = np.dtype(dtype).itemsize
    planes = np.frombuffer(data, dtype=np.uint8).reshape(width, length)
    return np.ascontiguousarray(planes.T).view(dtype).reshape(length)


def encode(array: np.ndarray) -> tuple[str, bytes]:
    """The smaller of plain planes and delta-coded planes (wrapping integer arithmetic)."""
    candidates = {"planes": to_planes(array)}
    if array.dtype.kind in "iu" and len(array) > 1:
        delta = np.diff(array, prepend=array.dtype.type(0)).astype(array.dtype)
        candidates["delta-planes"] = to_planes(delta)
    sizes = {name: len(lzma.compress(data, preset=1)) for name, data in candidates.items()}
    best = min(sizes, key=sizes.get)
    return best, candidates[best]


def decode(data: bytes, dtype: str, length: int, encoding: str) -> np.ndarray:
    values = from_planes(data, dtype, length)
    if encoding == "delta-planes":
        values = np.cumsum(values, dtype=values.dtype)
    elif encoding != "planes":
        raise ValueError(f"unknown encoding {encoding!r}")
    return values


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_shared_column(path: Path, array: np.ndarray) -> str:
    """Store a column many runs share (once); an existing copy must hold the same values."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    data = buffer.getvalue()
    if path.exists():
        if path.read_bytes() != data:
            raise RawFileError(f"{path}: a run produced different values for a shared column")
        return sha256_bytes(data)
    _atomic_write(path, data)
    return sha256_bytes(data)


def write_run(
    path: Path, meta: dict, columns: dict | None = None, shared: dict[str, Path] | None = None
) -> None:
    """Write one run atomically. `shared` maps column names to files stored beside the runs
    (written once); those columns are not repeated inside the run file."""
    path, columns, shared = Path(path), dict(columns or {}), shared or {}
    layout, shared_refs = {}, {}
    for name, target in sorted(shared.items()):
        digest = write_shared_column(Path(target), np.asarray(columns.pop(name)))
        shared_refs[name] = {"file": os.path.relpath(target, path.parent), "sha256": digest}
    members = {}
    for name in sorted(columns):
        array = np.ascontiguousarray(columns[name])
        encoding, data = encode(array)
        layout[name] = {"dtype": array.dtype.str, "length": int(len(array)), "encoding": encoding}
        members[f"{name}.col"] = data
    body = {
        "format": FORMAT,
        **meta,
        "columns": sorted(layout) + sorted(shared_refs),
        "column_layout": layout,
        "shared_columns": shared_refs,
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_LZMA) as archive:
        archive.writestr("meta.json", json.dumps(body, indent=1, sort_keys=True))
        for member, data in members.items():
            archive.writestr(member, data)
    _atomic_write(path, buffer.getvalue())


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_meta(path: Path) -> dict:
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("meta.json"))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, EOFError, lzma.LZMAError) as error:
        raise RawFileError(f"{path}: cannot read meta.json ({error})") from error
    if meta.get("format") != FORMAT:
        raise RawFileError(f"{path}: field 'format' is {meta.get('format')!r}, expected {FORMAT!r}")
    return meta


def read_shared_column(path: Path, name: str, ref: dict) -> np.ndarray:
    target = Path(path).parent / ref["file"]
    try:
        data = target.read_bytes()
    except OSError as error:
        raise RawFileError(f"{path}: shared column {name!r} file {target}: {error}") from error
    if sha256_bytes(data) != ref["sha256"]:
        raise RawFileError(f"{path}: shared column {name!r} file {target} has a wrong sha256")
    return np.load(io.BytesIO(data), allow_pickle=False)


def read_run(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, columns) of one run; RawFileError names the file and the part that failed."""
    meta = read_meta(path)
    columns = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for name, layout in meta["column_layout"].items():
                columns[name] = decode(
                    archive.read(f"{name}.col"),
                    layout["dtype"],
                    layout["length"],
                    layout["encoding"],
                )
    except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError) as error:
        raise RawFileError(f"{path}: cannot read column data ({error})") from error
    for name, ref in meta.get("shared_columns", {}).items():
        columns[name] = read_shared_column(path, name, ref)
    return meta, columns


def write_json(path: Path, value) -> None:
    """Atomic JSON write for small campaign files (schedule, campaign metadata)."""
    _atomic_write(Path(path), (json.dumps(value, indent=1, sort_keys=True) + "\n").encode())


def run_files(campaign: Path) -> list[Path]:
    return sorted((Path(campaign) / "runs").glob(f"*{SUFFIX}"))
