"""One table of passing and failing cases per rule, on the tiny Qwen3.6-shaped pair.

Each case edits the correct tiny drafter (config edits as RFC 6902 operations, tensor
list edits, extra files) and asserts that the rule fires at the expected file and pointer
with the expected severity, or stays quiet.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from typing import Callable

import pytest
from drafter_lint.rules import RULES
from sparse import FIXTURES, apply_ops, write_json, write_safetensors

from drafter_lint.checkpoint import read_checkpoint
from drafter_lint.engine import lint
from drafter_lint.options import Options
from lintopts import options
from drafter_lint.registry import undeclared_fix
from drafter_lint.reference import read_reference
from drafter_lint.target import read_target

TINY = FIXTURES / "tiny-qwen3.6"
TAPS = "/dflash_config/target_layer_ids"
MASK = "/dflash_config/mask_token_id"
ST = "model.safetensors"


BASE = json.loads((TINY / "drafter" / "config.json").read_text())
TEXT_FIELDS = [k for k in BASE if k not in ("architectures", "model_type", "dflash_config",
                                            "block_size", "num_target_layers", "dtype")]
# a composite qwen3_5 config written right: the text fields under text_config
NESTED_QWEN35 = ([("replace", "/model_type", "qwen3_5")]
                 + [("remove", f"/{k}") for k in TEXT_FIELDS]
                 + [("add", "/text_config", {k: BASE[k] for k in TEXT_FIELDS})])


# a drafter of one layer kind (not sent to V2 for its mix) and a dense Qwen3 target (V2 is
# its default runner from vLLM 0.25.0)
ALL_FULL = [("replace", "/layer_types", ["full_attention"] * 5)]
DENSE_TARGET = [("replace", "/architectures", ["Qwen3ForCausalLM"]),
                ("replace", "/text_config/layer_types", ["full_attention"] * 24)]
SAMPLE = "/dflash_config/sample_from_anchor"

# a Qwen3-Omni DSpark draft (vLLM's standalone layout), block 16
OMNI_DSPARK = [("replace", "/architectures", ["Qwen3OmniDSparkModel"]),
               ("add", "/markov_rank", 8)]


def base_tensors() -> list:
    raw = (TINY / "drafter" / ST).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    items = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"])
    return [[name, spec["dtype"], spec["shape"]] for name, spec in items]


def drop(*prefixes: str) -> Callable:
    return lambda tensors: [t for t in tensors if not t[0].startswith(prefixes)]


def extra(*new: tuple) -> Callable:
    return lambda tensors: tensors + [list(t) for t in new]


@dataclass
class Case:
    rule: str
    outcome: str                      # "fail" or "pass"
    why: str
    ops: list = field(default_factory=list)
    raw: str | None = None            # config.json text instead of the edited config
    tensors: Callable | None = None
    weights: bool = True
    files: dict = field(default_factory=dict)
    target: bool = True
    target_ops: list = field(default_factory=list)
    reference: list | None = field(default_factory=list)  # edits of the base; None: none
    pointer: str | None = None
    file: str = "config.json"
    severity: str | None = None       # default: the rule's
    runtime: str | None = None        # --runtime; default: every serving runtime
    launch: dict = field(default_factory=dict)  # launch settings (`gate`)
    transformers: str | None = None   # the transformers major whose behaviour it pins

    @property
    def id(self) -> str:
        return f"{self.rule}-{self.outcome}-{self.why}"


CASES = [
    # file rules
    Case("DL001", "fail", "trailing-comma", raw='{"hidden_size": 16,}', pointer=""),
    Case("DL001", "fail", "byte-order-mark", raw='\ufeff{"hidden_size": 16}', pointer=""),
    Case("DL001", "pass", "valid-json"),
    Case("DL002", "fail", "array", raw="[1, 2]", pointer=""),
    Case("DL002", "pass", "object"),
    Case("DL003", "fail", "different-values", pointer="/sliding_window", severity="error",
         raw='{"sliding_window": 2048, "hidden_size": 16, "sliding_window": null}'),
    Case("DL003", "fail", "same-values", pointer="/hidden_size", severity="warning",
         raw='{"hidden_size": 16, "hidden_size": 16}'),
    Case("DL003", "pass", "unique-keys"),
    Case("DL004", "fail", "truncated-shard", files={ST: b"\x10\x00\x00\x00\x00\x00\x00\x00{}"},
         pointer="", file=ST),
    Case("DL004", "fail", "shard-outside-folder", file="model.safetensors.index.json",
         pointer="/weight_map", files={"model.safetensors.index.json": json.dumps(
             {"weight_map": {"fc.weight": "../outside.safetensors"}}).encode()}),
    Case("DL004", "pass", "valid-shard"),
    Case("DL005", "fail", "index-names-wrong-shard", file="model.safetensors.index.json",
         pointer="/weight_map/fc.weight", files={"model.safetensors.index.json": "INDEX"}),
    Case("DL005", "pass", "index-matches-the-shard", files={"model.safetensors.index.json":
                                                            "GOOD-INDEX"}),
    Case("DL006", "fail", "broken-tokenizer", files={"tokenizer.json": b"{"},
         file="tokenizer.json", pointer=""),
    Case("DL006", "pass", "readable-tokenizer", files={
        "tokenizer.json": (TINY / "target" / "tokenizer.json").read_bytes()}),
    Case("DL007", "fail", "llama-config", weights=False, pointer="",
         raw='{"model_type": "llama", "architectures": ["LlamaForCausalLM"]}'),
    Case("DL007", "pass", "dflash-config"),
    Case("DL008", "fail", "float-hidden-size", ops=[("replace", "/hidden_size", 16.0)],
         pointer="/hidden_size"),
    Case("DL008", "fail", "string-bool", ops=[("replace", "/attention_bias", "false")],
         pointer="/attention_bias"),
    Case("DL008", "pass", "published-types"),
    Case("DL011", "fail", "overflowing-exponent-reads-as-infinity",
         raw=(TINY / "drafter" / "config.json").read_text().replace(
             '"rope_theta": 10000000', '"rope_theta": 1e400'), pointer="/rope_theta"),
    Case("DL011", "fail", "nan-eps", raw='{"rms_norm_eps": NaN, "dflash_config": {}}',
         pointer="/rms_norm_eps", weights=False),
    Case("DL011", "fail", "unbounded-limit-is-info",
         raw='{"time_step_limit": [0.0, Infinity], "dflash_config": {}}',
         pointer="/time_step_limit/1", severity="info", weights=False),
    # the literals appear in the text, so the walk over the numbers runs and finds them finite
    Case("DL011", "pass", "finite-numbers-walked", ops=[
        ("add", "/_comment", "no NaN or Infinity in the numbers")]),
    # mask token
    Case("DF107", "fail", "mask-is-the-configs-pad", ops=[("add", "/pad_token_id", 248070)],
         pointer=MASK),
    Case("DF107", "fail", "mask-is-the-targets-eos",
         target_ops=[("add", "/text_config/eos_token_id", [248044, 248070])], pointer=MASK),
    Case("DF107", "pass", "reserved-mask", ops=[("add", "/pad_token_id", 248044)]),
    Case("RP101", "fail", "partial-rotary-dflash", ops=[("add", "/partial_rotary_factor", 0.25)],
         pointer="/partial_rotary_factor", severity="info"),
    Case("RP101", "pass", "full-rotary", ops=[("add", "/partial_rotary_factor", 1.0)]),
    Case("DF101", "fail", "missing-for-the-reference", ops=[("remove", "/dflash_config")],
         pointer="/dflash_config", runtime="reference"),
    Case("DF101", "fail", "missing-is-a-fact-for-servers", ops=[("remove", "/dflash_config")],
         pointer="/dflash_config", severity="info"),
    Case("DF102", "pass", "top-level-mask-for-servers", ops=[
        ("remove", MASK), ("add", "/mask_token_id", 248070)]),
    Case("DF102", "fail", "top-level-mask-for-the-reference", ops=[
        ("remove", MASK), ("add", "/mask_token_id", 248070)], pointer=MASK, runtime="reference"),
    Case("DF102", "fail", "no-mask-anywhere", ops=[("remove", MASK)], pointer=MASK),
    # the runner is the path (issue 30): vLLM 0.25-0.27 read a top-level mask on V2 (the
    # default for a dense target), not on V1 (a hybrid target's)
    Case("DF102", "pass", "top-level-mask-dense-target-v2-0.25", ops=[
        ("remove", MASK), ("add", "/mask_token_id", 248070), *ALL_FULL],
        target_ops=DENSE_TARGET, runtime="vllm==0.25.0"),
    Case("DF102", "fail", "top-level-mask-hybrid-target-v1-0.25", ops=[
        ("remove", MASK), ("add", "/mask_token_id", 248070), *ALL_FULL], pointer=MASK,
        runtime="vllm==0.25.0"),
    Case("DF102", "fail", "no-mask-sglang-falls-back", ops=[("remove", MASK)], pointer=MASK,
         runtime="sglang", severity="warning"),
    Case("DF101", "fail", "not-object", ops=[("replace", "/dflash_config", [1])],
         pointer="/dflash_config"),
    Case("DF101", "pass", "present"),
    Case("DF102", "fail", "missing", ops=[("remove", MASK)], pointer=MASK),
    Case("DF102", "fail", "string", ops=[("replace", MASK, "248070")], pointer=MASK),
    Case("DF102", "fail", "bool", ops=[("replace", MASK, True)], pointer=MASK),
    Case("DF102", "pass", "integer"),
    Case("DF103", "fail", "equals-vocab-model-optimizer-1621",
         ops=[("replace", MASK, 248320)], pointer=MASK),
    Case("DF103", "fail", "negative", ops=[("replace", MASK, -1)], pointer=MASK),
    Case("DF103", "fail", "beyond-target-vocab", ops=[("replace", MASK, 200000)],
         target_ops=[("replace", "/text_config/vocab_size", 151936)], pointer=MASK),
    Case("DF103", "pass", "last-id", ops=[("replace", MASK, 248319)]),
    Case("DF104", "fail", "qwen3-mask-is-text-in-qwen3.6", ops=[("replace", MASK, 151669)],
         pointer=MASK),
    Case("DF104", "fail", "tokenizer-beside-the-drafter", ops=[("replace", MASK, 151669)],
         target=False, files={"tokenizer.json": (TINY / "target" / "tokenizer.json").read_bytes()},
         pointer=MASK),
    Case("DF104", "fail", "non-special-added-token", ops=[("replace", MASK, 248071)],
         target=False, severity="warning", pointer=MASK, files={"tokenizer_config.json": json.dumps(
             {"added_tokens_decoder": {"248071": {"content": "<think>", "special": False}}}
         ).encode()}),
    Case("DF104", "pass", "special-token"),
    Case("DF104", "pass", "reserved-id-not-in-tokenizer", ops=[("replace", MASK, 248100)]),
    Case("DF105", "fail", "qwen3-id-on-qwen3.6-vocab", ops=[("replace", MASK, 151669)],
         target=False, pointer=MASK),
    Case("DF105", "fail", "own-choice-speculators-613", ops=[("replace", MASK, 248077)],
         target=False, pointer=MASK, severity="info"),
    Case("DF105", "pass", "family-id"),
    Case("DF105", "pass", "unknown-vocab", ops=[("replace", "/vocab_size", 32000),
                                                ("replace", MASK, 5)], target=False),
    Case("DF106", "fail", "top-level-mask-differs", ops=[("add", "/mask_token_id", 151669)],
         pointer="/mask_token_id"),
    Case("DF106", "fail", "nested-block-size-differs",
         ops=[("add", "/dflash_config/block_size", 8)], pointer="/dflash_config/block_size"),
    Case("DF106", "pass", "equal-copies", ops=[("add", "/mask_token_id", 248070)]),
    # taps
    Case("DF110", "fail", "missing", ops=[("remove", TAPS)], pointer=TAPS),
    Case("DF110", "fail", "repeated", ops=[("replace", TAPS, [1, 6, 6, 16, 21])],
         pointer=TAPS + "/2"),
    Case("DF110", "fail", "decreasing", ops=[("replace", TAPS, [1, 11, 6, 16, 21])],
         pointer=TAPS + "/2"),
    Case("DF110", "fail", "string-id", ops=[("replace", TAPS, [1, "6", 11, 16, 21])],
         pointer=TAPS + "/1"),
    Case("DF110", "fail", "empty", ops=[("replace", TAPS, [])], pointer=TAPS),
    Case("DF110", "pass", "increasing"),
    Case("DF110", "fail", "no-taps-for-vllm", ops=[("remove", TAPS)], pointer=TAPS,
         runtime="vllm"),
    Case("DF110", "pass", "no-taps-sglang-derives-them", ops=[("remove", TAPS)],
         runtime="sglang"),
    Case("DF110", "fail", "null-taps-torchspec-947d3f5", ops=[
        ("remove", TAPS), ("add", "/target_layer_ids", None)], pointer="/target_layer_ids",
         runtime="vllm"),
    Case("DF110", "pass", "aux-ids-for-vllm", ops=[
        ("remove", TAPS), ("add", "/eagle_aux_hidden_state_layer_ids", [2, 7, 12, 17, 22])],
         runtime="vllm"),
    Case("DF111", "fail", "tap-at-depth", ops=[("replace", TAPS, [1, 6, 11, 16, 24])],
         target=False, pointer=TAPS + "/4"),
    Case("DF111", "pass", "in-range"),
    Case("DF111", "fail", "torchspec-layout-on-sglang", ops=[("add", "/target_num_hidden_layers", 24), ("replace", "/num_target_layers", 5)], target=False,
         runtime="sglang", pointer="/num_target_layers"),
    Case("DF111", "pass", "torchspec-layout-on-vllm", ops=[("add", "/target_num_hidden_layers", 24), ("replace", "/num_target_layers", 5)], target=False, runtime="vllm"),
    Case("DF111", "pass", "vllm-does-not-check-it", ops=[("replace", TAPS, [1, 6, 11, 16, 24])],
         target=False, runtime="vllm"),
    Case("DF112", "fail", "tap-at-depth-speculators-705",
         ops=[("replace", TAPS, [1, 6, 11, 16, 24])], pointer=TAPS + "/4"),
    Case("DF112", "fail", "tap-beyond-target", ops=[("replace", TAPS, [1, 6, 11, 16, 30]),
                                                   ("replace", "/num_target_layers", 32)],
         pointer=TAPS + "/4"),
    Case("DF112", "fail", "last-layer-in-sglang", ops=[("replace", TAPS, [1, 6, 11, 16, 23])],
         pointer=TAPS + "/4", severity="warning"),
    Case("DF112", "pass", "last-layer-in-vllm", ops=[("replace", TAPS, [1, 6, 11, 16, 23])],
         runtime="vllm"),
    Case("DF112", "pass", "in-range"),
    Case("DF113", "fail", "four-taps-five-tap-fc", ops=[("replace", TAPS, [1, 6, 11, 16])],
         pointer=TAPS),
    Case("DF113", "fail", "fc-for-four-taps", tensors=lambda ts: [
        ["fc.weight", "F16", [16, 64]] if t[0] == "fc.weight" else t for t in ts], pointer=TAPS),
    Case("DF113", "pass", "five-taps"),
    Case("DF114", "fail", "shifted-plus-one", ops=[("replace", TAPS, [2, 7, 12, 17, 22])],
         pointer=TAPS, severity="error"),
    Case("DF114", "fail", "shifted-minus-one", ops=[("replace", TAPS, [0, 5, 10, 15, 20])],
         pointer=TAPS, severity="error"),
    Case("DF114", "fail", "custom-spacing", ops=[("replace", TAPS, [1, 5, 11, 16, 21])],
         pointer=TAPS, severity="info"),
    Case("DF114", "pass", "default-spacing"),
    Case("DF115", "fail", "other-target-depth", ops=[("replace", "/num_target_layers", 36)],
         pointer="/num_target_layers"),
    Case("DF115", "pass", "same-depth"),
    Case("DF115", "fail", "torchspec-depth-field-d2836ed", ops=[
        ("add", "/target_num_hidden_layers", 28), ("replace", "/num_target_layers", 5)],
         pointer="/target_num_hidden_layers"),
    Case("DF115", "pass", "torchspec-tap-count", ops=[("add", "/target_num_hidden_layers", 24), ("replace", "/num_target_layers", 5)]),
    Case("DF116", "fail", "missing", ops=[("remove", "/num_target_layers")],
         pointer="/num_target_layers"),
    Case("DF116", "fail", "missing-for-the-reference", ops=[("remove", "/num_target_layers")],
         pointer="/num_target_layers", runtime="reference", severity="warning"),
    Case("DF116", "pass", "present"),
    Case("DF116", "fail", "missing-taps-checked-against-the-draft-sglang-0.5.17",
         ops=[("remove", "/num_target_layers")], pointer="/num_target_layers",
         runtime="sglang==0.5.17", severity="error"),
    Case("DF116", "fail", "missing-dspark-not-checked-sglang-0.5.17",
         ops=[("remove", "/num_target_layers"), ("replace", "/architectures",
                                                 ["DSparkDraftModel"]),
              ("add", "/markov_rank", 8)], pointer="/num_target_layers",
         runtime="sglang==0.5.17", severity="info"),
    Case("DF116", "fail", "missing-largest-tap-taken-sglang-0.5.18",
         ops=[("remove", "/num_target_layers")], pointer="/num_target_layers",
         runtime="sglang==0.5.18", severity="info"),
    Case("DF117", "fail", "unshifted-aux",
         ops=[("add", "/eagle_aux_hidden_state_layer_ids", [1, 6, 11, 16, 21])],
         pointer="/eagle_aux_hidden_state_layer_ids"),
    Case("DF117", "pass", "aux-is-taps-plus-one",
         ops=[("add", "/eagle_aux_hidden_state_layer_ids", [2, 7, 12, 17, 22])]),
    # drafter layers
    Case("DF120", "fail", "one-short", ops=[("remove", "/layer_types/4")], pointer="/layer_types"),
    Case("DF120", "fail", "unknown-kind", ops=[("replace", "/layer_types/0", "sliding")],
         pointer="/layer_types/0"),
    Case("DF120", "fail", "string", ops=[("replace", "/layer_types", "sliding_attention")],
         pointer="/layer_types"),
    Case("DF120", "pass", "one-per-layer"),
    Case("DF121", "fail", "missing", ops=[("remove", "/layer_types")], pointer="/layer_types"),
    Case("DF121", "pass", "explicit"),
    Case("DF122", "fail", "null-window", ops=[("replace", "/sliding_window", None)],
         pointer="/sliding_window"),
    Case("DF122", "fail", "missing-window", ops=[("remove", "/sliding_window")],
         pointer="/sliding_window"),
    Case("DF122", "pass", "window-set"),
    Case("DF122", "pass", "swa-window-size-for-vllm", ops=[
        ("replace", "/sliding_window", None), ("add", "/dflash_config/swa_window_size", 2048)],
         runtime="vllm"),
    Case("DF122", "pass", "no-sliding-layers", ops=[
        ("replace", "/layer_types", ["full_attention"] * 5), ("replace", "/sliding_window", None)]),
    Case("DF123", "fail", "window-below-block", ops=[("replace", "/sliding_window", 8)],
         pointer="/sliding_window"),
    Case("DF123", "pass", "window-equals-block", ops=[("replace", "/sliding_window", 16)]),
    Case("DF124", "fail", "switched-off", ops=[("replace", "/use_sliding_window", False)],
         pointer="/use_sliding_window"),
    Case("DF124", "fail", "absent", ops=[("remove", "/use_sliding_window")],
         pointer="/use_sliding_window"),
    Case("DF124", "pass", "switched-on"),
    Case("DF125", "fail", "mixed", pointer="/layer_types"),
    Case("DF125", "fail", "mixed-refused-by-0.25-on-either-runner", pointer="/layer_types",
         runtime="vllm==0.25.0", severity="error"),
    Case("DF125", "pass", "all-full", ops=[("replace", "/layer_types", ["full_attention"] * 5)]),
    # RD101 on DFlash windows (mutation caught: a window-sources row's range or value)
    Case("RD101", "fail", "sliding-layers-unwindowed-on-sglang-0.5.13", pointer="/layer_types",
         runtime="sglang==0.5.13", severity="error"),
    Case("RD101", "fail", "sliding-layers-unwindowed-on-vllm-0.24", pointer="/layer_types",
         runtime="vllm==0.24.0", severity="error"),
    Case("RD101", "pass", "sliding-layers-windowed-on-sglang-0.5.14", runtime="sglang==0.5.14"),
    Case("RD101", "pass", "all-full-on-sglang-0.5.13", runtime="sglang==0.5.13",
         ops=[("replace", "/layer_types", ["full_attention"] * 5)]),
    # DF144 (mutation caught: the self-contained-model-types rows' ranges or values)
    Case("DF144", "fail", "qwen3-dspark-on-vllm-0.26", pointer="/architectures",
         runtime="vllm==0.26.0", ops=[("replace", "/architectures", ["DSparkDraftModel"]),
                                      ("add", "/markov_rank", 8)]),
    Case("DF144", "pass", "qwen3-dspark-on-vllm-0.29", runtime="vllm==0.29.0",
         ops=[("replace", "/architectures", ["DSparkDraftModel"]), ("add", "/markov_rank", 8)]),
    Case("DF144", "pass", "qwen3-dspark-class-on-vllm-0.26", runtime="vllm==0.26.0",
         ops=[("replace", "/architectures", ["Qwen3DSparkModel"]), ("add", "/markov_rank", 8)]),
    # RP102 (mutation caught: the raises-max-position rows' ranges or methods)
    Case("RP102", "fail", "short-draft-on-vllm-0.29-57941", pointer="/max_position_embeddings",
         runtime="vllm==0.29.0", ops=[("replace", "/max_position_embeddings", 4096)],
         target_ops=[("add", "/text_config/max_position_embeddings", 40960)]),
    Case("RP102", "pass", "short-draft-raised-by-vllm-0.33", runtime="vllm==0.33.0",
         ops=[("replace", "/max_position_embeddings", 4096)],
         target_ops=[("add", "/text_config/max_position_embeddings", 40960)]),
    Case("RP102", "fail", "yarn-draft-caps-on-vllm-0.33", pointer="/max_position_embeddings",
         runtime="vllm==0.33.0", severity="warning",
         ops=[("replace", "/max_position_embeddings", 4096),
              ("add", "/rope_scaling", {"rope_type": "yarn", "factor": 4.0,
                                         "original_max_position_embeddings": 1024})],
         target_ops=[("add", "/text_config/max_position_embeddings", 40960)]),
    Case("RP102", "pass", "served-context-fits", runtime="vllm==0.29.0",
         ops=[("replace", "/max_position_embeddings", 4096)],
         target_ops=[("add", "/text_config/max_position_embeddings", 40960)],
         launch={"runtime": "vllm", "max_model_len": 4096}),
    Case("DF126", "pass", "no-flag-servers-agree", ops=[("remove", "/is_causal")]),
    Case("DF126", "pass", "explicit-flag"),
    Case("DF126", "fail", "dflash-config-causal-read-by-vllm-only", ops=[
        ("remove", "/is_causal"), ("add", "/dflash_config/causal", False)],
         pointer="/dflash_config/causal"),
    Case("DF127", "fail", "missing", ops=[("remove", "/block_size")], pointer="/block_size",
         severity="info"),
    Case("DF127", "fail", "nested-only-for-the-reference", ops=[
        ("remove", "/block_size"), ("add", "/dflash_config/block_size", 16)],
         pointer="/block_size", runtime="reference"),
    Case("DF127", "fail", "one", ops=[("replace", "/block_size", 1)], pointer="/block_size"),
    Case("DF127", "pass", "sixteen"),
    Case("DF127", "pass", "nested-only", ops=[("remove", "/block_size"),
                                             ("add", "/dflash_config/block_size", 16)]),
    # weights
    Case("DF130", "fail", "layer-missing", tensors=drop("layers.4."),
         pointer="/layers.4.self_attn.q_proj.weight", file=ST),
    Case("DF130", "fail", "extra-layer", ops=[("replace", "/num_hidden_layers", 4),
                                              ("remove", "/layer_types/4")],
         pointer="/layers.4.input_layernorm.weight", file=ST),
    Case("DF130", "pass", "all-layers"),
    Case("DF131", "fail", "down-proj-missing", tensors=drop("layers.2.mlp.down_proj"),
         pointer="/layers.2.mlp.down_proj.weight", file=ST),
    Case("DF131", "fail", "fc-missing", tensors=drop("fc."), pointer="/fc.weight", file=ST),
    Case("DF131", "pass", "complete"),
    Case("DF131", "pass", "no-fc-without-aux", tensors=drop("fc."),
         ops=[("add", "/dflash_config/use_aux_hidden_state", False)]),
    Case("DF132", "fail", "bias-without-attention-bias",
         tensors=extra(("layers.0.self_attn.q_proj.bias", "F16", [16])),
         pointer="/layers.0.self_attn.q_proj.bias", file=ST),
    Case("DF132", "pass", "bias-with-attention-bias", ops=[("replace", "/attention_bias", True)],
         tensors=extra(*[(f"layers.{i}.self_attn.{p}_proj.bias", "F16", [n])
                         for i in range(5) for p, n in (("q", 16), ("k", 8), ("v", 8), ("o", 16))])),
    Case("DF133", "fail", "kv-heads-disagree", ops=[("replace", "/num_key_value_heads", 2)],
         pointer="/layers.0.self_attn.k_proj.weight", file=ST),
    Case("DF133", "fail", "intermediate-disagrees", ops=[("replace", "/intermediate_size", 64)],
         pointer="/layers.0.mlp.gate_proj.weight", file=ST),
    Case("DF133", "pass", "shapes-match"),
    Case("DF134", "fail", "mask-hidden", tensors=extra(("mask_hidden", "F16", [16])),
         pointer="/mask_hidden", file=ST),
    Case("DF134", "pass", "none"),
    Case("DF135", "fail", "own-embeddings", tensors=extra(("embed_tokens.weight", "F16",
                                                           [248320, 16])),
         pointer="/embed_tokens.weight", file=ST),
    Case("DF135", "pass", "shared-embeddings"),
    Case("DF136", "fail", "dflash2-architecture",
         ops=[("replace", "/architectures", ["DFlash2DraftModel"])], pointer="/architectures"),
    Case("DF136", "fail", "dflash2-tensors", tensors=extra(("candidate_selector.weight", "F16",
                                                            [16, 16])), pointer="/architectures"),
    Case("DF136", "pass", "v1"),
    # against the target
    Case("DF140", "fail", "narrower-target", target_ops=[("replace", "/text_config/hidden_size", 32)],
         pointer="/hidden_size"),
    Case("DF140", "fail", "target-hidden-size-differs", ops=[("add", "/target_hidden_size", 8)],
         pointer="/target_hidden_size"),
    Case("DF140", "pass", "same-width"),
    Case("DF141", "fail", "qwen3-vocab-target",
         target_ops=[("replace", "/text_config/vocab_size", 151936)], pointer="/vocab_size"),
    Case("DF141", "pass", "same-vocab"),
    Case("DF142", "fail", "llama-model-type", ops=[("replace", "/model_type", "llama")],
         pointer="/model_type"),
    Case("DF142", "fail", "no-architectures", ops=[("remove", "/architectures")],
         pointer="/architectures"),
    # start-up: the runtime's registries and context check (oracle-recorded refusals)
    Case("DL012", "fail", "domino-class", ops=[("replace", "/architectures",
                                                 ["DominoDraftModel"])],
         pointer="/architectures"),
    Case("DL012", "fail", "xpress-class-on-sglang", ops=[("replace", "/architectures",
                                                          ["Qwen3XPressModel"])],
         pointer="/architectures", runtime="sglang"),
    Case("DL012", "pass", "xpress-class-renamed-by-vllm",
         ops=[("replace", "/architectures", ["Qwen3XPressModel"])], runtime="vllm"),
    Case("DL012", "pass", "z-lab-class"),
    # review M05: one registered class among several is served (any, not all)
    Case("DL012", "pass", "one-of-two-classes-registered",
         ops=[("replace", "/architectures", ["DFlashDraftModel", "NoSuchDraftModel"])]),
    Case("DL013", "fail", "short-draft-context-sglang",
         ops=[("replace", "/max_position_embeddings", 4096)], pointer="/max_position_embeddings",
         target_ops=[("add", "/text_config/max_position_embeddings", 262144)],
         runtime="sglang"),
    Case("DL013", "pass", "short-draft-context-vllm-raises-it",
         ops=[("replace", "/max_position_embeddings", 4096)],
         target_ops=[("add", "/text_config/max_position_embeddings", 262144)], runtime="vllm"),
    Case("DL013", "pass", "same-context"),
    Case("DL013", "pass", "short-draft-context-sglang-0.5.0rc2-allowed-it",
         ops=[("replace", "/max_position_embeddings", 4096)],
         target_ops=[("add", "/text_config/max_position_embeddings", 262144)],
         runtime="sglang==0.5.0rc2"),
    Case("DF118", "fail", "taps-read-without-the-plus-one-vllm-0.21", runtime="vllm==0.21.0",
         pointer="/dflash_config/target_layer_ids"),
    Case("DF118", "pass", "taps-read-as-trained-vllm-0.22", runtime="vllm==0.22.0"),
    Case("DF118", "pass", "vllm-aux-ids-in-vllm-convention-0.21", runtime="vllm==0.21.0",
         ops=[("add", "/eagle_aux_hidden_state_layer_ids", [2, 17, 32, 47, 62])]),
    Case("DL016", "fail", "dflash-for-a-glm-target-on-0.21", pointer="",
         target_ops=[("replace", "/text_config/model_type", "glm4_moe")], runtime="vllm==0.21.0"),
    Case("DL016", "pass", "dflash-for-a-glm-target-on-0.22-unchecked",
         target_ops=[("replace", "/text_config/model_type", "glm4_moe")], runtime="vllm==0.22.0"),
    Case("DL016", "pass", "dflash-for-a-qwen-target-on-0.20", runtime="vllm==0.20.0"),
    Case("DL014", "fail", "torchspec-model-type", ops=[("replace", "/model_type", "dflash")],
         pointer="/model_type"),
    Case("DL014", "pass", "qwen3"),
    Case("DF128", "fail", "sample-from-anchor-vllm-v2", ops=[
        ("add", "/dflash_config/sample_from_anchor", True)],
         pointer="/dflash_config/sample_from_anchor"),
    Case("DF128", "pass", "sample-from-anchor-false", ops=[
        ("add", "/dflash_config/sample_from_anchor", False)]),
    Case("DF128", "pass", "sample-from-anchor-not-judged-for-sglang", ops=[
        ("add", "/dflash_config/sample_from_anchor", True)], runtime="sglang"),
    # V2 refuses it from 0.27.0, on a dense target's default runner; V1 never reads it
    Case("DF128", "fail", "sample-from-anchor-dense-target-0.27", ops=[
        ("add", SAMPLE, True), *ALL_FULL], target_ops=DENSE_TARGET, runtime="vllm==0.27.0",
         pointer=SAMPLE),
    Case("DF128", "pass", "sample-from-anchor-hybrid-target-v1-0.27", ops=[
        ("add", SAMPLE, True), *ALL_FULL], runtime="vllm==0.27.0"),
    Case("DF128", "pass", "sample-from-anchor-v1-asked", ops=[("add", SAMPLE, True)],
         runtime="vllm", launch={"runtime": "vllm",
                                 "env": {"VLLM_USE_V2_MODEL_RUNNER": "0"}}),
    # LCH103: V1 refuses a DFlash2 draft from 0.29.0; 0.28.0 serves it as DFlash1
    Case("LCH103", "fail", "dflash2-on-v1-0.29", ops=[
        ("replace", "/architectures", ["DFlash2DraftModel"]), *ALL_FULL],
         launch={"runtime": "vllm", "release": "vllm==0.29.0",
                 "env": {"VLLM_USE_V2_MODEL_RUNNER": "0"}}, runtime="vllm==0.29.0",
         pointer=""),
    Case("LCH103", "pass", "dflash2-on-v1-0.28-is-not-refused", ops=[
        ("replace", "/architectures", ["DFlash2DraftModel"]), *ALL_FULL],
         launch={"runtime": "vllm", "release": "vllm==0.28.0",
                 "env": {"VLLM_USE_V2_MODEL_RUNNER": "0"}}, runtime="vllm==0.28.0"),
    Case("LCH105", "fail", "omni-dspark-fewer-tokens-than-block", ops=OMNI_DSPARK,
         launch={"runtime": "vllm", "method": "dspark", "num_speculative_tokens": 8},
         runtime="vllm", pointer="/block_size"),
    Case("LCH105", "pass", "omni-dspark-tokens-equal-block", ops=OMNI_DSPARK,
         launch={"runtime": "vllm", "method": "dspark", "num_speculative_tokens": 16},
         runtime="vllm"),
    Case("LCH105", "pass", "generic-dspark-fewer-tokens", ops=OMNI_DSPARK[1:] + [
        ("replace", "/architectures", ["Qwen3DSparkModel"])],
         launch={"runtime": "vllm", "method": "dspark", "num_speculative_tokens": 8},
         runtime="vllm"),
    Case("LCH106", "fail", "runtime-start-up-refused", launch={
        "runtime": "vllm", "dry_run": {
            "verdict": "refused", "runtime": "vllm", "version": "0.33.0",
            "where": "vllm/engine/arg_utils.py:2883",
            "message": "Model Runner V1 does not support: mixed sliding/full dflash drafts"}},
         pointer=""),
    Case("LCH106", "pass", "runtime-start-up-accepted", launch={
        "runtime": "vllm", "dry_run": {"verdict": "accepted", "runtime": "vllm"}}),
    Case("LCH106", "pass", "dry-run-not-judged", launch={
        "runtime": "vllm", "dry_run": {"verdict": "unavailable", "message": "timed out"}}),
    Case("DF143", "fail", "dspark-without-markov-rank",
         ops=[("replace", "/architectures", ["DSparkDraftModel"])], pointer="/markov_rank"),
    Case("DF143", "fail", "rank-only-under-dflash-config",
         ops=[("replace", "/architectures", ["DSparkDraftModel"]),
              ("add", "/dflash_config/markov_rank", 8)], pointer="/markov_rank"),
    # review M10: a rank of 0 is no rank (SGLang refuses rank <= 0)
    Case("DF143", "fail", "zero-rank",
         ops=[("replace", "/architectures", ["DSparkDraftModel"]), ("add", "/markov_rank", 0)],
         pointer="/markov_rank"),
    Case("DF143", "pass", "top-level-rank",
         ops=[("replace", "/architectures", ["DSparkDraftModel"]), ("add", "/markov_rank", 8)]),
    # the oracle's weights layer: vLLM 0.33.0's own load leaves both parameters unfilled
    Case("DF145", "fail", "dflash-weights-under-a-dspark-config",
         ops=[("replace", "/architectures", ["DSparkDraftModel"]), ("add", "/markov_rank", 8)],
         pointer="/markov_rank"),
    Case("DF145", "pass", "markov-head-shipped",
         ops=[("replace", "/architectures", ["DSparkDraftModel"]), ("add", "/markov_rank", 8)],
         tensors=extra(("markov_head.markov_w1.weight", "F16", [248320, 8]),
                       ("markov_head.markov_w2.weight", "F16", [248320, 8]))),
    Case("DF142", "pass", "z-lab-values"),
    # against the published config
    Case("REF101", "fail", "incident-mask", ops=[("replace", MASK, 151669)], pointer=MASK),
    Case("REF101", "fail", "taps-list", ops=[("replace", TAPS, [2, 7, 12, 17, 22])],
         pointer=TAPS),
    Case("REF101", "fail", "string-window", ops=[("replace", "/sliding_window", "2048")],
         pointer="/sliding_window"),
    Case("REF101", "fail", "missing-here", ops=[("remove", "/is_causal")], pointer="/is_causal"),
    Case("REF101", "fail", "int-for-bool", ops=[("replace", "/is_causal", 0)],
         pointer="/is_causal"),
    Case("REF101", "pass", "same-as-published"),
    Case("REF102", "fail", "bos-differs", ops=[("add", "/bos_token_id", 1)],
         reference=[("add", "/bos_token_id", 248044)], pointer="/bos_token_id"),
    Case("REF102", "pass", "same-bos", ops=[("add", "/bos_token_id", 248044)],
         reference=[("add", "/bos_token_id", 248044)]),
    Case("REF103", "fail", "transformers-version", ops=[("add", "/transformers_version", "4.57.3")],
         reference=[("add", "/transformers_version", "5.15.0")], pointer="/transformers_version"),
    Case("REF103", "fail", "dtype-spelling", ops=[("remove", "/dtype"),
                                                  ("add", "/torch_dtype", "bfloat16")],
         pointer="/torch_dtype"),
    Case("REF103", "pass", "same-as-published"),
    # what transformers loads
    Case("TF101", "fail", "string-layer-count", ops=[("replace", "/num_hidden_layers", "5")],
         pointer=""),
    Case("TF101", "fail", "unknown-model-type", ops=[("replace", "/model_type", "qwen9")],
         pointer="/model_type", severity="info"),
    Case("TF101", "pass", "dflash-type-is-dl014", ops=[("replace", "/model_type", "dflash")]),
    Case("TF101", "pass", "loads"),
    Case("TF102", "pass", "window-nulled-is-reported-by-df124",
         ops=[("replace", "/use_sliding_window", False)]),
    Case("TF102", "fail", "rope-theta-beside-rope-parameters", ops=[
        ("add", "/rope_parameters", {"rope_type": "default", "rope_theta": 1000000.0})],
         pointer="/rope_theta", transformers="5"),
    Case("TF102", "fail", "rope-scaling-replaces-rope-parameters", ops=[
        ("remove", "/rope_theta"),
        ("add", "/rope_parameters", {"rope_type": "default", "rope_theta": 10000000.0}),
        ("add", "/rope_scaling", {"rope_type": "yarn", "factor": 4.0,
                                  "original_max_position_embeddings": 32768})],
         pointer="/rope_parameters", transformers="5"),
    Case("TF102", "fail", "torch-dtype-and-dtype", ops=[("add", "/torch_dtype", "float16")],
         pointer="/torch_dtype", severity="warning"),
    Case("TF102", "fail", "generation-key-dropped", ops=[("add", "/max_length", 20)],
         pointer="/max_length", severity="warning", transformers="5"),
    Case("TF102", "pass", "kept-as-written"),
    Case("TF102", "pass", "verbatim-qwen3-4b-style", ops=[
        ("replace", "/layer_types", ["full_attention"] * 5), ("replace", "/sliding_window", None),
        ("replace", "/use_sliding_window", False), ("add", "/rope_scaling", None)]),
    Case("TF103", "pass", "default-hidden-act-is-intended", ops=[("remove", "/hidden_act")]),
    Case("TF103", "fail", "max-window-layers-filled", ops=[("remove", "/layer_types"),
                                                          ("remove", "/max_window_layers")],
         pointer="/max_window_layers"),
    Case("TF103", "fail", "rope-default", ops=[("remove", "/rope_theta")], pointer="/rope_theta"),
    Case("TF103", "pass", "all-written"),
    Case("TF104", "fail", "flat-qwen3-5", ops=[("replace", "/model_type", "qwen3_5")],
         pointer="/hidden_size", transformers="5"),
    Case("TF104", "pass", "qwen3"),
    Case("TF104", "pass", "qwen3-5-fields-nested", ops=NESTED_QWEN35, transformers="5"),
    Case("TF105", "fail", "token-id-beyond-vocab", ops=[("add", "/mask_token_id", 300000)],
         pointer="", transformers="5"),
    Case("TF105", "pass", "clean-load"),
    Case("TF106", "fail", "rope-parameters-only", ops=[
        ("remove", "/rope_theta"), ("add", "/rope_parameters", {"rope_theta": 10000000})],
         pointer="/rope_parameters/rope_theta", severity="info"),
    Case("TF106", "fail", "rope-parameters-only-for-the-reference", ops=[
        ("remove", "/rope_theta"), ("add", "/rope_parameters", {"rope_theta": 10000000})],
         pointer="/rope_parameters/rope_theta", runtime="reference", severity="error"),
    Case("TF106", "pass", "top-level-theta"),
    Case("TF106", "fail", "float-in-an-int-field", ops=[("replace", "/hidden_size", 16.0)],
         pointer="/hidden_size", severity="info"),
]


def build(case: Case, root) -> tuple:
    drafter = root / "drafter"
    drafter.mkdir()
    config = json.loads((TINY / "drafter" / "config.json").read_text())
    if case.raw is not None:
        (drafter / "config.json").write_text(case.raw, encoding="utf-8")
    else:
        write_json(drafter / "config.json", apply_ops(config, case.ops))
    tensors = base_tensors()
    if case.tensors:
        tensors = case.tensors(tensors)
    if case.weights:
        write_safetensors(drafter / ST, tensors, {"format": "pt"})
    for name, content in case.files.items():
        if content == "GOOD-INDEX":
            content = json.dumps({"metadata": {}, "weight_map": {t[0]: ST for t in tensors}}
                                 ).encode()
        if content == "INDEX":
            weight_map = {t[0]: ST for t in tensors}
            weight_map["fc.weight"] = "model-00002-of-00002.safetensors"
            write_safetensors(drafter / "model-00002-of-00002.safetensors", [], None)
            content = json.dumps({"metadata": {}, "weight_map": weight_map}).encode()
        (drafter / name).write_bytes(content)
    reference = None
    if case.reference is not None:
        folder = root / "published"
        write_json(folder / "config.json", apply_ops(config, case.reference))
        reference = read_reference(str(folder))
    target = None
    if case.target:
        shutil.copytree(TINY / "target", root / "target")
        target_config = json.loads((root / "target" / "config.json").read_text())
        write_json(root / "target" / "config.json", apply_ops(target_config, case.target_ops))
        target = read_target(root / "target", display="target")
    return read_checkpoint(drafter, "drafter"), target, reference


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rule_case(case: Case, tmp_path):
    if case.transformers:
        from drafter_lint.loading import transformers_version

        if (transformers_version() or "").split(".")[0] != case.transformers:
            pytest.skip(f"pins transformers {case.transformers}.x behaviour")
    checkpoint, target, reference = build(case, tmp_path)
    result = lint(checkpoint, options(rules=RULES, target=target, reference=reference,
                                      runtime=case.runtime, launch=case.launch))
    mine = [f for f in result.findings if f.rule == case.rule]
    # each rule's fixes are what it declares (fix availability and applicability)
    assert not [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))], \
        [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))]
    # `rules` / `explain` list every severity a rule fires at (DF114 is info and error)
    assert all(f.severity.value in RULES[f.rule].severities for f in result.findings), \
        [(f.rule, f.severity.value, RULES[f.rule].severities) for f in result.findings]
    skipped = [s.rule for s in result.skipped]
    assert case.rule not in skipped, f"{case.rule} was skipped"
    if case.outcome == "pass":
        assert mine == [], [f.message for f in mine]
        return
    assert mine, f"{case.rule} did not fire; got {[(f.rule, f.message) for f in result.findings]}"
    hit = [f for f in mine if f.pointer == case.pointer and f.file == case.file]
    assert hit, [(f.file, f.pointer, f.message) for f in mine]
    expected = case.severity or RULES[case.rule].severity.value
    assert hit[0].severity.value == expected
    assert hit[0].message
    if hit[0].fix is not None and case.file == "config.json":
        assert_fix_repairs(case, hit[0], tmp_path, target, reference)


def assert_fix_repairs(case: Case, finding, root, target, reference) -> None:
    """The fix's resulting document no longer draws the finding. Mutation caught: a fix
    that writes the wrong value (a wrong DF117 list, a DF114 shift kept)."""
    path = root / "drafter" / "config.json"
    edits = [(e["op"], e["path"], *([e["value"]] if "value" in e else []))
             for e in finding.fix.edits]
    path.write_text(json.dumps(apply_ops(json.loads(path.read_text()), edits)))
    again = lint(read_checkpoint(root / "drafter", "drafter"), options(
        rules=RULES, target=target, reference=reference, runtime=case.runtime))
    left = [f.message for f in again.findings
            if f.rule == case.rule and f.pointer == case.pointer]
    assert left == [], (finding.fix.edits, left)


def test_every_rule_has_a_passing_and_a_failing_case():
    from test_card import CARD_CASES, CARD_CASES_ELSEWHERE
    from test_families import FAMILY_CASES
    from test_formats_config import SUPPRESSION_CASES
    from test_gate import GATE_CASES

    outcomes = {(c.rule, c.outcome) for c in CASES + FAMILY_CASES} | set(SUPPRESSION_CASES) \
        | {(rule, outcome) for rule, outcome, *_ in GATE_CASES + CARD_CASES} \
        | set(CARD_CASES_ELSEWHERE)
    missing = [(code, o) for code in RULES for o in ("pass", "fail") if (code, o) not in outcomes]
    assert missing == []


def test_the_correct_tiny_drafter_has_no_error_or_warning(tmp_path):
    checkpoint, target, reference = build(Case("-", "pass", "base"), tmp_path)
    result = lint(checkpoint, Options(rules=RULES, target=target, reference=reference))
    assert [(f.rule, f.severity.value) for f in result.findings] == [("DF125", "info")]
    assert {s.rule for s in result.skipped} == {c for c, r in RULES.items()
                                                if "launch" in r.needs and r.family != "mtp"
                                                and "card" not in r.needs}
