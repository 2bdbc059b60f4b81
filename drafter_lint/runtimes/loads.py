"""How each release's own weight loading reads a good checkpoint, by draft class, as the
oracle lane executed it (the release's `load_weights` over meta tensors from the headers):
- the parameters its model declares but no published checkpoint fills, because the release
  never reads them (vllm==0.33.0 model_executor/models/qwen3_dflash.py:457-461: DFlash's
  `mask_embedding` is a placeholder unless a `mask_embedding.pt` ships);
- where the run recorded which parameter each tensor filled: that name map (layer numbers
  as `{i}`), the tensors the loader reads into nothing, and the parameters every good load
  filled (`needs`).

loads.json is written by `python tools/oracle/weights_rows.py` from the oracle lane's
weights layer (tests/data/oracle/<runtime>-<version>.json, the `weights` of the launches
of published drafters), as runs of releases with the same value. A parameter a load
leaves unfilled beyond the placeholders (and beyond what the runtime shares from the
target afterwards) keeps its random initialization: the launch starts and drafts garbage.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from drafter_lint.runtimes.releases import version_key


NUMBER = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.)")


def pattern(name: str) -> str:
    """`name` with each layer number written `{i}`: `model.layers.3.mlp.down_proj.weight`
    -> `model.layers.{i}.mlp.down_proj.weight`."""
    return NUMBER.sub("{i}", name)


def numbers(name: str) -> list[str]:
    return NUMBER.findall(name)


def fill(template: str, values: list[str]) -> str | None:
    """`template` with its `{i}`s replaced by `values` in order (None: the counts differ)."""
    parts = template.split("{i}")
    if len(parts) != len(values) + 1:
        return None
    return "".join(p + v for p, v in zip(parts, values)) + parts[-1]


@dataclass(frozen=True)
class Loader:
    """What a release's loads of one draft class showed (a loads.json row)."""

    runtime: str
    draft_class: str
    since: str
    until: str
    architectures: frozenset[str]
    took: dict            # tensor pattern -> parameter pattern
    drops: frozenset[str]  # tensor patterns read into nothing
    needs: frozenset[str]  # parameters every good load filled
    placeholders: frozenset[str]


@functools.lru_cache(maxsize=1)
def _rows() -> tuple[dict, ...]:
    return tuple(json.loads(Path(__file__).with_name("loads.json").read_text(
        encoding="utf-8"))["rows"])


def _row(runtime: str, version: str, matches) -> dict | None:
    """The row of `runtime` whose release range holds `version` (a local build `0.33.0+cu128`
    or a `.postN` is its base release) and that `matches`; None when none does, or the
    version is no release number."""
    try:
        at = version_key(Version(version).base_version)
    except InvalidVersion:
        return None
    return next((row for row in _rows() if row["runtime"] == runtime and matches(row) and
                 version_key(row["since"]) <= at <= version_key(row["until"])), None)


def placeholders(runtime: str, version: str, draft_class: str) -> frozenset[str] | None:
    """The parameters `draft_class` leaves unfilled in good checkpoints at this release;
    None when no load of that class at that release was recorded."""
    row = _row(runtime, version, lambda r: r["draft_class"] == draft_class)
    return frozenset(row["placeholders"]) if row is not None else None


def left_at_init(runtime: str, version: str, draft_class: str,
                 unfilled) -> tuple[list[str], bool]:
    """(the parameters a load left unfilled beyond the class's placeholders at this
    release, whether that class's loads at this release are recorded at all). Unrecorded,
    every unfilled parameter is listed: the caller decides what an unknown baseline means."""
    known = placeholders(runtime, version, draft_class)
    return [name for name in unfilled if name not in (known or ())], known is not None


def loader(runtime: str, version: str, architecture: str) -> Loader | None:
    """The name map of the class a release builds for `architecture` at `version`; None
    where no load of it recorded names."""
    row = _row(runtime, version, lambda r: architecture in r.get("architectures", ()))
    if row is None:
        return None
    return Loader(row["runtime"], row["draft_class"], row["since"], row["until"],
                  frozenset(row["architectures"]), dict(row["took"]), frozenset(row["drops"]),
                  frozenset(row["needs"]), frozenset(row["placeholders"]))
