"""DFlash rules: layer kinds, sliding windows and causality (DF120-DF126), as each
runtime reads them.
"""

from __future__ import annotations

from drafter_lint.rules.dflash import LAYER_KINDS, block_size_of, dumped, layer_types_of, sliding_of

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts
from drafter_lint.findings import (
    Finding,
    Severity,
    add,
    replace,
)
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule


@rule("DF120", "layer-types-invalid", "error", "dflash")
def layer_types_invalid(facts: Facts):
    """`layer_types` is not one known attention kind per drafter layer.

    The reference indexes `config.layer_types[layer_idx]` for each of `num_hidden_layers`
    layers (IndexError when short); transformers refuses a length mismatch; SGLang needs a
    list. DFlash layers are `full_attention` or `sliding_attention`.

    Fails: 4 entries for `"num_hidden_layers": 5`; `"sliding"`; a bare string.
    Passes: `["sliding_attention", "sliding_attention", "sliding_attention",
    "sliding_attention", "full_attention"]` for 5 layers.
    """
    value = facts.get("/layer_types")
    if value is MISSING or value is None:
        return
    if not isinstance(value, list):
        yield Finding("/layer_types", f"layer_types is {dumped(value)[:40]}, expected a list "
                      f"with one attention kind per drafter layer")
        return
    for i, kind in enumerate(value):
        if kind not in LAYER_KINDS:
            yield Finding(f"/layer_types/{i}", f"layer_types[{i}] is {dumped(kind)}, expected "
                          f"one of {', '.join(LAYER_KINDS)}")
    n = facts.int("/num_hidden_layers")
    if n is not None and len(value) != n:
        yield Finding("/layer_types", f"layer_types has {len(value)} entries but "
                      f"num_hidden_layers is {n}; transformers refuses to load it and the "
                      f"reference drafter indexes past the list")


def _uses_swa(facts: Facts, release) -> bool:
    """`dflash_config.use_swa` is set and `release` reads it (MiMo-style drafters)."""
    fact = runtimes.lookup("dflash.reads-use-swa", release)
    return bool(fact and fact.value) and facts.get("/dflash_config/use_swa", None) is True


def sliding_on(facts: Facts, release) -> list[int]:
    """The drafter layers that slide on `release` (vllm==0.33.0 qwen3_dflash.py:96-144:
    with `use_swa` and no sliding entry in `layer_types`, every layer slides)."""
    listed = sliding_of(facts)
    if _uses_swa(facts, release) and not listed:
        n = facts.layers("/num_hidden_layers") or len(layer_types_of(facts) or [])
        return list(range(n))
    return listed


def window_on(facts: Facts, release) -> tuple[str, object]:
    """(pointer, value) of the window `release` reads; value MISSING when none is set;
    ("", MISSING) when the release reads no window at all."""
    fact = runtimes.lookup("dflash.window-sources", release)
    sources = fact.value if fact else ("/sliding_window",)
    if not sources:
        return "", MISSING
    for ptr in sources:
        value = facts.get(ptr)
        if value is not MISSING:          # first found wins, a null too: vLLM reads
            return ptr, value             # dflash_config.get("swa_window_size", ...)
    return sources[-1], facts.get(sources[-1])


@rule("DF121", "layer-types-missing", "info", "dflash")
def layer_types_missing(facts: Facts):
    """`layer_types` is absent or null, so the attention kind of each layer is derived.

    `Qwen3Config` derives the list from `use_sliding_window` and `max_window_layers`: all
    `full_attention` unless sliding is on, and then only the *later* layers slide, so the
    Qwen3.6 pattern (4 sliding, then full) cannot come out of it (transformers 4.57
    configuration_qwen3.py:211-217; 5.x :90-96). vLLM makes every layer slide when
    `dflash_config.use_swa` is set (vllm==0.33.0 qwen3_dflash.py:96-144). All-full drafters
    (the z-lab Qwen3 ones) are fine without the list: an info.

    Informs: a config without `layer_types`. Passes: an explicit list, or `use_swa` with a
    runtime that reads it.
    """
    value = facts.get("/layer_types")
    if value is not MISSING and value is not None:
        return
    if facts.releases and all(_uses_swa(facts, r) for r in facts.releases):
        return
    derived = ("the later layers slide from max_window_layers on"
               if facts.get("/use_sliding_window", None) is True else "every layer is "
               "full_attention")
    yield Finding("/layer_types", "layer_types is " + ("missing" if value is MISSING else
                  "null") + f"; transformers derives it, so {derived}")


@rule("DF122", "sliding-window-missing", "error", "dflash")
def sliding_window_missing(facts: Facts):
    """Sliding layers exist but no window is set where the runtime reads it.

    vLLM takes `dflash_config.swa_window_size`, else `sliding_window`, and refuses to start
    without one (vllm==0.33.0 qwen3_dflash.py:145-154); SGLang reads `sliding_window` and
    refuses likewise (sglang==0.5.23 dflash_utils.py:400-414); the z-lab reference runs the
    layers unwindowed. z-lab Qwen3.6-27B uses 2048; MiMo drafters set
    `dflash_config.swa_window_size`.

    vLLM takes a `swa_window_size` written null as the window (`dict.get` with the top
    level as default), so it refuses that too; a window of 0 or below is no window, and
    what each runtime then does is not recorded: the finding says only that.

    Fails: `layer_types` with `sliding_attention` and `"sliding_window": null`;
    `dflash_config.swa_window_size: null` beside `"sliding_window": 2048` (vLLM).
    Passes: `"sliding_window": 2048`; `dflash_config.swa_window_size` for vLLM.
    """
    broken = []
    for release in facts.releases:
        sliding = sliding_on(facts, release)
        ptr, window = window_on(facts, release)
        if ptr and sliding and not (type(window) is int and window > 0):
            broken.append((release, sliding, ptr, window))
    if not broken:
        return
    release, sliding, ptr, window = broken[0]
    what = "missing" if window is MISSING else dumped(window)
    if window is not MISSING and window is not None:    # 0, negative, not a number
        yield Finding(ptr, f"{dotted(ptr)} is {what} but layers {sliding} slide; a window "
                      f"is a positive number of tokens")
        return
    consequences = []
    for effect, words in (("start-up", "refuses to start"), ("silent", "runs them unwindowed")):
        hit = [b[0] for b in broken if runtimes.value(
            "dflash.null-window-with-sliding-layers", b[0]) == effect]
        if hit:
            consequences.append(runtimes.agree(hit, words))
    yield Finding(ptr, f"{dotted(ptr)} is {what} but layers {sliding} slide; "
                  + "; ".join(consequences) + " without a window")


@rule("DF123", "sliding-window-below-block", "error", "dflash")
def sliding_window_below_block(facts: Facts):
    """`sliding_window` is smaller than `block_size`.

    A draft block attends to itself; a window shorter than the block cuts the block's own
    positions out. NVIDIA ModelOpt refuses `window < block_size` when training DFlash.

    Fails: `"sliding_window": 8` with `"block_size": 16`.
    Passes: `"sliding_window": 2048` with `"block_size": 16`.
    """
    window, block = facts.int("/sliding_window"), block_size_of(facts)
    if sliding_of(facts) and window and block and 0 < window < block:
        yield Finding("/sliding_window", f"sliding_window is {window}, smaller than "
                      f"block_size {block}; the draft block cannot see itself")


@rule("DF124", "sliding-window-disabled", "error", "dflash", fix="always", applies="unsafe")
def sliding_window_disabled(facts: Facts):
    """Sliding layers take their window from `sliding_window`, but `use_sliding_window` is
    false or absent, so transformers loads the window as null.

    `Qwen3Config` sets `sliding_window = sliding_window if use_sliding_window else None`,
    and `use_sliding_window` defaults to false (transformers 4.57 configuration_qwen3.py:187;
    5.x :86). vLLM and SGLang load the drafter config through transformers and then refuse
    to start without a window (vllm==0.33.0 qwen3_dflash.py:150-154; sglang==0.5.23
    dflash_utils.py:411-414); the z-lab reference silently runs full attention. A window in
    `dflash_config.swa_window_size` is not nulled (vLLM reads it first).

    Fails: `layer_types` with `sliding_attention`, `"sliding_window": 2048` and
    `"use_sliding_window": false` (or absent).
    Passes: `"use_sliding_window": true`.
    Fix (unsafe): set `use_sliding_window` to true; right if the drafter was trained with
    the window.
    """
    if facts.get("/use_sliding_window", None) is True:
        return
    hit = [r for r in facts.releases if sliding_on(facts, r)
           and window_on(facts, r)[0] == "/sliding_window"]
    if not hit:
        return
    value = facts.get("/use_sliding_window")
    what = "missing (default false)" if value is MISSING else dumped(value)
    fix = (add if value is MISSING else replace)("/use_sliding_window", True)
    fatal = runtimes.matching(hit, "dflash.null-window-with-sliding-layers",
                              lambda v: v == "start-up")
    silent = [r for r in hit if r not in fatal]
    consequence = "; ".join(
        part for part in (f"{runtimes.agree(fatal, 'then refuses')} to start" if fatal else "",
                          f"{runtimes.agree(silent, 'runs')} full attention" if silent else "")
        if part)
    yield Finding("/use_sliding_window", f"use_sliding_window is {what} while layers "
                  f"{sliding_on(facts, hit[0])} slide; transformers' Qwen3Config loads "
                  f"sliding_window as null, and {consequence}", fix=fix)


@rule("DF125", "mixed-attention-runtime", "info", "dflash")
def mixed_attention_runtime(facts: Facts):
    """Sliding and full layers are mixed: vLLM serves this on its V2 model runner only, and
    vLLM 0.25.x not at all.

    From 0.26.0 a mixed DFlash draft is sent to the V2 runner unless
    `VLLM_USE_V2_MODEL_RUNNER=0` (vllm==0.26.0 config/vllm.py `_dflash_needs_multi_kv_group`;
    vllm==0.33.0 config/vllm.py:748-767); V1 refuses mixed drafters ("Model Runner V1 does
    not support", config/vllm.py:3128-3137). LCH103 checks a launch line that selects V1.
    vLLM 0.25.0 and 0.25.1 refuse any mix on either runner ("DFlash does not yet support
    mixed sliding/full attention via layer_types", vllm==0.25.0
    model_executor/models/qwen3_dflash.py:86-97): an error for those releases.

    Informs: `layer_types` with both kinds, when checking for vLLM. Fails: the same under
    `--runtime vllm==0.25.0`. Passes: one kind only.
    """
    kinds = set(layer_types_of(facts) or [])
    if not {"sliding_attention", "full_attention"} <= kinds:
        return
    refusing = [runtimes.on_runner(r, "") for r in
                runtimes.matching(facts.releases, "dflash.refuses-mixed-swa")]
    if refusing:
        yield Finding("/layer_types", f"layer_types mixes sliding and full attention: "
                      f"{runtimes.agree(refusing, 'refuses')} any such DFlash draft at "
                      f"start-up, on either model runner (later releases serve it on V2)",
                      severity=Severity.ERROR)
    needs = [r for r in facts.releases
             if runtimes.value("runner.v1-refuses-mixed-swa", runtimes.on_runner(r, "v1"))]
    if needs:
        # the launch's own choice of V1 is LCH103's error; here only what serves it
        v1 = [r for r in needs if r.runner == "v1" and r.shown]
        default = "" if v1 else " (the default)"
        yield Finding("/layer_types", f"layer_types mixes sliding and full attention: "
                      f"{runtimes.agree([runtimes.on_runner(r, '') for r in needs], 'serves')}"
                      f" it on the V2 model runner{default}; VLLM_USE_V2_MODEL_RUNNER=0 "
                      f"refuses it" + (f" (this launch: {v1[0].why}, LCH103)" if v1 else ""))


def causality(facts: Facts, release) -> list[bool] | None:
    """Per drafter layer, whether `release` runs it causal (None: not recorded)."""
    fact = runtimes.lookup("dflash.causal-sources", release)
    if fact is None:
        return None
    n = facts.layers("/num_hidden_layers") or len(layer_types_of(facts) or [])
    sliding = set(sliding_of(facts))   # as listed: use_swa does not make layers causal
    for source in fact.value:
        if source == "non-causal":
            return [False] * n
        if source == "sliding":
            return [i in sliding for i in range(n)]
        value = facts.get(source, None)
        if isinstance(value, bool):
            return [value] * n
    return None


@rule("DF126", "causality-differs", "warning", "dflash")
def causality_differs(facts: Facts):
    """The runtimes checked for run the drafter's layers with different causality.

    vLLM: top-level `is_causal` for every layer, else `dflash_config.causal`, else causal
    iff the layer slides (vllm==0.33.0 qwen3_dflash.py:62-73). SGLang: `is_causal`, else
    sliding layers causal and full ones not; `dflash_config.causal` is not read
    (sglang==0.5.23 models/dflash.py:157-191). The z-lab reference: every layer
    non-causal (dflash/model.py:118, 194). When two of them disagree on a layer, one of
    them runs a drafter it was not trained as. Set the flag both read (`is_causal`) to
    what training used; never guess it.

    Fails: sliding layers with `"dflash_config": {"causal": false}` (vLLM non-causal,
    SGLang causal). Passes: no flag (vLLM and SGLang agree), or `is_causal` set.
    """
    seen = [(r, causality(facts, r)) for r in facts.releases]
    seen = [(r, c) for r, c in seen if c is not None]
    if len(seen) < 2 or all(c == seen[0][1] for _, c in seen):
        return
    def describe(c):
        causal = [i for i, v in enumerate(c) if v]
        return f"causal layers {causal}" if causal else "no causal layer"
    parts = "; ".join(f"{r.label}: {describe(c)}" for r, c in seen)
    ptr = "/dflash_config/causal" if facts.has("/dflash_config/causal") else "/is_causal"
    yield Finding(ptr, f"the runtimes disagree on causality ({parts}); set is_causal to "
                  f"what the drafter was trained with")
