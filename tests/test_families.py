"""Every drafter family: detection, published layouts, documented failures, rule cases."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

import pytest
from drafter_lint.rules import RULES
from sparse import (FIXTURES, apply_ops, deepseek_v3, load_manifest, materialize, qwen35_moe,
                    write_json)

from drafter_lint.checkpoint import read_checkpoint
from drafter_lint.engine import lint
from lintopts import options
from drafter_lint.registry import undeclared_fix
from drafter_lint.family import shards_needed
from drafter_lint.target import read_target

AUX = "/eagle_aux_hidden_state_layer_ids"
NESTED = "/eagle_config/eagle_aux_hidden_state_layer_ids"
ST = "model.safetensors"
FAMILY_MANIFESTS = {"eagle3-llama3.1-8b": "eagle3", "eagle3-gpt-oss-120b": "eagle3",
                    "eagle-llama3-8b": "eagle", "medusa-vicuna-7b": "medusa",
                    "speculators-eagle3-qwen3-235b": "speculators/eagle3",
                    "qwen3.6-27b-dflash": "dflash", "qwen3-4b-dflash-b16": "dflash"}


@dataclass
class Case:
    rule: str
    outcome: str
    why: str
    source: str                       # a manifest, or "deepseek-v3" / "qwen3.5-moe"
    ops: list = field(default_factory=list)
    tensors: Callable | None = None
    target_ops: list = field(default_factory=list)
    runtime: str | None = None
    launch: dict = field(default_factory=dict)
    pointer: str | None = None
    file: str = "config.json"
    severity: str | None = None
    generator: dict = field(default_factory=dict)   # arguments of the MTP generators
    folder: str = "drafter"                          # the checkpoint folder's name
    weights: bool = True                             # False: config only (before download)

    @property
    def id(self) -> str:
        return f"{self.rule}-{self.outcome}-{self.why}"


def drop(*names):
    return lambda ts: [t for t in ts if t[0] not in names]


def extra(*items):
    return lambda ts: ts + [list(t) for t in items]


def reshape(name, shape):
    return lambda ts: [[t[0], t[1], shape] if t[0] == name else t for t in ts]


def build(case: Case, root):
    if case.source in ("deepseek-v3", "qwen3.5-moe"):
        folder = root / "target-with-mtp"
        make = deepseek_v3 if case.source == "deepseek-v3" else qwen35_moe
        make(folder, **{"experts": 4, **case.generator})
        if case.ops:
            config = json.loads((folder / "config.json").read_text())
            write_json(folder / "config.json", apply_ops(config, case.ops))
        if not case.weights:
            for path in [*folder.glob("*.safetensors"), *folder.glob("*.index.json")]:
                path.unlink()
        return read_checkpoint(folder, "ckpt", select=shards_needed), None
    manifest = load_manifest(case.source)
    tensors = manifest["drafter"]["files"][ST]["tensors"]
    target_config = apply_ops(manifest["target"]["config"], case.target_ops)
    manifest["target"]["config"] = target_config
    drafter, target = materialize(manifest, root, apply_ops(manifest["drafter"]["config"],
                                                            case.ops),
                                  case.tensors(tensors) if case.tensors else None)
    if case.folder != drafter.name:
        drafter = drafter.rename(drafter.parent / case.folder)
    return read_checkpoint(drafter, "drafter"), read_target(target, "target")


NVFP4_MTP_EXCLUDED = {"quant_method": "modelopt", "quant_algo": "NVFP4",
                      "exclude_modules": ["lm_head", "model.layers.61*"]}
QUARK_FC = {"quant_method": "quark", "exclude": ["lm_head", "mtp.fc"]}
CT_W4A16 = {"quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"]}}}
MTP_SHARDS = [f"mtp.layers.0.self_attn.{p}_proj" for p in "qkvo"]
GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
        "sym": True}
E3, GPT, E1, MED, SPC = ("eagle3-llama3.1-8b", "eagle3-gpt-oss-120b", "eagle-llama3-8b",
                         "medusa-vicuna-7b", "speculators-eagle3-qwen3-235b")
IDS3 = [("add", AUX, [2, 16, 29])]
SPC_DFLASH = [("replace", "/speculators_model_type", "dflash"),
              ("add", "/transformer_layer_config/layer_types",
               ["sliding_attention", "full_attention"])]
SGL_IDS = [("add", "/eagle_config", {"eagle_aux_hidden_state_layer_ids": [2, 16, 29]})]

FAMILY_CASES = [
    # EAGLE-3
    Case("EA301", "fail", "fc-for-4-taps", E3, IDS3, reshape("fc.weight", [4096, 16384]),
         pointer=AUX),
    Case("EA301", "pass", "three-taps", E3, IDS3),
    Case("DL017", "fail", "qwen3-next-target-vllm-0.23-no-eagle3-interface", E3,
         target_ops=[("replace", "/architectures", ["Qwen3NextForCausalLM"])],
         runtime="vllm==0.23.0", pointer=""),
    Case("DL017", "pass", "qwen3-next-target-vllm-0.24", E3,
         target_ops=[("replace", "/architectures", ["Qwen3NextForCausalLM"])],
         runtime="vllm==0.24.0"),
    Case("DL017", "pass", "llama-target", E3, runtime="vllm==0.10.1"),
    # review M08: a target class the release does not register is DL012's, not DL017's
    Case("DL017", "pass", "unregistered-target-class", E3,
         target_ops=[("replace", "/architectures", ["NoSuchForCausalLM"])],
         runtime="vllm==0.23.0"),
    Case("EA302", "fail", "no-aux-ids-is-a-fact-vllm-50170", E3, pointer=AUX, severity="info"),
    Case("EA302", "fail", "nested-ids-unread-by-vllm", GPT, [("replace", NESTED, [1, 17, 33])],
         pointer=NESTED),
    Case("EA302", "pass", "nested-ids-equal-vllm-fallback", GPT,
         [("replace", NESTED, [1, 17, 32])]),
    Case("EA302", "pass", "nested-ids-for-sglang", GPT, runtime="sglang"),
    Case("EA303", "fail", "id-past-target-sglang-32334", GPT, [("replace", NESTED, [24, 30, 36])],
         pointer=NESTED + "/2"),
    Case("EA303", "fail", "repeated", E3, [("add", AUX, [2, 2, 29])], pointer=AUX + "/1"),
    Case("EA303", "pass", "in-range", E3, IDS3),
    Case("EA304", "fail", "specforge-ids-in-vllm-43671", E3, [("add", AUX, [1, 15, 28])],
         runtime="vllm", pointer=AUX),
    Case("EA304", "fail", "vllm-ids-in-sglang-25454", E3, SGL_IDS, runtime="sglang", pointer=NESTED),
    Case("EA304", "pass", "vllm-ids-in-sglang-on-deepseek", E3, SGL_IDS, runtime="sglang",
         target_ops=[("replace", "/model_type", "deepseek_v3")]),
    Case("EA304", "pass", "nested-ids-unread-by-vllm", E3, SGL_IDS, runtime="vllm"),
    Case("EA304", "pass", "vllm-ids-in-vllm", E3, IDS3, runtime="vllm"),
    Case("EA304", "pass", "specforge-ids-in-sglang", GPT, runtime="sglang"),
    Case("EA305", "fail", "ids-of-a-32-layer-target", E3, IDS3,
         target_ops=[("replace", "/num_hidden_layers", 80)], pointer=AUX),
    Case("EA305", "pass", "ids-of-this-target", E3, IDS3),
    Case("EA306", "fail", "four-taps-vllm-54526", SPC, pointer=AUX),
    Case("EA306", "pass", "three-taps", E3, IDS3),
    Case("EA306", "pass", "four-taps-counted", E3, [("add", AUX, [2, 10, 20, 29]),
                                                    ("add", "/num_aux_hidden_states", 4)]),
    Case("EA307", "fail", "lm-head-full-vocab", E3, tensors=reshape("lm_head.weight",
                                                                    [128256, 4096]),
         pointer="/lm_head.weight", file=ST),
    Case("EA307", "pass", "lm-head-draft-vocab", E3),
    Case("EA308", "fail", "no-d2t-verl-speco-66", E3, tensors=drop("d2t", "t2d"), pointer="/d2t", file=ST),
    Case("EA308", "fail", "d2t-wrong-dtype", E3, tensors=lambda ts: [
        [t[0], "F32", t[2]] if t[0] == "d2t" else t for t in ts], pointer="/d2t", file=ST),
    Case("EA308", "pass", "maps-present", E3),
    # equal vocabularies need no maps (mutation caught: `draft > vocab` for `>=`)
    Case("EA308", "pass", "full-draft-vocab-without-maps", E3,
         [("replace", "/draft_vocab_size", 128256)], tensors=drop("d2t", "t2d")),
    Case("EA309", "fail", "other-target-vocab", E3,
         target_ops=[("replace", "/vocab_size", 151936)], pointer="/vocab_size"),
    Case("EA309", "pass", "same-vocab", E3),
    # vocab_size right, t2d short (mutation caught: only vocab_size compared)
    Case("EA309", "fail", "short-t2d", E3, tensors=reshape("t2d", [128000]),
         pointer="/t2d", file=ST),
    Case("EA310", "fail", "narrower-target", E3, target_ops=[("replace", "/hidden_size", 5120)],
         pointer="/hidden_size"),
    Case("EA310", "pass", "same-width", E3),
    Case("EA311", "fail", "q-proj-takes-h", E3, tensors=reshape(
        "midlayer.self_attn.q_proj.weight", [4096, 4096]),
         pointer="/midlayer.self_attn.q_proj.weight", file=ST),
    Case("EA311", "pass", "q-proj-takes-2h", E3),
    Case("EA312", "fail", "flag-without-tensor", SPC, tensors=drop("input_norm.weight"),
         pointer="/norm_before_fc"),
    Case("EA312", "fail", "both-flags", SPC, [("replace", "/fc_norm", True)], pointer="/fc_norm"),
    Case("EA312", "pass", "flag-with-tensor", SPC),
    Case("EA313", "fail", "tensor-without-flag-sglang-32334", SPC, [("remove", "/norm_before_fc")],
         pointer="/norm_before_fc"),
    Case("EA313", "pass", "flag-set", SPC),
    Case("EA313", "pass", "flag-nested-in-eagle-config", SPC,
         [("remove", "/norm_before_fc"), ("add", "/eagle_config", {"norm_before_fc": True})]),
    Case("EA313", "fail", "legacy-use-aux-norm-on-vllm", E3, [("add", "/use_aux_norm", True)],
         tensors=extra(*[(f"fc_norm.{i}.weight", "F16", [4096]) for i in range(3)]),
         runtime="vllm", pointer="/fc_norm"),
    Case("EA313", "pass", "legacy-use-aux-norm-on-sglang", E3, [("add", "/use_aux_norm", True)],
         tensors=extra(*[(f"fc_norm.{i}.weight", "F16", [4096]) for i in range(3)]),
         runtime="sglang"),
    Case("EA314", "fail", "two-layers-mla-class-sglang", E3,
         [("replace", "/num_hidden_layers", 2),
          ("replace", "/architectures", ["Eagle3DeepseekV2ForCausalLM"])],
         pointer="/num_hidden_layers", runtime="sglang"),
    Case("EA314", "pass", "four-layers-llama-class-for-kimi-k25-sglang", E3,
         [("replace", "/num_hidden_layers", 4)],
         target_ops=[("replace", "/model_type", "kimi_k25")], runtime="sglang"),
    Case("EA314", "pass", "two-layers-mla-class-vllm", E3,
         [("replace", "/num_hidden_layers", 2),
          ("replace", "/architectures", ["Eagle3DeepseekV2ForCausalLM"])], runtime="vllm"),
    Case("EA315", "fail", "short-rope-cache-vllm-48894", E3, pointer="/max_position_embeddings"),
    Case("EA315", "pass", "long-enough", E3, [("replace", "/max_position_embeddings", 131072)]),
    Case("EA315", "fail", "short-rope-cache-kept-by-vllm-0.26-48894", E3,
         pointer="/max_position_embeddings", severity="warning", runtime="vllm==0.26.0"),
    Case("EA315", "fail", "yarn-raised-by-vllm-0.32", E3, [("add", "/rope_scaling", {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048})],
         pointer="/max_position_embeddings", severity="info", runtime="vllm==0.32.0"),
    Case("EA315", "fail", "yarn-caps-the-server", E3, [("add", "/rope_scaling", {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048})],
         pointer="/max_position_embeddings", severity="warning"),
    Case("EA316", "fail", "default-theta", E3, pointer="/rope_theta"),
    Case("EA316", "pass", "target-theta", E3, [("add", "/rope_theta", 500000.0)]),
    Case("EA317", "fail", "shared-embedding", E3, pointer=""),
    Case("EA317", "fail", "wrong-shape", E3, tensors=extra(("embed_tokens.weight", "F16",
                                                             [32000, 4096])),
         pointer="/embed_tokens.weight", file=ST, severity="error"),
    Case("EA317", "pass", "own-embedding", E3, tensors=extra(("embed_tokens.weight", "F16",
                                                              [128256, 4096]))),
    Case("EA318", "fail", "plain-folder-name", E3, pointer=""),
    Case("EA318", "pass", "eagle3-in-name", E3, folder="EAGLE3-LLaMA3.1-Instruct-8B"),
    Case("EA318", "fail", "eagle-dash-3-is-read-as-eagle-1", E3,
         launch={"runtime": "vllm", "draft": "org/Llama-3.1-8B-EAGLE-3"}, pointer="",
         severity="warning"),
    Case("EA318", "pass", "explicit-method-on-the-line", E3,
         launch={"runtime": "vllm", "method": "eagle3", "draft": "org/my-head"}),
    Case("EA319", "fail", "no-architectures", GPT, [("remove", "/architectures")],
         pointer="/architectures", severity="error"),      # vLLM refuses (vLLM #30987)
    Case("EA319", "fail", "no-architectures-sglang-warning", GPT,
         [("remove", "/architectures")], pointer="/architectures", runtime="sglang"),
    Case("EA319", "fail", "no-architectures-vllm-0.8.5-rewrites-it", GPT,
         [("remove", "/architectures")], pointer="/architectures", runtime="vllm==0.8.5"),
    Case("EA319", "pass", "qwen-class-vllm-renames", GPT, [("replace", "/architectures",
                                                            ["Qwen3ForCausalLM"])]),
    Case("EA319", "pass", "specforge-architecture", GPT),
    # with SGLang's override variable set: 0.5.3 on raises the draft's positions, 0.5.1 and
    # 0.5.2 only take the target's context length
    Case("DL013", "fail", "short-draft-context-allowed-sglang-0.5.2-keeps-positions", E3,
         pointer="/max_position_embeddings", runtime="sglang==0.5.2", severity="info",
         launch={"runtime": "sglang", "release": "sglang==0.5.2",
                 "env": {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}}),
    Case("DL013", "fail", "short-draft-context-allowed-sglang-0.5.3-raises", E3,
         pointer="/max_position_embeddings", runtime="sglang==0.5.3", severity="info",
         launch={"runtime": "sglang", "release": "sglang==0.5.3",
                 "env": {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}}),
    Case("EA320", "fail", "tied-with-draft-vocab-sglang", E3,
         [("replace", "/tie_word_embeddings", True)], pointer="/tie_word_embeddings",
         runtime="sglang"),
    Case("EA320", "fail", "tied-with-draft-vocab-vllm-template-fact", E3,
         [("replace", "/tie_word_embeddings", True)], pointer="/tie_word_embeddings",
         runtime="vllm", severity="info"),
    Case("EA325", "fail", "no-draft-vocab-size-sglang", E3,
         [("remove", "/draft_vocab_size"),
          ("replace", "/architectures", ["LlamaForCausalLMEagle3"])],
         pointer="/draft_vocab_size", runtime="sglang"),
    Case("EA325", "pass", "no-draft-vocab-size-vllm", E3,
         [("remove", "/draft_vocab_size"),
          ("replace", "/architectures", ["LlamaForCausalLMEagle3"])], runtime="vllm"),
    Case("EA325", "pass", "written", E3),
    # before SGLang 0.5.5 a tied head never read the key (llama_eagle3.py:202-215)
    Case("EA325", "pass", "tied-head-sglang-0.5.4", E3,
         [("remove", "/draft_vocab_size"), ("add", "/tie_word_embeddings", True),
          ("replace", "/architectures", ["LlamaForCausalLMEagle3"])], runtime="sglang==0.5.4"),
    Case("EA325", "fail", "untied-head-sglang-0.5.4", E3,
         [("remove", "/draft_vocab_size"), ("add", "/tie_word_embeddings", False),
          ("replace", "/architectures", ["LlamaForCausalLMEagle3"])],
         pointer="/draft_vocab_size", runtime="sglang==0.5.4"),
    # review M11: only the Llama class reads the key without a default
    Case("EA325", "pass", "other-class-sglang", E3,
         [("remove", "/draft_vocab_size"),
          ("replace", "/architectures", ["Eagle3DeepseekV2ForCausalLM"])], runtime="sglang"),
    Case("EA320", "pass", "untied", E3),
    Case("EA321", "fail", "no-lm-head-sglang-27908", E3, tensors=drop("lm_head.weight"),
         pointer="/lm_head.weight", file=ST),
    Case("EA326", "fail", "full-vocab-declared-no-head-sglang-0.5.2-27908", E3,
         [("replace", "/draft_vocab_size", 128256)], drop("lm_head.weight"),
         runtime="sglang==0.5.2", pointer="/draft_vocab_size"),
    Case("EA326", "fail", "no-head-sglang-0.5.1-never-shares", E3,
         [("replace", "/draft_vocab_size", 128256)], drop("lm_head.weight"),
         runtime="sglang==0.5.1", pointer="/draft_vocab_size"),
    Case("EA326", "pass", "full-vocab-declared-no-head-vllm-shares", E3,
         [("replace", "/draft_vocab_size", 128256)], drop("lm_head.weight"), runtime="vllm"),
    Case("EA326", "pass", "no-draft-vocab-no-head-sglang-shares", E3,
         [("remove", "/draft_vocab_size"), ("replace", "/vocab_size", 128256)],
         drop("lm_head.weight"), runtime="sglang"),
    Case("EA321", "pass", "lm-head-present", E3),
    Case("EA323", "fail", "target-depth-copied-angelslim-220", E3,
         [("replace", "/num_hidden_layers", 32)], pointer="/num_hidden_layers"),
    Case("EA323", "pass", "one-layer", E3),
    Case("EA324", "fail", "deepstack-tap-specforge-431", E3,
         [("add", "/eagle_config", {"eagle_aux_hidden_state_layer_ids": [1, 16, 29]})],
         target_ops=[("add", "/vision_config", {"deepstack_visual_indexes": [8, 16, 24]})],
         runtime="sglang", pointer=NESTED),
    Case("EA324", "pass", "taps-after-deepstack", E3,
         [("add", "/eagle_config", {"eagle_aux_hidden_state_layer_ids": [3, 16, 29]})],
         target_ops=[("add", "/vision_config", {"deepstack_visual_indexes": [8, 16, 24]})],
         runtime="sglang"),
    Case("EA324", "pass", "no-deepstack", E3,
         [("add", "/eagle_config", {"eagle_aux_hidden_state_layer_ids": [1, 16, 29]})],
         runtime="sglang"),
    # TF103 for EAGLE-3: only max_position_embeddings, and only where vLLM caps by it
    Case("TF103", "fail", "eagle3-yarn-no-max-position", E3,
         [("remove", "/max_position_embeddings"),
          ("add", "/rope_scaling", {"rope_type": "yarn", "factor": 4.0,
                                     "original_max_position_embeddings": 8192})],
         runtime="vllm", pointer="/max_position_embeddings"),
    Case("TF103", "fail", "eagle-yarn-no-max-position", E1,
         [("remove", "/max_position_embeddings"),
          ("replace", "/rope_scaling", {"rope_type": "yarn", "factor": 4.0,
                                         "original_max_position_embeddings": 8192})],
         runtime="vllm", pointer="/max_position_embeddings"),
    Case("TF103", "pass", "eagle3-default-rope-no-max-position", E3,
         [("remove", "/max_position_embeddings")], runtime="vllm"),
    # RD101, derived from the rows (mutation caught: a row's value or range changed, or a
    # spelling the path reads taken for one it does not)
    Case("RD101", "fail", "speculators-trained-head-on-sglang", E3,
         [("add", "/norm_before_residual", True)], runtime="sglang",
         pointer="/norm_before_residual"),
    Case("RD101", "pass", "speculators-trained-head-on-vllm", E3,
         [("add", "/norm_before_residual", True)], runtime="vllm"),
    Case("RD101", "pass", "flag-false-on-sglang", E3,
         [("add", "/norm_before_residual", False)], runtime="sglang"),
    Case("RD101", "fail", "fc-norm-before-vllm-0.22", E3, [("add", "/fc_norm", True)],
         runtime="vllm==0.21.0", pointer="/fc_norm", severity="error"),
    Case("RD101", "pass", "fc-norm-from-vllm-0.22", E3, [("add", "/fc_norm", True)],
         runtime="vllm==0.22.0"),
    Case("RD101", "fail", "norm-output-on-sglang-0.5.11", E3, [("add", "/norm_output", True)],
         runtime="sglang==0.5.11", pointer="/norm_output", severity="error"),
    Case("RD101", "pass", "norm-output-on-sglang-0.5.12", E3, [("add", "/norm_output", True)],
         runtime="sglang==0.5.12"),
    Case("RD101", "fail", "nested-norm-before-fc-on-sglang-0.5.16", E3,
         [("add", "/eagle_config", {"norm_before_fc": True})], runtime="sglang==0.5.16",
         pointer="/eagle_config/norm_before_fc", severity="error"),
    Case("RD101", "fail", "no-aux-states-on-v2-before-0.33-40656", E3,
         [("add", "/eagle_config", {"use_aux_hidden_state": False})], runtime="vllm==0.32.0",
         pointer="/eagle_config/use_aux_hidden_state", severity="error"),
    Case("RD101", "pass", "no-aux-states-on-v2-from-0.33", E3,
         [("add", "/eagle_config", {"use_aux_hidden_state": False})], runtime="vllm==0.33.0"),
    Case("RD101", "pass", "no-aux-states-on-v1", E3,
         [("add", "/eagle_config", {"use_aux_hidden_state": False})], runtime="vllm==0.32.0",
         launch={"env": {"VLLM_USE_V2_MODEL_RUNNER": "0"}}),
    Case("RD101", "fail", "no-aux-states-on-sglang-0.5.7", E3,
         [("add", "/eagle_config", {"use_aux_hidden_state": False})], runtime="sglang==0.5.7",
         pointer="/eagle_config/use_aux_hidden_state", severity="error"),
    Case("RD101", "fail", "legacy-use-aux-norm-on-vllm", E3, [("add", "/use_aux_norm", True)],
         runtime="vllm", pointer="/use_aux_norm", severity="error"),
    Case("RD101", "pass", "legacy-use-aux-norm-on-sglang", E3, [("add", "/use_aux_norm", True)],
         runtime="sglang"),
    Case("RD101", "pass", "both-spellings-on-vllm", E3,
         [("add", "/use_aux_norm", True), ("add", "/fc_norm", True)], runtime="vllm"),
    Case("RP101", "fail", "speculators-quarter-rotary", SPC, [
        ("add", "/transformer_layer_config/partial_rotary_factor", 0.25)],
         pointer="/transformer_layer_config/partial_rotary_factor"),
    # EAGLE-1/2, HASS
    Case("MED103", "fail", "no-current-runtime", MED, pointer=""),
    Case("MED103", "pass", "vllm-before-0.33", MED, runtime="vllm==0.32.0"),
    Case("EA101", "fail", "bias-dropped", E1, tensors=extra(("fc.bias", "F16", [4096])),
         pointer="/bias"),
    Case("EA101", "fail", "fc-not-2h", E1, tensors=reshape("fc.weight", [4096, 4096]),
         pointer="/fc.weight", file=ST),
    Case("EA101", "pass", "no-bias", E1),
    Case("EA102", "fail", "layer0-norm-vllm-9565", E1, tensors=extra(("layers.0.input_layernorm.weight",
                                                             "F16", [4096])),
         pointer="/layers.0.input_layernorm.weight", file=ST),
    Case("EA102", "pass", "reference-layout", E1),
    # MTP
    Case("MTP101", "fail", "count-2-weights-1", "deepseek-v3",
         [("replace", "/num_nextn_predict_layers", 2)], pointer="/num_nextn_predict_layers"),
    Case("MTP101", "pass", "deepseek-one-layer", "deepseek-v3"),
    Case("MTP102", "fail", "export-dropped-mtp-minimax-m2.5-8", "qwen3.5-moe",
         generator={"drop_mtp": True},
         pointer="/text_config/mtp_num_hidden_layers"),
    Case("MTP102", "pass", "qwen-mtp-present", "qwen3.5-moe"),
    Case("MTP103", "fail", "three-tokens-two-layers-vllm-13626", "qwen3.5-moe",
         generator={"mtp_layers": 2}, launch={"num_speculative_tokens": 3},
         pointer="/text_config/mtp_num_hidden_layers"),
    Case("MTP103", "pass", "four-tokens-two-layers", "qwen3.5-moe",
         generator={"mtp_layers": 2}, launch={"num_speculative_tokens": 4}),
    Case("MTP104", "fail", "eight-tokens-one-layer-vllm-48892", "deepseek-v3",
         launch={"num_speculative_tokens": 8}, pointer="/num_nextn_predict_layers"),
    Case("MTP104", "pass", "one-token", "deepseek-v3", launch={"num_speculative_tokens": 1}),
    Case("MTP105", "pass", "glm-style-no-shared-head", "deepseek-v3",
         generator={"shared_head": False}),
    Case("MTP105", "fail", "eh-proj-square", "deepseek-v3",
         generator={}, pointer="/model.layers.61.eh_proj.weight", file="*"),
    Case("MTP105", "pass", "deepseek-shapes", "deepseek-v3"),
    Case("LCH104", "fail", "mtp-launch-on-zero-mtp-layers-kimi-k2", "deepseek-v3",
         generator={"mtp_layers": 0}, runtime="vllm", pointer="/num_nextn_predict_layers",
         launch={"runtime": "vllm", "method": "mtp", "num_speculative_tokens": 1}),
    Case("LCH104", "fail", "nextn-on-zero-mtp-layers", "deepseek-v3",
         generator={"mtp_layers": 0}, runtime="sglang", pointer="/num_nextn_predict_layers",
         launch={"runtime": "sglang", "method": "NEXTN", "num_draft_tokens": 2}),
    # every *_mtp name is an alias of mtp from vLLM 0.11.0; before, a method of its own
    Case("LCH101", "pass", "deepseek-mtp-on-0.10.2", "deepseek-v3", runtime="vllm==0.10.2",
         launch={"runtime": "vllm", "method": "deepseek_mtp", "release": "vllm==0.10.2"}),
    Case("LCH101", "pass", "deepseek-mtp-alias-on-0.33", "deepseek-v3", runtime="vllm",
         launch={"runtime": "vllm", "method": "deepseek_mtp"}),
    Case("LCH107", "fail", "speculative-model-flag-vllm-0.33", E3, runtime="vllm",
         launch={"runtime": "vllm", "legacy_flags": ["--speculative-model"]}, pointer=""),
    Case("LCH107", "pass", "speculative-model-flag-vllm-0.8.2", E3, runtime="vllm==0.8.2",
         launch={"runtime": "vllm", "release": "vllm==0.8.2",
                 "legacy_flags": ["--speculative-model"]}),
    Case("LCH104", "pass", "mtp-launch-with-a-layer", "deepseek-v3", runtime="vllm",
         launch={"runtime": "vllm", "method": "mtp", "num_speculative_tokens": 1}),
    Case("MTP108", "fail", "minimax-m2-type-vllm", "deepseek-v3",
         [("replace", "/model_type", "minimax_m2"),
          ("replace", "/architectures", ["MiniMaxM2ForCausalLM"])], runtime="vllm",
         pointer="/model_type"),
    Case("MTP108", "pass", "deepseek-v3-mapped", "deepseek-v3", runtime="vllm"),
    Case("MTP106", "fail", "bf16-mtp-not-excluded-vllm-38650", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head"]}, pointer="/quantization_config/ignore"),
    Case("MTP106", "pass", "bf16-fc-under-nvfp4-vllm-forces-it-unquantized", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.layers.0*"]}),
    Case("MTP106", "pass", "bf16-fc-under-nvfp4-vllm-0.20.0", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.layers.0*"]}, runtime="vllm==0.20.0"),
    Case("MTP106", "fail", "bf16-fc-under-nvfp4-vllm-0.19.0-pr-38832", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.layers.0*"]}, runtime="vllm==0.19.0",
         pointer="/quantization_config/ignore"),
    Case("MTP106", "pass", "bf16-mtp-excluded", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp*"]}),
    Case("MTP106", "pass", "packed-mtp", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.fc"], "mtp_packed": True}),
    Case("MTP106", "fail", "packed-mtp-excluded", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp*"], "mtp_packed": True},
         pointer="/quantization_config/ignore"),
    Case("MTP106", "pass", "unquantized-target", "qwen3.5-moe"),
    # the same stored layout under each method's own exclusion list
    Case("MTP106", "fail", "hf-quant-config-json-excludes-no-mtp-vllm-38650", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_file": {
             "producer": {"name": "modelopt"},
             "quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}}},
         pointer="/quantization/exclude_modules", file="hf_quant_config.json"),
    Case("MTP106", "pass", "hf-quant-config-json-excludes-mtp", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_file": {
             "producer": {"name": "modelopt"},
             "quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head", "mtp*"]}}}),
    Case("MTP106", "fail", "gptq-bf16-mtp-experts-vllm-48814", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": GPTQ},
         pointer="/quantization_config/dynamic"),
    # GPTQ without modules_in_block_to_quantize: the release reads the stored dtypes, so
    # packed MTP linears are built quantized (kills M06: the `BY_DTYPE` condition dropped)
    Case("MTP106", "pass", "gptq-packed-mtp-decided-by-stored-dtype", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": GPTQ, "mtp_packed": True}),
    Case("MTP106", "pass", "gptq-dynamic-excludes-mtp", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {**GPTQ, "dynamic": {"-:.*mtp.*": {}}}}),
    Case("MTP106", "pass", "gptq-dynamic-mtp-key-vllm-0.27.0", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {**GPTQ, "dynamic": {"-:mtp[.]fc": {}}}},
         runtime="vllm==0.27.0"),
    Case("MTP106", "fail", "gptq-dynamic-mtp-key-vllm-0.26.0", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {**GPTQ, "dynamic": {"-:mtp[.]fc": {}}}},
         runtime="vllm==0.26.0", pointer="/quantization_config/dynamic"),
    Case("MTP106", "fail", "quark-exclude-names-no-mtp-vllm-52649", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {
             "quant_method": "quark", "exclude": ["lm_head"]}},
         pointer="/quantization_config/exclude"),
    Case("MTP106", "pass", "quark-exclude-mtp-regex", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {
             "quant_method": "quark", "exclude": ["lm_head", "re:mtp[.].*"]}}),
    Case("MTP112", "fail", "nvfp4-excluded-mtp-experts-vllm-0.11.0-pr-25987", "deepseek-v3",
         [("add", "/quantization_config", NVFP4_MTP_EXCLUDED)], runtime="vllm==0.11.0",
         weights=False, pointer="/quantization_config/exclude_modules"),
    Case("MTP112", "pass", "nvfp4-excluded-mtp-experts-vllm-0.11.1", "deepseek-v3",
         [("add", "/quantization_config", NVFP4_MTP_EXCLUDED)], runtime="vllm==0.11.1",
         weights=False),
    Case("MTP112", "pass", "nvfp4-excluded-mtp-experts-stored-quantized-vllm-0.11.0",
         "deepseek-v3", [("add", "/quantization_config", NVFP4_MTP_EXCLUDED)],
         runtime="vllm==0.11.0"),
    Case("MTP113", "fail", "quark-mtp-fc-excluded-packed-sglang-0.5.20-38870", "qwen3.5-moe",
         generator={"quant_ignore": [], "mtp_packed": True, "quant_config": QUARK_FC},
         runtime="sglang==0.5.20", pointer="/quantization_config/exclude"),
    Case("MTP113", "pass", "quark-mtp-fc-excluded-packed-sglang-0.5.21", "qwen3.5-moe",
         generator={"quant_ignore": [], "mtp_packed": True, "quant_config": QUARK_FC},
         runtime="sglang==0.5.21"),
    Case("MTP113", "fail", "quark-bf16-mtp-not-excluded-sglang-36158", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {
             "quant_method": "quark", "exclude": ["lm_head"]}},
         runtime="sglang==0.5.23", pointer="/quantization_config/exclude"),
    Case("MTP113", "pass", "quark-bf16-mtp-regex-excluded-sglang", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {
             "quant_method": "quark", "exclude": ["lm_head", "re:mtp[.].*"]}},
         runtime="sglang==0.5.23"),
    Case("MTP111", "fail", "ignore-lists-qkv-shards-sglang-0.5.20-35797", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {**CT_W4A16, "ignore": MTP_SHARDS}},
         runtime="sglang==0.5.20", pointer="/quantization_config/ignore"),
    Case("MTP111", "pass", "ignore-lists-qkv-shards-sglang-0.5.21", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {**CT_W4A16, "ignore": MTP_SHARDS}},
         runtime="sglang==0.5.21"),
    Case("MTP111", "pass", "ignore-regex-matches-fused-sglang-0.5.20", "qwen3.5-moe",
         generator={"quant_ignore": [], "quant_config": {**CT_W4A16, "ignore": ["re:mtp[.].*"]}},
         runtime="sglang==0.5.20"),
    Case("MTP110", "fail", "nvfp4-fc-left-quantized-vllm-0.19.1-pr-38832", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.layers.0*"]}, runtime="vllm==0.19.1",
         weights=False, pointer="/quantization_config/ignore"),
    Case("MTP110", "pass", "nvfp4-fc-left-quantized-vllm-0.20.0", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.layers.0*"]}, runtime="vllm==0.20.0",
         weights=False),
    Case("MTP110", "pass", "nvfp4-mtp-excluded", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp*"]}, runtime="vllm==0.19.1", weights=False),
    Case("MTP110", "pass", "weights-at-hand-mtp106-judges", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.layers.0*"]}, runtime="vllm==0.19.1"),
    Case("MTP107", "fail", "bf16-mtp-beside-nvfp4-body", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.fc", "mtp.layers.0*"]},
         pointer="/quantization_config/ignore"),
    Case("MTP107", "pass", "packed-mtp", "qwen3.5-moe",
         generator={"quant_ignore": ["lm_head", "mtp.fc"], "mtp_packed": True}),
    # Medusa
    Case("MED101", "fail", "four-heads-in-weights", MED, tensors=lambda ts: [
        t for t in ts if not t[0].startswith(("blocks.4.", "lm_heads.4."))],
         pointer="/medusa_num_heads"),
    Case("MED101", "pass", "five-heads", MED),
    Case("MED102", "fail", "no-vocab-size", MED, [("remove", "/vocab_size")],
         pointer="/vocab_size"),
    Case("MED102", "fail", "heads-vs-target-vocab", MED,
         target_ops=[("replace", "/vocab_size", 32001)], pointer="/lm_heads.0.weight",
         file=ST, severity="error"),
    Case("MED102", "pass", "vocab-written", MED),
    # speculators
    Case("SPC101", "fail", "unknown-type", SPC, [("replace", "/speculators_model_type",
                                                  "medusa")],
         pointer="/speculators_model_type"),
    Case("SPC101", "pass", "eagle3", SPC),
    Case("LCH101", "fail", "speculators-head-on-sglang", SPC,
         launch={"runtime": "sglang", "method": "EAGLE3"}, pointer=""),
    Case("LCH101", "fail", "medusa-on-vllm-0.33", MED,
         launch={"runtime": "vllm", "method": "medusa"}, pointer=""),
    Case("SPC101", "pass", "dflash2", SPC, [("replace", "/speculators_model_type", "dflash2")]),
    Case("SPC114", "fail", "tokens-equal-block-speculators-456", SPC, SPC_DFLASH + [
        ("add", "/block_size", 16),
        ("replace", "/speculators_config/proposal_methods/0/speculative_tokens", 16)],
         pointer="/speculators_config/proposal_methods/0/speculative_tokens"),
    Case("SPC114", "pass", "block-minus-one", SPC, SPC_DFLASH + [
        ("add", "/block_size", 16),
        ("replace", "/speculators_config/proposal_methods/0/speculative_tokens", 15)]),
    Case("SPC113", "fail", "sliding-dflash-without-causality", SPC, SPC_DFLASH,
         pointer="/sliding_window_non_causal"),
    Case("SPC113", "pass", "causality-written", SPC, SPC_DFLASH + [
        ("add", "/sliding_window_non_causal", False)]),
    Case("SPC113", "pass", "dflash2-defaults-non-causal", SPC, SPC_DFLASH + [
        ("replace", "/speculators_model_type", "dflash2")]),
    Case("DF128", "fail", "speculators-sample-from-anchor-mapped-by-vllm", SPC, SPC_DFLASH + [
        ("add", "/sample_from_anchor", True)], pointer="/sample_from_anchor"),
    Case("SPC102", "fail", "no-verifier-path", SPC,
         [("remove", "/speculators_config/verifier/name_or_path")],
         pointer="/speculators_config/verifier/name_or_path"),
    Case("SPC102", "pass", "complete", SPC),
    Case("SPC103", "fail", "unknown-default", SPC,
         [("replace", "/speculators_config/default_proposal_method", "tree")],
         pointer="/speculators_config/default_proposal_method"),
    Case("SPC103", "pass", "greedy", SPC),
    Case("SPC104", "fail", "algorithm-eagle", SPC,
         [("replace", "/speculators_config/algorithm", "eagle")],
         pointer="/speculators_config/algorithm"),
    Case("SPC104", "pass", "same", SPC),
    Case("SPC105", "fail", "missing", SPC, [("remove", "/norm_before_residual")],
         pointer="/norm_before_residual"),
    Case("SPC105", "pass", "written", SPC),
    Case("SPC105", "pass", "peagle-defaults-agree", SPC, [
        ("replace", "/speculators_model_type", "peagle"), ("remove", "/norm_before_residual")]),
    Case("SPC115", "fail", "dspark-layout-unwritten-vllm-56792", SPC,
         [("replace", "/speculators_model_type", "dspark")], pointer="/sample_from_anchor"),
    Case("SPC115", "pass", "dspark-layout-written", SPC,
         [("replace", "/speculators_model_type", "dspark"), ("add", "/sample_from_anchor", False)]),
    Case("SPC115", "pass", "dflash-defaults-agree", SPC, SPC_DFLASH),
    # vLLM's loader copies a speculators DFlash file's top-level mask_token_id into
    # dflash_config (algos.py:71-74): no refusal on V1 (0.20-0.27) or V2 (0.24)
    Case("DF102", "pass", "speculators-top-level-mask-mapped-0.24", SPC,
         SPC_DFLASH + [("add", "/mask_token_id", 151669)], runtime="vllm==0.24.0"),
    Case("DF102", "fail", "speculators-without-a-mask-0.24", SPC, SPC_DFLASH,
         pointer="/dflash_config/mask_token_id", runtime="vllm==0.24.0"),
    Case("SPC116", "fail", "full-layers-causal-on-vllm-56692", SPC,
         SPC_DFLASH + [("add", "/sliding_window_non_causal", False)],
         pointer="/sliding_window_non_causal"),
    Case("SPC116", "fail", "all-full-fixable", SPC,
         [("replace", "/speculators_model_type", "dflash"),
          ("add", "/sliding_window_non_causal", False)], pointer="/sliding_window_non_causal"),
    Case("SPC116", "pass", "flag-true", SPC, SPC_DFLASH + [("add", "/sliding_window_non_causal", True)]),
    Case("SPC116", "pass", "all-sliding", SPC,
         [("replace", "/speculators_model_type", "dflash"),
          ("add", "/transformer_layer_config/layer_types", ["sliding_attention"]),
          ("add", "/sliding_window_non_causal", False)]),
    Case("LCH102", "fail", "speculators-dspark-bonus-anchor", SPC,
         [("replace", "/speculators_model_type", "dspark"), ("add", "/block_size", 8)], launch={"num_speculative_tokens": 8}, pointer="/block_size"),
    Case("LCH102", "pass", "speculators-dspark-seven-of-eight", SPC,
         [("replace", "/speculators_model_type", "dspark"), ("add", "/block_size", 8)], launch={"num_speculative_tokens": 7}),
    Case("LCH102", "pass", "speculators-dspark-anchor-first", SPC,
         [("replace", "/speculators_model_type", "dspark"), ("add", "/block_size", 8), ("add", "/sample_from_anchor", True)],
         launch={"num_speculative_tokens": 8}),
    Case("SPC102", "fail", "dspark-without-aux-ids-keyerror", SPC,
         [("replace", "/speculators_model_type", "dspark")],
         pointer="/aux_hidden_state_layer_ids"),
    Case("SPC102", "fail", "peagle-without-mask-keyerror", SPC,
         [("replace", "/speculators_model_type", "peagle")], pointer="/mask_token_id"),
    Case("SPC102", "pass", "dspark-with-aux-ids", SPC,
         [("replace", "/speculators_model_type", "dspark"),
          ("add", "/aux_hidden_state_layer_ids", [2, 47, 92])]),
    Case("SPC106", "fail", "null", SPC, [("replace", "/draft_vocab_size", None)],
         pointer="/draft_vocab_size"),
    Case("SPC106", "pass", "set", SPC),
    Case("SPC107", "fail", "training-machine-path", SPC,
         pointer="/speculators_config/verifier/name_or_path"),
    Case("SPC107", "pass", "hub-id", SPC, [("replace", "/speculators_config/verifier/name_or_path",
                                           "Qwen/Qwen3-235B-A22B")]),
    Case("SPC108", "fail", "llama-target", SPC,
         target_ops=[("replace", "/architectures", ["LlamaForCausalLM"])],
         pointer="/speculators_config/verifier/architectures"),
    Case("SPC108", "pass", "same-architecture", SPC),
    Case("SPC107", "fail", "local-verifier-refused-by-vllm-0.33", SPC,
         [("replace", "/speculators_config/verifier/name_or_path", "/model/from_s3")],
         pointer="/speculators_config/verifier/name_or_path", runtime="vllm==0.33.0"),
    Case("SPC107", "fail", "local-verifier-before-0.33", SPC,
         [("replace", "/speculators_config/verifier/name_or_path", "/model/from_s3")],
         pointer="/speculators_config/verifier/name_or_path", runtime="vllm==0.32.0"),
    Case("DL015", "fail", "speculators-on-sglang", SPC, runtime="sglang", pointer=""),
    Case("DL015", "pass", "speculators-on-vllm", SPC, runtime="vllm"),
    Case("SPC109", "fail", "mistral-layer", SPC,
         [("replace", "/transformer_layer_config/model_type", "mistral")],
         pointer="/transformer_layer_config/model_type"),
    Case("SPC109", "pass", "llama-layer", SPC),
    Case("SPC109", "pass", "absent-model-type-read-as-llama", SPC,
         [("remove", "/transformer_layer_config/model_type")]),
    Case("SPC110", "fail", "other-vocab", SPC, target_ops=[("replace", "/vocab_size", 128256)],
         pointer="/transformer_layer_config/vocab_size"),
    Case("SPC110", "pass", "same-vocab", SPC),
    Case("SPC111", "fail", "eagle-3.1", SPC, pointer="/norm_output"),
    Case("SPC111", "pass", "no-norm-output", SPC, [("replace", "/norm_output", False)]),
    Case("SPC112", "fail", "two-layers", SPC, [("replace", "/speculators_model_type", "mtp"),
                                              ("add", "/num_nextn_predict_layers", 2)],
         pointer="/num_nextn_predict_layers"),
    Case("SPC112", "pass", "one-layer", SPC, [("replace", "/speculators_model_type", "mtp"),
                                              ("add", "/num_nextn_predict_layers", 1)]),
]


def run_case(case: Case, tmp_path, rebuild: bool = True):
    if rebuild:
        checkpoint, target = build(case, tmp_path)
    else:
        checkpoint = read_checkpoint(result_root(case, tmp_path), "drafter",
                                     select=shards_needed)
        target = read_target(tmp_path / "target", "target") \
            if (tmp_path / "target").exists() else None
    if case.rule == "MTP105" and case.outcome == "fail":   # a square eh_proj in its shard
        name = "model.layers.61.eh_proj.weight"
        checkpoint.weights[name] = checkpoint.weights[name].__class__(
            name, "BF16", (7168, 7168), checkpoint.weights[name].file, (0, 0))
    return lint(checkpoint, options(rules=RULES, target=target, runtime=case.runtime,
                                    launch=case.launch))


@pytest.mark.parametrize("case", FAMILY_CASES, ids=lambda c: c.id)
def test_family_rule_case(case: Case, tmp_path):
    result = run_case(case, tmp_path)
    assert case.rule not in [s.rule for s in result.skipped]
    mine = [f for f in result.findings if f.rule == case.rule]
    # each rule's fixes are what it declares (fix availability and applicability)
    assert not [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))], \
        [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))]
    if case.outcome == "pass":
        assert mine == [], [f.message for f in mine]
        return
    hits = [f for f in mine if f.pointer == case.pointer
            and (case.file == "*" or f.file == case.file)]
    assert hits, [(f.file, f.pointer, f.message) for f in mine] or \
        [(f.rule, f.message) for f in result.findings]
    assert hits[0].severity.value == (case.severity or RULES[case.rule].severity.value)
    if hits[0].fix is not None and hits[0].file == "config.json":
        # the fixed document no longer draws it (mutation caught: a fix of wrong values)
        path = result_root(case, tmp_path) / "config.json"
        edits = [(e["op"], e["path"], *([e["value"]] if "value" in e else []))
                 for e in hits[0].fix.edits]
        path.write_text(json.dumps(apply_ops(json.loads(path.read_text()), edits)))
        again = run_case(case, tmp_path, rebuild=False)
        assert not [f for f in again.findings if f.rule == case.rule
                    and f.pointer == case.pointer], hits[0].fix.edits


def result_root(case: Case, tmp_path):
    if case.source in ("deepseek-v3", "qwen3.5-moe"):
        return tmp_path / "target-with-mtp"
    return tmp_path / case.folder


# --- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize("name,family", sorted(FAMILY_MANIFESTS.items()))
def test_family_is_detected(cli, tmp_path, name, family):
    drafter, target = materialize(load_manifest(name), tmp_path)
    run = cli("check", drafter, "--target", target, "--format", "json")
    assert run.json()["results"][0]["family"] == family


@pytest.mark.parametrize("make,family", [(deepseek_v3, "mtp"), (qwen35_moe, "mtp")])
def test_mtp_targets_are_detected(cli, tmp_path, make, family):
    make(tmp_path / "t", experts=2)
    assert cli("check", tmp_path / "t", "--format", "json").json()["results"][0]["family"] \
        == family


@pytest.mark.parametrize("config", [
    {"architectures": ["Qwen3DSparkModel"], "model_type": "dspark"},   # TorchSpec 17037f5
    {"architectures": ["Gemma4DSparkModel"]},
    {"architectures": ["DSparkDraftModel"], "model_type": "qwen3"},     # SpecForge
])
def test_dspark_classes_vllm_registers_are_detected(config):
    """Mutation caught: only DSparkDraftModel recognised, so a TorchSpec DSpark drafter was
    'unknown' and no rule ran."""
    from drafter_lint.family import detect

    assert detect(config, set()) == "dspark"


def test_family_override_and_unknown(cli, tmp_path):
    drafter, _ = materialize(load_manifest(MED), tmp_path)
    natural = cli("check", drafter, "--format", "json").json()["results"][0]
    assert natural["family"] == "medusa"
    run = cli("check", drafter, "--family", "eagle3", "--format", "json")
    result = run.json()["results"][0]
    assert result["family"] == "eagle3"
    assert "EA302" in {f["rule"] for f in result["findings"]}
    assert not [f for f in result["findings"] if f["rule"].startswith("MED")]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text('{"model_type": "gpt2", "n_layer": 12}')
    unknown = cli("check", plain, "--format", "json").json()["results"][0]
    assert unknown["family"] == "unknown"
    assert [f["rule"] for f in unknown["findings"]] == ["DL007"]


def test_dflash2_is_named_and_warned(cli, tiny):
    config = json.loads((tiny / "drafter" / "config.json").read_text())
    config["architectures"] = ["DFlash2DraftModel"]
    (tiny / "drafter" / "config.json").write_text(json.dumps(config))
    result = cli("check", tiny / "drafter", "--format", "json").json()["results"][0]
    assert result["family"] == "dflash2"
    warned = [f for f in result["findings"] if f["rule"] == "DF136"]
    assert warned and "V2 model runner" in warned[0]["message"]
    assert warned[0]["severity"] == "info"


# --- published layouts and documented failures ---------------------------------------------


@pytest.mark.parametrize("name", sorted(n for n in FAMILY_MANIFESTS
                                         if not n.startswith("speculators")))
def test_published_family_configs_give_no_error(cli, tmp_path, name):
    """(The speculators fixture is a bug report's config: it is among the bug cases.)"""
    drafter, target = materialize(load_manifest(name), tmp_path)
    run = cli("check", drafter, "--target", target, "--format", "json")
    errors = [f["rule"] for f in run.json()["results"][0]["findings"]
              if f["severity"] == "error"]
    # the current runtimes refuse Medusa heads (MED103); SGLang refuses short contexts
    expected = ["MED103"] if name.startswith("medusa") else []
    assert errors == sorted(expected + refused_by_sglang(f"manifest-{name}@sglang")), errors


def refused_by_sglang(launch_id: str) -> list[str]:
    """DL013 where SGLang's own start-up refused this launch for the draft's short
    context (tests/data/oracle/sglang-0.5.23.json): published EAGLE heads with 2048 or
    4096 positions need SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 there."""
    from pathlib import Path

    golden = json.loads((Path(__file__).parent / "data" / "oracle" / "sglang-0.5.23.json")
                        .read_text())
    record = next((x for x in golden["launches"] if x["id"] == launch_id), None)
    return ["DL013"] if record and record["verdict"] == "refused" and \
        "derived context_length" in record["message"] else []


@pytest.mark.parametrize("make", [deepseek_v3, qwen35_moe])
def test_published_mtp_targets_give_no_error(cli, tmp_path, make):
    make(tmp_path / "t", experts=4)
    run = cli("check", tmp_path / "t", "--num-speculative-tokens", "1", "--format", "json")
    assert run.code == 0, run.out


BUGS = [
    # (bug, case): documented failures checkable offline that no rule case above already
    # covers with the same rule, input and pointer
    ("vllm-38111", Case("EA313", "fail", "", SPC, [("replace", "/norm_before_fc", False)],
                        pointer="/norm_before_fc")),
    ("speculators-1065", Case("EA301", "fail", "", SPC, tensors=reshape("fc.weight",
                                                                        [4096, 12288]),
                              pointer=AUX)),
    ("vllm-11126", Case("EA101", "fail", "", E1, [("replace", "/model_type", "eagle"),
                                                  ("remove", "/bias")],
                        tensors=extra(("fc.bias", "F16", [4096])), pointer="/eagle_fc_bias")),
]


@pytest.mark.parametrize("bug,case", BUGS, ids=[b for b, _ in BUGS])
def test_documented_failure_is_detected(bug, case, tmp_path):
    result = run_case(case, tmp_path)
    hits = [f for f in result.findings if f.rule == case.rule and f.pointer == case.pointer
            and f.file == case.file]
    assert hits, (bug, [(f.rule, f.pointer) for f in result.findings])
    assert hits[0].severity.value == (case.severity or RULES[case.rule].severity.value)


# --- MTP targets: size and speed ------------------------------------------------------------


@pytest.mark.parametrize("make,shards,read", [(deepseek_v3, 163, 4), (qwen35_moe, 17, 1)])
@pytest.mark.parametrize("timed", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["shards", "time"])    # the 2 s goal: the slow lane's
def test_huge_mtp_target_lints_fast_reading_only_mtp_shards(tmp_path, make, shards, read,
                                                            timed):
    size = make(tmp_path / "target")
    assert size > 60 * 1024**3
    command = [sys.executable, "-m", "drafter_lint", "check", str(tmp_path / "target"),
               "--ignore", "TF", "--format", "json"]
    started = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    elapsed = time.monotonic() - started
    result = json.loads(run.stdout)["results"][0]
    assert result["family"] == "mtp" and run.returncode == 0
    skipped = {s["rule"]: s["reason"] for s in result["skipped"]}
    assert skipped["DL005"].startswith(f"{shards - read} of {shards} shards not read")
    assert not timed or elapsed < 2.0, f"{elapsed:.2f} s"


def test_runtime_option_changes_the_findings(cli, tmp_path):
    """Ids written at the top level in the SGLang convention: vLLM reads them (EA304),
    SGLang does not (EA302, its fallback). Mutation caught: rules ignoring --runtime."""
    manifest = load_manifest(E3)
    config = apply_ops(manifest["drafter"]["config"], [("add", AUX, [1, 15, 28])])
    drafter, target = materialize(manifest, tmp_path, config)

    def rules(*extra):
        run = cli("check", drafter, "--target", target, *extra, "--format", "json")
        return {(f["rule"], f["severity"]) for f in run.json()["results"][0]["findings"]}

    both, vllm, sglang = rules(), rules("--runtime", "vllm"), rules("--runtime", "sglang==0.5.23")
    assert ("EA304", "warning") in vllm and ("EA302", "warning") not in vllm
    assert ("EA302", "warning") in sglang and ("EA304", "warning") not in sglang
    assert {("EA304", "warning"), ("EA302", "warning")} <= both


def test_unknown_runtime_is_a_usage_error(cli, tmp_path):
    drafter, _ = materialize(load_manifest(E3), tmp_path)
    run = cli("check", drafter, "--runtime", "tgi")
    assert run.code == 2 and "unknown runtime" in run.err


def test_rules_json_lists_families(cli):
    listed = cli("rules", "--format", "json").json()
    assert set(listed["families"]) >= {"dflash", "eagle3", "eagle", "mtp", "medusa",
                                       "speculators", "any"}
    assert "EA301" in listed["families"]["eagle3"]


# --- speculators DFlash: mapped the way vLLM maps it, then the DFlash rules ---------------


def speculators_dflash(tiny_dir, aux):
    """The tiny DFlash drafter in the speculators layout vLLM's `update_dflash` reads
    (vllm==0.33.0 transformers_utils/configs/speculators/algos.py:90-126)."""
    layer = json.loads((tiny_dir / "drafter" / "config.json").read_text())
    mask = layer.pop("dflash_config")["mask_token_id"]
    block = layer.pop("block_size")
    layer.pop("num_target_layers")
    return {
        "architectures": ["DFlashSpeculator"],
        "speculators_model_type": "dflash",
        "speculators_config": {
            "algorithm": "dflash", "default_proposal_method": "greedy",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": block - 1}],
            "verifier": {"name_or_path": "Qwen/Qwen3.6-27B",
                         "architectures": ["Qwen3_5ForConditionalGeneration"]}},
        "transformer_layer_config": layer,
        "aux_hidden_state_layer_ids": aux,
        "mask_token_id": mask,
        "block_size": block,
        "target_hidden_size": None,
        "sliding_window_non_causal": False,
    }


def test_speculators_dflash_gets_the_dflash_checks(cli, tiny):
    """A converted file (taps + 1, top-level mask, target_hidden_size null) is clean; a
    converter that forgot the +1 is caught at the aux ids. Mutation caught: DFlash rules
    not seeing speculators fields (DF101/DL008 false errors, or the shift missed)."""
    config = tiny / "drafter" / "config.json"
    converted = speculators_dflash(tiny, [2, 7, 12, 17, 22])
    forgot = speculators_dflash(tiny, [1, 6, 11, 16, 21])
    config.write_text(json.dumps(converted))
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--format", "json")
    result = run.json()["results"][0]
    assert result["family"] == "speculators/dflash"
    loud = [(f["rule"], f["pointer"]) for f in result["findings"]
            if f["severity"] in ("error", "warning")]
    assert loud == [] and run.code == 0
    config.write_text(json.dumps(forgot))
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--format", "json")
    errors = [(f["rule"], f["pointer"]) for f in run.json()["results"][0]["findings"]
              if f["severity"] == "error"]
    assert ("DF114", "/aux_hidden_state_layer_ids") in errors and run.code == 1


def test_ref101_holds_an_eagle3_head_to_its_published_aux_ids(cli, tmp_path):
    """The runtime-field table is per family (schemas/fields.json). Mutation caught: REF
    rules knowing only DFlash's fields (an EAGLE-3 head with other aux ids than its
    published config was a warning and exit 0)."""
    manifest = load_manifest(E3)
    published = apply_ops(manifest["drafter"]["config"], IDS3)
    local = apply_ops(manifest["drafter"]["config"], [("add", AUX, [1, 15, 28])])
    drafter, _ = materialize(manifest, tmp_path, local)
    write_json(tmp_path / "published" / "config.json", published)
    run = cli("check", drafter, "--reference", tmp_path / "published", "--format", "json")
    ref = [(f["rule"], f["severity"]) for f in run.json()["results"][0]["findings"]
           if f["pointer"] == AUX and f["rule"].startswith("REF")]
    assert ref == [("REF101", "error")] and run.code == 1


NATIVE_DSPARK = FIXTURES / "published" / "specforge-glm-5.2-dspark" / "config.json"


@pytest.mark.parametrize("ops, tokens, fails", [
    ([], 7, False),                                    # vLLM's own default: block_size
    ([], 8, True),
    ([("remove", "/block_size"), ("add", "/dspark_block_size", 5)], 7, True),  # PR #41834
    ([("add", "/sample_from_anchor", False)], 7, True),  # 1 + N: six draft slots
])
@pytest.mark.parametrize("runtime, key, offset", [("vllm", "num_speculative_tokens", 0),
                                                  ("sglang", "num_draft_tokens", 1)])
def test_dspark_tokens_against_its_block(tmp_path, ops, tokens, fails, runtime, key, offset):
    """LCH102 on a native DSpark drafter (SpecForge GLM-5.2, block 7, anchor-first): vLLM
    takes up to 7 tokens, SGLang up to 8 draft tokens (gamma + 1). Mutation caught: the
    DFlash limit (block - 1) applied to DSpark, which refused the published 7-token
    launches, or `dspark_block_size` not read."""
    folder = tmp_path / "dspark"
    folder.mkdir()
    config = apply_ops(json.loads(NATIVE_DSPARK.read_text()), ops)
    write_json(folder / "config.json", config)
    result = lint(read_checkpoint(folder, "dspark"), options(
        rules=RULES, runtime=runtime, launch={"runtime": runtime, key: tokens + offset}))
    hits = [f for f in result.findings if f.rule == "LCH102"]
    if runtime == "sglang" and ops == [("add", "/sample_from_anchor", False)]:
        assert not hits   # SGLang's layout for a bonus-anchor DSpark is not recorded
        return
    assert bool(hits) == fails, [f.message for f in hits]


def test_spc114_offers_no_fix_that_leaves_a_refused_config(tmp_path):
    """Mutation caught: SPC114's safe token fix offered while sample_from_anchor is true,
    which vLLM refuses whatever the count (DF128): the fixed file would still not start."""
    case = Case("SPC114", "fail", "", SPC, SPC_DFLASH + [
        ("add", "/block_size", 16), ("add", "/sample_from_anchor", True),
        ("replace", "/speculators_config/proposal_methods/0/speculative_tokens", 16)])
    checkpoint, target = build(case, tmp_path)
    result = lint(checkpoint, options(rules=RULES, target=target, runtime="vllm"))
    spc114 = [f for f in result.findings if f.rule == "SPC114"]
    assert spc114 and spc114[0].fix is None and "DF128" in spc114[0].message
    assert [f.severity.value for f in result.findings if f.rule == "DF128"] == ["error"]
