"""RoPE fields of a draft model's own layers, against how trainers and runtimes read them."""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.family import method as family_method
from drafter_lint.family import own_model
from drafter_lint.findings import Finding, Severity
from drafter_lint.registry import rule

FACTOR = ("/partial_rotary_factor", "/rope_parameters/partial_rotary_factor")


@rule("RP101", "partial-rotary-in-draft", "warning", "any")
def partial_rotary_in_draft(facts: Facts):
    """A draft's layer config rotates only part of each head (`partial_rotary_factor` < 1).

    vLLM builds the draft's rotary embedding with `rotary_dim = head_dim *
    partial_rotary_factor` (vllm==0.33.0 model_executor/layers/rotary_embedding/
    __init__.py:69-72) and SGLang's DFlash model reads the factor too (sglang==0.5.23
    models/dflash.py:252-278). speculators trains its draft layers with the full head
    rotated: speculators #613 had `partial_rotary_factor: 0.25` with `head_dim: 256` in
    `transformer_layer_config` (copied from a Qwen3.5 target), vLLM rotated 64 of 256
    dims and acceptance length fell from ~5 to ~1.1 until the key was removed. A warning
    for speculators files; an info elsewhere (MiMo's DFlash drafter trains with 0.5).

    Fails: a speculators DFlash file with `transformer_layer_config.rope_parameters.
    partial_rotary_factor: 0.25`.
    Informs: `"partial_rotary_factor": 0.5` in a DFlash drafter. Passes: no factor, or 1.0.
    """
    if not own_model(facts.family) or facts.family == "unknown":
        return   # an MTP target's own factor is the target's
    for ptr in FACTOR:
        value = facts.get(ptr, None)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value >= 1:
            continue
        head = facts.int("/head_dim")
        rotated = f" ({int(head * value)} of {head} dims)" if head else ""
        applied = runtimes.labels(runtimes.matching(facts.releases,
                                                    "rope.partial-rotary-applied")) or "vLLM"
        if facts.family.startswith("speculators"):
            yield Finding(ptr, f"partial_rotary_factor is {value}: {applied} rotate only "
                          f"part of each head{rotated}, but speculators trains the draft "
                          f"with every dim rotated; remove the key unless training used it "
                          f"(speculators #613)")
        else:
            yield Finding(ptr, f"partial_rotary_factor is {value}: {applied} rotate only part "
                          f"of each head{rotated}; right only if the drafter was trained so",
                          severity=Severity.INFO)
        return


def rope_types(facts: Facts, root: str = "") -> set[str]:
    """The draft's RoPE types (`rope_scaling` / `rope_parameters` under `root`, the draft
    config's pointer), {"default"} if none."""
    types = set()
    for ptr in (f"{root}/rope_scaling", f"{root}/rope_parameters"):
        params = facts.get(ptr, None)
        if isinstance(params, dict):
            kind = params.get("rope_type", params.get("type", "default"))
            types.add(kind if isinstance(kind, str) else "default")
    return types or {"default"}


def _handling(release, types: set[str], method: str = "eagle3") -> str | None:
    """How `release` treats a `method` draft whose max_position_embeddings is below the
    target's max_model_len, for these RoPE types: "raises" it, "caps" the server's
    max_model_len to it, "keeps" it (prompts past it overrun the draft's RoPE cache), or
    None when not recorded."""
    raised = runtimes.value("draft.raises-max-position-for", release)
    methods = runtimes.value("draft.raises-max-position-methods", release)
    if raised is None or methods is None:
        return None
    if "*" not in methods and method not in methods:
        return "keeps"
    if "*" in raised or (raised and types <= raised):
        return "raises"
    return "caps" if raised else "keeps"


def releases_that(facts: Facts, handling: str) -> list:
    """The selected releases that handle the draft's short max_position_embeddings so."""
    types = rope_types(facts)
    return [r for r in facts.releases if _handling(r, types) == handling]


def capping_releases(facts: Facts) -> list:
    """The selected releases that cap the server's max_model_len to the draft's
    `max_position_embeddings` (rather than raise it) for the draft's RoPE types."""
    return releases_that(facts, "caps")


def served_context(facts: Facts) -> tuple[int | None, str]:
    """(tokens, where from) of the context vLLM serves: the launch's --max-model-len, else
    the target's max_position_embeddings (after --hf-overrides)."""
    if facts.launch.runtime == "vllm" and facts.launch.max_model_len:
        return facts.launch.max_model_len, "--max-model-len"
    value = facts.target.config.get("max_position_embeddings") if facts.target else None
    return (value, "the target's max_position_embeddings") if type(value) is int else \
        (None, "")


@rule("RP102", "draft-rope-cache-below-served-context", "error", "any",
      needs=("config",))
def draft_rope_cache_below_served_context(facts: Facts):
    """A DFlash, DSpark or MTP draft whose `max_position_embeddings` is below the context
    vLLM serves, on a release that keeps it.

    The proposer feeds the draft the target's positions, and the draft's rotary cache is
    sized by its own `max_position_embeddings`: past it the cache gather goes out of
    bounds (an illegal memory access, vLLM #57941 on 0.29.0 with a DFlash2 draft and the
    target's window raised by --hf-overrides). vLLM raises the draft's value to the
    target's from 0.27.0 for EAGLE drafts only and from 0.33.0 for every draft but
    `draft_model` (vllm==0.27.0 config/speculative.py:924-931; vllm==0.33.0 :1503-1511),
    and then only for RoPE types that just size the cache; for the others it caps the
    server's max_model_len (a warning). It runs with either a target or a launch line
    that names --max-model-len. An MTP draft is the target checkpoint as written:
    dict --hf-overrides that lengthen the target do not reach it (vLLM #58080). The
    served context is the launch's --max-model-len, else the target's
    max_position_embeddings (after --hf-overrides). EAGLE-3 heads: EA315.

    A speculators file's draft is its `transformer_layer_config` (vllm==0.33.0
    transformers_utils/configs/speculators/base.py:46-62), served with the method of the
    family it wraps.

    Fails: a DFlash drafter with `max_position_embeddings` 4096 for a 40960-position
    target under `--runtime vllm==0.29.0`; the same in a speculators DFlash file's
    `transformer_layer_config`. Passes: the same under vLLM 0.33.0; a `--max-model-len` at
    most the draft's.
    """
    family, root = facts.family, ""
    if family.startswith("speculators/"):
        family, root = family.split("/", 1)[1], "/transformer_layer_config"
    method = family_method(family, "vllm")
    if method not in ("dflash", "dspark", "mtp"):
        return
    at = next((p for p in (f"{root}/max_position_embeddings",
                           f"{root}/text_config/max_position_embeddings") if facts.int(p)),
              f"{root}/max_position_embeddings")
    mine = facts.int(at)
    served, source = served_context(facts)
    if not (mine and served and mine < served):
        return
    types = rope_types(facts, root)
    by = {h: [r for r in facts.releases if r.runtime == "vllm" and
              _handling(r, types, method) == h] for h in ("keeps", "caps")}
    if by["keeps"]:
        yield Finding(at, f"max_position_embeddings is {mine}, below "
                      f"the {served} tokens served ({source}): "
                      f"{runtimes.agree(by['keeps'], 'keeps it')}, and prompts past {mine} "
                      f"tokens index the draft's RoPE cache out of range (vLLM #57941)")
    if by["caps"]:
        yield Finding(at, f"max_position_embeddings is {mine}, below "
                      f"the {served} tokens served ({source}), with RoPE {sorted(types)}: "
                      f"{runtimes.agree(by['caps'], 'caps')} the server's max_model_len to "
                      f"{mine}", severity=Severity.WARNING)
