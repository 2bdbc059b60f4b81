"""EAGLE-3 serving: the context and RoPE the head runs with beside its target, the
method a launch gives it, and the model class the runtimes look up.
"""

from __future__ import annotations

import json

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.registry import rule
from drafter_lint.rules.rope import capping_releases, releases_that, rope_types


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


@rule("EA329", "eagle3-v0-fallback", "error", "eagle3")
def v0_fallback(facts: Facts):
    """An EAGLE-3 head served by a vLLM release that takes EAGLE to its V1 engine only when
    `VLLM_USE_V1=1` is set, and the server does not set it.

    vLLM 0.8.5 serves EAGLE-3 on its V1 engine alone, and treats EAGLE there as
    experimental: without `VLLM_USE_V1=1` the engine choice falls back to V0 (vllm==0.8.5
    engine/arg_utils.py:1488-1490, 1661-1673), whose EAGLE model is EAGLE-1's, with an `fc`
    of twice the hidden size (model_executor/models/eagle.py:83-85). An EAGLE-3 head's
    `fc` takes three hidden states, so its weights do not load there ("Attempted to load
    weight ... into parameter", executed on 0.8.5 by the oracle lane), or, where they
    happen to fit, it drafts as an EAGLE-1 head. From 0.9.0 EAGLE-3 runs on V1 unasked.

    Fails: an EAGLE-3 head under `--runtime vllm==0.8.5` with no `--env VLLM_USE_V1=1`.
    Passes: the same with `VLLM_USE_V1=1` on the launch line; vLLM 0.9.0.
    """
    env = facts.server.environment if facts.server else {}
    try:
        asked = int(env.get("VLLM_USE_V1", "0")) != 0
    except ValueError:
        asked = False
    falling = [r for r in facts.releases
               if r.runtime == "vllm" and runtimes.value("eagle3.v0-unless-v1-asked", r)]
    if falling and not asked:
        yield Finding("", f"{runtimes.agree(falling, 'runs')} EAGLE-3 only on its V1 engine, "
                      f"which it takes for EAGLE only with VLLM_USE_V1=1; without it the "
                      f"server falls back to V0, whose EAGLE-1 model does not load an "
                      f"EAGLE-3 head or drafts with it as EAGLE-1: set VLLM_USE_V1=1")


@rule("EA330", "eagle3-plain-class-head-rows", "error", "eagle3", needs=("config", "weights"))
def plain_class_head_rows(facts: Facts):
    """An EAGLE-3 head whose `architectures` names a plain model class, with an LM head of
    `draft_vocab_size` rows, on SGLang.

    SGLang builds the draft from `architectures` as written (no EAGLE-3 rename:
    sglang==0.5.23 models/registry.py:117-150), so `LlamaForCausalLM` is built as a plain
    Llama, whose `lm_head` has `vocab_size` rows (sglang==0.5.0rc2
    models/llama.py:427-429; the EAGLE-3 class sizes it by `draft_vocab_size`,
    models/llama_eagle3.py:191-195). A head that ships a reduced `lm_head.weight` then
    fails its load: "self.org_vocab_size=128256 ... loaded_weight.shape[output_dim]=32000"
    (layers/vocab_parallel_embedding.py:451-454, executed by the oracle lane on
    0.5.0rc0-rc2).
    Name the EAGLE-3 class (`LlamaForCausalLMEagle3`) for SGLang.

    Fails: `["LlamaForCausalLM"]` with a 32000-row `lm_head.weight` beside `vocab_size`
    128256 under `--runtime sglang`. Passes: `["LlamaForCausalLMEagle3"]`; a full-vocabulary
    head.
    """
    written = facts.get("/architectures", None)
    if not isinstance(written, list) or not written or not isinstance(written[0], str) or \
            "Eagle" in written[0] or facts.get("/tie_word_embeddings", None) is True:
        return
    shape, vocab = facts.shape("lm_head.weight"), facts.int("/vocab_size")
    sglang = [r for r in facts.releases if r.runtime == "sglang"]
    if sglang and shape and vocab and shape[0] != vocab:
        yield facts.tensor_finding("lm_head.weight", f"architectures is {written}, a plain "
                                   f"model class: {runtimes.agree(sglang, 'builds')} it with a "
                                   f"{vocab}-row lm_head, and this {shape[0]}-row one does "
                                   f"not load; name the EAGLE-3 class "
                                   f"(LlamaForCausalLMEagle3)")


@rule("EA331", "eagle3-draft-extend-buffer-width", "error", "eagle3")
def draft_extend_buffer_width(facts: Facts):
    """A head whose `target_hidden_size` differs from its `hidden_size` meets a draft-extend
    CUDA graph sized for its own width.

    SGLang 0.4.7-0.4.9.post2 allocate the EAGLE-3 draft-extend graph's hidden-state buffer
    as 3 x the head's `hidden_size` (sglang==0.4.9
    speculative/eagle_draft_extend_cuda_graph_runner.py:83-89); the target's states are
    3 x `target_hidden_size` wide, so graph capture fails at start-up (sglang#8163, fixed
    in 0.4.9.post3, which sizes it from `target_hidden_size`, :86-95). Serving with
    `--disable-cuda-graph` avoids it.

    Fails: `hidden_size` 4096 with `target_hidden_size` 5120 for SGLang 0.4.9.
    Passes: the same head for SGLang 0.4.9.post3; `target_hidden_size` equal or unset.
    """
    width, target = facts.int("/hidden_size"), facts.int("/target_hidden_size")
    if not width or not target or width == target:
        return
    blind = runtimes.matching(facts.releases, "eagle3.draft-extend-buffer-is-head-width")
    if blind:
        yield Finding("/target_hidden_size", f"target_hidden_size {target} differs from "
                      f"hidden_size {width}: " + runtimes.agree(
                          blind, f"sizes its EAGLE-3 draft-extend CUDA graph buffer "
                          f"3 x {width} for target states 3 x {target} wide and fails at "
                          f"graph capture (sglang#8163; --disable-cuda-graph avoids it)"))
