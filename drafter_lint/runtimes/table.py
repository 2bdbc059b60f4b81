"""What each runtime reads, as data: one row per (runtime, release range, fact).

Rules ask this table instead of writing runtime behaviour into their messages. Every vLLM
and SGLang row holds for a release range (`since`, `until`) that
tools/oracle/release_evidence.py found in every wheel (tests/data/release-evidence.json);
values read whole from the wheels (registered classes, MTP targets, pins) come from
registries.json. Supporting a new release means closing rows that changed with `until` and
adding rows with `since`, not editing rules. Each row cites the released code it was read
from:

    V  = vllm==0.33.0 (paths under vllm/)          S  = sglang==0.5.23 (under sglang/srt/)
    ZL = z-lab/dflash@44947fb (dflash/model.py)     SP = vllm-project/speculators@c05b95b

`effect` says what happens when the drafter is wrong about this fact: "start-up" (the server
refuses to start), "silent" (it runs, computing something else), "ignored" (not read).
"""

from __future__ import annotations

from dataclasses import dataclass

from drafter_lint.runtimes import keys, registries


@dataclass(frozen=True)
class Seen:
    """How tools/oracle/release_evidence.py tells that a row holds in a release's wheel:
    files (a glob, `**/` for any folders) where `pattern` (Python `re`, multi-line) must
    match, `also` (files, pattern) pairs that must match too, `also_not` pairs that must
    not. A row that carries one needs no probe in tools/oracle/release_probes.py."""

    files: str
    pattern: str
    also: tuple = ()
    also_not: tuple = ()


@dataclass(frozen=True)
class Fact:
    key: str                 # declared with its value's type in runtimes/keys.py
    runtime: str
    value: object
    effect: str
    cite: str
    since: str = ""          # first release it holds for ("" only for the z-lab reference)
    until: str = ""          # first release it no longer holds for
    path: str = ""           # "v1" / "v2": holds only on that vLLM model runner
    seen: Seen | None = None  # its probe, when written with the row (else release_probes.py)

    def __post_init__(self):
        keys.check(self.key, self.value)      # a typo or a wrong value fails at import


V, S, R = "vllm", "sglang", "reference"

def read_whole(key: str, note, effect: str = "start-up") -> tuple[Fact, ...]:
    """The rows of a value read whole from every wheel (registries.json), one per run of
    releases with the same value; `note(runtime)` completes each cite."""
    return tuple(Fact(key, runtime, value, effect, f"{at} ({note(runtime)})", since=since,
                      until=until)
                 for runtime, since, until, value, at in registries.runs(key))


# how each runtime refuses an `architectures` it does not register
REFUSED = {V: "V model_executor/models/registry.py:1249-1252, not supported for now",
           S: "S model_loader/utils.py:154-161, Cannot find model module; the Transformers "
              "fallback needs a transformers class, and has no draft hooks, "
              "speculative/eagle_worker_v2.py:363"}

# how each runtime refuses a `model_type` no config class knows
CONFIG_REFUSED = {V: "else AutoConfig: model type ... but Transformers does not recognize this "
                     "architecture, V transformers_utils/config.py:445",
                  S: "else AutoConfig: model type ... but Transformers does not recognize this "
                     "architecture, S utils/hf_transformers/config.py:228"}

# eagle3.captures-final-output: declared with its rows (keys.declare); value (default,
# model types that do otherwise)
FINAL_OUTPUT = keys.declare("eagle3.captures-final-output", keys.Type(
    "(bool, frozenset of model types that do otherwise)",
    lambda v: isinstance(v, tuple) and len(v) == 2 and type(v[0]) is bool
    and isinstance(v[1], frozenset) and all(isinstance(t, str) for t in v[1])))
# eagle3.draft-extend-buffer-is-head-width: SGLang sizes the EAGLE-3 draft-extend CUDA
# graph's hidden-state buffer 3 x the head's hidden_size, not its target_hidden_size
EXTEND_BUFFER = keys.declare("eagle3.draft-extend-buffer-is-head-width", keys.BOOL)
S_EXTEND = "sglang/srt/speculative/eagle_draft_extend_cuda_graph_runner.py"
# runner.variable-read-as-int: vLLM reads VLLM_USE_V2_MODEL_RUNNER with bool(int(value))
INT_VARIABLE = keys.declare("runner.variable-read-as-int", keys.BOOL)
# mtp.quantized-head-under: model types (by prefix) -> the methods under which vLLM builds
# their MTP shared_head.head quantized whatever the exclusions say
HEAD_QUANTIZED = keys.declare("mtp.quantized-head-under", keys.SET_MAP)
# eagle3.norm-before-fc-sources: where the EAGLE-3 model reads norm_before_fc
NORM_SOURCES = keys.declare("eagle3.norm-before-fc-sources", keys.POINTERS)
V_EAGLE3 = "vllm/model_executor/models/llama_eagle3.py"
# runner.v1-refuses-dspark: V1's start-up refuses method dspark
V1_DSPARK = keys.declare("runner.v1-refuses-dspark", keys.BOOL)
# sglang.algorithms-for-target: target architectures -> the only speculative algorithms
# SGLang's start-up lets serve them
TARGET_ALGORITHMS = keys.declare("sglang.algorithms-for-target", keys.SET_MAP)
S_V4_HOOK = "sglang/srt/arg_groups/deepseek_v4_hook.py"
# dspark.tokens-below-block-refused: a DSpark launch with fewer speculative tokens than the
# draft config's dspark_block_size is refused at start-up
BELOW_BLOCK = keys.declare("dspark.tokens-below-block-refused", keys.BOOL)
# dspark.embedded-markov-rank-sources: where a DeepSeek-V4 target's own DSpark stages (served
# with the target as the draft) take the Markov head's rank from
EMBEDDED_RANK = keys.declare("dspark.embedded-markov-rank-sources", keys.POINTERS)
# model types served by vLLM's deepseek_v2.py model class
DEEPSEEK_CLASS = frozenset({"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2"})
V_LLAMA, V_DEEPSEEK = ("vllm/model_executor/models/llama.py",
                       "vllm/model_executor/models/deepseek_v2.py")
V_AFTER_LAYER = r"_maybe_add_hidden_state\(\s*aux_hidden_states,\s*idx \+ 1,"
V_DEEPSEEK_END = r"if self\.end_layer in self\.aux_hidden_state_layers:"
S_LLAMA, S_GPT_OSS = "sglang/srt/models/llama.py", "sglang/srt/models/gpt_oss.py"
S_SHIFTED = (r"def\s+set_eagle3_layers_to_capture[\s\S]{0,600}?layers_to_capture\s*=\s*"
             r"\[\s*val\s*\+\s*1\s+for\s+val\s+in\s+layer_ids\s*\]")
S_GPT_OSS_END = r"elif self\.end_layer in self\.layers_to_capture:"


FACTS: tuple[Fact, ...] = (
    # Model runner: which one serves a launch (read whole from each wheel; runtimes/path.py
    # applies it to the target, the method, the draft and VLLM_USE_V2_MODEL_RUNNER)
    *read_whole("runner.v2-policy", lambda _: "VllmConfig.use_v2_model_runner with "
                "VLLM_USE_V2_MODEL_RUNNER unset; envs.py reads the variable"),
    Fact("runner.v1-refuses-mixed-swa", V, True, "start-up",
         "V config/vllm.py:3128-3137, 2092-2096 (Model Runner V1 does not support ...)",
         since="0.26.0", until="0.34.0", path="v1"),
    # vllm==0.25.0/0.25.1 refuse any mixed sliding/full DFlash draft, on either runner
    # the variable is read with int(): "true", "yes", "on" stop start-up (ValueError)
    Fact(INT_VARIABLE, V, True, "start-up",
         "vllm==0.12.0 envs.py:1550-1552 (bool(int(...))); vllm==0.33.0 envs.py:2149-2151, "
         "360-363 (maybe_convert_bool: bool(int(value)))", since="0.12.0", until="0.34.0",
         seen=Seen("vllm/envs.py", r'"VLLM_USE_V2_MODEL_RUNNER": lambda: (bool\(\s*\n\s*int\(|'
                   r'maybe_convert_bool\()', also=(("vllm/envs.py", r"def maybe_convert_bool"
                                                   r"[\s\S]{0,200}?bool\(int\(value\)\)"),))),
    Fact("dflash.refuses-mixed-swa", V, True, "start-up",
         "vllm==0.25.0 model_executor/models/qwen3_dflash.py:86-97 (NotImplementedError: DFlash "
         "does not yet support mixed sliding/full attention via layer_types)",
         since="0.25.0", until="0.26.0"),
    Fact("runner.v1-refuses-dflash2", V, True, "start-up",
         "vllm==0.29.0 config/vllm.py:2632-2636, 2739-2743 (Model Runner V1 does not support: "
         "dflash2 drafts)", since="0.29.0", until="0.34.0", path="v1"),
    Fact(V1_DSPARK, V, True, "start-up",
         "vllm==0.29.0 config/vllm.py:2621-2624, 2735-2740 (Model Runner V1 does not support: "
         "dspark speculative decoding)", since="0.29.0", until="0.34.0", path="v1",
         seen=Seen("vllm/config/vllm.py", r'unsupported\.append\("dspark speculative decoding"\)')),
    Fact("runner.v1-refuses-dflash2", V, False, "silent",
         "vllm==0.28.0 config/vllm.py:639-641 (on V1 the draft degrades to DFlash1 silently)",
         since="0.28.0", until="0.29.0", path="v1"),

    # DFlash: the mask token
    Fact("dflash.mask-sources", V,
         ("/dflash_config/mask_token_id", "/mask_token_id", "/dspark_noise_token_id",
          "/pard_token", "/ptd_token_id"), "start-up",
         "V v1/spec_decode/llm_base_proposer.py:361-379 (raises only if none is present); "
         "vllm==0.34.0 v1/worker/gpu/spec_decode/utils.py:141-160 (V2 alone)", since="0.28.0"),
    Fact("dflash.mask-sources", V,
         ("/dflash_config/mask_token_id", "/mask_token_id", "/dspark_noise_token_id",
          "/pard_token", "/ptd_token_id"), "start-up",
         "vllm==0.25.0 v1/worker/gpu/spec_decode/utils.py:55-70 (V2's reader; raises only if "
         "none is present)", since="0.25.0", until="0.28.0", path="v2"),
    Fact("dflash.mask-sources", V, ("/dflash_config/mask_token_id", "/pard_token", "/ptd_token_id"),
         "start-up", "vllm==0.27.1 v1/spec_decode/llm_base_proposer.py:353-365 (V1; raises if "
         "none)", since="0.25.0", until="0.28.0", path="v1"),
    Fact("dflash.mask-sources", V, ("/dflash_config/mask_token_id", "/pard_token", "/ptd_token_id"),
         "start-up", "vllm==0.20.0 v1/spec_decode/llm_base_proposer.py:332-344 (V1; "
         "vllm==0.24.0 v1/worker/gpu/spec_decode/utils.py:54-70 the same on V2; raises if none)",
         since="0.20.0", until="0.25.0"),
    # a speculators-format DFlash file's top-level mask_token_id, copied into dflash_config
    # by vLLM's loader before any runner reads it
    Fact("speculators.dflash-mask-mapped", V, True, "start-up",
         "vllm==0.20.0 transformers_utils/configs/speculators/algos.py:71-74; V :117-120",
         since="0.20.0"),
    Fact("dflash.mask-sources", S, ("/dflash_config/mask_token_id", "/mask_token_id"),
         "silent", "S speculative/dflash_utils.py:677-702 (else the string <|MASK|>, :27)",
         since="0.5.18"),
    Fact("dflash.mask-sources", S, ("/dflash_config/mask_token_id",), "silent",
         "sglang==0.5.11 speculative/dflash_utils.py:373 (top-level mask_token_id not read)",
         since="0.5.11", until="0.5.18"),
    Fact("dflash.mask-sources", R, ("/dflash_config/mask_token_id",), "start-up",
         "ZL dflash/model.py:312-320 (AttributeError without dflash_config)"),

    # DFlash: taps, as (pointer, shift to the runtime's capture index)
    Fact("dflash.tap-sources", V,
         (("/eagle_aux_hidden_state_layer_ids", 0), ("/dflash_config/target_layer_ids", 1),
          ("/dspark_target_layer_ids", 1), ("/target_layer_ids", 1)), "silent",
         "vllm==0.25.0 v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:35-58; V :113-150 (V2; "
         "fallback (2, L//2, L-3) at :34-39; dspark ids +1 except deepseek_v41, :126-135)",
         since="0.25.0", path="v2"),
    Fact("dflash.tap-sources", V,
         (("/eagle_aux_hidden_state_layer_ids", 0), ("/dflash_config/target_layer_ids", 1)),
         "silent", "vllm==0.24.0 v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:35-49 (V2)",
         since="0.24.0", until="0.25.0", path="v2"),
    Fact("dflash.tap-sources", V,
         (("/eagle_aux_hidden_state_layer_ids", 0),
          ("/eagle_config/eagle_aux_hidden_state_layer_ids", 0),
          ("/dflash_config/target_layer_ids", 1)), "silent",
         "vllm==0.22.0 v1/worker/gpu_model_runner.py:5241-5256 (V1: a nested eagle_config id "
         "list overrides the dflash ids)", since="0.22.0", until="0.34.0", path="v1"),
    Fact("dflash.tap-sources", V,
         (("/eagle_aux_hidden_state_layer_ids", 0), ("/dflash_config/target_layer_ids", 0)),
         "silent", "vllm==0.20.0 v1/worker/gpu_model_runner.py:4961-4966 (V1: target_layer_ids "
         "taken without the +1 that z-lab adds)", since="0.20.0", until="0.22.0", path="v1"),
    Fact("dflash.tap-sources", V, (("/eagle_aux_hidden_state_layer_ids", 0),), "silent",
         "vllm==0.21.0 v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:35-45 (V2 reads no "
         "DFlash taps: the target's default layers)", since="0.20.0", until="0.24.0",
         path="v2"),
    Fact("dflash.tap-sources", S,
         (("/dflash_config/target_layer_ids", 1), ("/target_layer_ids", 1)), "silent",
         "S speculative/dflash_utils.py:598-612, 656-670 (else from num_target_layers)",
         since="0.5.11"),
    # SGLang's target depth for a DFlash draft without num_target_layers, against which the
    # written taps are range-checked ("draft-depth": the draft's own num_hidden_layers)
    Fact("dflash.depth-without-num-target-layers", S, "max-tap", "start-up",
         "sglang==0.5.18 models/dflash.py:387-392 (max(target_layer_ids) + 1)", since="0.5.18"),
    Fact("dflash.depth-without-num-target-layers", S, "draft-depth", "start-up",
         "sglang==0.5.17 models/dflash.py:361-368; speculative/dflash_utils.py range check "
         "(a tap at or above the draft's own layer count refuses to start)",
         since="0.5.11", until="0.5.18"),
    Fact("dflash.derives-missing-taps", S, True, "silent",
         "S speculative/dflash_utils.py:568-571 (build_target_layer_ids(num_target_layers))",
         since="0.5.11"),
    Fact("dflash.tap-sources", R, (("/dflash_config/target_layer_ids", 1),), "silent",
         "ZL dflash/model.py:39-45, 312-314 (hidden_states[id + 1])"),
    # Can a tap on the target's last layer (id L-1) be captured?
    Fact("dflash.captures-last-layer", V, True, "silent",
         "V model_executor/models/llama.py:429-441, qwen2.py:424-434 (captures idx+1 == L)",
         since="0.20.0"),
    Fact("dflash.captures-last-layer", S, False, "silent",
         "S models/qwen2.py:455-464 (captures layer inputs for i < L only), qwen3.py:803-805",
         since="0.5.11"),
    Fact("dflash.captures-last-layer", R, True, "silent",
         "ZL dflash/model.py:39-45 (output_hidden_states has L + 1 entries)"),
    # Does the runtime check taps against the drafter's own num_target_layers?
    Fact("dflash.checks-num-target-layers", V, False, "ignored",
         "V model_executor/models/qwen3_dflash.py:838-845 (checks the real target only)",
         since="0.20.0"),
    Fact("dflash.checks-num-target-layers", S, True, "start-up",
         "S speculative/dflash_utils.py:579-584", since="0.5.11"),
    Fact("dflash.requires-num-target-layers", R, True, "start-up",
         "ZL dflash/model.py:312-314 (eager default build_target_layer_ids(num_target_layers))"),

    # DFlash: attention windows and causality
    Fact("dflash.null-window-with-sliding-layers", V, "start-up", "start-up",
         "V model_executor/models/qwen3_dflash.py:145-154 (requires a window size)",
         since="0.25.0"),
    Fact("dflash.null-window-with-sliding-layers", V, "silent", "silent",
         "vllm==0.24.0 model_executor/models/qwen3_dflash.py:50-120 (layer_types not read: every "
         "layer full attention)", since="0.20.0", until="0.25.0"),
    Fact("dflash.null-window-with-sliding-layers", S, "start-up", "start-up",
         "S speculative/dflash_utils.py:400-414", since="0.5.14"),
    Fact("dflash.null-window-with-sliding-layers", S, "silent", "silent",
         "sglang==0.5.11 models/dflash.py:118 (layer_types not read: every layer unwindowed)",
         since="0.5.11", until="0.5.14"),
    Fact("dflash.null-window-with-sliding-layers", R, "silent", "silent",
         "ZL dflash/model.py:194-209 (sliding layers run unwindowed)"),
    Fact("dflash.window-sources", V, ("/dflash_config/swa_window_size", "/sliding_window"),
         "start-up", "V model_executor/models/qwen3_dflash.py:145-149", since="0.25.0"),
    Fact("dflash.window-sources", V, (), "ignored",
         "vllm==0.24.0 model_executor/models/qwen3_dflash.py (no window read)",
         since="0.20.0", until="0.25.0"),
    Fact("dflash.window-sources", S, ("/sliding_window",), "start-up",
         "S speculative/dflash_utils.py:400-414 (swa_window_size for Nemotron-3.5 only)",
         since="0.5.14"),
    Fact("dflash.window-sources", S, (), "ignored",
         "sglang==0.5.11 models/dflash.py:118 (no window read)", since="0.5.11", until="0.5.14"),
    Fact("dflash.window-sources", R, ("/sliding_window",), "silent",
         "ZL dflash/model.py:194-209"),
    # dflash_config.use_swa: every layer slides (MiMo-style drafters)
    Fact("dflash.reads-use-swa", V, True, "silent",
         "V model_executor/models/qwen3_dflash.py:96-144", since="0.25.0"),
    Fact("dflash.reads-use-swa", V, False, "ignored",
         "vllm==0.24.0 model_executor/models/qwen3_dflash.py (no use_swa)",
         since="0.20.0", until="0.25.0"),
    Fact("dflash.reads-use-swa", S, False, "ignored", "S speculative/dflash_utils.py:400-414",
         since="0.5.11"),
    Fact("dflash.reads-use-swa", R, False, "ignored", "ZL dflash/model.py:194-209"),
    # Which keys decide causality, in order; "sliding" = causal iff the layer slides
    Fact("dflash.causal-sources", V, ("/is_causal", "/dflash_config/causal", "sliding"),
         "silent", "V model_executor/models/qwen3_dflash.py:62-73", since="0.28.0"),
    Fact("dflash.causal-sources", V, ("/dflash_config/causal", "sliding"), "silent",
         "vllm==0.26.0 model_executor/models/qwen3_dflash.py:55-64", since="0.26.0",
         until="0.28.0"),
    Fact("dflash.causal-sources", V, ("/dflash_config/causal", "non-causal"), "silent",
         "vllm==0.23.0 v1/spec_decode/dflash.py:71 (one flag for every layer, default False)",
         since="0.23.0", until="0.26.0"),
    Fact("dflash.causal-sources", V, ("non-causal",), "silent",
         "vllm==0.20.0 v1/spec_decode/dflash.py:176 (causal=False for every layer)",
         since="0.20.0", until="0.23.0"),
    Fact("dflash.causal-sources", S, ("/is_causal", "sliding"), "silent",
         "S models/dflash.py:157-191 (dflash_config.causal is not read)", since="0.5.18"),
    Fact("dflash.causal-sources", S, ("sliding",), "silent",
         "sglang==0.5.14 models/dflash.py:44-66 (full layers non-causal, sliding causal; "
         "is_causal not read)", since="0.5.14", until="0.5.17"),
    Fact("dflash.causal-sources", S, ("non-causal",), "silent",
         "sglang==0.5.11 models/dflash.py:118 (every layer ENCODER_ONLY)", since="0.5.11",
         until="0.5.14"),
    Fact("dflash.causal-sources", R, ("non-causal",), "silent",
         "ZL dflash/model.py:118, 194 (every layer non-causal)"),
    # speculators DFlash: sliding_window_non_causal becomes one causal flag for every layer
    Fact("speculators.non-causal-flag-global", V, True, "silent",
         "V transformers_utils/configs/speculators/algos.py:122-126 with "
         "model_executor/models/qwen3_dflash.py:62-69 (per-layer fix: open PR #56692)",
         since="0.26.0"),
    Fact("dflash.block-size-sources", V, (), "ignored",
         "V config/speculative.py:1596 (read for DSpark only)", since="0.20.0"),
    Fact("dflash.block-size-sources", S, ("/dflash_config/block_size", "/block_size"), "silent",
         "S speculative/dflash_utils.py:608-616 (default 16)", since="0.5.11"),
    Fact("dflash.block-size-sources", R, ("/block_size",), "start-up",
         "ZL dflash/model.py:319 (config.block_size)"),
    # Is the last-layer draft token count block_size - 1 (vLLM) or block_size (SGLang)?
    Fact("dflash.tokens-per-block", V, -1, "silent",
         "V transformers_utils/configs/speculators/algos.py:104-106; z-lab README.md:55-60 "
         "(block_size - 1); vllm==0.34.0 v1/worker/gpu/spec_decode/dflash/config.py:53-56 "
         "(a bonus query plus one per draft token)", since="0.20.0"),
    Fact("dflash.tokens-per-block", S, 0, "start-up",
         "S arg_groups/speculative_hook.py:333, 373-383 (draft tokens = block size)",
         since="0.5.11"),
    # DSpark: slot 0 predicts (anchor-first) unless sample_from_anchor is false (1 + N,
    # the anchor is the bonus token); draft tokens per trained block in each layout
    Fact("dspark.tokens-per-block", V, {"anchor-first": 0, "bonus-anchor": -1}, "silent",
         "V v1/worker/gpu/spec_decode/dspark/speculator.py:49-55; config/speculative.py:"
         "1592-1599 (default num_speculative_tokens = block_size or dspark_block_size)",
         since="0.27.0"),
    Fact(TARGET_ALGORITHMS, S, {"DeepseekV4ForCausalLM": frozenset({"EAGLE", "DSPARK"})},
         "start-up", "S arg_groups/deepseek_v4_hook.py:148-153 (sglang==0.5.23: \"Only EAGLE "
         "and DSPARK speculative algorithms are supported\")", since="0.5.16",
         seen=Seen(S_V4_HOOK, r"Only EAGLE and DSPARK speculative algorithms are supported")),
    Fact(TARGET_ALGORITHMS, S, {"DeepseekV4ForCausalLM": frozenset({"EAGLE"})}, "start-up",
         "sglang==0.5.12 arg_groups/deepseek_v4_hook.py:36-39 (\"Only EAGLE speculative "
         "algorithm is supported\")", since="0.5.12", until="0.5.16",
         seen=Seen(S_V4_HOOK, r"Only EAGLE speculative algorithm is supported for")),
    Fact(BELOW_BLOCK, V, True, "start-up",
         "V config/speculative.py:1004-1027 (vllm==0.26.0; 0.27.1 :1035-1058: \"DSpark "
         "requires num_speculative_tokens >= dspark_block_size\")", since="0.26.0",
         until="0.28.0",
         seen=Seen("vllm/config/speculative.py",
                   r"self\.num_speculative_tokens < dspark_block_size")),
    Fact("dspark.tokens-per-block", S, {"anchor-first": 1}, "silent",
         "S speculative/dspark_components/dspark_config.py:51-58, 100-117 (gamma = "
         "--speculative-num-draft-tokens - 1; a gamma unlike the config's only warns)",
         since="0.5.16"),
    Fact("dspark.sample-from-anchor-default", S, {"native": True}, "silent",
         "S speculative/dspark_components/dspark_config.py:29-31, dspark_draft.py:350-351 "
         "(gamma query rows, anchor-first, unless sample_from_anchor is false)", since="0.5.19"),
    Fact("dspark.sample-from-anchor-default", V, {"native": True, "speculators": False},
         "silent", "V v1/worker/gpu/spec_decode/dspark/speculator.py:49-51; "
         "transformers_utils/configs/speculators/algos.py:188-190", since="0.27.0"),

    # `vllm serve SPECULATOR`: the verifier must be a hub repo id, not a local path
    Fact("speculators.verifier-must-be-a-repo", V, True, "start-up",
         "V transformers_utils/config.py:860-873 (\"Speculators verifier must name a remote "
         "model repository\")", since="0.33.0"),
    Fact("speculators.verifier-must-be-a-repo", V, False, "start-up",
         "vllm==0.32.0 transformers_utils/config.py:809-811 (a local verifier path is used as "
         "given)", since="0.10.1", until="0.33.0"),
    # vLLM's V2 DFlash speculator refuses dflash_config.sample_from_anchor: true
    Fact("dflash.sample-from-anchor-refused", V, True, "start-up",
         "vllm==0.27.0 v1/worker/gpu/spec_decode/dflash/speculator.py:64-68; V :80-89 (V2 "
         "runner only)", since="0.27.0", path="v2"),
    Fact("dflash.sample-from-anchor-refused", V, False, "ignored",
         "vllm==0.28.0 v1/spec_decode/dflash.py (V1 never reads the key)", since="0.27.0",
         until="0.34.0", path="v1"),
    Fact("dflash.sample-from-anchor-refused", V, False, "ignored",
         "vllm==0.26.0 v1/worker/gpu/spec_decode/dflash/speculator.py:60 (the key is not read; "
         "V1 never reads it)", since="0.20.0", until="0.27.0"),
    # DSpark classes served only with num_speculative_tokens == the trained block
    Fact("dspark.exact-token-architectures", V, frozenset({"Qwen3OmniDSparkModel"}),
         "start-up", "V config/speculative.py:167-202, 1669-1676 (Qwen3-Omni DSpark)",
         since="0.29.0"),
    Fact("dspark.exact-token-architectures", V, frozenset(), "start-up",
         "vllm==0.28.0 config/speculative.py (no block check for DSpark)", since="0.25.0",
         until="0.29.0"),
    # Where the DSpark Markov-head rank is read (first found wins); it must be > 0
    # The draft model types vLLM keeps as a self-contained `DSparkDraftModel` draft; any other
    # is rewritten to DeepSeek-V4's DSpark (model_type deepseek_v4), which reads the full
    # DeepSeek-V4 config (hc_mult, ...) and refuses a Qwen3-shaped draft
    Fact("dspark.self-contained-model-types", V, (), "start-up",
         "vllm==0.25.0 config/speculative.py:899-908; vllm==0.28.0 config/speculative.py:"
         "1013-1025 (every draft not named Qwen3DSparkModel becomes deepseek_v4)",
         since="0.25.0", until="0.29.0"),
    Fact("dspark.self-contained-model-types", V, ("qwen3",), "start-up",
         "vllm==0.29.0 config/speculative.py:1299-1302, 1360-1368; V config/speculative.py:"
         "1534-1542 (a qwen3 DSparkDraftModel is served as Qwen3DSparkModel; vllm==0.34.0 "
         "config/speculative.py:788-795)",
         since="0.29.0"),
    # When vLLM's Qwen3 DSpark refuses a draft that ships no d2t map: its draft_vocab_size
    # (vocab_size when unset) "differs" from the target's vocab_size, or is "smaller"
    Fact("dspark.d2t-required-when", V, "differs", "start-up",
         "vllm==0.29.0 model_executor/models/qwen3_dspark.py:284, 295-299 (uses_reduced_vocab "
         "= draft_vocab_size != target vocab: 'must include a d2t mapping'; vLLM #55133)",
         since="0.29.0", until="0.30.0"),
    Fact("dspark.d2t-required-when", V, "smaller", "start-up",
         "vllm==0.30.0 model_executor/models/qwen3_dspark.py:257-260, 340, 351-355 (only a "
         "draft_vocab_size below the target's is a pruned vocabulary)", since="0.30.0",
         until="0.34.0"),
    Fact("dspark.d2t-required-when", V, "never", "silent",
         "vllm==0.34.0 model_executor/models/qwen3_dspark.py:263-273, 288-292 (a smaller "
         "draft gets a zero d2t parameter and no refusal: without a shipped map it stays at "
         "init, the identity)", since="0.34.0"),
    Fact("dspark.markov-rank-sources", V, ("/markov_rank",), "start-up",
         "V model_executor/models/qwen3_dspark.py:212, gemma4_dspark.py:190 (no default)",
         since="0.25.0"),
    # a DeepSeek-V4 target carrying its DSpark stages (the target's own config is the draft's,
    # config/speculative.py:1552-1566 in 0.33.0) reads the prefixed field, with no default
    Fact(EMBEDDED_RANK, V, ("/dspark_markov_rank",), "start-up",
         "V models/deepseek_v4/nvidia/dspark.py:116-120 (DSparkMarkovHead(..., "
         "config.dspark_markov_rank); 0.33.0 :172, 178)", since="0.25.0",
         seen=Seen("vllm/models/deepseek_v4/nvidia/dspark.py",
                   r"DSparkMarkovHead\(\s*[^)]*config\.dspark_markov_rank")),
    Fact("dspark.markov-rank-sources", S, ("/markov_rank",), "start-up",
         "S models/dspark.py:385-390 (build_markov_head: config.markov_rank, default 0, "
         "refused), 524-528; the parser also reads dflash_config.markov_rank "
         "(speculative/dspark_components/dspark_config.py:239-251), the model does not",
         since="0.5.16"),

    # Which drafter families each runtime serves, and how
    Fact("serves.dflash", V, True, "start-up",
         "V model_executor/models/registry.py:664 (DFlashDraftModel)", since="0.20.0"),
    Fact("serves.dflash", S, True, "start-up",
         "sglang==0.5.11 sglang/srt/models/dflash.py:399 (EntryClass DFlashDraftModel; no "
         "models/dflash.py in 0.5.10)", since="0.5.11"),
    Fact("serves.dflash", R, True, "start-up", "ZL dflash/model.py:303"),
    Fact("serves.eagle3", V, True, "start-up", "V model_executor/models/registry.py:698-713",
         since="0.8.5"),
    Fact("serves.eagle3", S, True, "start-up", "S models/llama_eagle3.py", since="0.4.4.post2"),
    Fact("serves.eagle", V, True, "start-up", "V config/speculative.py:74-82 (eagle)",
         since="0.8.0"),
    Fact("serves.eagle", S, True, "start-up", "S arg_groups/fields/spec.py:31-34 (EAGLE)",
         since="0.4.1.post4"),
    Fact("serves.mtp", V, True, "start-up", "V config/speculative.py:38-67, 1246-1268",
         since="0.8.0"),
    Fact("serves.mtp", S, True, "start-up",
         "S arg_groups/speculative_hook.py:109-117 (NEXTN is EAGLE with the target's MTP)",
         since="0.4.3.post1"),
    Fact("serves.dflash2", V, "v2-runner", "start-up",
         "V model_executor/models/registry.py:666; v1/worker/gpu/spec_decode/__init__.py:42-47;"
         " V1 refuses it (config/vllm.py:3133-3137); vllm==0.34.0 v1/worker/gpu/spec_decode/"
         "dflash2/speculator.py:196 (V2, the only runner)", since="0.28.0"),
    Fact("serves.dflash2", S, True, "start-up",
         "sglang==0.5.19 sglang/srt/models/dflash.py:1066 (DFlash2DraftModel; S :1264; "
         "absent in 0.5.18)", since="0.5.19"),
    Fact("serves.dflash2", R, False, "start-up", "ZL dflash/model.py (DFlash v1 only)"),
    Fact("serves.medusa", V, False, "start-up",
         "V config/speculative.py:74-82 (no medusa method since its removal)", since="0.33.0"),
    Fact("serves.medusa", V, True, "start-up",
         "vLLM before 0.33 shipped transformers_utils/configs/medusa.py",
         since="0.8.0", until="0.33.0"),
    Fact("serves.medusa", S, False, "start-up",
         "S arg_groups/fields/spec.py:31-34 (no MEDUSA algorithm)", since="0.4.1.post4"),
    Fact("serves.dspark", V, True, "start-up",
         "V model_executor/models/registry.py (DSparkDraftModel, Qwen3DSparkModel); "
         "v1/worker/gpu/spec_decode/dspark/speculator.py", since="0.25.0"),
    Fact("serves.dspark", S, True, "start-up",
         "sglang==0.5.16 sglang/srt/models/dspark.py:509 (EntryClass Qwen3DSparkModel; no "
         "models/dspark.py in 0.5.15)", since="0.5.16"),
    Fact("serves.speculators", V, ("eagle3", "peagle", "dflash", "dflash2", "dspark"),
         "start-up", "V transformers_utils/configs/speculators/algos.py:15-195", since="0.29.0"),
    Fact("serves.speculators", V, ("eagle3", "peagle", "dflash", "dspark"), "start-up",
         "vllm==0.25.0 transformers_utils/configs/speculators/algos.py (dspark registered)",
         since="0.25.0", until="0.29.0"),
    Fact("serves.speculators", V, ("eagle3", "peagle", "dflash"), "start-up",
         "vllm==0.22.0 transformers_utils/configs/speculators/algos.py (peagle registered)",
         since="0.22.0", until="0.25.0"),
    Fact("serves.speculators", V, ("eagle3", "dflash"), "start-up",
         "vllm==0.20.0 transformers_utils/configs/speculators/algos.py (dflash registered)",
         since="0.20.0", until="0.22.0"),
    Fact("serves.speculators", V, ("eagle3",), "start-up",
         "vllm==0.10.1 transformers_utils/configs/speculators/algos.py:16", since="0.10.1",
         until="0.20.0"),
    Fact("serves.speculators", V, (), "start-up",
         "vllm==0.10.0 has no transformers_utils/configs/speculators/", since="0.8.0",
         until="0.10.1"),
    Fact("serves.speculators", S, (), "start-up",
         "S has no speculators_config reader (no match in sglang/srt)", since="0.4.1.post4"),
    Fact("launch.methods", V, {
        "dflash": ("dflash",), "dflash2": ("dflash",), "dspark": ("dspark",),
        "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": ("mtp",), "medusa": (),
        "speculators": (None, "eagle3", "dflash", "dspark")}, "start-up",
        "V config/speculative.py:38-82 (method names; *_mtp aliases map to mtp at :1246-1250)",
        since="0.33.0"),
    Fact("launch.methods", V, {
        "dflash": ("dflash",), "dflash2": ("dflash",), "dspark": ("dspark",),
        "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": ("mtp",), "medusa": ("medusa",),
        "speculators": (None, "eagle3", "dflash", "dspark")}, "start-up",
        "vllm==0.32.0 config/speculative.py:75 (medusa is a method)",
         since="0.28.0", until="0.33.0"),
    Fact("launch.methods", V, {
        "dflash": ("dflash",), "dspark": ("dspark",), "eagle3": ("eagle3",), "eagle": ("eagle",),
        "mtp": ("mtp",), "medusa": ("medusa",),
        "speculators": (None, "eagle3", "dflash", "dspark")},
        "start-up", "vllm==0.25.0 config/speculative.py:60, 64 (DSparkModelTypes)",
        since="0.25.0", until="0.28.0"),
    Fact("launch.methods", V, {
        "dflash": ("dflash",), "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": ("mtp",),
        "medusa": ("medusa",), "speculators": (None, "eagle3", "dflash")}, "start-up",
        "vllm==0.20.0 config/speculative.py:53 (DFlashModelTypes)", since="0.20.0",
        until="0.25.0"),
    # SpeculativeConfig a pydantic dataclass: a method name outside its Literal is refused
    # ("Input should be ..."); before 0.9.1 a plain dataclass checked no name
    Fact("launch.method-names-validated", V, True, "start-up",
         "vllm==0.9.1 config.py:27 (from pydantic.dataclasses import dataclass)",
         since="0.9.1"),
    Fact("launch.method-names-validated", S, True, "start-up",
         "sglang==0.4.3 server_args.py:705-708 (argparse choices); S speculative/spec_info.py "
         "(Unknown speculative algorithm name, from 0.5.5)", since="0.4.1.post4",
         seen=Seen("sglang/srt/**/*.py", r'"--speculative-algorithm",\s*\n\s*type=str,\s*\n'
                   r'\s*choices=|Unknown speculative algorithm')),
    Fact("launch.methods", V, {
        "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": ("mtp",), "medusa": ("medusa",),
        "speculators": (None, "eagle3")}, "start-up",
        "vllm==0.11.0 config/speculative.py:32-37, 213-216 (mtp)", since="0.11.0",
        until="0.20.0"),
    Fact("launch.methods", V, {
        "eagle3": ("eagle3",), "eagle": ("eagle",),
        "mtp": ("deepseek_mtp", "ernie_mtp", "qwen3_next_mtp"), "medusa": ("medusa",),
        "speculators": (None, "eagle3")}, "start-up",
        "vllm==0.10.2 config/__init__.py:1897-1899, 2154-2172", since="0.10.2", until="0.11.0"),
    Fact("launch.methods", V, {
        "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": ("deepseek_mtp",),
        "medusa": ("medusa",), "speculators": (None, "eagle3")}, "start-up",
        "vllm==0.10.1 config/__init__.py:1903-1904, 2146-2147", since="0.10.1", until="0.10.2"),
    Fact("launch.methods", V, {
        "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": ("deepseek_mtp",),
        "medusa": ("medusa",), "speculators": ()}, "start-up",
        "vllm==0.9.0 config.py:2518-2530 (deepseek_mtp)", since="0.9.0", until="0.10.1"),
    Fact("launch.methods", V, {
        "eagle3": ("eagle3",), "eagle": ("eagle",), "mtp": (None,), "medusa": ("medusa",),
        "speculators": ()}, "start-up",
        "vllm==0.8.5 config.py:2292-2299 (MTP: no method), 2377-2388", since="0.8.5",
        until="0.9.0"),
    Fact("launch.methods", S, {
        "dflash": ("DFLASH",), "dflash2": ("DFLASH",), "dspark": ("DSPARK",),
        "eagle3": ("EAGLE3",), "eagle": ("EAGLE",), "mtp": ("NEXTN", "EAGLE"), "medusa": (),
        "speculators": ()}, "start-up",
        "S arg_groups/fields/spec.py:31-34; arg_groups/speculative_hook.py:109-143 (upper-cased)",
         since="0.5.16"),
    Fact("launch.methods", S, {
        "dflash": ("DFLASH",), "dflash2": ("DFLASH",), "dspark": (), "eagle3": ("EAGLE3",),
        "eagle": ("EAGLE",), "mtp": ("NEXTN", "EAGLE"), "medusa": (), "speculators": ()},
        "start-up", "sglang==0.5.11 server_args.py:5367, speculative/spec_info.py:18 (DFLASH)",
        since="0.5.11", until="0.5.16"),
    Fact("launch.methods", S, {
        "dflash": (), "dflash2": (), "dspark": (), "eagle3": ("EAGLE3",), "eagle": ("EAGLE",),
        "mtp": ("NEXTN", "EAGLE"), "medusa": (), "speculators": ()}, "start-up",
        "sglang==0.5.0rc0 server_args.py:1422 (choices EAGLE, EAGLE3, NEXTN), 620-622",
        since="0.4.4.post2", until="0.5.11"),
    Fact("launch.methods", S, {
        "dflash": (), "dflash2": (), "dspark": (), "eagle3": (), "eagle": ("EAGLE",),
        "mtp": ("NEXTN", "EAGLE"), "medusa": (), "speculators": ()}, "start-up",
        "sglang==0.4.4 server_args.py:758 (choices EAGLE, NEXTN), 276", since="0.4.3.post1",
        until="0.4.4.post2", seen=Seen("sglang/srt/server_args.py", r'choices=\["EAGLE", "NEXTN"\]')),
    Fact("launch.methods", S, {
        "dflash": (), "dflash2": (), "dspark": (), "eagle3": (), "eagle": ("EAGLE",),
        "mtp": (), "medusa": (), "speculators": ()}, "start-up",
        "sglang==0.4.3 server_args.py:708 (choices EAGLE)", since="0.4.1.post4", until="0.4.3.post1",
        seen=Seen("sglang/srt/server_args.py", r'choices=\["EAGLE"\]')),

    # EAGLE-3 aux hidden-state ids
    Fact("eagle3.aux-sources", V, ("/eagle_aux_hidden_state_layer_ids",), "silent",
         "vllm==0.22.0 v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:35-44; V :113-150 (V2 "
         "runner, the default for dense targets from 0.22.0; nested eagle_config ids are never "
         "read)", since="0.17.0", path="v2"),
    Fact("eagle3.aux-sources", V,
         ("/eagle_aux_hidden_state_layer_ids", "/eagle_config/eagle_aux_hidden_state_layer_ids"),
         "silent", "vllm==0.22.0 v1/worker/gpu_model_runner.py:5241-5253 (V1)", since="0.22.0",
         until="0.34.0", path="v1"),
    Fact("eagle3.aux-sources", V, ("/eagle_aux_hidden_state_layer_ids",), "silent",
         "vllm==0.16.0 v1/worker/gpu_model_runner.py:4306-4311 (V1)", since="0.11.1",
         until="0.22.0", path="v1"),
    Fact("eagle3.aux-sources", V, (), "silent",
         "vllm==0.10.2 v1/worker/gpu_model_runner.py:2384-2385 (ids never read: the target's "
         "default (2, L//2, L-3))", since="0.8.5", until="0.11.1"),
    Fact("eagle3.aux-sources", S, ("/eagle_config/eagle_aux_hidden_state_layer_ids",),
         "silent", "S model_executor/model_runner_components/spec_aux_hidden_state.py:186-196",
         since="0.4.9"),
    Fact("eagle3.aux-sources", S, (), "silent",
         "sglang==0.4.8 models/llama.py:700-706 (ids never read: the target's default "
         "(2, L//2, L-3))", since="0.4.4.post2", until="0.4.9",
         seen=Seen("sglang/srt/models/llama.py",
                   r"self\.model\.layers_to_capture = \[2, num_layers // 2, num_layers - 3\]",
                   also_not=(("sglang/srt/**/*.py", r"eagle_aux_hidden_state_layer_ids"),))),
    # "input": id k is the residual entering layer k; "output": id k is layer k's output
    Fact("eagle3.aux-convention", V, "input", "silent",
         "V model_executor/models/interfaces.py:1640-1650; llama.py:439-441", since="0.8.5"),
    Fact("eagle3.aux-convention", S, "output", "silent",
         "S models/llama.py:939-941, qwen3.py:791 (+1 added at capture)", since="0.4.9"),
    # Is an aux id equal to the target's depth L (the last layer's output, before the final
    # norm) captured? (what most targets do, the model types whose class does otherwise)
    Fact(FINAL_OUTPUT, V, (False, frozenset()), "start-up",
         "vllm==0.17.1 model_executor/models/llama.py:424 (captured before layer idx < L)",
         since="0.8.5", until="0.18.0",
         seen=Seen(V_LLAMA, r"if idx in self\.aux_hidden_state_layers:")),
    Fact(FINAL_OUTPUT, V, (True, DEEPSEEK_CLASS), "start-up",
         "vllm==0.18.0 model_executor/models/llama.py:427 (id idx + 1 after layer idx); "
         "vllm==0.24.0 deepseek_v2.py:1339 (before the layer only)",
         since="0.18.0", until="0.25.0",
         seen=Seen(V_LLAMA, V_AFTER_LAYER, also=((V_DEEPSEEK, r"if idx in self\.aux_hidden_state_layers:"),),
                   also_not=((V_DEEPSEEK, V_DEEPSEEK_END),))),
    Fact(FINAL_OUTPUT, V, (True, frozenset()), "start-up",
         "V model_executor/models/llama.py:440, gpt_oss.py:532 (id i + 1 after layer i); "
         "vllm==0.25.0 deepseek_v2.py:1489 (end_layer too)", since="0.25.0",
         seen=Seen(V_LLAMA, V_AFTER_LAYER, also=((V_DEEPSEEK, V_DEEPSEEK_END),))),
    Fact(FINAL_OUTPUT, S, (False, frozenset()), "start-up",
         "sglang==0.5.20 models/llama.py (id + 1 captured before layer i < L), gpt_oss.py:1361"
         "-1364 (ids kept when the largest is L, but L never captured; sglang#32226)",
         since="0.4.9", until="0.5.21",
         seen=Seen(S_LLAMA, S_SHIFTED, also_not=((S_GPT_OSS, S_GPT_OSS_END),))),
    Fact(FINAL_OUTPUT, S, (False, frozenset({"gpt_oss"})), "start-up",
         "S models/llama.py:486-492, 941 (id + 1 captured before layer i < L); "
         "gpt_oss.py:732-741, 1347-1352 (ids kept when the largest is L, L captured after "
         "the last layer)", since="0.5.21",
         seen=Seen(S_LLAMA, S_SHIFTED, also=((S_GPT_OSS, S_GPT_OSS_END),))),
    Fact(EXTEND_BUFFER, S, True, "start-up",
         "sglang==0.4.9 speculative/eagle_draft_extend_cuda_graph_runner.py:83-89 (3 x "
         "hidden_size for EAGLE-3; from 0.4.9.post3 :86-95 target_hidden_size when set)",
         since="0.4.7", until="0.4.9.post3",
         seen=Seen(S_EXTEND, r"is_eagle3\(\):\s*\n\s*self\.hidden_states = torch\.zeros\(\s*\n"
                   r"\s*\(\s*\n\s*self\.max_num_token,\s*\n\s*self\.model_runner\.model_config"
                   r"\.hidden_size \* 3,")),
    # Target model types for which SGLang adds +1 only when the first id is 1 (PR #25454)
    Fact("eagle3.aux-shift-if-first-is-one", S,
         frozenset({"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_k25",
                    "glm4_moe_lite"}), "silent",
         "S models/deepseek_v2.py:3470-3473, glm4_moe_lite.py:817-820", since="0.5.13"),
    Fact("eagle3.aux-shift-if-first-is-one", S, frozenset(), "silent",
         "sglang==0.5.12 models/deepseek_v2.py:2539-2541 (+1 whatever the first id)",
         since="0.4.1.post4", until="0.5.13"),
    # EAGLE-3 draft classes built with exactly one layer (others build num_hidden_layers:
    # V llama_eagle3.py:198-207, S models/llama_eagle3.py:198-204)
    Fact("eagle3.one-layer-architectures", S, frozenset({"Eagle3DeepseekV2ForCausalLM"}),
         "start-up", "S models/kimi_k25_eagle3.py:243-244, 315, 523 (Eagle3MLAModel: "
         "\"EAGLE3 currently only supports 1 layer\")", since="0.5.12"),
    Fact("eagle3.one-layer-architectures", S, frozenset({"LlamaForCausalLMEagle3"}), "start-up",
         "sglang==0.5.11 models/llama_eagle3.py:212-213 (\"EAGLE3 currently only supports 1 "
         "layer\"; from 0.5.0rc0 :180-181)", since="0.4.4.post2", until="0.5.12"),
    # Hybrid (linear-attention) targets whose speculative decoding SGLang refuses with the
    # radix cache on and the default mamba scheduling (no_buffer); BailingMoeV2_5 left out
    # (0.5.10-0.5.12 turn its radix cache off), NemotronH through its hook from 0.5.12
    Fact("sglang.hybrid-spec-refuses-radix", S, frozenset({
        "FalconH1ForCausalLM", "GraniteMoeHybridForCausalLM", "JetNemotronForCausalLM",
        "JetVLMForConditionalGeneration", "Lfm2ForCausalLM", "NemotronHForCausalLM",
        "Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForConditionalGeneration", "InternS2PreviewForConditionalGeneration",
        "MiniCPMV4_6ForConditionalGeneration"}), "start-up",
         "sglang==0.5.11 server_args.py:2419-2456 (_handle_mamba_radix_cache: no_buffer with "
         "radix cache and a speculative algorithm raises), 2186-2240 (the Qwen3-Next/3.5 "
         "branch); sglang==0.5.12 arg_groups/nemotron_h_hook.py (NemotronH)",
         since="0.5.10", until="0.5.14"),
    # Whether vLLM takes EAGLE (and EAGLE-3) to its V1 engine only when VLLM_USE_V1=1 is
    # set, falling back to V0 (whose EAGLE model is EAGLE-1's, fc 2x hidden) otherwise
    Fact("eagle3.v0-unless-v1-asked", V, True, "start-up",
         "vllm==0.8.5 engine/arg_utils.py:1488-1490, 1661-1673 (_warn_or_fallback; from 0.8.3); "
         "model_executor/models/eagle.py:83-85 (V0's EAGLE: fc of 2x hidden)",
         since="0.8.3", until="0.9.0"),
    # Whether vLLM always puts the target's embedding in the EAGLE-3 head's place (no
    # parameter for a shipped embed_tokens.weight; the target's width beside the head's)
    Fact("eagle3.embedding-always-shared", V, True, "start-up",
         "vllm==0.9.0 model_executor/models/llama_eagle3.py:97-103, 131; v1/spec_decode/"
         "eagle.py:330-336; model_executor/models/utils.py:261-263 (vLLM #18906)",
         since="0.9.0", until="0.9.1"),
    Fact("eagle3.embedding-always-shared", V, False, "start-up",
         "vllm==0.9.1 model_executor/models/llama_eagle3.py:97-100, 240-257 "
         "(includes_embed_tokens); v1/spec_decode/eagle.py:332-341 (vLLM #19033)",
         since="0.9.1"),
    # Whether SGLang copies the draft's logits, as wide as its LM head padded to 64, into a
    # draft-extend CUDA graph buffer draft_vocab_size wide (a width mismatch crashes capture)
    Fact("eagle3.draft-extend-logits-copied-whole", S, True, "start-up",
         "sglang==0.5.2 speculative/eagle_draft_extend_cuda_graph_runner.py:133-147 (buffer "
         "draft_vocab_size wide); layers/logits_processor.py:516 (copy_ of logits[:, :vocab_size]); "
         "layers/vocab_parallel_embedding.py:36, 240-244 (LM head padded to 64; SGLang #10106)",
         since="0.4.10.post2", until="0.5.15"),
    Fact("eagle3.draft-extend-logits-copied-whole", S, False, "start-up",
         "sglang==0.5.15 layers/logits_processor.py:1051-1064 (the buffer is used only when "
         "its shape is the logits')", since="0.5.15"),
    # EAGLE-3 classes whose output layer is embed_tokens under tie_word_embeddings
    Fact("eagle3.tied-head-is-embedding", S,
         frozenset({"LlamaForCausalLMEagle3", "Eagle3DeepseekV2ForCausalLM"}), "silent",
         "S models/llama_eagle3.py:303-304, kimi_k25_eagle3.py:352-353, layers/"
         "logits_processor.py:1346-1347", since="0.5.12"),
    Fact("eagle3.tied-head-is-embedding", S, frozenset({"LlamaForCausalLMEagle3"}), "silent",
         "sglang==0.5.0rc0 models/llama_eagle3.py:188-189", since="0.4.4.post2", until="0.5.12"),
    # EAGLE-3 classes that read config.draft_vocab_size with no default
    # the EAGLE-3 class is built from the draft's own `architectures`: none stops start-up
    Fact("eagle3.requires-architectures", V, True, "start-up",
         "vllm==0.9.0 transformers_utils/configs/eagle.py:54-63 (for arch in "
         "self.model.architectures); V model_executor/models/registry.py:1249-1252 (vLLM "
         "#30987)", since="0.9.0"),
    Fact("eagle3.requires-draft-vocab-size", S, frozenset({"LlamaForCausalLMEagle3"}),
         "start-up", "S models/llama_eagle3.py:306, 318 (AttributeError without the key; "
         "sglang==0.5.5 llama_eagle3.py:220-224 reads it tied or not)", since="0.5.4.post2"),
    Fact("eagle3.requires-draft-vocab-size", V, frozenset({
        "LlamaForCausalLM", "Eagle3LlamaForCausalLM", "LlamaForCausalLMEagle3"}),
         "start-up", "vllm==0.10.2 model_executor/models/llama_eagle3.py:212-220 (read with no "
         "default; the oracle records \"'EAGLEConfig' object has no attribute "
         "'draft_vocab_size'\"); vllm==0.11.0 :201-205 defaults it to vocab_size",
         since="0.8.5", until="0.11.0"),
    Fact("eagle3.requires-draft-vocab-size-untied", S, frozenset({"LlamaForCausalLMEagle3"}),
         "start-up", "sglang==0.5.4 models/llama_eagle3.py:202-215 (read only for an untied "
         "head; a tied one uses embed_tokens)", since="0.4.4.post2", until="0.5.4.post2"),

    # RoPE types for which a draft's short max_position_embeddings is raised to the
    # target's max_model_len; with any other type the server's max_model_len is capped to
    # the draft's instead
    # ("*": every type; empty: none, and nothing caps max_model_len either)
    Fact("draft.raises-max-position-for", V,
         frozenset({"default", "linear", "llama3", "ntk", "proportional"}), "silent",
         "V config/speculative.py:100-106, 1500-1510, 1807-1846", since="0.33.0"),
    Fact("draft.raises-max-position-for", V, frozenset({"*"}), "silent",
         "vllm==0.27.0 config/speculative.py:924-928 (eagle/eagle3: raised whatever the "
         "RoPE type); vllm==0.32.0 config/speculative.py:1393-1397, 1677-1709",
         since="0.27.0", until="0.33.0"),
    # the methods whose draft max_position_embeddings is raised (the RoPE types above)
    Fact("draft.raises-max-position-methods", V, frozenset({"*"}), "silent",
         "V config/speculative.py:1503-1511 (every method but draft_model, #57941); "
         "vllm==0.34.0 v1/worker/gpu/spec_decode/speculator_config.py:157, 217-220, "
         "standalone_ar/config.py:11-17 (shares_target_positions)", since="0.33.0"),
    Fact("draft.raises-max-position-methods", V, frozenset({"eagle", "eagle3"}), "silent",
         "vllm==0.27.0 config/speculative.py:924-931; vllm==0.32.0 :1393-1400 (EAGLE only)",
         since="0.27.0", until="0.33.0"),
    Fact("draft.raises-max-position-methods", V, frozenset(), "silent",
         "vllm==0.26.0 config/speculative.py (no raise)", since="0.8.0", until="0.27.0"),
    Fact("draft.raises-max-position-for", V, frozenset(), "silent",
         "vllm==0.26.0 config/speculative.py (no raise; the draft max_model_len is only "
         "clamped, vllm==0.20.0 config/speculative.py:699-703, 783)",
         since="0.8.0", until="0.27.0"),

    # Where the EAGLE-3 model takes the number of aux states that sizes `fc` (else 3)
    Fact("eagle3.fc-count-sources", V,
         ("/num_aux_hidden_states", "/eagle_config/eagle_aux_hidden_state_layer_ids"),
         "start-up", "V model_executor/models/llama_eagle3.py:209-221", since="0.22.0"),
    Fact("eagle3.fc-count-sources", V, (), "start-up",
         "vllm==0.21.0 model_executor/models/llama_eagle3.py:174-177 (fc is 3 x hidden)",
         since="0.8.5", until="0.22.0"),
    Fact("eagle3.fc-count-sources", S,
         ("/num_aux_hidden_states", "/eagle_config/eagle_aux_hidden_state_layer_ids"),
         "start-up", "S models/llama_eagle3.py:156-161", since="0.5.12"),
    Fact("eagle3.fc-count-sources", S, (), "start-up",
         "sglang==0.5.11 models/llama_eagle3.py:138-139 (fc is 3 x hidden)", since="0.4.4.post2",
         until="0.5.12"),

    # EAGLE-3.1 flags read by the EAGLE-3 model (fc_norm: a norm per aux chunk; norm_output:
    # post-norm hidden states fed back; norm_before_fc: nested eagle_config first)
    Fact("eagle3.reads-3.1-flags", V, ("fc_norm", "norm_output", "norm_before_fc"), "silent",
         "V model_executor/models/llama_eagle3.py:184-188, 231-240, 252, 285-286", since="0.22.0"),
    Fact("eagle3.reads-3.1-flags", V, ("norm_before_fc",), "silent",
         "vllm==0.18.0 model_executor/models/llama_eagle3.py:153, 179 (top level only)",
         since="0.18.0", until="0.22.0"),
    Fact("eagle3.reads-3.1-flags", V, (), "silent",
         "vllm==0.17.1 model_executor/models/llama_eagle3.py (no EAGLE-3.1 flag)",
         since="0.8.5", until="0.18.0"),
    # where norm_before_fc is read, first present wins (a nested false too)
    Fact(NORM_SOURCES, V, ("/eagle_config/norm_before_fc", "/norm_before_fc"), "silent",
         "V model_executor/models/llama_eagle3.py:184-188 (eagle_config.get(..., top level))",
         since="0.22.0",
         seen=Seen(V_EAGLE3, r'eagle_config\.get\(\s*"norm_before_fc",\s*getattr\(self\.config, '
                   r'"norm_before_fc", False\)')),
    Fact(NORM_SOURCES, V, ("/norm_before_fc",), "silent",
         "vllm==0.21.0 model_executor/models/llama_eagle3.py:153 (getattr of the top level "
         "only)", since="0.18.0", until="0.22.0",
         seen=Seen(V_EAGLE3, r'self\.norm_before_fc = getattr\(self\.config, "norm_before_fc", '
                   r'False\)')),
    Fact(NORM_SOURCES, V, (), "silent",
         "vllm==0.17.1 model_executor/models/llama_eagle3.py (no norm_before_fc read)",
         since="0.8.5", until="0.18.0",
         seen=Seen(V_EAGLE3, r"\A", also_not=((V_EAGLE3, r'"norm_before_fc"'),))),
    Fact(NORM_SOURCES, S, ("/eagle_config/norm_before_fc", "/norm_before_fc"), "silent",
         "S models/llama_eagle3.py:173-175", since="0.5.17",
         seen=Seen("sglang/srt/models/llama_eagle3.py",
                   r'eagle_config\.get\("norm_before_fc", getattr\(config, "norm_before_fc", '
                   r'False\)\)')),
    Fact(NORM_SOURCES, S, (), "silent",
         "sglang==0.5.16 models/llama_eagle3.py (no norm_before_fc read)",
         since="0.4.4.post2", until="0.5.17",
         seen=Seen("sglang/srt/models/llama_eagle3.py", r"\A",
                   also_not=(("sglang/srt/models/llama_eagle3.py", r'"norm_before_fc"'),))),
    Fact("eagle3.reads-3.1-flags", S,
         ("fc_norm", "use_aux_norm", "norm_output", "norm_before_fc"), "silent",
         "S models/llama_eagle3.py:169-207 (use_aux_norm: the legacy fc_norm spelling)",
         since="0.5.17"),
    Fact("eagle3.reads-3.1-flags", S, ("fc_norm", "use_aux_norm", "norm_output"), "silent",
         "sglang==0.5.12 models/llama_eagle3.py:167-168, 188", since="0.5.12", until="0.5.17"),
    Fact("eagle3.reads-3.1-flags", S, (), "silent",
         "sglang==0.5.11 models/llama_eagle3.py (no EAGLE-3.1 flag)", since="0.4.4.post2",
         until="0.5.12"),

    # eagle_config.use_aux_hidden_state: false (a head trained on the last hidden state)
    Fact("eagle3.reads-use-aux-hidden-state", V, True, "silent",
         "vllm==0.12.0 v1/spec_decode/eagle.py:95-96, 1216-1230; V "
         "v1/spec_decode/llm_base_proposer.py:171-172, 1674-1687 (V1)", since="0.12.0",
         until="0.34.0", path="v1"),
    Fact("eagle3.reads-use-aux-hidden-state", V, False, "silent",
         "vllm==0.11.2 v1/worker/gpu_model_runner.py:374-375 (aux states always captured; "
         "llama_eagle3.py:166-178 fc always built)", since="0.8.5", until="0.12.0", path="v1"),
    Fact("eagle3.reads-use-aux-hidden-state", V, False, "start-up",
         "vllm==0.17.0 v1/worker/gpu/model_runner.py:166-168, 251, spec_decode/eagle/"
         "speculator.py:222-230; vllm==0.32.0 v1/worker/gpu/model_runner.py:300-307 (V2: k "
         "aux states copied into an H-wide buffer, a shape error in the profile run; vLLM "
         "#40656)", since="0.17.0", until="0.33.0", path="v2"),
    Fact("eagle3.reads-use-aux-hidden-state", V, True, "silent",
         "V v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:15-22 (V2); vllm==0.34.0 "
         "v1/worker/gpu/spec_decode/eagle/config.py:69-72", since="0.33.0",
         path="v2"),
    Fact("eagle3.reads-use-aux-hidden-state", S, True, "silent",
         "sglang==0.5.8 model_executor/model_runner.py:320-338; S model_executor/"
         "model_runner_components/spec_aux_hidden_state.py:185-196", since="0.5.8"),
    Fact("eagle3.reads-use-aux-hidden-state", S, False, "silent",
         "sglang==0.5.7 model_executor/model_runner.py:554-575, models/llama_eagle3.py:135-139 "
         "(three aux states captured, fc applied)", since="0.4.4.post2", until="0.5.8"),

    # EAGLE-3 input layer: residual taken after hidden_norm (norm_before_residual: true)
    Fact("eagle3.reads-norm-before-residual", V, True, "silent",
         "V model_executor/models/llama_eagle3.py:101-104, 110-115, 134", since="0.10.1"),
    Fact("eagle3.reads-norm-before-residual", V, False, "silent",
         "vllm==0.10.0 model_executor/models/llama_eagle3.py (residual un-normed)",
         since="0.8.5", until="0.10.1"),
    Fact("eagle3.reads-norm-before-residual", S, False, "silent",
         "S models/llama_eagle3.py:97-101 (residual is the un-normed hidden state; "
         "srt/ never reads norm_before_residual)", since="0.4.4.post2"),

    # RoPE in draft layers
    Fact("rope.partial-rotary-applied", V, True, "silent",
         "V model_executor/layers/rotary_embedding/__init__.py:69-72 "
         "(rotary_dim = head_size * partial_rotary_factor)", since="0.8.0"),
    Fact("rope.partial-rotary-applied", S, True, "silent",
         "S models/dflash.py:252-278 (reads partial_rotary_factor)", since="0.5.20"),
    Fact("rope.partial-rotary-applied", S, False, "silent",
         "sglang==0.5.19 models/dflash.py:209-216 (DFlash rotates the whole head)",
         since="0.5.11", until="0.5.20"),

    # MTP
    Fact("mtp.shares-target-lm-head", V, True, "silent",
         "V v1/spec_decode/llm_base_proposer.py:1546-1575 (target lm_head installed as "
         "every MTP shared_head.head); vllm==0.34.0 v1/worker/gpu/spec_decode/eagle/"
         "utils.py:145-160 (V2)", since="0.16.0"),
    Fact("mtp.shares-target-lm-head", V, False, "silent",
         "vllm==0.15.1 v1/spec_decode/eagle.py:1236-1245 (only model.lm_head is replaced; "
         "shared_head.head is the checkpoint's)", since="0.8.0", until="0.16.0"),

    # Model classes: a config's `architectures` must name one (after vLLM's rewrite of
    # EAGLE / EAGLE-3 / DFlash drafts), or start-up stops
    *read_whole("registry.architectures", lambda runtime: f"unregistered: {REFUSED[runtime]}"),
    # method -> (prefix added, prefixes and suffixes that keep the name, names kept)
    Fact("registry.draft-rewrite", V, {
        "eagle": ("Eagle", ("Eagle",), (), ()),
        "eagle3": ("Eagle3", ("Eagle3",), ("Eagle3",), ()),
        "dflash": ("DFlash", ("DFlash",), ("DFlash",), ("LiLiCorrDraftModel",))}, "start-up",
         "V transformers_utils/configs/eagle.py:46-76; config/speculative.py:1513-1532, "
         "1872-1887 (the rewritten name is looked up)", since="0.31.0"),
    Fact("registry.draft-rewrite", V, {
        "eagle": ("Eagle", ("Eagle",), (), ()),
        "eagle3": ("Eagle3", ("Eagle3",), ("Eagle3",), ()),
        "dflash": ("DFlash", ("DFlash",), ("DFlash",), ())}, "start-up",
         "vllm==0.20.0 transformers_utils/configs/eagle.py:46-74", since="0.20.0",
         until="0.31.0"),
    Fact("registry.draft-rewrite", V, {
        "eagle": ("Eagle", ("Eagle",), (), ()),
        "eagle3": ("Eagle3", ("Eagle3",), ("Eagle3",), ())}, "start-up",
         "vllm==0.10.1 transformers_utils/configs/eagle.py:49-61", since="0.10.1",
         until="0.20.0"),
    Fact("registry.draft-rewrite", V, {
        "eagle": ("Eagle", ("Eagle",), (), ()),
        "eagle3": ("Eagle3", ("Eagle3",), (), ())}, "start-up",
         "vllm==0.9.0 transformers_utils/configs/eagle.py:51-64", since="0.9.0",
         until="0.10.1"),
    Fact("registry.draft-rewrite", S, {}, "start-up",
         "S configs/model_config.py:1010-1211 (only MTP/NextN/DSpark drafts are renamed)",
         since="0.4.1.post4"),
    # A draft context (max_position_embeddings, ...) below the target's: refused unless one
    # of these variables is set (then raised to the target's)
    Fact("draft.short-context-refused", S,
         ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "SGLANG_IS_IN_CI"), "start-up",
         "S configs/model_config.py:1291-1316 (drafts get the target's context_length); "
         "utils/hf_transformers/common.py:668-694 (the derived length); refusing by default "
         "since sglang==0.5.1 configs/model_config.py:176-183 (0.5.0rc2 :170 allowed it)",
         since="0.5.1"),
    Fact("draft.short-context-refused", S, (), "start-up",
         "sglang==0.5.0rc0 configs/model_config.py:170 (default=\"True\": warns and raises the "
         "draft's context)", since="0.4.4", until="0.5.1"),
    Fact("draft.short-context-refused", S, ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",),
         "start-up", "sglang==0.4.3 configs/model_config.py:73-83 (refused unless the "
         "variable is set; 0.4.3.post3 :83-84 default=\"False\")", since="0.4.1.post4",
         until="0.4.4",
         seen=Seen("sglang/srt/configs/model_config.py",
                   r'if get_bool_env_var\("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"\):|'
                   r'"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", default="False"')),
    # with that variable, whether the draft's max_position_embeddings is raised too
    Fact("draft.short-context-raised", S, True, "silent",
         "sglang==0.5.3 configs/model_config.py:270-274 (Overriding the draft model's "
         "max_position_embeddings)", since="0.5.3"),
    Fact("draft.short-context-raised", S, False, "silent",
         "sglang==0.5.2 configs/model_config.py:185-190 (only context_len is set)",
         since="0.4.1.post4", until="0.5.3"),
    # model_type values no config class exists for in the runtime or its pinned transformers
    Fact("config.unknown-model-types", V, frozenset({"dflash", "dspark"}), "start-up",
         "V engine/arg_utils.py:2139 (AutoConfig: model type `dflash` ... Transformers does "
         "not recognize; transformers>=5.16.1,<5.21 configuration_auto.py)", since="0.8.0"),
    Fact("config.unknown-model-types", S, frozenset({"dflash", "dspark"}), "start-up",
         "S transformers==5.19.0 models/auto/configuration_auto.py:430", since="0.4.1.post4"),
    # model_type values a config loads for: the runtime's own config registry and every
    # transformers its pin admits (read whole from each wheel and each admitted
    # transformers' CONFIG_MAPPING_NAMES); any other type is refused when the config loads
    *read_whole("config.model-types", lambda runtime: CONFIG_REFUSED[runtime]),
    # EAGLE-3 (later also DFlash) targets: the methods checked and the model-type
    # substrings one of which the target's text model_type must contain (vLLM 0.8.5-0.21)
    *read_whole("aux.target-model-types", lambda _: "\"... is only supported for ... models\""),
    # EAGLE-3 targets: the registered architectures whose class has the aux hidden-state
    # interface (SupportsEagle3); the others stop start-up (vLLM from 0.10.1)
    *read_whole("eagle3.target-architectures", lambda _: "\"Model does not support EAGLE3 "
                "interface but aux_hidden_state_outputs was requested\""),
    # MTP: target model types / first architectures vLLM maps to an MTP draft; others fail
    # with "Unsupported speculative method: 'mtp'"
    # (read from each release's SpeculativeConfig.hf_config_override and MTPModelTypes)
    *read_whole("mtp.mapped-targets", lambda _: "hf_config_override; else NotImplementedError: "
                "Unsupported speculative method: 'mtp', vllm==0.33.0 config/speculative.py:"
                "1469-1501"),

    # Model types (by prefix) whose `mtp.fc` vLLM builds unquantized under these
    # quantization methods, whatever the exclusions say (NVFP4 exports store it in BF16)
    Fact("mtp.unquantized-fc-under", V, {"qwen3_5": frozenset({"modelopt_fp4"}),
                                         "qwen3_next": frozenset({"modelopt_fp4"})},
         "start-up", "vllm==0.25.0 model_executor/models/qwen3_next_mtp.py:72 (PR #46316); "
         "V qwen3_5_mtp.py:89-106, qwen3_next_mtp.py:70-80", since="0.25.0"),
    Fact("mtp.unquantized-fc-under", V, {"qwen3_5": frozenset({"modelopt_fp4"})}, "start-up",
         "vllm==0.20.0 model_executor/models/qwen3_5_mtp.py:86 (PR #38832; qwen3_next_mtp.py "
         "builds fc with the checkpoint's quant_config until 0.25.0)",
         since="0.20.0", until="0.25.0"),
    Fact("mtp.unquantized-fc-under", V, {}, "start-up",
         "vllm==0.19.1 model_executor/models/qwen3_5_mtp.py:78-84 (fc built with the "
         "checkpoint's quant_config; Qwen3-Next MTP from vllm==0.10.2 qwen3_next_mtp.py)",
         since="0.10.2", until="0.20.0"),

    # Model types (by prefix) whose MTP shared_head.head vLLM builds with no prefix, so no
    # exclusion reaches it: quantized under these methods whatever the description says
    Fact(HEAD_QUANTIZED, V, {"step3p5": frozenset({"modelopt_fp4"}),
                             "step3p7": frozenset({"modelopt_fp4"})}, "start-up",
         "vllm==0.26.0 model_executor/models/step3p5_mtp.py:26-37, 55 (SharedHead's "
         "ParallelLMHead takes quant_config and no prefix), layers/quantization/modelopt.py:"
         "145-211 (an empty prefix is never excluded); step3p7 is served by it "
         "(config/speculative.py:533-544); PR #48883 gives it its prefix in 0.27.0",
         since="0.15.1", until="0.27.0",
         seen=Seen("vllm/model_executor/models/step3p5_mtp.py",
                   r"self\.shared_head = SharedHead\(config=config, quant_config=quant_config\)")),
    # Model types (by prefix) whose MTP decoder layers vLLM builds unquantized when the
    # quantization_config's `dynamic` has a `-:` key naming mtp (not under modelopt_fp4)
    Fact("mtp.unquantized-layers-under-dynamic-mtp", V, frozenset({"qwen3_5"}), "start-up",
         "vllm==0.27.0 model_executor/models/qwen3_5_mtp.py:106-124", since="0.27.0"),
    Fact("mtp.unquantized-layers-under-dynamic-mtp", V, frozenset(), "start-up",
         "vllm==0.26.0 model_executor/models/qwen3_5_mtp.py (the MTP layers take the "
         "target's quant_config; GPTQ MoE reads only `dynamic` regexes)",
         since="0.17.0", until="0.27.0"),

    # Whether vLLM's command line still takes --speculative-model / --num-speculative-tokens
    Fact("vllm.legacy-speculative-flags", V, False, "start-up",
         "vllm==0.8.3 engine/arg_utils.py:780 (--speculative-config only; an unknown flag "
         "is argparse's 'unrecognized arguments')", since="0.8.3"),
    Fact("vllm.legacy-speculative-flags", V, True, "start-up",
         "vllm==0.8.2 engine/arg_utils.py:783-801 (--speculative-model, "
         "--num-speculative-tokens)", since="0.8.0", until="0.8.3"),

    # SGLang's EAGLE-3 heads load the target's lm_head only when the config declares no
    # draft_vocab_size (else the head's own layer, loaded from the checkpoint or not at all)
    Fact("eagle3.head-from-target-only-without-draft-vocab", S, True, "silent",
         "sglang==0.5.2 srt/models/llama_eagle3.py:205-206 (load_lm_head_from_target)",
         since="0.5.2"),
    Fact("eagle3.head-from-target-only-without-draft-vocab", S, False, "start-up",
         "sglang==0.5.0rc0 srt/models/llama_eagle3.py (the head's own lm_head of "
         "draft_vocab_size, no target fallback)", since="0.4.4.post2", until="0.5.2"),

    # Quantization methods (vLLM's names) whose exclusion list vLLM reads for MoE layers:
    # an excluded MoE layer is built unquantized (else it is built quantized regardless)
    Fact("quant.moe-exclusions-read", V, frozenset({"modelopt_fp4"}), "start-up",
         "vllm==0.12.0 model_executor/layers/quantization/modelopt.py:161-164 (an excluded "
         "layer other than a linear gets no quant method)", since="0.12.0"),
    Fact("quant.moe-exclusions-read", V, frozenset({"modelopt_fp4"}), "start-up",
         "vllm==0.11.1 model_executor/layers/quantization/modelopt.py:907-920 (PR #25987)",
         since="0.11.1", until="0.12.0"),
    Fact("quant.moe-exclusions-read", V, frozenset(), "start-up",
         "vllm==0.11.0 model_executor/layers/quantization/modelopt.py:822-823 (FusedMoE "
         "always ModelOptNvFp4FusedMoE, exclude_modules not asked)",
         since="0.9.0", until="0.11.1"),

    # When SGLang builds a Quark Qwen3.5 MTP draft wholly unquantized, from the `exclude`
    # entries starting with "mtp.": never, on any such entry, or on one for its experts
    Fact("mtp.quark-unquantized-when", S, "mtp-experts-excluded", "start-up",
         "sglang==0.5.21 srt/models/qwen3_5_mtp.py:83-90", since="0.5.21"),
    Fact("mtp.quark-unquantized-when", S, "any-mtp-excluded", "start-up",
         "sglang==0.5.12 srt/models/qwen3_5_mtp.py:69-75 (sglang#23113)",
         since="0.5.12", until="0.5.21"),
    Fact("mtp.quark-unquantized-when", S, "never", "start-up",
         "sglang==0.5.9 srt/models/qwen3_5_mtp.py:51-53 (only modelopt_fp4 is dropped)",
         since="0.5.9", until="0.5.12"),

    # Model types (by prefix) whose MTP draft class expands fused module names (qkv_proj,
    # gate_up_proj) into the checkpoint's shards when matching exclusion lists
    Fact("mtp.fused-names-expanded", S, frozenset({"qwen3_5"}), "start-up",
         "sglang==0.5.21 srt/models/qwen3_5_mtp.py:99 (packed_modules_mapping)",
         since="0.5.21"),
    Fact("mtp.fused-names-expanded", S, frozenset(), "silent",
         "sglang==0.5.9 srt/models/qwen3_5_mtp.py:37 (no packed_modules_mapping; "
         "compressed-tensors has no fallback, layers/quantization/compressed_tensors/utils.py"
         ":21-73)", since="0.5.9", until="0.5.21"),

    # The transformers each runtime pins (TF rules describe the installed one)
    *read_whole("transformers.pin", lambda _: "METADATA Requires-Dist", effect="silent"),
    Fact("transformers.pin", R, "==4.57.1", "silent", "ZL pyproject.toml:20-22"),
)
