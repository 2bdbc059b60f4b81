"""What transformers actually loads from a config.json.

The load runs in a child process (drafter_lint/transformers_child.py, the only module
importing transformers), started as soon as a load is known to be needed (before the
checkpoint is read: `transformers_child.prewarm`, else when the config is read) so it
overlaps the other rules, and bounded by a timeout: a hostile config cannot crash or hang
drafter-lint itself. There the config text is written to a private temporary folder and
loaded with the config class registered for its `model_type` (no AutoConfig remote code,
no `trust_remote_code`, nothing from the checkpoint folder is importable). The result is
cached per (config bytes, transformers version, model type), so an unchanged checkpoint is
re-checked without starting it.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from drafter_lint import transformers_child as child
from drafter_lint.bounded import read_text
from drafter_lint.family import loader_model_type, through_transformers
from drafter_lint.transformers_child import NOT_TRANSFORMERS_MODEL_TYPES, Loaded
from drafter_lint.fix.write import atomic_write

__all__ = ["Loaded", "Pending", "load", "loads_through_transformers", "start",
           "transformers_version"]


def loads_through_transformers(family: str, config: dict | None) -> bool:
    model_type = (config or {}).get("model_type")
    return through_transformers(family) and model_type not in NOT_TRANSFORMERS_MODEL_TYPES


@lru_cache(maxsize=1)
def transformers_version() -> str | None:
    return child.installed_version("transformers")


def _model_type(text: str, family: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    model_type = value.get("model_type") if isinstance(value, dict) else None
    return model_type if isinstance(model_type, str) else loader_model_type(family)


TIMEOUT_S = 120


class Pending:
    """A load under way in the loader child; `result()` waits for it."""

    def __init__(self, text: str, version: str, model_type: str | None,
                 path: Path | None):
        self.version, self.model_type, self.path = version, model_type, path
        self._done: Loaded | None = None
        self._worker = child.worker()
        self._ticket = self._worker.submit({"text": text, "version": version,
                                            "model_type": model_type})

    def result(self) -> Loaded:
        if self._done is not None:
            return self._done

        try:
            loaded = Loaded(**json.loads(self._worker.answer(
                self._ticket, time.monotonic() + TIMEOUT_S)))
        except (TimeoutError, EOFError, ValueError, TypeError, OSError) as exc:
            self._worker.stop()
            child.forget(self._worker)
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
    path = child.cache_folder() / f"{child.cache_key(text, version, model_type)}.json"
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
