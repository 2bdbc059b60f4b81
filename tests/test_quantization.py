"""The quantization model (drafter_lint/quantization.py): which description a runtime reads,
and whether it builds a module quantized, per method as vLLM decides it (the citations are
in the module). Each row is one matching rule of one method."""

from __future__ import annotations

import pytest

from drafter_lint import quantization
from drafter_lint.quantization import (BY_DTYPE, NOT_LISTED, NOT_TARGETED, QUANTIZED, UNKNOWN,
                                       Decision, Scheme, excluded)

Q = "mtp.layers.0.self_attn.q_proj"
EXPERTS = "mtp.layers.0.mlp.experts"
CT = {"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"]}}}


@pytest.mark.parametrize("config,module,experts,want", [
    # compressed-tensors: exact or `re:` from the start; no target, not quantized
    ({**CT, "ignore": [Q]}, Q, False, excluded(Q)),
    ({**CT, "ignore": ["re:mtp[.].*"]}, Q, False, excluded("re:mtp[.].*")),
    ({**CT, "ignore": ["re:layers[.].*"]}, Q, False, QUANTIZED),   # match, not search
    ({**CT, "ignore": ["mtp"]}, Q, False, QUANTIZED),              # no substring
    ({"quant_method": "compressed-tensors", "config_groups": {}}, Q, False, NOT_TARGETED),
    # ModelOpt: exact, substring or wildcard; `ignore` before `exclude_modules`
    ({"quant_method": "modelopt", "ignore": ["mtp"]}, Q, False, excluded("mtp")),
    ({"quant_method": "modelopt", "exclude_modules": ["mtp.layers.0*"]}, Q, False,
     excluded("mtp.layers.0*")),
    ({"quant_method": "modelopt", "ignore": ["lm_head"]}, Q, False, QUANTIZED),
    ({"quant_method": "modelopt"}, Q, False, UNKNOWN),             # the list lives elsewhere
    # Quark: exact or `re:`; an MoE layer by an entry for one of its experts
    ({"quant_method": "quark", "exclude": [Q]}, Q, False, excluded(Q)),
    ({"quant_method": "quark", "exclude": ["mtp*"]}, Q, False, QUANTIZED),  # no wildcards
    ({"quant_method": "quark", "exclude": [EXPERTS + ".0.up_proj"]}, EXPERTS, True,
     excluded(EXPERTS + ".0.up_proj")),
    # GPTQ: `-:` regexes; a list by substring; without one, the stored dtypes decide;
    # experts only through `dynamic`
    ({"quant_method": "gptq", "dynamic": {"-:.*mtp.*": {}}}, Q, False, excluded("-:.*mtp.*")),
    ({"quant_method": "gptq", "dynamic": {"+:.*mtp.*": {"bits": 8}}}, Q, False, BY_DTYPE),
    ({"quant_method": "gptq_marlin", "modules_in_block_to_quantize": [["self_attn.q_proj"]]},
     Q, False, QUANTIZED),
    ({"quant_method": "gptq", "modules_in_block_to_quantize": ["mlp.down_proj"]}, Q, False,
     NOT_LISTED),
    ({"quant_method": "gptq"}, Q, False, BY_DTYPE),
    ({"quant_method": "gptq"}, EXPERTS, True, QUANTIZED),
    ({"quant_method": "gptq", "dynamic": {"-:mtp[.].*": {}}}, EXPERTS, True,
     excluded("-:mtp[.].*")),
    # AWQ: substring; without a list the dtypes decide, but never for experts
    ({"quant_method": "awq", "modules_to_not_convert": ["mtp"]}, Q, False, excluded("mtp")),
    ({"quant_method": "awq"}, Q, False, BY_DTYPE),
    ({"quant_method": "awq"}, EXPERTS, True, QUANTIZED),
    # FP8: exact names only
    ({"quant_method": "fp8", "ignored_layers": [Q]}, Q, False, excluded(Q)),
    ({"quant_method": "fp8", "modules_to_not_convert": ["mtp"]}, Q, False, QUANTIZED),
    # AutoRound: 16-bit extra_config, or outside the quantized blocks
    ({"quant_method": "auto-round", "extra_config": {Q: {"bits": 16}}}, Q, False,
     excluded(Q)),
    ({"quant_method": "auto-round", "block_name_to_quantize": "model.layers"}, Q, False,
     quantization.OUTSIDE_BLOCKS),
    ({"quant_method": "intel/auto-round", "block_name_to_quantize": ["mtp.layers"]}, Q,
     False, QUANTIZED),
    # MXFP4: experts always quantized, linears never
    ({"quant_method": "mxfp4"}, Q, False, quantization.MXFP4_LINEAR),
    ({"quant_method": "mxfp4"}, EXPERTS, True, QUANTIZED),
    # a method not modelled: unknown
    ({"quant_method": "bitsandbytes"}, Q, False, UNKNOWN),
], ids=lambda v: (v.by or v.built.value) if isinstance(v, Decision) else None)
def test_each_method_keeps_a_module_unquantized_by_its_own_list(config, module, experts,
                                                                want):
    """Mutation caught: a method matched with another method's rule (a substring where vLLM
    wants an exact name or a regex from the start, experts read through a list vLLM does
    not read for them), or an unknown method answered as if known."""
    scheme = quantization.read({"quantization_config": config}, None)
    assert scheme.decide(module, experts) == want


def test_the_description_comes_from_config_json_before_hf_quant_config_json():
    """vLLM reads config.json's `quantization_config` (then text_config's), and
    hf_quant_config.json only without one, and only a ModelOpt producer's. Mutations
    caught: the file read over the config, the nested layout not flattened, a
    non-ModelOpt file taken."""
    quant_file = {"producer": {"name": "modelopt"},
                  "quantization": {"quant_algo": "NVFP4", "exclude_modules": ["mtp*"]}}
    ct = {**CT, "ignore": []}
    assert quantization.read({"quantization_config": ct}, quant_file).file == "config.json"
    nested = quantization.read({"text_config": {"quantization_config": ct}}, quant_file)
    assert nested.pointer == "/text_config/quantization_config"
    scheme = quantization.read({}, quant_file)
    assert (scheme.file, scheme.name, scheme.exclusions) == \
        ("hf_quant_config.json", "modelopt_fp4", "/quantization/exclude_modules")
    assert scheme.decide(Q) == excluded("mtp*")
    assert quantization.read({}, {**quant_file, "producer": {"name": "other"}}) is None
    assert Scheme("gptq", {}, "config.json", "/quantization_config").exclusions == \
        "/quantization_config/dynamic"


def test_experts_are_stored_quantized_when_any_expert_is():
    """`experts_stored_quantized` answers for the layer's experts as a whole: one expert
    weight stored in float8 makes them quantized, whatever the order of the names; only
    float weights make them plain, and no weight read leaves it unknown. Mutation caught
    (round 2026-12-05, M20): the answer taken from the last expert weight read (the
    `or found` dropped), so a float weight listed after a float8 one says "plain"."""
    from drafter_lint.safetensors_header import TensorInfo

    layer = "mtp.layers.0.mlp.experts"

    def weights(*dtypes):
        return {f"{layer}.{i}.down_proj.weight": TensorInfo(
            f"{layer}.{i}.down_proj.weight", dtype, (8, 8), "m.safetensors", (0, 0))
            for i, dtype in enumerate(dtypes)}

    for dtypes, expected in [(("F8_E4M3", "BF16"), True), (("BF16", "F8_E4M3"), True),
                             (("BF16", "BF16"), False)]:
        held = weights(*dtypes)
        assert quantization.experts_stored_quantized(layer, list(held), held) is expected
    assert quantization.experts_stored_quantized(layer, ["mtp.fc.weight"], {}) is None
