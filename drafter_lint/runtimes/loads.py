"""What each release's weight loading leaves unfilled in a good checkpoint, by draft class:
the parameters its model declares but no published checkpoint fills, because the release
never reads them (vllm==0.33.0 model_executor/models/qwen3_dflash.py:457-461: DFlash's
`mask_embedding` is a placeholder unless a `mask_embedding.pt` ships).

loads.json is written by `python tools/oracle/weights_rows.py` from the oracle lane's
weights layer (tests/data/oracle/<runtime>-<version>.json, `weights.unfilled` of the
launches of published drafters), as runs of releases with the same value. A parameter a
load leaves unfilled beyond these (and beyond what the runtime shares from the target
afterwards) keeps its random initialization: the launch starts and drafts garbage.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from packaging.version import InvalidVersion, Version

from drafter_lint.runtimes.releases import version_key


@functools.lru_cache(maxsize=1)
def _rows() -> tuple[dict, ...]:
    return tuple(json.loads(Path(__file__).with_name("loads.json").read_text(
        encoding="utf-8"))["rows"])


def placeholders(runtime: str, version: str, draft_class: str) -> frozenset[str] | None:
    """The parameters `draft_class` leaves unfilled in good checkpoints at this release
    (a local build `0.33.0+cu128` or a `.postN` is its base release); None when no load
    of that class at that release was recorded, or the version is no release number."""
    try:
        at = version_key(Version(version).base_version)
    except InvalidVersion:
        return None
    for row in _rows():
        if row["runtime"] == runtime and row["draft_class"] == draft_class and \
                version_key(row["since"]) <= at <= version_key(row["until"]):
            return frozenset(row["placeholders"])
    return None


def left_at_init(runtime: str, version: str, draft_class: str,
                 unfilled) -> tuple[list[str], bool]:
    """(the parameters a load left unfilled beyond the class's placeholders at this
    release, whether that class's loads at this release are recorded at all). Unrecorded,
    every unfilled parameter is listed: the caller decides what an unknown baseline means."""
    known = placeholders(runtime, version, draft_class)
    return [name for name in unfilled if name not in (known or ())], known is not None
