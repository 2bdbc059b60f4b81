"""DFlash (z-lab, v1) drafter rules: config fields, taps, layers, and the target.

Facts are from research/dflash.md: the reference drafter (z-lab/dflash `dflash/model.py`),
vLLM (`qwen3_dflash.py`, `eagle3_utils.py`, `spec_decode/dflash.py`) and SGLang
(`dflash_utils.py`). `dflash_config.*` is canonical: the reference reads mask and taps
only from there.
"""

from __future__ import annotations

import json

from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import Finding, Severity, add, remove, replace
from drafter_lint.registry import collect, rule

MASK = "/dflash_config/mask_token_id"
TAPS = "/dflash_config/target_layer_ids"
LAYER_KINDS = ("full_attention", "sliding_attention")

# vocab_size -> (mask_token_id the z-lab drafters of that family were trained with, family)
KNOWN_MASK_IDS = {248320: (248070, "Qwen3.5/3.6"), 151936: (151669, "Qwen3")}


def build_target_layer_ids(num_target_layers: int, count: int) -> list[int]:
    """The taps z-lab training picks: `count` ids spread over [1, depth - 3].

    Same arithmetic as `build_target_layer_ids` in z-lab/dflash and
    vllm-project/speculators (`src/speculators/models/dflash/utils.py`), including
    Python's round-half-to-even.
    """
    if count == 1:
        return [num_target_layers // 2]
    span = num_target_layers - 4
    return [int(round(1 + i * span / (count - 1))) for i in range(count)]


def _dump(value) -> str:
    return json.dumps(value)


def taps_of(facts: Facts) -> list[int] | None:
    """target_layer_ids when it is a list of ints, else None (DF110 reports it)."""
    return facts.int_list(TAPS)


def _depth(facts: Facts) -> tuple[int | None, str]:
    """The target depth and where it came from: the target's config, else num_target_layers."""
    if facts.target and facts.target.num_hidden_layers:
        return facts.target.num_hidden_layers, "from the target config"
    n = facts.int("/num_target_layers")
    return (n, "num_target_layers") if n and n > 0 else (None, "")


def _layer_types(facts: Facts) -> list[str] | None:
    value = facts.get("/layer_types", None)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _sliding(facts: Facts) -> list[int]:
    return [i for i, kind in enumerate(_layer_types(facts) or []) if kind == "sliding_attention"]


def _block_size(facts: Facts) -> int | None:
    for ptr in ("/block_size", "/dflash_config/block_size"):
        value = facts.int(ptr)
        if value is not None:
            return value
    return None


# --- dflash_config and the mask token -----------------------------------------------------


@rule("DF101", "dflash-config-missing", "error", "dflash")
def dflash_config_missing(facts: Facts):
    """`dflash_config` is absent or not an object.

    The reference drafter calls `config.dflash_config.get(...)` and crashes without it;
    vLLM only accepts a dict there and raises for the missing mask id; SGLang falls back
    to a `<|MASK|>` token string the target may not have.

    Fails: a config without `dflash_config`, or `"dflash_config": "[...]"`.
    Passes: `"dflash_config": {"mask_token_id": 248070, "target_layer_ids": [...]}`.
    """
    value = facts.get("/dflash_config")
    if value is MISSING:
        yield Finding("/dflash_config", "dflash_config is missing; the reference drafter "
                      "and vLLM read mask_token_id and target_layer_ids only from it")
    elif not isinstance(value, dict):
        yield Finding("/dflash_config", f"dflash_config is {_dump(value)[:40]}, expected an "
                      f"object holding mask_token_id and target_layer_ids")


@rule("DF102", "mask-token-id-missing", "error", "dflash", fix="sometimes")
def mask_token_id_missing(facts: Facts):
    """`dflash_config.mask_token_id` is absent or not an integer.

    The mask token fills the block's B-1 draft slots and is embedded with the target's
    table. vLLM sets `parallel_drafting_token_id = dflash_config["mask_token_id"]` and
    raises without it; the reference fills its buffer with it. A string or bool is not an
    id (SGLang rejects bools).

    Fails: `"dflash_config": {"target_layer_ids": [...]}`, `"mask_token_id": "248070"`.
    Passes: `"mask_token_id": 248070`.
    Fix (unsafe): copy a top-level integer `mask_token_id`, else the id z-lab uses for this
    vocabulary (248070 for vocab 248320, 151669 for 151936).
    """
    if not isinstance(facts.get("/dflash_config", None), dict):
        return
    value = facts.get(MASK)
    if value is not MISSING and type(value) is int:
        return
    top = facts.int("/mask_token_id")
    known = KNOWN_MASK_IDS.get(facts.int("/vocab_size"))
    suggestion = top if top is not None else (known[0] if known else None)
    if value is MISSING:
        fix = add(MASK, suggestion) if suggestion is not None else None
        yield Finding(MASK, "dflash_config.mask_token_id is missing; vLLM raises "
                      "'must have ... dflash_config.mask_token_id' and the reference drafter "
                      "has no token for the draft slots"
                      + (f" (expected {suggestion})" if suggestion is not None else ""),
                      fix=fix)
    else:
        fix = replace(MASK, suggestion) if suggestion is not None else None
        yield Finding(MASK, f"dflash_config.mask_token_id is {_dump(value)}, expected an "
                      f"integer token id" + (f" such as {suggestion}" if suggestion is not None
                                             else ""), fix=fix)


@rule("DF103", "mask-token-id-out-of-vocab", "error", "dflash")
def mask_token_id_out_of_vocab(facts: Facts):
    """`mask_token_id` is negative or not below the drafter's (and the target's) vocab size.

    The id indexes the target's embedding table; an id outside it fails at the first
    draft step (embedding index error). rtp-llm rejects such ids at setup.

    Fails: `"mask_token_id": 248320` with `"vocab_size": 248320`.
    Passes: `"mask_token_id": 248070` with `"vocab_size": 248320`.
    """
    mask = facts.int(MASK)
    if mask is None:
        return
    limits = []
    vocab = facts.int("/vocab_size")
    if vocab:
        limits.append((vocab, "the drafter's vocab_size"))
    if facts.target and facts.target.vocab_size:
        limits.append((facts.target.vocab_size, "the target's vocab_size"))
    if mask < 0:
        yield Finding(MASK, f"dflash_config.mask_token_id is {mask}, a negative token id")
        return
    for limit, what in limits:
        if mask >= limit:
            yield Finding(MASK, f"dflash_config.mask_token_id is {mask}, not below {what} "
                          f"{limit}; embedding the mask slots indexes past the table")
            return


@rule("DF104", "mask-token-id-is-text", "error", "dflash", needs=("config", "tokenizer"))
def mask_token_id_is_text(facts: Facts):
    """`mask_token_id` is an ordinary text token of the target tokenizer.

    The mask id must be one the drafter saw only in mask slots: a reserved or special
    token. An ordinary vocabulary id (e.g. 151669, the Qwen3 mask id, is plain text in
    the Qwen3.5/3.6 tokenizer) gives the drafter embeddings it was never trained to read
    as "predict here": nothing errors and acceptance collapses (the incident's 1.1%).
    An added but non-special token is a warning: the target can emit it as text.
    Uses the target's tokenizer, else one shipped beside the drafter.

    Fails: an id found in the tokenizer's `model.vocab`.
    Passes: an id of a special added token, or a reserved id the tokenizer does not name.
    """
    mask = facts.int(MASK)
    tokenizer = facts.tokenizer
    if mask is None or tokenizer is None:
        return
    if tokenizer.is_text_token(mask):
        yield Finding(MASK, f"dflash_config.mask_token_id is {mask}, which is the ordinary "
                      f"text token {tokenizer.ordinary[mask]!r} in the tokenizer "
                      f"({tokenizer.source}); the mask id must be a reserved/special token "
                      f"or the draft slots read as text and acceptance collapses")
    elif mask in tokenizer.added and not tokenizer.added[mask][1]:
        yield Finding(MASK, f"dflash_config.mask_token_id is {mask}, the non-special added "
                      f"token {tokenizer.added[mask][0]!r} of the tokenizer "
                      f"({tokenizer.source}), which the target can produce as text",
                      severity=Severity.WARNING)


@rule("DF105", "mask-token-id-unexpected", "warning", "dflash", fix="unsafe")
def mask_token_id_unexpected(facts: Facts):
    """`mask_token_id` is not the id z-lab drafters use for this vocabulary.

    Every published z-lab DFlash drafter of a family shares its mask id: 248070 for the
    Qwen3.5/3.6 vocabulary (248320 entries), 151669 for Qwen3 (151936). A different id
    on such a vocabulary is most often a value guessed or copied from the other family:
    the incident config had 151669 on a Qwen3.6 drafter.

    Fails: `"vocab_size": 248320, "dflash_config": {"mask_token_id": 151669}`.
    Passes: `"vocab_size": 248320, "dflash_config": {"mask_token_id": 248070}`; any id on
    a vocabulary not in the table.
    Fix (unsafe): the family's id; only right for drafters trained by z-lab's recipe.
    """
    mask = facts.int(MASK)
    vocab = facts.int("/vocab_size")
    if facts.target and facts.target.vocab_size:
        vocab = facts.target.vocab_size
    if mask is None or vocab not in KNOWN_MASK_IDS:
        return
    expected, family = KNOWN_MASK_IDS[vocab]
    if mask != expected:
        other = [f for v, (m, f) in KNOWN_MASK_IDS.items() if m == mask]
        hint = f" (that is the {other[0]} mask id)" if other else ""
        yield Finding(MASK, f"dflash_config.mask_token_id is {mask}{hint}; z-lab {family} "
                      f"drafters (vocab {vocab}) use {expected}; a wrong in-range id is "
                      f"silent and collapses acceptance", fix=replace(MASK, expected))


@rule("DF106", "shadowed-dflash-field", "warning", "dflash", fix="unsafe")
def shadowed_dflash_field(facts: Facts):
    """A top-level copy of a `dflash_config` field has a different value.

    Readers disagree on where to look: the reference reads `mask_token_id` and
    `target_layer_ids` only from `dflash_config`; vLLM and SGLang fall back to the top
    level; `block_size` is top-level for z-lab and the reference but SGLang also reads
    `dflash_config.block_size`. Two different values mean two runtimes run two drafters.

    Fails: `"mask_token_id": 151669` at the top level beside
    `"dflash_config": {"mask_token_id": 248070}`.
    Passes: one copy, or equal copies.
    Fix (unsafe): remove the non-canonical copy.
    """
    for key in ("mask_token_id", "target_layer_ids", "block_size"):
        top, nested = facts.get(f"/{key}"), facts.get(f"/dflash_config/{key}")
        if top is MISSING or nested is MISSING or top == nested and type(top) is type(nested):
            continue
        canonical, other = ((f"/{key}", f"/dflash_config/{key}") if key == "block_size"
                            else (f"/dflash_config/{key}", f"/{key}"))
        yield Finding(other, f"{other[1:].replace('/', '.')} is {_dump(facts.get(other))} but "
                      f"{canonical[1:].replace('/', '.')} is {_dump(facts.get(canonical))}; "
                      f"runtimes read different copies", fix=remove(other))


# --- target layer taps --------------------------------------------------------------------


@rule("DF110", "target-layer-ids-invalid", "error", "dflash")
def target_layer_ids_invalid(facts: Facts):
    """`dflash_config.target_layer_ids` is absent, empty, not integers, repeated or unsorted.

    These are the 0-based target layers whose outputs are concatenated, in list order,
    into the drafter's `fc` input. vLLM needs them written in config.json (speculators
    #440); SGLang requires a non-empty list of ints. z-lab lists are strictly increasing;
    a repeat or a reordering feeds `fc` features in an order it was not trained on.

    Fails: `[1, 16, 16, 46, 61]`, `[61, 46, 31, 16, 1]`, `[1, "16", 31]`, `[]`.
    Passes: `[1, 16, 31, 46, 61]`.
    """
    if not isinstance(facts.get("/dflash_config", None), dict):
        return
    taps = facts.get(TAPS)
    if taps is MISSING:
        yield Finding(TAPS, "dflash_config.target_layer_ids is missing; vLLM needs the taps "
                      "written in config.json and the reference would guess them from "
                      "num_target_layers")
        return
    if not isinstance(taps, list) or not taps:
        yield Finding(TAPS, f"dflash_config.target_layer_ids is {_dump(taps)}, expected a "
                      f"non-empty list of target layer indices")
        return
    for i, tap in enumerate(taps):
        if type(tap) is not int:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] is {_dump(tap)}, expected "
                          f"an integer layer index")
        elif tap < 0:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] is {tap}, a negative "
                          f"layer index")
    ints = [t for t in taps if type(t) is int]
    if len(ints) != len(taps):
        return
    for i in range(1, len(taps)):
        if taps[i] == taps[i - 1] or taps[i] in taps[:i - 1]:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] repeats layer {taps[i]}; "
                          f"each tap feeds its own slice of fc")
        elif taps[i] < taps[i - 1]:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] is {taps[i]}, after "
                          f"{taps[i - 1]}; the list must be increasing (fc slices follow "
                          f"list order)")


@rule("DF111", "target-layer-id-beyond-num-target-layers", "error", "dflash")
def target_layer_id_beyond_num_target_layers(facts: Facts):
    """A tap is not below the drafter's own `num_target_layers`.

    `num_target_layers` records the depth of the target the drafter was trained on; a tap
    at or past it was never a layer of that target. SGLang raises; vLLM (since PR #48113)
    raises "target_layer_ids reference layers that do not exist", earlier versions fail
    with a matmul shape error.

    Fails: `"num_target_layers": 64` with `target_layer_ids` `[1, 16, 31, 46, 64]`.
    Passes: every id in `[0, 63]`.
    """
    taps, depth = taps_of(facts), facts.int("/num_target_layers")
    if taps is None or not depth:
        return
    for i, tap in enumerate(taps):
        if tap >= depth:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] is {tap} but "
                          f"num_target_layers is {depth} (valid ids 0..{depth - 1})")


@rule("DF112", "target-layer-id-beyond-target", "error", "dflash", needs=("config", "target"))
def target_layer_id_beyond_target(facts: Facts):
    """A tap is not below the depth of the target given with `--target`.

    vLLM captures hidden states by layer index; a tap the target does not have is never
    produced, so `fc` receives too few features (a clear error since vLLM PR #48113, a
    matmul shape error before). In vLLM the capture index is the id + 1 (PR #40727), so
    the last usable id is depth - 2 there.

    Fails: taps `[1, 16, 31, 46, 64]` on a 64-layer target.
    Passes: taps `[1, 16, 31, 46, 61]` on a 64-layer target.
    """
    taps, depth = taps_of(facts), facts.target.num_hidden_layers
    if taps is None or not depth:
        return
    for i, tap in enumerate(taps):
        if tap >= depth:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] is {tap} but the target "
                          f"({facts.target.display}) has {depth} layers (valid ids "
                          f"0..{depth - 1})")
        elif tap == depth - 1:
            yield Finding(f"{TAPS}/{i}", f"target_layer_ids[{i}] is {tap}, the target's last "
                          f"layer; vLLM captures id+1 = {depth} (PR #40727), which does not "
                          f"exist", severity=Severity.WARNING)


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
        yield Finding(TAPS, f"target_layer_ids has {len(taps)} entries, so fc expects "
                      f"{len(taps)} × {width} = {len(taps) * width} input features, but "
                      f"fc.weight is {list(shape)} ({trained} of width {width})")


@rule("DF114", "target-layer-ids-not-default", "warning", "dflash", fix="unsafe")
def target_layer_ids_not_default(facts: Facts):
    """The taps differ from the spacing z-lab training uses; a ±1 shift is an error.

    z-lab drafters tap `build_target_layer_ids(depth, n)`: n ids spread evenly over
    `[1, depth - 3]` (`[1, 16, 31, 46, 61]` for 64 layers, `[1, 9, 17, 25, 33]` for 36).
    The same list shifted by one is the classic convention mix-up: vLLM's aux-layer
    capture index k is the residual *entering* layer k, so vLLM adds +1 to these ids
    since PR #40727; writing already-shifted ids makes vLLM shift twice, and copying
    pre-#40727 ids shifts the other way. Nothing errors; acceptance drops.
    Other lists are a warning: custom training may choose other taps.

    Fails: `[2, 17, 32, 47, 62]` on a 64-layer target (error).
    Passes: `[1, 16, 31, 46, 61]` on a 64-layer target.
    Fix (unsafe): the default list.
    """
    taps = taps_of(facts)
    depth, source = _depth(facts)
    if not taps or not depth or len(taps) > depth:
        return
    expected = build_target_layer_ids(depth, len(taps))
    if taps == expected:
        return
    fix = replace(TAPS, expected)
    for shift in (1, -1):
        if taps == [t + shift for t in expected]:
            yield Finding(TAPS, f"dflash_config.target_layer_ids is {taps}, the default "
                          f"{expected} for depth {depth} ({source}) shifted by {shift:+d}; "
                          f"target_layer_ids are 0-based layer outputs and vLLM adds +1 "
                          f"itself since PR #40727, so this taps the wrong layers silently",
                          severity=Severity.ERROR, fix=fix)
            return
    yield Finding(TAPS, f"dflash_config.target_layer_ids is {taps}; z-lab training for depth "
                  f"{depth} ({source}) taps {expected}; make sure this list is what the "
                  f"drafter was trained with", fix=fix)


@rule("DF115", "num-target-layers-mismatch", "error", "dflash", needs=("config", "target"))
def num_target_layers_mismatch(facts: Facts):
    """`num_target_layers` differs from the depth of the target given with `--target`.

    The drafter was trained on a target of `num_target_layers` layers; serving it on a
    target of another depth means its taps point at different features (or the drafter
    belongs to another target). For Qwen3.5/3.6 the depth is `text_config.num_hidden_layers`.

    Fails: `"num_target_layers": 36` with a 64-layer target.
    Passes: equal depths.
    """
    n, depth = facts.int("/num_target_layers"), facts.target.num_hidden_layers
    if n is None or depth is None or n == depth:
        return
    yield Finding("/num_target_layers", f"num_target_layers is {n} but the target "
                  f"({facts.target.display}) has {depth} layers; this drafter was trained for "
                  f"a different target")


@rule("DF116", "num-target-layers-missing", "warning", "dflash", fix="sometimes")
def num_target_layers_missing(facts: Facts):
    """`num_target_layers` is absent or not a positive integer.

    The MLX reference reads `cfg["num_target_layers"]` unconditionally (KeyError), the
    reference derives default taps from it, and SGLang validates it. It also records
    which target the drafter belongs to.

    Fails: a config without `num_target_layers`. Passes: `"num_target_layers": 64`.
    Fix (unsafe, with `--target`): the target's depth.
    """
    value = facts.get("/num_target_layers")
    if type(value) is int and value > 0:
        return
    depth = facts.target.num_hidden_layers if facts.target else None
    fix = (add if value is MISSING else replace)("/num_target_layers", depth) if depth else None
    what = "missing" if value is MISSING else f"{_dump(value)}"
    yield Finding("/num_target_layers", f"num_target_layers is {what}, expected the target's "
                  f"depth" + (f" ({depth})" if depth else "") + "; the MLX reference raises "
                  "KeyError without it", fix=fix)


@rule("DF117", "eagle-aux-ids-stale", "error", "dflash", fix="safe")
def eagle_aux_ids_stale(facts: Facts):
    """`eagle_aux_hidden_state_layer_ids` is not `target_layer_ids` + 1.

    vLLM reads the top-level `eagle_aux_hidden_state_layer_ids` *first and unshifted*
    (capture index = residual entering layer k) and only falls back to
    `dflash_config.target_layer_ids` + 1 when it is absent. A stale copy silently
    overrides the taps. The speculators converter writes exactly `[i + 1 for i in taps]`.

    Fails: taps `[1, 16, 31, 46, 61]` with aux ids `[1, 16, 31, 46, 61]`.
    Passes: aux ids `[2, 17, 32, 47, 62]`, or no aux ids.
    Fix (safe): `[i + 1 for i in target_layer_ids]`.
    """
    aux = facts.get("/eagle_aux_hidden_state_layer_ids")
    taps = taps_of(facts)
    if aux is MISSING or taps is None:
        return
    expected = [t + 1 for t in taps]
    if aux != expected or not all(type(a) is int for a in aux):
        yield Finding("/eagle_aux_hidden_state_layer_ids", f"eagle_aux_hidden_state_layer_ids "
                      f"is {_dump(aux)} but target_layer_ids {taps} means {expected}; vLLM "
                      f"uses this list first and unshifted, so it overrides the taps",
                      fix=replace("/eagle_aux_hidden_state_layer_ids", expected, "safe"))


# --- drafter layers: attention kinds and windows ------------------------------------------


@rule("DF120", "layer-types-invalid", "error", "dflash")
def layer_types_invalid(facts: Facts):
    """`layer_types` is not one known attention kind per drafter layer.

    The reference indexes `config.layer_types[layer_idx]` for each of `num_hidden_layers`
    layers (IndexError when short); transformers refuses a length mismatch; SGLang needs a
    list. DFlash layers are `full_attention` or `sliding_attention`.

    Fails: 4 entries for `"num_hidden_layers": 5`; `"sliding"`; a bare string.
    Passes: `["sliding_attention", "sliding_attention", "sliding_attention",
    "sliding_attention", "full_attention"]` for 5 layers.
    """
    value = facts.get("/layer_types")
    if value is MISSING or value is None:
        return
    if not isinstance(value, list):
        yield Finding("/layer_types", f"layer_types is {_dump(value)[:40]}, expected a list "
                      f"with one attention kind per drafter layer")
        return
    for i, kind in enumerate(value):
        if kind not in LAYER_KINDS:
            yield Finding(f"/layer_types/{i}", f"layer_types[{i}] is {_dump(kind)}, expected "
                          f"one of {', '.join(LAYER_KINDS)}")
    n = facts.int("/num_hidden_layers")
    if n is not None and len(value) != n:
        yield Finding("/layer_types", f"layer_types has {len(value)} entries but "
                      f"num_hidden_layers is {n}; transformers refuses to load it and the "
                      f"reference drafter indexes past the list")


@rule("DF121", "layer-types-missing", "warning", "dflash")
def layer_types_missing(facts: Facts):
    """`layer_types` is absent or null, so transformers derives it.

    `Qwen3Config` derives the list from `use_sliding_window` and `max_window_layers`: all
    `full_attention` unless sliding is on, and then only the *later* layers slide, so the
    Qwen3.6 pattern (4 sliding, then full) cannot come out of it. A drafter trained with
    sliding layers then runs full attention everywhere: silent acceptance loss at long
    context (z-lab/dflash issue #126).

    Fails: a config without `layer_types`. Passes: an explicit list.
    """
    value = facts.get("/layer_types")
    if value is MISSING or value is None:
        yield Finding("/layer_types", "layer_types is " + ("missing" if value is MISSING else
                      "null") + "; transformers derives it (all full_attention unless "
                      "use_sliding_window), which may not be how the drafter was trained")


@rule("DF122", "sliding-window-missing", "error", "dflash")
def sliding_window_missing(facts: Facts):
    """Sliding layers exist but `sliding_window` is not a positive integer.

    vLLM raises "DFlash sliding attention requires a window size" and SGLang
    "sliding_attention layers require config.sliding_window"; the reference would run those
    layers with no window. z-lab Qwen3.6-27B uses 2048.

    Fails: `layer_types` with `sliding_attention` and `"sliding_window": null`.
    Passes: `"sliding_window": 2048`.
    """
    sliding = _sliding(facts)
    if not sliding:
        return
    window = facts.get("/sliding_window")
    if type(window) is int and window > 0:
        return
    what = "missing" if window is MISSING else _dump(window)
    yield Finding("/sliding_window", f"sliding_window is {what} but layers {sliding} are "
                  f"sliding_attention; vLLM and SGLang refuse to load, the reference runs "
                  f"them unwindowed")


@rule("DF123", "sliding-window-below-block", "error", "dflash")
def sliding_window_below_block(facts: Facts):
    """`sliding_window` is smaller than `block_size`.

    A draft block attends to itself; a window shorter than the block cuts the block's own
    positions out. NVIDIA ModelOpt refuses `window < block_size` when training DFlash.

    Fails: `"sliding_window": 8` with `"block_size": 16`.
    Passes: `"sliding_window": 2048` with `"block_size": 16`.
    """
    window, block = facts.int("/sliding_window"), _block_size(facts)
    if _sliding(facts) and window and block and 0 < window < block:
        yield Finding("/sliding_window", f"sliding_window is {window}, smaller than "
                      f"block_size {block}; the draft block cannot see itself")


@rule("DF124", "sliding-window-disabled", "warning", "dflash", fix="unsafe")
def sliding_window_disabled(facts: Facts):
    """Sliding layers exist but `use_sliding_window` is false or absent.

    `Qwen3Config` sets `sliding_window = sliding_window if use_sliding_window else None`,
    and `use_sliding_window` defaults to false, silently, in transformers 4.57 and 5.x. The
    reference drafter (and anything loading through transformers) then runs the sliding
    layers as full attention: silent acceptance loss at long context.

    Fails: `layer_types` with `sliding_attention` and `"use_sliding_window": false` (or no
    `use_sliding_window`).
    Passes: `"use_sliding_window": true`.
    Fix (unsafe): set `use_sliding_window` to true.
    """
    sliding = _sliding(facts)
    if not sliding or facts.get("/use_sliding_window", None) is True:
        return
    value = facts.get("/use_sliding_window")
    what = "missing (default false)" if value is MISSING else _dump(value)
    fix = (add if value is MISSING else replace)("/use_sliding_window", True)
    yield Finding("/use_sliding_window", f"use_sliding_window is {what} while layers "
                  f"{sliding} are sliding_attention; transformers' Qwen3Config then loads "
                  f"sliding_window as null and those layers run full attention", fix=fix)


@rule("DF125", "mixed-attention-runtime", "info", "dflash")
def mixed_attention_runtime(facts: Facts):
    """Sliding and full layers are mixed: vLLM needs an SWA-aware build.

    Before vLLM PR #40898 / #46104 the drafter's window fields were dropped and sliding
    layers ran as full attention; on later main a sliding/full mix raises
    NotImplementedError unless `VLLM_USE_V2_MODEL_RUNNER=1`. The z-lab README installs vLLM
    from the PR #40898 branch for this reason.

    Reports: `layer_types` with both kinds (info). Quiet: one kind only.
    """
    kinds = set(_layer_types(facts) or [])
    if {"sliding_attention", "full_attention"} <= kinds:
        yield Finding("/layer_types", "layer_types mixes sliding and full attention: vLLM "
                      "needs the SWA-aware build (PR #40898 branch, or later main with "
                      "VLLM_USE_V2_MODEL_RUNNER=1), older builds run every layer as full "
                      "attention")


@rule("DF126", "causality-unspecified", "warning", "dflash")
def causality_unspecified(facts: Facts):
    """Sliding layers exist and neither `is_causal` nor `dflash_config.causal` says how.

    The reference (z-lab/dflash 44947fb) runs every drafter layer non-causal; later vLLM
    main makes a layer causal iff it is `sliding_attention` unless `is_causal` or
    `dflash_config.causal` says otherwise. Without an explicit flag the two disagree.

    Fails: sliding layers and no flag. Passes: `"is_causal": false`, or no sliding layer.
    """
    if not _sliding(facts):
        return
    if facts.has("/is_causal") or facts.has("/dflash_config/causal"):
        return
    yield Finding("/is_causal", "is_causal is not set while some layers are "
                  "sliding_attention: the reference runs them non-causal, later vLLM runs "
                  "them causal; set is_causal to what the drafter was trained with")


@rule("DF127", "block-size-invalid", "error", "dflash")
def block_size_invalid(facts: Facts):
    """`block_size` is absent (top level and `dflash_config`) or not an integer >= 2.

    The block is one anchor plus B-1 mask slots. The reference reads `config.block_size`
    (AttributeError without it); SGLang derives the draft token count from it. vLLM does
    not read it: serve with `num_speculative_tokens = block_size - 1`.

    Fails: no `block_size`; `"block_size": 1`. Passes: `"block_size": 16`.
    """
    top, nested = facts.get("/block_size"), facts.get("/dflash_config/block_size")
    if top is MISSING and nested is MISSING:
        yield Finding("/block_size", "block_size is missing; the reference drafter raises "
                      "AttributeError and SGLang cannot size the draft (z-lab ships 16)")
        return
    for ptr, value in (("/block_size", top), ("/dflash_config/block_size", nested)):
        if value is not MISSING and not (type(value) is int and value >= 2):
            yield Finding(ptr, f"{ptr[1:].replace('/', '.')} is {_dump(value)}, expected an "
                          f"integer >= 2 (one anchor plus at least one draft slot)")


# --- against the target -------------------------------------------------------------------


@rule("DF140", "hidden-size-vs-target", "error", "dflash", needs=("config", "target"))
def hidden_size_vs_target(facts: Facts):
    """The drafter's target width differs from the target's `hidden_size`.

    The reference feeds `target.embed_tokens` output straight into the drafter and applies
    `target.lm_head` to its output, so `hidden_size` must equal the target's; `fc` takes
    `target_hidden_size` (default `hidden_size`) per tap. A mismatch fails at load or on
    the first forward.

    Fails: `"hidden_size": 4096` for a 5120-wide target. Passes: equal widths.
    """
    target = facts.target.hidden_size
    if not target:
        return
    H, T = facts.int("/hidden_size"), facts.int("/target_hidden_size")
    if T is not None and T != target:
        yield Finding("/target_hidden_size", f"target_hidden_size is {T} but the target "
                      f"({facts.target.display}) has hidden_size {target}")
    if H is not None and H != target:
        yield Finding("/hidden_size", f"hidden_size is {H} but the target "
                      f"({facts.target.display}) has hidden_size {target}; the drafter shares "
                      f"the target's embeddings and LM head, so they must match")


@rule("DF141", "vocab-size-vs-target", "warning", "dflash", needs=("config", "target"))
def vocab_size_vs_target(facts: Facts):
    """The drafter's `vocab_size` differs from the target's and no `d2t` map ships.

    The drafter uses the target's embedding and LM head; vLLM allocates a draft-to-target
    id map when the sizes differ, and before PR #46435 a padded-vocab mismatch made vLLM
    skip LM-head sharing: about 0% acceptance.

    Fails: `"vocab_size": 151936` for a 248320-token target. Passes: equal sizes.
    """
    vocab, target = facts.int("/vocab_size"), facts.target.vocab_size
    if vocab is None or not target or vocab == target or "d2t" in (facts.weights or {}):
        return
    yield Finding("/vocab_size", f"vocab_size is {vocab} but the target "
                  f"({facts.target.display}) has {target} and no d2t map ships; the shared "
                  f"embedding/LM head would not match")


@rule("DF142", "architecture-unexpected", "warning", "dflash")
def architecture_unexpected(facts: Facts):
    """`architectures` or `model_type` is not what DFlash v1 loaders expect.

    z-lab DFlash drafters declare `"architectures": ["DFlashDraftModel"]` and
    `"model_type": "qwen3"` (the reference uses `Qwen3Config`); vLLM picks the model class
    by architecture, and another `model_type` loads through another config class with
    other defaults. DFlash2 is DF136's.

    Fails: `"model_type": "llama"`. Passes: the z-lab values.
    """
    architectures = facts.get("/architectures")
    if architectures is MISSING:
        yield Finding("/architectures", "architectures is missing; expected "
                      "[\"DFlashDraftModel\"] so runtimes pick the DFlash model class")
    elif isinstance(architectures, list) and "DFlash2DraftModel" in architectures:
        pass
    elif architectures != ["DFlashDraftModel"]:
        yield Finding("/architectures", f"architectures is {_dump(architectures)}, expected "
                      f"[\"DFlashDraftModel\"]")
    model_type = facts.get("/model_type")
    if model_type != "qwen3":
        what = "missing" if model_type is MISSING else _dump(model_type)
        yield Finding("/model_type", f"model_type is {what}, expected \"qwen3\": the "
                      f"reference drafter loads through Qwen3Config and its defaults")


RULES = collect(
    dflash_config_missing, mask_token_id_missing, mask_token_id_out_of_vocab,
    mask_token_id_is_text, mask_token_id_unexpected, shadowed_dflash_field,
    target_layer_ids_invalid, target_layer_id_beyond_num_target_layers,
    target_layer_id_beyond_target, target_layer_count_vs_fc, target_layer_ids_not_default,
    num_target_layers_mismatch, num_target_layers_missing, eagle_aux_ids_stale,
    layer_types_invalid, layer_types_missing, sliding_window_missing,
    sliding_window_below_block, sliding_window_disabled, mixed_attention_runtime,
    causality_unspecified, block_size_invalid,
    hidden_size_vs_target, vocab_size_vs_target, architecture_unexpected,
)


# Fields a runtime reads (a difference from the published config changes what runs), and
# fields nothing at serving time reads. Used by the reference and transformers-load rules.
RUNTIME_FIELDS = frozenset({
    "architectures", "model_type", "hidden_size", "target_hidden_size", "intermediate_size",
    "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
    "num_target_layers", "block_size", "vocab_size", "draft_vocab_size", "layer_types",
    "sliding_window", "use_sliding_window", "max_window_layers", "is_causal",
    "attention_bias", "hidden_act", "rms_norm_eps", "rope_theta", "rope_parameters",
    "rope_scaling", "max_position_embeddings", "is_neox_style", "mask_token_id",
    "target_layer_ids", "eagle_aux_hidden_state_layer_ids", "dflash_config",
    "add_swa_attention_sink_bias", "partial_rotary_factor",
})
COSMETIC_FIELDS = frozenset({
    "transformers_version", "torch_dtype", "dtype", "_name_or_path", "use_cache",
    "initializer_range", "attention_dropout", "auto_map", "tie_word_embeddings",
})
