"""`check org/name` of a hub repo without downloading it: `python bench/remote.py --runs 5`.

Serves the published Qwen3.6-27B-DFlash layout (a 3.46 GB sparse weights file) from the
tests' local fake hub (tests/fakehub.py, 127.0.0.1 only) and measures whole `check`
processes: cold (empty caches) and warm (the commit already fetched), wall time and bytes
of the weights file sent.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fakehub import FakeHub  # noqa: E402
from sparse import FIXTURES, load_manifest, write_safetensors  # noqa: E402

REPO = "z-lab/Qwen3.6-27B-DFlash"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        hub_root = Path(tmp) / "hub"
        shutil.copytree(FIXTURES / "hub", hub_root)
        tensors = load_manifest("qwen3.6-27b-dflash")["drafter"]["files"][
            "model.safetensors"]["tensors"]
        size = write_safetensors(hub_root / REPO / "main" / "model.safetensors", tensors,
                                 {"format": "pt"})
        with FakeHub(hub_root) as hub:
            results = {"cold": [], "warm": []}
            sent = {"cold": [], "warm": []}
            for i in range(runs):
                cache = Path(tmp) / f"cache{i}"
                env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(cache / "hf"),
                       "DRAFTER_LINT_CACHE_DIR": str(cache / "dl")}
                for kind in ("cold", "warm"):
                    before = hub.sent.get("model.safetensors", 0)
                    started = time.monotonic()
                    run = subprocess.run([sys.executable, "-m", "drafter_lint", "check", REPO,
                                          "--ignore", "TF"], env=env, capture_output=True,
                                         text=True, cwd=tmp)
                    results[kind].append(time.monotonic() - started)
                    sent[kind].append(hub.sent.get("model.safetensors", 0) - before)
                    assert run.returncode == 0, run.stderr
    print(f"check {REPO} ({size / 1e9:.2f} GB weights file), {runs} runs, --ignore TF")
    for kind in ("cold", "warm"):
        print(f"  {kind}: median {statistics.median(results[kind]):.3f} s "
              f"(min {min(results[kind]):.3f}, max {max(results[kind]):.3f}); "
              f"weights bytes sent {max(sent[kind])}")


if __name__ == "__main__":
    main()
