"""The path a launch takes through one release: which vLLM model runner serves it, decided
as the release decides it (`VllmConfig.use_v2_model_runner`), from the rows
`runner.v2-policy` read whole from each wheel (registries.json) and the launch context.

vLLM's two runners read a drafter differently (mask ids, tap lists, nested
`eagle_config`, `sample_from_anchor`), so fact rows may carry a `path` ("v1" or "v2") and
a release is looked up on its path. SGLang has one path per release here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from drafter_lint.jsondoc import strings
from drafter_lint.runtimes.policy import RunnerPolicy
from drafter_lint.runtimes.releases import Release
from drafter_lint.runtimes.rows import lookup

ENV = "VLLM_USE_V2_MODEL_RUNNER"
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
# keys of a text config whose positive value makes vLLM's ModelConfig.is_moe true
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
# classes whose config class defaults to experts when the file omits the count (vLLM reads
# the loaded config, so GptOssForCausalLM is MoE with or without num_local_experts written)
MOE_CLASS = re.compile(r"Moe|MoE|Mixtral|GptOss|DeepseekV[23]|Dbrx|Jamba|Olmoe|Arctic")
# layer kinds of hybrid (attention + recurrent) targets, which vLLM marks IsHybrid
RECURRENT_KINDS = frozenset({"linear_attention", "mamba", "mamba2", "conv", "recurrent"})
# the target a report assumes when it is not given: the most common dense one
ASSUMED = "a dense, unquantized target (give --target to decide)"


@dataclass(frozen=True)
class Context:
    """What the runner choice reads: the target's config, the speculative method, the
    draft's config and the server's environment."""
    target: dict | None = None
    method: str | None = None
    draft: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)


def refuses_runner_variable(release: Release, env: dict) -> str:
    """Why `release` refuses the value of VLLM_USE_V2_MODEL_RUNNER in `env` at start-up,
    or "": a release without Model Runner V1 takes only "1"; one that reads the variable
    with int() (`runner.variable-read-as-int`) takes only an integer."""
    rules = policy(release)
    written = env.get(ENV)
    if rules is None or written is None:
        return ""
    if rules.v1_removed:
        return "" if str(written) == "1" else ("has no Model Runner V1 and refuses to start "
                                                "with the variable set to anything but 1; "
                                                "drop it")
    fact = lookup("runner.variable-read-as-int", release)
    if fact is not None and fact.value:
        try:
            int(str(written))
        except ValueError:
            return "reads the variable with int() and refuses to start (ValueError); write 1 or 0"
    return ""


def policy(release: Release) -> RunnerPolicy | None:
    """The `runner.v2-policy` value of a vLLM release, or None."""
    fact = lookup("runner.v2-policy", release) if release.runtime == "vllm" else None
    return fact.value if fact is not None else None


def on_path(release: Release, context: Context) -> Release:
    """`release` with the runner the launch takes on it and why (SGLang, the reference
    and releases whose policy is not recorded: unchanged)."""
    rules = policy(release)
    if rules is None:
        return release
    runner, why, shown = _choose(rules, context)
    return replace(release, runner=runner, why=why, shown=shown)


def on_runner(release: Release, runner: str) -> Release:
    """`release` as if it ran `runner` ("v1", "v2"), for asking what the other runner
    does; its label does not name the runner."""
    return replace(release, runner=runner, why="", shown=False)


def _choose(rules: RunnerPolicy, context: Context) -> tuple[str, str, bool]:
    """(runner, why, whether it matters to say): the variable, when set, decides
    (envs.py); else the release's own order of checks."""
    if rules.v1_removed:                     # V2 alone; any other value refuses to start
        written = context.env.get(ENV)
        if written is not None and str(written) != "1":
            return "v2", f"{ENV}={written} is refused: Model Runner V1 has been removed", True
        return "v2", "the only runner of this release", False
    asked = str(context.env.get(ENV, "")).strip().lower()
    runner, why, shown = _default(rules, context)
    wanted = "v2" if asked in TRUE else "v1" if asked in FALSE else runner
    if wanted != runner:
        return wanted, f"{ENV}={context.env[ENV]} asks for it", True
    return runner, why, shown


def _default(rules: RunnerPolicy, context: Context) -> tuple[str, str, bool]:
    """The runner without the variable."""
    default = rules.default
    if default == "v1":
        return "v1", "the only default of this release", False
    forced = _forced(rules, context)
    if forced:
        return "v2", forced, True
    methods = rules.methods
    if context.method and (methods and context.method not in methods or
                           context.method in rules.refused_methods):
        return "v1", f"V2 does not run method {context.method!r} in this release", True
    if default == "v2":
        return "v2", "the default of this release", False
    target = context.target
    if target is None:
        return "v2" if _dense_default(rules) else "v1", f"assumed: {ASSUMED}", True
    text = target.get("text_config") if isinstance(target.get("text_config"), dict) \
        else target
    archs = [a for a in target.get("architectures") or () if isinstance(a, str)]
    moe = any(isinstance(text.get(k), int) and text.get(k) > 0 for k in EXPERT_KEYS) or \
        any(MOE_CLASS.search(a) for a in archs)
    hybrid = bool(RECURRENT_KINDS & set(strings(text.get("layer_types")))) or \
        any(k in text for k in ("layers_block_type", "hybrid_override_pattern"))
    quantized = isinstance(target.get("quantization_config"), dict)
    name = archs[0] if archs else "this"
    kind = ("hybrid" if hybrid else "MoE" if moe else "dense") + \
        (", quantized" if quantized else "")
    if hybrid and "is_hybrid" in rules.never:
        return "v1", f"the default for hybrid {name} targets", True
    listed = set(archs) & rules.architectures
    unless = rules.listed_unless
    if listed and not ("is_moe" in unless and moe) and not ("is_quantized" in unless
                                                             and quantized):
        return "v2", f"the default for {name} targets ({kind})", True
    if rules.dense and not moe:
        return "v2", f"the default for dense targets such as {name}", True
    return "v1", f"the default for {name} targets ({kind})", True


def _forced(rules: RunnerPolicy, context: Context) -> str:
    """Why the draft takes V2 whatever the target, or ""."""
    forced = rules.forced
    kinds = strings(context.draft.get("layer_types"))
    sliding = sum(k == "sliding_attention" for k in kinds)
    if "dspark" in forced and context.method == "dspark":
        return "DSpark runs on V2 only"
    if "dflash-mixed" in forced and context.method == "dflash" and 0 < sliding < len(kinds):
        return "a DFlash draft mixing sliding and full layers is sent to V2"
    if "dflash2" in forced and context.method == "dflash" and \
            "DFlash2DraftModel" in (context.draft.get("architectures") or ()):
        return "a DFlash2 draft is sent to V2"
    return ""


def _dense_default(rules: RunnerPolicy) -> bool:
    """Whether a dense, unquantized Qwen3 target takes V2 by default in this release."""
    return rules.dense or "Qwen3ForCausalLM" in rules.architectures


