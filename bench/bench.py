"""drafter-lint benchmark: whole processes, several runs, median and min/max.

    python bench/bench.py [--runs 7] [--json bench/results.json]

Materializes, as sparse files (real headers, holes for the data):
- the z-lab/Qwen3.6-27B-DFlash drafter (3.4 GB) from fixtures/manifests;
- a Qwen3.6-27B target whose 12 shards add up to ~54 GB;
- 200 copies of the drafter, for the per-checkpoint cost.

Every scenario runs in a fresh process. Each child reports its own peak RSS (VmHWM), the
bytes it read (`rchar` of /proc/self/io) and the bytes it read from *.safetensors files
(counted by wrapping os.read/os.pread in the child, outside drafter-lint's code).
"""

from __future__ import annotations

import argparse
import json
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

from sparse import load_manifest, materialize, write_sharded  # noqa: E402

# Runs in the child: count bytes read from weight files, then report at exit.
PROBE = r"""
import atexit, os, sys
_weights = {"bytes": 0}
_paths = {}
_open, _read, _pread = os.open, os.read, os.pread
def _track_open(path, *a, **k):
    fd = _open(path, *a, **k)
    _paths[fd] = str(path)
    return fd
def _count(fd, n):
    if _paths.get(fd, "").endswith(".safetensors"):
        _weights["bytes"] += n
def _track_read(fd, n):
    data = _read(fd, n); _count(fd, len(data)); return data
def _track_pread(fd, n, off):
    data = _pread(fd, n, off); _count(fd, len(data)); return data
os.open, os.read, os.pread = _track_open, _track_read, _track_pread
def _report():
    io = dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())
    hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
    os.write(2, ("\nBENCH %d %d %d\n" % (hwm, int(io["rchar"]), _weights["bytes"])).encode())
atexit.register(_report)
mode = sys.argv.pop(1)
if mode == "autoconfig":
    from transformers import AutoConfig
    AutoConfig.from_pretrained(sys.argv[1])
else:
    sys.argv[0] = "drafter-lint"
    from drafter_lint.entry import main     # what the console script runs
    sys.exit(main())
"""


def qwen36_27b_target(folder: Path) -> int:
    """Qwen3.6-27B-shaped weights (64 hybrid layers, width 5120, BF16) in 12 shards."""
    manifest = load_manifest("qwen3.6-27b-dflash")
    config = manifest["target"]["config"]
    H, I, V = 5120, 17408, 248320
    tensors = [["model.language_model.embed_tokens.weight", "BF16", [V, H]]]
    for i, kind in enumerate(config["text_config"]["layer_types"]):
        p = f"model.language_model.layers.{i}."
        tensors += [[p + "input_layernorm.weight", "BF16", [H]],
                    [p + "post_attention_layernorm.weight", "BF16", [H]],
                    [p + "mlp.gate_proj.weight", "BF16", [I, H]],
                    [p + "mlp.up_proj.weight", "BF16", [I, H]],
                    [p + "mlp.down_proj.weight", "BF16", [H, I]]]
        if kind == "full_attention":
            tensors += [[p + "self_attn.q_proj.weight", "BF16", [24 * 256 * 2, H]],
                        [p + "self_attn.k_proj.weight", "BF16", [4 * 256, H]],
                        [p + "self_attn.v_proj.weight", "BF16", [4 * 256, H]],
                        [p + "self_attn.o_proj.weight", "BF16", [H, 24 * 256]]]
        else:
            tensors += [[p + "linear_attn.in_proj_qkvz.weight", "BF16", [16 * 128 * 2 + 48 * 128 * 2, H]],
                        [p + "linear_attn.in_proj_ba.weight", "BF16", [96, H]],
                        [p + "linear_attn.out_proj.weight", "BF16", [H, 48 * 128]]]
    tensors += [["model.language_model.norm.weight", "BF16", [H]],
                ["lm_head.weight", "BF16", [V, H]]]
    return write_sharded(folder, config, tensors, 12)


def run(args: list[str], env: dict) -> dict:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True,
                          text=True, timeout=600)
    wall = time.monotonic() - started
    line = [l for l in done.stderr.splitlines() if l.startswith("BENCH ")]
    if not line:
        raise RuntimeError(f"{args}: no report\n{done.stderr[-2000:]}")
    hwm, rchar, weights = map(int, line[-1].split()[1:])
    return {"wall": wall, "rss_mb": hwm / 1024, "rchar": rchar, "weight_bytes": weights,
            "exit": done.returncode}


def scenario(name: str, args: list[str], env: dict, runs: int, fresh_cache: bool = False,
             before=None) -> dict:
    samples = []
    for _ in range(runs):
        if fresh_cache:
            shutil.rmtree(env["DRAFTER_LINT_CACHE_DIR"], ignore_errors=True)
        if before:
            before()
        samples.append(run(args, env))
    walls = [s["wall"] for s in samples]
    return {"name": name, "runs": runs, "median_s": statistics.median(walls),
            "min_s": min(walls), "max_s": max(walls),
            "peak_rss_mb": max(s["rss_mb"] for s in samples),
            "rchar_bytes": statistics.median(s["rchar"] for s in samples),
            "weight_bytes_read": max(s["weight_bytes"] for s in samples),
            "exit": samples[-1]["exit"]}


def alternating(scenarios: list, env: dict, runs: int) -> list[dict]:
    """The scenarios run in turn, one run of each per round, so that a change in the
    machine's load falls on all of them alike (ratios to the first are what count)."""
    rounds = [[scenario(name, args, env, 1, **extra) for name, args, extra in scenarios]
              for _ in range(runs)]
    out = []
    for i, (name, _, _) in enumerate(scenarios):
        walls = [r[i]["median_s"] for r in rounds]
        first = rounds[0][i]
        out.append({**first, "runs": runs, "median_s": statistics.median(walls),
                    "min_s": min(walls), "max_s": max(walls),
                    "peak_rss_mb": max(r[i]["peak_rss_mb"] for r in rounds),
                    "weight_bytes_read": max(r[i]["weight_bytes_read"] for r in rounds)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", default=str(ROOT / "bench" / "results.json"))
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="drafter-lint-bench-"))
    try:
        manifest = load_manifest("qwen3.6-27b-dflash")
        drafter, _ = materialize(manifest, work / "qwen36")
        target = work / "qwen36" / "target-weights"
        size = qwen36_27b_target(target)
        many = work / "many"
        for i in range(200):                    # sparse copies: materialize, never copy data
            materialize(manifest, many / f"m{i:03d}")
            (many / f"m{i:03d}" / "drafter").rename(many / f"drafter-{i:03d}")
        env = dict(os.environ, DRAFTER_LINT_CACHE_DIR=str(work / "cache"),
                   HF_HUB_OFFLINE="1", TRANSFORMERS_NO_ADVISORY_WARNINGS="1")
        env.pop("NO_COLOR", None)
        check = ["cli", "check", str(drafter), "--target", str(target), "-o", os.devnull]
        warm = lambda: run(check, env)  # noqa: E731
        results = [
            *alternating([("AutoConfig.from_pretrained (baseline)",
                           ["autoconfig", str(drafter)], {}),
                          ("check, transformers rule, cold cache", check,
                           {"fresh_cache": True}),
                          ("check, unchanged checkpoint (cached load)", check,
                           {"before": warm})], env, options.runs),
            scenario("check --ignore TF", check + ["--ignore", "TF"], env, options.runs),
            scenario("--version", ["cli", "--version"], env, options.runs),
            scenario("rules", ["cli", "rules"], env, options.runs),
            scenario("check 1 checkpoint (of the 200)", ["cli", "check", str(many / "drafter-000"),
                                                         "-o", os.devnull], env, options.runs,
                     before=warm),
            scenario("check 200 checkpoints", ["cli", "check", *[
                str(many / f"drafter-{i:03d}") for i in range(200)], "-o", os.devnull],
                env, max(3, options.runs // 2), before=warm),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = results[0]["median_s"]
    for r in results:
        r["ratio_to_baseline"] = r["median_s"] / base
    marginal = (results[7]["median_s"] - results[6]["median_s"]) / 199
    summary = {
        "target_apparent_gb": round(size / 1e9, 1),
        "drafter_apparent_gb": round(3460432496 / 1e9, 2),
        "marginal_ms_per_checkpoint": marginal * 1000,
        "targets": {
            "1. full check cold <= 1.02x baseline": results[1]["ratio_to_baseline"],
            "2a. re-check <= 0.15x baseline": results[2]["ratio_to_baseline"],
            "2b. check --ignore TF <= 0.25 s": results[3]["median_s"],
            "2c. --version <= 0.15 s": results[4]["median_s"],
            "3. weight bytes read <= 1 MiB": results[1]["weight_bytes_read"],
            "4a. marginal per checkpoint <= 10 ms": marginal * 1000,
            "4b. peak RSS (200 checkpoints) <= 250 MB": results[7]["peak_rss_mb"],
        },
        "results": results,
        "python": sys.version.split()[0],
    }
    print(f"{'scenario':<44} {'median':>8} {'min':>7} {'max':>7} {'ratio':>6} "
          f"{'RSS MB':>7} {'weights B':>10}")
    for r in results:
        print(f"{r['name']:<44} {r['median_s']:>7.3f}s {r['min_s']:>6.3f}s {r['max_s']:>6.3f}s "
              f"{r['ratio_to_baseline']:>5.2f}x {r['peak_rss_mb']:>7.1f} "
              f"{r['weight_bytes_read']:>10}")
    print(f"\nmarginal cost per checkpoint: {marginal * 1000:.2f} ms "
          f"(200-checkpoint run vs 1-checkpoint run)")
    print(f"target {summary['target_apparent_gb']} GB in 12 sparse shards; drafter "
          f"{summary['drafter_apparent_gb']} GB")
    Path(options.json).write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
