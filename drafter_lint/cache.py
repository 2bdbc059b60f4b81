"""Where drafter-lint keeps its state: result caches, backups, locks, hub reads."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """DRAFTER_LINT_CACHE_DIR, else $XDG_CACHE_HOME/drafter-lint, else ~/.cache/drafter-lint."""
    root = os.environ.get("DRAFTER_LINT_CACHE_DIR")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "drafter-lint" if xdg else Path.home() / ".cache" / "drafter-lint"
