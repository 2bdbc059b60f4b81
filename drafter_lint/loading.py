"""What transformers actually loads from a config.json. The only module importing it.

The config text is written to a private temporary folder and loaded there with the
config class registered for its `model_type` (no AutoConfig remote code, no
`trust_remote_code`, nothing from the checkpoint folder is importable). The result is
cached per (config bytes, transformers version, class), so an unchanged checkpoint is
re-checked without importing transformers.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

CACHE_FORMAT = 1
# The class the reference code of a family uses when model_type names none.
FAMILY_MODEL_TYPE = {"dflash": "qwen3"}
# Families whose config.json runtimes read with their own config classes, not transformers'.
NOT_TRANSFORMERS = ("medusa", "speculators")
NOT_TRANSFORMERS_MODEL_TYPES = ("eagle", "medusa", "speculators")


def loads_through_transformers(family: str, config: dict | None) -> bool:
    model_type = (config or {}).get("model_type")
    return not family.startswith(NOT_TRANSFORMERS) and \
        model_type not in NOT_TRANSFORMERS_MODEL_TYPES


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


def transformers_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("transformers")
    except metadata.PackageNotFoundError:
        return None


def cache_dir() -> Path:
    root = os.environ.get("DRAFTER_LINT_CACHE_DIR")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "drafter-lint" if xdg else Path.home() / ".cache" / "drafter-lint"


def _model_type(text: str, family: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    model_type = value.get("model_type") if isinstance(value, dict) else None
    return model_type if isinstance(model_type, str) else FAMILY_MODEL_TYPE.get(family)


def load(text: str, family: str = "unknown", use_cache: bool = True) -> Loaded | None:
    """Load `text` as transformers does; None when transformers is not installed."""
    version = transformers_version()
    if version is None:
        return None
    model_type = _model_type(text, family)
    key = hashlib.sha256(json.dumps([CACHE_FORMAT, version, model_type, text]).encode())
    path = cache_dir() / "loaded" / f"{key.hexdigest()}.json"
    if use_cache:
        try:
            cached = Loaded(**json.loads(path.read_text(encoding="utf-8")))
            cached.cached = True
            return cached
        except (OSError, ValueError, TypeError):
            pass
    loaded = _load_now(text, version, model_type)
    if use_cache:
        _store(path, loaded)
    return loaded


def _store(path: Path, loaded: Loaded) -> None:
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(loaded) | {"cached": False}, handle, default=str)
        os.replace(temp, path)
    except OSError:
        pass  # a cache that cannot be written only costs time


def _load_now(text: str, version: str, model_type: str | None) -> Loaded:
    import logging
    import tempfile
    import warnings

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
                message = str(exc).strip().splitlines()
                loaded.error = f"{type(exc).__name__}: {message[0] if message else ''}"
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
