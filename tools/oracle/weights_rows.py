"""Write drafter_lint/runtimes/loads.json from the oracle lane's weights layer.

For each runtime release and draft class, from every load of a published drafter (a
corpus case whose verdict is good, the tiny Qwen3.6 drafter, the header manifests; never a
variant):
- `placeholders`: the parameters every such load left unfilled (the release never reads
  them);
- where the loads recorded which parameter each tensor filled (`took`): `architectures`,
  the draft architectures those launches looked up; `took`, tensor name -> parameter
  name, with layer numbers written `{i}` where the loader keeps them; `drops`, the
  tensor names the loader read into nothing; `needs`, the parameters every such load
  filled (not those the runtime shares from the target, nor those its loader skips when
  the checkpoint has none).
A load that dropped tensors and left parameters unfilled is a name mismatch (the data
went nowhere, the parameters got nothing), not a good load: it counts for neither.
Consecutive recorded releases with the same value become one row (since, until).

    .venv/bin/python tools/oracle/weights_rows.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "oracle"))    # judge: the recorded verdicts
sys.path.insert(0, str(ROOT / "tests"))               # corpus: the published pairs

from corpus import cases  # noqa: E402
from judge import golden  # noqa: E402

from drafter_lint.runtimes import KNOWN, version_key  # noqa: E402
from drafter_lint.runtimes.loads import numbers, pattern  # noqa: E402

OUT = ROOT / "drafter_lint" / "runtimes" / "loads.json"
# what both runtimes share from the target when the draft ships none (vllm==0.33.0
# v1/spec_decode/llm_base_proposer.py:1418-1560; sglang==0.5.23 speculative/eagle_worker.py
# set_embed_and_head): never a parameter a checkpoint must fill
SHARED = ("model.embed_tokens.", "model.embedding.", "lm_head.", "embed_tokens.")
# what the draft loaders skip when the checkpoint has no tensor for it, on some path:
# vllm==0.25.0 models/llama_eagle3.py:417-426 (the vocabulary map, embeddings, fc without
# aux hidden states, input_norm without norm_before_fc, parallel drafting's mask_hidden),
# qwen3_dflash.py:783-791 (the same, and the mask embedding): never asked for
OPTIONAL = ("draft_id_to_target_id", "embed_tokens", "fc.", "input_norm.", "mask_hidden",
            "mask_embedding")


def _names(took: dict) -> dict:
    """tensor -> parameter, by pattern where the loader keeps the layer numbers, else as
    written (EAGLE-3's `midlayer.*` fills `model.layers.0.*`)."""
    out = {}
    for tensor, parameter in took.items():
        if numbers(tensor) == numbers(parameter):
            out[pattern(tensor)] = pattern(parameter)
        else:
            out[tensor] = parameter
    return out


def published(source: str, good: set[str]) -> bool:
    """A pair whose files are a published drafter's, unchanged."""
    if " + " in source:                     # a variant: one edit on a shipped pair
        return False
    if source.startswith("fixtures/published/"):
        return source.rsplit("/", 1)[-1] in good
    return source.startswith(("fixtures/manifests/", "fixtures/tiny-qwen3.6/drafter"))


def _merge(seen: dict | None, weights: dict, architecture: str | None) -> dict:
    """What the loads of one class at one release agree on, with one more load."""
    took = weights.get("took")
    one = {"placeholders": frozenset(weights["unfilled"])}
    if took is not None:
        one.update(architectures=frozenset([architecture] if architecture else ()),
                   took=_names(took),
                   drops=frozenset(pattern(t) for t in weights["dropped"]),
                   needs=frozenset(p for p in took.values() if not p.startswith(SHARED)
                                   and not any(o in p for o in OPTIONAL)))
    if seen is None:
        return one
    out = {"placeholders": seen["placeholders"] & one["placeholders"]}
    if "took" in seen and "took" in one:     # every load of the release recorded names
        out.update(architectures=seen["architectures"] | one["architectures"],
                   took={**seen["took"], **one["took"]},
                   drops=seen["drops"] | one["drops"],
                   needs=seen["needs"] & one["needs"])
    return out


def observed() -> dict[tuple[str, str], dict[str, dict]]:
    """(runtime, draft class) -> {version: what every published load agrees on}."""
    good = {c.id for c in cases() if c.meta.get("verdict") == "good"}
    found: dict = {}
    for document in golden():
        for record in document["launches"]:
            weights, resolved = record.get("weights") or {}, record.get("resolved") or {}
            if "unfilled" not in weights or not published(record["source"], good):
                continue
            if weights["unfilled"] and weights["dropped"]:
                continue                            # a name mismatch: not a good load
            key = (document["runtime"], resolved.get("draft_class", ""))
            seen = found.setdefault(key, {})
            version = document["version"]
            architecture = (resolved.get("draft_architectures") or
                            resolved.get("architectures") or [None])[0]
            seen[version] = _merge(seen.get(version), weights, architecture)
    return found


RUN = ("runtime", "draft_class", "since", "until")


def _row_value(merged: dict) -> dict:
    return {key: (dict(sorted(value.items())) if isinstance(value, dict) else sorted(value))
            for key, value in merged.items()}


def rows() -> list[dict]:
    """Runs of releases with the same value; a run never spans a release that was not
    executed (its loader may differ)."""
    out = []
    for (runtime, draft_class), by_version in sorted(observed().items()):
        run, order = None, KNOWN[runtime]
        for version in sorted(by_version, key=version_key):
            value = _row_value(by_version[version])
            if run and {k: v for k, v in run.items() if k not in RUN} == value and \
                    order.index(version) == order.index(run["until"]) + 1:
                run["until"] = version
                continue
            run = {"runtime": runtime, "draft_class": draft_class, "since": version,
                   "until": version, **value}
            out.append(run)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when loads.json is stale")
    args = parser.parse_args()
    text = json.dumps({"made_by": "tools/oracle/weights_rows.py", "rows": rows()},
                      indent=1) + "\n"
    if args.check:
        stale = not OUT.is_file() or OUT.read_text() != text
        print("loads.json is stale: run tools/oracle/weights_rows.py" if stale else "ok")
        return 1 if stale else 0
    OUT.write_text(text)
    print(f"{OUT.name}: {text.count('draft_class')} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
