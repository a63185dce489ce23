"""The raw data format: one zip file per run holding `meta.json` and one member per column.

Columns are stored compactly (byte planes, optionally delta-coded, LZMA in the zip); Part B's
per-request durations are kept to 8 significant bits ("log8"); a column shared by many runs
(the arrivals every setting of a round and rate meets) is stored once beside the runs and
checked by sha256. `read_run` undoes all of it. Written atomically (temp file in the same
folder, fsync, rename), so a killed writer never leaves a partial file. Needs only the
standard library and numpy. Documented in data/README.md.

Versions: a run of a kind format 2 already had is written as format 2, exactly as before, so
any reader of format 2 reads it; format 3 is format 2 plus the kind `switchback` (issue 28),
and only those runs say 3, so a reader that knows only 2 refuses just what it cannot read.
Format 4 (2026-12-02, issue 29) is format 3 plus folded columns (lab/rawformat/kinds.py
FOLDED_COLUMNS): a Part B or switchback run of a profile without the send lag column keeps
its send lag as `send_lag_us_p99` in meta and has no `send_lag_us` column; and a run may name
in `same_as_campaign` the keys it shares with campaign.json (`fingerprint`,
`artifacts_sha256`) instead of repeating them; and a column may be kept to fewer significant
bits than 8 (encoding `log6-…`). Only such runs say 4; every other run is written as before.
"""

import functools
import hashlib
import io
import json
import lzma
import os
import zipfile
from pathlib import Path

import numpy as np

from lab.rawformat.errors import RawFileError
from lab.rawformat.kinds import FOLDED_COLUMNS

FORMAT = "batching-lab-run/2"
FORMAT_3 = "batching-lab-run/3"
FORMAT_3_KINDS = ("switchback",)  # the kinds format 3 added
FORMAT_4 = "batching-lab-run/4"  # format 3 plus folded columns (a meta key instead of a column)
READABLE_FORMATS = (FORMAT, FORMAT_3, FORMAT_4)
FORMAT_4_KEYS = (*FOLDED_COLUMNS.values(), "same_as_campaign")  # a meta with one is format 4
SUFFIX = ".run.zip"
FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # zip member dates: the same values give the same bytes


def to_planes(array: np.ndarray) -> bytes:
    """Byte plane k holds byte k of every value: high bytes (mostly equal) compress well."""
    flat = np.ascontiguousarray(array).reshape(-1)
    return flat.view(np.uint8).reshape(len(flat), flat.dtype.itemsize).T.tobytes()


def from_planes(data: bytes, dtype: str, length: int) -> np.ndarray:
    width = np.dtype(dtype).itemsize
    planes = np.frombuffer(data, dtype=np.uint8).reshape(width, length)
    return np.ascontiguousarray(planes.T).view(dtype).reshape(length)


def to_log(values: np.ndarray, bits: int = 8) -> np.ndarray:
    """Integer durations kept to `bits` significant bits: exact below 2^bits, relative error
    at most 1/2^bits above (8 bits: 0.4%). Code = exponent × 2^bits + mantissa (value =
    mantissa << exponent), sign kept."""
    values = np.asarray(values, dtype=np.int64)
    magnitude = np.abs(values)
    exponent = np.zeros(len(values), dtype=np.int64)
    big = magnitude >= 2**bits
    exponent[big] = np.floor(np.log2(magnitude[big])).astype(np.int64) - (bits - 1)
    mantissa = np.rint(magnitude / np.exp2(exponent)).astype(np.int64)
    carry = mantissa >= 2**bits  # rounding reached the next power of two
    exponent[carry] += 1
    mantissa[carry] //= 2
    return (np.sign(values) * (exponent * 2**bits + mantissa)).astype(np.int32)


def from_log(codes: np.ndarray, dtype: str, bits: int = 8) -> np.ndarray:
    magnitude = np.abs(np.asarray(codes, dtype=np.int64))
    return (np.sign(codes) * ((magnitude & (2**bits - 1)) << (magnitude >> bits))).astype(dtype)


def to_log8(values: np.ndarray) -> np.ndarray:
    """8 significant bits (`to_log`): Part B's durations in every format."""
    return to_log(values, 8)


def from_log8(codes: np.ndarray, dtype: str) -> np.ndarray:
    return from_log(codes, dtype, 8)


def encode(array: np.ndarray) -> tuple[str, bytes]:
    """The smaller of plain planes and delta-coded planes (wrapping integer arithmetic)."""
    candidates = {"planes": to_planes(array)}
    if array.dtype.kind in "iu" and len(array) > 1:
        delta = np.diff(array, prepend=array.dtype.type(0)).astype(array.dtype)
        candidates["delta-planes"] = to_planes(delta)
    sizes = {name: len(lzma.compress(data, preset=1)) for name, data in candidates.items()}
    best = min(sizes, key=sizes.get)
    return best, candidates[best]


def encode_column(array: np.ndarray, log8: bool | int) -> tuple[dict, bytes]:
    """The column's layout and stored bytes; `log8` True (8) or a number of significant bits
    keeps its values to that many (encoding `log8-…`, format 4's `log6-…`)."""
    array = np.ascontiguousarray(array)
    bits = 8 if log8 is True else int(log8)
    encoding, data = encode(to_log(array, bits) if bits else array)
    layout = {"dtype": array.dtype.str, "length": int(len(array)),
              "encoding": f"log{bits}-{encoding}" if bits else encoding}  # fmt: skip
    return layout, data


def log_bits(encoding: str) -> int:
    """8 for `log8-planes`, 6 for `log6-delta-planes`, 0 for an exact encoding."""
    head = encoding.split("-", 1)[0]
    return int(head[3:]) if head.startswith("log") and head[3:].isdigit() else 0


def decode(data: bytes, layout: dict) -> np.ndarray:
    """The column's values from its stored bytes and its `column_layout` entry."""
    bits = log_bits(layout["encoding"])
    encoding = layout["encoding"].removeprefix(f"log{bits}-") if bits else layout["encoding"]
    stored = from_planes(data, "<i4" if bits else layout["dtype"], layout["length"])
    if encoding == "delta-planes":
        stored = np.cumsum(stored, dtype=stored.dtype)
    elif encoding != "planes":
        raise ValueError(f"unknown encoding {layout['encoding']!r}")
    return from_log(stored, layout["dtype"], bits) if bits else stored


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def zip_members(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_LZMA) as archive:
        for name, payload in members.items():
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            archive.writestr(info, payload, compress_type=zipfile.ZIP_LZMA)
    return buffer.getvalue()


def write_shared_column(path: Path, array: np.ndarray) -> str:
    """Store a column many runs share (once); an existing copy must hold the same values."""
    layout, values = encode_column(array, log8=False)
    data = zip_members({"layout.json": json.dumps(layout, sort_keys=True).encode(),
                        "values.col": values})  # fmt: skip
    if path.exists():
        if path.read_bytes() != data:
            raise RawFileError(f"{path}: a run produced different values for a shared column")
    else:
        _atomic_write(path, data)
    return sha256_bytes(data)


def format_of(kind: str | None, meta: dict | None = None) -> str:
    """The format a run of this kind (with this meta) is written in (see the versions above)."""
    if meta is not None and any(key in meta for key in FORMAT_4_KEYS):
        return FORMAT_4
    return FORMAT_3 if kind in FORMAT_3_KINDS else FORMAT


def write_run(path, meta: dict, columns=None, shared=None, log8=()) -> None:
    """Write one run atomically. `shared` maps column names to files stored beside the runs
    (written once, not repeated in the run file); columns named in `log8` are kept to 8
    significant bits (see `to_log`), or, when `log8` maps names to bits, to that many (fewer
    than 8: format 4)."""
    bits = dict(log8) if isinstance(log8, dict) else dict.fromkeys(log8, 8)
    path, columns = Path(path), dict(columns or {})
    shared_refs = {}
    for name, target in sorted((shared or {}).items()):
        digest = write_shared_column(Path(target), np.asarray(columns.pop(name)))
        shared_refs[name] = {"file": os.path.relpath(target, path.parent), "sha256": digest}
    layout, members = {}, {}
    for name in sorted(columns):
        layout[name], members[f"{name}.col"] = encode_column(columns[name], bits.get(name, 0))
    folded = [name for name, key in FOLDED_COLUMNS.items() if key in meta and name in columns]
    if folded:  # a folded column is its meta key alone (format 4)
        raise ValueError(f"columns {folded} are folded into meta: write one or the other")
    coarse = any(0 < value < 8 for name, value in bits.items() if name in layout)
    body = {"format": FORMAT_4 if coarse else format_of(meta.get("kind"), meta), **meta,
            "columns": sorted(layout) + sorted(shared_refs),
            "column_layout": layout, "shared_columns": shared_refs}  # fmt: skip
    meta_bytes = json.dumps(body, indent=1, sort_keys=True).encode()
    _atomic_write(path, zip_members({"meta.json": meta_bytes, **members}))


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


UNREADABLE = (OSError, zipfile.BadZipFile, KeyError, ValueError, EOFError, lzma.LZMAError)


def read_meta(path: Path) -> dict:
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("meta.json"))
    except UNREADABLE as error:
        raise RawFileError(f"{path}: cannot read meta.json ({error})") from error
    if meta.get("format") not in READABLE_FORMATS:
        raise RawFileError(f"{path}: field 'format' is {meta.get('format')!r}, "
                           f"expected one of {READABLE_FORMATS!r}")  # fmt: skip
    return meta


def read_shared_column(path: Path, name: str, ref: dict) -> np.ndarray:
    """A column stored once for many runs (Part B's arrivals), checked by its sha256."""
    target = Path(path).parent / ref["file"]
    try:
        stat = target.stat()
        return _shared_values(target, stat.st_mtime_ns, stat.st_size, ref["sha256"]).copy()
    except (*UNREADABLE, RawFileError) as error:
        raise RawFileError(f"{path}: shared column {name!r} in {target}: {error}") from error


@functools.lru_cache(maxsize=64)
def _shared_values(target: Path, mtime_ns: int, size: int, sha256: str) -> np.ndarray:
    # Every setting of a round and rate shares one file: read and check it once per version.
    data = target.read_bytes()
    if sha256_bytes(data) != sha256:
        raise RawFileError("wrong sha256")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return decode(archive.read("values.col"), json.loads(archive.read("layout.json")))


def read_run(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, columns) of one run; RawFileError names the file and the part that failed."""
    meta = read_meta(path)
    columns = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for name, layout in meta["column_layout"].items():
                columns[name] = decode(archive.read(f"{name}.col"), layout)
    except UNREADABLE as error:
        raise RawFileError(f"{path}: cannot read column data ({error})") from error
    for name, ref in meta.get("shared_columns", {}).items():
        columns[name] = read_shared_column(path, name, ref)
    return meta, columns


def write_json(path: Path, value) -> None:
    """Atomic JSON write for small campaign files (schedule, campaign metadata)."""
    _atomic_write(Path(path), (json.dumps(value, indent=1, sort_keys=True) + "\n").encode())


def read_json(path: Path):
    """A small campaign JSON file, or RawFileError naming it."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise RawFileError(f"{path}: cannot read it ({error})") from error


def run_files(campaign: Path) -> list[Path]:
    return sorted((Path(campaign) / "runs").glob(f"*{SUFFIX}"))
