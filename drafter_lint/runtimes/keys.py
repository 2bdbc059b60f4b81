"""Every fact key, declared once with the type of its value (and, for a value read whole
from the wheels, how registries.json's JSON becomes it). A row of table.py whose key is not
declared here (or beside its rows with `declare`), or whose value is not of its type,
fails at import; a look-up in rows.py of a key not declared raises instead of answering
None."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from drafter_lint.runtimes.policy import RunnerPolicy


@dataclass(frozen=True)
class Type:
    """What a key's values are: `name` in words, `holds(value)` the test."""

    name: str
    holds: Callable[[object], bool]
    decode: Callable[[object], object] | None = None   # registries.json's JSON -> a value


def _strings(value) -> bool:
    return all(isinstance(v, str) for v in value)


def _choice(*names: str) -> Type:
    return Type(" / ".join(names), lambda v: v in names)


def _mapping(name: str, test: Callable[[object], bool]) -> Type:
    return Type(name, lambda v: isinstance(v, dict) and _strings(v) and
                all(test(x) for x in v.values()))


def _sets(value: dict) -> dict:
    """A run's dict of lists as sets (`substrings` kept in order, as a tuple)."""
    return {k: tuple(v) if k == "substrings" else frozenset(v) if isinstance(v, list) else v
            for k, v in value.items()}


BOOL = Type("bool", lambda v: type(v) is bool)
INT = Type("int (an offset)", lambda v: type(v) is int)
TEXT = Type("str", lambda v: isinstance(v, str))
NAMES = Type("frozenset of str", lambda v: isinstance(v, frozenset) and _strings(v))
ORDERED = Type("tuple of str, in the order read", lambda v: isinstance(v, tuple) and _strings(v))
POINTERS = Type("tuple of JSON pointers, first found wins",
                lambda v: isinstance(v, tuple) and all(isinstance(p, str) and p.startswith("/")
                                                        for p in v))
# pointers, then "sliding" (causal iff the layer slides) or "non-causal" (every layer)
CAUSAL = Type("tuple of JSON pointers, then 'sliding' or 'non-causal'",
              lambda v: isinstance(v, tuple) and all(
                  isinstance(p, str) and (p.startswith("/") or p in ("sliding", "non-causal"))
                  for p in v))
TAPS = Type("tuple of (JSON pointer, shift to the capture index)",
            lambda v: isinstance(v, tuple) and all(
                isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str)
                and t[0].startswith("/") and type(t[1]) is int for t in v))
POLICY = Type("RunnerPolicy", lambda v: isinstance(v, RunnerPolicy), RunnerPolicy.read)
SET_MAP = Type("dict of str -> frozenset or tuple of str",
               lambda v: isinstance(v, dict) and _strings(v) and all(
                   isinstance(x, (frozenset, tuple)) and _strings(x) for x in v.values()),
               _sets)
# family -> method names a launch may give (None: no method given, the config decides)
METHODS = _mapping("dict of family -> tuple of method names (None: none given)",
                   lambda x: isinstance(x, tuple) and all(m is None or isinstance(m, str)
                                                          for m in x))
# method -> (prefix added, prefixes kept, suffixes kept, names kept)
REWRITES = _mapping("dict of method -> (prefix, prefixes, suffixes, names)",
                    lambda x: isinstance(x, tuple) and len(x) == 4 and isinstance(x[0], str)
                    and all(isinstance(p, tuple) and _strings(p) for p in x[1:]))

KEYS: dict[str, Type] = {
    "runner.v2-policy": POLICY,
    "runner.v1-refuses-mixed-swa": BOOL,
    "launch.method-names-validated": BOOL,
    "runner.v1-refuses-dflash2": BOOL,
    "dflash.refuses-mixed-swa": BOOL,
    "dflash.mask-sources": POINTERS,
    "speculators.dflash-mask-mapped": BOOL,
    "dflash.tap-sources": TAPS,
    "dflash.depth-without-num-target-layers": _choice("max-tap", "draft-depth"),
    "dflash.derives-missing-taps": BOOL,
    "dflash.captures-last-layer": BOOL,
    "dflash.checks-num-target-layers": BOOL,
    "dflash.requires-num-target-layers": BOOL,
    "dflash.null-window-with-sliding-layers": _choice("start-up", "silent"),
    "dflash.window-sources": POINTERS,
    "dflash.reads-use-swa": BOOL,
    "dflash.causal-sources": CAUSAL,
    "speculators.non-causal-flag-global": BOOL,
    "dflash.block-size-sources": POINTERS,
    "dflash.tokens-per-block": INT,
    "dflash.sample-from-anchor-refused": BOOL,
    "dspark.tokens-per-block": _mapping("dict of layout -> int (an offset)",
                                        lambda x: type(x) is int),
    "dspark.sample-from-anchor-default": _mapping("dict of format -> bool",
                                                  lambda x: type(x) is bool),
    "dspark.exact-token-architectures": NAMES,
    "dspark.self-contained-model-types": ORDERED,
    "dspark.markov-rank-sources": POINTERS,
    "eagle3.embedding-always-shared": BOOL,
    "eagle3.v0-unless-v1-asked": BOOL,
    "sglang.hybrid-spec-refuses-radix": NAMES,
    "eagle3.draft-extend-logits-copied-whole": BOOL,
    "dspark.d2t-required-when": _choice("differs", "smaller", "never"),
    "speculators.verifier-must-be-a-repo": BOOL,
    "serves.dflash": BOOL,
    "serves.dflash2": Type("bool or 'v2-runner'", lambda v: type(v) is bool or v == "v2-runner"),
    "serves.dspark": BOOL,
    "serves.eagle": BOOL,
    "serves.eagle3": BOOL,
    "serves.medusa": BOOL,
    "serves.mtp": BOOL,
    "serves.speculators": ORDERED,
    "launch.methods": METHODS,
    "eagle3.aux-sources": POINTERS,
    "eagle3.aux-convention": _choice("input", "output"),
    "eagle3.aux-shift-if-first-is-one": NAMES,
    "eagle3.one-layer-architectures": NAMES,
    "eagle3.tied-head-is-embedding": NAMES,
    "eagle3.requires-architectures": BOOL,
    "eagle3.requires-draft-vocab-size": NAMES,
    "eagle3.requires-draft-vocab-size-untied": NAMES,
    "eagle3.fc-count-sources": POINTERS,
    "eagle3.reads-3.1-flags": ORDERED,
    "eagle3.reads-use-aux-hidden-state": BOOL,
    "eagle3.reads-norm-before-residual": BOOL,
    "eagle3.head-from-target-only-without-draft-vocab": BOOL,
    "eagle3.target-architectures": NAMES,
    "draft.raises-max-position-for": NAMES,
    "draft.raises-max-position-methods": NAMES,
    "draft.short-context-refused": ORDERED,
    "draft.short-context-raised": BOOL,
    "rope.partial-rotary-applied": BOOL,
    "mtp.shares-target-lm-head": BOOL,
    "mtp.mapped-targets": SET_MAP,
    "mtp.unquantized-fc-under": SET_MAP,
    "mtp.unquantized-layers-under-dynamic-mtp": NAMES,
    "mtp.quark-unquantized-when": _choice("never", "any-mtp-excluded", "mtp-experts-excluded"),
    "mtp.fused-names-expanded": NAMES,
    "registry.architectures": NAMES,
    "registry.draft-rewrite": REWRITES,
    "config.unknown-model-types": NAMES,
    "config.model-types": NAMES,
    "aux.target-model-types": SET_MAP,
    "vllm.legacy-speculative-flags": BOOL,
    "quant.moe-exclusions-read": NAMES,
    "transformers.pin": TEXT,
}


def declare(key: str, kind: Type) -> str:
    """Declare a new key beside its rows in table.py (its type, rows and probes then live
    in one place); a key declared twice raises. Returns the key, for the rows to use."""
    if key in KEYS:
        raise ValueError(f"fact key {key!r} is declared twice")
    KEYS[key] = kind
    return key


def declared(key: str) -> Type:
    """The type of `key`'s values; an undeclared key (a typo) raises KeyError."""
    try:
        return KEYS[key]
    except KeyError:
        raise KeyError(f"fact key {key!r} is not declared in runtimes/keys.py") from None


def check(key: str, value: object) -> None:
    """Raise unless `key` is declared and `value` is of its type."""
    kind = declared(key)
    if not kind.holds(value):
        raise TypeError(f"fact {key!r}: {value!r} is not a {kind.name}")


def decode(key: str, value: object) -> object:
    """`value` (registries.json's JSON, or an extractor's) as the rows of `key` hold it."""
    kind = declared(key)
    return kind.decode(value) if kind.decode else value
