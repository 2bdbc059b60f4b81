"""The releases of vLLM and SGLang on the package index that the tool does not record.

    python tools/releases.py                 # both runtimes
    python tools/releases.py --runtime sglang

Asks the index's JSON API (pypi.org's, or --index URL's) for every released version,
yanked ones aside, and lists those outside runtimes.PUBLISHED: newer than the newest recorded
(a release to record), between recorded ones (a release the table skipped), older than
the oldest (outside the table's range), and `.postN` builds of recorded releases (the
tool answers for them with their base's facts, and says so). Recording one is the
maintenance of CONTRIBUTING.md's "Add a runtime fact" (release_evidence.py, the grammar
and the oracle lane).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from packaging.version import InvalidVersion, Version  # noqa: E402

from drafter_lint import runtimes  # noqa: E402


def released(name: str, index: str) -> list[str]:
    """Every version of `name` the index lists with at least one file not yanked."""
    with urllib.request.urlopen(f"{index.rstrip('/')}/{name}/json", timeout=30) as reply:
        data = json.load(reply)
    out = []
    for version, files in data.get("releases", {}).items():
        if files and not all(f.get("yanked") for f in files):
            out.append(version)
    return out


def unrecorded(name: str, versions: list[str]) -> dict[str, list[str]]:
    """The versions outside the table, by kind: newer, skipped, older, post."""
    recorded = runtimes.PUBLISHED[name]
    known = {Version(v) for v in recorded}
    oldest, newest = Version(recorded[0]), Version(recorded[-1])
    kinds: dict[str, list[str]] = {"newer": [], "skipped": [], "older": [], "post": []}
    for text in versions:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if version in known:
            continue
        if version.is_postrelease and Version(version.base_version) in known:
            kinds["post"].append(text)
        elif version > newest:
            kinds["newer"].append(text)
        elif version < oldest:
            kinds["older"].append(text)
        elif not version.is_prerelease:
            kinds["skipped"].append(text)
    return {k: sorted(v, key=Version) for k, v in kinds.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", choices=sorted(runtimes.PUBLISHED), action="append")
    parser.add_argument("--index", default="https://pypi.org/pypi",
                        help="a JSON API base (default: %(default)s)")
    options = parser.parse_args()
    missing = False
    for name in options.runtime or sorted(runtimes.PUBLISHED):
        kinds = unrecorded(name, released(name, options.index))
        recorded = runtimes.PUBLISHED[name]
        print(f"{runtimes.LABEL[name]}: {len(recorded)} recorded, "
              f"{recorded[0]} to {recorded[-1]}")
        for kind, versions in kinds.items():
            if versions:
                missing = missing or kind in ("newer", "skipped")
                print(f"  {kind}: {', '.join(versions)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
