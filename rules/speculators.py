"""Rules for the `speculators` unified format (vllm-project/speculators, and vLLM's
reader: transformers_utils/configs/speculators/). The wrapped `transformer_layer_config` is also checked with
the rules of the family it wraps (facts.config shows its fields at the top level).
"""

from __future__ import annotations

import json
import os

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import Finding, Severity, replace
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule

KNOWN = ("eagle3", "peagle", "dflash", "dflash2", "dspark", "mtp", "eagle", "xpress")
METHODS = "/speculators_config/proposal_methods"


def raw(facts: Facts, ptr: str, default=MISSING):
    """A value of config.json as written (not through the wrapped-config view)."""
    node = facts.checkpoint.config or {}
    for token in ptr[1:].split("/"):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return default
    return node


def vllm_label(facts: Facts) -> str | None:
    """'vLLM 0.33.0' when a vLLM release is checked for (only vLLM reads speculators
    files), else None: the vLLM claims of these rules then do not apply."""
    vllm = [r for r in facts.releases if r.runtime == "vllm"]
    return runtimes.labels(vllm) if vllm else None


def speculators_type(facts: Facts) -> str | None:
    """`speculators_model_type` as written (the family view maps dspark to DFlash)."""
    value = raw(facts, "/speculators_model_type", None)
    return value if isinstance(value, str) else None


@rule("SPC101", "speculators-model-type", "error", "speculators")
def model_type(facts: Facts):
    """`speculators_model_type` is unknown, or one vLLM cannot serve (SPC-01).

    speculators registers dflash, dspark, eagle3, mtp and peagle (eagle historically);
    vLLM maps eagle3, peagle, dflash, dflash2 and dspark and raises ValueError for the
    rest (vllm==0.33.0 transformers_utils/configs/speculators/algos.py:15-195). SGLang
    reads no speculators format at all.

    Which types each vLLM release maps is a fact row (serves.speculators: eagle3 from
    0.10.1, dflash from 0.20.0, peagle 0.22.0, dspark 0.25.0, dflash2 0.29.0): a type the
    newest release does not map is a warning, one the release asked for (`--runtime`,
    the gate's installed release) does not map is an error for it.

    Fails: `"speculators_model_type": "medusa"` (error); `"mtp"` (warning); `"dflash"`
    with `--runtime vllm==0.11.0` (error: 0.11.0 maps only eagle3).
    Passes: `"eagle3"`, `"dflash2"`.
    """
    kind = speculators_type(facts)
    if kind not in KNOWN:
        yield Finding("/speculators_model_type", f"speculators_model_type is "
                      f"{json.dumps(kind)}: not one of {', '.join(KNOWN)}")
        return
    asked = facts.runtime is not None        # a release the user serves with: its refusal
    for release in facts.releases if asked else runtimes.default_releases():
        fact = runtimes.lookup("serves.speculators", release)
        if fact is None or release.runtime != "vllm" or kind in fact.value:
            continue
        served = f"it serves {', '.join(fact.value)}" if fact.value else \
            "it reads no speculators config"
        yield Finding("/speculators_model_type", f"speculators_model_type {kind!r} is "
                      f"not served by {release.label} ({served}): it refuses to start",
                      severity=Severity.ERROR if asked else Severity.WARNING)


# Top-level keys vLLM's speculators updaters index directly (algos.py:83, 114, 119, 192)
KEYS_BY_TYPE = {"dflash": ("aux_hidden_state_layer_ids", "mask_token_id"),
                "dflash2": ("aux_hidden_state_layer_ids", "mask_token_id"),
                "dspark": ("aux_hidden_state_layer_ids",), "peagle": ("mask_token_id",)}


@rule("SPC102", "speculators-structure", "error", "speculators")
def structure(facts: Facts):
    """A field vLLM requires of a speculators config is missing (SPC-02).

    vLLM's `validate_speculators_config` needs
    `speculators_config.proposal_methods[0].speculative_tokens`,
    `speculators_config.verifier.name_or_path` and a `transformer_layer_config` object;
    otherwise "Invalid speculators config structure". Its per-type updaters then index
    top-level keys directly, a `KeyError` at start-up without them: `aux_hidden_state_
    layer_ids` and `mask_token_id` for dflash and dflash2, `aux_hidden_state_layer_ids`
    for dspark, `mask_token_id` for peagle (vllm==0.33.0 transformers_utils/configs/
    speculators/algos.py:83, 114, 119, 192).

    Fails: no `verifier.name_or_path`; a dspark file without `aux_hidden_state_layer_ids`.
    Passes: the three present, and the keys of its type; a `name_or_path` of null or "",
    which the validation only indexes (vllm==0.33.0 transformers_utils/configs/
    speculators/base.py:77-86).
    """
    label = vllm_label(facts)
    if label is None:
        return
    for key in KEYS_BY_TYPE.get(speculators_type(facts), ()):
        if raw(facts, f"/{key}") is MISSING:
            yield Finding(f"/{key}", f"{key} is missing: {label} reads it for "
                          f"{speculators_type(facts)} and fails to start (KeyError)")
    for ptr, what in ((f"{METHODS}/0/speculative_tokens", "an integer >= 1"),
                      ("/speculators_config/verifier/name_or_path", "a model path or hub id"),
                      ("/transformer_layer_config", "an object")):
        value = raw(facts, ptr)
        ok = {"an integer >= 1": lambda v: type(v) is int and v >= 1,
              # vLLM only indexes the key (base.py:83): any value, null included, passes
              "a model path or hub id": lambda v: v is not MISSING,
              "an object": lambda v: isinstance(v, dict)}[what](value)
        if not ok:
            shown = "missing" if value is MISSING else json.dumps(value)
            yield Finding(ptr, f"{dotted(ptr)} is {shown}, expected {what}: "
                          f"{label} refuses the config")


@rule("SPC103", "speculators-default-proposal-method", "error", "speculators")
def default_proposal_method(facts: Facts):
    """`default_proposal_method` names no entry of `proposal_methods` (SPC-03).

    speculators validates it against the `proposal_type` of each proposal method.

    Fails: `"default_proposal_method": "tree"` with only a greedy method.
    Passes: `"greedy"`.
    """
    name = raw(facts, "/speculators_config/default_proposal_method", None)
    methods = raw(facts, METHODS, [])
    types = [m.get("proposal_type") for m in methods if isinstance(m, dict)] \
        if isinstance(methods, list) else []
    if name is not None and name not in types:
        yield Finding("/speculators_config/default_proposal_method",
                      f"default_proposal_method is {json.dumps(name)} but the proposal "
                      f"methods are {types}")


@rule("SPC104", "speculators-algorithm-mismatch", "warning", "speculators")
def algorithm_mismatch(facts: Facts):
    """`speculators_config.algorithm` differs from `speculators_model_type` (SPC-04).

    `algorithm` is a free string nobody validates; a different value usually means a
    config assembled from two sources.

    Fails: algorithm "eagle" with model type "eagle3". Passes: equal.
    """
    algorithm = raw(facts, "/speculators_config/algorithm", None)
    kind = speculators_type(facts)
    if isinstance(algorithm, str) and kind and algorithm != kind:
        yield Finding("/speculators_config/algorithm", f"algorithm is {algorithm!r} but "
                      f"speculators_model_type is {kind!r}")


@rule("SPC105", "speculators-norm-before-residual-missing", "warning", "speculators")
def norm_before_residual_missing(facts: Facts):
    """`norm_before_residual` is not written: vLLM and speculators default it differently
    (SPC-05).

    vLLM's speculators adapter defaults it to true for eagle3 when absent (vllm==0.33.0
    transformers_utils/configs/speculators/algos.py:33-35); speculators' own class
    defaults it to false (speculators@c05b95b models/eagle3/config.py:38-44). The runtime
    then computes a different residual than training. For peagle both default to false
    (algos.py:70-72), so an unwritten value is consistent there.

    Fails: an eagle3 speculators config without `norm_before_residual`.
    Passes: the field written; a peagle config without it.
    """
    label = vllm_label(facts)
    if label is None:
        return
    if speculators_type(facts) == "eagle3" and \
            raw(facts, "/norm_before_residual") is MISSING:
        yield Finding("/norm_before_residual", f"norm_before_residual is not written: {label} "
                      "assumes true, speculators false; write the trained value")


@rule("SPC106", "speculators-draft-vocab-missing", "warning", "speculators")
def draft_vocab_missing(facts: Facts):
    """`draft_vocab_size` is absent or null (SPC-06).

    vLLM passes the missing value on and its EAGLE-3 model then uses the full `vocab_size`
    (vllm==0.33.0 transformers_utils/configs/speculators/algos.py:30, llama_eagle3.py
    `draft_vocab_size` default); speculators' class default is 32000. The `lm_head` rows
    decide which one is right.

    Fails: `"draft_vocab_size": null`. Passes: `32000`.
    """
    label = vllm_label(facts)
    if label is None:
        return
    if speculators_type(facts) in ("eagle3", "peagle") and \
            raw(facts, "/draft_vocab_size", None) is None:
        yield Finding("/draft_vocab_size", f"draft_vocab_size is not set: {label} uses "
                      "vocab_size, speculators 32000")


@rule("SPC107", "speculators-verifier-local-path", "warning", "speculators")
def verifier_local_path(facts: Facts):
    """`verifier.name_or_path` is a local path (SPC-07).

    Serving the speculator alone (`vllm serve CKPT`), vLLM loads the target from this
    field (PR #21345). vLLM 0.33.0 refuses a verifier that is not a hub repo id, even on
    the machine that has the path ("Speculators verifier must name a remote model
    repository", vllm==0.33.0 transformers_utils/config.py:860-873); earlier releases
    used it as given, and a path from the training machine (`/model/from_s3`) resolves
    nowhere else. With the target named explicitly (`--model TARGET --speculative-config
    '{"model": CKPT}'`) the field is not used: a warning for `check`, an error on a
    `vllm serve CKPT` line in front of such a release (`gate`).

    Fails: `"/model/from_s3"`. Passes: `"Qwen/Qwen3-8B"`.
    """
    value = raw(facts, "/speculators_config/verifier/name_or_path", None)
    if isinstance(value, str) and (os.path.isabs(value) or value.startswith((".", "~"))):
        strict = runtimes.matching(facts.releases, "speculators.verifier-must-be-a-repo")
        if strict and facts.launch.speculators_direct:
            yield Finding("/speculators_config/verifier/name_or_path", f"verifier."
                          f"name_or_path is the local path {value!r}: "
                          f"{runtimes.agree(strict, 'refuses')} to serve the checkpoint "
                          f"alone with it; name the target with --model and pass the "
                          f"checkpoint in --speculative-config", severity=Severity.ERROR)
            return
        how = (f"; {runtimes.agree(strict, 'refuses')} to serve the checkpoint alone with "
               f"such a verifier, so name the target with --model and pass the checkpoint "
               f"in --speculative-config") if strict else \
            ": other machines cannot resolve the target from it"
        yield Finding("/speculators_config/verifier/name_or_path", f"verifier.name_or_path "
                      f"is the local path {value!r}{how}")


@rule("SPC108", "speculators-verifier-architecture", "warning", "speculators",
      needs=("config", "target"))
def verifier_architecture(facts: Facts):
    """`verifier.architectures` differs from the target's `architectures` (SPC-08).

    Fails: `["Qwen3MoeForCausalLM"]` for a Llama target. Passes: equal.
    """
    mine = raw(facts, "/speculators_config/verifier/architectures", None)
    theirs = facts.target.architectures
    if isinstance(mine, list) and theirs and not set(mine) & set(theirs):
        yield Finding("/speculators_config/verifier/architectures", f"verifier.architectures "
                      f"is {mine} but the target ({facts.target.display}) is {theirs}")


@rule("SPC109", "speculators-layer-model-type", "error", "speculators")
def layer_model_type(facts: Facts):
    """An eagle3/peagle `transformer_layer_config.model_type` vLLM cannot map (SPC-09).

    vLLM maps llama to Eagle3LlamaForCausalLM and qwen3 to Eagle3Qwen3ForCausalLM and
    raises for anything else; an absent `model_type` is read as llama (vllm==0.33.0
    transformers_utils/configs/speculators/algos.py:43-45, 79-81).

    Fails: `"model_type": "mistral"`. Passes: `"llama"`, `"qwen3"`, absent.
    """
    if speculators_type(facts) not in ("eagle3", "peagle"):
        return
    kind = raw(facts, "/transformer_layer_config/model_type", "llama")   # vLLM's default
    vllm = [r for r in facts.releases if r.runtime == "vllm"]
    if vllm and kind not in ("llama", "qwen3"):
        yield Finding("/transformer_layer_config/model_type", f"transformer_layer_config."
                      f"model_type is {json.dumps(kind)}; {runtimes.agree(vllm, 'serves')} "
                      f"llama and qwen3 layers only and refuses to start")


@rule("SPC110", "speculators-layer-vs-target", "error", "speculators",
      needs=("config", "target"))
def layer_vs_target(facts: Facts):
    """`transformer_layer_config` vocab or width differs from the target (SPC-10).

    The layer's `vocab_size` is the target vocabulary (speculators' `target_vocab_size`);
    its `hidden_size` must match the target unless `target_hidden_size` is set.

    Fails: `vocab_size` 151936 for a 128256-token target. Passes: equal.
    """
    layer = raw(facts, "/transformer_layer_config", None)
    if not isinstance(layer, dict):
        return
    vocab, target_vocab = layer.get("vocab_size"), facts.target.vocab_size
    if type(vocab) is int and target_vocab and vocab != target_vocab:
        yield Finding("/transformer_layer_config/vocab_size", f"transformer_layer_config."
                      f"vocab_size is {vocab} but the target has {target_vocab}")
    hidden, target_hidden = layer.get("hidden_size"), facts.target.hidden_size
    if type(hidden) is int and target_hidden and hidden != target_hidden and \
            raw(facts, "/target_hidden_size", None) is None:
        yield Finding("/transformer_layer_config/hidden_size", f"transformer_layer_config."
                      f"hidden_size is {hidden} but the target's is {target_hidden} and no "
                      f"target_hidden_size is set")


@rule("SPC111", "speculators-norm-output", "info", "speculators")
def norm_output(facts: Facts):
    """`norm_output: true` ("Eagle 3.1"): which runtimes apply it (SPC-11).

    The head feeds its post-norm hidden state back to the next draft step. vLLM 0.33 and
    SGLang 0.5.23 read the flag in their EAGLE-3 model (vllm==0.33.0
    model_executor/models/llama_eagle3.py:252, 285-286; sglang==0.5.23
    models/llama_eagle3.py:207); releases before vLLM PR #46488 feed the un-normed state
    back, silently. Checked for the runtimes selected; a warning for one that ignores it.

    Informs: `"norm_output": true` (the runtimes that apply it). Passes: false or absent.
    """
    if raw(facts, "/norm_output", None) is not True:
        return
    chosen = [facts.runtime] if facts.runtime else list(runtimes.default_releases())
    reading = runtimes.matching(chosen, "eagle3.reads-3.1-flags",
                                lambda flags: "norm_output" in flags)
    ignoring = [r for r in chosen if r not in reading]
    if ignoring:
        yield Finding("/norm_output", f"norm_output is true (Eagle 3.1) but "
                      f"{runtimes.agree(ignoring, 'is')} not recorded to apply it; it would "
                      f"feed the un-normed hidden state back", severity=Severity.WARNING)
    else:
        yield Finding("/norm_output", f"norm_output is true (Eagle 3.1): applied by "
                      f"{runtimes.labels(reading)}")


@rule("SPC112", "speculators-mtp-layers", "error", "speculators")
def mtp_layers(facts: Facts):
    """A speculators MTP config with `num_nextn_predict_layers` other than 1 (MTP-06).

    speculators' MTPSpeculatorConfig validator accepts only 1.

    Fails: `"num_nextn_predict_layers": 2`. Passes: 1.
    """
    if speculators_type(facts) != "mtp":
        return
    value = raw(facts, "/num_nextn_predict_layers", None)
    if value is not None and value != 1:
        yield Finding("/num_nextn_predict_layers", f"num_nextn_predict_layers is "
                      f"{json.dumps(value)}; speculators MTP configs must have 1")


@rule("SPC114", "speculators-tokens-vs-block", "error", "speculators", fix="sometimes",
      applies="safe")
def tokens_vs_block(facts: Facts):
    """A speculators DFlash file proposes more tokens than its block has draft slots.

    vLLM serves a speculators checkpoint with `proposal_methods[0].speculative_tokens` as
    `num_speculative_tokens` when the launch line gives none (vllm==0.33.0
    transformers_utils/configs/speculators/base.py:77-95). A DFlash block is one anchor
    plus `block_size - 1` mask slots, so more tokens than that run positions the drafter
    was never trained on. speculators' converter wrote `block_size` there until PR #456
    fixed it to `block_size - 1`.

    Fails: `"block_size": 16` with `speculative_tokens: 16`; the same with
    `sample_from_anchor: true` (no fix: DF128 refuses that first). Passes: 15.
    Fix (safe): `block_size - 1`, unless `sample_from_anchor` is true.
    """
    if speculators_type(facts) not in ("dflash", "dflash2"):
        return
    block = raw(facts, "/block_size", None)
    if type(block) is not int:
        block = facts.int("/block_size")
    tokens = raw(facts, f"{METHODS}/0/speculative_tokens", None)
    vllm = [r for r in facts.releases if r.runtime == "vllm"]
    if vllm and type(block) is int and type(tokens) is int and tokens > block - 1:
        # with sample_from_anchor true vLLM refuses the file whatever the count (DF128):
        # a token fix alone would leave a config that does not start
        refused = bool(raw(facts, "/sample_from_anchor", None))
        yield Finding(f"{METHODS}/0/speculative_tokens", f"speculative_tokens is {tokens} but "
                      f"block_size {block} has {block - 1} draft slots; "
                      f"{runtimes.agree(vllm, 'proposes')} {tokens} tokens from it "
                      f"(speculators PR #456)" + ("; sample_from_anchor true is refused "
                                                   "first (DF128)" if refused else ""),
                      fix=None if refused else
                      replace(f"{METHODS}/0/speculative_tokens", block - 1, "safe"))


@rule("SPC115", "speculators-dspark-anchor-default", "warning", "speculators")
def dspark_anchor_default(facts: Facts):
    """A speculators DSpark file omits `sample_from_anchor`: vLLM and speculators default
    it differently.

    vLLM reads a missing key as false, the DFlash-style `1 + N` layout where the anchor is
    the bonus token (vllm==0.33.0 transformers_utils/configs/speculators/algos.py:188-190);
    speculators' DSpark class defaults it to true, the DeepSpec anchor-first layout
    (speculators@8965833 models/dspark/config.py:27-36). Served in the other layout every
    slot is read one position off and acceptance collapses without an error (vLLM #56792,
    SGLang PR #30982: accept length ~1.1 instead of ~4).

    Fails: `"speculators_model_type": "dspark"` without `sample_from_anchor`.
    Passes: the key written either way; DFlash files (both default to false).
    """
    label = vllm_label(facts)
    if label is None:
        return
    if speculators_type(facts) == "dspark" and raw(facts, "/sample_from_anchor") is MISSING:
        yield Finding("/sample_from_anchor", f"sample_from_anchor is not written: "
                      f"{label} assumes false (anchor = bonus token), speculators' "
                      f"DSpark class true (anchor-first); write the layout training used "
                      f"(vLLM #56792)")


@rule("SPC116", "speculators-full-layers-served-causal", "warning", "speculators",
      fix="sometimes", applies="safe")
def full_layers_served_causal(facts: Facts):
    """`sliding_window_non_causal: false` makes vLLM run full-attention layers causal.

    speculators applies the flag to sliding layers only and always trains full-attention
    layers bidirectional within the block (speculators models/dflash/attention.py:
    `non_causal = sliding_window is None or sliding_window_non_causal`). vLLM turns it into
    one `dflash_config.causal = not flag` for every layer (vllm==0.33.0 transformers_utils/
    configs/speculators/algos.py:122-126, model_executor/models/qwen3_dflash.py:62-69), so
    with `false` the full-attention layers run causal, unlike training (vLLM PR #56692,
    open). With no sliding layer the flag changes nothing in training, so `true` is right.

    Fails: `"sliding_window_non_causal": false` with full-attention layers.
    Passes: `true`; absent; every layer sliding; an explicit `is_causal`.
    Fix (safe, only when no layer slides): set it to true.
    """
    if speculators_type(facts) not in ("dflash", "dflash2") or \
            raw(facts, "/sliding_window_non_causal") is not False or \
            isinstance(facts.get("/is_causal", None), bool):
        return
    global_flag = runtimes.matching(facts.releases, "speculators.non-causal-flag-global")
    kinds = facts.get("/layer_types", None)
    n = facts.layers("/num_hidden_layers")
    if not isinstance(kinds, list):
        kinds = ["full_attention"] * (n or 1)
    full = [i for i, kind in enumerate(kinds) if kind != "sliding_attention"]
    if not global_flag or not full:
        return
    fix = replace("/sliding_window_non_causal", True, "safe") if len(full) == len(kinds) \
        else None
    yield Finding("/sliding_window_non_causal", f"sliding_window_non_causal is false: "
                  f"{runtimes.agree(global_flag, 'runs')} every layer causal, but speculators "
                  f"trains the full-attention layers {full} bidirectional (vLLM PR #56692)" +
                  ("; no sliding layer, so true changes nothing in training" if fix else
                   "; no value fixes mixed layers on this release"), fix=fix)


@rule("SPC113", "speculators-dflash-causality-default", "warning", "speculators")
def dflash_causality_default(facts: Facts):
    """A speculators DFlash file with sliding layers omits `sliding_window_non_causal`.

    vLLM sets `dflash_config.causal = not sliding_window_non_causal`, reading a missing key
    as true, so the sliding layers run non-causal (vllm==0.33.0 transformers_utils/configs/
    speculators/algos.py:122-126); speculators' own default is false, i.e. trained causal
    (speculators@c05b95b models/dflash/config.py:66-71). Without the key the drafter is
    trained causal and served non-causal (vLLM PR #47453). speculators' DFlash2 class
    defaults the key to true (speculators==0.9.0 models/dflash2/config.py:22-25), as vLLM
    reads it: no mismatch there.

    Fails: `"speculators_model_type": "dflash"`, sliding `layer_types`, no
    `sliding_window_non_causal`. Passes: the key written either way.
    """
    label = vllm_label(facts)
    if label is None:
        return
    if speculators_type(facts) != "dflash":
        return          # dflash2 defaults to non-causal, as vLLM reads it (speculators 0.9.0)
    kinds = facts.get("/layer_types", None)
    if not (isinstance(kinds, list) and "sliding_attention" in kinds):
        return
    if raw(facts, "/sliding_window_non_causal") is MISSING:
        yield Finding("/sliding_window_non_causal", "sliding_window_non_causal is not "
                      "written: speculators trains sliding layers causal by default, but "
                      f"{label} reads the missing key as true and serves them "
                      "non-causal; write the value training used")


def _rope_kind(config: dict) -> tuple[str, str | None, dict | None]:
    """The RoPE type a config asks for, the key that says it (`rope_scaling`, else
    `rope_parameters`) and its value; ("default", None, None) when neither scales."""
    for key in ("rope_scaling", "rope_parameters"):
        params = config.get(key)
        if isinstance(params, dict):
            kind = params.get("rope_type", params.get("type", "default"))
            if isinstance(kind, str) and kind != "default":
                return kind, key, params
    return "default", None, None


@rule("SPC117", "speculators-rope-scaling-vs-target", "warning", "speculators",
      needs=("config", "target"))
def rope_scaling_vs_target(facts: Facts):
    """`transformer_layer_config` lacks the RoPE scaling of a rope-scaled target.

    vLLM builds the draft's config from `transformer_layer_config` alone (vllm==0.33.0
    transformers_utils/configs/speculators/base.py:58-63), and the EAGLE-3 layer takes its
    RoPE from that config (model_executor/models/llama.py:243-247, the layer
    llama_eagle3.py:27-28 builds on). A head trained on a rope-scaled target (Llama-3.1's
    `llama3`, YaRN) whose layer config lost `rope_scaling` runs default RoPE: positions are
    encoded otherwise than in training, silently. speculators' Eagle3 converter forwarded
    only `rope_theta` until vllm-project/speculators#574.

    Warns: the target's `rope_scaling` is `{"rope_type": "yarn", ...}` and
    `transformer_layer_config` has no `rope_scaling` (or another type). Passes: the same
    RoPE type in both.
    """
    layer = raw(facts, "/transformer_layer_config", None)
    label = vllm_label(facts)
    if not isinstance(layer, dict) or label is None:
        return
    wanted, _, params = _rope_kind(facts.target.config)
    have, key, _ = _rope_kind(layer)
    if wanted == "default" or have == wanted:
        return
    written = f"{key} of type {have}" if key else "no rope_scaling"
    yield Finding(f"/transformer_layer_config/{key or 'rope_scaling'}",
                  f"transformer_layer_config has {written} but the target's RoPE is "
                  f"{wanted} ({json.dumps(params, sort_keys=True)}); {label} builds the draft "
                  f"from transformer_layer_config, so the head runs {have} RoPE where the "
                  f"target runs {wanted}; a head trained with the target's RoPE (as "
                  "speculators trains it) needs the target's rope_scaling copied in")
