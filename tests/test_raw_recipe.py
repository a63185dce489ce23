"""data/README.md's recipe for reading a run by hand (standard library and numpy, no codec)
gives the codec's values, for every encoding the committed campaigns use.

The recipe is the README's own code block, cut out of the text and run as it stands.
Run: `.venv/bin/pytest tests/test_raw_recipe.py`
"""

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from lab.rawformat import codec

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "data" / "README.md"
RAW = ROOT / "data" / "raw"


def recipe() -> dict:
    """The README's python block after 'By hand', run; its names (read_run, column)."""
    text = README.read_text()
    after = text[text.index("By hand, with the standard") :]
    block = re.search(r"```python\n(.*?)\n```", after, flags=re.S).group(1)
    names = {"__name__": "readme_recipe"}
    exec(compile(block, str(README), "exec"), names)
    return names


def encodings_of(path: Path) -> set:
    """The encodings a run file uses, its shared columns' included."""
    meta = codec.read_meta(path)
    found = {layout["encoding"] for layout in meta["column_layout"].values()}
    for shared in meta.get("shared_columns", {}).values():
        with zipfile.ZipFile(path.parent / shared["file"]) as stored:
            found.add(json.loads(stored.read("layout.json"))["encoding"])
    return found


def runs_covering_every_encoding() -> tuple[list, set]:
    """Run files that together use every encoding in the committed campaigns (and one run of
    each kind, for every dtype), and the set of those encodings."""
    chosen, covered, kinds, used = [], set(), set(), set()
    for campaign in sorted(p for p in RAW.iterdir() if p.is_dir()):
        for path in codec.run_files(campaign):
            encodings, kind = encodings_of(path), codec.read_meta(path)["kind"]
            used |= encodings
            if not encodings <= covered or kind not in kinds:
                chosen.append(path)
                covered |= encodings
                kinds.add(kind)
    return chosen, used


def test_the_readme_recipe_reads_what_the_codec_reads():
    read_run = recipe()["read_run"]
    paths, used = runs_covering_every_encoding()
    assert {"planes", "delta-planes", "log8-planes", "log8-delta-planes"} <= used
    seen = set()
    for path in paths:
        meta, columns = read_run(path)
        expected_meta, expected = codec.read_run(path)
        assert meta == expected_meta
        assert sorted(columns) == sorted(expected), path.name
        for name, values in columns.items():
            assert values.dtype == expected[name].dtype, (path.name, name)
            assert np.array_equal(values, expected[name], equal_nan=values.dtype.kind == "f")
        seen |= encodings_of(path)
    assert seen == used


def test_the_recipe_undoes_log8_as_the_codec_does(tmp_path):
    durations = np.array([0, 1, 255, 256, 1_000, 123_456, -7, 10**9], dtype=np.int64)
    path = tmp_path / "x.run.zip"
    codec.write_run(path, {"kind": "test"}, {"latency_us": durations}, log8=("latency_us",))
    _, columns = recipe()["read_run"](path)
    assert np.array_equal(columns["latency_us"], codec.read_run(path)[1]["latency_us"])


@pytest.mark.parametrize("dtype", ["<u2", "<i4", "<u4", "<i8", "<f8", "<U7"])
def test_the_recipe_reads_every_dtype(tmp_path, dtype):
    values = np.arange(50).astype(dtype)
    path = tmp_path / "x.run.zip"
    codec.write_run(path, {"kind": "test"}, {"values": values})
    _, columns = recipe()["read_run"](path)
    assert columns["values"].dtype == values.dtype and np.array_equal(columns["values"], values)


def test_the_recipe_undoes_format_4s_log6_as_the_codec_does(tmp_path):
    durations = np.array([0, 1, 63, 64, 1_000, 123_456, -7, 10**9], dtype=np.int64)
    path = tmp_path / "x.run.zip"
    codec.write_run(path, {"kind": "test"}, {"latency_us": durations}, log8={"latency_us": 6})
    assert codec.read_meta(path)["column_layout"]["latency_us"]["encoding"].startswith("log6-")
    _, columns = recipe()["read_run"](path)
    stored = codec.read_run(path)[1]["latency_us"]
    assert np.array_equal(columns["latency_us"], stored)
    assert np.array_equal(stored[np.abs(durations) < 64], durations[np.abs(durations) < 64])
    error = (
        np.abs(stored - durations)[np.abs(durations) >= 64]
        / np.abs(durations)[np.abs(durations) >= 64]
    )
    assert (error <= 1 / 64).all() and (error > 0).any()
