"""Which modules a checkpoint's `quantization_config` quantizes, and how a module's
weights are stored, as vLLM decides it (vllm==0.33.0, cited per function).

Only the methods whose exclusion rules are read here are answered; any other method is
None ("unknown"), so a rule stays quiet rather than guess.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch

# Sibling tensors only a quantized linear stores (compressed-tensors packed, ModelOpt
# NVFP4/FP8, block FP8).
QUANT_SIBLINGS = ("weight_packed", "weight_scale", "weight_scale_inv", "weight_scale_2")
PLAIN_DTYPES = frozenset({"BF16", "F16", "F32", "F64"})
NOT_TARGETED = "(no config_groups target)"


def method(qconfig: dict) -> str | None:
    value = qconfig.get("quant_method")
    return value if value in ("compressed-tensors", "modelopt") else None


def excluded_by(module: str, qconfig: dict) -> str | None:
    """The `ignore` entry that keeps `module` unquantized, "" when it is quantized,
    None when the method's rules are not known here.

    compressed-tensors: exact name or `re:` regex matched from the start
    (quantization/utils/config_utils.py:432-456, compressed_tensors/utils.py:53-70).
    ModelOpt: exact, substring, or shell wildcard of `ignore` / `exclude_modules`
    (quantization/modelopt.py:191-226, 359).
    """
    kind = method(qconfig)
    if kind == "compressed-tensors":
        if not _targeted(module, qconfig):
            return NOT_TARGETED
        for entry in _list(qconfig.get("ignore")):
            if entry.startswith("re:") and _regex_match(entry[3:], module) or entry == module:
                return entry
        return ""
    if kind == "modelopt":
        if "ignore" not in qconfig and "exclude_modules" not in qconfig:
            return None  # the list may live in hf_quant_config.json, not read here
        for entry in _list(qconfig.get("ignore", qconfig.get("exclude_modules"))):
            if entry == module or entry in module or fnmatch(module, entry):
                return entry
        return ""
    return None


def stored_quantized(module: str, names, weights: dict) -> bool | None:
    """True when `module`'s weights are stored quantized (a scale or packed tensor beside
    it, or an integer/float8 weight), False when stored as a plain float weight, None
    when the weights do not hold the module or its header was not read."""
    if any(f"{module}.{s}" in names for s in QUANT_SIBLINGS):
        return True
    if f"{module}.weight" not in names:
        return None
    info = (weights or {}).get(f"{module}.weight")
    return None if info is None else info.dtype not in PLAIN_DTYPES


def _targeted(module: str, qconfig: dict) -> bool:
    groups = qconfig.get("config_groups")
    if not isinstance(groups, dict):
        return False
    for group in groups.values():
        for target in _list(group.get("targets") if isinstance(group, dict) else None):
            if target == "Linear" or target == module or \
                    target.startswith("re:") and _regex_match(target[3:], module):
                return True
    return False


def _regex_match(pattern: str, value: str) -> bool:
    try:
        return re.match(pattern, value) is not None
    except re.error:
        return False


def _list(value) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
