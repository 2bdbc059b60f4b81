"""DFlash (z-lab, v1) drafter rules: the safetensors weights against config.json.

Shapes follow the reference drafter (z-lab/dflash `dflash/model.py`) and vLLM's
`qwen3_dflash.py` `load_weights` (vllm==0.33.0 model_executor/models/qwen3_dflash.py).
"""

from __future__ import annotations

import re

from drafter_lint.rules.dflash import taps_of

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.registry import rule

DFLASH2_MARKERS = ("candidate_selector.", ".attention_conv.", ".mlp_conv.")
OPTIONAL_TENSORS = ("embed_tokens.weight", "lm_head.weight", "d2t", "t2d")
LAYER_TENSOR = re.compile(r"^layers\.(\d+)\.(.+)$")
QWEN3_KV_HEADS, QWEN3_HEAD_DIM = 32, 128   # transformers' Qwen3Config defaults


def _geometry(facts: Facts) -> dict | None:
    """Expected tensor shapes from the config, or None when the numbers are not usable."""
    H = facts.int("/hidden_size")
    nh = facts.int("/num_attention_heads")
    I = facts.int("/intermediate_size")
    if not (H and nh and I and H > 0 and nh > 0 and I > 0):
        return None
    # what the config class fills when unwritten: Qwen3Config (a DFlash config's class when
    # it names qwen3 or nothing) 32 key/value heads of 128 (transformers==5.25.0 and 4.57.6
    # Qwen3Config), which vLLM builds from (qwen3_dflash.py:199); others nh and H // nh
    qwen3 = facts.get("/model_type", None) in (None, "qwen3")
    nkv = facts.int("/num_key_value_heads") or (QWEN3_KV_HEADS if qwen3 else nh)
    d = facts.int("/head_dim") or (QWEN3_HEAD_DIM if qwen3 else H // nh)
    T = facts.int("/target_hidden_size") or H
    taps = taps_of(facts)
    per_layer = {
        "input_layernorm.weight": (H,), "post_attention_layernorm.weight": (H,),
        "self_attn.q_proj.weight": (nh * d, H), "self_attn.k_proj.weight": (nkv * d, H),
        "self_attn.v_proj.weight": (nkv * d, H), "self_attn.o_proj.weight": (H, nh * d),
        "self_attn.q_norm.weight": (d,), "self_attn.k_norm.weight": (d,),
        "mlp.gate_proj.weight": (I, H), "mlp.up_proj.weight": (I, H),
        "mlp.down_proj.weight": (H, I),
    }
    if facts.get("/attention_bias", False) is True:
        per_layer.update({"self_attn.q_proj.bias": (nh * d,), "self_attn.k_proj.bias": (nkv * d,),
                          "self_attn.v_proj.bias": (nkv * d,), "self_attn.o_proj.bias": (H,)})
    top = {"hidden_norm.weight": (H,), "norm.weight": (H,)}
    if facts.get("/dflash_config/use_aux_hidden_state", True) is not False:
        top["fc.weight"] = (H, len(taps) * T) if taps else None
    return {"top": top, "per_layer": per_layer}


def _layer_indices(facts: Facts) -> dict[int, set[str]]:
    layers: dict[int, set[str]] = {}
    for name in facts.weights or {}:
        match = LAYER_TENSOR.match(name)
        if match:
            layers.setdefault(int(match.group(1)), set()).add(match.group(2))
    return layers


@rule("DF130", "weights-layer-count", "error", "dflash", needs=("config", "weights"))
def weights_layer_count(facts: Facts):
    """The weights hold a different set of decoder layers than `num_hidden_layers`.

    The reference and vLLM build `num_hidden_layers` layers and load `layers.{i}.*` into
    them: a missing layer leaves random weights (or fails a strict load), an extra one
    fails the load. Also reports when `layer_types` would run a layer the weights lack.

    Fails: `"num_hidden_layers": 5` with tensors for layers 0-3 only.
    Passes: tensors for layers 0-4.
    """
    n = facts.layers("/num_hidden_layers")
    if n is None:
        return
    present = _layer_indices(facts)
    for i in range(n):
        if i not in present:
            yield facts.tensor_finding(f"layers.{i}.self_attn.q_proj.weight",
                                  f"layer {i} of num_hidden_layers {n} has no tensors in the "
                                  f"weights (layers present: {sorted(present) or 'none'})")
    for i in sorted(present):
        if i >= n:
            tensor = sorted(f"layers.{i}.{s}" for s in present[i])[0]
            yield facts.tensor_finding(tensor, f"the weights hold layer {i} but "
                                  f"num_hidden_layers is {n}; loading fails on "
                                  f"unexpected tensors")


@rule("DF131", "weights-missing-tensor", "error", "dflash", needs=("config", "weights"))
def weights_missing_tensor(facts: Facts):
    """A tensor the DFlash drafter needs is not in the weights.

    Needed: `fc.weight` (unless `dflash_config.use_aux_hidden_state` is false),
    `hidden_norm.weight`, `norm.weight`, and per layer the Qwen3 decoder tensors
    (q/k/v/o projections, q/k norms, two layer norms, gate/up/down), plus the attention
    biases when `attention_bias` is true. Whole missing layers are DF130's.

    Fails: a layer without `mlp.down_proj.weight`. Passes: the full set.
    """
    geometry = _geometry(facts)
    if geometry is None:
        return
    weights = facts.weights
    for name in geometry["top"]:
        if name not in weights:
            yield facts.tensor_finding(name, f"tensor {name} is missing from the weights")
    for i, suffixes in sorted(_layer_indices(facts).items()):
        if i >= (facts.layers("/num_hidden_layers") or 0):
            continue
        for suffix in geometry["per_layer"]:
            if suffix not in suffixes:
                name = f"layers.{i}.{suffix}"
                yield facts.tensor_finding(name, f"tensor {name} is missing from the "
                                      f"weights")


@rule("DF132", "weights-unexpected-tensor", "error", "dflash", needs=("config", "weights"))
def weights_unexpected_tensor(facts: Facts):
    """The weights hold a tensor no DFlash v1 loader expects.

    vLLM's `load_weights` looks every name up in the model's parameters and fails on
    names it does not know; a bias with `attention_bias: false` is the usual case.
    Shared embeddings/LM head (`embed_tokens`, `lm_head`), vocab maps (`d2t`, `t2d`)
    and DFlash2 tensors are left to their own rules.

    Fails: `layers.0.self_attn.q_proj.bias` with `"attention_bias": false`.
    Passes: only the expected tensors.
    """
    geometry = _geometry(facts)
    if geometry is None:
        return
    n = facts.layers("/num_hidden_layers") or 0
    for name in sorted(facts.weights):
        if name in geometry["top"] or name.endswith(OPTIONAL_TENSORS) or "mask_hidden" in name:
            continue
        if any(marker in name for marker in DFLASH2_MARKERS):
            continue
        match = LAYER_TENSOR.match(name)
        if match and (int(match.group(1)) >= n or match.group(2) in geometry["per_layer"]):
            continue  # extra layers are DF130's
        yield facts.tensor_finding(name, f"tensor {name} is not part of a DFlash drafter "
                              f"with this config; vLLM fails to load unknown tensors")


@rule("DF133", "weights-shape-mismatch", "error", "dflash", needs=("config", "weights"))
def weights_shape_mismatch(facts: Facts):
    """A tensor's shape disagrees with the config.

    Shapes follow from `hidden_size` H, `num_attention_heads` nh, `num_key_value_heads`
    nkv, `head_dim` d, `intermediate_size` I, `target_hidden_size` T and the taps L:
    `fc` [H, L*T], `q_proj` [nh*d, H], `k_proj`/`v_proj` [nkv*d, H], `o_proj` [H, nh*d],
    `q_norm`/`k_norm` [d], `gate`/`up` [I, H], `down` [H, I], norms [H]. A mismatch fails
    the load; vLLM also asserts every layer has the same attention geometry. `fc` width
    against the taps is DF113's.

    Unwritten, nkv and d are what the config class fills: for a Qwen3 (or unnamed) config
    32 and 128 (transformers==5.25.0 Qwen3Config; vLLM builds from `config.head_dim`,
    vllm==0.33.0 model_executor/models/qwen3_dflash.py:199), not nh and H / nh.

    Fails: `"num_key_value_heads": 4` with `k_proj` `[1024, 5120]` (8 heads × 128); no
    `head_dim` beside weights of H / nh per head.
    Passes: shapes as written by the training code.
    """
    geometry = _geometry(facts)
    if geometry is None:
        return
    n = facts.layers("/num_hidden_layers") or 0
    expected = {name: shape for name, shape in geometry["top"].items()}
    for i in range(n):
        for suffix, shape in geometry["per_layer"].items():
            expected[f"layers.{i}.{suffix}"] = shape
    for name, shape in expected.items():
        actual = facts.shape(name)
        if shape is None or actual is None or actual == shape:
            continue
        if name == "fc.weight" and len(actual) == 2 and actual[0] == shape[0]:
            continue  # in-features against the taps: DF113
        yield facts.tensor_finding(name, f"tensor {name} is {list(actual)} but the config "
                              f"implies {list(shape)}")


@rule("DF134", "mask-hidden-tensor", "error", "dflash", needs=("config", "weights"))
def mask_hidden_tensor(facts: Facts):
    """The weights hold a `mask_hidden` tensor.

    DFlash embeds its mask slots with `mask_token_id` through the target's embedding;
    vLLM's DFlash loader asserts no `mask_hidden` tensor exists (a learned mask vector is
    a different model: ship it as `mask_embedding.pt` with its own `mask_token_id`).

    Fails: a tensor named `mask_hidden`. Passes: no such tensor.
    """
    for name in sorted(facts.weights):
        if "mask_hidden" in name:
            yield facts.tensor_finding(name, f"tensor {name} is present; vLLM's DFlash "
                                  f"loader asserts there is no mask_hidden tensor")


@rule("DF135", "own-embeddings-present", "info", "dflash", needs=("config", "weights"))
def own_embeddings_present(facts: Facts):
    """The drafter ships its own `embed_tokens` or `lm_head`.

    z-lab drafters share the target's embedding and LM head. When these tensors are
    present, vLLM uses the drafter's own copies instead of the target's; make sure that is
    intended (and that they match the target's vocabulary).

    Reports: `embed_tokens.weight` in the weights. Passes: no such tensor.
    """
    for name in sorted(facts.weights):
        if name.endswith(("embed_tokens.weight", "lm_head.weight")):
            yield facts.tensor_finding(name, f"tensor {name} is present: vLLM will use the "
                                  f"drafter's own copy instead of sharing the target's")


@rule("DF136", "dflash2-checkpoint", "info", "dflash")
def dflash2_checkpoint(facts: Facts):
    """The checkpoint is a DFlash2 drafter: served by vLLM's V2 runner and SGLang only.

    DFlash2 adds `candidate_selector.*`, `layers.{i}.attention_conv.*`, `mlp_conv.*`
    tensors and `dflash_config.selector_rank`, under the `DFlash2DraftModel`
    architecture. vLLM serves it with method `dflash` on the V2 model runner (the default;
    vllm==0.33.0 model_executor/models/registry.py:666, v1/worker/gpu/spec_decode/
    __init__.py:42-47) and its V1 runner refuses it (config/vllm.py:3133-3137); SGLang
    serves it under DFLASH (sglang==0.5.23 models/dflash.py:1264); the z-lab reference
    implements DFlash v1 only.

    Fails: a DFlash2 checkpoint checked with `--runtime reference`.
    Informs: a DFlash2 checkpoint (which runtimes serve it). Passes: DFlash v1.
    """
    signs = []
    architectures = facts.get("/architectures", None)
    if isinstance(architectures, list) and "DFlash2DraftModel" in architectures:
        signs.append("architecture DFlash2DraftModel")
    if facts.has("/dflash_config/selector_rank"):
        signs.append("dflash_config.selector_rank")
    tensors = [n for n in facts.weights or {} if any(m in n for m in DFLASH2_MARKERS)]
    if tensors:
        signs.append(f"{len(tensors)} DFlash2 tensors such as {sorted(tensors)[0]}")
    if not signs:
        return
    ptr = "/architectures" if facts.has("/architectures") else ""
    chosen = facts.runtime_name
    if chosen is not None and not facts.releases:
        asked = facts.runtime
        who = asked.label if asked is not None and asked.version else runtimes.LABEL[chosen]
        yield Finding(ptr, f"this is a DFlash2 checkpoint ({'; '.join(signs)}); "
                      f"{who} does not serve DFlash2", severity=Severity.ERROR)
        return
    how = {"vllm": "with method dflash", "sglang": "with DFLASH"}
    # a release's label names its runner when the launch chose it; else the default's
    serving = [f"{r.label} serves it {how[r.runtime]}"
               + (" on its V2 model runner (the default)"
                  if r.runtime == "vllm" and not r.shown else "")
               for r in facts.releases if r.runtime in how]
    if serving:
        yield Finding(ptr, f"this is a DFlash2 checkpoint ({'; '.join(signs)}); "
                      f"{', '.join(serving)}; the z-lab reference does not")
