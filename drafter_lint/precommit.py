"""Under pre-commit, lint each checkpoint folder once per hook run, even across batches.

pre-commit splits long file lists into batches; with `require_serial: true` they run one
after another as children of the same pre-commit process. The folders already linted are
kept in a state file keyed by that parent process (pid and start time) *and* the hook's
own options (its arguments minus the file names), so two drafter-lint hooks with
different options in one run never skip each other's work. Each folder is kept with a
fingerprint of its files (names, sizes, modification times): a folder changed since it was
linted is linted again (a hook script that checks, edits and checks again). State files
live in the cache dir and are removed once they are a day old.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from drafter_lint.bounded import read_text
from drafter_lint.cache import cache_dir

STALE_S = 24 * 3600


def _state_file() -> Path | None:
    if os.environ.get("PRE_COMMIT") != "1":
        return None
    parent = os.getppid()
    try:
        with open(f"/proc/{parent}/stat", encoding="ascii") as handle:
            started = handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None
    options = [a for a in sys.argv[1:] if not os.path.exists(a)]
    key = hashlib.sha256(json.dumps([parent, started, options]).encode()).hexdigest()[:32]

    folder = cache_dir() / "pre-commit"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    _prune(folder)
    return folder / f"{key}.json"


def _prune(folder: Path) -> None:
    now = time.time()
    for old in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            if now - old.stat().st_mtime > STALE_S:
                old.unlink()


def fingerprint(folder: str) -> str:
    """The names, sizes and modification times of `folder`'s files (links not followed)."""
    entries = []
    with contextlib.suppress(OSError):
        with os.scandir(folder) as listing:
            for entry in listing:
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    entries.append((entry.name, info.st_size, info.st_mtime_ns))
    return hashlib.sha256(json.dumps(sorted(entries)).encode()).hexdigest()[:32]


def _recorded(path: Path) -> dict[str, str]:
    try:
        data = json.loads(read_text(path))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def already_linted() -> set[str]:
    """The folders this hook run has linted and that have not changed since."""
    path = _state_file()
    if path is None:
        return set()
    return {folder for folder, mark in _recorded(path).items()
            if mark == fingerprint(folder)}


def remember(folders) -> None:
    path = _state_file()
    if path is None:
        return
    seen = _recorded(path)
    seen.update({str(Path(f).resolve()): fingerprint(str(Path(f).resolve()))
                 for f in folders})
    with contextlib.suppress(OSError):
        path.write_text(json.dumps(seen, sort_keys=True))
