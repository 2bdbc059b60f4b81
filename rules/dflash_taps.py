"""DFlash rules: the taps (DF110-DF117): which target layers feed the drafter, in which
convention, against the target's depth and `fc`.
"""

from __future__ import annotations

from drafter_lint.rules.dflash import (
    TAP_SOURCES,
    TAPS,
    build_target_layer_ids,
    depth_of,
    dumped,
    tap_pointer,
    tap_source,
    taps_of,
)

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import (
    DISPLAY_ONLY,
    Finding,
    Severity,
    add,
    replace,
)
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule


@rule("DF110", "target-layer-ids-invalid", "error", "dflash")
def target_layer_ids_invalid(facts: Facts):
    """The taps are absent where a runtime needs them, or empty, not integers, repeated or
    unsorted.

    The taps are the 0-based target layers whose outputs are concatenated, in list order,
    into the drafter's `fc` input. Where they are read: vLLM top-level
    `eagle_aux_hidden_state_layer_ids` (tap + 1), `dflash_config.target_layer_ids`, then
    top-level `target_layer_ids`, else it guesses `(2, L//2, L-3)` while `fc` is sized for
    the real count, so the load fails (vllm==0.33.0
    v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:113-150);
    SGLang derives them from `num_target_layers` when absent (sglang==0.5.23
    dflash_utils.py:568-571); the z-lab reference reads `dflash_config` only. z-lab lists
    are strictly increasing: a repeat or a reordering feeds `fc` in an untrained order.

    Fails: no taps anywhere (vLLM); `[1, 16, 16, 46, 61]`, `[61, 46, 31, 16, 1]`,
    `[1, "16", 31]`, `[]`.
    Passes: `[1, 16, 31, 46, 61]`; a speculators file's `aux_hidden_state_layer_ids`.
    """
    ptr, _, _ = tap_source(facts)
    taps = facts.get(ptr)
    if taps is MISSING:
        section = facts.get("/dflash_config", MISSING)
        if section is not MISSING and section is not None and not isinstance(section, dict):
            return  # not an object: DF101's
        # a null list is no list: runtimes read it with getattr(..., None)
        # a path that refuses the launch outright is LCH103's (V1 and method dspark)
        blind = [r for r in facts.releases
                 if not runtimes.matching([r], "dflash.derives-missing-taps")
                 and not any(facts.get(p, None) is not None for p, _ in
                             runtimes.value("dflash.tap-sources", r, ()))
                 and not (facts.family == "dspark"
                          and runtimes.value("runner.v1-refuses-dspark", r))]
        nulls = [p for p, _ in TAP_SOURCES if facts.has(p)]
        where = nulls[0] if nulls else TAPS
        written = f"{dotted(where)} is null" if nulls else \
            "no target_layer_ids (nor top-level aux ids) in config.json"
        if blind:
            yield Finding(where, f"{written}; {runtimes.labels(blind)} cannot tell which "
                          f"target layers feed fc")
        return
    name = dotted(ptr)
    if not isinstance(taps, list) or not taps:
        yield Finding(ptr, f"{name} is {dumped(taps)}, expected a non-empty list of target "
                      f"layer indices")
        return
    for i, tap in enumerate(taps):
        if type(tap) is not int:
            yield Finding(f"{ptr}/{i}", f"{name}[{i}] is {dumped(tap)}, expected an integer "
                          f"layer index")
        elif tap < 0:
            yield Finding(f"{ptr}/{i}", f"{name}[{i}] is {tap}, a negative layer index")
    ints = [t for t in taps if type(t) is int]
    if len(ints) != len(taps):
        return
    for i in range(1, len(taps)):
        if taps[i] == taps[i - 1] or taps[i] in taps[:i - 1]:
            yield Finding(f"{ptr}/{i}", f"{name}[{i}] repeats layer {taps[i]}; each tap "
                          f"feeds its own slice of fc")
        elif taps[i] < taps[i - 1]:
            yield Finding(f"{ptr}/{i}", f"{name}[{i}] is {taps[i]}, after {taps[i - 1]}; "
                          f"the list must be increasing (fc slices follow list order)")


@rule("DF111", "target-layer-id-beyond-num-target-layers", "error", "dflash")
def target_layer_id_beyond_num_target_layers(facts: Facts):
    """A tap is not below the drafter's own `num_target_layers`.

    `num_target_layers` records the depth of the target the drafter was trained on; a tap
    at or past it was never a layer of that target. SGLang checks it and refuses to start
    (sglang==0.5.23 dflash_utils.py:579-584); vLLM ignores the field and fails only when
    the real target yields too few features (vllm==0.33.0 qwen3_dflash.py:838-845).

    TorchSpec files put the tap count in `num_target_layers` and the depth in
    `target_num_hidden_layers`; SGLang still reads the former as the depth, so they fail
    there too.

    Fails: `"num_target_layers": 64` with `target_layer_ids` `[1, 16, 31, 46, 64]`;
    TorchSpec's `"num_target_layers": 5` with `[1, 9, 17, 25, 33]` for SGLang.
    Passes: every id in `[0, 63]`; any file checked for vLLM only.
    """
    taps, depth = taps_of(facts), facts.layers("/num_target_layers")
    if taps is None or not depth:
        return
    checking = runtimes.matching(facts.releases, "dflash.checks-num-target-layers")
    if not checking:
        return
    beyond = [(i, tap) for i, tap in enumerate(taps) if tap >= depth]
    torchspec = facts.int("/target_num_hidden_layers")
    if torchspec and beyond:
        yield Finding("/num_target_layers", f"num_target_layers is {depth}, the tap count "
                      f"in TorchSpec's layout (the depth, {torchspec}, is in "
                      f"target_num_hidden_layers), but "
                      + runtimes.agree(checking, f"reads it as the target depth and refuses "
                                                 f"taps {[t for _, t in beyond]}"))
        return
    for i, tap in beyond:
        yield Finding(tap_pointer(facts, i), f"tap {i} is target layer {tap} but "
                      f"num_target_layers is {depth} (valid 0..{depth - 1}); "
                      f"{runtimes.agree(checking, 'refuses')} to start")


@rule("DF112", "target-layer-id-beyond-target", "error", "dflash", needs=("config", "target"))
def target_layer_id_beyond_target(facts: Facts):
    """A tap is not below the depth of the target given with `--target`, or is its last
    layer on a runtime that cannot capture it.

    A tap the target does not have is never produced, so `fc` receives too few features
    and the server refuses to start (vllm==0.33.0 qwen3_dflash.py:838-845; speculators #705:
    id 78 on a 78-layer target, a shape-mismatch RuntimeError). The last layer
    (id L-1) is captured by vLLM (it records idx + 1 after each layer, llama.py:429-441)
    and by the z-lab reference, but not by SGLang, which captures layer inputs for i < L
    only (sglang==0.5.23 models/qwen2.py:455-464): a warning for SGLang.

    Fails: taps `[1, 16, 31, 46, 64]` on a 64-layer target.
    Warns: tap 63 on a 64-layer target, for SGLang. Passes: `[1, 16, 31, 46, 61]`.
    """
    taps, depth = taps_of(facts), facts.target.num_hidden_layers
    if taps is None or not depth:
        return
    blind = runtimes.matching(facts.releases, "dflash.captures-last-layer", lambda v: not v)
    for i, tap in enumerate(taps):
        if tap >= depth:
            yield Finding(tap_pointer(facts, i), f"tap {i} is target layer {tap} but the "
                          f"target ({facts.target.display}) has {depth} layers (valid "
                          f"0..{depth - 1})")
        elif tap == depth - 1 and blind:
            yield Finding(tap_pointer(facts, i), f"tap {i} is target layer {tap}, the "
                          f"target's last; {runtimes.agree(blind, 'captures')} layer inputs "
                          f"only, so this output is never captured",
                          severity=Severity.WARNING)


@rule("DF113", "target-layer-count-vs-fc", "error", "dflash", needs=("config", "weights"))
def target_layer_count_vs_fc(facts: Facts):
    """`len(target_layer_ids)` does not match the input width of `fc.weight`.

    `fc.weight` is `[hidden_size, len(taps) * target_hidden]`: its in-features divided by
    the target width is the number of taps the drafter was trained with. vLLM's
    `combine_hidden_states` raises when the widths differ; a list of the wrong length is
    the usual cause.

    Fails: 4 taps with `fc.weight` `[5120, 25600]` (5 × 5120).
    Passes: 5 taps with `fc.weight` `[5120, 25600]`.
    """
    taps, shape = taps_of(facts), facts.shape("fc.weight")
    width = facts.int("/target_hidden_size") or facts.int("/hidden_size")
    if taps is None or shape is None or len(shape) != 2 or not width:
        return
    if shape[1] != len(taps) * width:
        trained = f"{shape[1] // width} taps" if shape[1] % width == 0 else "no whole count"
        yield Finding(tap_pointer(facts), f"the config lists {len(taps)} taps, so fc expects "
                      f"{len(taps)} × {width} = {len(taps) * width} input features, but "
                      f"fc.weight is {list(shape)} ({trained} of width {width})")


@rule("DF114", "target-layer-ids-not-default", "info", "dflash", fix="sometimes",
      applies="unsafe")
def target_layer_ids_not_default(facts: Facts):
    """The taps are the z-lab spacing shifted by one (error), or another list (info).

    z-lab drafters tap `build_target_layer_ids(depth, n)`: n ids spread evenly over
    `[1, depth - 3]` (`[1, 16, 31, 46, 61]` for 64 layers, `[1, 9, 17, 25, 33]` for 36;
    z-lab/dflash@44947fb dflash/model.py:27-36). `dflash_config.target_layer_ids` are
    0-based layer outputs, and the runtimes add +1 themselves (vllm==0.33.0
    v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:120-124, PR #40727; sglang==0.5.23
    qwen3.py:803-805).
    The default shifted by exactly one is the classic convention mix-up (ids written as
    capture indices): nothing errors and every tap reads the wrong layer.
    Other lists are facts, not faults: DFlash2 and MiMo drafters train their own taps
    (`[5, 19, 33, 47, 61]`, `[0, 15, 31, 47, 69]`).

    Fails: `[2, 17, 32, 47, 62]` on a 64-layer target.
    Informs: `[5, 19, 33, 47, 61]` on a 64-layer target. Passes: `[1, 16, 31, 46, 61]`.
    Fix (unsafe): the default list, over the default shifted by one.
    Fix (display-only): the default list, over another list (which may be the trained one).
    """
    taps = taps_of(facts)
    depth, source = depth_of(facts)
    if not taps or not depth or len(taps) > depth or facts.family == "dspark":
        return  # DSpark trainers choose their own taps
    expected = build_target_layer_ids(depth, len(taps))
    if taps == expected:
        return
    ptr = tap_pointer(facts)
    fix = replace(TAPS, expected) if ptr == TAPS else None
    for shift in (1, -1):
        if taps == [t + shift for t in expected]:
            written = facts.get(ptr)
            how = ("these are 0-based layer outputs and vLLM and SGLang add +1 themselves"
                   if ptr in (TAPS, "/target_layer_ids") else
                   "these are capture indices (tap + 1), so a converter forgot or doubled "
                   "the +1")
            shown = f"{written}" if written == taps else f"{written}: taps {taps}"
            yield Finding(ptr, f"{dotted(ptr)} is {shown}, the default "
                          f"{expected} for depth {depth} ({source}) shifted by {shift:+d}; "
                          f"{how}, so every tap reads the wrong layer silently",
                          severity=Severity.ERROR, fix=fix)
            return
    yield Finding(ptr, f"the drafter taps target layers {taps}; z-lab's spacing for depth "
                  f"{depth} ({source}) is {expected}; fine if this is what it was trained "
                  f"with", fix=replace(TAPS, expected, DISPLAY_ONLY) if fix else None)


@rule("DF115", "num-target-layers-mismatch", "error", "dflash", needs=("config", "target"))
def num_target_layers_mismatch(facts: Facts):
    """`num_target_layers` differs from the depth of the target given with `--target`.

    The drafter was trained on a target of `num_target_layers` layers; serving it on a
    target of another depth means its taps point at different features (or the drafter
    belongs to another target). For Qwen3.5/3.6 the depth is `text_config.num_hidden_layers`.

    TorchSpec files record the depth in `target_num_hidden_layers` (and the tap count in
    `num_target_layers`), so that field is compared when present.

    Fails: `"num_target_layers": 36` with a 64-layer target; TorchSpec's
    `"target_num_hidden_layers": 28` with a 36-layer target.
    Passes: equal depths.
    """
    ptr = "/target_num_hidden_layers" if facts.int("/target_num_hidden_layers") \
        else "/num_target_layers"   # TorchSpec: depth there, tap count in num_target_layers
    n, depth = facts.int(ptr), facts.target.num_hidden_layers
    if n is None or depth is None or n == depth:
        return
    yield Finding(ptr, f"{dotted(ptr)} is {n} but the target ({facts.target.display}) has "
                  f"{depth} layers; this drafter was trained for a different target")


@rule("DF116", "num-target-layers-missing", "info", "dflash", fix="sometimes", applies="unsafe")
def num_target_layers_missing(facts: Facts):
    """`num_target_layers` is absent or not a positive integer.

    The z-lab reference evaluates `build_target_layer_ids(config.num_target_layers, ...)`
    even when taps are written, so it raises without the field (z-lab/dflash@44947fb
    dflash/model.py:312-314); the MLX reference reads it unconditionally. vLLM ignores it
    and SGLang takes it as the target depth, to derive missing taps and to
    range-check written ones (DF111). So: a warning for `--runtime
    reference`, else an info (it also records which target the drafter belongs to).
    Speculators files do not carry it (vLLM maps them itself).

    SGLang 0.5.11 to 0.5.17 take the drafter's own `num_hidden_layers` as the target's
    depth when the field is absent (sglang==0.5.17 models/dflash.py:361-368) and range-check
    the written taps against it, so a tap at or above the drafter's layer count refuses to
    start there: an error for those releases (0.5.18 takes the largest tap + 1). SGLang's
    DSpark model (models/dspark.py) does not read the field.

    Warns: a config without `num_target_layers`. Fails: the same with taps [1, 9, 17, 25,
    33] on a 5-layer drafter, for SGLang 0.5.17.
    Passes: `"num_target_layers": 64`.
    Fix (unsafe, with `--target`): the target's depth.
    """
    if facts.family.startswith("speculators"):
        return
    value = facts.get("/num_target_layers")
    if type(value) is int and value > 0:
        return
    depth = facts.target.num_hidden_layers if facts.target else None
    fix = (add if value is MISSING else replace)("/num_target_layers", depth) if depth else None
    what = "missing" if value is MISSING else f"{dumped(value)}"
    taps, layers = taps_of(facts), facts.layers("/num_hidden_layers")
    checked = runtimes.matching(facts.releases, "dflash.depth-without-num-target-layers",
                                lambda how: how == "draft-depth")
    if value is MISSING and checked and taps and layers and max(taps) >= layers and \
            facts.family == "dflash":             # the DFlash model's check, not DSpark's
        yield Finding("/num_target_layers", f"num_target_layers is missing: "
                      f"{runtimes.agree(checked, 'checks')} the taps {taps} against the "
                      f"drafter's own {layers} layers instead, and tap {max(taps)} makes it "
                      f"refuse to start", fix=fix, severity=Severity.ERROR)
        return
    strict = runtimes.matching(facts.releases, "dflash.requires-num-target-layers")
    yield Finding("/num_target_layers", f"num_target_layers is {what}, expected the target's "
                  f"depth" + (f" ({depth})" if depth else "") + "; the z-lab reference "
                  "raises without it", fix=fix,
                  severity=Severity.WARNING if strict else Severity.INFO)


@rule("DF117", "eagle-aux-ids-stale", "error", "dflash", fix="always", applies="safe")
def eagle_aux_ids_stale(facts: Facts):
    """`eagle_aux_hidden_state_layer_ids` is not `dflash_config.target_layer_ids` + 1.

    vLLM reads the top-level `eagle_aux_hidden_state_layer_ids` *first and unshifted*
    (capture index = residual entering layer k) and falls back to
    `dflash_config.target_layer_ids` + 1 only when it is absent (vllm==0.33.0
    v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:113-124). A stale copy silently
    overrides the taps on
    vLLM; SGLang and the reference do not read it. The speculators converter writes
    `[i + 1 for i in taps]`, leaving out i + 1 == L, which vLLM always captures.

    Fails: taps `[1, 16, 31, 46, 61]` with aux ids `[1, 16, 31, 46, 61]`.
    Passes: aux ids `[2, 17, 32, 47, 62]`, or no aux ids, or not checking for vLLM.
    Fix (safe): `[i + 1 for i in target_layer_ids]`.
    """
    aux = facts.get("/eagle_aux_hidden_state_layer_ids")
    taps = facts.int_list(TAPS)
    readers = runtimes.matching(facts.releases, "dflash.tap-sources", lambda sources: any(
        ptr == "/eagle_aux_hidden_state_layer_ids" for ptr, _ in sources))
    if aux is MISSING or taps is None or not readers:
        return
    expected = [t + 1 for t in taps]
    depth = facts.target.num_hidden_layers if facts.target else facts.layers("/num_target_layers")
    converted = [e for e in expected if e != depth]     # speculators leaves out id L
    if isinstance(aux, list) and all(type(a) is int for a in aux) and aux in (expected,
                                                                             converted):
        return
    yield Finding("/eagle_aux_hidden_state_layer_ids", f"eagle_aux_hidden_state_layer_ids "
                  f"is {dumped(aux)} but target_layer_ids {taps} means {expected}; "
                  f"{runtimes.agree(readers, 'uses')} this list first and unshifted, so it "
                  f"overrides the taps",
                  fix=replace("/eagle_aux_hidden_state_layer_ids", expected, "safe"))


def _read_taps(facts: Facts, release) -> tuple[str, int] | None:
    """(pointer, shift to the capture index) of the tap list `release` reads first."""
    for ptr, shift in runtimes.value("dflash.tap-sources", release, ()):
        if facts.get(ptr, None) is not None:
            return ptr, shift
    return None


@rule("DF118", "taps-shifted-by-runtime", "warning", "dflash")
def taps_shifted_by_runtime(facts: Facts):
    """The runtime reads the tap list with another offset than the one it was trained
    with, so it feeds `fc` the outputs of other layers.

    z-lab training taps `hidden_states[id + 1]`, the output of layer `id`
    (dflash/model.py:39-45), and vLLM and SGLang add the same 1 to
    `dflash_config.target_layer_ids`. vLLM 0.20 and 0.21 did not (vllm==0.20.0
    v1/worker/gpu_model_runner.py:4961-4966): every tap landed one layer early, and
    acceptance dropped (vLLM PR #40727: acceptance length 3.92-4.03 against 4.11-4.16 on
    MT-Bench); 0.22 added the shift. Nothing fails: the server runs, slower.

    Warns: `target_layer_ids` `[1, 9, 17, 25, 33]` under `--runtime vllm==0.21.0`.
    Passes: the same under `vllm==0.22.0`; top-level `eagle_aux_hidden_state_layer_ids`,
    which is written in vLLM's convention.
    """
    trained = dict(runtimes.value("dflash.tap-sources", runtimes.parse("reference"), ()))
    shifted = {}
    for release in facts.releases:
        read = _read_taps(facts, release)
        if read and read[0] in trained and read[1] != trained[read[0]]:
            shifted.setdefault(read, []).append(release)
    for (ptr, shift), releases in shifted.items():
        ids = facts.int_list(ptr)
        if ids is None:
            continue
        offset = shift - trained[ptr]
        fed = [i + offset for i in ids]
        yield Finding(ptr, f"{dotted(ptr)} is {ids}: {runtimes.agree(releases, 'reads')} it "
                      f"{'without' if offset < 0 else 'with an extra'} the +1 of training "
                      f"and feeds fc the outputs of layers {fed}, not {ids}; acceptance "
                      f"drops (vLLM PR #40727), later releases read it as trained")
