"""EAGLE-3 drafter rules (SafeAILab, SpecForge, AngelSlim, nvidia, speculators layouts).

Facts from research/other-drafters.md section 1 and 0: aux-layer id conventions (vLLM:
id k = residual entering layer k; SGLang: id k = output of layer k), d2t/t2d vocab maps,
`fc` width against the number of taps, norm flags against norm tensors. The rule ids of
that section (E3-01 ...) are named in each rule's docs.
"""

from __future__ import annotations

import json

from drafter_lint.rules.common import architecture_names, target_hidden_size_differs
from drafter_lint.rules.rope import capping_releases, releases_that, rope_types

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import Finding, Severity, add, remove, replace
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import collect, rule

AUX_TOP = "/eagle_aux_hidden_state_layer_ids"
AUX_NESTED = "/eagle_config/eagle_aux_hidden_state_layer_ids"


def aux_ids(facts: Facts) -> tuple[str, object]:
    """(pointer, value) of the aux-layer ids in the place vLLM reads first; value MISSING."""
    for ptr in (AUX_TOP, AUX_NESTED):
        value = facts.get(ptr)
        if value is not MISSING and value is not None:
            return ptr, value
    return AUX_TOP, MISSING


def aux_list(facts: Facts) -> list[int] | None:
    _, value = aux_ids(facts)
    if isinstance(value, list) and value and all(type(v) is int for v in value):
        return value
    return None


def default_ids(depth: int) -> list[int]:
    """The heuristic runtimes fall back to: [2, L//2, L-3]."""
    return [2, depth // 2, depth - 3]


def read_where(facts: Facts, release) -> str | None:
    """The pointer `release` reads aux ids from (vllm==0.33.0 V2 runner: top level only;
    sglang==0.5.23: nested `eagle_config` only)."""
    fact = runtimes.lookup("eagle3.aux-sources", release)
    return fact.value[0] if fact and fact.value else None


def outputs_on(facts: Facts, release, ids: list[int]) -> list[int]:
    """The target layer outputs `ids` tap on `release` ("input" convention: id k is the
    residual entering layer k; SGLang's DeepSeek/GLM-lite models shift only lists that
    start at 1, SGLang PR #25454)."""
    fact = runtimes.lookup("eagle3.aux-convention", release)
    if fact is None or fact.value == "input":
        return [i - 1 for i in ids]
    shifty = runtimes.lookup("eagle3.aux-shift-if-first-is-one", release)
    model_type = facts.target.model_type if facts.target else None
    if shifty and isinstance(model_type, str) and model_type in shifty.value and ids[0] != 1:
        return [i - 1 for i in ids]
    return list(ids)


def meaning(facts: Facts, ids: list[int]) -> str:
    """Which target layer outputs `ids` tap in each runtime checked for."""
    return "; ".join(f"{r.label} taps the outputs of layers {outputs_on(facts, r, ids)}"
                     for r in facts.releases)


def layer0(facts: Facts) -> str:
    names = facts.weights or {}
    return "midlayer." if any(n.startswith("midlayer.") for n in names) else "layers.0."


def _width(facts: Facts) -> int | None:
    return facts.int("/target_hidden_size") or facts.int("/hidden_size")


def _draft_vocab(facts: Facts) -> int | None:
    return facts.int("/draft_vocab_size") or facts.int("/vocab_size")


@rule("EA301", "eagle3-fc-width", "error", "eagle3", needs=("config", "weights"))
def fc_width(facts: Facts):
    """`fc.weight` in-features differ from (number of aux layers) × target width (E3-01).

    `fc` fuses k target hidden states: `[hidden_size, k * (target_hidden_size or
    hidden_size)]`, k = len(aux ids), or 3 when they are absent. A mismatch fails the load
    (vLLM #54526: `4096x16384` vs `4096x12288` for a 4-tap head).

    Fails: 3 aux ids with `fc.weight` `[4096, 16384]`. Passes: `[4096, 12288]`.
    """
    shape, width = facts.shape("fc.weight"), _width(facts)
    if shape is None or len(shape) != 2 or not width:
        return
    ids = aux_list(facts)
    k = len(ids) if ids else 3
    if shape[1] != k * width:
        taps = f"{shape[1] // width}" if shape[1] % width == 0 else "no whole number of"
        ptr, _ = aux_ids(facts)
        yield Finding(ptr, f"fc.weight is {list(shape)}: {taps} taps of width {width}, but "
                      f"{'the aux ids list ' + str(k) if ids else 'no aux ids means 3'} "
                      f"taps ({k} × {width} = {k * width} in-features)")


def _written(facts: Facts) -> dict[str, list[int]]:
    """pointer -> ids, for each place aux ids are written as a list of ints."""
    out = {}
    for ptr in (AUX_TOP, AUX_NESTED):
        value = facts.get(ptr, None)
        if isinstance(value, list) and value and all(type(v) is int for v in value):
            out[ptr] = value
    return out


def fallback_outputs(depth: int) -> list[int]:
    """Target layer outputs the runtimes' fallback `[2, L//2, L-3]` taps: the layers
    SpecForge trains on when a config names none (specforge model_providers.py:188-211)."""
    return [i - 1 for i in default_ids(depth)]


@rule("EA302", "eagle3-aux-ids-missing", "warning", "eagle3", fix="sometimes", applies="unsafe")
def aux_ids_missing(facts: Facts):
    """No aux-layer ids where a runtime reads them, so it falls back to `[2, L//2, L-3]` (E3-02).

    vLLM's V2 runner reads only the top-level `eagle_aux_hidden_state_layer_ids`
    (vllm==0.33.0 v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:113-150); SGLang reads only
    `eagle_config.eagle_aux_hidden_state_layer_ids` (sglang==0.5.23
    model_runner_components/spec_aux_hidden_state.py:186-196). Either falls back to
    `[2, L//2, L-3]`, the outputs of layers `[1, L//2-1, L-4]`, which is what SpecForge
    trains on when a config names no ids: so no ids at all is an info, while ids written
    only where a runtime does not look are a warning when (with `--target`) its fallback
    taps other layers than the written ids mean. nvidia/Llama-3.3-70B-Instruct-Eagle3 had
    no ids and was trained elsewhere: 1.21% acceptance (vLLM PR #50170).

    Warns: `eagle_config.eagle_aux_hidden_state_layer_ids` `[1, 17, 33]` only, for vLLM on
    a 36-layer target (the fallback taps outputs 1, 17, 32).
    Informs: no ids anywhere. Passes: ids where every runtime checked for reads them.
    Fix (unsafe, with `--target`): the fallback ids, written explicitly.
    """
    written = _written(facts)
    depth = facts.target.num_hidden_layers if facts.target else None
    if not written:
        guess = default_ids(depth) if depth else None
        yield Finding(AUX_TOP, "no eagle_aux_hidden_state_layer_ids (top level or "
                      "eagle_config): runtimes tap their fallback [2, L//2, L-3]"
                      + (f" = {guess} for this target" if guess else "")
                      + ", the layers SpecForge trains on by default; a head trained on "
                      "other layers accepts almost nothing (vLLM PR #50170)",
                      fix=add(AUX_TOP, guess) if guess else None, severity=Severity.INFO)
        return
    for release in facts.releases:
        where = read_where(facts, release)
        if where is None or where in written:
            continue
        ptr, ids = next(iter(written.items()))
        meant = [i - 1 for i in ids] if ptr == AUX_TOP else list(ids)
        if depth and meant == fallback_outputs(depth):
            continue
        yield Finding(ptr, f"aux ids {ids} are written only at {dotted(ptr)}, "
                      f"which {release.label} does not read; it falls back to [2, L//2, L-3]"
                      + (f", the outputs of layers {fallback_outputs(depth)}, not {meant}"
                         if depth else " (pass --target to compare)"),
                      severity=None if depth else Severity.INFO)


@rule("EA303", "eagle3-aux-ids-invalid", "error", "eagle3")
def aux_ids_invalid(facts: Facts):
    """Aux-layer ids are not unique increasing integers inside the target (E3-03).

    Each id must be an integer in `[0, L_target)` (L from `--target`), with no repeats,
    in increasing order. An id past the target is never captured: fewer states reach
    `fc` and the first forward fails (SGLang #32334: ids `[24, 30, 36]` on a 36-layer
    gpt-oss became 37 and crashed with 8640 vs 5760).

    Fails: `[24, 30, 36]` on a 36-layer target; `[2, 2, 29]`. Passes: `[2, 18, 33]`.
    """
    ptr, ids = aux_ids(facts)
    if ids is MISSING:
        return
    if not isinstance(ids, list) or not ids:
        yield Finding(ptr, f"aux layer ids are {json.dumps(ids)}, expected a non-empty list")
        return
    depth = facts.target.num_hidden_layers if facts.target else None
    for i, k in enumerate(ids):
        if type(k) is not int or k < 0:
            yield Finding(f"{ptr}/{i}", f"aux layer id {json.dumps(k)} is not a layer index")
        elif depth is not None and k >= depth:
            yield Finding(f"{ptr}/{i}", f"aux layer id {k} is not below the target's "
                          f"{depth} layers (valid 0..{depth - 1}); it is never captured")
        elif i and type(ids[i - 1]) is int and k <= ids[i - 1]:
            yield Finding(f"{ptr}/{i}", f"aux layer id {k} after {ids[i - 1]}: ids must be "
                          f"unique and increasing")


@rule("EA304", "eagle3-aux-ids-convention", "warning", "eagle3")
def aux_ids_convention(facts: Facts):
    """Aux-layer ids look written for the other runtime's convention (E3-04).

    vLLM reads id k as the residual *entering* layer k (= output of layer k-1;
    vllm==0.33.0 model_executor/models/interfaces.py:1640-1650); SGLang adds +1 and reads
    it as the *output* of layer k (sglang==0.5.23 models/llama.py:939-941), except for
    DeepSeek-V2/V3-style and GLM-4-MoE-lite targets, where it adds +1 only when the first
    id is 1 (models/deepseek_v2.py:3470-3473, glm4_moe_lite.py:817-820; PR #25454). Lists
    starting at 1 are the SGLang/SpecForge convention, lists starting at 2 (the
    `[2, L//2, L-3]` default) the EAGLE/vLLM one. Only the ids each runtime actually reads
    are judged. Served in the other convention every tap moves one layer: SGLang #25454
    (-0.10 accept length), vLLM #43671 (~10% instead of ~45% at position 0).

    Fails: top-level `[1, 29, 57]` for vLLM; nested `[2, 30, 58]` for SGLang on a Llama
    target. Passes: each runtime's own convention; `[2, 30, 58]` for SGLang on DeepSeek-V3.
    """
    written = _written(facts)
    for release in facts.releases:
        ptr = read_where(facts, release)
        ids = written.get(ptr)
        if not ids:
            continue
        fact = runtimes.lookup("eagle3.aux-convention", release)
        outputs = outputs_on(facts, release, ids)
        if fact and fact.value == "input" and ids[0] == 1:
            yield Finding(ptr, f"aux layer ids {ids} start at 1, the SGLang/SpecForge "
                          f"output-of-layer convention, but {release.label} reads id k as "
                          f"the input of layer k and taps the outputs of layers {outputs}; "
                          f"shift the ids by +1 for it")
        elif fact and fact.value == "output" and ids[0] == 2 and outputs == ids:
            yield Finding(ptr, f"aux layer ids {ids} start at 2, the EAGLE/vLLM "
                          f"entering-layer convention, but {release.label} adds +1 and taps "
                          f"the outputs of layers {outputs} (SGLang #25454)")


@rule("EA305", "eagle3-aux-ids-for-other-target", "warning", "eagle3",
      needs=("config", "target"))
def aux_ids_for_other_target(facts: Facts):
    """The aux ids are the `[2, L//2, L-3]` default of a different depth (E3-05).

    A head whose ids are the default spacing for L' layers was trained on an L'-layer
    target; served on a target of another depth it taps the wrong layers.

    Fails: `[2, 16, 29]` (L = 32) on an 80-layer target. Passes: `[2, 40, 77]` on 80.
    """
    ids, depth = aux_list(facts), facts.target.num_hidden_layers
    if not ids or not depth or len(ids) != 3:
        return
    for other in range(4, 400):
        if other != depth and ids == default_ids(other):
            ptr, _ = aux_ids(facts)
            yield Finding(ptr, f"aux layer ids {ids} are the default taps of a {other}-layer "
                          f"target, but the target ({facts.target.display}) has {depth} "
                          f"layers (its default is {default_ids(depth)})")
            return


@rule("EA306", "eagle3-aux-count-not-three", "error", "eagle3")
def aux_count_not_three(facts: Facts):
    """A head fusing other than 3 aux layers says so only where the runtime does not look
    (E3-06).

    vLLM and SGLang size `fc` from `num_aux_hidden_states`, else the number of *nested*
    `eagle_config.eagle_aux_hidden_state_layer_ids`, else 3 (vllm==0.33.0
    model_executor/models/llama_eagle3.py:209-221; sglang==0.5.23 models/llama_eagle3.py:
    156-161). A 4-tap head whose ids are only at the top level gets a 3-tap `fc` and fails
    to load (vLLM #54526, speculators #1065).

    Fails: top-level `[2, 46, 91, 93]` with no `num_aux_hidden_states`.
    Passes: three ids; or `num_aux_hidden_states: 4`; or four nested ids.
    """
    ids = aux_list(facts)
    if not ids or len(ids) == 3:
        return
    wrong = []
    for release in facts.releases:
        sources = runtimes.value("eagle3.fc-count-sources", release, ())
        counted = next((facts.get(p) for p in sources if facts.get(p, None) is not None),
                       None)
        count = counted if type(counted) is int else (
            len(counted) if isinstance(counted, list) else 3)
        if count != len(ids):
            wrong.append((release, count))
    if wrong:
        ptr, _ = aux_ids(facts)
        yield Finding(ptr, f"{len(ids)} aux layers, but {runtimes.labels([r for r, _ in wrong])}"
                      f" size fc for {wrong[0][1]} (num_aux_hidden_states, else the nested "
                      f"eagle_config ids, else 3) and fail to load this head (vLLM #54526)")


@rule("EA307", "eagle3-lm-head-vs-draft-vocab", "error", "eagle3", needs=("config", "weights"))
def lm_head_vs_draft_vocab(facts: Facts):
    """`lm_head.weight` rows differ from `draft_vocab_size` (E3-07).

    The head predicts over the draft vocabulary: `lm_head.weight` is
    `[draft_vocab_size, hidden_size]` (`vocab_size` when `draft_vocab_size` is absent;
    vLLM defaults it so). A mismatch fails the load.

    Fails: `"draft_vocab_size": 32000` with `lm_head.weight` `[128256, 4096]`.
    Passes: `[32000, 4096]`.
    """
    shape, vocab = facts.shape("lm_head.weight"), _draft_vocab(facts)
    if shape and vocab and shape[0] != vocab:
        field = "draft_vocab_size" if facts.has("/draft_vocab_size") else "vocab_size"
        yield facts.tensor_finding("lm_head.weight", f"lm_head.weight is {list(shape)} but "
                      f"{field} is {vocab}")


@rule("EA308", "eagle3-vocab-maps", "error", "eagle3", needs=("config", "weights"))
def vocab_maps(facts: Facts):
    """A reduced draft vocabulary without valid `d2t` / `t2d` maps (E3-08).

    With `draft_vocab_size < vocab_size`, `d2t` (int64 `[draft_vocab_size]`, offsets:
    `target = draft + d2t[draft]`) and `t2d` (bool `[vocab_size]`) must ship. Without
    them draft id i is read as target id i: the first N ids of the vocabulary, silently
    (verl-SpeCo #66; SafeAILab/EAGLE #222).

    Fails: `"draft_vocab_size": 32000` and no `d2t`. Passes: both maps with those shapes.
    """
    draft, vocab = facts.int("/draft_vocab_size"), facts.int("/vocab_size")
    if not draft or not vocab or draft >= vocab:
        return
    expected = {"d2t": ((draft,), ("I64",)), "t2d": ((vocab,), ("BOOL", "U8"))}
    for name, (shape, dtypes) in expected.items():
        info = (facts.weights or {}).get(name)
        if info is None:
            yield facts.tensor_finding(name, f"{name} is missing although draft_vocab_size {draft} "
                          f"< vocab_size {vocab}: draft ids would be read as target ids "
                          f"0..{draft - 1}")
        elif info.shape != shape or info.dtype not in dtypes:
            yield facts.tensor_finding(name, f"{name} is {info.dtype} {list(info.shape)}, expected "
                          f"{dtypes[0]} {list(shape)}")


@rule("EA309", "eagle3-vocab-vs-target", "error", "eagle3", needs=("config", "target"))
def vocab_vs_target(facts: Facts):
    """`vocab_size` (or `t2d` length) differs from the target vocabulary (E3-09).

    `embed_tokens` and `t2d` index the target's token ids: both are sized by the target
    vocabulary.

    Fails: `"vocab_size": 128256` on a 151936-token target. Passes: equal sizes.
    """
    target = facts.target.vocab_size
    vocab = facts.int("/vocab_size")
    if target and vocab and vocab != target:
        yield Finding("/vocab_size", f"vocab_size is {vocab} but the target "
                      f"({facts.target.display}) has {target}")
    t2d = facts.shape("t2d")
    if target and t2d and t2d[0] != target:
        yield facts.tensor_finding("t2d", f"t2d has {t2d[0]} entries but the target has {target} "
                      f"tokens")


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
    ids, width = aux_list(facts), _width(facts)
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
    llama_eagle3.py:184-188, sglang==0.5.23 models/llama_eagle3.py:173-175).

    Fails: `input_norm.weight` present, `norm_before_fc` absent.
    Passes: the flag set with its tensor.
    Fix (safe): set the flag to true.
    """
    single, taps = _norm_tensors(facts)
    nested = facts.get("/eagle_config/norm_before_fc", None)   # read first by both runtimes
    flag = nested if nested is not None else facts.get("/norm_before_fc", None)
    if single and flag is not True:
        yield Finding("/norm_before_fc", f"{single} ships but norm_before_fc is not true: "
                      f"the runtime skips the trained norm (vLLM #38111, SGLang #32334)",
                      fix=add("/norm_before_fc", True, "safe"))
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
                      f"{runtimes.agree(refusing, 'builds')} {sorted(names)[0]} with exactly "
                      f"one draft layer and refuses to start")


@rule("EA315", "eagle3-max-position-below-target", "info", "eagle3", needs=("config", "target"))
def max_position_below_target(facts: Facts):
    """The head's `max_position_embeddings` is below the target's (E3-15).

    The draft's RoPE cache is sized by it. vLLM 0.33.0 raises it to the target's
    max_model_len when every RoPE type of the draft only sizes that cache (default,
    linear, llama3, ntk, proportional); with yarn, dynamic, longrope or deepseek scaling it
    caps the *server's* max_model_len to the draft's instead (vllm==0.33.0
    config/speculative.py:100-106, 1500-1510, 1807-1846). Older vLLM overran the cache on
    long prompts (vLLM #48894). Many good heads ship 2048 (yuhuili/EAGLE3-LLaMA3.1-8B).

    SGLang refuses a short draft context instead (DL013). A `gate` line whose
    `--max-model-len` is at most the head's serves no longer prompt: nothing to say.

    Warns: 2048 with yarn scaling on a 131072-position target (vLLM serves 2048 tokens).
    Informs: 2048 with default RoPE. Passes: equal or larger; checked for SGLang alone.
    """
    mine = facts.int("/max_position_embeddings")
    theirs = facts.target.config.get("max_position_embeddings")
    if not (mine and type(theirs) is int and mine < theirs):
        return
    served = facts.launch.max_model_len if facts.launch.runtime == "vllm" else None
    if served and served <= mine:
        return          # no prompt outgrows the draft's cache
    types, capping = rope_types(facts), capping_releases(facts)
    if capping:
        yield Finding("/max_position_embeddings", f"max_position_embeddings is {mine}, "
                      f"below the target's {theirs}, with RoPE {sorted(types)}: "
                      f"{runtimes.agree(capping, 'then caps')} the server's max_model_len to "
                      f"{mine}", severity=Severity.WARNING)
    raising, keeping = releases_that(facts, "raises"), releases_that(facts, "keeps")
    if keeping:
        yield Finding("/max_position_embeddings", f"max_position_embeddings is {mine}, "
                      f"below the target's {theirs}: {runtimes.agree(keeping, 'keeps it')}, "
                      f"and prompts past {mine} tokens overrun the draft's RoPE cache "
                      f"(vLLM #48894; later releases raise it)", severity=Severity.WARNING)
    elif not capping and raising:
        yield Finding("/max_position_embeddings", f"max_position_embeddings is {mine}, "
                      f"below the target's {theirs}: "
                      f"{runtimes.agree(raising, 'raises it')} for this RoPE type; older vLLM "
                      f"overran the draft RoPE cache on long prompts (vLLM #48894)")


@rule("EA316", "eagle3-rope-differs-from-target", "info", "eagle3",
      needs=("config", "target"))
def rope_differs_from_target(facts: Facts):
    """The head's RoPE theta or scaling differs from the target's (E3-16).

    vLLM and SGLang apply the draft config's RoPE to the head's own queries and keys only,
    and the SpecForge and SafeAILab templates train with the same draft config, so a
    different base is train/serve-consistent: a fact worth knowing, not a fault.

    Fails: no `rope_theta` (Llama default 10000) on a 500000-theta target.
    Passes: equal RoPE settings.
    """
    def theta(config: dict):
        params = config.get("rope_parameters")
        if isinstance(params, dict) and "rope_theta" in params:
            return params["rope_theta"]
        return config.get("rope_theta", 10000.0)

    mine, theirs = theta(facts.config), theta(facts.target.config)
    if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)) and mine != theirs:
        where = "/rope_theta" if facts.has("/rope_theta") or not facts.has("/rope_parameters") \
            else "/rope_parameters"
        yield Finding(where, f"RoPE theta is {mine:g}"
                      + ("" if facts.has(where) else " (the default)")
                      + f" but the target's is {theirs:g}")


@rule("EA317", "eagle3-embed-tokens", "info", "eagle3", needs=("config", "weights"))
def embed_tokens(facts: Facts):
    """The head's own `embed_tokens` is absent (shared from the target) or mis-sized (E3-17).

    Absent is normal (the EAGLE reference and speculators load the target's); present
    must be `[vocab_size, hidden_size]`, and vLLM then decides per rank whether to share
    (vLLM #50158).

    Reports: no `embed_tokens.weight` (info); `[32000, 4096]` for vocab 128256 (error).
    Passes: `[128256, 4096]`.
    """
    name = next((n for n in facts.weights or {} if n.endswith("embed_tokens.weight")), None)
    vocab, H = facts.int("/vocab_size"), facts.int("/hidden_size")
    if name is None:
        yield Finding("", "no embed_tokens.weight: the target's embedding is shared")
    elif vocab and H and facts.shape(name) != (vocab, H):
        yield facts.tensor_finding(name, f"{name} is {list(facts.shape(name))}, expected "
                      f"[{vocab}, {H}]", severity=Severity.ERROR)


def inferred_method(model: str) -> str:
    """The method vLLM infers from the draft model string when none is given
    (vllm==0.33.0 config/speculative.py:1445-1455: "eagle-" is tested before "eagle3")."""
    lowered = model.lower()
    if "eagle-" in lowered:
        return "eagle"
    if "eagle3" in lowered:
        return "eagle3"
    return "dflash" if "dflash" in lowered else "draft_model"


@rule("EA318", "eagle3-path-without-method", "info", "eagle3")
def path_without_method(facts: Facts):
    """Without an explicit method, vLLM would not infer `eagle3` from this model name (E3-18).

    vLLM infers the method from the draft model string only when none is given: "eagle-"
    means EAGLE-1 (tested first, so `Llama-3.1-8B-EAGLE-3` becomes EAGLE-1), "eagle3"
    means EAGLE-3, otherwise a plain draft model (vllm==0.33.0 config/speculative.py:
    1445-1455). On a launch line (`gate`) the string is the one written there, and an
    explicit method skips this; for `check` it is the folder name. A warning on a launch
    line that would be misread, an info otherwise.

    Reports: `/models/my-head`, `org/Llama-3.1-8B-EAGLE-3`.
    Passes: `/models/Llama-3.1-8B-eagle3`; `"method": "eagle3"` on the launch line.
    """
    vllm = [r for r in facts.releases if r.runtime == "vllm"]
    if facts.launch.method or not vllm:
        return
    written = facts.launch.draft
    name = written or facts.checkpoint.root.resolve().name
    guess = inferred_method(name)
    if guess != "eagle3":
        what = "the draft model string" if written else "the folder name"
        yield Finding("", f"{what} {name!r} makes {runtimes.labels(vllm)} infer method "
                      f"{guess!r}, not eagle3: pass \"method\": \"eagle3\" in "
                      f"--speculative-config",
                      severity=Severity.WARNING if written else None)


@rule("EA319", "eagle3-architecture-unknown", "warning", "eagle3")
def architecture_unknown(facts: Facts):
    """`architectures` is missing or not a list of class names (E3-19).

    The runtimes pick the EAGLE-3 model class by it: vLLM rewrites `X` to `Eagle3X`
    (transformers_utils/configs/eagle.py:55-64), so `Qwen3ForCausalLM` serves as
    `Eagle3Qwen3ForCausalLM`; SGLang uses the name as written. Whether a selected runtime
    registers the name is DL012's check; this one catches a value neither can read.

    vLLM from 0.9.0 builds the class name from the list itself, so a config without one
    does not start (vllm==0.9.0 transformers_utils/configs/eagle.py:54-63; "Model
    architectures [] are not supported", registry.py:1249-1252; vLLM #30987): an error
    where such a release is checked.

    Fails: no `architectures`. Passes: `["LlamaForCausalLMEagle3"]`, `["Qwen3ForCausalLM"]`.
    """
    value = facts.get("/architectures", None)
    if isinstance(value, list) and value and all(isinstance(a, str) for a in value):
        return
    refusing = runtimes.matching(facts.releases, "eagle3.requires-architectures")
    if refusing:
        yield Finding("/architectures", f"architectures is {json.dumps(value)}: no class name; "
                      f"{runtimes.agree(refusing, 'builds')} the EAGLE-3 model class from it "
                      f"and refuses to start", severity=Severity.ERROR)
        return
    choosers = runtimes.agree(facts.releases, "chooses") if facts.releases \
        else "the runtimes choose"
    yield Finding("/architectures", f"architectures is {json.dumps(value)}: no class name; "
                  f"{choosers} the EAGLE-3 model class by it")


@rule("EA321", "eagle3-lm-head-missing", "error", "eagle3", needs=("config", "weights"))
def lm_head_missing(facts: Facts):
    """A head with a reduced draft vocabulary ships no `lm_head.weight`.

    With `draft_vocab_size < vocab_size` the head's output layer is its own
    `[draft_vocab_size, hidden]` matrix: nothing of the target's fits there, so a missing
    tensor leaves it at initialization and the head proposes noise (SGLang #27908: a config
    declaring `draft_vocab_size` with no output-layer weights).

    Fails: `"draft_vocab_size": 32000`, `"vocab_size": 128256`, no `lm_head.weight`.
    Passes: the tensor present; or no reduced vocabulary.
    """
    draft, vocab = facts.int("/draft_vocab_size"), facts.int("/vocab_size")
    if not draft or not vocab or draft >= vocab:
        return
    if not any(n == "lm_head.weight" or n.endswith(".lm_head.weight") for n in facts.names):
        yield facts.tensor_finding("lm_head.weight", f"no lm_head.weight although "
                                   f"draft_vocab_size {draft} < vocab_size {vocab}: the "
                                   f"head's output layer would stay uninitialized")


@rule("EA326", "eagle3-declared-head-unloaded", "error", "eagle3", needs=("config", "weights"),
      fix="sometimes", applies="unsafe")
def declared_head_unloaded(facts: Facts):
    """`draft_vocab_size` is declared at the full vocabulary, no `lm_head.weight` ships,
    and SGLang then keeps the head's own, never-loaded output layer.

    SGLang's EAGLE-3 models load the target's `lm_head` only when the config has no
    `draft_vocab_size` (`load_lm_head_from_target`, from sglang==0.5.2
    models/llama_eagle3.py:205-206, sglang==0.5.23 :306-307, kimi_k25_eagle3.py:
    350-356, read by speculative/eagle_worker_v2.py:357-361); with it declared the head
    keeps a fresh `ParallelLMHead` that nothing loads, and acceptance collapses silently
    (sglang#27908: EAGLE-3 heads that reuse the target's head yet declare
    `draft_vocab_size`). vLLM shares the target's head whenever the checkpoint ships none
    (vllm==0.33.0 v1/spec_decode/llm_base_proposer.py:1510-1522). A reduced vocabulary
    without the tensor is EA321.

    SGLang before 0.5.2 never loads the target's head: there a missing `lm_head.weight`
    stays at random init whatever the config says.

    Fails: `"draft_vocab_size": 128256, "vocab_size": 128256`, no `lm_head.weight`, for
    SGLang. Passes: the tensor present; no `draft_vocab_size`; a tied head; vLLM alone.
    Fix (unsafe, from SGLang 0.5.2): remove `draft_vocab_size` (the target's head is then
    shared).
    """
    draft, vocab = facts.int("/draft_vocab_size"), facts.int("/vocab_size")
    if not draft or draft != vocab or facts.get("/tie_word_embeddings", False) is True:
        return
    if any(n == "lm_head.weight" or n.endswith(".lm_head.weight") for n in facts.names):
        return
    sglang = [r for r in facts.releases if r.runtime == "sglang"]
    key = "eagle3.head-from-target-only-without-draft-vocab"
    shares = runtimes.matching(sglang, key)                 # without draft_vocab_size
    never = runtimes.matching(sglang, key, lambda v: v is False)
    at = facts.where("/draft_vocab_size")
    if shares:
        yield Finding(at, f"draft_vocab_size {draft} is declared and no lm_head.weight "
                      f"ships: {runtimes.agree(shares, 'builds')} the head's own output "
                      f"layer and loads the target's only without draft_vocab_size, so it "
                      f"stays at random init (sglang#27908); remove draft_vocab_size or ship "
                      f"the head", fix=None if never else remove(at))
    if never:
        yield Finding(at, f"no lm_head.weight ships: {runtimes.agree(never, 'builds')} the "
                      f"head's own output layer and never loads the target's, so it stays at "
                      f"random init; ship the head")


@rule("EA320", "eagle3-tied-reduced-vocab", "info", "eagle3", fix="always", applies="unsafe")
def tied_reduced_vocab(facts: Facts):
    """`tie_word_embeddings` is true while the head predicts a reduced draft vocabulary.

    A tied head shares `embed_tokens` (`[vocab_size, hidden]`) as its output layer, which
    then predicts the full target vocabulary, not `draft_vocab_size` ids through `d2t`:
    SpecForge's Qwen3-4B template shipped `tie_word_embeddings: true` with a 32000-token
    draft vocabulary and its heads came out with a full-vocabulary `lm_head` that broke
    resumed training (SpecForge #139, fixed by #140). SGLang's `LlamaForCausalLMEagle3`
    does the same at serving time: `lm_head` becomes `embed_tokens` (sglang==0.5.23
    models/llama_eagle3.py:303-304) while the logits processor keeps the first
    `draft_vocab_size` columns (layers/logits_processor.py:1346-1347), so `d2t` maps the
    wrong ids, silently: an error there (the oracle lane records the [vocab, hidden] head).
    vLLM ignores the flag for EAGLE-3 heads (its `lm_head` is always `[draft_vocab_size,
    hidden]`): an info when checked for vLLM alone.

    Informs: `"tie_word_embeddings": true, "draft_vocab_size": 32000, "vocab_size": 151936`.
    Passes: `"tie_word_embeddings": false`, or no reduced vocabulary.
    Fix (unsafe): set `tie_word_embeddings` to false.
    """
    draft, vocab = facts.int("/draft_vocab_size"), facts.int("/vocab_size")
    if facts.get("/tie_word_embeddings", None) is not True or not draft or not vocab or \
            draft >= vocab:
        return
    names = architecture_names(facts)
    tying = runtimes.matching(facts.releases, "eagle3.tied-head-is-embedding",
                              lambda classes: bool(names & classes))
    served = (f": {runtimes.agree(tying, 'uses')} embed_tokens as the output layer and "
              f"reads its first {draft} ids as draft tokens, silently") if tying else ""
    yield Finding("/tie_word_embeddings", f"tie_word_embeddings is true but "
                  f"draft_vocab_size {draft} < vocab_size {vocab}: a tied output layer "
                  f"predicts the full vocabulary, not the draft one (SpecForge #139){served}",
                  severity=Severity.ERROR if tying else Severity.INFO,
                  fix=replace("/tie_word_embeddings", False))


@rule("EA323", "eagle3-depth-of-target", "warning", "eagle3", needs=("config", "target"))
def depth_of_target(facts: Facts):
    """The head has as many layers as its target: the target's depth copied in.

    Runtimes build `num_hidden_layers` draft layers (vllm==0.33.0 llama_eagle3.py;
    sglang==0.5.23 models/llama_eagle3.py:198-204), so every draft step then costs about a
    target step and speculation cannot pay. AngelSlim PR #220 shipped a Qwen2.5-7B EAGLE-3
    template with the target's 28 and fixed it to 1.

    Fails: `"num_hidden_layers": 28` for a 28-layer target. Passes: 1 (or a few) layers.
    """
    n, depth = facts.int("/num_hidden_layers"), facts.target.num_hidden_layers
    if n and depth and depth > 2 and n >= depth:
        builders = runtimes.agree(facts.releases, "builds") if facts.releases \
            else "runtimes build"
        yield Finding("/num_hidden_layers", f"num_hidden_layers is {n}, the target's own "
                      f"depth ({depth}): a value copied from the target? {builders} that many "
                      f"draft layers, so each draft step costs about a target step "
                      f"(AngelSlim PR #220 fixed 28 to 1)")


@rule("EA324", "eagle3-aux-ids-in-deepstack-layers", "warning", "eagle3",
      needs=("config", "target"))
def aux_ids_in_deepstack_layers(facts: Facts):
    """An aux id taps a Qwen3-VL text layer that vision features are added to.

    Qwen3-VL adds the deepstack vision features to the outputs of its first
    `len(vision_config.deepstack_visual_indexes)` text layers. Whether a tap there sees
    them depends on when the runtime injects them, and SGLang's timing differs from
    training's, so SpecForge PR #431 moved its Qwen3-VL taps from [1, 23, 45] to
    [3, 23, 45] ("avoid Qwen3-VL's deepstack layers (0-2)"). Judged on the ids each runtime
    reads, in its convention.

    Fails: nested `[1, 23, 45]` for SGLang on Qwen3-VL-30B-A3B (3 deepstack layers).
    Passes: `[3, 23, 45]`; targets without deepstack.
    """
    inject = facts.target.deepstack_layers
    if not inject:
        return
    written = _written(facts)
    for release in facts.releases:
        ptr = read_where(facts, release)
        if not written.get(ptr):
            continue
        hit = [o for o in outputs_on(facts, release, written[ptr]) if 0 <= o < inject]
        if hit:
            yield Finding(ptr, f"{release.label} taps the outputs of layers {hit}, which "
                          f"get Qwen3-VL's deepstack vision features (layers 0-{inject - 1}) "
                          f"at another point in serving than in training (SpecForge PR "
                          f"#431): tap from layer {inject} on")



@rule("EA325", "eagle3-draft-vocab-size-missing", "error", "eagle3")
def draft_vocab_size_missing(facts: Facts):
    """The head's config has no `draft_vocab_size` key, which SGLang's Llama EAGLE-3 model
    reads directly.

    `LlamaForCausalLMEagle3.__init__` reads `config.draft_vocab_size` with no default
    (sglang==0.5.23 models/llama_eagle3.py:306, 318; `null` means the full vocabulary), so
    a config without the key stops start-up with "'LlamaConfig' object has no attribute
    'draft_vocab_size'" (the oracle lane records it). vLLM defaults it to `vocab_size`.
    TorchSpec's Kimi-K2.5 and MiniMax-M2.5 templates omit it.

    Before sglang==0.5.5 the key was read only for an untied head (models/llama_eagle3.py:
    202-215 in 0.5.4); a tied head (`tie_word_embeddings: true`) started without it.

    Fails: `LlamaForCausalLMEagle3` without `draft_vocab_size`, for SGLang. Passes: the key
    written (`32000`, or `null`); checked for vLLM alone; a tied head on 0.5.4.
    """
    if facts.has("/draft_vocab_size"):
        return
    names = architecture_names(facts)
    refusing = runtimes.matching(facts.releases, "eagle3.requires-draft-vocab-size",
                                 lambda classes: bool(names & classes))
    if facts.get("/tie_word_embeddings", None) is not True:     # before 0.5.5: untied only
        refusing += runtimes.matching(facts.releases, "eagle3.requires-draft-vocab-size-untied",
                                      lambda classes: bool(names & classes))
    if refusing:
        yield Finding("/draft_vocab_size", f"draft_vocab_size is not written: "
                      f"{runtimes.agree(refusing, 'reads it')} with no default and refuses "
                      f"to start (write the head's output size, or null for the full "
                      f"vocabulary)")

RULES = collect(draft_vocab_size_missing, 
    fc_width, aux_ids_missing, aux_ids_invalid, aux_ids_convention, aux_ids_for_other_target,
    aux_count_not_three, lm_head_vs_draft_vocab, vocab_maps, vocab_vs_target,
    hidden_vs_target, qkv_input_width, norm_flags_vs_tensors, norm_tensors_without_flag,
    multi_layer_refused, max_position_below_target, rope_differs_from_target, embed_tokens,
    path_without_method, architecture_unknown, tied_reduced_vocab, lm_head_missing,
    depth_of_target, aux_ids_in_deepstack_layers, declared_head_unloaded,
)
