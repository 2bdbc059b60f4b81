"""Write config.json so that it is always the old or the new file, never a mix.

temp file in the same folder -> write -> fsync -> chmod to the old mode -> os.replace ->
fsync the folder; a backup of the old bytes first (written the same way); an exclusive
lock on the folder for the whole read-modify-write (released by the kernel if the process
dies, so a crash leaves no stale lock); then the file is read back and compared.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
import time
from pathlib import Path

LOCK_NAME = ".drafter-lint.lock"


class WriteError(OSError):
    """Writing was refused or failed; the original file is unchanged. One line."""


def _describe(exc: OSError) -> str:
    return {errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
            errno.EPERM: "operation not permitted", errno.ENOSPC: "no space left on device",
            errno.EDQUOT: "disk quota exceeded", errno.EIO: "I/O error"}.get(
        exc.errno, exc.strerror or str(exc))


@contextlib.contextmanager
def folder_lock(folder: Path, timeout: float = 30.0):
    """Hold an exclusive flock on `folder`/.drafter-lint.lock."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise WriteError(f"cannot write in {folder}: {_describe(exc)}") from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WriteError(f"another drafter-lint fix holds the lock on {folder} "
                                     f"(waited {timeout:g} s)") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace `path` by `data` atomically (same folder temp file, fsync, rename, fsync)."""
    folder = path.parent
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    temp = None
    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            view = memoryview(data)
            while view:
                view = view[handle.write(view):]
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
        temp = None
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {_describe(exc)}; the file is unchanged") \
            from None
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def remove_stale_temps(path: Path) -> None:
    """Delete temp files a killed writer left behind. Call only while holding the lock:
    then no other writer is using them."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()


def backup_name(path: Path) -> Path:
    """A backup path that does not exist yet: config.json.<UTC time>.bak."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{stamp}.{n}.bak")
        n += 1
    return candidate


def read_back(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
