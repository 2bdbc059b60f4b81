"""A progress bar on stderr, only when stderr is a terminal."""

from __future__ import annotations

import contextlib
import sys
import threading

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


SPINNER = "|/-\\"


@contextlib.contextmanager
def waiting(label: str, after: float = 1.0, stream=None, what: str = "the hub"):
    """On a terminal, one spinner line while something slow runs for more than `after`
    seconds (hub requests, the gate's dry run):
    `drafter-lint: waiting for the hub: org/name config.json |`."""
    stream = stream or sys.stderr
    # a collection's hub workers wait in threads: the progress line speaks for them
    if not getattr(stream, "isatty", lambda: False)() or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    stop, shown = threading.Event(), []
    text = f"drafter-lint: waiting for {what}: {one_line(label)}"[:110]

    def spin():
        if stop.wait(after):
            return
        for turn in range(1 << 30):
            if stop.is_set():
                break
            stream.write(f"\r{text} {SPINNER[turn % len(SPINNER)]}")
            stream.flush()
            shown.append(True)
            stop.wait(0.25)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(1.0)
        if shown:
            stream.write("\r" + " " * (len(text) + 2) + "\r")
            stream.flush()
