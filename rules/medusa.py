"""Medusa head rules (FasterDecoding and vLLM layouts)."""

from __future__ import annotations

import re

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.jsondoc import pointer
from drafter_lint.registry import rule

BLOCK = re.compile(r"^(?:medusa_heads\.)?blocks\.(\d+)\.layers\.(\d+)\.weight$")
HEAD = re.compile(r"^(?:medusa_heads\.)?lm_heads\.(\d+)\.weight$")


def counts(facts: Facts) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
    """((pointer, heads), (pointer, layers)) from either layout's field names."""
    def first(*keys):
        for key in keys:
            value = facts.int(f"/{key}")
            if value is not None:
                return f"/{key}", value
        return None
    return (first("medusa_num_heads", "num_heads"),
            first("medusa_num_layers", "num_hidden_layers"))


@rule("MED101", "medusa-heads-vs-weights", "error", "medusa", needs=("config", "weights"))
def heads_vs_weights(facts: Facts):
    """The head / layer counts differ from the `blocks.{h}.layers.{j}` and `lm_heads.{h}`
    tensors (MED-01).

    FasterDecoding's loader (and vLLM before 0.33, which renamed `medusa_num_heads` /
    `medusa_num_layers` to `num_heads` / `num_hidden_layers`) builds that many heads of
    that many residual blocks each; missing or extra heads fail the load.

    Fails: `"medusa_num_heads": 5` with 4 heads in the weights. Passes: 5 and 5.
    """
    heads, layers = counts(facts)
    blocks, lm_heads, depth = set(), set(), set()
    for name in facts.weights or {}:
        match = BLOCK.match(name)
        if match:
            blocks.add(int(match.group(1)))
            depth.add(int(match.group(2)))
        match = HEAD.match(name)
        if match:
            lm_heads.add(int(match.group(1)))
    if heads:
        for what, found in (("blocks", blocks), ("lm_heads", lm_heads)):
            if found and len(found) != heads[1]:
                yield Finding(heads[0], f"{heads[0][1:]} is {heads[1]} but the weights hold "
                              f"{len(found)} {what} ({sorted(found)})")
    if layers and depth and len(depth) != layers[1]:
        yield Finding(layers[0], f"{layers[0][1:]} is {layers[1]} but each head holds "
                      f"{len(depth)} block layer(s)")


@rule("MED102", "medusa-vocab", "info", "medusa", needs=("config", "weights"))
def vocab(facts: Facts):
    """`vocab_size` is missing, or the heads' vocabulary differs from the target's (MED-02).

    vLLM's MedusaConfig (releases before 0.33) defaulted `vocab_size` to 32001 and
    overwrote it with the target's; the `lm_heads` rows must then equal the target
    vocabulary unless a `token_map` ships (it asserted).

    Reports: no `vocab_size` (info); `lm_heads.0.weight` `[32000, 4096]` for a 128256
    target without `token_map` (error).
    Passes: rows equal to the target vocabulary.
    """
    if not facts.has("/vocab_size"):
        yield Finding("/vocab_size", "vocab_size is not written: vLLM's MedusaConfig "
                      "assumed 32001, then overwrote it with the target's")
    target = facts.target.vocab_size if facts.target else facts.int("/vocab_size")
    if not target or "token_map" in (facts.weights or {}):
        return
    for name, info in sorted((facts.weights or {}).items()):
        if HEAD.match(name) and info.shape and info.shape[0] != target:
            yield Finding(pointer(name), f"{name} predicts {info.shape[0]} tokens but the "
                          f"target vocabulary has {target} and no token_map ships",
                          file=info.file, severity=Severity.ERROR)
            return


@rule("MED103", "medusa-unserved", "error", "medusa")
def unserved(facts: Facts):
    """The runtimes checked for do not serve Medusa heads.

    vLLM dropped Medusa in 0.33.0: `medusa` is no longer a speculative method (vllm==0.33.0
    config/speculative.py:74-82), so `"method": "medusa"` fails at start-up; SGLang has no
    Medusa algorithm (sglang==0.5.23 arg_groups/fields/spec.py:31-34). Checked for every
    current runtime, or for a release that does not serve it, that is a refusal: an
    error. A release that still served Medusa (`--runtime vllm==0.32.0`) draws nothing.

    Fails: any Medusa checkpoint checked for the current runtimes. Passes: vllm==0.32.0.
    """
    chosen = runtimes.default_releases() if facts.runtime is None else ()
    refusing = [r for r in chosen if not runtimes.serves(r, "medusa")]
    if facts.runtime is not None and not facts.releases:
        refusing = [facts.runtime]
    if refusing:
        last = runtimes.held_until("serves.medusa")
        served = f" (vLLM served them before {last})" \
            if last and any(r.runtime == "vllm" for r in refusing) else ""
        yield Finding("", runtimes.agree(refusing, "does not serve Medusa heads and "
                                         "refuses to start") + f"{served}; serve them with "
                      f"a release that does, or "
                      f"move to an EAGLE-3 head")
