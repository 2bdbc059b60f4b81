"""A progress bar on stderr, only when stderr is a terminal."""

from __future__ import annotations

import sys

from drafter_lint.findings import one_line


class Progress:
    def __init__(self, total: int, label: str, stream=None, minimum: int = 2):
        self.stream = stream or sys.stderr
        self.total, self.label, self.done = total, label, 0
        self.enabled = total >= minimum and getattr(self.stream, "isatty", lambda: False)()

    def step(self, name: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 24
        filled = width * self.done // max(self.total, 1)
        text = f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] " \
               f"{self.done}/{self.total} {one_line(name)}"
        self.stream.write(text[:120].ljust(120))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 120 + "\r")
            self.stream.flush()
