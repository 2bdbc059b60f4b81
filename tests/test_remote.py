"""Lint a hub repo before downloading it (drafter_lint/remote.py), against the local fake
hub serving a full-size 3.4 GB sparse drafter by byte range."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sparse import FIXTURES, load_manifest, write_safetensors

REPO, BROKEN, HOSTILE = "z-lab/Qwen3.6-27B-DFlash", "broken/Qwen3.6-27B-DFlash", "evil/header"
TARGET = "Qwen/Qwen3.6-27B"
MIB = 1024 * 1024


@pytest.fixture
def remote_hub(tmp_path, monkeypatch):
    """fixtures/hub plus full-size weights: the published layout, one with layer 4 missing,
    and one whose header length is 2^62."""
    from fakehub import FakeHub

    root = tmp_path / "hub"
    shutil.copytree(FIXTURES / "hub", root)
    manifest = load_manifest("qwen3.6-27b-dflash")
    tensors = manifest["drafter"]["files"]["model.safetensors"]["tensors"]
    good = root / REPO / "main"
    write_safetensors(good / "model.safetensors", tensors, {"format": "pt"})
    broken = root / BROKEN / "main"
    broken.mkdir(parents=True)
    shutil.copyfile(good / "config.json", broken / "config.json")
    write_safetensors(broken / "model.safetensors",
                      [t for t in tensors if not t[0].startswith("layers.4.")], {"format": "pt"})
    hostile = root / HOSTILE / "main"
    hostile.mkdir(parents=True)
    shutil.copyfile(good / "config.json", hostile / "config.json")
    with open(hostile / "model.safetensors", "wb") as handle:
        handle.write((1 << 62).to_bytes(8, "little"))
        handle.truncate(3 * 1024**3)                      # a sparse 3 GB file
    with FakeHub(root) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "2")
        yield server


def findings(run, rule=None):
    result = run.json()["results"][0]
    return [f for f in result["findings"] if rule is None or f["rule"] == rule]


def cache_files():
    roots = [Path(os.environ["DRAFTER_LINT_CACHE_DIR"]), Path(os.environ["HF_HOME"])]
    return [p for root in roots for p in root.rglob("*") if p.is_file()]


def test_check_a_hub_repo_reads_only_the_headers(cli, remote_hub):
    """Mutation caught: downloading weights (bytes sent), skipping the weights checks, or
    reporting a cache path instead of org/name@<commit>."""
    commit = remote_hub.commit(REPO)
    run = cli("check", REPO, "--target", TARGET, "--format", "json")
    assert run.code == 0, run.out + run.err
    result = run.json()["results"][0]
    assert result["path"] == f"{REPO}@{commit}"
    skipped = " ".join(s["reason"] for s in result["skipped"])
    assert "no safetensors weights" not in skipped            # the weights were checked
    assert not [f for f in result["findings"] if f["severity"] != "info"]
    sent = remote_hub.sent.get("model.safetensors", 0)
    assert 0 < sent <= MIB, sent                              # of a 3.4 GB file
    assert max(p.stat().st_size for p in cache_files()) < 64 * MIB


def test_second_check_only_resolves_the_revision(cli, remote_hub):
    """Cached by commit: a branch costs one HEAD, a pinned commit nothing. Mutation caught:
    the cache keyed by revision name or not used."""
    assert cli("check", REPO).code == 0
    before = len(remote_hub.requests)
    assert cli("check", REPO).code == 0
    assert remote_hub.requests[before:] == [("HEAD", f"/{REPO}/resolve/main/config.json")]
    before = len(remote_hub.requests)
    assert cli("check", f"{REPO}@{remote_hub.commit(REPO)}").code == 0
    assert remote_hub.requests[before:] == []
    offline = cli("check", REPO, "--offline")
    assert offline.code == 0


def test_missing_layer_is_caught_from_remote_headers(cli, remote_hub):
    run = cli("check", BROKEN, "--format", "json")
    df130 = findings(run, "DF130")
    assert run.code == 1 and df130 and df130[0]["file"] == "model.safetensors"


def test_hostile_remote_header_is_a_finding_not_a_huge_request(cli, remote_hub):
    """A 2^62 header length: the reader's finding, after one 100 kB range request."""
    run = cli("check", HOSTILE, "--format", "json")
    dl004 = findings(run, "DL004")
    assert run.code == 1 and dl004 and "exceeds" in dl004[0]["message"]
    assert remote_hub.sent.get("model.safetensors", 0) <= 100_000


def test_offline_with_nothing_cached_is_one_line(cli, remote_hub):
    run = cli("check", REPO, "--offline")
    assert run.code == 2 and len(run.err.strip().splitlines()) == 1
    assert "offline" in run.err


def test_gate_lints_an_uncached_hub_drafter_with_its_headers(remote_hub, tmp_path):
    """Mutation caught: the gate reading only config.json for an uncached hub drafter (a
    drafter whose weights lack a declared layer would start)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    (bin_dir / "vllm").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def gate(draft):
        spec = json.dumps({"method": "dflash", "model": draft, "num_speculative_tokens": 15})
        return subprocess.run([sys.executable, "-m", "drafter_lint", "gate", "--", "vllm",
                               "serve", TARGET, "--speculative-config", spec],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path,
                              env=env)

    refused = gate(BROKEN)
    assert refused.returncode == 1 and "DF130" in refused.stderr, refused.stderr
    started = gate(REPO)
    assert started.returncode == 0, started.stderr
    assert remote_hub.sent.get("model.safetensors", 0) <= 2 * MIB


@pytest.mark.parametrize("case", ["no-such-repo", "no-such-revision", "gated", "error"])
def test_hub_failures_are_one_line_exit_2(cli, remote_hub, case):
    arg = {"no-such-repo": "nobody/nothing", "no-such-revision": f"{REPO}@nope"}.get(case, REPO)
    if case in ("gated", "error"):
        remote_hub.behaviour[REPO] = case
    run = cli("check", arg)
    assert run.code == 2 and len(run.err.strip().splitlines()) == 1, run.err
    assert "Traceback" not in run.err


def test_inspect_a_hub_repo(cli, remote_hub):
    run = cli("inspect", REPO, "--target", TARGET)
    assert run.code == 0 and f"{REPO}@{remote_hub.commit(REPO)}" in run.out
    assert remote_hub.sent.get("model.safetensors", 0) <= MIB


@pytest.mark.parametrize("command", ["check", "inspect"])
def test_the_card_names_the_target(cli, remote_hub, command):
    """`check org/name` / `inspect org/name` with no --target: the target is the card's
    `base_model`, read once, and stderr says so. Mutation caught: every target check
    skipped although the card names the base model."""
    extra = ("--format", "json") if command == "check" else ()
    run = cli(command, REPO, *extra)
    assert run.code == 0, run.out + run.err
    assert f"target {TARGET}: the base_model of {REPO}@" in run.err
    if command == "check":
        result = run.json()["results"][0]
        assert result["target"].startswith(TARGET)
        assert not [s for s in result["skipped"] if "no target given" in s["reason"]]
    else:
        assert "(not given" not in run.out and TARGET in run.out, run.out
