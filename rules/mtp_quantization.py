"""MTP quantization: the precision each release builds the MTP layers in, against
the precision they are stored in (the checkpoint's quantization config, its exclusions,
and each release's own overrides: drafter_lint/quantization.py reads the schemes).
"""

from __future__ import annotations

from drafter_lint.rules.mtp import mtp_layers, text_config, vllm_releases

from drafter_lint import quantization, runtimes
from drafter_lint.facts import Facts
from drafter_lint.family import mtp_count, qwen_mtp_layout
from drafter_lint.findings import Finding
from drafter_lint.jsondoc import strings
from drafter_lint.quantization import Built, Decision
from drafter_lint.registry import rule
from drafter_lint.target import layer_count

# the Qwen3.5 MTP decoder layers a `dynamic` key `-:...mtp...` keeps unquantized
DYNAMIC_MTP = Decision(Built.UNLISTED, "(dynamic -:mtp)")


def _scheme(facts: Facts) -> quantization.Scheme | None:
    """The quantization description vLLM reads, when its exclusion rules are known."""
    scheme = facts.quantization
    return scheme if scheme is not None and scheme.known else None


def _mtp_prefixes(facts: Facts) -> tuple[str, ...]:
    layout, layers = mtp_layers(facts)
    _, text = text_config(facts)
    depth = text.get("num_hidden_layers")
    if layout == "qwen":
        return ("mtp.", "model.mtp.")
    if layout == "deepseek-v4":
        return tuple(f"mtp.{i}." for i in sorted(layers))
    if layout == "mimo":
        return ("model.mtp_layers.",)
    return tuple(f"model.layers.{depth + i}." for i in layers) if type(depth) is int else ()


def _mtp_linears(facts: Facts) -> list[str]:
    """MTP linear modules named in the weights (experts and routers left out: vLLM
    quantizes those through its MoE path, see `_mtp_experts`)."""
    prefixes = _mtp_prefixes(facts)
    modules = set()
    for name in facts.names:
        module, _, leaf = name.rpartition(".")
        if not name.startswith(prefixes) or leaf not in ("weight", "weight_packed", "qweight"):
            continue
        last = module.rsplit(".", 1)[-1]
        if ".experts." not in module and (last.endswith("_proj") or last in ("fc", "eh_proj")
                                          or last in V4_LINEARS):
            modules.add(module)
    return sorted(modules)


# DeepSeek-V4's linears by their checkpoint names (attention, shared experts)
V4_LINEARS = frozenset({"wq_a", "wq_b", "wkv", "wo_a", "wo_b", "w1", "w2", "w3"})


def _built_as(facts: Facts, module: str) -> str:
    """The name vLLM builds an MTP module under, which the exclusions are matched against.
    DeepSeek-V4's `mtp.{i}.X` is built as `model.layers.{L+i}.X` (the block takes the
    stage's prefix: vllm==0.33.0 models/deepseek_v4/nvidia/mtp.py:103-118, 139-144, 236;
    0.20.0 model_executor/models/deepseek_v4_mtp.py), so `mtp.` patterns never reach it
    (vLLM #43304). Every other layout is built under its checkpoint name."""
    parts = module.split(".", 2)
    depth = text_config(facts)[1].get("num_hidden_layers")
    if len(parts) == 3 and parts[0] == "mtp" and parts[1].isdigit() and type(depth) is int:
        return f"model.layers.{depth + int(parts[1])}.{parts[2]}"
    return module


def _mtp_experts(facts: Facts) -> list[str]:
    """The MTP MoE layers (`....mlp.experts`) whose experts are in the weights."""
    prefixes = _mtp_prefixes(facts)
    return sorted({name[:name.index(".experts.") + len(".experts")] for name in facts.names
                   if name.startswith(prefixes) and ".experts." in name})


def _stored(facts: Facts, module: str, experts: bool) -> bool | None:
    """Whether a linear (or an MoE layer's experts) is stored quantized; None: unread."""
    read = quantization.experts_stored_quantized if experts else quantization.stored_quantized
    return read(module, facts.names, facts.weights)


def _layers_unquantized(model_type: str, scheme: quantization.Scheme, release) -> bool:
    """Whether `release` builds this model type's MTP decoder layers unquantized because a
    GPTQ-style `dynamic` key excludes the MTP (vllm==0.27.0 qwen3_5_mtp.py:108-126)."""
    dynamic = scheme.config.get("dynamic")
    kinds = runtimes.value("mtp.unquantized-layers-under-dynamic-mtp", release, frozenset())
    return isinstance(dynamic, dict) and scheme.name != "modelopt_fp4" and \
        any(model_type.startswith(k) for k in kinds) and \
        any(isinstance(k, str) and k.startswith("-:") and "mtp" in k for k in dynamic)


@rule("MTP106", "mtp-quantization-mismatch", "error", "mtp", needs=("config", "weights"))
def quantization_mismatch(facts: Facts):
    """An MTP module is stored in one precision and the quantization description says the
    other.

    vLLM builds the MTP draft with the target's quantization config (the description in
    config.json, else `hf_quant_config.json`: vllm==0.33.0 model_executor/model_loader/
    weight_utils.py:240-246; deepseek_mtp.py:83, glm4_moe_mtp.py:144, qwen3_5_mtp.py), and
    each method keeps a module unquantized by its own list (drafter_lint/quantization.py
    cites each): compressed-tensors `ignore`/`config_groups` targets, ModelOpt `ignore`/
    `exclude_modules`, Quark `exclude` (exact or `re:`), GPTQ `dynamic` `-:` regexes and
    `modules_in_block_to_quantize`, AWQ `modules_to_not_convert`, FP8 `ignored_layers`,
    AutoRound `extra_config`/`block_name_to_quantize`. A BF16 weight for a module built
    quantized, or packed/scaled weights for one built unquantized, has no parameter to
    load into: start-up fails ("There is no module or parameter named ...",
    models/utils.py:430-448), or the MTP stays uninitialised and acceptance is near 0.
    MoE experts read fewer lists: GPTQ's only through `dynamic` (auto_gptq.py:69-91), AWQ's
    only by `modules_to_not_convert` naming the layer, MXFP4 never (mxfp4.py:91-113).

    Threads: vLLM PR #38650 (nvidia/Qwen3.5-397B-A17B-NVFP4, BF16 MTP not excluded);
    #48814 / #47828 (Qwen3.5/3.6 GPTQ-Int4, BF16 MTP experts built as GPTQ); #52649 and
    #37667 (Quark checkpoints whose `exclude` names no MTP module).

    Under ModelOpt NVFP4 (`modelopt_fp4`) vLLM builds the Qwen3.5 / Qwen3-Next `mtp.fc`
    unquantized whatever the exclusions say (qwen3_5_mtp.py:89-106, qwen3_next_mtp.py:
    70-80, PR #38832): for Qwen3.5 from vllm==0.20.0, for Qwen3-Next from vllm==0.25.0
    (PR #46316). From vllm==0.27.0 a `dynamic` key `-:...mtp...` builds the Qwen3.5 MTP
    decoder layers unquantized (qwen3_5_mtp.py:108-126).

    vLLM builds DeepSeek-V4's MTP stage `mtp.{i}.*` as `model.layers.{L+i}.*` and matches
    the exclusions against that name (`_built_as`), so an `ignore` written for `mtp.*`
    leaves the stage quantized (vLLM #43304: every release with the V4 MTP model, 0.20.0
    to 0.34.0; no fix landed).

    Fails: `mtp.layers.0.self_attn.q_proj.weight` BF16 and `ignore` not listing it; BF16
    `mtp.layers.0.mlp.experts.*` under GPTQ with no `-:` key for them; a BF16 DeepSeek-V4
    stage under compressed-tensors with `ignore: ["re:.*mtp\\..*"]`.
    Passes: BF16 MTP linears matched by `ignore` (e.g. `mtp.layers.0*`); packed ones not;
    a BF16 `mtp.fc` under NVFP4; GPTQ linears decided by their stored dtypes.
    """
    scheme, vllm = _scheme(facts), vllm_releases(facts)
    if scheme is None or not vllm:
        return
    label = runtimes.labels(vllm)
    model_type = str(facts.get("/model_type") or "")
    forced = {m for r in vllm for m in _forced_unquantized(model_type, r)}
    layers_free = all(_layers_unquantized(model_type, scheme, r) for r in vllm)
    plain_quantized, packed_excluded, renamed = [], [], None
    modules = [(m, False) for m in _mtp_linears(facts)] + \
        [(m, True) for m in _mtp_experts(facts)]
    for module, experts in modules:
        if module.endswith("mtp.fc") and scheme.name in forced:
            continue        # vLLM builds mtp.fc unquantized under this method, whatever it says
        built = _built_as(facts, module)
        decision = DYNAMIC_MTP if layers_free and ".layers." in module \
            else scheme.decide(built, experts)
        stored = _stored(facts, module, experts)
        if decision.built in (Built.UNKNOWN, Built.BY_DTYPE) or stored is None:
            continue
        if not stored and decision.built is Built.QUANTIZED:
            plain_quantized.append(module + (".*" if experts else ""))
            # the rename shown is one of the modules reported
            renamed = renamed or ((module, built) if built != module else None)
        elif stored and decision.unquantized:
            packed_excluded.append((module, decision.by))
    at = _located(scheme)
    if plain_quantized:
        where = (f" (vLLM builds {renamed[0]} as {renamed[1]}, where exclusions written for "
                 f"the checkpoint's mtp.* names do not reach)") if renamed else " (not excluded)"
        yield Finding(scheme.exclusions, f"{len(plain_quantized)} MTP module(s) "
                      f"({_some(plain_quantized)}) are stored unquantized but "
                      f"{scheme.method} quantizes them{where}: {label} fails to load "
                      f"them or leaves the MTP uninitialised (vLLM PR #38650, #48814); list "
                      f"them in the exclusions or ship quantized weights", **at)
    if packed_excluded:
        modules = [m for m, _ in packed_excluded]
        yield Finding(scheme.exclusions, f"{len(modules)} MTP module(s) ({_some(modules)}) "
                      f"are stored quantized but excluded by {packed_excluded[0][1]!r}: "
                      f"{label} builds unquantized layers and fails to load the packed "
                      f"weights", **at)


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
    scheme = _scheme(facts)
    count = mtp_count(facts.config)
    if scheme is None or not count or count[1] < 1:
        return
    modules = [m for m in _mtp_linears(facts) if ".layers." in m or "mtp_layers" in m]
    if not modules and qwen_mtp_layout(count) and layer_count(count[1]):
        modules = [f"mtp.layers.{i}.self_attn.{p}" for i in range(count[1])
                   for p in ("q_proj", "k_proj", "v_proj", "o_proj")]
    decisions = [scheme.decide(m) for m in modules]
    if modules and all(d.built is Built.EXCLUDED for d in decisions):   # listed, not implied
        vllm = vllm_releases(facts)
        loads = runtimes.agree(vllm, "loads this") if vllm else "vLLM loads this"
        yield Finding(scheme.exclusions, f"the MTP layers are excluded from "
                      f"{scheme.method} ({_some(sorted({d.by for d in decisions}))}) and run "
                      f"unquantized beside the quantized body: {loads}; some kernels do "
                      f"not (a BF16 MTP head beside a W4A16 body crashed SM70, "
                      f"fantasylord/Qwen36)", **_located(scheme))


def _methods(key: str, model_type: str, release) -> set[str]:
    """The quantization methods a `model type prefix -> methods` fact (`key`) names for
    this model type at `release`."""
    return {m for kind, methods in runtimes.value(key, release, {}).items()
            if model_type.startswith(kind) for m in methods}


def _forced_unquantized(model_type: str, release) -> set[str]:
    """Quantization methods under which `release` builds this model type's `mtp.fc`
    unquantized."""
    return _methods("mtp.unquantized-fc-under", model_type, release)


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
    scheme = _scheme(facts)
    if facts.weights or scheme is None:
        return
    name, model_type = scheme.name, str(facts.get("/model_type") or "")
    _, text = text_config(facts)
    if not name or not (type(text.get("mtp_num_hidden_layers")) is int
                        and text["mtp_num_hidden_layers"] > 0):
        return
    if not runtimes.ever("mtp.unquantized-fc-under", lambda by_kind: any(
            name in methods for kind, methods in by_kind.items() if model_type.startswith(kind))):
        return          # no release special-cases this layout: nothing known about it
    building = [r for r in vllm_releases(facts) if name not in _forced_unquantized(model_type, r)]
    if building and scheme.decide("mtp.fc").built is Built.QUANTIZED:
        yield Finding(scheme.exclusions, f"the exclusions leave mtp.fc quantized: "
                      f"{runtimes.agree(building, 'builds')} it as {name}, and {name} exports "
                      f"of this model store mtp.fc in BF16 (vLLM PR #38832), so loading "
                      f"fails unless this export packs it; later releases build it "
                      f"unquantized", **_located(scheme))


@rule("MTP115", "mtp-head-quantized-by-release", "error", "mtp", needs=("config", "weights"))
def head_quantized_by_release(facts: Facts):
    """An MTP layer's `shared_head` head is stored unquantized, and this release builds it
    quantized whatever the exclusions say.

    vLLM 0.15.1 to 0.26.0 build Step-3.5's MTP `SharedHead` (Step-3.7 is served by the same
    class) with the checkpoint's quant_config and no prefix (vllm==0.26.0
    model_executor/models/step3p5_mtp.py:26-37, 55), and ModelOpt excludes by prefix, so
    an empty one is never excluded (layers/quantization/modelopt.py:145-211): under NVFP4
    the head is built packed, and a BF16 `shared_head.output`/`shared_head.head` does not
    fit it (vLLM #44087: the load's shape assert). vllm==0.27.0 gives the head its prefix
    (PR #48883) and the exclusions decide. The fact `mtp.quantized-head-under` holds the
    model types, methods and releases.

    Fails: a `step3p5` checkpoint under ModelOpt NVFP4 with its MTP head in BF16, on
    `--runtime vllm==0.26.0`. Passes: the same on `vllm==0.27.0`; a packed head.
    """
    scheme = _scheme(facts)
    if scheme is None:
        return
    model_type = str(facts.get("/model_type") or "")
    building = [r for r in vllm_releases(facts)
                if scheme.name in _methods("mtp.quantized-head-under", model_type, r)]
    prefixes = _mtp_prefixes(facts)
    heads = sorted({n.rpartition(".")[0] for n in facts.names if n.startswith(prefixes)
                    and n.endswith((".shared_head.output.weight", ".shared_head.head.weight"))})
    plain = [h for h in heads if _stored(facts, h, False) is False]
    if building and plain:
        yield Finding(scheme.exclusions, f"{len(plain)} MTP head(s) ({_some(plain)}) are "
                      f"stored unquantized, but {runtimes.agree(building, 'builds')} the MTP "
                      f"shared_head with no prefix, so no exclusion reaches it: as "
                      f"{scheme.name} it does not take a BF16 head and loading fails "
                      f"(vLLM #44087; later releases give it its prefix, PR #48883)",
                      **_located(scheme))


def _config_experts(facts: Facts) -> list[str]:
    """The MTP MoE layers the config declares (experts named in the weights win)."""
    if facts.names:
        return _mtp_experts(facts)
    _, text = text_config(facts)
    count = mtp_count(facts.config)
    moe = any(type(text.get(k)) is int and text[k] > 0 for k in ("n_routed_experts",
                                                                "num_experts"))
    if not moe or not count or not layer_count(count[1]):
        return []
    depth = text.get("num_hidden_layers")
    if qwen_mtp_layout(count):
        return [f"mtp.layers.{i}.mlp.experts" for i in range(count[1])]
    return [f"model.layers.{depth + i}.mlp.experts" for i in range(count[1])] \
        if type(depth) is int else []


@rule("MTP112", "mtp-moe-exclusion-unread", "error", "mtp", needs=("config",))
def moe_exclusion_unread(facts: Facts):
    """The exclusions keep the MTP layer's experts unquantized, and this release does not
    read exclusions for MoE layers: it builds them quantized and the BF16 experts do not
    load.

    vLLM up to 0.11.0 builds every FusedMoE of a ModelOpt NVFP4 checkpoint as NVFP4,
    whatever `exclude_modules` says (vllm==0.11.0 model_executor/layers/quantization/
    modelopt.py:822-823); 0.11.1 honours it (:907-920, vLLM PR #25987: nvidia/DeepSeek-R1-FP4
    excludes its MTP layer `model.layers.61*`, which is stored in BF16). The rows
    `quant.moe-exclusions-read` say which methods each release reads so.

    Fails: nvidia/DeepSeek-V3.1-NVFP4's hf_quant_config.json (`model.layers.61*`) under
    `--runtime vllm==0.11.0`. Passes: the same under vllm==0.11.1; experts stored quantized.
    """
    scheme = _scheme(facts)
    vllm = vllm_releases(facts)
    if scheme is None or not vllm:
        return
    if not runtimes.ever("quant.moe-exclusions-read", lambda methods: scheme.name in methods):
        return          # no release is known to read this method's MoE exclusions: unknown
    keeping = [r for r in vllm if runtimes.value("quant.moe-exclusions-read", r) is not None
               and scheme.name not in runtimes.value("quant.moe-exclusions-read", r)]
    if not keeping:
        return
    excluded = []
    for module in _config_experts(facts):
        decision = scheme.decide(module, experts=True)
        stored = quantization.experts_stored_quantized(module, facts.names, facts.weights)
        if decision.built is Built.EXCLUDED and stored is not True:
            excluded.append((module, decision.by))
    if excluded:
        yield Finding(scheme.exclusions, f"{excluded[0][1]!r} keeps the MTP experts "
                      f"({_some([m for m, _ in excluded])}) unquantized, but "
                      f"{runtimes.agree(keeping, 'reads')} no exclusion for MoE layers under "
                      f"{scheme.name}: it builds them quantized and the BF16 experts fail to "
                      f"load (vLLM PR #25987)", **_located(scheme))


def _quark_whole_unquantized(when: str, excludes: list[str]) -> bool:
    """Whether SGLang builds the whole Quark MTP unquantized, by its rule `when`."""
    mtp = [e for e in excludes if e.startswith("mtp.")]
    if when == "any-mtp-excluded":
        return bool(mtp)
    return when == "mtp-experts-excluded" and any("mlp.experts" in e for e in mtp)


@rule("MTP113", "mtp-quark-sglang-mismatch", "error", "mtp", needs=("config", "weights"))
def quark_sglang_mismatch(facts: Facts):
    """SGLang builds a Quark Qwen3.5 MTP draft in another precision than its weights.

    SGLang decides the whole MTP draft's quantization from the `exclude` entries that
    start with `mtp.` (srt/models/qwen3_5_mtp.py): from sglang==0.5.12 any such entry
    builds the whole MTP unquantized (:69-75, sglang#23113); from 0.5.21 only one naming
    `mlp.experts` does, and otherwise each module follows the exclude list (:83-90,
    exact or `re:` names). So:

    - an MTP stored partly quantized (MXFP4 experts) beside a few excluded `mtp.*`
      modules is built unquantized on 0.5.12-0.5.20 and its packed experts do not load
      (sglang#38870);
    - an MTP stored in BF16 whose `exclude` names no MTP module is built quantized on every
      release and fails in the experts' loader (sglang#36158,
      amd/Qwen3.5-397B-A17B-MXFP4-AttnFP8-V2).

    `mtp.fc` is a plain linear in SGLang, never quantized, and is left out.

    Fails: MXFP4 MTP experts with `exclude: ["mtp.fc"]` under sglang==0.5.20; BF16 MTP
    with `exclude: ["lm_head"]`. Passes: the first under 0.5.21; `re:mtp[.].*` excluded
    BF16 MTP layers.
    """
    scheme = facts.quantization
    model_type = str(facts.get("/model_type") or "")
    if scheme is None or scheme.method != "quark" or not model_type.startswith("qwen3_5"):
        return
    excludes = strings(scheme.config.get("exclude"))
    modules = [(m, False) for m in _mtp_linears(facts) if not m.endswith("mtp.fc")] + \
        [(m, True) for m in _mtp_experts(facts)]
    by: dict[tuple, list] = {}
    for release in (r for r in facts.releases if r.runtime == "sglang"):
        when = runtimes.value("mtp.quark-unquantized-when", release)
        if when is None:
            continue
        whole = _quark_whole_unquantized(when, excludes)
        wrong = []
        for module, experts in modules:
            stored = _stored(facts, module, experts)
            built = not whole and scheme.decide(module, experts).built is Built.QUANTIZED
            if stored is not None and stored != built:
                wrong.append(module + (".*" if experts else ""))
        if wrong:
            by.setdefault((whole, tuple(wrong)), []).append(release)
    for (whole, wrong), releases in by.items():
        how = "builds the whole MTP unquantized (an exclude entry names an mtp. module)" \
            if whole else "builds these modules as the exclude list says"
        yield Finding(scheme.exclusions, f"{len(wrong)} MTP module(s) ({_some(list(wrong))}) "
                      f"are stored in another precision than {runtimes.agree(releases, how)}: "
                      f"they do not load (sglang#36158, #38870)", **_located(scheme))


FUSED = {"q_proj": "qkv_proj", "k_proj": "qkv_proj", "v_proj": "qkv_proj",
         "gate_proj": "gate_up_proj", "up_proj": "gate_up_proj"}


@rule("MTP111", "mtp-fused-exclusion-unmatched", "error", "mtp", needs=("config",))
def fused_exclusion_unmatched(facts: Facts):
    """The exclusions list an MTP layer's q/k/v (or gate/up) projections one by one, and
    this SGLang builds them fused without expanding the fused name.

    SGLang's Qwen3.5 MTP draft fuses `q_proj`/`k_proj`/`v_proj` into `qkv_proj` and
    `gate_proj`/`up_proj` into `gate_up_proj`. Before sglang==0.5.21 the class declares no
    `packed_modules_mapping` (sglang==0.5.9 srt/models/qwen3_5_mtp.py:37; added at
    sglang==0.5.21 :99), and compressed-tensors matches `ignore` against the fused name
    only (layers/quantization/compressed_tensors/utils.py:21-73). So `qkv_proj` is built
    quantized although its shards are ignored; the BF16 shards find no parameter and
    are skipped with a warning ("Parameter ... not found in params_dict, skip loading",
    qwen3_5_mtp.py:340 at 0.5.9, :482 at 0.5.20), and the MTP runs uninitialised:
    acceptance length pinned at 1.0 (sglang#35797: cyankiwi and sakamakismile Qwen3.x
    compressed-tensors exports).

    Fails: `ignore` listing `mtp.layers.0.self_attn.q_proj`, `k_proj`, `v_proj` under
    `--runtime sglang==0.5.20`. Passes: the same under sglang==0.5.21; `re:mtp[.].*` (it
    matches the fused name); a packed MTP (nothing listed).
    """
    scheme = facts.quantization
    if scheme is None or scheme.method != "compressed-tensors":
        return
    model_type = str(facts.get("/model_type") or "")
    releases = runtimes.matching([r for r in facts.releases if r.runtime == "sglang"],
                                 "mtp.fused-names-expanded",
                                 lambda kinds: not any(model_type.startswith(k) for k in kinds))
    if not releases or not model_type.startswith("qwen3_5"):
        return
    groups: dict[str, set[str]] = {}
    for entry in strings(scheme.config.get("ignore")):
        parent, _, leaf = entry.rpartition(".")
        if entry.startswith("mtp.") and leaf in FUSED:
            groups.setdefault(f"{parent}.{FUSED[leaf]}", set()).add(leaf)
    dropped = sorted(fused for fused, leaves in groups.items()
                     if leaves == {k for k, v in FUSED.items() if v == fused.rsplit(".", 1)[1]}
                     and scheme.decide(fused).built is Built.QUANTIZED)
    if dropped:
        yield Finding(scheme.exclusions, f"ignore lists the shards of {_some(dropped)} one "
                      f"by one but not the fused name: "
                      f"{runtimes.agree(releases, 'builds')} the fused layer quantized, skips "
                      f"the BF16 shards and runs the MTP uninitialised (acceptance length "
                      f"1.0, sglang#35797); add `re:mtp[.].*` (or the fused names) to ignore",
                      **_located(scheme))


def _located(scheme: quantization.Scheme) -> dict:
    """The file a finding at the scheme's pointer is in (config.json by default)."""
    return {"file": scheme.file} if scheme.file != "config.json" else {}


def _some(items: list[str], n: int = 3) -> str:
    return ", ".join(items[:n]) + (f", ... {len(items) - n} more" if len(items) > n else "")
