"""What transformers actually loads from a config.json. The only module importing it.

The load runs in a child process (`python -m drafter_lint.loading`), started as soon as
the config is read so it overlaps the other rules, and bounded by a timeout: a hostile
config cannot crash or hang drafter-lint itself. There the config text is written to a
private temporary folder and loaded with the config class registered for its
`model_type` (no AutoConfig remote code, no `trust_remote_code`, nothing from the
checkpoint folder is importable). The result is cached per (config bytes, transformers
version, model type), so an unchanged checkpoint is re-checked without starting it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import select
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from drafter_lint.bounded import read_text
from drafter_lint.cache import cache_dir
from drafter_lint.family import loader_model_type, through_transformers
from drafter_lint.write import atomic_write

CACHE_FORMAT = 1
# model_types runtimes read with their own config classes, not transformers' (the
# families that are: family.FAMILY_TABLE `transformers`)
NOT_TRANSFORMERS_MODEL_TYPES = ("eagle", "medusa", "speculators")


def loads_through_transformers(family: str, config: dict | None) -> bool:
    model_type = (config or {}).get("model_type")
    return through_transformers(family) and model_type not in NOT_TRANSFORMERS_MODEL_TYPES


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


@lru_cache(maxsize=1)
def transformers_version() -> str | None:
    try:
        return metadata.version("transformers")
    except metadata.PackageNotFoundError:
        return None


def _model_type(text: str, family: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    model_type = value.get("model_type") if isinstance(value, dict) else None
    return model_type if isinstance(model_type, str) else loader_model_type(family)


TIMEOUT_S = 120


class _Worker:
    """One loader child per drafter-lint process, answering requests in order, so
    transformers is imported once however many configs are loaded."""

    def __init__(self):
        # -I: no PYTHONPATH, no current folder on sys.path (nothing can shadow a module)
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-m", "drafter_lint.loading"], stdin=subprocess.PIPE,
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


_WORKER: _Worker | None = None


def _worker() -> _Worker:
    global _WORKER
    if _WORKER is None or _WORKER.process.poll() is not None:
        _WORKER = _Worker()
    return _WORKER


class Pending:
    """A load under way in the loader child; `result()` waits for it."""

    def __init__(self, text: str, version: str, model_type: str | None,
                 path: Path | None):
        self.version, self.model_type, self.path = version, model_type, path
        self._done: Loaded | None = None
        self._worker = _worker()
        self._ticket = self._worker.submit({"text": text, "version": version,
                                            "model_type": model_type})

    def result(self) -> Loaded:
        global _WORKER
        if self._done is not None:
            return self._done

        try:
            loaded = Loaded(**json.loads(self._worker.answer(
                self._ticket, time.monotonic() + TIMEOUT_S)))
        except (TimeoutError, EOFError, ValueError, TypeError, OSError) as exc:
            self._worker.stop()
            _WORKER = None
            why = (f"loading did not finish within {TIMEOUT_S} s"
                   if isinstance(exc, TimeoutError) else "the loader process failed")
            loaded = Loaded(self.version, self.model_type, None, error=why)
        else:
            if self.path is not None:
                _store(self.path, loaded)
        self._done = loaded
        return loaded


def start(text: str, family: str = "unknown", use_cache: bool = True) -> Loaded | Pending | None:
    """A cached result, or a load started in a child process; None without transformers."""
    version = transformers_version()
    if version is None:
        return None
    model_type = _model_type(text, family)
    key = hashlib.sha256(json.dumps([CACHE_FORMAT, version, model_type, text]).encode())
    path = cache_dir() / "loaded" / f"{key.hexdigest()}.json"
    if use_cache:
        if str(path) in _SEEN:
            return _SEEN[str(path)]
        try:
            cached = Loaded(**json.loads(read_text(path)))
            cached.cached = True
            _SEEN[str(path)] = cached
            return cached
        except (OSError, ValueError, TypeError):
            pass
    return Pending(text, version, model_type, path if use_cache else None)


_SEEN: dict[str, Loaded] = {}   # cache entries already read in this process


def load(text: str, family: str = "unknown", use_cache: bool = True) -> Loaded | None:
    """Load `text` as transformers does (waiting for it); None without transformers."""
    started = start(text, family, use_cache)
    return started.result() if isinstance(started, Pending) else started


def _store(path: Path, loaded: Loaded) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(asdict(loaded) | {"cached": False},
                                      default=str).encode(), 0o644, durable=False)
    except OSError:
        pass  # a cache that cannot be written only costs time


def _load_now(text: str, version: str, model_type: str | None) -> Loaded:
    class _Capture(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.messages: list[str] = []

        def emit(self, record):
            self.messages.append(record.getMessage().strip().splitlines()[0])

    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
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
    import sys

    if not sys.flags.isolated:
        # Without -I, the current folder (a checkpoint holding a `transformers.py`) would
        # shadow the real package and its code would run: refuse, every load then fails.
        sys.exit("drafter_lint.loading must run with python -I")
    for line in sys.stdin:
        request = json.loads(line)
        result = _load_now(request["text"], request["version"], request["model_type"])
        sys.stdout.write(json.dumps(asdict(result), default=str) + "\n")
        sys.stdout.flush()
