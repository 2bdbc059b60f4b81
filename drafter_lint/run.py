"""One lint run: the options `pipeline.prepare` resolved, and what the run's stages learn
as they go (the hub folders read before download, the hub's listing, the targets the
model cards name). `prepare` makes it; every stage that reads or lints takes it
explicitly, so two runs in one process share nothing."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint.options import Options
from drafter_lint.target import Target


@dataclass
class Run:
    options: Options                      # what the command line asks, frozen
    offline: bool = False                 # --offline: the hub cache only
    # repo -> (main's commit, file names), as the hub's listing returned them
    listed: dict[str, tuple[str, frozenset]] = field(default_factory=dict)
    # materialized hub folder (resolved) -> "org/name@<commit>"
    remote: dict[str, str] = field(default_factory=dict)
    # base_model repo -> its Target (None: it could not be read), read once
    card_targets: dict[str, Target | None] = field(default_factory=dict)
    # base_model repo -> why the hub has no such repo or revision (CRD104)
    card_missing: dict[str, str] = field(default_factory=dict)
    # base_model repo -> what reading it as the target said (collections' verdicts)
    said: dict[str, str] = field(default_factory=dict)
    _locks: dict[str, threading.Lock] = field(default_factory=dict, repr=False)
    _locks_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def remember(self, folder, display: str) -> None:
        """Record a materialized hub folder (`remote.materialize`) as the repo it is."""
        self.remote[str(Path(folder).resolve())] = display

    def display_of(self, root) -> str | None:
        """"org/name@<commit>" when `root` is a hub repo's folder read before download."""
        return self.remote.get(str(Path(root).resolve()))

    def repo_of(self, root) -> str | None:
        """"org/name" when `root` is a hub repo's folder read before download, else None."""
        display = self.display_of(root)
        return display.rsplit("@", 1)[0] if display else None

    def target_lock(self, base: str) -> threading.Lock:
        """The lock of one base_model: drafters sharing a target wait for its one read."""
        with self._locks_lock:
            return self._locks.setdefault(base, threading.Lock())
