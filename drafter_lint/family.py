"""The drafter families, in one table (`FAMILY_TABLE`), and how to tell them from
config.json and tensor names (the signature each family's trainers and runtimes write
and read). Every other list of families derives from the table.

`detect` returns the family name reported in results; `rule_families` the set of rule
families that run on it (a speculators checkpoint also runs the rules of the family its
`transformer_layer_config` wraps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from drafter_lint import runtimes
from drafter_lint.jsondoc import dotted, strings

# vllm==0.33.0 model_executor/models/registry.py:698-713, plus the speculators and
# SpecForge/SGLang class names
EAGLE3_ARCHITECTURES = frozenset({
    "LlamaForCausalLMEagle3", "Eagle3LlamaForCausalLM", "Eagle3Qwen3ForCausalLM",
    "Eagle3MiniMaxM2ForCausalLM", "Eagle3Qwen2_5vlForCausalLM", "Eagle3Qwen3vlForCausalLM",
    "Eagle3DeepseekV2ForCausalLM", "Eagle3DeepseekV3ForCausalLM", "PeagleLlamaForCausalLM",
    "PeagleQwen3ForCausalLM", "Eagle3Speculator", "Eagle3DraftModel", "LlamaEagle3DraftModel",
    "PEagleDraftModel"})
# speculators_model_type -> the family whose rules check the wrapped layer config
SPECULATORS_WRAPS = {"eagle3": "eagle3", "peagle": "eagle3", "dflash": "dflash",
                     "dflash2": "dflash", "dspark": "dflash", "eagle": "eagle", "mtp": None}
MTP_COUNT_FIELDS = ("num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules")


# model types whose MTP layers are built with no count field written: one layer
# (vllm==0.10.2-0.34.0 model_executor/models/qwen3_next_mtp.py, `getattr(config,
# "num_nextn_predict_layers", 1)`, :54 in 0.10.2; sglang==0.5.23
# srt/models/qwen3_next_mtp.py:67 builds it with num_hidden_layers = 1)
IMPLIED_MTP_LAYERS = {"qwen3_next": 1}


def mtp_count(config: dict) -> tuple[str, int] | None:
    """(pointer, count) of the MTP count field, top level or in text_config; for a model
    type that implies its MTP layers and writes no count, ("/model_type", implied)."""
    for prefix, section in (("", config), ("/text_config", config.get("text_config"))):
        if not isinstance(section, dict):
            continue
        for key in MTP_COUNT_FIELDS:
            value = section.get(key)
            if type(value) is int:
                return f"{prefix}/{key}", value
    implied = IMPLIED_MTP_LAYERS.get(config.get("model_type"))
    return ("/model_type", implied) if implied else None


def mtp_count_words(count: tuple[str, int], config: dict) -> str:
    """How a message names the count: the field as written, or the model type implying it."""
    if count[0] == "/model_type":
        return f"model_type {config.get('model_type')!r} builds {count[1]} MTP layer(s) " \
            f"(no count field)"
    return f"{dotted(count[0])} is {count[1]}"


def qwen_mtp_layout(count: tuple[str, int]) -> bool:
    """Whether the count's model stores its MTP layers as `mtp.layers.{i}` (Qwen3-Next /
    Qwen3.5), not after the body's layers (DeepSeek)."""
    return count[0].endswith("mtp_num_hidden_layers") or count[0] == "/model_type"


def _heads(names) -> set[str]:
    """First name components, and "model.<second>" ones: enough to tell families apart."""
    heads = set()
    for name in names:
        first, _, rest = name.partition(".")
        heads.add(first)
        if first == "model":
            heads.add("model." + rest.partition(".")[0])
    return heads


@dataclass(frozen=True)
class Signals:
    """What detection looks at: config.json, its `architectures`, the tensor names and
    their first components (`_heads`)."""
    config: dict
    arch: frozenset
    names: frozenset
    heads: frozenset

    @property
    def dflash_config(self):
        return self.config.get("dflash_config")


def _is_dflash2(s: Signals) -> bool:
    return ("DFlash2DraftModel" in s.arch or "candidate_selector" in s.heads
            or (isinstance(s.dflash_config, dict) and "selector_rank" in s.dflash_config))


def _is_dspark(s: Signals) -> bool:
    # vLLM registers DSparkDraftModel, Qwen3DSparkModel and per-target *DSparkModel classes
    return (any("DSpark" in a for a in s.arch) or s.config.get("model_type") == "dspark"
            or "dspark_target_layer_ids" in s.config
            or (isinstance(s.dflash_config, dict)
                and s.dflash_config.get("projector_type") == "dspark"))


def _is_dflash(s: Signals) -> bool:
    return (s.dflash_config is not None or any("DFlash" in a for a in s.arch)
            or {"fc.weight", "hidden_norm.weight"} <= s.names)


def _is_medusa(s: Signals) -> bool:
    return ("medusa_num_heads" in s.config or s.config.get("model_type") == "medusa"
            or bool(s.heads & {"medusa_heads", "lm_heads"}))


def _is_eagle3(s: Signals) -> bool:
    return bool(s.arch & EAGLE3_ARCHITECTURES or "draft_vocab_size" in s.config
                or "eagle_aux_hidden_state_layer_ids" in s.config or "eagle_config" in s.config
                or "midlayer" in s.heads)


def _is_eagle(s: Signals) -> bool:
    if s.config.get("model_type") == "eagle" or (
            "fc.weight" in s.names and s.config.get("num_hidden_layers") in (1, 2, 3)
            and "model" not in s.heads):
        return True
    # SafeAILab EAGLE-1/2 and HASS heads ship a one-layer causal-LM config (with a `bias`
    # flag for fc in the EAGLE repo); no served LLM has one layer, so this is the head.
    return (s.config.get("num_hidden_layers") == 1
            and any(a.endswith("ForCausalLM") for a in s.arch)
            and ("bias" in s.config or not s.names))


def _is_mtp(s: Signals) -> bool:
    count = mtp_count(s.config)
    return bool((count and count[1] > 0) or s.heads & {"mtp", "model.mtp", "model.mtp_layers"})


def _is_speculators(s: Signals) -> bool:
    return isinstance(s.config.get("speculators_model_type"), str) and \
        "speculators_config" in s.config


@dataclass(frozen=True)
class Family:
    """One drafter family: every list of families derives from FAMILY_TABLE."""
    name: str
    detect: Callable[[Signals], bool]
    rules: tuple[str, ...]           # rule families that run on it (its own first)
    schema: str | None               # schemas/<schema>.schema.json: its config's structure
    loader: str | None               # model_type of the transformers config class that loads
    #                                  a config naming none; None: the config's own model_type
    transformers: bool               # whether runtimes read config.json through transformers
    own_model: bool                  # a model of its own (MTP layers and Medusa heads are
    #                                  parts of the target: its attention settings are its)

    @property
    def runtimes(self) -> tuple[str, ...]:
        """The runtimes whose facts say whether they serve it (`serves.<name>` rows)."""
        return runtimes.recorded_for(f"serves.{self.name}")


# In detection order: the first whose signature matches names the checkpoint.
FAMILY_TABLE: tuple[Family, ...] = (
    Family("speculators", _is_speculators, ("speculators",), "speculators", None, False, True),
    Family("dflash2", _is_dflash2, ("dflash2", "dflash"), "dflash", None, True, True),
    Family("dspark", _is_dspark, ("dspark", "dflash"), "dflash", None, True, True),
    # z-lab's reference builds a DFlash draft with Qwen3Config (dflash/model.py)
    Family("dflash", _is_dflash, ("dflash",), "dflash", "qwen3", True, True),
    Family("medusa", _is_medusa, ("medusa",), "medusa", None, False, False),
    Family("eagle3", _is_eagle3, ("eagle3",), "eagle3", None, True, True),
    Family("eagle", _is_eagle, ("eagle",), "eagle", None, True, True),
    Family("mtp", _is_mtp, ("mtp",), "mtp", None, True, False),
)
BY_NAME = {f.name: f for f in FAMILY_TABLE}
FAMILIES = tuple(BY_NAME)
# the families a speculators checkpoint can wrap (its detected name is speculators/<inner>)
WRAPPED = tuple(sorted({inner for inner in SPECULATORS_WRAPS.values() if inner},
                       key=FAMILIES.index))
CHOICES = FAMILIES + tuple(f"speculators/{inner}" for inner in WRAPPED)   # --family


def _family_row(family: str) -> Family | None:
    return BY_NAME.get(family.split("/", 1)[0])


def detect(config: dict | None, tensor_names) -> str:
    """The family of a checkpoint, or "unknown"."""
    config = config if isinstance(config, dict) else {}
    names = tensor_names.keys() if isinstance(tensor_names, dict) else set(tensor_names or ())
    signals = Signals(config, frozenset(strings(config.get("architectures"))), frozenset(names),
                      frozenset(_heads(names)))
    found = next((f for f in FAMILY_TABLE if f.detect(signals)), None)
    if found is None:
        return "unknown"
    if found.name == "speculators":
        inner = SPECULATORS_WRAPS.get(config["speculators_model_type"])
        return f"speculators/{inner}" if inner else "speculators"
    return found.name


def rule_families(family: str) -> frozenset[str]:
    """Rule families that apply to a detected family (a speculators checkpoint also runs
    the rules of the family its `transformer_layer_config` wraps)."""
    row = _family_row(family)
    if row is None:
        return frozenset({family})
    inner = family.split("/", 1)[1] if "/" in family else None
    return frozenset(row.rules) | ({inner} if inner else set())


def schemas(family: str) -> tuple[str, ...]:
    """The schema names that describe a detected family's config.json."""
    return tuple(sorted({BY_NAME[f].schema for f in rule_families(family)
                         if f in BY_NAME and BY_NAME[f].schema}))


def method(family: str, runtime: str) -> str | None:
    """The speculative method (vLLM) or algorithm (SGLang) the newest recorded release of
    `runtime` serves a family with (its `launch.methods` fact), or None."""
    release = runtimes.parse(runtime)
    names = runtimes.value("launch.methods", release, {}).get(family.split("/", 1)[0], ())
    return names[0] if names else None


def through_transformers(family: str) -> bool:
    row = _family_row(family)
    return row.transformers if row else True


def loader_model_type(family: str) -> str | None:
    row = _family_row(family)
    return row.loader if row else None


def own_model(family: str) -> bool:
    row = _family_row(family)
    return row.own_model if row else True


def shards_needed(family: str, config: dict | None, weight_map: dict[str, str]) -> set[str] | None:
    """Shards whose headers a family needs (None: all). MTP heads live in huge target
    checkpoints: only the shards holding MTP tensors are read."""
    if family != "mtp":
        return None
    config = config if isinstance(config, dict) else {}
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    depth = text.get("num_hidden_layers") if type(text.get("num_hidden_layers")) is int else None
    wanted = set()
    for name, shard in weight_map.items():
        if shard in wanted:
            continue
        parts = name.split(".", 3)
        if parts[0] == "mtp" or (parts[0] == "model" and parts[1] in ("mtp", "mtp_layers")):
            wanted.add(shard)
        elif (depth is not None and parts[:2] == ["model", "layers"] and len(parts) > 2
              and parts[2].isdigit() and int(parts[2]) >= depth):
            wanted.add(shard)
    return wanted


def select_shards(config: dict | None, weight_map: dict[str, str]) -> set[str] | None:
    """For checkpoint.read_checkpoint: the shards to read, given config and index."""
    return shards_needed(detect(config, weight_map), config, weight_map)
