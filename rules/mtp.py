"""MTP heads inside target checkpoints: their count, weights and shapes against the
config, and the launch's token count.

DeepSeek-V3/R1, GLM: `num_nextn_predict_layers` heads stored as `model.layers.{L+i}`.
Qwen3-Next / Qwen3.5: `mtp_num_hidden_layers` (often in `text_config`), tensors `mtp.*`.
Only the shards holding MTP tensors are read (drafter_lint.family.shards_needed).
"""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.family import mtp_count, mtp_count_words
from drafter_lint.findings import Finding
from drafter_lint.jsondoc import pointer
from drafter_lint.registry import rule


def text_config(facts: Facts) -> tuple[str, dict]:
    section = facts.config.get("text_config")
    return ("/text_config", section) if isinstance(section, dict) else ("", facts.config)


def mtp_layers(facts: Facts) -> tuple[str, set[int]]:
    """(layout, distinct MTP layer indices) from the tensor names (one pass per checkpoint)."""
    return facts.once("mtp-layers", _mtp_layers)


def _mtp_layers(facts: Facts) -> tuple[str, set[int]]:
    _, text = text_config(facts)
    depth = text.get("num_hidden_layers") if type(text.get("num_hidden_layers")) is int else None
    qwen, mimo, deepseek, v4, qwen_any = set(), set(), set(), set(), False
    for name in facts.names:
        parts = name.split(".", 4)
        if parts[0] == "model":
            parts = parts[1:]
            if parts[0] == "layers" and depth is not None and parts[1].isdigit() \
                    and int(parts[1]) >= depth:
                deepseek.add(int(parts[1]) - depth)
            elif parts[0] == "mtp_layers" and parts[1].isdigit():
                mimo.add(int(parts[1]))
        if parts[0] == "mtp":
            qwen_any = True
            if len(parts) > 2 and parts[1] == "layers" and parts[2].isdigit():
                qwen.add(int(parts[2]))
            elif len(parts) > 1 and parts[1].isdigit():
                v4.add(int(parts[1]))           # DeepSeek-V4: mtp.{i}.*
    if v4:
        return "deepseek-v4", v4
    return ("qwen", qwen) if qwen_any else ("mimo", mimo) if mimo else ("deepseek", deepseek)


@rule("MTP101", "mtp-count-vs-weights", "error", "mtp")
def count_vs_weights(facts: Facts):
    """The MTP count field differs from the MTP layers in the weights (MTP-01).

    vLLM sets `n_predict` from `num_nextn_predict_layers` / `mtp_num_hidden_layers` /
    `num_mtp_modules` and builds that many MTP layers; the weight map must hold exactly
    those layers (`model.layers.{L..L+n-1}` for DeepSeek, `mtp.layers.{0..n-1}` for
    Qwen3-Next/3.5).

    Fails: `"num_nextn_predict_layers": 2` with one extra layer in the weights.
    Passes: equal counts.
    """
    count = mtp_count(facts.config)
    layout, layers = mtp_layers(facts)
    if count is None or count[1] < 1 or not layers:
        return
    if layout == "deepseek-v4" and len(layers) > count[1]:
        return          # layers past the count are skipped (models/deepseek_v4/nvidia/mtp.py)
    if len(layers) != count[1]:
        yield Finding(count[0], f"{mtp_count_words(count, facts.config)} but the "
                      f"weights hold {len(layers)} MTP layer(s) ({layout} layout, indices "
                      f"{sorted(layers)})")


@rule("MTP102", "mtp-weights-missing", "error", "mtp")
def weights_missing(facts: Facts):
    """The config declares MTP layers but the weights hold none (MTP-02).

    A quantized or pruned export often drops `mtp.*`: `method: mtp` then fails to load
    (Inkling raises "checkpoint does not contain MTP weights") or runs unloaded layers.
    MiniMax-M2.5 #8: the config declares `num_mtp_modules: 3`, the published weights hold
    no MTP tensor.

    Qwen3-Next writes no count: vLLM and SGLang build one MTP layer for `model_type:
    qwen3_next` (vllm==0.33.0 model_executor/models/qwen3_next_mtp.py:63, sglang==0.5.23
    srt/models/qwen3_next_mtp.py:67), so its export without `mtp.*` fails here too
    (NVIDIA/Model-Optimizer#733).

    Fails: `"mtp_num_hidden_layers": 1` and no `mtp.*` tensor; Qwen3-Next's published
    config and no `mtp.*` tensor. Passes: `mtp.*` present.
    """
    count = mtp_count(facts.config)
    layout, layers = mtp_layers(facts)
    has_any = layers or layout == "qwen"
    if count and count[1] > 0 and not has_any and facts.names:
        yield Finding(count[0], f"{mtp_count_words(count, facts.config)} but no MTP "
                      f"tensor is in the weights (an export that dropped mtp.*?)")


@rule("MTP103", "mtp-speculative-tokens-indivisible", "error", "mtp",
      needs=("config", "launch"))
def speculative_tokens_indivisible(facts: Facts):
    """`num_speculative_tokens` exceeds the MTP layers and is not a multiple (MTP-03).

    vLLM reuses MTP layers for k > n_predict only when k is divisible by n_predict, and
    raises ValueError otherwise (vllm==0.33.0 config/speculative.py:1600-1612; PR #13626).

    Fails: 3 tokens with 2 MTP layers. Passes: 4 tokens with 2 layers; 1 with 1.
    """
    count, k = mtp_count(facts.config), facts.launch.count("vllm")
    vllm = vllm_releases(facts)
    if vllm and count and count[1] > 0 and k and k > count[1] and k % count[1]:
        yield Finding(count[0], f"num_speculative_tokens {k} > {count[1]} MTP layers and not "
                      f"a multiple of it: {runtimes.agree(vllm, 'refuses to start')}")


@rule("MTP104", "mtp-speculative-tokens-reuse", "info", "mtp", needs=("config", "launch"))
def speculative_tokens_reuse(facts: Facts):
    """`num_speculative_tokens` exceeds the MTP layers, so layers run repeatedly (MTP-04).

    vLLM logs that reusing one MTP layer for several steps may lower acceptance
    (vllm==0.33.0 config/speculative.py:1486-1495; vLLM #48892: 83% at k=1 vs 76% at k=8
    at position 0). Published recipes run k=3 on one layer on purpose (the net speed-up
    still wins), so this is a fact to know, not a fault: an info.

    Informs: 3 tokens with 1 MTP layer. Passes: 1 token with 1 layer.
    """
    count, k = mtp_count(facts.config), facts.launch.count("vllm")
    if count and count[1] > 0 and k and k > count[1]:
        yield Finding(count[0], f"num_speculative_tokens {k} > {count[1]} MTP layer(s): each "
                      f"layer runs several draft steps, at lower acceptance (vLLM #48892)")


@rule("MTP105", "mtp-tensor-shapes", "error", "mtp", needs=("config", "weights"))
def tensor_shapes(facts: Facts):
    """An MTP head tensor is missing or mis-shaped (MTP-05).

    DeepSeek-style layer `model.layers.{L+i}.`: `eh_proj.weight [H, 2H]`, `enorm.weight`,
    `hnorm.weight`, `shared_head.norm.weight [H]`, and `shared_head.head.weight
    [vocab, H]` when it ships. GLM MTP layers ship no `shared_head.head`: vLLM installs the
    target's `lm_head` as every MTP head's (vllm==0.33.0 v1/spec_decode/
    llm_base_proposer.py:1546-1575), so only its shape is checked, not its presence, except
    for releases before that sharing (vllm==0.15.1 v1/spec_decode/eagle.py:1236-1245),
    which load it from the checkpoint: an unquantized checkpoint without it refuses to start
    ("Following weights were not initialized from checkpoint", vllm==0.10.2
    model_executor/model_loader/default_loader.py:272-278; vLLM #25993, GLM-4.6 on 0.10.2),
    a quantized one keeps the head at its init.
    Qwen3-Next/3.5: `mtp.fc.weight [H, 2H]`, `mtp.norm.weight`,
    `mtp.pre_fc_norm_hidden.weight`, `mtp.pre_fc_norm_embedding.weight [H]`.
    DeepSeek-V4 `mtp.{i}.` (i below the count): `e_proj`, `h_proj`, `enorm` and `hnorm`
    present, the layer-level weights its MTP loader keeps outside the block
    (vllm==0.33.0 models/deepseek_v4/nvidia/mtp.py:530-538; config/speculative.py:1478-1485
    names them as what a classic MTP stage carries); their shapes are not checked.

    Fails: `eh_proj.weight` `[7168, 7168]`; no `shared_head.head.weight` under
    `--runtime vllm==0.10.2`. Passes: `[7168, 14336]`; no `shared_head.head.weight` under
    vLLM 0.16.0 or later.
    """
    _, text = text_config(facts)
    H, vocab = text.get("hidden_size"), text.get("vocab_size")
    depth = text.get("num_hidden_layers")
    if type(H) is not int or type(depth) is not int:
        return
    layout, layers = mtp_layers(facts)
    count = mtp_count(facts.config)
    expected: dict[str, tuple | None] = {}      # None: presence only
    # the vLLM releases that load each MTP layer's shared_head.head from the checkpoint
    keeping = [r for r in vllm_releases(facts)
               if runtimes.value("mtp.shares-target-lm-head", r) is False]
    if layout == "qwen":
        prefix = "mtp." if "mtp.fc.weight" in facts.names else "model.mtp."
        expected = {f"{prefix}fc.weight": (H, 2 * H), f"{prefix}norm.weight": (H,),
                    f"{prefix}pre_fc_norm_hidden.weight": (H,),
                    f"{prefix}pre_fc_norm_embedding.weight": (H,)}
    elif layout == "deepseek-v4" and count is not None:
        for i in range(count[1]):
            expected.update({f"mtp.{i}.{part}.weight": None
                             for part in ("e_proj", "h_proj", "enorm", "hnorm")})
    elif layout == "deepseek":
        for i in sorted(layers):
            p = f"model.layers.{depth + i}."
            expected.update({p + "eh_proj.weight": (H, 2 * H), p + "enorm.weight": (H,),
                             p + "hnorm.weight": (H,), p + "shared_head.norm.weight": (H,)})
            if type(vocab) is int and (p + "shared_head.head.weight" in facts.names
                                       or keeping):
                expected[p + "shared_head.head.weight"] = (vocab, H)
    weights = facts.weights or {}
    for name, shape in expected.items():
        info = weights.get(name)
        if info is None:
            if name not in facts.names:
                why = (f": {runtimes.agree(keeping, 'loads')} it from the checkpoint rather "
                       f"than sharing the target's lm_head: unquantized, it refuses to start; "
                       f"quantized, the head keeps its init"
                       if name.endswith("shared_head.head.weight") else "")
                yield Finding(pointer(name), f"MTP tensor {name} is missing{why}",
                              file=facts.tensor_file(name))
        elif shape is not None and info.shape != shape:
            yield Finding(pointer(name), f"MTP tensor {name} is {list(info.shape)}, expected "
                          f"{list(shape)}", file=info.file)


def vllm_releases(facts: Facts) -> list:
    """The vLLM releases checked for (these rules state vLLM's loader behaviour)."""
    return [r for r in facts.releases if r.runtime == "vllm"]
