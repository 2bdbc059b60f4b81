"""DFlash rules: the block, anchor sampling, and the drafter against its target
(DF127, DF128, DF140-DF142).
"""

from __future__ import annotations

from drafter_lint.rules.common import target_hidden_size_differs
from drafter_lint.rules.dflash import dumped

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import (
    Finding,
    Severity,
)
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule


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
            yield Finding(ptr, f"{dotted(ptr)} is {dumped(value)}, expected an integer >= 2 "
                          f"(one anchor plus at least one draft slot)")
            return
    strict = runtimes.matching(facts.releases, "dflash.block-size-sources",
                               lambda v: v == ("/block_size",))
    if top is MISSING and strict:
        yield Finding("/block_size", "block_size is missing at the top level; "
                      + runtimes.agree(strict, "reads only config.block_size and raises"))
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
        what = "missing" if model_type is MISSING else dumped(model_type)
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
    mapped there (algos.py:118-122). The refusal starts at vllm==0.27.0 (speculator.py:64-68),
    on the V2 runner, which is the default for dense targets from 0.25.0; the V1 runner
    (MoE or hybrid targets before 0.29, or `VLLM_USE_V2_MODEL_RUNNER=0`) does not read it.
    The row carries its runner, so a release on V1 is not asked. The oracle lane does not
    reach the speculator's constructor; the rule stands on the code.

    Fails: `"dflash_config": {..., "sample_from_anchor": true}`. Passes: false or absent.
    """
    where, value = _sample_from_anchor(facts)
    if where is None or not value:
        return
    refusing = runtimes.matching(facts.releases, "dflash.sample-from-anchor-refused")
    if refusing:
        yield Finding(where, f"sample_from_anchor is {dumped(value)}: "
                      + runtimes.agree(refusing, "serves DFlash only with the anchor as "
                                       "the bonus token and refuses to start on its V2 "
                                       "model runner") + "; write "
                      "false, the layout DFlash drafters are trained in")
