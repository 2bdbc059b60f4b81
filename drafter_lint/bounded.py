"""Read a file from an untrusted folder: regular files only, never more than a limit.

A FIFO, socket or device named like a checkpoint file would block `open()` or `read()`
forever; opening with O_NONBLOCK and checking fstat first makes every such file an
immediate error instead.
"""

from __future__ import annotations

import errno
import os
import stat

SMALL_FILE = 4 << 20   # settings, baselines and cache entries are a few KB


def read_text(path: str | os.PathLike, limit: int = SMALL_FILE) -> str:
    """A small regular file as UTF-8 text; OSError when it is special or over `limit`."""
    raw = read_regular(path, limit)
    if len(raw) > limit:
        raise OSError(errno.EFBIG, f"over the {limit >> 20} MiB limit for this file")
    return raw.decode("utf-8")


def special_kind(mode: int) -> str:
    """What a file that is not a regular one is: 'a folder', 'a FIFO', ..."""
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "a special file")


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The first `limit + 1` bytes of a regular file (callers refuse a longer result).

    Raises OSError: EINVAL with "not a regular file ..." for FIFOs, sockets and devices.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"not a regular file ({special_kind(info.st_mode)}); "
                                        f"not read")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
