"""The process that imports transformers, and the parent's handle on it.

`python -I -m drafter_lint.transformers_child` imports transformers at once, then answers
one load request per stdin line (drafter_lint/loading.py sends them and caches the
answers). This module imports only the standard library and drafter_lint.bounded at
import, so the child starts as fast as a bare `AutoConfig.from_pretrained`; `prewarm`
starts it before the checkpoint is read, when a load will be needed, so transformers'
import overlaps the parent's own start-up instead of following it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import select
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from drafter_lint.bounded import read_text
from drafter_lint.cache import cache_dir

CACHE_FORMAT = 1
# model_types runtimes read with their own config classes, not transformers' (the
# families that are: family.FAMILY_TABLE `transformers`)
NOT_TRANSFORMERS_MODEL_TYPES = ("eagle", "medusa", "speculators")
MAX_CONFIG = 4 << 20          # checkpoint.py's cap on config.json


@dataclass
class Loaded:
    transformers_version: str
    model_type: str | None
    config_class: str | None
    values: dict | None = None        # to_dict() of the loaded config
    error: str | None = None          # why loading failed, one line
    warnings: list[str] = field(default_factory=list)
    text_config: dict | None = None   # composite configs: the text model's values
    text_fields: list[str] = field(default_factory=list)
    cached: bool = False

    @property
    def label(self) -> str:
        return f"transformers {self.transformers_version} {self.config_class or ''}".strip()


def installed_version(name: str = "transformers") -> str | None:
    """The version of the installed distribution `name`, from its `NAME-VERSION.dist-info`
    folder on sys.path (what importlib.metadata finds first, without its email parser:
    a re-check should not pay 20 ms for it); importlib.metadata when that is unclear."""
    for entry in sys.path:
        try:
            names = [n for n in os.listdir(entry or ".")
                     if n.startswith(f"{name}-") and n.endswith(".dist-info")]
        except OSError:
            continue
        if len(names) == 1:
            return names[0][len(name) + 1:-len(".dist-info")]
        if names:
            break
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def cache_folder() -> Path:
    """Where the loads' results are cached (loading.py writes them)."""
    return cache_dir() / "loaded"


def cache_key(text: str, version: str, model_type: str | None) -> str:
    """The name of a load's cached result: (config bytes, transformers version, type)."""
    key = hashlib.sha256(json.dumps([CACHE_FORMAT, version, model_type, text]).encode())
    return key.hexdigest()


class Worker:
    """One loader child per drafter-lint process, answering requests in order, so
    transformers is imported once however many configs are loaded."""

    def __init__(self):
        # -I: no PYTHONPATH, no current folder on sys.path (nothing can shadow a module)
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-m", "drafter_lint.transformers_child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.sent = 0
        self.answers: dict[int, str] = {}
        self.received = 0

    def submit(self, request: dict) -> int:
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        self.sent += 1
        return self.sent

    def answer(self, ticket: int, deadline: float) -> str:
        while ticket not in self.answers:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout], [], [], max(left, 0))
            if not ready:
                raise TimeoutError
            line = self.process.stdout.readline()
            if not line:
                raise EOFError
            self.received += 1
            self.answers[self.received] = line.decode()
        return self.answers.pop(ticket)

    def stop(self) -> None:
        try:
            self.process.kill()
            self.process.wait(5)
        except Exception:  # noqa: BLE001 -- already gone
            pass


_WORKER: list = []          # this process's loader child, once started


def worker() -> Worker:
    """The running loader child, started if there is none (or it died)."""
    if not _WORKER or _WORKER[0].process.poll() is not None:
        _WORKER[:] = [Worker()]
    return _WORKER[0]


def forget(stopped: Worker) -> None:
    """Drop a child that failed: the next load starts a new one."""
    if _WORKER and _WORKER[0] is stopped:
        _WORKER.clear()


def _unused_at_exit() -> None:
    """A child started early that no load needed is stopped with the parent."""
    if _WORKER and _WORKER[0].sent == 0:
        _WORKER[0].stop()


atexit.register(_unused_at_exit)


def prewarm(folder, version: str | None, cache: Path | None) -> bool:
    """Start the loader child now when `folder`'s config.json will need a load: a
    model_type transformers reads, and no cached result in `cache` (None: --no-cache).
    Reads the config once (a special or oversized file: nothing is started); True when
    started."""
    config = Path(folder) / "config.json"
    if config.is_symlink():       # its target is the reader's to judge (outside the folder?)
        return False
    try:
        text = read_text(config, MAX_CONFIG)
        model_type = json.loads(text).get("model_type")
    except (OSError, ValueError, AttributeError, RecursionError):
        return False
    if version is None or not isinstance(model_type, str) or \
            model_type in NOT_TRANSFORMERS_MODEL_TYPES:
        return False
    if cache is not None and (cache / f"{cache_key(text, version, model_type)}.json").exists():
        return False
    worker()
    return True


def _load_now(text: str, version: str, model_type: str | None) -> Loaded:
    import logging

    class _Capture(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.messages: list[str] = []

        def emit(self, record):
            self.messages.append(record.getMessage().strip().splitlines()[0])

    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    loaded = Loaded(version, model_type, None)
    if model_type is None:
        loaded.error = "config.json has no model_type, so no transformers config class applies"
        return loaded
    if model_type not in CONFIG_MAPPING:
        loaded.error = f"transformers {version} has no config class for model_type {model_type!r}"
        return loaded
    cls = CONFIG_MAPPING[model_type]
    loaded.config_class = cls.__name__
    capture = _Capture()
    logger = transformers.utils.logging.get_logger("transformers")
    logger.addHandler(capture)
    transformers.utils.logging.disable_default_handler()
    try:
        with tempfile.TemporaryDirectory(prefix="drafter-lint-load-") as folder, \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Path(folder, "config.json").write_text(text, encoding="utf-8")
            try:
                config = cls.from_pretrained(folder)
            except Exception as exc:  # noqa: BLE001 -- what transformers refuses is a finding
                lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
                # transformers 5 puts the reason on the second line: keep it
                loaded.error = f"{type(exc).__name__}: {'; '.join(lines[:3])}"
                config = None
            loaded.warnings = capture.messages + [str(w.message).splitlines()[0] for w in caught]
    finally:
        logger.removeHandler(capture)
        transformers.utils.logging.enable_default_handler()
    if config is not None:
        loaded.values = json.loads(json.dumps(config.to_dict(), default=str))
        loaded.values.pop("_name_or_path", None)  # the temporary folder
        text_config = getattr(config, "text_config", None)
        if "text_config" in getattr(config, "sub_configs", {}) and text_config is not None:
            loaded.text_config = json.loads(json.dumps(text_config.to_dict(), default=str))
            loaded.text_fields = sorted(getattr(type(text_config), "__dataclass_fields__", {})
                                        or loaded.text_config)
    return loaded


if __name__ == "__main__":  # the loader child: one JSON request per line on stdin
    if not sys.flags.isolated:
        # Without -I, the current folder (a checkpoint holding a `transformers.py`) would
        # shadow the real package and its code would run: refuse, every load then fails.
        sys.exit("drafter_lint.transformers_child must run with python -I")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    import transformers  # noqa: F401 -- at once, while the parent still starts up
    from transformers.models.auto import configuration_auto  # noqa: F401
    for line in sys.stdin:
        request = json.loads(line)
        result = _load_now(request["text"], request["version"], request["model_type"])
        sys.stdout.write(json.dumps(asdict(result), default=str) + "\n")
        sys.stdout.flush()
