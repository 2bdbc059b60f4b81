"""EAGLE-3 taps: which target layers feed the head (aux-layer ids).

vLLM reads id k as the residual entering layer k, SGLang as the output of layer k
(runtimes' eagle3.aux-convention rows); `fc` fuses one target state per id. The rule ids
of the EAGLE-3 checklist (E3-01 ...) are named in each rule's docs.
"""

from __future__ import annotations

import json

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import Finding, Severity, add
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule


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
    sglang==0.5.23: nested `eagle_config` only); "" where it reads none (vLLM before
    0.11.1, SGLang 0.4.5-0.4.8: the fallback), None where no row says."""
    fact = runtimes.lookup("eagle3.aux-sources", release)
    if fact is None:
        return None
    return fact.value[0] if fact.value else ""


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


def head_width(facts: Facts) -> int | None:
    return facts.int("/target_hidden_size") or facts.int("/hidden_size")


@rule("EA301", "eagle3-fc-width", "error", "eagle3", needs=("config", "weights"))
def fc_width(facts: Facts):
    """`fc.weight` in-features differ from (number of aux layers) × target width (E3-01).

    `fc` fuses k target hidden states: `[hidden_size, k * (target_hidden_size or
    hidden_size)]`, k = len(aux ids), or 3 when they are absent. A mismatch fails the load
    (vLLM #54526: `4096x16384` vs `4096x12288` for a 4-tap head).

    Fails: 3 aux ids with `fc.weight` `[4096, 16384]`. Passes: `[4096, 12288]`.
    """
    shape, width = facts.shape("fc.weight"), head_width(facts)
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


def final_output_captured(facts: Facts, release) -> bool:
    """Whether `release` captures an aux id equal to the target's depth (the last layer's
    output), for this target's model type; True where no row says (no claim)."""
    fact = runtimes.lookup("eagle3.captures-final-output", release)
    if fact is None:
        return True
    default, others = fact.value
    model_type = facts.target.model_type if facts.target else None
    return (not default) if model_type in others else default


@rule("EA303", "eagle3-aux-ids-invalid", "error", "eagle3")
def aux_ids_invalid(facts: Facts):
    """Aux-layer ids are not unique increasing integers the target can capture (E3-03).

    Each id must be an integer in `[0, L]` (L from `--target`), with no repeats, in
    increasing order. An id past L is never captured: fewer states reach `fc` and the
    first forward fails. An id equal to L (the last layer's output) is captured only where
    the release's target class captures after its last layer (`eagle3.captures-final-output`
    rows): vLLM from 0.18.0 (vllm==0.33.0 model_executor/models/llama.py:440, gpt_oss.py:532;
    DeepSeek-V2/V3 targets from 0.25.0), SGLang only for gpt-oss from 0.5.21
    (sglang==0.5.21 models/gpt_oss.py:1336-1339, 738-741). SGLang #32226 / #32334: ids
    `[24, 30, 36]` on the 36-layer gpt-oss-120b crashed with 8640 vs 5760, as vLLM serves
    them.

    Fails: `[24, 30, 37]` on a 36-layer target; `[24, 30, 36]` on it for SGLang 0.5.20;
    `[2, 2, 29]`. Passes: `[2, 18, 33]`; `[24, 30, 36]` on gpt-oss for vLLM 0.33.0.
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
        elif depth is not None and k > depth:
            yield Finding(f"{ptr}/{i}", f"aux layer id {k} is past the target's {depth} "
                          f"layers (valid 0..{depth}); it is never captured")
        elif depth is not None and k == depth:
            blind = [r for r in facts.releases if not final_output_captured(facts, r)]
            if blind:
                yield Finding(f"{ptr}/{i}", f"aux layer id {k} is the output of the target's "
                              f"last layer (it has {depth}), which "
                              + runtimes.agree(blind, "never captures: fewer states reach fc "
                                               "and the first forward fails"))
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

    Fails: top-level `[2, 46, 91, 93]` with no `num_aux_hidden_states`; three ids with
    `num_aux_hidden_states: 4` (fc sized for four).
    Passes: three ids; or `num_aux_hidden_states: 4`; or four nested ids.
    """
    ids = aux_list(facts)
    if not ids:
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
        fails = runtimes.agree([r for r, _ in wrong], "fails to load this head")
        yield Finding(ptr, f"{len(ids)} aux layers, but fc is sized for {wrong[0][1]} "
                      f"(num_aux_hidden_states, else the nested eagle_config ids, else 3): "
                      f"{fails} (vLLM #54526)")


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
        how = f"the target's own depth ({depth}): a value copied from the target?" \
            if n == depth else f"more than the target's depth ({depth}):"
        yield Finding("/num_hidden_layers", f"num_hidden_layers is {n}, {how} {builders} "
                      f"that many draft layers, so each draft step costs about a target step "
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
