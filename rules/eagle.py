"""EAGLE-1/2 and HASS drafter rules (SafeAILab/EAGLE and HASS layouts).

SafeAILab originals are 1-layer Llama configs with an `fc` of `[H, 2H]` and an optional
bias (`bias`, default true); vLLM's legacy wrapper nests the Llama config under `model`
and names the flag `eagle_fc_bias` (default false); speculators calls it `fusion_bias`.
"""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, add
from drafter_lint.jsondoc import pointer
from drafter_lint.registry import rule


def _hidden(facts: Facts) -> int | None:
    return facts.int("/hidden_size") or facts.int("/model/hidden_size")


def bias_flag(facts: Facts) -> tuple[str, bool]:
    """(pointer, value) of the fc bias flag, with each format's default."""
    for key in ("eagle_fc_bias", "fusion_bias", "bias"):
        value = facts.get(f"/{key}", None)
        if isinstance(value, bool):
            return f"/{key}", value
    if facts.get("/model_type", None) == "eagle":
        return "/eagle_fc_bias", False       # vLLM EAGLEConfig default
    return "/bias", True                     # SafeAILab ea_model.py default


@rule("EA101", "eagle-fc-shape-and-bias", "error", "eagle", needs=("config", "weights"),
      fix="sometimes", applies="safe")
def fc_shape_and_bias(facts: Facts):
    """`fc` is not `[H, 2H]`, or `fc.bias` disagrees with the bias flag (E1-01).

    EAGLE-1/2/HASS fuse the token embedding and the target hidden state: `fc.weight` is
    `[hidden_size, 2 * hidden_size]`. `fc.bias` must ship exactly when the flag says so:
    SafeAILab `bias` (default true), vLLM `eagle_fc_bias` (default false), speculators
    `fusion_bias`. A missing `eagle_fc_bias` was the sole reason one EAGLE head ran badly
    in vLLM (#11126): the trained bias was dropped.

    Fails: `fc.bias` present with `"model_type": "eagle"` and no `eagle_fc_bias`.
    Passes: `"bias": false` and no `fc.bias`.
    Fix (safe): write the flag that matches the weights.
    """
    H, shape = _hidden(facts), facts.shape("fc.weight")
    if H and shape and shape != (H, 2 * H):
        yield Finding(pointer("fc.weight"), f"fc.weight is {list(shape)}, expected [{H}, "
                      f"{2 * H}]", file=facts.tensor_file("fc.weight"))
    ptr, flag = bias_flag(facts)
    has_bias = "fc.bias" in (facts.weights or {})
    if has_bias != flag:
        said = f"{ptr[1:]} is {str(flag).lower()}" + ("" if facts.has(ptr) else " (default)")
        what = ("fc.bias ships, so the trained bias is dropped (vLLM #11126)" if has_bias
                else "no fc.bias ships, so loading fails or uses a zero bias")
        yield Finding(ptr, f"{said} but {what}",
                      fix=add(ptr, has_bias, "safe"))


@rule("EA102", "eagle-layer0-input-layernorm", "warning", "eagle", needs=("config", "weights"))
def layer0_input_layernorm(facts: Facts):
    """Layer 0 ships an `input_layernorm` the EAGLE reference does not have (E1-02).

    In SafeAILab `cnets1.py` layer 0 has no input norm (the fused input is not normed);
    vLLM disables it for layer 0. A checkpoint with one was trained by different code,
    the arch mismatch behind vLLM #9565 (acceptance 0.13 -> 0.57 once fixed).

    Fails: `layers.0.input_layernorm.weight` present. Passes: only layers >= 1 have it.
    """
    name = "layers.0.input_layernorm.weight"
    if name in (facts.weights or {}):
        yield Finding(pointer(name), f"{name} ships, but the EAGLE reference has no input "
                      f"norm on layer 0; runtimes ignore it (vLLM #9565)",
                      file=facts.tensor_file(name))


@rule("EA103", "eagle-plain-class-on-sglang", "error", "eagle", needs=("config", "weights"))
def plain_class_on_sglang(facts: Facts):
    """An EAGLE head whose `architectures` names a plain model class, served by SGLang.

    SGLang builds the draft from `architectures` as written (sglang==0.5.23
    models/registry.py:117-150), and its EAGLE class is `LlamaForCausalLMEagle`
    (sglang==0.5.0rc0 models/llama_eagle.py:113, 149). SafeAILab's originals list `LlamaForCausalLM`: SGLang builds a
    plain Llama, which has no `fc`, and the head's tensors, saved without the `model.`
    prefix, fill none of its layer: executed on sglang==0.5.0rc0-rc2, the load is accepted
    with `fc.weight` and every `layers.0.*` tensor dropped and the layer left at its random
    initialization, so the draft proposes noise. (From 0.5.1 the same launch is refused
    first for its context length, DL013.) Use a checkpoint converted for SGLang, whose
    `architectures` is `LlamaForCausalLMEagle`.

    Fails: SafeAILab's EAGLE-LLaMA3-Instruct-8B config (`LlamaForCausalLM`, `fc.weight`)
    under `--runtime sglang`. Passes: `["LlamaForCausalLMEagle"]`; vLLM, which renames it.
    """
    written = facts.get("/architectures", None)
    if not isinstance(written, list) or not written or not isinstance(written[0], str) or \
            "Eagle" in written[0] or "fc.weight" not in (facts.weights or {}):
        return
    sglang = [r for r in facts.releases if r.runtime == "sglang"]
    if sglang:
        yield Finding("/architectures", f"architectures is {written}, a plain model class: "
                      f"{runtimes.agree(sglang, 'builds')} it as written, with no fc: the "
                      f"head's weights are dropped and the draft runs from random "
                      f"initialization; use a checkpoint listing LlamaForCausalLMEagle")
