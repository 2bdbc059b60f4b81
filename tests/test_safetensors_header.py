"""The header reader accepts what the safetensors package accepts, and refuses the rest in
one line, reading nothing past the header."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save_file

from drafter_lint.safetensors_header import HeaderError, read_header


def reference_accepts(path) -> bool:
    try:
        with safe_open(str(path), framework="numpy") as handle:
            list(handle.keys())
        return True
    except (SafetensorError, OSError, ValueError):
        return False


def raw_file(path, header, data_len: int, length: int | None = None, pad: bytes = b""):
    body = (header if isinstance(header, bytes) else json.dumps(header).encode()) + pad
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(body) if length is None else length))
        handle.write(body)
        handle.write(b"\0" * data_len)
    return path


def good_header():
    return {"a": {"dtype": "F16", "shape": [2, 3], "data_offsets": [0, 12]},
            "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]},
            "__metadata__": {"format": "pt"}}


def variants():
    """(id, header, data bytes, header length override, padding)."""
    g = good_header
    yield "valid", g(), 16, None, b""
    yield "valid-padded", g(), 16, None, b"    "
    yield "valid-empty", {}, 0, None, b""
    yield "valid-zero-size", {"z": {"dtype": "F32", "shape": [0, 4], "data_offsets": [0, 0]}}, 0, None, b""
    yield "trailing-data", g(), 20, None, b""
    yield "short-data", g(), 10, None, b""
    h = g(); h["a"]["data_offsets"] = [0, 10]
    yield "size-mismatch", h, 16, None, b""
    h = g(); h["b"]["data_offsets"] = [14, 18]
    yield "gap", h, 18, None, b""
    h = g(); h["b"]["data_offsets"] = [10, 14]
    yield "overlap", h, 16, None, b""
    h = g(); h["a"]["dtype"] = "F12"
    yield "bad-dtype", h, 16, None, b""
    h = g(); h["a"]["shape"] = [2, -3]
    yield "negative-dim", h, 16, None, b""
    h = g(); h["a"]["shape"] = [2, 3.0]
    yield "float-dim", h, 16, None, b""
    h = g(); h["a"]["data_offsets"] = [12, 0]
    yield "reversed-offsets", h, 16, None, b""
    h = g(); h["__metadata__"] = {"format": 1}
    yield "metadata-not-strings", h, 16, None, b""
    yield "not-json", b"{not json}", 0, None, b""
    yield "not-object", b"[1, 2]", 0, None, b""
    yield "length-beyond-file", g(), 16, 10_000, b""
    yield "length-2-pow-62", g(), 16, 2**62, b""
    yield "tensor-not-object", {"a": 5}, 0, None, b""
    # sub-byte dtypes: the bits must fill whole bytes. Mutation caught (round 2026-12-05,
    # M17): the `bits % 8` test dropped, so three F4 values "fit" in one byte
    yield "valid-f4-even", {"q": {"dtype": "F4", "shape": [4], "data_offsets": [0, 2]}}, 2, None, b""
    yield "f4-odd-count", {"q": {"dtype": "F4", "shape": [3], "data_offsets": [0, 1]}}, 1, None, b""


@pytest.mark.parametrize("variant", list(variants()), ids=lambda v: v[0])
def test_agrees_with_the_safetensors_package(variant, tmp_path):
    name, header, data, length, pad = variant
    path = raw_file(tmp_path / "x.safetensors", header, data, length, pad)
    ours_ok = True
    try:
        read_header(path, "x.safetensors")
    except HeaderError as exc:
        ours_ok = False
        assert "\n" not in str(exc) and str(exc)
    assert ours_ok == reference_accepts(path)
    assert ours_ok == name.startswith("valid")


def test_real_file_shapes_and_dtypes(tmp_path):
    save_file({"w": np.zeros((3, 5), dtype=np.float16), "v": np.zeros(7, dtype=np.int64)},
              str(tmp_path / "m.safetensors"), metadata={"k": "v"})
    header = read_header(tmp_path / "m.safetensors", "m.safetensors")
    assert header.tensors["w"].shape == (3, 5) and header.tensors["w"].dtype == "F16"
    assert header.tensors["v"].shape == (7,) and header.tensors["v"].dtype == "I64"
    assert header.metadata == {"k": "v"}


@pytest.mark.parametrize("content,needle", [(b"", "truncated"), (b"\x01\x02", "truncated"),
                                            (struct.pack("<Q", 2**62), "cap")])
def test_short_and_hostile_lengths(tmp_path, content, needle):
    path = tmp_path / "t.safetensors"
    path.write_bytes(content)
    with pytest.raises(HeaderError, match=needle):
        read_header(path, "t.safetensors")


def test_duplicate_tensor_names_are_refused(tmp_path):
    body = (b'{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}, '
            b'"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}')
    path = raw_file(tmp_path / "d.safetensors", body, 1)
    with pytest.raises(HeaderError, match="twice"):
        read_header(path, "d.safetensors")


def test_a_folder_is_not_a_file(tmp_path):
    (tmp_path / "dir.safetensors").mkdir()
    with pytest.raises(HeaderError, match="regular file"):
        read_header(tmp_path / "dir.safetensors", "dir.safetensors")
