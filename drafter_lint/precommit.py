"""Under pre-commit, lint each checkpoint folder once per run, even across batches.

pre-commit splits long file lists into batches; with `require_serial: true` they run one
after another as children of the same pre-commit process. The folders already linted in
this run are kept in a small state file keyed by that parent process (pid and start
time), so a folder whose files fall into two batches is linted once.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def _state_file() -> Path | None:
    if os.environ.get("PRE_COMMIT") != "1":
        return None
    parent = os.getppid()
    try:
        with open(f"/proc/{parent}/stat", encoding="ascii") as handle:
            started = handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None
    return Path(tempfile.gettempdir()) / f"drafter-lint-pre-commit-{parent}-{started}.json"


def already_linted() -> set[str]:
    path = _state_file()
    if path is None:
        return set()
    try:
        return set(json.loads(path.read_text()))
    except (OSError, ValueError):
        return set()


def remember(folders) -> None:
    path = _state_file()
    if path is None:
        return
    seen = already_linted() | {str(Path(f).resolve()) for f in folders}
    try:
        path.write_text(json.dumps(sorted(seen)))
    except OSError:
        pass
