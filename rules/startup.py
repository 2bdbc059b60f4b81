"""What a runtime checks of any drafter before it serves: the model class, the config
class, the context length, the MTP mapping. Each is a refusal at start-up that the
runtime's own start-up code (the oracle lane, tools/oracle/) records."""

from __future__ import annotations

import re

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.family import method, mtp_count
from drafter_lint.findings import Finding, Severity
from drafter_lint.registry import rule


def _vllm_name(arch: str, method: str | None, rewrite: dict) -> str:
    """The class name vLLM looks up for a draft: EAGLEConfig's rewrite for its method."""
    rule_ = rewrite.get(method)
    if rule_ is None:
        return arch
    prefix, keep_prefixes, keep_suffixes, keep_names = rule_
    if arch.startswith(keep_prefixes) or (keep_suffixes and arch.endswith(keep_suffixes)) \
            or arch in keep_names:
        return arch
    return prefix + arch


# the name of a draft model's class (no transformers model class is named so)
DRAFT_CLASS = re.compile(r"Eagle|Draft|MTP|Medusa|DFlash|Domino|NextN")


def _method(facts: Facts, release) -> str | None:
    chosen = facts.launch.method if facts.launch.runtime == release.runtime else None
    if isinstance(chosen, str) and release.runtime == "vllm":
        return chosen.lower()
    return None if facts.family == "mtp" else method(facts.family, "vllm")


def looked_up(facts: Facts, release) -> str | None:
    """The draft architecture `release` looks its model class up by: vLLM's rename of draft
    classes for the launch's method applied (none recorded: as written), SGLang's as
    written; None when `architectures` names none."""
    written = facts.get("/architectures", None)
    if not isinstance(written, list) or not written or not isinstance(written[0], str):
        return None
    if release.runtime != "vllm" or facts.family == "mtp":
        return written[0]
    rewrite = runtimes.value("registry.draft-rewrite", release) or {}
    return _vllm_name(written[0], _method(facts, release), rewrite)


def _kind(facts: Facts, kinds: tuple[str, ...]) -> str | None:
    """The drafter's family when it is one of `kinds`; for a drafter no family tells
    (DL007), the launch line's method when it is one of them; else None."""
    if facts.family in kinds:
        return facts.family
    launched = facts.launch.method if facts.launch else None
    return launched if facts.family == "unknown" and launched in kinds else None


@rule("DL012", "architecture-not-registered", "error", "any")
def architecture_not_registered(facts: Facts):
    """`architectures` names no model class the runtime registers, so it refuses to start.

    vLLM looks the name up in its model registry (vllm==0.33.0
    model_executor/models/registry.py:1249-1252, "are not supported for now"); for EAGLE,
    EAGLE-3 and DFlash drafts it first rewrites `X` to `EagleX` / `Eagle3X` / `DFlashX`
    unless the name already carries the prefix (transformers_utils/configs/eagle.py:46-76,
    looked up at config/speculative.py:1872-1887). SGLang uses the name as written
    (sglang==0.5.23 models/registry.py:117-150): a class it does not register falls back
    to the Transformers backend only for transformers' own classes, which have no draft
    hooks, else "Cannot find model module" (model_loader/utils.py:154-161). So vLLM's
    `Eagle3LlamaForCausalLM` is refused by SGLang, whose name is `LlamaForCausalLMEagle3`.
    For an MTP checkpoint the class is the target's own. speculators files are skipped:
    vLLM sets their class itself; a config of no known family only on a launch line.

    Fails: `"architectures": ["Eagle3LlamaForCausalLM"]` under `--runtime sglang`.
    Passes: `LlamaForCausalLMEagle3` (both runtimes), `DFlashDraftModel`.
    """
    if facts.family.startswith("speculators") or facts.family == "medusa":
        return
    written = facts.get("/architectures")
    if not isinstance(written, list) or not written or \
            not all(isinstance(a, str) for a in written):
        return
    # a family not told: judged by a launch line's method, else only a draft class's name
    # (a transformers class may load through the runtimes' Transformers backend), refused
    # whatever method serves it
    unplaced = facts.family == "unknown" and not facts.launch.method
    if unplaced and not all(DRAFT_CLASS.search(a) for a in written):
        return
    for release in facts.releases:
        known = runtimes.value("registry.architectures", release)
        if known is None:
            continue
        if release.runtime == "vllm" and facts.family != "mtp":
            rewrite = runtimes.value("registry.draft-rewrite", release)
            chosen = None if unplaced else _method(facts, release)
            if rewrite is None and (unplaced or chosen in ("eagle", "eagle3", "dflash")):
                continue        # how this release renames draft classes is not recorded
            rewrite = rewrite or {}      # no method renames a class (vllm==0.8.5: mtp)
            methods = (None, *rewrite) if unplaced else (chosen,)
            readings = [[_vllm_name(a, m, rewrite) for a in written] for m in methods]
            looked_up = readings[-1]
        else:
            readings = [list(written)]
            looked_up = readings[0]
        if any(name in known for reading in readings for name in reading):
            continue
        shown = ", ".join(looked_up)
        renamed = f" (as {shown}, after its rename of draft classes)" \
            if looked_up != written and not unplaced else ""
        other = [r for r in facts.releases if r.runtime != release.runtime
                 and any(a in (runtimes.value("registry.architectures", r) or ()) for a in
                         written)]
        hint = f"; {runtimes.agree(other, 'registers it')}" if other else ""
        method_note = " under any speculative method" if unplaced and len(readings) > 1 else ""
        yield Finding("/architectures", f"architectures is {written}: "
                      f"{runtimes.agree([release], 'registers no such model class')}{renamed}"
                      f"{method_note} and refuses to start{hint}")


def _context(config: dict) -> int:
    """The context length SGLang derives from a config (sglang==0.5.23
    utils/hf_transformers/common.py:668-694): the first length key, times the RoPE
    scaling factor unless the type is llama3 or the original length is given."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    length = next((text[k] for k in ("max_sequence_length", "seq_length", "max_seq_len",
                                     "model_max_length", "max_position_embeddings")
                   if isinstance(text.get(k), int) and not isinstance(text.get(k), bool)),
                  2048)
    scaling = text.get("rope_scaling")
    if isinstance(scaling, dict):
        kind = scaling.get("rope_type") or scaling.get("type")
        factor = scaling.get("factor")
        if kind != "llama3" and "original_max_position_embeddings" not in scaling and \
                isinstance(factor, (int, float)) and not isinstance(factor, bool) and \
                0 < factor < 1e6:                  # a hostile factor is no length
            length = int(length * factor)
    return length


@rule("DL013", "draft-context-below-target", "error", "any", needs=("config", "target"))
def draft_context_below_target(facts: Facts):
    """The draft's context length is below the target's, which SGLang refuses at start-up.

    SGLang builds the draft with the target's context length and refuses a longer one than
    the draft config allows ("... is greater than the derived context_length ... set the
    env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", sglang==0.5.23
    configs/model_config.py:1291-1316); with that variable it raises the draft's
    `max_position_embeddings` to the target's instead (from sglang==0.5.3
    configs/model_config.py:270-274; 0.5.1 and 0.5.2 only take the target's context length
    and leave the draft's positions as written). The length is derived as SGLang
    does (the first of `max_sequence_length`, ..., `max_position_embeddings`, times a
    non-llama3 RoPE factor). vLLM raises or caps instead (EA315). A `gate` launch whose
    environment (the gate's own, or the line's) sets the variable makes this an info; a
    `--context-length` at most the draft's passes (the draft is built with the target's
    context length, which that flag sets: sglang==0.5.23
    speculative/draft_worker_common.py:100, eagle_worker_v2.py:229).

    Fails: a 2048-position EAGLE-3 head for a 40960-context Qwen3-8B under SGLang.
    Passes: a head whose `max_position_embeddings` equals the target's; the 2048 head
    launched with `--context-length 2048`.
    """
    if facts.family in ("mtp", "unknown") or facts.family.startswith("speculators"):
        return
    refusing = runtimes.matching(facts.releases, "draft.short-context-refused")
    if not refusing:
        return
    draft, target = _context(facts.config), _context(facts.target.config)
    served = facts.launch.context_length if facts.launch.runtime == "sglang" else None
    if draft >= (served if served is not None else target):
        return          # the server's --context-length, when given, is the draft's too
    where = next((f"/{k}" for k in ("max_sequence_length", "seq_length", "max_seq_len",
                                    "model_max_length") if facts.has(f"/{k}")),
                 "/max_position_embeddings")
    variables = runtimes.value("draft.short-context-refused", refusing[0])
    env = facts.server.environment
    allowed = [v for v in variables if str(env.get(v, "")).lower() in ("1", "true", "yes", "y")]
    raised = runtimes.matching(refusing, "draft.short-context-raised")
    kept = [r for r in refusing if r not in raised]
    if allowed:
        said = [f"{runtimes.agree(raised, 'raises it to the target')}'s" if raised else "",
                f"{runtimes.agree(kept, 'serves')} the target's context with the draft's "
                f"{draft} positions unchanged" if kept else ""]
        yield Finding(where, f"the draft's context length is {draft}, below the target's "
                      f"{target}; with {allowed[0]} set for the server "
                      + "; ".join(s for s in said if s), severity=Severity.INFO)
        return
    then = "then it raises the draft's to the target's" if not kept else \
        "then it serves the target's context with the draft's positions as written"
    yield Finding(where, f"the draft's context length is {draft}, below the target's "
                  f"{target}: {runtimes.agree(refusing, 'refuses to start')} unless "
                  f"{variables[0]}=1 is set ({then}), or the server's --context-length is "
                  f"at most {draft}")


def type_refused(facts: Facts) -> list:
    """The releases of the run that refuse to load the config for its `model_type`
    (DL014; TF101 leaves such a type to it): a type no runtime has a class for, and for a
    drafter of no known family not written as remote code, any type no config class of
    the release or of a transformers its pin admits knows."""
    model_type = facts.get("/model_type")
    if model_type is MISSING or not isinstance(model_type, str):
        return []
    refusing = runtimes.matching(facts.releases, "config.unknown-model-types",
                                 lambda types: model_type in types)
    auto_map = facts.get("/auto_map", None)
    if facts.family in ("unknown", "mtp") and not (isinstance(auto_map, dict) and
                                                   "AutoConfig" in auto_map):
        # no family says how it loads, or an MTP checkpoint, loaded as the target model:
        # each release judges the type by what it knows
        unknown = runtimes.matching(facts.releases, "config.model-types",
                                    lambda types: model_type not in types)
        refusing = [r for r in facts.releases if r in refusing or r in unknown]
    return refusing


@rule("DL014", "model-type-unknown-to-runtime", "error", "any")
def model_type_unknown(facts: Facts):
    """`model_type` names no config class in the runtime or the transformers it pins, so
    loading the draft config fails before any model code runs.

    vLLM loads a draft config through its own config registry, else transformers'
    AutoConfig (vllm==0.33.0 transformers_utils/config.py:445, reached from
    engine/arg_utils.py:2139); SGLang through AutoConfig with its own classes registered
    (sglang==0.5.23 utils/hf_transformers/config.py:228, common.py:117-286). A type neither
    knows raises "model type `dflash` but Transformers does not recognize this
    architecture" (transformers==5.19.0 models/auto/configuration_auto.py:430). TorchSpec
    writes `model_type: dflash` / `dspark`, refused for any drafter. For a drafter of no
    known family (DL007), and for an MTP checkpoint (loaded as the target model: GLM-5's
    `glm_moe_dsa` is refused by sglang==0.5.9, whose transformers==4.57.1 predates it,
    configuration_auto.py:1362, and by vLLM 0.13-0.16, which pin transformers <5 and have
    no GLM-5 config class: vllm==0.16.0 engine/arg_utils.py:1264, recorded by the oracle
    lane), every type is judged against what each release loads: its
    registry and every transformers release its pin admits (a type is refused only when
    none of them knows it); a config whose `auto_map` names an `AutoConfig` loads its own
    class under `--trust-remote-code` and is not judged. Set it to the type of the layer
    config the drafter is built on (`qwen3` for z-lab DFlash and DSpark drafters).

    Fails: `"model_type": "dflash"`; `"model_type": "qwen3_drafter"` in a drafter of no
    known family. Passes: `"model_type": "qwen3"`.
    """
    model_type = facts.get("/model_type")
    refusing = type_refused(facts)
    if refusing:
        yield Finding("/model_type", f"model_type is {model_type!r}, which has no config "
                      f"class in the runtime or its transformers: "
                      f"{runtimes.agree(refusing, 'refuses to load the config')} (set the "
                      f"layer config's type, e.g. 'qwen3')")


@rule("DL019", "target-model-type-unknown-to-runtime", "error", "any", needs=("target",))
def target_model_type_unknown(facts: Facts):
    """The target's `model_type` names no config class in the release or the transformers
    it pins, so the server cannot load the target's config and does not start.

    The runtimes load the target's config as the draft's, through their own registry and
    transformers' AutoConfig (DL014); a release whose pinned transformers predates the
    target's model type refuses it before any draft code runs: SGLang 0.5.0rc0-0.5.1
    (transformers 4.55.0) refuse a `qwen3_next` target and 0.5.0rc0-0.5.2 a `qwen3_vl_moe`
    one, "The checkpoint you are trying to load has model type `qwen3_next` but
    Transformers does not recognize this architecture" (recorded by the oracle lane). A
    type is judged against the release's registry and every transformers its pin admits;
    a target whose `auto_map` names an `AutoConfig` (remote code) is not judged. An MTP
    checkpoint is its own target: DL014 judges it.

    Fails: an EAGLE-3 head for a Qwen3-Next target under `--runtime sglang==0.5.1`.
    Passes: the same under SGLang 0.5.2.
    """
    if facts.family == "mtp" or facts.target is None:
        return
    whole = facts.target.whole
    model_type = whole.get("model_type")
    auto_map = whole.get("auto_map")
    if not isinstance(model_type, str) or (isinstance(auto_map, dict) and
                                           "AutoConfig" in auto_map):
        return
    refusing = runtimes.matching(facts.releases, "config.model-types",
                                 lambda types: model_type not in types)
    if refusing:
        yield Finding("", f"the target's model_type is {model_type!r}: "
                      f"{runtimes.agree(refusing, 'has')} no config class for it in its "
                      f"registry or the transformers it pins, and refuses to load the "
                      f"target")


@rule("DL015", "family-unserved", "error", "any")
def family_unserved(facts: Facts):
    """The runtime asked for (`--runtime`, or the launch line's) does not serve this kind
    of drafter at all.

    SGLang has no reader for the `speculators` format (no `speculators_config` anywhere
    in sglang==0.5.23; its draft-model path takes the layer config as a plain model), so a
    speculators checkpoint does not start there; serve it with vLLM, which maps it
    (transformers_utils/configs/speculators/algos.py). Medusa (MED103) and DFlash2 on the
    z-lab reference (DF136) have rules of their own. Checked for every serving runtime,
    those that do not serve a family are simply not asked.

    vLLM before 0.9.1 refuses no method by name: it replaces one it does not serve with a
    guess from the draft's path and config (EAGLE for a path holding "eagle-", else the
    draft as a plain model; vllm==0.8.4 config.py:2288-2297), so the draft fails to load
    or runs as another kind; the message says so there.

    Fails: a speculators DFlash checkpoint with `--runtime sglang`.
    Passes: the same with `--runtime vllm`.
    """
    family = _kind(facts, ("eagle", "eagle3", "dflash", "dspark")) or facts.family
    if family != facts.family:      # judged by the line's method
        if facts.runtime is not None and runtimes.serves(facts.runtime, family):
            return
    elif facts.releases:
        return
    if facts.runtime is None or family in ("unknown", "medusa", "dflash2"):
        return
    release = facts.runtime
    kind = "speculators-format" if family.startswith("speculators") else family
    if release.runtime == "vllm" and \
            not runtimes.value("launch.method-names-validated", release, False):
        # no method name refused before 0.9.1: one it does not serve is replaced by a guess
        # from the draft's path and config (vllm==0.8.4 config.py:2288-2297; 0.9.0
        # :2517-2534), so the draft does not load, or drafts as another kind
        yield Finding("", f"{runtimes.agree([release], 'does')} not serve {kind} drafters: "
                      f"it takes the draft as another kind (EAGLE when its path holds "
                      f"'eagle-', else a plain draft model), so the draft does not load or "
                      f"drafts as what it is not; check for (and serve with) a runtime that "
                      f"does")
        return
    yield Finding("", f"{runtimes.agree([release], 'does')} not serve {kind} drafters and "
                  f"refuses to start; check for (and serve with) a runtime that does")


@rule("DL016", "target-model-type-refused", "error", "any", needs=("config", "target"))
def target_model_type_refused(facts: Facts):
    """The runtime serves this kind of draft only for targets of listed model types, and
    the target is not one of them, so start-up stops.

    vLLM from 0.8.5 to 0.21 checked the target of an EAGLE-3 draft (from 0.20 also of a
    DFlash draft) against a list: its text config's `model_type` must contain one of the
    listed names, else "Eagle3 is only supported for Llama models" (vllm==0.8.5
    config.py:2588-2592), later "... is only supported for ['llama', 'qwen', ...] models"
    (vllm==0.21.0 config/speculative.py:974-1002). The list grew release by release
    (qwen in 0.10.1, vLLM PR #22333; kimi_k2 and deepseek_v3 in 0.18.0, vLLM #31254); 0.22
    dropped the check.

    A launch line's `method` decides it for a draft whose family the tool cannot tell
    (DL007): the check reads the line's method, not the draft (vllm==0.9.2
    config.py:2906-2911).

    Fails: an EAGLE-3 draft for a `qwen3` target under `--runtime vllm==0.10.0`.
    Passes: the same under `vllm==0.10.1`; a `llama` target.
    """
    method = _kind(facts, ("eagle3", "dflash"))
    if method is None:
        return
    text = facts.target.config.get("text_config")
    text = text if isinstance(text, dict) else facts.target.config
    model_type = text.get("model_type")
    if not isinstance(model_type, str):
        return
    gates = [(r, runtimes.value("aux.target-model-types", r)) for r in facts.releases]
    refusing = [(r, gate) for r, gate in gates if gate is not None
                and method in gate["methods"]
                and not any(name in model_type for name in gate["model_types"])]
    if refusing:
        yield Finding("", f"the target's model_type is {model_type!r}: "
                      f"{runtimes.agree([r for r, _ in refusing], 'serves')} {method} drafts "
                      f"only for targets whose model type contains one of "
                      f"{sorted(refusing[0][1]['model_types'])}, and refuses to start")


@rule("DL018", "hybrid-target-radix-cache", "error", "any", needs=("target",))
def hybrid_target_radix_cache(facts: Facts):
    """A hybrid (linear-attention) target served with speculative decoding by an SGLang
    release that refuses it while the radix cache is on and mamba scheduling is the
    default.

    SGLang 0.5.10 to 0.5.13 raise at start-up for Qwen3-Next, Qwen3.5/3.6, Nemotron-H and
    other hybrid targets: "Speculative decoding for <arch> is not compatible with radix
    cache when using --mamba-scheduler-strategy no_buffer" (sglang==0.5.11
    server_args.py:2419-2456; the default strategy, `auto`, is no_buffer there, :583,
    6764-6765). `--disable-radix-cache`, or `--mamba-scheduler-strategy extra_buffer` with
    SGLANG_ENABLE_SPEC_V2=1, starts it; 0.5.9 and 0.5.14 do not raise. Executed: the
    oracle lane's SGLang 0.5.11-0.5.13 refuse every MTP and DFlash launch of the Qwen3.5,
    Qwen3.6, Qwen3-Next and Nemotron-H pairs so.

    Fails: a Qwen3.6-27B DFlash drafter with `--runtime sglang==0.5.11`.
    Passes: the same line with `--disable-radix-cache`; SGLang 0.5.14.
    """
    written = facts.target.architectures if facts.target else []
    if not written:
        return
    line = facts.launch if facts.launch and facts.launch.runtime == "sglang" else None
    if line is not None and (line.radix_cache_disabled or
                             (line.mamba_strategy or "").lower() == "extra_buffer"):
        return
    refusing = [r for r in facts.releases if r.runtime == "sglang"
                and written[0] in (runtimes.value("sglang.hybrid-spec-refuses-radix", r)
                                   or ())]
    if refusing:
        yield Finding("", f"the target is {written[0]}, a hybrid model: "
                      f"{runtimes.agree(refusing, 'refuses')} speculative decoding for it with "
                      f"the radix cache on and the default mamba scheduling (no_buffer), and "
                      f"does not start; add --disable-radix-cache (or "
                      f"--mamba-scheduler-strategy extra_buffer with SGLANG_ENABLE_SPEC_V2=1)")


@rule("DL017", "target-lacks-eagle3-interface", "error", "eagle3", needs=("config", "target"))
def target_lacks_eagle3_interface(facts: Facts):
    """The target's model class has no EAGLE-3 aux hidden-state interface in this release,
    so start-up stops.

    vLLM captures EAGLE-3's aux hidden states through the target model's
    `SupportsEagle3` hooks and refuses a target without them: "Model does not support
    EAGLE3 interface but aux_hidden_state_outputs was requested" (vllm==0.10.1
    v1/worker/gpu_model_runner.py:1997-2003; the same to vllm==0.33.0 :5175). Classes
    gained the hooks release by release: Qwen3-MoE and Llama-4 in 0.11.1 (vLLM PR #26485),
    DeepSeek-V2/V3 in 0.18.0, Qwen3-Next in 0.24.0 (vLLM #33329). Judged only for a
    target architecture the release registers (DL012 reports the others).

    Fails: an EAGLE-3 draft for a `Qwen3NextForCausalLM` target under
    `--runtime vllm==0.23.0`. Passes: the same under `vllm==0.24.0`; a Llama target.
    """
    written = facts.target.config.get("architectures")
    if not isinstance(written, list) or not written or not isinstance(written[0], str) or \
            facts.get("/eagle_config/use_aux_hidden_state", None) is False:
        return          # no aux hidden states asked for (vllm==0.33.0 eagle3_utils.py:15-22)
    arch = written[0]
    refusing = [r for r in facts.releases
                if (able := runtimes.value("eagle3.target-architectures", r)) is not None
                and arch not in able
                and arch in (runtimes.value("registry.architectures", r) or ())]
    if refusing:
        yield Finding("", f"the target is {arch}: {runtimes.agree(refusing, 'builds')} it "
                      f"without EAGLE-3's aux hidden-state interface and refuses to start "
                      f"(\"Model does not support EAGLE3 interface\")")


@rule("MTP108", "mtp-target-unmapped", "error", "mtp")
def mtp_target_unmapped(facts: Facts):
    """vLLM has no MTP draft model for this target's model type, so `method: mtp` is
    refused at start-up.

    vLLM maps a target to its MTP draft class by model type or first architecture
    (`hf_config_override`, vllm==0.33.0 config/speculative.py:710-1169); a target it does
    not map keeps its own type, which is not an MTP type, and start-up fails with
    "Unsupported speculative method: 'mtp'" (:1469-1501). MiniMax-M2.5 declares MTP
    modules that vLLM 0.33 has no class for. SGLang is not judged here (NEXTN reaches
    the target's own class, DL012).

    Fails: `"model_type": "minimax_m2"` with `num_mtp_modules`. Passes: `deepseek_v3`,
    `qwen3_5`.
    """
    model_type = facts.get("/model_type")
    text = facts.get("/text_config")
    inner = text.get("model_type") if isinstance(text, dict) else None
    architectures = facts.get("/architectures")
    first = architectures[0] if isinstance(architectures, list) and architectures else None
    inner, first = (v if isinstance(v, str) else None for v in (inner, first))
    declared = mtp_count(facts.config)
    if not isinstance(model_type, str) or not declared or not \
            isinstance(declared[1], int) or declared[1] < 1:
        return                                  # no MTP layers: LCH104's business
    for release in facts.releases:
        mapped = runtimes.value("mtp.mapped-targets", release)
        if mapped is None:
            continue
        if model_type in mapped["model_types"] or inner in mapped["model_types"] or \
                first in mapped["architectures"] or \
                any(s in model_type for s in mapped["substrings"]) or \
                facts.has("/num_mtp_layers"):
            continue
        yield Finding("/model_type", f"model_type is {model_type!r}: "
                      f"{runtimes.agree([release], 'maps no MTP draft model to it')} and "
                      f"refuses method mtp at start-up (Unsupported speculative method)")
