"""Strict reader of safetensors headers: the 8-byte length, then the JSON header, never data.

It accepts exactly what the `safetensors` package accepts (tests hold the two side by
side) and says in one line what is wrong otherwise. It reads at most 8 + header-length
bytes, and refuses a length beyond the file or beyond the cap before allocating anything.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from typing import NamedTuple

from drafter_lint import jsondoc
from drafter_lint.errors import HeaderError

MAX_HEADER_BYTES = 100_000_000  # the safetensors package's own cap

# Bits per element, as in the safetensors format.
DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
    "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
    "I32": 32, "U32": 32, "F32": 32, "C64": 64,
    "I64": 64, "U64": 64, "F64": 64,
    "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}


class TensorInfo(NamedTuple):  # a tuple: cheap to build 100,000 of
    name: str
    dtype: str
    shape: tuple[int, ...]
    file: str
    offsets: tuple[int, int]


@dataclass
class Header:
    file: str
    size: int
    length: int
    tensors: dict[str, TensorInfo]
    metadata: dict[str, str] | None


def read_header(path: str | os.PathLike, name: str, size: int | None = None) -> Header:
    """Read and validate the header of the safetensors file at `path` (shown as `name`).

    The caller has checked that `path` stays inside the checkpoint. `size` is the real
    file's size when `path` holds only its first bytes (a hub file read by range,
    drafter_lint/remote.py).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)   # a FIFO must not block the open
    except OSError as exc:
        raise HeaderError(f"cannot open: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise HeaderError("not a regular file")
        size = info.st_size if size is None else size
        if size < 8:
            raise HeaderError(f"truncated: {size} bytes, shorter than the 8-byte length field")
        length = int.from_bytes(_pread(fd, 8, 0), "little")
        if length > MAX_HEADER_BYTES:
            raise HeaderError(f"header length {length} exceeds the {MAX_HEADER_BYTES}-byte cap")
        if length > size - 8:
            raise HeaderError(f"header length {length} runs past the end of the "
                              f"{size}-byte file (truncated or corrupt)")
        raw = _pread(fd, length, 8)
    finally:
        os.close(fd)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HeaderError(f"header is not UTF-8 (byte {exc.start})") from None
    if not text.startswith("{"):
        raise HeaderError("header does not start with '{'")
    text = text.rstrip(" ")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not _plainly_unique(text, value):       # exact (slower) parse: errors, duplicates
        try:
            document = jsondoc.parse(text)
        except jsondoc.JsonSyntaxError as exc:
            raise HeaderError(f"header is not valid JSON: {exc.reason}") from None
        if document.duplicates:
            raise HeaderError(f"header names {document.duplicates[0].pointer[1:]!r} twice")
        value = document.value
    return _validate(value, name, size, length)


def _plainly_unique(text: str, value) -> bool:
    """Whether json.loads' result cannot hide a duplicate key: every entry is a tensor with
    its three fields, each field name appears once per entry in the text, and
    `__metadata__` at most once. Otherwise the exact parser decides."""
    if not isinstance(value, dict):
        return False
    tensors = [v for k, v in value.items() if k != "__metadata__"]
    if not all(type(v) is dict and len(v) == 3 for v in tensors):
        return False
    return text.count('"__metadata__"') == ("__metadata__" in value) and all(
        text.count(f'"{field}"') == len(tensors) for field in ("dtype", "shape", "data_offsets"))


def _pread(fd: int, count: int, offset: int) -> bytes:
    chunks = []
    while count:
        chunk = os.pread(fd, min(count, 1 << 24), offset)
        if not chunk:
            raise HeaderError("truncated while reading the header")
        chunks.append(chunk)
        count -= len(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _validate(value: object, name: str, size: int, length: int) -> Header:
    if not isinstance(value, dict):
        raise HeaderError("header is not a JSON object")
    metadata = value.get("__metadata__")
    if metadata is not None and not (
            isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())):
        raise HeaderError("__metadata__ must map strings to strings")
    tensors: dict[str, TensorInfo] = {}
    for key, entry in value.items():
        if key == "__metadata__":
            continue
        tensors[key] = _tensor(key, entry, name)
    expected = 0
    for tensor in sorted(tensors.values(), key=lambda t: t.offsets):
        begin, end = tensor.offsets
        if begin != expected:
            raise HeaderError(f"tensor {tensor.name!r} starts at byte {begin}, expected "
                              f"{expected} (gap or overlap in data_offsets)")
        expected = end
    data = size - 8 - length
    if expected != data:
        raise HeaderError(f"tensors cover {expected} data bytes but the file holds {data} "
                          f"(truncated, or trailing bytes)")
    return Header(name, size, length, tensors, metadata)


def _tensor(key: str, entry: object, name: str) -> TensorInfo:
    if type(entry) is not dict:
        raise HeaderError(f"tensor {key!r} is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    bits = DTYPE_BITS.get(dtype) if type(dtype) is str else None
    if bits is None:
        raise HeaderError(f"tensor {key!r} has unknown dtype {dtype!r}")
    if type(shape) is not list:
        raise HeaderError(f"tensor {key!r} has an invalid shape {shape!r}")
    for d in shape:
        if type(d) is not int or d < 0 or d >= 2**64:
            raise HeaderError(f"tensor {key!r} has an invalid shape {shape!r}")
    if type(offsets) is not list or len(offsets) != 2:
        raise HeaderError(f"tensor {key!r} has invalid data_offsets {offsets!r}")
    begin, end = offsets
    if type(begin) is not int or type(end) is not int or not 0 <= begin <= end < 2**64:
        raise HeaderError(f"tensor {key!r} has invalid data_offsets {offsets!r}")
    bits = math.prod(shape) * bits
    if bits % 8 or bits // 8 != offsets[1] - offsets[0]:
        raise HeaderError(f"tensor {key!r}: {dtype} {shape} needs {bits / 8:g} bytes but "
                          f"data_offsets span {offsets[1] - offsets[0]}")
    return TensorInfo(key, dtype, tuple(shape), name, (begin, end))
