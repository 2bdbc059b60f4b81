"""DFlash (z-lab, v1) drafter rules: config fields, taps, layers, and the target.

Facts are from research/dflash.md: the reference drafter (z-lab/dflash `dflash/model.py`),
vLLM (`qwen3_dflash.py`, `eagle3_utils.py`, `spec_decode/dflash.py`) and SGLang
(`dflash_utils.py`). `dflash_config.*` is canonical: the reference reads mask and taps
only from there.
"""

from __future__ import annotations

import json

from drafter_lint.rules.common import target_hidden_size_differs

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import (
    DISPLAY_ONLY,
    UNSAFE,
    Finding,
    Severity,
    add,
    remove,
    replace,
)
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import collect, rule
from drafter_lint.target import special_ids

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


# Where DFlash taps can be written, with the shift from the written id to the 0-based
# target layer output: vLLM and speculators files write capture indices (tap + 1).
TAP_SOURCES = ((TAPS, 0), ("/target_layer_ids", 0),
               ("/eagle_aux_hidden_state_layer_ids", -1), ("/aux_hidden_state_layer_ids", -1))


def tap_source(facts: Facts) -> tuple[str, list[int] | None, int]:
    """(pointer, written ids, shift) of the first tap list present; ids None if not ints."""
    for ptr, shift in TAP_SOURCES:
        if facts.has(ptr) and facts.get(ptr) is not None:
            return ptr, facts.int_list(ptr), shift
    return TAPS, None, 0


def taps_of(facts: Facts) -> list[int] | None:
    """The 0-based target layer outputs the drafter taps (DF110 reports unusable lists)."""
    _, ids, shift = tap_source(facts)
    return [i + shift for i in ids] if ids is not None else None


def tap_pointer(facts: Facts, i: int | None = None) -> str:
    ptr = tap_source(facts)[0]
    return ptr if i is None else f"{ptr}/{i}"


def _depth(facts: Facts) -> tuple[int | None, str]:
    """The target depth and where it came from: the target's config, else the drafter's
    `target_num_hidden_layers` (TorchSpec), else `num_target_layers`."""
    if facts.target and facts.target.num_hidden_layers:
        return facts.target.num_hidden_layers, "from the target config"
    n = facts.layers("/target_num_hidden_layers")
    if n and n > 0:
        return n, "target_num_hidden_layers"
    n = facts.layers("/num_target_layers")
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


def mask_id(facts: Facts) -> tuple[str, int | None]:
    """(pointer, id) of the integer mask id: `dflash_config`'s, else the top-level one."""
    for ptr in (MASK, "/mask_token_id"):
        if facts.int(ptr) is not None:
            return ptr, facts.int(ptr)
    return MASK, None


def _mask_source(facts: Facts, release) -> tuple[str, object] | None:
    """(pointer, value) of the mask id `release` reads from this config, or None."""
    fact = runtimes.lookup("dflash.mask-sources", release)
    for ptr in (fact.value if fact else ()):
        value = facts.get(ptr)
        if value is not MISSING:
            return ptr, value
    return None


@rule("DF101", "dflash-config-missing", "error", "dflash")
def dflash_config_missing(facts: Facts):
    """`dflash_config` is absent or not an object.

    The z-lab reference calls `config.dflash_config.get(...)` and raises without it
    (z-lab/dflash@44947fb dflash/model.py:312-320). vLLM and SGLang fall back to top-level
    `mask_token_id` / `target_layer_ids` (vllm==0.33.0
    v1/spec_decode/llm_base_proposer.py:361-379; sglang==0.5.23 dflash_utils.py:598-612),
    so for them a missing object is a fact, not a failure (DF102 and DF110 check the
    values). A value that is not an object is refused everywhere.

    Fails: `"dflash_config": "[...]"`; no `dflash_config` with `--runtime reference`.
    Informs: no `dflash_config` (speculators-style top-level fields) for vLLM / SGLang.
    Passes: `"dflash_config": {"mask_token_id": 248070, "target_layer_ids": [...]}`.
    """
    value = facts.get("/dflash_config")
    if value is MISSING and facts.family.startswith("speculators"):
        return  # vLLM builds dflash_config from the speculators fields itself
    if value is MISSING:
        # runtimes that read the mask only from dflash_config cannot do without it
        strict = runtimes.matching(facts.releases, "dflash.mask-sources",
                                   lambda sources: "/mask_token_id" not in sources)
        if strict:
            yield Finding("/dflash_config", f"dflash_config is missing; "
                          f"{runtimes.agree(strict, 'reads')} mask_token_id and "
                          f"target_layer_ids only from it and raises without it")
        elif facts.releases:
            yield Finding("/dflash_config", "dflash_config is missing; "
                          f"{runtimes.agree(facts.releases, 'reads')} the top-level copies "
                          f"instead, the z-lab reference needs it", severity=Severity.INFO)
    elif not isinstance(value, dict):
        yield Finding("/dflash_config", f"dflash_config is {_dump(value)[:40]}, expected an "
                      f"object holding mask_token_id and target_layer_ids")


@rule("DF102", "mask-token-id-missing", "error", "dflash", fix="sometimes", applies="unsafe")
def mask_token_id_missing(facts: Facts):
    """No mask token id where a runtime reads it, or one that is not an integer.

    The mask token fills the block's draft slots and is embedded with the target's table.
    Where each runtime looks, in order:
    vLLM `dflash_config.mask_token_id`, top-level `mask_token_id`, `dspark_noise_token_id`,
    `pard_token`, `ptd_token_id`, and it refuses to start when none is present
    (vllm==0.33.0 v1/spec_decode/llm_base_proposer.py:361-379); SGLang
    `dflash_config.mask_token_id`, then top-level, else the token string `<|MASK|>`, which
    need not be what the drafter was trained with (sglang==0.5.23 dflash_utils.py:677-702);
    the z-lab reference `dflash_config` only (dflash/model.py:320).

    Fails: no id for vLLM or the reference; a string, bool or negative id.
    Warning: no id for SGLang only (it falls back to `<|MASK|>`).
    Passes: `"dflash_config": {"mask_token_id": 248070}`; a top-level `"mask_token_id"`
    for vLLM and SGLang.
    Fix (unsafe): copy a top-level integer `mask_token_id` into `dflash_config`.
    Fix (display-only): else the id z-lab uses for this vocabulary (248070 for vocab
    248320, 151669 for 151936), a candidate: the incident's id was such a copy.
    """
    dflash_config = facts.get("/dflash_config", None)
    top = facts.int("/mask_token_id")
    known = KNOWN_MASK_IDS.get(facts.int("/vocab_size"))
    suggestion = top if top is not None else (known[0] if known else None)
    # a top-level id is the drafter's own; the table's id is a candidate to check by hand
    applies = UNSAFE if top is not None else DISPLAY_ONLY
    for ptr in (MASK, "/mask_token_id"):
        value = facts.get(ptr)
        if value is MISSING or (ptr == MASK and not isinstance(dflash_config, dict)):
            continue
        if type(value) is not int or value < 0:
            fix = replace(ptr, suggestion, applies) \
                if suggestion is not None and ptr == MASK else None
            yield Finding(ptr, f"{dotted(ptr)} is {_dump(value)}, expected a "
                          f"non-negative integer token id"
                          + (f" such as {suggestion}" if suggestion is not None else ""),
                          fix=fix)
            return
    missing = [r for r in facts.releases if _mask_source(facts, r) is None]
    if not missing:
        return
    fatal = [r for r in missing
             if getattr(runtimes.lookup("dflash.mask-sources", r), "effect", "") == "start-up"]
    fix = add(MASK, suggestion, applies) if suggestion is not None and isinstance(
        dflash_config, dict) else None
    if fatal:
        yield Finding(MASK, f"no mask_token_id where {runtimes.agree(fatal, 'looks')} for it; "
                      f"they refuse to start without the token for the draft slots"
                      + (f" (expected {suggestion})" if suggestion is not None else ""),
                      fix=fix)
    else:
        yield Finding(MASK, f"no mask_token_id where {runtimes.agree(missing, 'looks')} for "
                      f"it; it falls back to the token string <|MASK|>, which may not be "
                      f"the id this drafter was trained with", severity=Severity.WARNING,
                      fix=fix)


@rule("DF103", "mask-token-id-out-of-vocab", "error", "dflash")
def mask_token_id_out_of_vocab(facts: Facts):
    """`mask_token_id` is negative or not below the drafter's (and the target's) vocab size.

    The id indexes the target's embedding table; an id outside it fails at the first
    draft step (embedding index error; NVIDIA Model-Optimizer PR #1621 added the check to
    training). rtp-llm rejects such ids at setup.

    Fails: `"mask_token_id": 248320` with `"vocab_size": 248320`.
    Passes: `"mask_token_id": 248070` with `"vocab_size": 248320`.
    """
    mask_ptr, mask = mask_id(facts)
    if mask is None:
        return
    limits = []
    vocab = facts.int("/vocab_size")
    if vocab:
        limits.append((vocab, "the drafter's vocab_size"))
    if facts.target and facts.target.vocab_size:
        limits.append((facts.target.vocab_size, "the target's vocab_size"))
    if mask < 0:
        yield Finding(mask_ptr, f"{dotted(mask_ptr)} is {mask}, a negative token id")
        return
    for limit, what in limits:
        if mask >= limit:
            yield Finding(mask_ptr, f"{dotted(mask_ptr)} is {mask}, not below {what} "
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
    mask_ptr, mask = mask_id(facts)
    tokenizer = facts.tokenizer
    if mask is None or tokenizer is None:
        return
    if tokenizer.is_text_token(mask):
        yield Finding(mask_ptr, f"{dotted(mask_ptr)} is {mask}, which is the ordinary "
                      f"text token {tokenizer.ordinary[mask]!r} in the tokenizer "
                      f"({tokenizer.source}); the mask id must be a reserved/special token "
                      f"or the draft slots read as text and acceptance collapses")
    elif mask in tokenizer.added and not tokenizer.added[mask][1]:
        yield Finding(mask_ptr, f"{dotted(mask_ptr)} is {mask}, the non-special added "
                      f"token {tokenizer.added[mask][0]!r} of the tokenizer "
                      f"({tokenizer.source}), which the target can produce as text",
                      severity=Severity.WARNING)


@rule("DF105", "mask-token-id-unexpected", "warning", "dflash", fix="always", applies="unsafe")
def mask_token_id_unexpected(facts: Facts):
    """`mask_token_id` is not the id z-lab drafters use for this vocabulary.

    Every published z-lab DFlash drafter of a family shares its mask id: 248070 for the
    Qwen3.5/3.6 vocabulary (248320 entries), 151669 for Qwen3 (151936). The other
    family's id on such a vocabulary is a value guessed or copied: the incident config had
    151669 on a Qwen3.6 drafter. Any other id may be the trainer's own choice
    (speculators resolves one from the tokenizer; speculators #613 trained and served
    248077 consistently), so it is an info: right only if training used it.

    Fails: `"vocab_size": 248320, "dflash_config": {"mask_token_id": 151669}`.
    Informs: 248077 on that vocabulary.
    Passes: `"vocab_size": 248320, "dflash_config": {"mask_token_id": 248070}`; any id on
    a vocabulary not in the table.
    Fix (unsafe): the family's id, where the file holds the other family's.
    Fix (display-only): the family's id over another id, which may be the trainer's own.
    """
    mask_ptr, mask = mask_id(facts)
    vocab = facts.int("/vocab_size")
    if facts.target and facts.target.vocab_size:
        vocab = facts.target.vocab_size
    if mask is None or vocab not in KNOWN_MASK_IDS:
        return
    expected, family = KNOWN_MASK_IDS[vocab]
    if mask == expected:
        return
    other = [f for v, (m, f) in KNOWN_MASK_IDS.items() if m == mask]
    if other:
        yield Finding(mask_ptr, f"{dotted(mask_ptr)} is {mask} (that is the {other[0]} mask id); "
                      f"z-lab {family} drafters (vocab {vocab}) use {expected}; a wrong "
                      f"in-range id is silent and collapses acceptance",
                      fix=replace(mask_ptr, expected))
    else:
        yield Finding(mask_ptr, f"{dotted(mask_ptr)} is {mask}; z-lab {family} drafters "
                      f"(vocab {vocab}) use {expected}: right only if this drafter was "
                      f"trained with {mask}", severity=Severity.INFO,
                      fix=replace(mask_ptr, expected, DISPLAY_ONLY))


@rule("DF107", "mask-token-id-is-special", "warning", "dflash")
def mask_token_id_is_special(facts: Facts):
    """The mask id is the target's pad, eos or bos token id.

    The mask token must be one the drafter sees only in its draft slots. The target's
    pad/eos/bos ids appear in ordinary sequences (padding, turn ends), so training on them
    as the mask mixes two meanings into one embedding: TorchSpec's GLM-5.2 DSpark config
    used 154820, GLM-5.1's `pad_token_id` and first `eos_token_id`, which its review (PR
    #133) found "silently corrupts the DSpark objective"; NeMo Automodel PR #2461 fixed
    the same fallback to pad. Uses the target's config (`--target`), else the pad/eos/bos
    ids the drafter config copies from it.

    Fails: `"mask_token_id": 154820` with a target whose `pad_token_id` is 154820.
    Passes: a reserved id such as 248070 for Qwen3.6.
    """
    ptr, mask = mask_id(facts)
    if mask is None:
        return

    sources = [(facts.target.special_ids, f"the target's ({facts.target.display})")] \
        if facts.target else []
    sources.append((special_ids(facts.config), "this config's"))
    for ids, whose in sources:
        hits = [key for key, values in ids.items() if mask in values]
        if hits:
            yield Finding(ptr, f"{dotted(ptr)} is {mask}, {whose} {' and '.join(hits)}; the "
                          f"mask must be a token used only for draft slots, or the drafter "
                          f"trains one embedding for two meanings (TorchSpec PR #133)")
            return


@rule("DF106", "shadowed-dflash-field", "warning", "dflash", fix="always", applies="unsafe")
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
        yield Finding(other, f"{dotted(other)} is {_dump(facts.get(other))} but "
                      f"{dotted(canonical)} is {_dump(facts.get(canonical))}; "
                      f"runtimes read different copies", fix=remove(other))


# --- target layer taps --------------------------------------------------------------------


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
        if not isinstance(facts.get("/dflash_config", MISSING), (dict, type(MISSING))):
            return  # DF101
        # a null list is no list: runtimes read it with getattr(..., None)
        blind = [r for r in facts.releases
                 if not runtimes.matching([r], "dflash.derives-missing-taps")
                 and not any(facts.get(p, None) is not None for p, _ in
                             runtimes.value("dflash.tap-sources", r, ()))]
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
        yield Finding(ptr, f"{name} is {_dump(taps)}, expected a non-empty list of target "
                      f"layer indices")
        return
    for i, tap in enumerate(taps):
        if type(tap) is not int:
            yield Finding(f"{ptr}/{i}", f"{name}[{i}] is {_dump(tap)}, expected an integer "
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
                      f"target_num_hidden_layers), but {runtimes.agree(checking, 'reads')} it "
                      f"as the target depth and refuses taps {[t for _, t in beyond]}")
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
    depth, source = _depth(facts)
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

    Warns: a config without `num_target_layers`.
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
    what = "missing" if value is MISSING else f"{_dump(value)}"
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
                  f"is {_dump(aux)} but target_layer_ids {taps} means {expected}; "
                  f"{runtimes.agree(readers, 'uses')} this list first and unshifted, so it "
                  f"overrides the taps",
                  fix=replace("/eagle_aux_hidden_state_layer_ids", expected, "safe"))


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


def _uses_swa(facts: Facts, release) -> bool:
    """`dflash_config.use_swa` is set and `release` reads it (MiMo-style drafters)."""
    fact = runtimes.lookup("dflash.reads-use-swa", release)
    return bool(fact and fact.value) and facts.get("/dflash_config/use_swa", None) is True


def sliding_on(facts: Facts, release) -> list[int]:
    """The drafter layers that slide on `release` (vllm==0.33.0 qwen3_dflash.py:96-144:
    with `use_swa` and no sliding entry in `layer_types`, every layer slides)."""
    listed = _sliding(facts)
    if _uses_swa(facts, release) and not listed:
        n = facts.layers("/num_hidden_layers") or len(_layer_types(facts) or [])
        return list(range(n))
    return listed


def window_on(facts: Facts, release) -> tuple[str, object]:
    """(pointer, value) of the window `release` reads; value MISSING when none is set."""
    fact = runtimes.lookup("dflash.window-sources", release)
    sources = fact.value if fact else ("/sliding_window",)
    for ptr in sources:
        value = facts.get(ptr)
        if value is not MISSING and value is not None:
            return ptr, value
    return sources[-1], facts.get(sources[-1])


@rule("DF121", "layer-types-missing", "info", "dflash")
def layer_types_missing(facts: Facts):
    """`layer_types` is absent or null, so the attention kind of each layer is derived.

    `Qwen3Config` derives the list from `use_sliding_window` and `max_window_layers`: all
    `full_attention` unless sliding is on, and then only the *later* layers slide, so the
    Qwen3.6 pattern (4 sliding, then full) cannot come out of it (transformers 4.57
    configuration_qwen3.py:211-217; 5.x :90-96). vLLM makes every layer slide when
    `dflash_config.use_swa` is set (vllm==0.33.0 qwen3_dflash.py:96-144). All-full drafters
    (the z-lab Qwen3 ones) are fine without the list: an info.

    Informs: a config without `layer_types`. Passes: an explicit list, or `use_swa` with a
    runtime that reads it.
    """
    value = facts.get("/layer_types")
    if value is not MISSING and value is not None:
        return
    if facts.releases and all(_uses_swa(facts, r) for r in facts.releases):
        return
    derived = ("the later layers slide from max_window_layers on"
               if facts.get("/use_sliding_window", None) is True else "every layer is "
               "full_attention")
    yield Finding("/layer_types", "layer_types is " + ("missing" if value is MISSING else
                  "null") + f"; transformers derives it, so {derived}")


@rule("DF122", "sliding-window-missing", "error", "dflash")
def sliding_window_missing(facts: Facts):
    """Sliding layers exist but no window is set where the runtime reads it.

    vLLM takes `dflash_config.swa_window_size`, else `sliding_window`, and refuses to start
    without one (vllm==0.33.0 qwen3_dflash.py:145-154); SGLang reads `sliding_window` and
    refuses likewise (sglang==0.5.23 dflash_utils.py:400-414); the z-lab reference runs the
    layers unwindowed. z-lab Qwen3.6-27B uses 2048; MiMo drafters set
    `dflash_config.swa_window_size`.

    Fails: `layer_types` with `sliding_attention` and `"sliding_window": null`.
    Passes: `"sliding_window": 2048`; `dflash_config.swa_window_size` for vLLM.
    """
    broken = []
    for release in facts.releases:
        sliding = sliding_on(facts, release)
        ptr, window = window_on(facts, release)
        if sliding and not (type(window) is int and window > 0):
            broken.append((release, sliding, ptr, window))
    if not broken:
        return
    release, sliding, ptr, window = broken[0]
    what = "missing" if window is MISSING else _dump(window)
    consequences = []
    for effect, words in (("start-up", "refuse to start"), ("silent", "run them unwindowed")):
        hit = [b[0] for b in broken if runtimes.value(
            "dflash.null-window-with-sliding-layers", b[0]) == effect]
        if hit:
            consequences.append(f"{runtimes.labels(hit)} {words}")
    yield Finding(ptr, f"{dotted(ptr)} is {what} but layers {sliding} slide; "
                  + "; ".join(consequences) + " without a window")


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


@rule("DF124", "sliding-window-disabled", "error", "dflash", fix="always", applies="unsafe")
def sliding_window_disabled(facts: Facts):
    """Sliding layers take their window from `sliding_window`, but `use_sliding_window` is
    false or absent, so transformers loads the window as null.

    `Qwen3Config` sets `sliding_window = sliding_window if use_sliding_window else None`,
    and `use_sliding_window` defaults to false (transformers 4.57 configuration_qwen3.py:187;
    5.x :86). vLLM and SGLang load the drafter config through transformers and then refuse
    to start without a window (vllm==0.33.0 qwen3_dflash.py:150-154; sglang==0.5.23
    dflash_utils.py:411-414); the z-lab reference silently runs full attention. A window in
    `dflash_config.swa_window_size` is not nulled (vLLM reads it first).

    Fails: `layer_types` with `sliding_attention`, `"sliding_window": 2048` and
    `"use_sliding_window": false` (or absent).
    Passes: `"use_sliding_window": true`.
    Fix (unsafe): set `use_sliding_window` to true; right if the drafter was trained with
    the window.
    """
    if facts.get("/use_sliding_window", None) is True:
        return
    hit = [r for r in facts.releases if sliding_on(facts, r)
           and window_on(facts, r)[0] == "/sliding_window"]
    if not hit:
        return
    value = facts.get("/use_sliding_window")
    what = "missing (default false)" if value is MISSING else _dump(value)
    fix = (add if value is MISSING else replace)("/use_sliding_window", True)
    fatal = runtimes.matching(hit, "dflash.null-window-with-sliding-layers",
                              lambda v: v == "start-up")
    silent = [r for r in hit if r not in fatal]
    consequence = "; ".join(
        part for part in (f"{runtimes.agree(fatal, 'then refuses')} to start" if fatal else "",
                          f"{runtimes.agree(silent, 'runs')} full attention" if silent else "")
        if part)
    yield Finding("/use_sliding_window", f"use_sliding_window is {what} while layers "
                  f"{sliding_on(facts, hit[0])} slide; transformers' Qwen3Config loads "
                  f"sliding_window as null, and {consequence}", fix=fix)


@rule("DF125", "mixed-attention-runtime", "info", "dflash")
def mixed_attention_runtime(facts: Facts):
    """Sliding and full layers are mixed: vLLM serves this on its V2 model runner only.

    vLLM 0.33 runs the V2 runner unless `VLLM_USE_V2_MODEL_RUNNER=0` (vllm==0.33.0
    config/vllm.py:748-767); V1 refuses mixed drafters ("Model Runner V1 does not support",
    config/vllm.py:3128-3137). LCH103 checks a launch line that selects V1.

    Informs: `layer_types` with both kinds, when checking for vLLM. Passes: one kind only.
    """
    kinds = set(_layer_types(facts) or [])
    needs = runtimes.matching(facts.releases, "runner.v1-refuses-mixed-swa")
    if {"sliding_attention", "full_attention"} <= kinds and needs:
        yield Finding("/layer_types", f"layer_types mixes sliding and full attention: "
                      f"{runtimes.agree(needs, 'serves')} it on the V2 model runner (the "
                      f"default); VLLM_USE_V2_MODEL_RUNNER=0 refuses it")


def causality(facts: Facts, release) -> list[bool] | None:
    """Per drafter layer, whether `release` runs it causal (None: not recorded)."""
    fact = runtimes.lookup("dflash.causal-sources", release)
    if fact is None:
        return None
    n = facts.layers("/num_hidden_layers") or len(_layer_types(facts) or [])
    sliding = set(_sliding(facts))   # as listed: use_swa does not make layers causal
    for source in fact.value:
        if source == "non-causal":
            return [False] * n
        if source == "sliding":
            return [i in sliding for i in range(n)]
        value = facts.get(source, None)
        if isinstance(value, bool):
            return [value] * n
    return None


@rule("DF126", "causality-differs", "warning", "dflash")
def causality_differs(facts: Facts):
    """The runtimes checked for run the drafter's layers with different causality.

    vLLM: top-level `is_causal` for every layer, else `dflash_config.causal`, else causal
    iff the layer slides (vllm==0.33.0 qwen3_dflash.py:62-73). SGLang: `is_causal`, else
    sliding layers causal and full ones not; `dflash_config.causal` is not read
    (sglang==0.5.23 models/dflash.py:157-191). The z-lab reference: every layer
    non-causal (dflash/model.py:118, 194). When two of them disagree on a layer, one of
    them runs a drafter it was not trained as. Set the flag both read (`is_causal`) to
    what training used; never guess it.

    Fails: sliding layers with `"dflash_config": {"causal": false}` (vLLM non-causal,
    SGLang causal). Passes: no flag (vLLM and SGLang agree), or `is_causal` set.
    """
    seen = [(r, causality(facts, r)) for r in facts.releases]
    seen = [(r, c) for r, c in seen if c is not None]
    if len(seen) < 2 or all(c == seen[0][1] for _, c in seen):
        return
    def describe(c):
        causal = [i for i, v in enumerate(c) if v]
        return f"causal layers {causal}" if causal else "no causal layer"
    parts = "; ".join(f"{r.label}: {describe(c)}" for r, c in seen)
    ptr = "/dflash_config/causal" if facts.has("/dflash_config/causal") else "/is_causal"
    yield Finding(ptr, f"the runtimes disagree on causality ({parts}); set is_causal to "
                  f"what the drafter was trained with")


@rule("DF127", "block-size-invalid", "error", "dflash")
def block_size_invalid(facts: Facts):
    """`block_size` is not an integer >= 2, or missing where a runtime reads it.

    The block is one anchor plus B-1 mask slots. The z-lab reference reads top-level
    `config.block_size` only and raises without it (dflash/model.py:319); SGLang reads
    `dflash_config.block_size`, then the top level, default 16 (sglang==0.5.23
    dflash_utils.py:608-616); vLLM does not read it (serve with `num_speculative_tokens =
    block_size - 1`).

    Fails: `"block_size": 1`; no top-level `block_size` with `--runtime reference`.
    Informs: no `block_size` anywhere (SGLang assumes 16).
    Passes: `"block_size": 16`.
    """
    top, nested = facts.get("/block_size"), facts.get("/dflash_config/block_size")
    for ptr, value in (("/block_size", top), ("/dflash_config/block_size", nested)):
        if value is not MISSING and not (type(value) is int and value >= 2):
            yield Finding(ptr, f"{dotted(ptr)} is {_dump(value)}, expected an integer >= 2 "
                          f"(one anchor plus at least one draft slot)")
            return
    strict = runtimes.matching(facts.releases, "dflash.block-size-sources",
                               lambda v: v == ("/block_size",))
    if top is MISSING and strict:
        yield Finding("/block_size", f"block_size is missing at the top level; "
                      f"{runtimes.agree(strict, 'reads')} only config.block_size and raises")
    elif top is MISSING and nested is MISSING:
        assuming = runtimes.matching(facts.releases, "dflash.block-size-sources",
                                     lambda v: "/block_size" in v and len(v) > 1)
        if assuming:
            yield Finding("/block_size", f"block_size is missing; "
                          f"{runtimes.agree(assuming, 'assumes 16')} and the draft token "
                          f"count cannot be checked", severity=Severity.INFO)


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
    target, H = facts.target.hidden_size, facts.int("/hidden_size")
    if not target:
        return
    if (differs := target_hidden_size_differs(facts)) is not None:
        yield differs
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


@rule("DF142", "architecture-unexpected", "info", "dflash")
def architecture_unexpected(facts: Facts):
    """`architectures` is missing, or `model_type` is not the qwen3 the DFlash loaders
    build on.

    vLLM picks the model class by architecture; whether the runtimes register the one
    written is DL012's check, and a `model_type` no config class exists for (TorchSpec's
    `dflash`) is DL014's. Any other type loads, but with that type's config class and its
    defaults, while the z-lab reference builds the drafter from `Qwen3Config`
    (dflash/model.py:303): an info.

    Informs: `"model_type": "llama"`, no `architectures`. Passes: the z-lab values.
    """
    if facts.family.startswith("speculators"):
        return  # vLLM sets the architecture of a speculators file itself (algos.py:90-126)
    if facts.get("/architectures") is MISSING:
        yield Finding("/architectures", "architectures is missing; the runtimes pick the "
                      "DFlash model class by it (DFlashDraftModel)")
    model_type = facts.get("/model_type")
    unknown = isinstance(model_type, str) and runtimes.matching(
        facts.releases, "config.unknown-model-types", lambda types: model_type in types)
    if model_type != "qwen3" and not unknown:
        what = "missing" if model_type is MISSING else _dump(model_type)
        serving = [r for r in facts.releases if r.runtime != "reference"]
        loaders = runtimes.agree(serving, "loads") if serving else "the runtimes load"
        yield Finding("/model_type", f"model_type is {what}; the z-lab reference builds "
                      f"the drafter from Qwen3Config, while {loaders} its fields with "
                      f"this type's config class and its defaults")



def _sample_from_anchor(facts: Facts):
    """(pointer, value) of the flag vLLM's DFlash speculator reads: the native
    `dflash_config.sample_from_anchor`, or a speculators DFlash file's top-level key,
    which vLLM maps there (transformers_utils/configs/speculators/algos.py:118-122)."""
    kind = facts.checkpoint.config.get("speculators_model_type") \
        if facts.family.startswith("speculators") else None
    if kind is not None:
        raw = facts.checkpoint.config
        return ("/sample_from_anchor", raw.get("sample_from_anchor")) \
            if kind in ("dflash", "dflash2") else (None, None)
    nested = facts.checkpoint.config.get("dflash_config")
    return "/dflash_config/sample_from_anchor", (nested.get("sample_from_anchor")
                                                 if isinstance(nested, dict) else None)


@rule("DF128", "dflash-sample-from-anchor-refused", "error", "dflash")
def sample_from_anchor_refused(facts: Facts):
    """`sample_from_anchor` is true for a DFlash drafter, which vLLM's V2 DFlash speculator
    refuses.

    DFlash serves a fixed `1 + N` query layout in which the anchor is the bonus token;
    vLLM's V2 model runner raises "sample_from_anchor=True is not supported for DFlash"
    when `dflash_config.sample_from_anchor` is truthy (vllm==0.33.0
    v1/worker/gpu/spec_decode/dflash/speculator.py:80-89; DFlash2, XPress and DSpark
    speculators inherit the check). A speculators DFlash file's `sample_from_anchor` is
    mapped there (algos.py:118-122). The V1 runner (`VLLM_USE_V2_MODEL_RUNNER=0`) does not
    read it. The oracle lane does not reach the speculator's constructor; the rule stands
    on the code.

    Fails: `"dflash_config": {..., "sample_from_anchor": true}`. Passes: false or absent.
    """
    where, value = _sample_from_anchor(facts)
    if where is None or not value:
        return
    env = facts.launch.get("env") or {}
    if str(env.get("VLLM_USE_V2_MODEL_RUNNER", "")).strip() in ("0", "false", "False"):
        return
    refusing = runtimes.matching(facts.releases, "dflash.sample-from-anchor-refused")
    if refusing:
        yield Finding(where, f"sample_from_anchor is {_dump(value)}: "
                      f"{runtimes.agree(refusing, 'serves')} DFlash only with the anchor as "
                      f"the bonus token and refuses to start on its V2 model runner (the "
                      f"default); write false, the layout DFlash drafters are trained in")

RULES = collect(sample_from_anchor_refused, 
    dflash_config_missing, mask_token_id_missing, mask_token_id_out_of_vocab,
    mask_token_id_is_text, mask_token_id_unexpected, mask_token_id_is_special,
    shadowed_dflash_field,
    target_layer_ids_invalid, target_layer_id_beyond_num_target_layers,
    target_layer_id_beyond_target, target_layer_count_vs_fc, target_layer_ids_not_default,
    num_target_layers_mismatch, num_target_layers_missing, eagle_aux_ids_stale,
    layer_types_invalid, layer_types_missing, sliding_window_missing,
    sliding_window_below_block, sliding_window_disabled, mixed_attention_runtime,
    causality_differs, block_size_invalid,
    hidden_size_vs_target, vocab_size_vs_target, architecture_unexpected,
)
