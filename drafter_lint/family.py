"""Tell the drafter family from config.json and tensor names (research/other-drafters.md,
"detection signature" per family).

`detect` returns the family name reported in results; `rule_families` the set of rule
families that run on it (a speculators checkpoint also runs the rules of the family its
`transformer_layer_config` wraps).
"""

from __future__ import annotations

FAMILIES = ("dflash", "dflash2", "dspark", "eagle3", "eagle", "mtp", "medusa", "speculators")

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


def mtp_count(config: dict) -> tuple[str, int] | None:
    """(pointer, count) of the MTP count field, top level or in text_config."""
    for prefix, section in (("", config), ("/text_config", config.get("text_config"))):
        if not isinstance(section, dict):
            continue
        for key in MTP_COUNT_FIELDS:
            value = section.get(key)
            if type(value) is int:
                return f"{prefix}/{key}", value
    return None


def _architectures(config: dict) -> list[str]:
    value = config.get("architectures")
    return [a for a in value if isinstance(a, str)] if isinstance(value, list) else []


def _heads(names) -> set[str]:
    """First name components, and "model.<second>" ones: enough to tell families apart."""
    heads = set()
    for name in names:
        first, _, rest = name.partition(".")
        heads.add(first)
        if first == "model":
            heads.add("model." + rest.partition(".")[0])
    return heads


def detect(config: dict | None, tensor_names) -> str:
    """The family of a checkpoint, or "unknown"."""
    config = config if isinstance(config, dict) else {}
    names = tensor_names.keys() if isinstance(tensor_names, dict) else set(tensor_names or ())
    heads = _heads(names)
    arch = set(_architectures(config))
    wrapped = config.get("speculators_model_type")
    if isinstance(wrapped, str) and "speculators_config" in config:
        inner = SPECULATORS_WRAPS.get(wrapped)
        return f"speculators/{inner}" if inner else "speculators"
    dflash_config = config.get("dflash_config")
    if ("DFlash2DraftModel" in arch
            or (isinstance(dflash_config, dict) and "selector_rank" in dflash_config)
            or "candidate_selector" in heads):
        return "dflash2"
    # vLLM registers DSparkDraftModel, Qwen3DSparkModel and per-target *DSparkModel classes
    if any("DSpark" in a for a in arch) or config.get("model_type") == "dspark" or \
            "dspark_target_layer_ids" in config or (
            isinstance(dflash_config, dict) and dflash_config.get("projector_type") == "dspark"):
        return "dspark"
    if dflash_config is not None or any("DFlash" in a for a in arch) or \
            {"fc.weight", "hidden_norm.weight"} <= names:
        return "dflash"
    if "medusa_num_heads" in config or config.get("model_type") == "medusa" or \
            heads & {"medusa_heads", "lm_heads"}:
        return "medusa"
    if arch & EAGLE3_ARCHITECTURES or "draft_vocab_size" in config or \
            "eagle_aux_hidden_state_layer_ids" in config or "eagle_config" in config or \
            "midlayer" in heads:
        return "eagle3"
    if config.get("model_type") == "eagle" or (
            "fc.weight" in names and config.get("num_hidden_layers") in (1, 2, 3)
            and "model" not in heads):
        return "eagle"
    # SafeAILab EAGLE-1/2 and HASS heads ship a one-layer causal-LM config (with a `bias`
    # flag for fc in the EAGLE repo); no served LLM has one layer, so this is the head.
    if config.get("num_hidden_layers") == 1 and any(a.endswith("ForCausalLM") for a in arch) \
            and ("bias" in config or not names):
        return "eagle"
    count = mtp_count(config)
    if (count and count[1] > 0) or heads & {"mtp", "model.mtp", "model.mtp_layers"}:
        return "mtp"
    return "unknown"


def rule_families(family: str) -> frozenset[str]:
    """Rule families that apply to a detected family."""
    if family.startswith("speculators"):
        inner = family.split("/", 1)[1] if "/" in family else None
        return frozenset({"speculators", inner} - {None})
    if family in ("dflash2", "dspark"):
        return frozenset({"dflash", family})
    return frozenset({family})


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
