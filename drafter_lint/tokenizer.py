"""Tokenizer facts from `tokenizer.json` / `tokenizer_config.json`: which ids are text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint.bounded import read_regular, special_kind
from drafter_lint.errors import TokenizerError
from drafter_lint.findings import describe
from drafter_lint.readonly import view


@dataclass(frozen=True)
class TokenizerFacts:
    """`ordinary`: id -> token of the model's own vocabulary; `added`: id -> (token, special).
    Read-only views once made (of the tables its maker hands over: no copy)."""

    ordinary: Mapping[int, str] = field(default_factory=dict)
    added: Mapping[int, tuple[str, bool]] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self):
        object.__setattr__(self, "ordinary", view(self.ordinary))
        object.__setattr__(self, "added", view(self.added))

    def is_text_token(self, token_id: int) -> bool:
        """True when `token_id` is a plain vocabulary token (not an added/special one)."""
        return token_id in self.ordinary and token_id not in self.added


TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
MAX_TOKENIZER_BYTES = 64 * 1024 * 1024


def read_tokenizer(folder: Path, label: str = "") -> TokenizerFacts | None:
    """Facts from the tokenizer files in `folder` (named `label` in messages), or None."""
    tokenizer_json = folder / "tokenizer.json"
    config_json = folder / "tokenizer_config.json"
    for path in (tokenizer_json, config_json):
        if path.exists() and not path.is_file():
            raise TokenizerError(f"{path.name}: not a regular file "
                                 f"({special_kind(path.stat().st_mode)}); not read")
    if not tokenizer_json.is_file() and not config_json.is_file():
        return None
    ordinary: dict[int, str] = {}
    added: dict[int, tuple[str, bool]] = {}
    sources = []
    if tokenizer_json.is_file():
        data = _load(tokenizer_json)
        sources.append("tokenizer.json")
        model = data.get("model") if isinstance(data.get("model"), dict) else {}
        vocab = model.get("vocab")
        if isinstance(vocab, dict):          # BPE, WordPiece, WordLevel
            ordinary = {i: t for t, i in vocab.items() if type(i) is int}
        elif isinstance(vocab, list):        # Unigram: [[token, score], ...]
            ordinary = {i: e[0] for i, e in enumerate(vocab)
                        if isinstance(e, list) and e and isinstance(e[0], str)}
        listed = data.get("added_tokens")
        for entry in listed if isinstance(listed, list) else []:
            if isinstance(entry, dict) and type(entry.get("id")) is int:
                added[entry["id"]] = (str(entry.get("content", "")),
                                      bool(entry.get("special", False)))
    if config_json.is_file():
        data = _load(config_json)
        sources.append("tokenizer_config.json")
        decoder = data.get("added_tokens_decoder")
        if isinstance(decoder, dict):
            for key, entry in decoder.items():
                if key.isdigit() and isinstance(entry, dict):
                    added.setdefault(int(key), (str(entry.get("content", "")),
                                                bool(entry.get("special", False))))
    return TokenizerFacts(ordinary, added, f"{label} " * bool(label) + " + ".join(sources))


def _load(path: Path) -> dict:
    try:
        raw = read_regular(path, MAX_TOKENIZER_BYTES)
        if len(raw) > MAX_TOKENIZER_BYTES:
            raise TokenizerError(f"{path.name}: over the {MAX_TOKENIZER_BYTES >> 20} MiB "
                                 f"limit; refused unparsed")
        data = json.loads(raw.decode("utf-8"))
    except TokenizerError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TokenizerError(f"{path.name}: {describe(exc)}") from None
    if not isinstance(data, dict):
        raise TokenizerError(f"{path.name}: not a JSON object")
    return data
