"""`drafter-lint inspect`: a terminal picture of how a drafter is wired to its target."""

from __future__ import annotations

from drafter_lint.facts import Facts
from drafter_lint.rules.dflash import build_target_layer_ids
from drafter_lint.rules.eagle3_taps import aux_list

KIND = {"full_attention": "F", "linear_attention": "l", "sliding_attention": "S",
        "chunked_attention": "C"}
MAX_STRIP = 160


def _taps(facts: Facts) -> tuple[list[int] | None, dict[str, list[int]]]:
    """(ids as written, {runtime: target layer whose output each id taps})."""
    family = facts.family.split("/")[-1]
    if family in ("dflash", "dflash2"):
        ids = facts.int_list("/dflash_config/target_layer_ids")
        # reference, vLLM since #40727 and SGLang all tap the output of layer k
        return ids, ({"vLLM": list(ids), "SGLang": list(ids)} if ids else {})
    if family == "eagle3":
        ids = aux_list(facts)
        if ids:
            return ids, {"vLLM": [k - 1 for k in ids], "SGLang": list(ids)}
    return None, {}


def _strip(depth: int, kinds: list[str] | None) -> str:
    if kinds and len(kinds) == depth:
        return "".join(KIND.get(k, "?") for k in kinds)
    return "." * depth


def _ruler(depth: int) -> str:
    line = [" "] * depth
    for i in range(0, depth, 10):
        for j, ch in enumerate(str(i)):
            if i + j < depth:
                line[i + j] = ch
    return "".join(line).rstrip()


def _marks(depth: int, layers: list[int]) -> tuple[str, list[str]]:
    line, notes = [" "] * depth, []
    for layer in layers:
        if 0 <= layer < depth:
            line[layer] = "^"
        elif layer < 0:
            notes.append("the embeddings (before layer 0)")
        else:
            notes.append(f"layer {layer}, which the target does not have")
    return "".join(line).rstrip(), notes


def render(facts: Facts) -> str:
    target = facts.target
    config = facts.config
    out = [f"drafter  {facts.checkpoint.display}  ({facts.family})"]
    depth = target.num_hidden_layers if target else facts.layers("/num_target_layers")
    if target:
        out.append(f"target   {target.display}: {depth} layers, hidden {target.hidden_size}, "
                   f"vocab {target.vocab_size}")
    elif depth:
        out.append(f"target   (not given; num_target_layers says {depth} layers)")
    else:
        out.append("target   (not given)")
    ids, runtimes = _taps(facts)
    if depth and depth <= MAX_STRIP:
        pad = " " * 16
        out += ["", f"{'target layers':<16}{_ruler(depth)}",
                f"{'':<16}{_strip(depth, target.layer_types if target else None)}"]
        for runtime, layers in runtimes.items():
            marks, notes = _marks(depth, layers)
            out.append(f"{runtime + ' taps':<16}{marks}")
            for note in notes:
                out.append(f"{pad}! {runtime} taps {note}")
        if ids and facts.family.split("/")[-1] in ("dflash", "dflash2"):
            expected = build_target_layer_ids(depth, len(ids))
            if expected != ids:
                out.append(f"{'z-lab default':<16}{_marks(depth, expected)[0]}")
        if ids:
            out.append(f"{'':<16}ids as written: {ids}; ^ = the layer whose output is "
                       f"tapped")
        out.append(f"{'':<16}F full  l linear  S sliding  . unknown")
    out.append("")
    kinds = config.get("layer_types")
    n = facts.layers("/num_hidden_layers")
    if isinstance(kinds, list):
        window = config.get("sliding_window")
        shown = window if type(window) is int else "no window!"
        cells = [f"{i}:{KIND.get(k, '?') if isinstance(k, str) else '?'}"
                 + (f"({shown})" if k == "sliding_attention" else "")
                 for i, k in enumerate(kinds)]
        out.append(f"{'drafter layers':<16}{' '.join(cells)}")
    elif n is not None:
        out.append(f"{'drafter layers':<16}{n}")
    facts_line = []
    block = facts.int("/block_size") or facts.int("/dflash_config/block_size")
    if block:
        facts_line.append(f"block {block}")
    mask = facts.int("/dflash_config/mask_token_id")
    if mask is not None:
        tokenizer = facts.tokenizer
        token = ""
        if tokenizer and mask in tokenizer.added:
            content, special = tokenizer.added[mask]
            token = f" {content!r} ({'special' if special else 'added, not special'})"
        elif tokenizer and mask in tokenizer.ordinary:
            token = f" {tokenizer.ordinary[mask]!r} (ORDINARY TEXT TOKEN)"
        facts_line.append(f"mask {mask}{token}")
    vocab = facts.int("/vocab_size")
    if vocab:
        same = "" if not (target and target.vocab_size) else (
            " = target" if vocab == target.vocab_size else f" != target {target.vocab_size}")
        facts_line.append(f"vocab {vocab}{same}")
    draft_vocab = facts.int("/draft_vocab_size")
    if draft_vocab:
        facts_line.append(f"draft vocab {draft_vocab}")
    fc = facts.shape("fc.weight")
    width = facts.int("/target_hidden_size") or facts.int("/hidden_size")
    if fc and len(fc) == 2 and width:
        taps = f"{fc[1] // width} taps" if fc[1] % width == 0 else "not a whole number of taps"
        facts_line.append(f"fc {fc[1]} = {taps} x {width}")
    if facts_line:
        out.append(f"{'':<16}" + " . ".join(facts_line))
    return "\n".join(out) + "\n"
