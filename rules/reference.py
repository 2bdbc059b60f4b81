"""Rules that hold config.json against a published reference config (deepdiff).

Every difference is one finding at its pointer; a difference inside a list is reported
once, at the list. Severity comes from who reads the field: runtime fields are errors,
fields nothing reads at serving time are info, the rest warnings. The fix copies the
reference value; it is safe (the user named the reference; `fix` prints the commit the
values came from), except removing a key only the local file has, which is unsafe.
"""

from __future__ import annotations

import json

from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import Finding, add, remove, replace
from drafter_lint.jsondoc import dotted, pointer, resolve
from drafter_lint.readonly import writable
from drafter_lint.registry import rule
from drafter_lint.structure import field_classes

DTYPE_SPELLINGS = ("torch_dtype", "dtype")


def _value(document: dict, ptr: str):
    try:
        return resolve(document, ptr)
    except KeyError:
        return MISSING


def _show(value) -> str:
    return "absent" if value is MISSING else json.dumps(value)


def differences(facts: Facts) -> list[tuple[str, str, object, object]]:
    """(class, pointer, local, reference) per difference; class is runtime/other/cosmetic."""
    return facts.once("reference-differences", _differences)


def _differences(facts: Facts) -> list[tuple[str, str, object, object]]:
    from deepdiff import DeepDiff

    # DeepDiff counts a read-only dict against a plain one as a change of type: compare
    # plain copies
    local, published = facts.config, writable(facts.reference.config)
    runtime, cosmetic, _ = field_classes(facts.families)
    out: list = []
    spelled = _dtype_spelling(local, published)
    if spelled:
        out.append(("cosmetic", *spelled))
    seen: set[str] = set()
    diff = DeepDiff(published, local, view="tree", verbose_level=2, threshold_to_diff_deeper=0)
    for levels in diff.values():
        for level in levels:
            tokens = level.path(output_format="list")
            if not tokens:
                continue  # both are objects: the root itself never differs
            cut = next((i for i, t in enumerate(tokens) if isinstance(t, int)), len(tokens))
            ptr = pointer(*tokens[:cut]) if cut else pointer(*tokens[:1])
            if ptr in seen or (spelled and ptr in ("/torch_dtype", "/dtype")):
                continue
            seen.add(ptr)
            key = str(tokens[0])
            kind = ("runtime" if key in runtime else "cosmetic" if key in cosmetic else "other")
            out.append((kind, ptr, _value(local, ptr), _value(published, ptr)))
    out.sort(key=lambda d: d[1])
    return out


def _dtype_spelling(local: dict, published: dict):
    """A dtype written as `torch_dtype` on one side and `dtype` on the other, same value."""
    for mine, theirs in (DTYPE_SPELLINGS, DTYPE_SPELLINGS[::-1]):
        if (mine in local and theirs in published and mine not in published
                and theirs not in local and local[mine] == published[theirs]):
            return f"/{mine}", local[mine], MISSING
    return None


def _findings(facts: Facts, kind: str):
    reference = facts.reference
    for cls, ptr, mine, theirs in differences(facts):
        if cls != kind:
            continue
        field = dotted(ptr)
        if kind == "cosmetic" and ptr in ("/torch_dtype", "/dtype") and theirs is MISSING \
                and _dtype_spelling(facts.config, reference.config):
            other = "dtype" if ptr == "/torch_dtype" else "torch_dtype"
            yield Finding(ptr, f"{field} is {_show(mine)} here; {reference.display} spells it "
                          f"{other} (same value, transformers reads either)")
            continue
        # The user named the reference: copying its values is safe (its revision was
        # resolved to one commit, printed by `fix`). A key only the local file has
        # (`description`, `_name_or_path`) is removed only as an unsafe fix.
        if theirs is MISSING:
            fix = remove(ptr, "unsafe")
        elif mine is MISSING:
            fix = add(ptr, theirs, "safe")
        else:
            fix = replace(ptr, theirs, "safe")
        why = {"runtime": "a runtime reads this field",
               "other": "check which one is right",
               "cosmetic": "nothing reads it at serving time"}[kind]
        yield Finding(ptr, f"{field} is {_show(mine)} here but {_show(theirs)} in "
                      f"{reference.display} ({why})", fix=fix)


@rule("REF101", "runtime-field-differs-from-reference", "error", "any",
      needs=("config", "reference"), fix="always", applies="safe")
def runtime_field_differs(facts: Facts):
    """A field a runtime reads differs from the published config.

    The incident this tool exists for: the local config.json of z-lab/Qwen3.6-27B-DFlash
    still held guessed `mask_token_id`, `target_layer_ids` and `layer_types` /
    `sliding_window`; nothing errored and acceptance fell to 1.1%. Runtime fields (for
    DFlash: everything in `dflash_config`, the geometry, vocab, layer kinds, window,
    block size, RoPE and causality flags) must equal the published ones. Type changes
    count: `2048` and `"2048"`, `1` and `true` differ.

    Fails: `"mask_token_id": 151669` here, `248070` in the reference.
    Passes: equal values and types.
    Fix (safe): the reference value, from a commit sha (`--from-hub org/name@<sha>`), a
    branch resolved to its commit once, or a local folder.
    Fix (unsafe): removing a key only the local file has.
    """
    yield from _findings(facts, "runtime")


@rule("REF102", "field-differs-from-reference", "warning", "any",
      needs=("config", "reference"), fix="always", applies="safe")
def field_differs(facts: Facts):
    """A field that is neither a known runtime field nor cosmetic differs from the reference.

    It may be read by a runtime this tool does not model; make sure the local value is
    intended.

    Fails: `"bos_token_id": 1` here, `248044` in the reference.
    Passes: equal values.
    Fix (safe): the reference value. Fix (unsafe): removing a key only the local file has.
    """
    yield from _findings(facts, "other")


@rule("REF103", "cosmetic-field-differs-from-reference", "info", "any",
      needs=("config", "reference"), fix="sometimes", applies="safe")
def cosmetic_field_differs(facts: Facts):
    """A field nothing reads at serving time differs from the reference.

    `transformers_version`, `torch_dtype` written as `dtype`, `use_cache`,
    `initializer_range` and the like: worth knowing, harmless.

    Fails: `"transformers_version": "4.57.3"` here, `"5.15.0"` in the reference.
    Passes: equal values.
    Fix (safe): the reference value. Fix (unsafe): removing a key only the local file has.
    """
    yield from _findings(facts, "cosmetic")
