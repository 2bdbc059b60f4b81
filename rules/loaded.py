"""Rules on what transformers actually loads from config.json (drafter_lint/loading.py).

The file says one thing; `XConfig.from_pretrained` may load another, silently: a window
nulled, a list re-derived, a RoPE field dropped, a class default filled in. Runtimes that
load through transformers (the reference drafter, vLLM, SGLang) see the loaded values.
"""

from __future__ import annotations

import json
import re

from drafter_lint.rules.rope import capping_releases, rope_types
from drafter_lint.rules.startup import type_refused

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.jsondoc import pointer
from drafter_lint.registry import rule
from drafter_lint.structure import field_classes

# Keys transformers rewrites or drops by design, with no effect on what runs.
BOOKKEEPING = frozenset({"transformers_version", "_name_or_path", "name_or_path",
                         "_commit_hash", "attn_implementation"})
GENERATION_KEYS = frozenset({"max_length", "min_length", "temperature", "top_p", "top_k",
                             "do_sample", "num_beams", "repetition_penalty",
                             "num_assistant_tokens", "num_return_sequences"})


def _show(value) -> str:
    return json.dumps(value)


def _rope_theta(values: dict):
    params = values.get("rope_parameters")
    return params.get("rope_theta") if isinstance(params, dict) else values.get("rope_theta")


def _pins(facts: Facts) -> str:
    """'vLLM 0.33.0 pins transformers >=5.16.1,<5.21; ...' for the runtimes checked for."""
    parts = []
    for release in facts.releases:
        fact = runtimes.lookup("transformers.pin", release)
        if fact:
            parts.append(f"{release.label} pins transformers {fact.value}")
    return "; ".join(parts)


@rule("TF101", "transformers-refuses-config", "error", "any", needs=("config", "loaded"))
def transformers_refuses(facts: Facts):
    """transformers raises when loading config.json with its model_type's config class.

    Runtimes load the drafter config through transformers first: a config it refuses (a
    `layer_types` list of the wrong length, `5120.0` for an int field in v5) stops the
    server at start-up. A `model_type` the installed transformers has no class for is an
    info, not an error: remote-code types (`auto_map`, e.g. MiMo's `mimo`) and types newer
    than the installed release (`qwen3_5` on 4.57) are loaded by the runtime with its own
    pinned transformers (vllm==0.33.0: >=5.16.1,<5.21; sglang==0.5.23: ==5.19.0; the z-lab
    reference: ==4.57.1), which this check did not run.

    Fails: `"num_hidden_layers": "5"` with transformers 5. Informs: `"model_type": "mimo"`.
    Passes: the published configs.
    """
    loaded = facts.loaded
    if not loaded.error:
        return
    if loaded.config_class is None and (facts.has("/model_type") or facts.family == "unknown"):
        if type_refused(facts):
            return          # DL014: the runtimes refuse this type, whatever is installed
        pins = _pins(facts)
        yield Finding("/model_type", f"{loaded.label} cannot load config.json: {loaded.error}"
                      + ("; it is remote code (auto_map), which drafter-lint never runs"
                         if facts.has("/auto_map") else "")
                      + (f"; {pins}" if pins else ""), severity=Severity.INFO)
        return
    yield Finding("" if loaded.config_class else "/model_type",
                  f"{loaded.label} cannot load config.json: {loaded.error}")


@rule("TF102", "normalized-by-transformers", "error", "any", needs=("config", "loaded"))
def normalized_by_transformers(facts: Facts):
    """A field of config.json is changed or dropped when transformers loads it.

    Measured by loading in fresh interpreters on transformers 4.57.6 and 5.24.0 (the TF102
    cases in fixtures/rules/TF102/ hold it on the installed one): `Qwen3Config` nulls
    `sliding_window` unless `use_sliding_window` is true; `rope_theta` beside
    `rope_parameters` is dropped (the value inside `rope_parameters` wins) and
    `rope_scaling` replaces `rope_parameters`; with both `torch_dtype` and `dtype`,
    `dtype` wins; v5 drops generation keys (`max_length`, `temperature`, ...) and rewrites
    legacy layer kinds. What a runtime then reads is not what the file says. Runtime
    fields are errors, the rest warnings; a rename with the same value is not reported.

    Fails: `"sliding_window": 2048` with `"use_sliding_window": false`.
    Passes: a config transformers loads unchanged.
    """
    loaded, file = facts.loaded, facts.config
    if loaded.values is None:
        return
    values = loaded.values
    runtime = field_classes(facts.families)[0]
    for key, mine in file.items():
        if key in BOOKKEEPING:
            continue
        if key in OWNED:
            continue
        severity = Severity.ERROR if key in runtime else Severity.INFO
        if key == "torch_dtype":
            if "dtype" in file and file["dtype"] != mine:
                yield Finding("/torch_dtype", f"torch_dtype is {_show(mine)} but dtype "
                              f"{_show(file['dtype'])} wins in {loaded.label}; torch_dtype is "
                              f"dropped", severity=Severity.WARNING)
            continue
        if key == "rope_theta" and "rope_theta" not in values:
            theta = _rope_theta(values)
            if theta != mine:
                yield Finding("/rope_theta", f"rope_theta is {_show(mine)} but {loaded.label} "
                              f"drops it and uses rope_parameters.rope_theta {_show(theta)}",
                              severity=severity)
            continue
        if key == "rope_scaling" and "rope_scaling" not in values:
            if mine is None or _migrated(mine, values.get("rope_parameters")):
                continue  # null, or migrated into rope_parameters unchanged
        if key not in values:
            if mine is None:
                continue  # an unset field that is not kept changes nothing
            moved = values.get("rope_parameters")
            if isinstance(moved, dict) and key in moved and moved[key] == mine:
                continue  # transformers 5 moves RoPE fields into rope_parameters, unchanged
            if key in GENERATION_KEYS:
                yield Finding(pointer(key), f"{key} {_show(mine)} is dropped by "
                              f"{loaded.label} (generation settings are not config fields)",
                              severity=Severity.WARNING)
            elif loaded.text_config is None:
                yield Finding(pointer(key), f"{key} {_show(mine)} is dropped by "
                              f"{loaded.label}", severity=severity)
            continue
        theirs = values[key]
        if isinstance(mine, dict) and _kept(mine, theirs):
            continue  # a nested config that gained only defaults
        if key == "rope_parameters" and isinstance(mine, dict) and isinstance(theirs, dict) \
                and all(theirs.get(k) == v for k, v in mine.items()) \
                and theirs.get("rope_type") == mine.get("rope_type", theirs.get("rope_type")):
            continue  # only defaults added
        if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
            yield Finding(pointer(key), f"{key} is {_show(mine)} in the file but "
                          f"{loaded.label} loads {_show(theirs)}", severity=severity)


# Keys whose normalization a family rule reports with its consequence (DF124, DF121).
OWNED = frozenset({"sliding_window", "layer_types"})


def _migrated(mine: object, params: object) -> bool:
    """Whether `rope_scaling` reached `rope_parameters` unchanged: the whole of it, or one
    attention kind's entry (transformers==5.25.0 DeepseekV4Config keys them `main` and
    `compress`, models/deepseek_v4/configuration_deepseek_v4.py:298-310)."""
    if not isinstance(mine, dict) or not isinstance(params, dict):
        return False
    kinds = [params] + [v for v in params.values() if isinstance(v, dict)]
    return any(all(kind.get(k) == v for k, v in mine.items() if k != "type")
               for kind in kinds)


def _kept(mine, theirs) -> bool:
    """Every value written in `mine` is loaded unchanged in `theirs` (extra keys are
    defaults transformers added)."""
    if isinstance(mine, dict):
        return isinstance(theirs, dict) and all(k in theirs and _kept(v, theirs[k])
                                                for k, v in mine.items())
    return json.dumps(mine, sort_keys=True) == json.dumps(theirs, sort_keys=True)


# Class defaults every drafter of these families is trained with: unwritten is fine.
INTENDED_DEFAULTS = {"hidden_act": "silu", "attention_bias": False}


# Fields whose class default only matters in some configurations.
def _default_matters(key: str, facts: Facts) -> bool:
    file = facts.config
    sliding = "sliding_attention" in (file.get("layer_types") or [])
    if key == "max_window_layers":
        return not file.get("layer_types") and file.get("use_sliding_window") is True
    if key == "sliding_window":
        return sliding or file.get("use_sliding_window") is True
    if key == "use_sliding_window":
        return False  # DF124 reports it with its consequence
    if key in ("rope_parameters", "rope_theta", "rope_scaling"):
        return not any(k in file for k in ("rope_theta", "rope_parameters", "rope_scaling"))
    if key == "max_position_embeddings" and facts.families & {"eagle", "eagle3"}:
        return bool(capping_releases(facts))  # else vLLM raises the default, as EA315 says
    return True


@rule("TF103", "unwritten-field", "warning", "any", needs=("config", "loaded"))
def unwritten_field(facts: Facts):
    """A field a runtime reads is not in config.json, so transformers fills a default.

    The default is the config class's, not the drafter's: `Qwen3Config` fills
    `sliding_window` 4096, `max_window_layers` 28 (and derives `layer_types` from it),
    RoPE theta 10000, `vocab_size` 151936. A drafter trained otherwise then runs with the
    default, silently. Write the trained value.

    Which fields count is per family (schemas/fields.json `unwritten`): every runtime
    field of a DFlash drafter. EAGLE heads are trained through the same Llama classes, so
    their defaults are the trained values, except `max_position_embeddings`: `LlamaConfig`
    fills 2048, which vLLM 0.33 makes the server's max_model_len cap for yarn, dynamic,
    longrope or deepseek RoPE (vllm==0.33.0 config/speculative.py:1807-1846).

    Fails: `"use_sliding_window": true` and no `sliding_window` (loads 4096); an EAGLE-3
    head with yarn RoPE and no `max_position_embeddings`.
    Passes: every runtime field written; an EAGLE-3 head with default RoPE and no
    `max_position_embeddings` (vLLM raises it).
    """
    loaded, file = facts.loaded, facts.config
    if loaded.values is None:
        return
    for key in sorted(field_classes(facts.families)[2] - OWNED):
        if key in file or key not in loaded.values or not _default_matters(key, facts):
            continue
        if INTENDED_DEFAULTS.get(key, MISSING) == loaded.values[key]:
            continue
        if key == "rope_parameters":
            yield Finding("/rope_theta", f"no RoPE field (rope_theta / rope_parameters) is "
                          f"written; {loaded.label} fills rope_theta "
                          f"{_show(_rope_theta(loaded.values))}")
            continue
        capping = capping_releases(facts) if key == "max_position_embeddings" else []
        yield Finding(pointer(key), f"{key} is not written; {loaded.label} fills "
                      f"{_show(loaded.values[key])}" + (
                          f", and {runtimes.agree(capping, 'caps')} the server's "
                          f"max_model_len to it for RoPE {sorted(rope_types(facts))}"
                          if capping else ""))


@rule("TF104", "flat-fields-of-composite-config", "error", "any", needs=("config", "loaded"))
def flat_fields_of_composite_config(facts: Facts):
    """A composite config (e.g. `model_type: qwen3_5`) has its text fields at the top level.

    `Qwen3_5Config` reads the text model from `text_config`; with no `text_config` it
    builds a *default* text model (hidden 4096, 32 layers, ...) and keeps the flat fields
    as ignored extras. Nothing errors and every written value is ignored.

    Fails: `{"model_type": "qwen3_5", "hidden_size": 5120, ...}` without `text_config`.
    Passes: fields nested under `text_config`, or `model_type: qwen3` for a DFlash drafter.
    """
    loaded, file = facts.loaded, facts.config
    if loaded.text_config is None or "text_config" in file:
        return
    for key in sorted(set(file) & set(loaded.text_fields)):
        if key in ("model_type", "architectures") or key in BOOKKEEPING:
            continue
        if json.dumps(file[key]) != json.dumps(loaded.text_config.get(key)):
            yield Finding(pointer(key), f"{key} {_show(file[key])} is ignored by "
                          f"{loaded.label}: it reads text_config.{key}, which loads as "
                          f"{_show(loaded.text_config.get(key))}")


@rule("TF105", "transformers-warning", "info", "any", needs=("config", "loaded"))
def transformers_warning(facts: Facts):
    """transformers logged a warning while loading config.json.

    Validation in transformers mostly warns instead of failing: a `*_token_id` outside
    the vocabulary, a RoPE scaling factor below 1, an unknown `rope_type`.

    Reports: each warning, with the transformers version. Passes: a clean load.
    """
    for message in facts.loaded.warnings:
        yield Finding("", f"{facts.loaded.label} warns: {message}")


QWEN35_TYPES = ("qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text")
INT_FIELDS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
              "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings")


def _meanings(facts: Facts):
    """(pointer, what transformers 4.57 loads, what 5.x loads) for each field whose meaning
    differs between the majors (measured on 4.57.6 and 5.24.0 by loading each case in a
    fresh interpreter)."""
    config = facts.config
    params = config.get("rope_parameters")
    nested = params.get("rope_theta") if isinstance(params, dict) else None
    top = config.get("rope_theta")
    if isinstance(params, dict) and nested is not None and top is None:
        yield ("/rope_parameters/rope_theta", "RoPE theta 10000 (4.x ignores rope_parameters)",
               f"theta {_show(nested)}")
    elif nested is not None and top is not None and nested != top:
        yield ("/rope_theta", f"theta {_show(top)} (the top-level field)",
               f"theta {_show(nested)} (rope_parameters wins)")
    scaling = config.get("rope_scaling")
    if isinstance(params, dict) and isinstance(scaling, dict):
        yield ("/rope_scaling", "rope_scaling beside a default theta",
               "rope_scaling in place of rope_parameters")
    model_type = config.get("model_type")
    if isinstance(model_type, str) and model_type in QWEN35_TYPES:
        yield ("/model_type", f"nothing: 4.57 has no {model_type} class", "the config")
    for key in INT_FIELDS:
        value = config.get(key)
        if isinstance(value, float) and value.is_integer():
            yield (f"/{key}", f"{key} {value} (kept as a float)",
                   "nothing: strict dataclass validation refuses a float for an int field")


@rule("TF106", "meaning-differs-across-transformers", "info", "any")
def meaning_differs_across_transformers(facts: Facts):
    """A field means one thing to transformers 4.x and another to 5.x.

    Runtimes pin different majors: vLLM 0.33 `>=5.16.1,<5.21`, SGLang 0.5.23 `==5.19.0`,
    the z-lab reference `==4.57.1`. Measured: a config with only `rope_parameters` loads
    RoPE theta 10000 under 4.57 (silently) and the written theta under 5.x; with both a
    top-level `rope_theta` and `rope_parameters.rope_theta`, 4.57 uses the first and 5.x
    the second; `rope_scaling` beside `rope_parameters` is kept by 4.57 and replaces it in
    5.x; `qwen3_5*` model types do not exist in 4.57; `5120.0` in an int field loads under
    4.57 and is refused by 5.x (StrictDataclassFieldValidationError). An error when checking
    for a runtime on the affected major (`--runtime reference`), an info otherwise, naming
    both loads, so a user of the 4.57-pinned reference learns it without installing 4.57.

    Fails: `"rope_parameters": {"rope_theta": 10000000}` without `rope_theta`, with
    `--runtime reference`. Informs: the same without `--runtime`.
    Passes: `"rope_theta": 10000000` alone.
    """
    affected = [r for r in facts.releases if _transformers_4_only(_pin(r))]
    for ptr, four, five in _meanings(facts):
        who = f"; {runtimes.agree(affected, 'loads')} it with transformers 4" if affected else ""
        yield Finding(ptr, f"transformers 4.57 loads {four}, transformers 5 loads {five}{who}",
                      severity=Severity.ERROR if affected else None)


def _pin(release) -> str:
    fact = runtimes.lookup("transformers.pin", release)
    return fact.value if fact else ""


def _transformers_4_only(pin: str) -> bool:
    """Whether the pin admits no transformers 5 (`==4.57.1`; `>=4.56.0,<5` of vLLM
    0.11.1-0.19.0)."""
    return pin.startswith("==4") or bool(re.search(r"(^|,)<5(\.0)*(,|$)", pin))
