"""Read the target model a drafter serves: depth, width, vocab, layer kinds, tokenizer."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from drafter_lint import jsondoc
from drafter_lint.checkpoint import CONFIG, read_json_file
from drafter_lint.errors import TargetError
from drafter_lint.findings import describe
from drafter_lint.hub import HubError, fetch, parse_repo_arg
from drafter_lint.readonly import readonly
from drafter_lint.tokenizer import TokenizerError, TokenizerFacts, read_tokenizer

# Deeper than any model; a larger layer count is a broken value (the schemas cap it too).
MAX_LAYERS = 4096


@dataclass(frozen=True)
class Target:
    """Read once, then read-only all the way down (a run's options hold it)."""

    display: str
    config: dict                   # the text model's config (text_config unwrapped)
    model_type: str | None
    num_hidden_layers: int | None
    hidden_size: int | None
    vocab_size: int | None
    layer_types: list[str] | None
    tokenizer: TokenizerFacts | None = None
    notes: list[str] = field(default_factory=list)
    architectures: list[str] = field(default_factory=list)
    special_ids: dict[str, list[int]] = field(default_factory=dict)  # pad/eos/bos -> ids
    deepstack_layers: int = 0      # Qwen3-VL: text layers that take vision features
    quantized: bool = False        # a quantization_config (vLLM's runner choice reads it)
    whole: dict = field(default_factory=dict)   # config.json as written (text_config kept)

    def __post_init__(self):
        for name in ("config", "layer_types", "notes", "architectures", "special_ids",
                     "whole"):
            object.__setattr__(self, name, readonly(getattr(self, name)))


def resolve_target(arg: str, offline: bool = False) -> Target:
    """A target from a local path, else from a hub repo `org/name[@rev]`."""
    path = Path(arg)
    if path.exists():
        return read_target(path, display=arg)

    if parse_repo_arg(arg) is None:
        raise TargetError(f"target {arg}: no such file or folder")
    try:
        snapshot = fetch(arg, offline=offline, tokenizer=True)
    except HubError as exc:
        raise TargetError(str(exc)) from None
    return read_target(snapshot.folder, display=snapshot.display)


SPECIAL_ID_KEYS = ("pad_token_id", "eos_token_id", "bos_token_id")


def special_ids(*configs: dict) -> dict[str, list[int]]:
    """pad/eos/bos token ids written in any of `configs` (eos may be a list)."""
    out: dict[str, list[int]] = {}
    for config in configs:
        for key in SPECIAL_ID_KEYS:
            value = config.get(key)
            values = value if isinstance(value, list) else [value]
            ids = [v for v in values if type(v) is int]
            if ids:
                out.setdefault(key, [])
                out[key] += [i for i in ids if i not in out[key]]
    return out


def layer_count(value) -> int | None:
    """`value` if it is a plausible layer count (an integer in [0, MAX_LAYERS]), else None."""
    return value if type(value) is int and 0 <= value <= MAX_LAYERS else None


def _int(config: dict, key: str) -> int | None:
    value = config.get(key)
    return value if type(value) is int else None


def _deepstack_layers(outer: dict) -> int:
    """Qwen3-VL adds the features of each `vision_config.deepstack_visual_indexes` entry
    to the output of text layer 0, 1, ... in turn: how many text layers that is."""
    vision = outer.get("vision_config")
    indexes = vision.get("deepstack_visual_indexes") if isinstance(vision, dict) else None
    return len(indexes) if isinstance(indexes, list) else 0


def read_target(path: Path, display: str | None = None) -> Target:
    """A target from a folder holding config.json (or from the config.json file itself)."""
    folder = path.parent if path.is_file() else path
    config_path = path if path.is_file() else path / CONFIG
    if not config_path.is_file():
        raise TargetError(f"target {display or path}: no config.json there")
    try:
        doc = read_json_file(config_path)
    except jsondoc.JsonSyntaxError as exc:
        raise TargetError(f"target {config_path}: not valid JSON: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(f"target {config_path}: cannot read: {describe(exc)}") from None
    if not isinstance(doc.value, dict):
        raise TargetError(f"target {config_path}: not a JSON object")
    target = target_of(doc.value, display or str(path))
    try:
        return replace(target, tokenizer=read_tokenizer(folder, "target"))
    except TokenizerError as exc:
        note = f"target tokenizer unreadable ({exc}); tokenizer checks skipped"
        return replace(target, notes=[*target.notes, note])


def target_of(outer: dict, display: str) -> Target:
    """A target (without its tokenizer) from its whole config.json object."""
    config = outer["text_config"] if isinstance(outer.get("text_config"), dict) else outer
    layer_types = config.get("layer_types")
    if not (isinstance(layer_types, list) and all(isinstance(t, str) for t in layer_types)):
        layer_types = None
    return Target(
        display=display,
        config=config,
        model_type=config.get("model_type") or outer.get("model_type"),
        num_hidden_layers=layer_count(config.get("num_hidden_layers")) or None,
        hidden_size=_int(config, "hidden_size"),
        vocab_size=_int(config, "vocab_size") or _int(outer, "vocab_size"),
        layer_types=layer_types,
        architectures=[a for a in outer.get("architectures") or [] if isinstance(a, str)]
        if isinstance(outer.get("architectures"), list) else [],
        special_ids=special_ids(outer, config),
        deepstack_layers=_deepstack_layers(outer),
        quantized=isinstance(outer.get("quantization_config"), dict)
        or isinstance(config.get("quantization_config"), dict),
        whole=outer,
    )


def overridden(target: Target, overrides: dict) -> Target:
    """`target` as the server sees it with `overrides` (vLLM's --hf-overrides) set on its
    config: a nested config (`text_config`, ...) is updated key by key, any other key,
    dict-valued ones included, replaced (vllm==0.33.0 config/model.py:555-570)."""
    def merged(base: dict, over: dict) -> dict:
        out = dict(base)
        for key, value in over.items():
            nested = key.endswith("_config") and key != "quantization_config"
            out[key] = merged(out[key], value) if nested and isinstance(value, dict) and \
                isinstance(out.get(key), dict) else value
        return out

    out = target_of(merged(target.whole, overrides), target.display)
    return replace(out, tokenizer=target.tokenizer, notes=target.notes)
