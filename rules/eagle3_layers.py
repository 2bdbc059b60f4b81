"""EAGLE-3 layers: widths against the target, the decoder layer's input width, its
norm flags against its norm tensors, and the one-layer limit of the runtimes' heads.
"""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, add
from drafter_lint.registry import rule
from drafter_lint.rules.common import architecture_names, target_hidden_size_differs
from drafter_lint.rules.eagle3_taps import aux_list, head_width, layer0


@rule("EA310", "eagle3-hidden-vs-target", "error", "eagle3", needs=("config", "target"))
def hidden_vs_target(facts: Facts):
    """The head's target width differs from the target's `hidden_size` (E3-10).

    `fc` takes `target_hidden_size` (default `hidden_size`) per tap; speculators refuses a
    verifier of another width.

    Fails: `"hidden_size": 4096` for a 5120-wide target without `target_hidden_size`.
    Passes: equal widths, or `target_hidden_size` equal to the target's.
    """
    target = facts.target.hidden_size
    if not target:
        return
    T, H = facts.int("/target_hidden_size"), facts.int("/hidden_size")
    if (differs := target_hidden_size_differs(facts)) is not None:
        yield differs
    elif T is None and H is not None and H != target:
        yield Finding("/hidden_size", f"hidden_size is {H} but the target "
                      f"({facts.target.display}) has {target}, and no target_hidden_size "
                      f"says otherwise")


@rule("EA311", "eagle3-qkv-input-width", "error", "eagle3", needs=("config", "weights"))
def qkv_input_width(facts: Facts):
    """Layer 0's q/k/v projections do not take 2 × hidden_size (E3-11).

    The first EAGLE-3 layer attends over `[embedding, fused hidden]`, so `q_proj`,
    `k_proj`, `v_proj` of `midlayer.` / `layers.0.` have `2 * hidden_size` in-features;
    later layers (vLLM PR #26164) take `hidden_size`.

    Fails: `midlayer.self_attn.q_proj.weight` `[4096, 4096]`. Passes: `[4096, 8192]`.
    """
    H = facts.int("/hidden_size")
    if not H:
        return
    first = layer0(facts)
    for name, info in sorted((facts.weights or {}).items()):
        if not name.endswith(("q_proj.weight", "k_proj.weight", "v_proj.weight")):
            continue
        expected = 2 * H if name.startswith(first) else H
        if len(info.shape) == 2 and info.shape[1] != expected:
            yield facts.tensor_finding(name, f"{name} takes {info.shape[1]} features, expected "
                          f"{expected} ({'2 × ' if expected == 2 * H else ''}hidden_size {H})")


def _norm_tensors(facts: Facts) -> tuple[str | None, list[str]]:
    names = facts.weights or {}
    single = next((n for n in names if n.endswith("input_norm.weight")), None)
    per_tap = sorted(n for n in names if "fc_norm" in n)
    return single, per_tap


@rule("EA312", "eagle3-norm-flags-vs-tensors", "error", "eagle3", needs=("config", "weights"))
def norm_flags_vs_tensors(facts: Facts):
    """A norm flag is set but its tensors are missing or mis-sized (E3-12).

    `norm_before_fc` needs one `input_norm.weight` of `[k * hidden]`; `fc_norm` needs k
    per-tap norms; the two are exclusive (speculators validator).

    Fails: `"norm_before_fc": true` without `input_norm.weight`; both flags true.
    Passes: `"norm_before_fc": true` with `input_norm.weight` `[8640]` for 3 taps of 2880.
    """
    before, per_tap = facts.get("/norm_before_fc", False), facts.get("/fc_norm", False)
    if before is True and per_tap is True:
        yield Finding("/fc_norm", "norm_before_fc and fc_norm are both true; they are "
                      "exclusive (speculators refuses the config)")
    single, taps = _norm_tensors(facts)
    ids, width = aux_list(facts), head_width(facts)
    k = len(ids) if ids else 3
    if before is True:
        if single is None:
            yield Finding("/norm_before_fc", "norm_before_fc is true but no input_norm.weight "
                          "tensor ships")
        elif width and facts.shape(single) != (k * width,):
            yield facts.tensor_finding(single, f"{single} is {list(facts.shape(single))}, expected "
                          f"[{k * width}] ({k} taps × {width})")
    if per_tap is True and len(taps) != k:
        yield Finding("/fc_norm", f"fc_norm is true but {len(taps)} per-tap norm tensors "
                      f"ship for {k} taps")


@rule("EA313", "eagle3-norm-tensors-without-flag", "warning", "eagle3",
      needs=("config", "weights"), fix="always", applies="safe")
def norm_tensors_without_flag(facts: Facts):
    """Norm tensors ship but the flag that applies them is not set (E3-13).

    Runtimes apply `input_norm` only with `norm_before_fc` and per-tap norms only with
    `fc_norm`; otherwise the trained norm is silently skipped and acceptance drops (vLLM
    #38111, SGLang #32334 for nvidia/gpt-oss-120b-Eagle3-v3). Both read
    `eagle_config.norm_before_fc` first, then the top level (vllm==0.33.0
    llama_eagle3.py:184-188, sglang==0.5.23 models/llama_eagle3.py:173-175); vLLM 0.18.0 to
    0.21.0 read the top level only (vllm==0.21.0 llama_eagle3.py:153), so a nested flag is
    skipped there (the fact `eagle3.norm-before-fc-sources`).

    Fails: `input_norm.weight` present, `norm_before_fc` absent; or
    `eagle_config.norm_before_fc` false beside a top-level true; or only the nested flag
    true, on vLLM 0.21.0.
    Passes: the flag set with its tensor.
    Fix (safe): set the flag the first skipping release reads to true (the nested one when
    present and read there).
    """
    single, taps = _norm_tensors(facts)
    skipping, where = [], None
    for release in facts.releases:
        sources = runtimes.value("eagle3.norm-before-fc-sources", release,
                                 ("/eagle_config/norm_before_fc", "/norm_before_fc"))
        if not sources:
            continue                    # no flag is read there: RD101's finding
        read = next((p for p in sources if facts.has(p)), sources[-1])   # a null too
        if single and facts.get(read, None) is not True:
            skipping.append(release)
            where = where or read       # the flag that release reads is the one to set
    if skipping:
        yield Finding(where, f"{single} ships but {where[1:].replace('/', '.')} is not "
                      f"true: {runtimes.agree(skipping, 'skips')} the trained norm (vLLM "
                      f"#38111, SGLang #32334)",
                      fix=add(where, True, "safe"))
    if taps and facts.get("/fc_norm", None) is not True:
        # SGLang also takes the legacy `use_aux_norm` spelling; vLLM reads only `fc_norm`
        legacy = facts.get("/use_aux_norm", None) is True
        skipping = [r for r in facts.releases if not (legacy and "use_aux_norm" in
                    runtimes.value("eagle3.reads-3.1-flags", r, ()))]
        if skipping:
            yield Finding("/fc_norm", f"{len(taps)} per-tap fc_norm tensors ship but fc_norm "
                          f"is not true: {runtimes.agree(skipping, 'skips')} them",
                          fix=add("/fc_norm", True, "safe"))


@rule("EA314", "eagle3-multi-layer-refused", "error", "eagle3")
def multi_layer_refused(facts: Facts):
    """More than one draft layer in an EAGLE-3 class that builds exactly one (E3-14).

    vLLM and SGLang build `num_hidden_layers` draft layers in their Llama-style EAGLE-3
    models (vllm==0.33.0 llama_eagle3.py:198-207; sglang==0.5.23
    models/llama_eagle3.py:198-204). SGLang's MLA EAGLE-3 model, the class of
    `Eagle3DeepseekV2ForCausalLM`, raises "EAGLE3 currently only supports 1 layer" for any
    other count (models/kimi_k25_eagle3.py:243-244, 315, 523), whatever the target.

    Fails: `"num_hidden_layers": 2` with `Eagle3DeepseekV2ForCausalLM` on SGLang.
    Passes: a 4-layer `LlamaForCausalLMEagle3` head for a Kimi-K2.5 target; 1 layer.
    """
    n = facts.int("/num_hidden_layers")
    names = architecture_names(facts)
    if n is None or n == 1 or not names:
        return
    refusing = runtimes.matching(facts.releases, "eagle3.one-layer-architectures",
                                 lambda classes: bool(names & classes))
    if refusing:
        yield Finding("/num_hidden_layers", f"num_hidden_layers is {n}: "
                      + runtimes.agree(refusing, f"builds {sorted(names)[0]} with exactly "
                                                 f"one draft layer and refuses to start"))
