"""Findings derived from how each release's own loader read good checkpoints (LD101): a
parameter every good checkpoint of the class fills, which this one leaves untrained.

No per-tensor code: the name maps are drafter_lint/runtimes/loads.json, written from the
oracle lane's weights layer (the release's `load_weights` over meta tensors made from the
safetensors headers).
"""

from __future__ import annotations

from drafter_lint.rules.startup import looked_up

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.registry import rule
from drafter_lint.runtimes.loads import Loader, fill, loader, numbers, pattern


def filled(row: Loader, tensors) -> set[str] | None:
    """The parameters `tensors` fill under `row`'s name map; None when a tensor is one no
    recorded load had (what it fills, or whether the loader refuses it, is unknown)."""
    out = set()
    for name in tensors:
        parameter = row.took.get(name)
        if parameter is None and pattern(name) in row.took:
            parameter = fill(row.took[pattern(name)], numbers(name))
        if parameter is not None:
            out.add(parameter)
        elif pattern(name) not in row.drops:
            return None
    return out


def _parent(parameter: str) -> str:
    """`model.layers.1.mlp.down_proj.weight` -> `model.layers.1.`; "" without a number."""
    found = numbers(parameter)
    if not found:
        return ""
    template = pattern(parameter)
    return fill(template[:template.rindex("{i}") + 3], found) + "."


def unfilled(row: Loader, tensors) -> list[str]:
    """The parameters every good load of the class filled that `tensors` leave unfilled;
    one inside a numbered block only where the checkpoint fills some of that block."""
    got = filled(row, tensors)
    if got is None:
        return []
    blocks = {_parent(p) for p in got} | {""}       # a parameter outside any layer: always
    return sorted(p for p in row.needs - row.placeholders - got if _parent(p) in blocks)


def sources(row: Loader, parameter: str) -> list[str]:
    """The tensor names that fill `parameter` under `row`'s name map."""
    out = [t for t, p in row.took.items() if p == parameter]
    out += [fill(t, numbers(parameter)) for t, p in row.took.items()
            if "{i}" in p and fill(p, numbers(parameter)) == parameter]
    return sorted({t for t in out if t})


@rule("LD101", "parameter-left-untrained", "error", "any", needs=("config", "weights"))
def parameter_left_untrained(facts: Facts):
    """A draft parameter every good checkpoint of the class fills is left untrained.

    No tensor of this checkpoint fills it: the release's loader leaves it as the model
    was built (random projections, unit norms), with no error, and the draft proposes
    garbage.

    Derived, not written per tensor: for each release, the class that release builds
    for `architectures` (vLLM's rename of draft classes applied) has a row in
    `runtimes/loads.json` when the oracle lane ran that release's own `load_weights` on
    the published drafters of the class and recorded which parameter each tensor filled
    (tests/data/oracle). vLLM's EAGLE and EAGLE-3 `load_weights` return no loaded set
    (vllm==0.25.0 model_executor/models/llama_eagle3.py:381-432, llama_eagle.py:170-182),
    so its strict check of unfilled parameters never runs for them
    (model_loader/default_loader.py:436-445).
    A checkpoint is judged only when every one of its tensors is a name those loads had
    (a name they never had may fill anything, or be refused), and a parameter in a
    numbered block (a layer) only where the checkpoint fills some of that block, so a
    head with fewer layers is not held to a deeper one's. Never asked for: what the
    runtime shares from the target when the draft has none (embeddings, LM head), what
    the loader skips when absent on some path (llama_eagle3.py:417-426: the vocabulary
    map, fc, input_norm), and the placeholders a release never reads. DFlash's decoder
    tensors are DF130/DF131's, which need no recorded release.

    Fails: an EAGLE-3 head without `midlayer.hidden_norm.weight` under `--runtime
    vllm==0.25.0` (vLLM fills `model.layers.0.hidden_norm.weight` from it).
    Passes: the published head; the same head with a tensor no recorded load had (not
    judged); a release whose loads recorded no name map.
    """
    if not facts.weights or facts.family in ("dflash", "dflash2", "dspark"):
        return
    missing: dict[tuple[str, str, tuple[str, ...]], list] = {}
    for release in facts.releases:
        name = looked_up(facts, release)
        row = loader(release.runtime, release.version, name) if name else None
        if row is None:
            continue
        for parameter in unfilled(row, facts.weights):
            from_ = tuple(sources(row, parameter)) or (parameter,)
            missing.setdefault((parameter, row.draft_class, from_), []).append(release)
    for (parameter, draft_class, from_), releases in missing.items():
        tensors = from_[0] if len(from_) == 1 else f"{', '.join(from_[:-1])} and {from_[-1]}"
        yield facts.tensor_finding(
            from_[0], f"{runtimes.agree(releases, 'builds')} {draft_class} and fills "
                      f"{parameter} from {tensors}, which every good checkpoint "
                      f"of the class ships and this one lacks: {parameter} is left "
                      f"untrained, with no error, and the draft proposes garbage")
