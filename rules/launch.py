"""Rules on a server launch line against the drafter (`drafter-lint gate`)."""

from __future__ import annotations

from drafter_lint.facts import Facts
from drafter_lint.findings import Finding
from drafter_lint.registry import collect, rule

# family -> accepted method names, per runtime
METHODS = {
    "vllm": {"dflash": {"dflash"}, "eagle3": {"eagle3"}, "eagle": {"eagle"},
             "mtp": {"mtp", "deepseek_mtp", "qwen3_next_mtp", "qwen3_5_mtp", "mimo_mtp",
                     "glm4_moe_mtp", "ernie_mtp", "longcat_flash_mtp"},
             "medusa": {"medusa"}, "speculators": {None, "eagle3", "dflash", "dspark"},
             "dflash2": set()},
    "sglang": {"dflash": {"DFLASH"}, "eagle3": {"EAGLE3"}, "eagle": {"EAGLE"},
               "mtp": {"NEXTN", "EAGLE"}, "medusa": set(), "speculators": {"EAGLE3", "DFLASH"},
               "dflash2": set()},
}


def _block(facts: Facts) -> int | None:
    return facts.int("/block_size") or facts.int("/dflash_config/block_size")


@rule("LCH101", "launch-method-vs-family", "error", "any", needs=("config", "launch"))
def method_vs_family(facts: Facts):
    """The launch line's speculative method does not serve this drafter's family.

    vLLM's `--speculative-config` `method` and SGLang's `--speculative-algorithm` pick the
    model class: an EAGLE-3 head served as `eagle` (or a DFlash drafter as `eagle3`) loads
    the wrong architecture or fails. A DFlash2 checkpoint has no v1 method.

    Fails: `"method": "eagle"` for an EAGLE-3 head; `--speculative-algorithm EAGLE3` for a
    DFlash drafter. Passes: `"method": "dflash"` for a DFlash drafter.
    """
    runtime, method = facts.launch.get("runtime"), facts.launch.get("method")
    family = facts.family.split("/")[0]
    accepted = METHODS.get(runtime, {}).get(family)
    if accepted is None or (method is None and runtime == "vllm" and family != "dflash2"):
        return  # vLLM infers the method from the path (see EA318)
    if method not in accepted:
        wanted = ", ".join(sorted(m for m in accepted if m)) or "none: this runtime cannot " \
                                                                 "serve it"
        yield Finding("", f"the launch line asks for method {method!r} but this is a "
                      f"{facts.family} checkpoint; {runtime} serves it with: {wanted}")


@rule("LCH102", "launch-tokens-vs-block", "error", "dflash", needs=("config", "launch"))
def tokens_vs_block(facts: Facts):
    """The speculative token count does not fit the trained DFlash block.

    A block is one anchor plus B-1 mask slots: vLLM's `num_speculative_tokens` must be at
    most `block_size - 1`, SGLang's `--speculative-num-draft-tokens` (the block itself) at
    most `block_size`. Longer blocks than trained make the deep positions junk; the z-lab
    README serves block 16 with 15 tokens.

    Fails: `num_speculative_tokens` 16 with `block_size` 16 (vLLM). Passes: 15.
    """
    block = _block(facts)
    if not block:
        return
    ptr = "/block_size" if facts.has("/block_size") else "/dflash_config/block_size"
    k = facts.launch.get("num_speculative_tokens")
    if k and k > block - 1:
        yield Finding(ptr, f"num_speculative_tokens {k} exceeds block_size {block} - 1 = "
                      f"{block - 1}: the drafter was trained for {block - 1} draft slots")
    n = facts.launch.get("num_draft_tokens")
    if n and n > block:
        yield Finding(ptr, f"--speculative-num-draft-tokens {n} exceeds block_size {block}: "
                      f"SGLang's draft-token count is the whole block")


@rule("LCH103", "launch-swa-runtime", "warning", "dflash", needs=("config", "launch"))
def swa_runtime(facts: Facts):
    """A drafter with mixed sliding/full layers is launched on vLLM without the V2 runner.

    On later vLLM main a sliding/full mix raises NotImplementedError unless
    `VLLM_USE_V2_MODEL_RUNNER=1`; builds before PR #40898 silently run every layer as full
    attention.

    Fails: `vllm serve` with a 4 sliding + 1 full drafter and no
    `VLLM_USE_V2_MODEL_RUNNER=1`. Passes: the variable set on the launch line or in the
    environment.
    """
    if facts.launch.get("runtime") != "vllm":
        return
    kinds = facts.get("/layer_types", None)
    if not isinstance(kinds, list) or not {"sliding_attention", "full_attention"} <= set(kinds):
        return
    env = facts.launch.get("env") or {}
    if env.get("VLLM_USE_V2_MODEL_RUNNER") != "1":
        yield Finding("/layer_types", "sliding and full drafter layers on vLLM: set "
                      "VLLM_USE_V2_MODEL_RUNNER=1 (later main raises NotImplementedError "
                      "without it; builds before PR #40898 drop the window silently)")


RULES = collect(method_vs_family, tokens_vs_block, swa_runtime)
