"""Where each ranged runtime fact starts and stops, read from the released wheels.

    python tests/oracle/release_evidence.py [--cache DIR]     # writes tests/data/release-evidence.json

For every probe below (one per end of a fact row's `since`/`until` range), it downloads the
releases on both sides of the boundary (`pip download --no-deps`), keeps only the probed
file (in DIR, default ~/.cache/drafter-lint/release-files), searches it, and records
`path:line` where the code is found and the releases where it is not. tests/test_runtimes.py
checks that every ranged row of rules/runtimes.py has this evidence at both ends. Adding a
release or moving a range is: edit the row, add or adjust its probe, run this, review the
diff. Each vLLM wheel is ~400 MB to download (only the probed files are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "data" / "release-evidence.json"

# (fact key, runtime, which end, file in the wheel, pattern, release where it holds, the
# neighbouring release where it does not). "since": the code appears at `holds`; "until":
# the code that made the row true is gone at `absent` (the row's `until`).
PROBES = [
    ("mtp.unquantized-fc-under", "vllm", "since",
     "vllm/model_executor/models/qwen3_5_mtp.py", r'get_name\(\) == "modelopt_fp4"',
     "0.20.0", "0.19.1"),
    ("draft.raises-max-position-for", "vllm", "since", "vllm/config/speculative.py",
     r"_CACHE_ONLY_ROPE_TYPES = frozenset", "0.33.0", "0.32.0"),
    ("draft.raises-max-position-for", "vllm", "since", "vllm/config/speculative.py",
     r"def _maybe_override_draft_max_position_embeddings", "0.27.0", "0.26.0"),
    ("serves.medusa", "vllm", "until", "vllm/config/speculative.py", r'^\s*"medusa",',
     "0.32.0", "0.33.0"),
    ("launch.methods", "vllm", "until", "vllm/config/speculative.py", r'^\s*"medusa",',
     "0.32.0", "0.33.0"),
    ("speculators.verifier-must-be-a-repo", "vllm", "since",
     "vllm/transformers_utils/config.py", r"Speculators verifier must name a remote model",
     "0.33.0", "0.32.0"),
    ("registry.architectures", "vllm", "since", "vllm/model_executor/models/registry.py",
     r'"DFlash2BeamDraftModel"', "0.33.0", "0.32.0"),
    ("registry.architectures", "vllm", "until", "vllm/model_executor/models/registry.py",
     r'"MedusaModel"', "0.32.0", "0.33.0"),
    ("draft.short-context-refused", "sglang", "since", "sglang/srt/configs/model_config.py",
     r"get_bool_env_var\(\s*\"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN\"\s*\)",
     "0.5.1", "0.5.0rc2"),
    # SGLang's drafter model classes: registered from the release whose models/ has them
    ("serves.dflash", "sglang", "since", "sglang/srt/models/dflash.py",
     r"^EntryClass = \[?DFlashDraftModel", "0.5.11", "0.5.10"),
    ("serves.dflash2", "sglang", "since", "sglang/srt/models/dflash.py",
     r"^class DFlash2DraftModel\(", "0.5.19", "0.5.18"),
    ("serves.dspark", "sglang", "since", "sglang/srt/models/dspark.py",
     r"^EntryClass = \[Qwen3DSparkModel", "0.5.16", "0.5.15"),
]


def release_file(cache: Path, package: str, version: str, path: str) -> Path | None:
    """`path` from the `package==version` wheel, cached; None when the wheel lacks it."""
    kept = cache / f"{package}-{version}" / path
    missing = cache / f"{package}-{version}" / (path + ".absent")
    if kept.is_file():
        return kept
    if missing.is_file():
        return None
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        f"{package}=={version}", "-d", work], check=True)
        wheel = next(Path(work).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            names = set(archive.namelist())
            for probe in PROBES:          # keep every probed file of this wheel at once
                name = probe[3]
                target = cache / f"{package}-{version}" / name
                target.parent.mkdir(parents=True, exist_ok=True)
                if name in names:
                    target.write_bytes(archive.read(name))
                else:
                    Path(str(target) + ".absent").write_text("")
    return kept if kept.is_file() else None


def search(file: Path | None, pattern: str) -> int | None:
    """The line of the first match of `pattern` (multi-line aware), or None."""
    if file is None:
        return None
    text = file.read_text(encoding="utf-8", errors="replace")
    found = re.search(pattern, text, re.M)
    return text.count("\n", 0, found.start()) + 1 if found else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path,
                        default=Path(os.path.expanduser("~/.cache/drafter-lint/release-files")))
    parser.add_argument("--only", action="append", default=[], metavar="KEY",
                        help="probe only the rows of KEY (repeatable); the other records "
                             "are kept as committed")
    args = parser.parse_args()
    records = []
    if args.only:
        records = [r for r in json.loads(OUT.read_text())["probes"]
                   if r["key"] not in args.only]
    for key, runtime, end, path, pattern, holds, absent in PROBES:
        if args.only and key not in args.only:
            continue
        at = search(release_file(args.cache, runtime, holds, path), pattern)
        gone = search(release_file(args.cache, runtime, absent, path), pattern)
        if at is None or gone is not None:
            print(f"{key} ({runtime}, {end}): the probe does not separate {holds} from "
                  f"{absent}; fix the probe or the range", file=sys.stderr)
            return 1
        records.append({"key": key, "runtime": runtime, "end": end, "pattern": pattern,
                        "holds": {"release": holds, "at": f"{runtime}=={holds} {path}:{at}"},
                        "absent": {"release": absent, "in": f"{runtime}=={absent} {path}"}})
        print(f"{key} ({runtime}, {end}): {runtime}=={holds} {path}:{at}; absent in {absent}")
    order = {(p[0], p[1], p[2], p[4]): i for i, p in enumerate(PROBES)}
    records.sort(key=lambda r: order.get((r["key"], r["runtime"], r["end"], r["pattern"]),
                                         len(order)))
    OUT.write_text(json.dumps({"made_by": "tests/oracle/release_evidence.py",
                               "probes": records}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
