"""The raw format: exact round trips, the bounded log8 error, shared columns, clear errors.

Run: `.venv/bin/pytest tests/test_codec.py`.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lab.rawformat import codec

INTEGER_DTYPES = ["<u2", "<i4", "<u4", "<i8"]


@given(st.sampled_from(INTEGER_DTYPES).flatmap(
    lambda dtype: hnp.arrays(dtype, st.integers(0, 3000))))  # fmt: skip
def test_integer_columns_round_trip_exactly(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("run") / "x.run.zip"
    codec.write_run(path, {"kind": "test"}, {"values": values})
    meta, columns = codec.read_run(path)
    assert columns["values"].dtype == values.dtype
    assert np.array_equal(columns["values"], values)


@given(hnp.arrays(np.int64, st.integers(0, 2000),
                  elements=st.integers(-(2**40), 2**40)))  # fmt: skip
def test_log8_is_exact_below_256_and_within_1_in_256_above(values):
    decoded = codec.from_log8(codec.to_log8(values), "<i8")
    small = np.abs(values) < 256
    assert np.array_equal(decoded[small], values[small])
    error = np.abs(decoded - values)[~small] / np.abs(values)[~small]
    assert (error <= 1 / 256).all()
    assert np.array_equal(np.sign(decoded), np.sign(values))


def test_log8_columns_are_marked_and_smaller(tmp_path):
    rng = np.random.default_rng(3)
    latency = rng.integers(800, 6000, 20_000).astype(np.int64)
    codec.write_run(tmp_path / "exact.run.zip", {}, {"latency_us": latency})
    codec.write_run(tmp_path / "log8.run.zip", {}, {"latency_us": latency}, log8=("latency_us",))
    meta, columns = codec.read_run(tmp_path / "log8.run.zip")
    assert meta["column_layout"]["latency_us"]["encoding"].startswith("log8-")
    assert columns["latency_us"].dtype == np.int64
    exact_size = (tmp_path / "exact.run.zip").stat().st_size
    assert (tmp_path / "log8.run.zip").stat().st_size < 0.8 * exact_size


def test_shared_columns_are_stored_once_and_checked(tmp_path):
    arrivals = np.arange(0, 50_000, 7, dtype=np.uint32)
    shared = {"arrival_us": tmp_path / "arrivals" / "r0.zip"}
    for name in ("a", "b"):
        codec.write_run(
            tmp_path / "runs" / f"{name}.run.zip",
            {},
            {"arrival_us": arrivals, "status": np.zeros(len(arrivals), np.uint16)},
            shared=dict(shared),
        )
    meta, columns = codec.read_run(tmp_path / "runs" / "b.run.zip")
    assert np.array_equal(columns["arrival_us"], arrivals)
    columns["arrival_us"][0] = 99  # each reader gets its own copy of a shared column
    assert np.array_equal(
        codec.read_run(tmp_path / "runs" / "a.run.zip")[1]["arrival_us"], arrivals
    )
    assert "arrival_us.col" not in str(meta["column_layout"])
    with pytest.raises(codec.RawFileError, match="different values"):
        codec.write_run(tmp_path / "runs" / "c.run.zip", {}, {"arrival_us": arrivals + 1},
                        shared=dict(shared))  # fmt: skip
    (tmp_path / "arrivals" / "r0.zip").write_bytes(b"tampered")
    with pytest.raises(codec.RawFileError, match="wrong sha256"):
        codec.read_run(tmp_path / "runs" / "a.run.zip")


def test_a_truncated_file_is_named(tmp_path):
    path = tmp_path / "t.run.zip"
    codec.write_run(path, {"kind": "test"}, {"v": np.arange(1000)})
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(codec.RawFileError, match="t.run.zip"):
        codec.read_run(path)


def test_writes_leave_no_temporary_files(tmp_path):
    codec.write_run(tmp_path / "a.run.zip", {"kind": "test"}, {"v": np.arange(10)})
    codec.write_json(tmp_path / "a.json", {"x": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "a.run.zip"]


@given(hnp.arrays(np.int64, st.integers(0, 2000),
                  elements=st.integers(-(2**40), 2**40)))  # fmt: skip
def test_log6_is_exact_below_64_and_within_1_in_64_above(values):
    decoded = codec.from_log(codec.to_log(values, 6), "<i8", 6)
    small = np.abs(values) < 64
    assert np.array_equal(decoded[small], values[small])
    error = np.abs(decoded - values)[~small] / np.abs(values)[~small]
    assert (error <= 1 / 64).all()
    assert np.array_equal(np.sign(decoded), np.sign(values))


def test_only_a_column_kept_to_fewer_bits_makes_a_run_format_4(tmp_path):
    latency = np.arange(1000, 3000, dtype=np.int64)
    codec.write_run(tmp_path / "a.run.zip", {"kind": "part_b"}, {"latency_us": latency},
                    log8={"latency_us": 8})  # fmt: skip
    codec.write_run(tmp_path / "b.run.zip", {"kind": "part_b"}, {"latency_us": latency},
                    log8={"latency_us": 6})  # fmt: skip
    assert codec.read_meta(tmp_path / "a.run.zip")["format"] == "batching-lab-run/2"
    assert codec.read_meta(tmp_path / "b.run.zip")["format"] == "batching-lab-run/4"
    layout = codec.read_meta(tmp_path / "a.run.zip")["column_layout"]["latency_us"]
    assert layout["encoding"].startswith("log8-")  # a dict of 8 bits is the old log8 exactly
    assert (tmp_path / "a.run.zip").read_bytes() == codec_bytes_of_old_call(tmp_path, latency)


def codec_bytes_of_old_call(tmp_path, latency) -> bytes:
    path = tmp_path / "old.run.zip"
    codec.write_run(path, {"kind": "part_b"}, {"latency_us": latency}, log8=("latency_us",))
    return path.read_bytes()
