"""The model architectures each runtime release registers: the class names a config's
`architectures` must resolve to, or the server refuses to start.

registries.json holds them for every recorded release, as runs of releases with the same
set (each the change from the run before), what vLLM's `method: mtp` maps, the runner
policy and the transformers each release pins (each run's value parsed by its key's type,
runtimes/keys.py), written by `python tools/oracle/release_evidence.py --registries` with
`ast` from the wheels:
- vLLM: the keys of `_VLLM_MODELS` and the `_*_MODELS` dicts it merges, in
  vllm/model_executor/models/registry.py (unregistered: "Model architectures [...] are
  not supported for now", vllm==0.33.0 registry.py:1249-1252; the same message from 0.8.0,
  registry.py:396).
- SGLang: the `EntryClass` of every module under sglang/srt/models, which
  `import_model_classes` registers by class name (sglang==0.5.23 models/registry.py:117-150;
  unregistered and not a transformers class: "Cannot find model module",
  model_loader/utils.py:154-161, the same from 0.5.0rc0, utils.py:52).
"""

from __future__ import annotations

import json
from pathlib import Path

from drafter_lint.runtimes import keys

_HISTORY = json.loads((Path(__file__).with_name("registries.json")).read_text(
    encoding="utf-8"))


def runs(key: str) -> list[tuple[str, str, str, object, str]]:
    """(runtime, since, until, value, where read) for each run of releases of `key`."""
    out = []
    for runtime, found in _HISTORY.get(key, {}).items():     # none yet: a new key
        names: frozenset = frozenset()
        for run in found:
            if "value" in run:
                value = keys.decode(key, run["value"])
            else:
                names = (names - frozenset(run["removed"])) | frozenset(run["added"])
                value = names
            out.append((runtime, run["since"], run["until"], value, run["at"]))
    return out
