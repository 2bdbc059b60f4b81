"""JSON Schema validation of config.json against the family schemas in `schemas/`."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from drafter_lint import jsondoc
from drafter_lint.findings import Finding


@lru_cache(maxsize=None)
def load_schema(family: str) -> dict | None:
    """The schema shipped for `family`, or None when there is none."""
    path = resources.files("drafter_lint.schemas").joinpath(f"{family}.schema.json")
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _strict_integer(checker, instance) -> bool:
    return type(instance) is int  # no bools, no 2048.0


@lru_cache(maxsize=None)
def _validator_class():
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer)
    return validators.extend(Draft202012Validator, type_checker=checker)


def validate(config: dict, schema: dict, use_cache: bool = True):
    """Yield one Finding per schema violation, at the offending value's pointer. Results are
    cached per (config, schema), so an unchanged config is not validated (nor jsonschema
    imported) again."""
    import hashlib
    import os

    from drafter_lint import __version__
    from drafter_lint.loading import cache_dir

    key = hashlib.sha256(json.dumps([__version__, schema, config], sort_keys=True,
                                    default=repr).encode()).hexdigest()
    path = cache_dir() / "schema" / f"{key}.json"
    if use_cache:
        try:
            cached = json.loads(path.read_text(encoding="utf-8"))
            yield from (Finding(p, m) for p, m in cached)
            return
        except (OSError, ValueError, TypeError):
            pass
    found = list(_validate(config, schema))
    if use_cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_suffix(f".{os.getpid()}.tmp")
            temp.write_text(json.dumps([[f.pointer, f.message] for f in found]))
            os.replace(temp, path)
        except OSError:
            pass
    yield from found


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
