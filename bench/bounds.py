"""Time and peak memory of `check` on the worst inputs under the caps:
`python bench/bounds.py`. Each case runs in a fresh process (VmHWM of that process; the
transformers loader child is separate and has its own 120 s timeout)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "fixtures" / "tiny-qwen3.6" / "drafter"
MEASURE = """
import sys, time
from drafter_lint.cli import main
sys.argv = ["drafter-lint", "check", *sys.argv[1:], "--format", "json", "-o", "/dev/null",
            "--no-cache"]
started = time.monotonic()
code = main()
peak = next(int(line.split()[1]) for line in open("/proc/self/status")
            if line.startswith("VmHWM"))
print(time.monotonic() - started, peak, code)
"""


def case(root: Path, name: str, edit) -> Path:
    folder = root / name
    shutil.copytree(TINY, folder)
    config = json.loads((folder / "config.json").read_text())
    edit(config)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases = {
            "1.3M-element tap list (3.9 MB)": case(root, "array", lambda c: c["dflash_config"]
                                                   .__setitem__("target_layer_ids",
                                                                [0] * 1_300_000)),
            "200k keys (3.6 MB)": case(root, "object", lambda c: c.__setitem__(
                "extra", {f"k{i}": i for i in range(200_000)})),
        }
        print(f"{'input':<34} {'options':<12} {'seconds':>8} {'peak MB':>8}")
        for label, folder in cases.items():
            size = (folder / "config.json").stat().st_size / 1e6
            for options in (["--ignore", "TF"], []):
                run = subprocess.run([sys.executable, "-c", MEASURE, str(folder), *options],
                                     capture_output=True, text=True, cwd=root, timeout=300)
                seconds, peak, _ = run.stdout.split()
                print(f"{label:<34} {' '.join(options) or 'all rules':<12} "
                      f"{float(seconds):8.2f} {int(peak) / 1024:8.0f}   "
                      f"({float(seconds) / size:.2f} s/MB)")


if __name__ == "__main__":
    main()
