"""MTP heads inside target checkpoints (research/other-drafters.md section 3).

DeepSeek-V3/R1, GLM: `num_nextn_predict_layers` heads stored as `model.layers.{L+i}`.
Qwen3-Next / Qwen3.5: `mtp_num_hidden_layers` (often in `text_config`), tensors `mtp.*`.
Only the shards holding MTP tensors are read (drafter_lint.family.shards_needed).
"""

from __future__ import annotations

from drafter_lint import quantization, runtimes
from drafter_lint.facts import Facts
from drafter_lint.family import mtp_count
from drafter_lint.findings import Finding
from drafter_lint.jsondoc import dotted, pointer
from drafter_lint.registry import collect, rule
from drafter_lint.target import layer_count


def text_config(facts: Facts) -> tuple[str, dict]:
    section = facts.config.get("text_config")
    return ("/text_config", section) if isinstance(section, dict) else ("", facts.config)


def mtp_layers(facts: Facts) -> tuple[str, set[int]]:
    """(layout, distinct MTP layer indices) from the tensor names (one pass per checkpoint)."""
    return facts.once("mtp-layers", _mtp_layers)


def _mtp_layers(facts: Facts) -> tuple[str, set[int]]:
    _, text = text_config(facts)
    depth = text.get("num_hidden_layers") if type(text.get("num_hidden_layers")) is int else None
    qwen, mimo, deepseek, qwen_any = set(), set(), set(), False
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
    if len(layers) != count[1]:
        yield Finding(count[0], f"{dotted(count[0])} is {count[1]} but the "
                      f"weights hold {len(layers)} MTP layer(s) ({layout} layout, indices "
                      f"{sorted(layers)})")


@rule("MTP102", "mtp-weights-missing", "error", "mtp")
def weights_missing(facts: Facts):
    """The config declares MTP layers but the weights hold none (MTP-02).

    A quantized or pruned export often drops `mtp.*`: `method: mtp` then fails to load
    (Inkling raises "checkpoint does not contain MTP weights") or runs unloaded layers.
    MiniMax-M2.5 #8: the config declares `num_mtp_modules: 3`, the published weights hold
    no MTP tensor.

    Fails: `"mtp_num_hidden_layers": 1` and no `mtp.*` tensor. Passes: `mtp.*` present.
    """
    count = mtp_count(facts.config)
    layout, layers = mtp_layers(facts)
    has_any = layers or layout == "qwen"
    if count and count[1] > 0 and not has_any and facts.names:
        yield Finding(count[0], f"{dotted(count[0])} is {count[1]} but no MTP "
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
    vllm = _vllm(facts)
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
    llm_base_proposer.py:1546-1575), so only its shape is checked, not its presence.
    Qwen3-Next/3.5: `mtp.fc.weight [H, 2H]`, `mtp.norm.weight`,
    `mtp.pre_fc_norm_hidden.weight`, `mtp.pre_fc_norm_embedding.weight [H]`.

    Fails: `eh_proj.weight` `[7168, 7168]`. Passes: `[7168, 14336]`.
    """
    _, text = text_config(facts)
    H, vocab = text.get("hidden_size"), text.get("vocab_size")
    depth = text.get("num_hidden_layers")
    if type(H) is not int or type(depth) is not int:
        return
    layout, layers = mtp_layers(facts)
    expected: dict[str, tuple] = {}
    if layout == "qwen":
        prefix = "mtp." if "mtp.fc.weight" in facts.names else "model.mtp."
        expected = {f"{prefix}fc.weight": (H, 2 * H), f"{prefix}norm.weight": (H,),
                    f"{prefix}pre_fc_norm_hidden.weight": (H,),
                    f"{prefix}pre_fc_norm_embedding.weight": (H,)}
    elif layout == "deepseek":
        for i in sorted(layers):
            p = f"model.layers.{depth + i}."
            expected.update({p + "eh_proj.weight": (H, 2 * H), p + "enorm.weight": (H,),
                             p + "hnorm.weight": (H,), p + "shared_head.norm.weight": (H,)})
            shared = runtimes.matching(facts.releases, "mtp.shares-target-lm-head")
            if type(vocab) is int and (p + "shared_head.head.weight" in facts.names
                                       or not shared):
                expected[p + "shared_head.head.weight"] = (vocab, H)
    weights = facts.weights or {}
    for name, shape in expected.items():
        info = weights.get(name)
        if info is None:
            if name not in facts.names:
                yield Finding(pointer(name), f"MTP tensor {name} is missing",
                              file=facts.tensor_file(name))
        elif info.shape != shape:
            yield Finding(pointer(name), f"MTP tensor {name} is {list(info.shape)}, expected "
                          f"{list(shape)}", file=info.file)


def _vllm(facts: Facts) -> list:
    """The vLLM releases checked for (these rules state vLLM's loader behaviour)."""
    return [r for r in facts.releases if r.runtime == "vllm"]


def _quant_name(q: dict) -> str | None:
    """vLLM's name for the quantization method (`modelopt_fp4` for ModelOpt NVFP4)."""
    algo = q.get("quant_algo")
    if algo is None and isinstance(q.get("quantization"), dict):
        algo = q["quantization"].get("quant_algo")
    if q.get("quant_method") == "modelopt" and isinstance(algo, str):
        return "modelopt_fp4" if algo.upper() == "NVFP4" else "modelopt"
    return q.get("quant_method") if isinstance(q.get("quant_method"), str) else None


def _quant_config(facts: Facts) -> tuple[str, dict] | None:
    """(pointer, quantization_config) when its method's exclusion rules are known."""
    for prefix, section in (("", facts.config), text_config(facts)):
        q = section.get("quantization_config")
        if isinstance(q, dict) and quantization.method(q):
            return prefix + "/quantization_config", q
    return None


def _mtp_linears(facts: Facts) -> list[str]:
    """MTP linear modules named in the weights (experts and routers left out: vLLM
    quantizes those through its MoE path, not the linear one)."""
    layout, layers = mtp_layers(facts)
    _, text = text_config(facts)
    depth = text.get("num_hidden_layers")
    if layout == "qwen":
        prefixes = ("mtp.", "model.mtp.")
    elif layout == "mimo":
        prefixes = ("model.mtp_layers.",)
    else:
        prefixes = tuple(f"model.layers.{depth + i}." for i in layers) \
            if type(depth) is int else ()
    modules = set()
    for name in facts.names:
        module, _, leaf = name.rpartition(".")
        if not name.startswith(prefixes) or leaf not in ("weight", "weight_packed"):
            continue
        last = module.rsplit(".", 1)[-1]
        if ".experts." not in module and (last.endswith("_proj") or last in ("fc", "eh_proj")):
            modules.add(module)
    return sorted(modules)


@rule("MTP106", "mtp-quantization-mismatch", "error", "mtp", needs=("config", "weights"))
def quantization_mismatch(facts: Facts):
    """An MTP linear is stored in one precision and `quantization_config` says the other.

    vLLM builds each linear from `quantization_config` (compressed-tensors `ignore` and
    `config_groups` targets, vllm==0.33.0 model_executor/layers/quantization/
    compressed_tensors/utils.py:53-70; ModelOpt `ignore`/`exclude_modules`, modelopt.py:
    191-226). A BF16 `.weight` for a layer the config quantizes, or packed/scaled
    weights for a layer it excludes, has no parameter to load into: start-up fails with
    "There is no module or parameter named ..." (models/utils.py:430-448). vLLM PR #38650:
    nvidia/Qwen3.5-397B-A17B-NVFP4 stored its MTP branch in BF16 without excluding it.

    Under ModelOpt NVFP4 (`modelopt_fp4`) vLLM builds the Qwen3.5 / Qwen3-Next `mtp.fc`
    unquantized whatever the exclusions say (qwen3_5_mtp.py:89-106, qwen3_next_mtp.py:
    70-80, PR #38832), so a BF16 `mtp.fc` there loads (NVIDIA's Qwen3.5 NVFP4 layout):
    for Qwen3.5 from vllm==0.20.0, for Qwen3-Next from vllm==0.25.0 (PR #46316).

    Fails: `mtp.layers.0.self_attn.q_proj.weight` BF16 and `ignore` not listing it.
    Passes: BF16 MTP linears matched by `ignore` (e.g. `mtp.layers.0*`); packed ones not;
    a BF16 `mtp.fc` under NVFP4.
    """
    found, vllm = _quant_config(facts), _vllm(facts)
    if found is None or not vllm:
        return
    where, q = found
    label = runtimes.labels(vllm)
    model_type = str(facts.get("/model_type") or "")
    forced = {m for r in vllm for m in _forced_unquantized(model_type, r)}
    plain_quantized, packed_excluded = [], []
    for module in _mtp_linears(facts):
        if module.endswith("mtp.fc") and _quant_name(q) in forced:
            continue        # vLLM builds mtp.fc unquantized under this method, whatever it says
        entry = quantization.excluded_by(module, q)
        stored = quantization.stored_quantized(module, facts.names, facts.weights)
        if entry is None or stored is None:
            continue
        if not stored and entry == "":
            plain_quantized.append(module)
        elif stored and entry:
            packed_excluded.append((module, entry))
    at = _exclusions(where, q)
    if plain_quantized:
        yield Finding(at, f"{len(plain_quantized)} MTP linear(s) ({_some(plain_quantized)}) "
                      f"are stored unquantized but {q['quant_method']} quantizes them (not "
                      f"excluded): {label} fails to load them (vLLM PR #38650); list "
                      f"them in the exclusions or ship quantized weights")
    if packed_excluded:
        modules = [m for m, _ in packed_excluded]
        yield Finding(at, f"{len(modules)} MTP linear(s) ({_some(modules)}) are stored "
                      f"quantized but excluded by {packed_excluded[0][1]!r}: {label} "
                      f"builds unquantized layers and fails to load the packed weights")


@rule("MTP107", "mtp-head-unquantized", "info", "mtp", needs=("config",))
def head_unquantized(facts: Facts):
    """The MTP layers run unquantized beside a quantized body.

    NVIDIA and Qwen ship quantized targets with the MTP layers excluded (BF16); vLLM
    loads that layout. Some kernels do not: fantasylord/Qwen36 replaced its BF16 MTP head
    because it crashed SM70 speculative decoding next to the W4A16 body (README of
    revision 2), so the precision mix is worth knowing, not a fault.

    Informs: `ignore` matching every MTP attention/MLP linear. Passes: packed MTP
    layers (only `mtp.fc` excluded), or no quantization.
    """
    found = _quant_config(facts)
    count = mtp_count(facts.config)
    if found is None or not count or count[1] < 1:
        return
    where, q = found
    modules = [m for m in _mtp_linears(facts) if ".layers." in m or "mtp_layers" in m]
    if not modules and count[0].endswith("mtp_num_hidden_layers") and layer_count(count[1]):
        modules = [f"mtp.layers.{i}.self_attn.{p}" for i in range(count[1])
                   for p in ("q_proj", "k_proj", "v_proj", "o_proj")]
    entries = [quantization.excluded_by(m, q) for m in modules]
    if modules and all(e and e != quantization.NOT_TARGETED for e in entries):
        vllm = _vllm(facts)
        loads = runtimes.agree(vllm, "loads this") if vllm else "vLLM loads this"
        yield Finding(_exclusions(where, q), f"the MTP layers are excluded from "
                      f"{q['quant_method']} ({_some(sorted(set(entries)))}) and run "
                      f"unquantized beside the quantized body: {loads}; some kernels do "
                      f"not (a BF16 MTP head beside a W4A16 body crashed SM70, "
                      f"fantasylord/Qwen36)")


def _forced_unquantized(model_type: str, release) -> set[str]:
    """Quantization methods under which `release` builds this model type's `mtp.fc`
    unquantized."""
    return {m for kind, methods in runtimes.value("mtp.unquantized-fc-under", release, {}).items()
            if model_type.startswith(kind) for m in methods}


@rule("MTP110", "mtp-fc-quantized-by-release", "warning", "mtp", needs=("config",))
def fc_quantized_by_release(facts: Facts):
    """The exclusions leave `mtp.fc` quantized, and this release builds it so, while
    NVFP4 exports of this model store it in BF16.

    NVIDIA's ModelOpt NVFP4 exports of Qwen3.5 and Qwen3-Next keep the whole MTP branch in
    BF16 but exclude only `mtp.layers.0*`, not its sibling `mtp.fc` (vLLM PR #38832,
    #46316). vLLM before the release that builds `mtp.fc` unquantized under
    `modelopt_fp4` (vllm==0.20.0 qwen3_5_mtp.py:86 for Qwen3.5, vllm==0.25.0
    qwen3_next_mtp.py:72 for Qwen3-Next) builds it quantized and fails to load the BF16
    weight ("AssertionError" in load_column_parallel_weight). With the weights at hand
    MTP106 checks the stored dtype; this rule reads the config only, before a download.

    Warns: `nvidia/Qwen3.5-397B-A17B-NVFP4`'s config (ignore `mtp.layers.0*`) under
    `--runtime vllm==0.19.1`. Passes: the same under `vllm==0.20.0`; `ignore` listing `mtp*`.
    """
    found = _quant_config(facts)
    if facts.weights or found is None:
        return
    where, q = found
    name, model_type = _quant_name(q), str(facts.get("/model_type") or "")
    _, text = text_config(facts)
    if not name or not (type(text.get("mtp_num_hidden_layers")) is int
                        and text["mtp_num_hidden_layers"] > 0):
        return
    if not any(name in methods for fact in runtimes.FACTS
               if fact.key == "mtp.unquantized-fc-under"
               for kind, methods in fact.value.items() if model_type.startswith(kind)):
        return          # no release special-cases this layout: nothing known about it
    building = [r for r in _vllm(facts) if name not in _forced_unquantized(model_type, r)]
    if building and quantization.excluded_by("mtp.fc", q) == "":
        yield Finding(_exclusions(where, q), f"the exclusions leave mtp.fc quantized: "
                      f"{runtimes.agree(building, 'builds')} it as {name}, and {name} exports "
                      f"of this model store mtp.fc in BF16 (vLLM PR #38832), so loading "
                      f"fails unless this export packs it; later releases build it "
                      f"unquantized")


def _exclusions(where: str, q: dict) -> str:
    """Pointer of the exclusion list (`ignore`, or ModelOpt's legacy `exclude_modules`)."""
    return f"{where}/exclude_modules" if "exclude_modules" in q and "ignore" not in q \
        else f"{where}/ignore"


def _some(items: list[str], n: int = 3) -> str:
    return ", ".join(items[:n]) + (f", ... {len(items) - n} more" if len(items) > n else "")


RULES = collect(count_vs_weights, weights_missing, speculative_tokens_indivisible,
                speculative_tokens_reuse, tensor_shapes, quantization_mismatch,
                fc_quantized_by_release, head_unquantized)
