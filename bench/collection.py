"""Lint a whole hub organization before download: `python bench/collection.py [--repos 200]
[--latency 0.05] [--jobs 8]`.

Serves REPOS copies of the published Qwen3.6-27B-DFlash layout (each with its own sparse
3.46 GB weights file and the published card naming Qwen/Qwen3.6-27B as its base model)
from the tests' local fake hub (tests/fakehub.py, 127.0.0.1 only), every answer delayed by
LATENCY seconds as a distant hub's are, and runs `drafter-lint check --hub-author ORG
--jobs JOBS` in a fresh process: cold (empty caches), then warm (the same caches). It
reports repos per second, bytes the hub sent per repo, and the check process's peak
memory; a run with a quarter of the repos shows whether memory grows with their number.
Goals (issue 33): at most 4 requests per repo cold, >= 25 repos/s cold with --jobs 8,
warm >= 5x faster than cold, memory flat in the number of repos. `--rate R` makes the
fake hub answer 429 (Retry-After: 1) past R requests per second, as the real hub
rate-limits API calls; every repo must still be answered.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fakehub import FakeHub  # noqa: E402
from test_collection import make_collection  # noqa: E402

ORG = "bench-org"
MEASURE = """
import sys, time
from drafter_lint.cli import main
sys.argv = ["drafter-lint", "check", *sys.argv[1:]]
started = time.monotonic()
code = main()
peak = next(int(line.split()[1]) for line in open("/proc/self/status")
            if line.startswith("VmHWM"))   # this process's peak RSS, in kB
print(time.monotonic() - started, peak, code, file=sys.stderr)
"""


def run_check(hub: FakeHub, cache: Path, jobs: int, tmp: Path) -> dict:
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(cache / "hf"),
           "DRAFTER_LINT_CACHE_DIR": str(cache / "dl"), "HF_HUB_DISABLE_TELEMETRY": "1"}
    sent, requests = hub.bytes_out, len(hub.requests)
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-c", MEASURE, "--hub-author", ORG, "--jobs",
                          str(jobs), "--format", "json", "-o", str(tmp / "report.json")],
                         env=env, capture_output=True, text=True, cwd=tmp, timeout=3600)
    wall = time.monotonic() - started
    seconds, peak_kb, code = run.stderr.strip().splitlines()[-1].split()
    report = json.loads((tmp / "report.json").read_text())
    return {"wall": wall, "seconds": float(seconds), "peak_mb": int(peak_kb) / 1024,
            "code": int(code), "bytes": hub.bytes_out - sent,
            "requests": len(hub.requests) - requests, "results": len(report["results"]),
            "errors": [r["path"] for r in report["results"] if r.get("error")]}


def measure(repos: int, latency: float, jobs: int, rate: float | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        make_collection(tmp / "hub", repos, ORG)
        with FakeHub(tmp / "hub") as hub:
            hub.latency = latency
            hub.page_size = 100
            hub.rate = rate
            cold = run_check(hub, tmp / "cache", jobs, tmp)
            cold["limited"] = hub.limited
            warm = run_check(hub, tmp / "cache", jobs, tmp)
    for kind, run in (("cold", cold), ("warm", warm)):
        assert run["code"] == 0 and run["results"] == repos and not run["errors"], (kind, run)
    return {"repos": repos, "cold": cold, "warm": warm}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--rate", type=float, help="429 past this many requests per second")
    parser.add_argument("--json", metavar="FILE", help="also write the numbers here")
    args = parser.parse_args()
    full = measure(args.repos, args.latency, args.jobs, args.rate)
    quarter = measure(max(1, args.repos // 4), args.latency, args.jobs, args.rate)
    cold, warm = full["cold"], full["warm"]
    print(f"check --hub-author {ORG} --jobs {args.jobs}: {args.repos} DFlash repos (3.46 GB "
          f"sparse weights each), {args.latency * 1000:.0f} ms per hub request")
    for kind, run in (("cold", cold), ("warm", warm)):
        print(f"  {kind}: {run['wall']:.1f} s, {args.repos / run['wall']:.1f} repos/s, "
              f"{run['requests'] / args.repos:.1f} requests and "
              f"{run['bytes'] / args.repos / 1000:.1f} kB per repo, peak {run['peak_mb']:.0f} MB")
    if args.rate:
        print(f"  rate limit {args.rate:g} requests/s: {cold['limited']} answers were 429, "
              f"{cold['results']} of {args.repos} repos answered, errors: {len(cold['errors'])}")
    print(f"  warm is {cold['wall'] / warm['wall']:.1f}x faster than cold")
    print(f"  peak memory: {quarter['cold']['peak_mb']:.0f} MB for {quarter['repos']} repos, "
          f"{cold['peak_mb']:.0f} MB for {args.repos}")
    if args.json:
        Path(args.json).write_text(json.dumps({"full": full, "quarter": quarter}, indent=2))


if __name__ == "__main__":
    main()
