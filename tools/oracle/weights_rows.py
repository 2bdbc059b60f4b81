"""Write drafter_lint/runtimes/loads.json from the oracle lane's weights layer.

For each runtime release and draft class, the parameters that every load of a published
drafter (a corpus case whose verdict is good, the tiny Qwen3.6 drafter, the header
manifests; never a variant) left unfilled: placeholders the release does not read.
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

OUT = ROOT / "drafter_lint" / "runtimes" / "loads.json"


def published(source: str, good: set[str]) -> bool:
    """A pair whose files are a published drafter's, unchanged."""
    if " + " in source:                     # a variant: one edit on a shipped pair
        return False
    if source.startswith("fixtures/published/"):
        return source.rsplit("/", 1)[-1] in good
    return source.startswith(("fixtures/manifests/", "fixtures/tiny-qwen3.6/drafter"))


def observed() -> dict[tuple[str, str], dict[str, frozenset]]:
    """(runtime, draft class) -> {version: parameters every published load left unfilled}."""
    good = {c.id for c in cases() if c.meta.get("verdict") == "good"}
    found: dict = {}
    for document in golden():
        for record in document["launches"]:
            weights, resolved = record.get("weights") or {}, record.get("resolved") or {}
            if "unfilled" not in weights or not published(record["source"], good):
                continue
            key = (document["runtime"], resolved.get("draft_class", ""))
            seen = found.setdefault(key, {})
            unfilled = frozenset(weights["unfilled"])
            version = document["version"]
            seen[version] = seen[version] & unfilled if version in seen else unfilled
    return found


def rows() -> list[dict]:
    """Runs of releases with the same value; a run never spans a release that was not
    executed (its loader may differ)."""
    out = []
    for (runtime, draft_class), by_version in sorted(observed().items()):
        run, order = None, KNOWN[runtime]
        for version in sorted(by_version, key=version_key):
            value = sorted(by_version[version])
            if run and run["placeholders"] == value and \
                    order.index(version) == order.index(run["until"]) + 1:
                run["until"] = version
                continue
            run = {"runtime": runtime, "draft_class": draft_class, "since": version,
                   "until": version, "placeholders": value}
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
