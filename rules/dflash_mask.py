"""DFlash rules: `dflash_config` and the mask token (DF101-DF107): where each runtime
looks for it, and whether it is a token the drafter can have been trained with.
"""

from __future__ import annotations

from drafter_lint.rules.dflash import KNOWN_MASK_IDS, MASK, dumped, mask_id, mask_source

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
from drafter_lint.registry import rule
from drafter_lint.target import special_ids


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
            yield Finding("/dflash_config", "dflash_config is missing; "
                          + runtimes.agree(strict, "reads mask_token_id and "
                                           "target_layer_ids only from it and raises without "
                                           "it"))
        elif facts.releases:
            yield Finding("/dflash_config", "dflash_config is missing; "
                          f"{runtimes.agree(facts.releases, 'reads')} the top-level copies "
                          f"instead, the z-lab reference needs it", severity=Severity.INFO)
    elif not isinstance(value, dict):
        yield Finding("/dflash_config", f"dflash_config is {dumped(value)[:40]}, expected an "
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
            yield Finding(ptr, f"{dotted(ptr)} is {dumped(value)}, expected a "
                          f"non-negative integer token id"
                          + (f" such as {suggestion}" if suggestion is not None else ""),
                          fix=fix)
            return
    missing = [r for r in facts.releases if mask_source(facts, r) is None]
    if not missing:
        return
    fatal = [r for r in missing
             if getattr(runtimes.lookup("dflash.mask-sources", r), "effect", "") == "start-up"]
    fix = add(MASK, suggestion, applies) if suggestion is not None and isinstance(
        dflash_config, dict) else None
    if fatal:
        yield Finding(MASK, f"no mask_token_id where {runtimes.agree(fatal, 'looks')} for it; "
                      f"{'they refuse' if len(fatal) > 1 else 'it refuses'} to start "
                      f"without the token for the draft slots"
                      + (f" (expected {suggestion})" if suggestion is not None else ""),
                      fix=fix)
    else:
        falls = "each falls" if len(missing) > 1 else "it falls"
        yield Finding(MASK, f"no mask_token_id where {runtimes.agree(missing, 'looks')} for "
                      f"it; {falls} back to the token string <|MASK|>, which may not be "
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
        yield Finding(other, f"{dotted(other)} is {dumped(facts.get(other))} but "
                      f"{dotted(canonical)} is {dumped(facts.get(canonical))}; "
                      f"runtimes read different copies", fix=remove(other))


# --- target layer taps --------------------------------------------------------------------
