"""JSON Schema validation of config.json against the family schemas in `schemas/`."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources

from drafter_lint import __version__, jsondoc
from drafter_lint.bounded import read_text
from drafter_lint.cache import cache_dir
from drafter_lint.findings import Finding
from drafter_lint.fix.write import atomic_write


@lru_cache(maxsize=None)
def load_schema(family: str) -> dict | None:
    """The schema shipped for `family`, or None when there is none."""
    path = resources.files("drafter_lint.schemas").joinpath(f"{family}.schema.json")
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _field_tables() -> dict:
    path = resources.files("drafter_lint.schemas").joinpath("fields.json")
    return json.loads(path.read_text(encoding="utf-8"))


def field_classes(families) -> tuple[frozenset, frozenset, frozenset]:
    """(runtime, cosmetic, unwritten-matters) fields of config.json for the given rule
    families (schemas/fields.json): what REF101-REF103, TF102 and TF103 go by."""
    tables = _field_tables()
    chosen = [tables[f] for f in sorted(families) if f in tables] or [tables["default"]]
    runtime = frozenset(k for t in chosen for k in t["runtime"])
    cosmetic = frozenset(k for t in chosen for k in t["cosmetic"]) - runtime
    unwritten = frozenset(k for t in chosen for k in t["unwritten"])
    return runtime, cosmetic, unwritten


def _strict_integer(checker, instance) -> bool:
    return type(instance) is int  # no bools, no 2048.0


@lru_cache(maxsize=None)
def _validator_class():
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer)
    return validators.extend(Draft202012Validator, type_checker=checker)


_MEMO: dict[str, list] = {}


@lru_cache(maxsize=None)
def _schema_digest(schema_json: str) -> str:
    return hashlib.sha256(schema_json.encode()).hexdigest()


def validate(config: dict, schema: dict, use_cache: bool = True, source: str | None = None):
    """Yield one Finding per schema violation, at the offending value's pointer.

    With `use_cache`, results are kept per (schema, `source`: the exact text `config` was
    parsed from) in memory and on disk, so an unchanged config is not validated (nor
    jsonschema imported) again."""
    if not use_cache or source is None:
        yield from _validate(config, schema)
        return

    digest = _schema_digest(json.dumps(schema, sort_keys=True))
    key = hashlib.sha256(f"{__version__}\0{digest}\0{source}".encode()).hexdigest()
    found = _MEMO.get(key)
    path = cache_dir() / "schema" / f"{key}.json"
    if found is None:
        try:
            found = json.loads(read_text(path))
        except (OSError, ValueError):
            found = [[f.pointer, f.message] for f in _validate(config, schema)]
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, json.dumps(found).encode(), 0o644, durable=False)
            except OSError:
                pass
        _MEMO[key] = found
    yield from (Finding(p, m) for p, m in found)


def _validate(config: dict, schema: dict):
    validator = _validator_class()(schema)
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.path))):
        ptr = jsondoc.pointer(*error.absolute_path)
        field = "/".join(map(str, error.absolute_path)) or "config"
        description = error.schema.get("description") if isinstance(error.schema, dict) else None
        if description is None:
            description = _property_description(schema, list(error.absolute_path))
        why = f" ({description})" if description else ""
        yield Finding(ptr, f"{field}: {_short(error)}{why}")


def _short(error) -> str:
    if error.validator == "type":
        return f"{json.dumps(error.instance)} is not of type {error.validator_value!r}"
    message = error.message
    return message if len(message) <= 160 else message[:157] + "..."


def _property_description(schema: dict, path: list) -> str | None:
    node = schema
    for token in path:
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        if isinstance(token, str) and token in props:
            node = props[token]
        elif isinstance(token, int) and isinstance(node, dict) and "items" in node:
            node = node["items"]
        else:
            return None
    return node.get("description") if isinstance(node, dict) else None
