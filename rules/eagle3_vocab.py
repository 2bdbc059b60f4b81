"""EAGLE-3 vocabulary: the head's output size, the d2t/t2d maps, lm_head and
embed_tokens against what each runtime loads and shares from the target.
"""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity, remove, replace
from drafter_lint.registry import rule
from drafter_lint.rules.common import architecture_names


def _draft_vocab(facts: Facts) -> int | None:
    return facts.int("/draft_vocab_size") or facts.int("/vocab_size")


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
                      f"ships: " + runtimes.agree(shares, "builds the head's own output "
                                                  "layer and loads the target's only "
                                                  "without draft_vocab_size")
                      + ", so it "
                      "stays at random init (sglang#27908); remove draft_vocab_size or ship "
                      "the head", fix=None if never else remove(at))
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


@rule("EA325", "eagle3-draft-vocab-size-missing", "error", "eagle3")
def draft_vocab_size_missing(facts: Facts):
    """The head's config has no `draft_vocab_size` key, which SGLang's Llama EAGLE-3 model
    reads directly.

    `LlamaForCausalLMEagle3.__init__` reads `config.draft_vocab_size` with no default
    (sglang==0.5.23 models/llama_eagle3.py:306, 318; `null` means the full vocabulary), so
    a config without the key stops start-up with "'LlamaConfig' object has no attribute
    'draft_vocab_size'" (the oracle lane records it). vLLM defaults it to `vocab_size` from
    0.11.0 (model_executor/models/llama_eagle3.py:201-205); before, its Llama EAGLE-3 head
    read it with no default too (vllm==0.10.2 llama_eagle3.py:212-220, "'EAGLEConfig' object
    has no attribute 'draft_vocab_size'", recorded by the oracle lane).
    TorchSpec's Kimi-K2.5 and MiniMax-M2.5 templates omit it.

    Before sglang==0.5.5 the key was read only for an untied head (models/llama_eagle3.py:
    202-215 in 0.5.4); a tied head (`tie_word_embeddings: true`) started without it.

    Fails: `LlamaForCausalLMEagle3` without `draft_vocab_size`, for SGLang. Passes: the key
    written (`32000`, or `null`); checked for vLLM 0.11+ alone; a tied head on 0.5.4.
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
        yield Finding("/draft_vocab_size", "draft_vocab_size is not written: "
                      + runtimes.agree(refusing, "reads it with no default and refuses "
                                       "to start") + " (write the head's output size, or "
                      "null for the full "
                      "vocabulary)")


@rule("EA327", "eagle3-embedding-always-shared", "error", "eagle3")
def embedding_always_shared(facts: Facts):
    """A head with its own `embed_tokens`, or narrower or wider than its target, where vLLM
    always puts the target's embedding in its place.

    vLLM 0.9.0 and 0.9.0.1 build the EAGLE-3 head's `embed_tokens` only under pipeline
    parallelism (vllm==0.9.0 model_executor/models/llama_eagle3.py:97-103) and otherwise
    replace it with the target's (v1/spec_decode/eagle.py:330-336). A checkpoint that
    ships `embed_tokens.weight` then has nowhere to load it and refuses to start ("There is
    no module or parameter named 'model.embed_tokens'", model_executor/models/utils.py:
    261-263), and a head whose `hidden_size` differs from the target's feeds the target-wide
    embedding beside its own hidden states and fails the width assert at llama_eagle3.py:131
    (vLLM #18906, a Llama-3.3-70B head). From vllm==0.9.1 the head's own embedding is
    loaded when it ships, and shared only when the shapes match (llama_eagle3.py
    `includes_embed_tokens`; eagle.py:332-341, fixed by vLLM #19033).

    Fails: `embed_tokens.weight` in the head's weights, or `"hidden_size": 6144` beside an
    8192-wide target, under `--runtime vllm==0.9.0`. Passes: the same under vLLM 0.9.1; a
    head with no `embed_tokens.weight` and its target's width.
    """
    shared = [r for r in facts.releases if runtimes.value("eagle3.embedding-always-shared", r)]
    if not shared:
        return
    name = next((n for n in facts.weights or {} if n == "embed_tokens.weight" or
                 n.endswith(".embed_tokens.weight")), None)
    if name is not None:
        yield facts.tensor_finding(name, f"the head ships its own {name}: "
                                   f"{runtimes.agree(shared, 'puts')} the target's embedding "
                                   f"in its place, has no parameter to load it into and "
                                   f"refuses to start (drop the tensor for that release, or "
                                   f"serve on a later one)")
    H = facts.int("/hidden_size")
    target = facts.target.hidden_size if facts.target else None
    if H and target and H != target:
        yield Finding("/hidden_size", f"hidden_size is {H} but the target "
                      f"({facts.target.display}) has {target}: "
                      f"{runtimes.agree(shared, 'shares')} the target's {target}-wide "
                      f"embedding with the head, whose width check fails on the first draft step")


@rule("EA328", "eagle3-draft-vocab-unpadded", "error", "eagle3")
def draft_vocab_unpadded(facts: Facts):
    """A reduced `draft_vocab_size` that is not a multiple of 64, where SGLang's draft-extend
    CUDA graph cannot hold the head's logits.

    SGLang pads every LM head to a multiple of 64 rows (sglang==0.5.2
    layers/vocab_parallel_embedding.py:36, 240-244), so an EAGLE-3 head's logits are that
    padded width (cut at `vocab_size` only, logits_processor.py:516). Up to 0.5.14 the
    draft-extend CUDA graph runner sizes its logits buffer `draft_vocab_size` wide
    (speculative/eagle_draft_extend_cuda_graph_runner.py:133-147) and copies the logits
    into it whole: a `draft_vocab_size` off a multiple of 64 fails the copy while the graph
    is captured, and the server does not start (SGLang #10106, a SpecForge-trained
    Qwen3-8B head; the public heads it was checked against are padded). From sglang==0.5.15
    (logits_processor.py:1051-1064) the buffer is used only when the shapes agree.

    Fails: `"draft_vocab_size": 32010` beside `"vocab_size": 128256` under
    `--runtime sglang==0.5.2`. Passes: `32000`; the same under SGLang 0.5.15.
    """
    draft, vocab = facts.int("/draft_vocab_size"), facts.int("/vocab_size")
    if not draft or not vocab or draft >= vocab or draft % 64 == 0:
        return
    copying = [r for r in facts.releases
               if runtimes.value("eagle3.draft-extend-logits-copied-whole", r)]
    if copying:
        padded = -(-draft // 64) * 64
        yield Finding("/draft_vocab_size", f"draft_vocab_size is {draft}, not a multiple of "
                      f"64: {runtimes.agree(copying, 'pads')} the head to {padded} rows and "
                      f"copies its logits into a {draft}-wide draft-extend CUDA graph buffer, "
                      f"so capture fails and the server does not start (pad the head to a "
                      f"multiple of 64, or --disable-cuda-graph)")
