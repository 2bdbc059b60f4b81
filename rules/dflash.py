"""What the DFlash rule modules share: the z-lab tap spacing, where mask and taps are read,
the layer kinds and the block size (no rules here; they are in rules/dflash_*.py).

Facts are from the code: the reference drafter (z-lab/dflash `dflash/model.py`),
vLLM (`qwen3_dflash.py`, `eagle3_utils.py`, `spec_decode/dflash.py`) and SGLang
(`dflash_utils.py`). `dflash_config.*` is canonical: the reference reads mask and taps
only from there.
"""

from __future__ import annotations

import json

from drafter_lint import runtimes
from drafter_lint.facts import MISSING, Facts

MASK = "/dflash_config/mask_token_id"
TAPS = "/dflash_config/target_layer_ids"
LAYER_KINDS = ("full_attention", "sliding_attention")

# vocab_size -> (mask_token_id the z-lab drafters of that family were trained with, family)
KNOWN_MASK_IDS = {248320: (248070, "Qwen3.5/3.6"), 151936: (151669, "Qwen3")}


def build_target_layer_ids(num_target_layers: int, count: int) -> list[int]:
    """The taps z-lab training picks: `count` ids spread over [1, depth - 3].

    Same arithmetic as `build_target_layer_ids` in z-lab/dflash and
    vllm-project/speculators (`src/speculators/models/dflash/utils.py`), including
    Python's round-half-to-even.
    """
    if count == 1:
        return [num_target_layers // 2]
    span = num_target_layers - 4
    return [int(round(1 + i * span / (count - 1))) for i in range(count)]


def dumped(value) -> str:
    return json.dumps(value)


# Where DFlash taps can be written, with the shift from the written id to the 0-based
# target layer output: vLLM and speculators files write capture indices (tap + 1).
TAP_SOURCES = ((TAPS, 0), ("/target_layer_ids", 0),
               ("/eagle_aux_hidden_state_layer_ids", -1), ("/aux_hidden_state_layer_ids", -1))


def tap_source(facts: Facts) -> tuple[str, list[int] | None, int]:
    """(pointer, written ids, shift) of the first tap list present; ids None if not ints."""
    for ptr, shift in TAP_SOURCES:
        if facts.has(ptr) and facts.get(ptr) is not None:
            return ptr, facts.int_list(ptr), shift
    return TAPS, None, 0


def taps_of(facts: Facts) -> list[int] | None:
    """The 0-based target layer outputs the drafter taps (DF110 reports unusable lists)."""
    _, ids, shift = tap_source(facts)
    return [i + shift for i in ids] if ids is not None else None


def tap_pointer(facts: Facts, i: int | None = None) -> str:
    ptr = tap_source(facts)[0]
    return ptr if i is None else f"{ptr}/{i}"


def depth_of(facts: Facts) -> tuple[int | None, str]:
    """The target depth and where it came from: the target's config, else the drafter's
    `target_num_hidden_layers` (TorchSpec), else `num_target_layers`."""
    if facts.target and facts.target.num_hidden_layers:
        return facts.target.num_hidden_layers, "from the target config"
    n = facts.layers("/target_num_hidden_layers")
    if n and n > 0:
        return n, "target_num_hidden_layers"
    n = facts.layers("/num_target_layers")
    return (n, "num_target_layers") if n and n > 0 else (None, "")


def layer_types_of(facts: Facts) -> list[str] | None:
    value = facts.get("/layer_types", None)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def sliding_of(facts: Facts) -> list[int]:
    return [i for i, kind in enumerate(layer_types_of(facts) or []) if kind == "sliding_attention"]


def block_size_of(facts: Facts) -> int | None:
    for ptr in ("/block_size", "/dflash_config/block_size"):
        value = facts.int(ptr)
        if value is not None:
            return value
    return None


# --- dflash_config and the mask token -----------------------------------------------------


def mask_id(facts: Facts) -> tuple[str, int | None]:
    """(pointer, id) of the integer mask id: `dflash_config`'s, else the top-level one."""
    for ptr in (MASK, "/mask_token_id"):
        if facts.int(ptr) is not None:
            return ptr, facts.int(ptr)
    return MASK, None


def mask_source(facts: Facts, release) -> tuple[str, object] | None:
    """(pointer, value) of the mask id `release` reads from this config, or None. A
    speculators file's top-level id is where vLLM's loader takes it from."""
    fact = runtimes.lookup("dflash.mask-sources", release)
    mapped = ("/mask_token_id",) if facts.family.startswith("speculators") and \
        runtimes.value("speculators.dflash-mask-mapped", release) else ()
    for ptr in (*mapped, *(fact.value if fact else ())):
        value = facts.get(ptr)
        if value is not MISSING:
            return ptr, value
    return None
