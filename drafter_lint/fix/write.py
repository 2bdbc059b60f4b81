"""Write config.json so that it is always the old or the new file, never a mix.

temp file in the same folder -> write -> fsync -> chmod to the old mode -> os.replace ->
fsync the folder; a backup of the old bytes first (written the same way); an exclusive
lock on the file for the whole read-modify-write (released by the kernel if the process
dies, so a crash leaves no stale lock); then the file is read back and compared.

The lock and the backups live in the cache dir (`<cache>/locks`, `<cache>/backups`),
keyed by the file's real path: after a fix the model folder holds nothing new.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import tempfile
import time
from pathlib import Path

from drafter_lint.cache import cache_dir
from drafter_lint.errors import WriteError


def _describe(exc: OSError) -> str:
    return {errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
            errno.EPERM: "operation not permitted", errno.ENOSPC: "no space left on device",
            errno.EDQUOT: "disk quota exceeded", errno.EIO: "I/O error"}.get(
        exc.errno, exc.strerror or str(exc))


def _key(path: Path) -> str:
    """A stable name for the file `path` really is (symlinks resolved)."""
    return hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:24]


def _state_dir(kind: str) -> Path:
    folder = cache_dir() / kind
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"cannot create {folder} (set DRAFTER_LINT_CACHE_DIR): "
                         f"{_describe(exc)}") from None
    return folder


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 30.0):
    """Hold an exclusive flock keyed by `path`'s real path, in the cache dir."""
    lock = _state_dir("locks") / f"{_key(path)}.lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise WriteError(f"cannot create the lock {lock}: {_describe(exc)}") from None
    folder = path.parent
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


def atomic_write(path: Path, data: bytes, mode: int | None = None,
                 durable: bool = True) -> None:
    """Replace `path` by `data` atomically (same folder temp file, fsync, rename, fsync).
    `durable=False` (cache entries) skips the fsyncs: a lost entry only costs time."""
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
            if durable:
                os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
        temp = None
        if durable:
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


def backup_folder(path: Path) -> Path:
    """`<cache>/backups/<key>/`, holding `source` (the file's real path) and the backups."""
    folder = _state_dir("backups") / _key(path)
    try:
        folder.mkdir(exist_ok=True)
        (folder / "source").write_text(os.path.realpath(path) + "\n", encoding="utf-8")
    except OSError as exc:
        raise WriteError(f"cannot write the backup in {folder}: {_describe(exc)}") from None
    return folder


def backup_name(path: Path) -> Path:
    """A backup path that does not exist yet: <backup folder>/config.json.<UTC time>.bak."""
    folder = backup_folder(path)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = folder / f"{path.name}.{stamp}.bak"
    n = 1
    while candidate.exists():
        candidate = folder / f"{path.name}.{stamp}.{n}.bak"
        n += 1
    return candidate


def backups_of(path: Path) -> list[Path]:
    """The backups kept of `path`, oldest first."""

    folder = cache_dir() / "backups" / _key(path)
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{path.name}.*.bak"), key=lambda p: _order(path.name, p.name))


def _order(name: str, backup: str) -> tuple[str, int]:
    """(UTC stamp, n) of `<name>.<stamp>[.<n>].bak`: the second and third backups of one
    second come after the first (a plain name sort puts `.bak` after `.1.bak`)."""
    stamp, _, n = backup[len(name) + 1:-len(".bak")].partition(".")
    return stamp, int(n) if n.isdigit() else 0


def read_back(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
