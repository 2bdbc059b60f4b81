"""Strict reader of safetensors headers: the 8-byte length, then the JSON header, never data.

It accepts exactly what the `safetensors` package accepts (tests hold the two side by
side) and says in one line what is wrong otherwise. It reads at most 8 + header-length
bytes, and refuses a length beyond the file or beyond the cap before allocating anything.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass

from drafter_lint import jsondoc

MAX_HEADER_BYTES = 100_000_000  # the safetensors package's own cap

# Bits per element, as in the safetensors format.
DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
    "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
    "I32": 32, "U32": 32, "F32": 32, "C64": 64,
    "I64": 64, "U64": 64, "F64": 64,
    "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}


class HeaderError(ValueError):
    """The file is not a valid safetensors file; the message is one line."""


@dataclass(frozen=True)
class TensorInfo:
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


def read_header(path: str | os.PathLike, name: str) -> Header:
    """Read and validate the header of the safetensors file at `path` (shown as `name`).

    The caller has checked that `path` stays inside the checkpoint.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise HeaderError(f"cannot open: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise HeaderError("not a regular file")
        size = info.st_size
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
    try:
        document = jsondoc.parse_fast(text.rstrip(" "))
    except jsondoc.JsonSyntaxError as exc:
        raise HeaderError(f"header is not valid JSON: {exc.reason}") from None
    if document.duplicates:
        raise HeaderError(f"header names {document.duplicates[0].pointer[1:]!r} twice")
    return _validate(document.value, name, size, length)


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
    if not isinstance(entry, dict):
        raise HeaderError(f"tensor {key!r} is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPE_BITS:
        raise HeaderError(f"tensor {key!r} has unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(_natural(d) for d in shape):
        raise HeaderError(f"tensor {key!r} has an invalid shape {shape!r}")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(_natural(o) for o in offsets) or offsets[0] > offsets[1]):
        raise HeaderError(f"tensor {key!r} has invalid data_offsets {offsets!r}")
    bits = math.prod(shape) * DTYPE_BITS[dtype]
    if bits % 8 or bits // 8 != offsets[1] - offsets[0]:
        raise HeaderError(f"tensor {key!r}: {dtype} {shape} needs {bits / 8:g} bytes but "
                          f"data_offsets span {offsets[1] - offsets[0]}")
    return TensorInfo(key, dtype, tuple(shape), name, (offsets[0], offsets[1]))


def _natural(x: object) -> bool:
    return type(x) is int and 0 <= x < 2**64
