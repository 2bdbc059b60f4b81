"""One view of a checkpoint's quantization: which description the runtime reads (config.json's
`quantization_config`, else `hf_quant_config.json`), and for a module name whether that
description builds it quantized, as vLLM decides it (vllm==0.33.0, cited per method).

A method whose exclusion rules are not modelled answers `UNKNOWN`, so a rule stays quiet
rather than guess. Module names are the checkpoint's (`mtp.layers.0.self_attn.q_proj`);
experts are asked as their MoE layer (`mtp.layers.0.mlp.experts`).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from fnmatch import fnmatch

from drafter_lint.jsondoc import strings

# Sibling tensors only a quantized linear stores (compressed-tensors packed, ModelOpt
# NVFP4/FP8, block FP8, GPTQ/AWQ, Quark MXFP4).
QUANT_SIBLINGS = ("weight_packed", "weight_scale", "weight_scale_inv", "weight_scale_2",
                  "qweight", "scales", "qzeros")
PLAIN_DTYPES = frozenset({"BF16", "F16", "F32", "F64"})
QUANT_FILE = "hf_quant_config.json"


class Built(enum.Enum):
    """How a release builds one module under a scheme."""

    QUANTIZED = "quantized"
    EXCLUDED = "excluded"        # an entry of the method's list keeps it unquantized
    UNLISTED = "unlisted"        # no list names it, and it is still built unquantized
    BY_DTYPE = "by-dtype"        # the release lists the modules whose stored weights are float
    UNKNOWN = "unknown"          # the method's rules are not modelled


@dataclass(frozen=True)
class Decision:
    """How a module is built, and by what: the list's entry (EXCLUDED), or a reason in
    parentheses (UNLISTED, BY_DTYPE)."""

    built: Built
    by: str = ""

    @property
    def unquantized(self) -> bool:
        """Built unquantized, by an entry or a reason (not as stored, not unknown)."""
        return self.built in (Built.EXCLUDED, Built.UNLISTED)


def excluded(entry: str) -> Decision:
    return Decision(Built.EXCLUDED, entry)


QUANTIZED = Decision(Built.QUANTIZED)
UNKNOWN = Decision(Built.UNKNOWN)
BY_DTYPE = Decision(Built.BY_DTYPE, "(as stored: the release reads the weights' dtypes)")
NOT_TARGETED = Decision(Built.UNLISTED, "(no config_groups target)")
NOT_LISTED = Decision(Built.UNLISTED, "(not in modules_in_block_to_quantize)")
OUTSIDE_BLOCKS = Decision(Built.UNLISTED, "(outside block_name_to_quantize)")
MXFP4_LINEAR = Decision(Built.UNLISTED, "(mxfp4 quantizes only experts)")


@dataclass(frozen=True)
class Scheme:
    """The quantization description a runtime reads for this checkpoint."""

    method: str          # quant_method as written (modelopt read from hf_quant_config.json)
    config: dict         # the description (ModelOpt's nested `quantization` flattened in)
    file: str            # config.json or hf_quant_config.json
    pointer: str         # of the description in `file`

    @property
    def name(self) -> str:
        """vLLM's name for the method: ModelOpt's by its `quant_algo` (vllm==0.33.0
        model_executor/layers/quantization/modelopt.py:453-459, 776-782, 1236-1242;
        MIXED_PRECISION :158-160)."""
        algo = self.config.get("quant_algo")
        if self.method != "modelopt" or not isinstance(algo, str):
            return self.method
        algo = algo.upper()
        if "MXFP8" in algo:
            return "modelopt_mxfp8"
        if "FP4" in algo:
            return "modelopt_fp4"
        return "modelopt_mixed" if algo == "MIXED_PRECISION" else "modelopt"

    @property
    def known(self) -> bool:
        return self.method in EXCLUSION_KEYS

    @property
    def exclusions(self) -> str:
        """Pointer (in `file`) of the list that keeps modules unquantized."""
        keys = EXCLUSION_KEYS.get(self.method, ())
        key = next((k for k in keys if k in self.config), keys[0] if keys else "")
        return f"{self.pointer}/{key}" if key else self.pointer

    def decide(self, module: str, experts: bool = False) -> Decision:
        """How the release builds `module` (an MoE layer's experts with `experts`)."""
        handler = _HANDLERS.get(self.method)
        return UNKNOWN if handler is None else handler(self.config, module, experts)


# the keys that list unquantized modules, per method (the first is where a fix adds one)
EXCLUSION_KEYS = {
    "compressed-tensors": ("ignore",),
    "modelopt": ("ignore", "exclude_modules"),
    "quark": ("exclude",),
    "gptq": ("dynamic", "modules_in_block_to_quantize"),
    "awq": ("modules_to_not_convert",),
    "fp8": ("ignored_layers", "modules_to_not_convert"),
    "auto-round": ("extra_config", "block_name_to_quantize"),
    "mxfp4": ("ignored_layers",),
}
ALIASES = {"gptq_marlin": "gptq", "awq_marlin": "awq", "inc": "auto-round",
           "intel/auto-round": "auto-round"}


def read(config: dict | None, quant_file: dict | None) -> Scheme | None:
    """The description vLLM reads: `quantization_config` of config.json (then of its
    `text_config`, then `compression_config`), else `hf_quant_config.json` (vllm==0.33.0
    model_executor/model_loader/weight_utils.py:240-246; the file is read into the config
    only when config.json has none, transformers_utils/config.py:953-965)."""
    config = config or {}
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}
    for pointer, value in (("/quantization_config", config.get("quantization_config")),
                           ("/text_config/quantization_config", text.get("quantization_config")),
                           ("/compression_config", config.get("compression_config"))):
        if isinstance(value, dict) and isinstance(value.get("quant_method"), str):
            return Scheme(_method(value["quant_method"]), value, "config.json", pointer)
    if isinstance(quant_file, dict):
        inner = quant_file.get("quantization")
        producer = quant_file.get("producer")
        if isinstance(inner, dict) and isinstance(producer, dict) and \
                producer.get("name") == "modelopt":
            return Scheme("modelopt", inner, QUANT_FILE, "/quantization")
    return None


def _method(name: str) -> str:
    return ALIASES.get(name.lower(), name.lower())


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


def experts_stored_quantized(layer: str, names, weights: dict) -> bool | None:
    """Whether the experts under `layer` (`...mlp.experts`) are stored quantized: any
    expert linear with a quantized sibling or weight; None when none is read."""
    found = None
    prefix = layer + "."
    for name in names:
        if not name.startswith(prefix):
            continue
        module, _, leaf = name.rpartition(".")
        if leaf in QUANT_SIBLINGS:
            return True
        if leaf == "weight":
            info = (weights or {}).get(name)
            if info is not None:
                found = info.dtype not in PLAIN_DTYPES or bool(found)
    return found


# --- per method: vllm==0.33.0 model_executor/layers/quantization/ ---------------------------

def _compressed_tensors(q: dict, module: str, experts: bool) -> Decision:
    """`ignore`: exact name or `re:` regex matched from the start; a module no
    `config_groups` target names is not quantized (compressed_tensors/utils.py:53-130)."""
    probe = module + ".0.down_proj" if experts else module
    if not _targeted(probe, q):
        return NOT_TARGETED
    for entry in strings(q.get("ignore")):
        if entry.startswith("re:") and _regex_match(entry[3:], module) or entry == module:
            return excluded(entry)
    return QUANTIZED


def _modelopt(q: dict, module: str, experts: bool) -> Decision:
    """`ignore` (flat, falling back to `exclude_modules`) or the nested file's
    `exclude_modules`: exact, substring or shell wildcard (modelopt.py:191-258, 359)."""
    if "ignore" not in q and "exclude_modules" not in q:
        return UNKNOWN
    for entry in strings(q.get("ignore", q.get("exclude_modules"))):
        if entry == module or entry in module or fnmatch(module, entry):
            return excluded(entry)
    return QUANTIZED


def _quark(q: dict, module: str, experts: bool) -> Decision:
    """`exclude`: exact or `re:` regex from the start; an MoE layer is excluded by an entry
    for it or any child (quark/utils.py:31-66, quark.py:241-250; children from 0.26.0)."""
    for entry in strings(q.get("exclude")):
        if entry.startswith("re:"):
            if _regex_match(entry[3:], module):
                return excluded(entry)
        elif entry == module or experts and entry.startswith(module + "."):
            return excluded(entry)
    return QUANTIZED


def _gptq(q: dict, module: str, experts: bool) -> Decision:
    """`dynamic` keys `-:regex` (from the start) keep a module unquantized; linears are
    then quantized when `modules_in_block_to_quantize` names a part of them, and without
    that list the release lists the modules whose stored weights are not float. MoE layers
    read only `dynamic` (utils/gptq_utils.py:85-196, auto_gptq.py:69-91, 273-298)."""
    dynamic = q.get("dynamic") if isinstance(q.get("dynamic"), dict) else {}
    for key in dynamic:
        if isinstance(key, str) and key.startswith("-:") and _regex_match(key[2:], module):
            return excluded(key)
    if experts:
        return QUANTIZED
    blocks = [e for e in _flat(q.get("modules_in_block_to_quantize")) if e]
    if not blocks:
        return BY_DTYPE
    return QUANTIZED if any(entry in module for entry in blocks) else NOT_LISTED


def _awq(q: dict, module: str, experts: bool) -> Decision:
    """`modules_to_not_convert`: substring; without it the release lists the modules stored
    in float, which never names an MoE layer (auto_awq.py:294-299, 337-342, 370-388)."""
    names = strings(q.get("modules_to_not_convert"))
    for entry in names:
        if entry in module:
            return excluded(entry)
    return QUANTIZED if names or experts else BY_DTYPE


def _fp8(q: dict, module: str, experts: bool) -> Decision:
    """`ignored_layers`, else `modules_to_not_convert`: exact name (fp8.py:162-197)."""
    names = strings(q.get("ignored_layers")) or strings(q.get("modules_to_not_convert"))
    return next((excluded(e) for e in names if e == module), QUANTIZED)


def _auto_round(q: dict, module: str, experts: bool) -> Decision:
    """`extra_config` bits >= 16 for the module (exact or `.`-suffix key), else outside
    every `block_name_to_quantize` prefix (inc/config_parser.py:82-215)."""
    extra = q.get("extra_config") if isinstance(q.get("extra_config"), dict) else {}
    for key, value in extra.items():
        if (key == module or module.endswith("." + key)) and isinstance(value, dict) \
                and isinstance(value.get("bits"), int) and value["bits"] >= 16:
            return excluded(key)
    blocks = q.get("block_name_to_quantize", q.get("to_quant_block_names"))
    if isinstance(blocks, str):
        blocks = blocks.split(",")
    blocks = [b for b in _flat(blocks) if b]
    return QUANTIZED if not blocks or any(module.startswith(b) for b in blocks) \
        else OUTSIDE_BLOCKS


def _mxfp4(q: dict, module: str, experts: bool) -> Decision:
    """Experts always MXFP4, linears never; no list is read (mxfp4.py:67, 91-113)."""
    return QUANTIZED if experts else MXFP4_LINEAR


_HANDLERS = {"compressed-tensors": _compressed_tensors, "modelopt": _modelopt,
             "quark": _quark, "gptq": _gptq, "awq": _awq, "fp8": _fp8,
             "auto-round": _auto_round, "mxfp4": _mxfp4}


def _targeted(module: str, qconfig: dict) -> bool:
    groups = qconfig.get("config_groups")
    if not isinstance(groups, dict):
        return False
    for group in groups.values():
        for target in strings(group.get("targets") if isinstance(group, dict) else None):
            if target == "Linear" or target == module or \
                    target.startswith("re:") and _regex_match(target[3:], module):
                return True
    return False


def _regex_match(pattern: str, value: str) -> bool:
    try:
        return re.match(pattern, value) is not None
    except re.error:
        return False



def _flat(value) -> list[str]:
    """A list of names, or a list of lists of names (GPTQ's per-block groups)."""
    out = []
    for item in value if isinstance(value, list) else []:
        out += strings(item) if isinstance(item, list) else [item] if isinstance(item, str) else []
    return out
