"""DSpark drafters: what the runtimes require beyond the DFlash layout they extend."""

from __future__ import annotations

from drafter_lint.rules.common import architecture_names

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding
from drafter_lint.registry import rule

# model types whose checkpoints carry their DSpark stages under mtp.*: vLLM serves the
# target as its own draft (vllm==0.33.0 config/speculative.py:1552-1566)
DSPARK_IN_TARGET = frozenset({"deepseek_v4", "deepseek_v41"})


@rule("DF143", "dspark-markov-rank-missing", "error", "dspark")
def markov_rank_missing(facts: Facts):
    """A DSpark drafter with no positive `markov_rank` where the runtime reads it.

    The Markov head (a rank-r token-transition bias) is part of every DSpark draft model,
    and both runtimes size it from the top-level `config.markov_rank` when they build the
    draft: vLLM with no default (vllm==0.33.0 model_executor/models/qwen3_dspark.py:212,
    gemma4_dspark.py:190: AttributeError), SGLang defaulting to 0 and refusing it
    (sglang==0.5.23 models/dspark.py:385-390). SGLang's config parser also accepts
    `dflash_config.markov_rank` (dspark_components/dspark_config.py:239-251), but its
    model does not read it there. The oracle lane records both refusals, for a missing rank
    and for one only under `dflash_config` (SpecForge's training templates).

    A DeepSeek-V4 target carries its DSpark stages itself and is served as its own draft;
    vLLM then reads `dspark_markov_rank`, also with no default (vllm==0.25.0
    models/deepseek_v4/nvidia/dspark.py:116-120; 0.33.0 :169-174), and `markov_rank` is not
    asked for (the fact `dspark.embedded-markov-rank-sources`).

    Fails: `"architectures": ["DSparkDraftModel"]` with no `markov_rank`, or with it only
    under `dflash_config`; a DeepSeek-V4 config without `dspark_markov_rank`. Passes: a
    top-level `"markov_rank": 256`; a DeepSeek-V4 config with `dspark_markov_rank`.
    """
    embedded = facts.get("/model_type") in DSPARK_IN_TARGET
    key = "dspark.embedded-markov-rank-sources" if embedded else "dspark.markov-rank-sources"
    field = "/dspark_markov_rank" if embedded else "/markov_rank"
    refusing = []
    for release in facts.releases:
        sources = runtimes.value(key, release)
        if sources is None:
            continue
        found = next((facts.get(p) for p in sources if facts.has(p)), None)
        if not (isinstance(found, int) and not isinstance(found, bool) and found > 0):
            refusing.append(release)
    if refusing:
        written = facts.get(field, None)
        what = "missing" if written is None else f"{written!r}"
        nested = facts.get("/dflash_config/markov_rank", None)
        hint = (f"; dflash_config.markov_rank {nested!r} is not where the draft model reads "
                f"it, copy it to the top level") if nested is not None and not embedded else \
            " (write the rank the drafter was trained with)"
        builds = runtimes.agree(refusing, "builds the Markov head from it and refuses to start")
        yield Finding(field, f"{field[1:]} is {what} at the top level: {builds}{hint}")


@rule("DF145", "dspark-markov-head-unloaded", "error", "dspark", needs=("config", "weights"))
def markov_head_unloaded(facts: Facts):
    """A DSpark drafter's weights hold no Markov head, so it keeps its random init.

    Both runtimes build the Markov head (`markov_head.markov_w1`, `markov_head.markov_w2`)
    from `markov_rank` (vllm==0.33.0 model_executor/models/qwen3_dspark.py:209-213;
    sglang==0.5.23 models/dspark.py:533-537) and fill it only from `markov_head.*` tensors
    (qwen3_dspark.py `load_weights`; dspark.py:646-657); neither checks that any came. The
    oracle lane's weights layer (vLLM 0.33.0's own `load_weights` over the header) records
    both parameters left unfilled for DFlash weights under a DSpark config: the draft starts
    and adds a random bias to every draft token's logits.

    Fails: `"architectures": ["DSparkDraftModel"], "markov_rank": 8` with DFlash weights
    (no `markov_head.` tensors). Passes: the same config with `markov_head.markov_w1.weight`
    and `markov_head.markov_w2.weight`.
    """
    weights = facts.weights
    rank = facts.get("/markov_rank", None)
    if not weights or not (isinstance(rank, int) and not isinstance(rank, bool) and rank > 0):
        return
    if any(name.split(".", 1)[-1].startswith("markov_head.") or name.startswith("markov_head.")
           for name in weights):
        return
    building = [r for r in facts.releases
                if runtimes.value("dspark.markov-rank-sources", r) is not None]
    if building:
        yield Finding("/markov_rank", f"markov_rank is {rank} but the weights hold no "
                      f"markov_head tensors: " + runtimes.agree(building, "builds the "
                                                               "Markov head and loads "
                                                               "nothing into it")
                      + ", so it keeps its random init (no "
                      "error at start-up; every draft token's logits get a random bias)")


@rule("DF144", "dspark-draft-taken-for-deepseek-v4", "error", "dspark")
def draft_taken_for_deepseek_v4(facts: Facts):
    """A self-contained `DSparkDraftModel` draft that vLLM rewrites to DeepSeek-V4's DSpark.

    vLLM 0.25-0.28 turn every DSpark draft not named `Qwen3DSparkModel` into DeepSeek-V4's
    DSpark: `model_type` becomes `deepseek_v4`, the class `DSparkDeepseekV4ForCausalLM`,
    which reads the whole DeepSeek-V4 config and refuses a Qwen3-shaped draft
    (`'Qwen3Config' object has no attribute 'hc_mult'`; vllm==0.25.0
    config/speculative.py:899-908, vllm==0.28.0 :1013-1025). From 0.29.0 a `qwen3`
    `DSparkDraftModel` is served as `Qwen3DSparkModel` (vllm==0.29.0 :1360-1368). The
    oracle lane records the refusal on 0.25.0 and 0.26.0 and the start on 0.33.0.

    Judged for `model_type: qwen3`, the drafts the oracle lane runs; a type transformers
    does not know stops earlier (DL014).

    Fails: `"architectures": ["DSparkDraftModel"], "model_type": "qwen3"` under
    `--runtime vllm==0.26.0`. Passes: the same under vLLM 0.29.0; `Qwen3DSparkModel`.
    """
    if "DSparkDraftModel" not in architecture_names(facts):
        return
    model_type = facts.get("/model_type", None)
    if model_type != "qwen3":
        return          # other types stop earlier (DL014) or are DeepSeek-V4's own config
    refusing = [r for r in facts.releases if model_type not in
                runtimes.value("dspark.self-contained-model-types", r, (model_type,))]
    if refusing:
        yield Finding("/architectures", f"architectures is DSparkDraftModel with model_type "
                      f"{model_type!r}: " + runtimes.agree(refusing, "builds it as "
                                                           "DeepSeek-V4's DSpark, which needs "
                                                           "the DeepSeek-V4 config (hc_mult), "
                                                           "and refuses to start")
                      + " (name the class Qwen3DSparkModel; later releases rename a qwen3 one "
                      "themselves)")


@rule("DF146", "dspark-draft-vocab-without-d2t", "error", "dspark", needs=("config", "target"))
def draft_vocab_without_d2t(facts: Facts):
    """A Qwen3 DSpark draft whose `draft_vocab_size` vLLM takes for a pruned vocabulary, with
    no `d2t` map.

    vLLM's Qwen3 DSpark compares the draft's `draft_vocab_size` (its `vocab_size` when
    unset) with the target's `vocab_size` and refuses a "reduced-vocabulary" draft that
    ships no `d2t` ("Reduced-vocabulary Qwen3 DSpark checkpoints must include a d2t
    mapping"). vllm==0.29.0 model_executor/models/qwen3_dspark.py:284, 295-299 calls any
    difference reduced, so a draft whose `draft_vocab_size` is the padded physical
    embedding size, above the target's logical vocabulary (201024 vs 200058), cannot start
    although its mapping is the identity (vLLM #55133); from vllm==0.30.0 (:257-260, 340)
    only a smaller one is.

    Judged for the Qwen3 DSpark class (`Qwen3DSparkModel`, or a `qwen3`
    `DSparkDraftModel`), which holds the check.

    Fails: `"draft_vocab_size": 201024` beside a 200058-token target, no `d2t`, under
    `--runtime vllm==0.29.0`. Passes: the same under vLLM 0.30.0; a `d2t` tensor.
    """
    names = architecture_names(facts)
    if not ("Qwen3DSparkModel" in names or
            ("DSparkDraftModel" in names and facts.get("/model_type", None) == "qwen3")):
        return
    pointer = "/draft_vocab_size" if facts.has("/draft_vocab_size") else "/vocab_size"
    draft, target = facts.int(pointer), facts.target.vocab_size
    if not draft or not target or draft == target:
        return
    if any(n == "d2t" or n.endswith(".d2t") for n in facts.names):
        return
    refusing = [r for r in facts.releases
                if (when := runtimes.value("dspark.d2t-required-when", r)) == "differs"
                or (when == "smaller" and draft < target)]
    if refusing:
        what, hint = ("above", "ship an identity d2t map, or write the target's vocab_size") \
            if draft > target else ("below", "ship the d2t map the draft was trained with")
        yield Finding(pointer, f"{pointer[1:]} is {draft}, {what} the target's vocab_size "
                      f"{target} ({facts.target.display}), and no d2t map ships: "
                      f"{runtimes.agree(refusing, 'takes')} it for a reduced vocabulary and "
                      f"refuses to start ({hint})")
