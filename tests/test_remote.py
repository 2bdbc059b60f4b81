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
    # U4-26 (u26b): findings name the repo, not the tool's cache folder
    assert f"{BROKEN}@" in refused.stderr and "/remote/" not in refused.stderr
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


def fresh_caches(monkeypatch, tmp_path, name: str) -> None:
    """Empty drafter-lint and hub caches: every request of the next run is made."""
    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / f"dl-{name}"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / f"hf-{name}"))


def test_every_hub_request_waits_out_a_rate_limit(cli, remote_hub, tmp_path, monkeypatch):
    """U5-8: the first HEAD of every file and the first call of every API route is a 429
    (Retry-After: 0). A named repo with its card's target, --target, --reference,
    --from-hub and the gate all wait it out and lint. Mutations caught: no retry around
    the preflight HEAD, resolve_commit or the file list (model_info): exit 2; around
    file_size: the target's tokenizer silently skipped."""
    remote_hub.limit_first, remote_hub.retry_after = True, "0"
    runs = {"card target": ("check", REPO), "--target": ("check", REPO, "--target", TARGET),
            "--reference": ("check", REPO, "--reference", REPO, "--target", TARGET),
            "--from-hub": ("check", REPO, "--from-hub", REPO)}
    for name, args in runs.items():
        fresh_caches(monkeypatch, tmp_path, name)
        remote_hub._seen.clear()
        before = remote_hub.limited
        run = cli(*args, "--format", "json")
        assert run.code == 0, (name, run.err)
        result = run.json()["results"][0]
        assert result["target"].startswith(TARGET), name
        assert "no tokenizer" not in str(result["skipped"]), name   # the target's was read
        assert remote_hub.limited - before >= 3, name
    fresh_caches(monkeypatch, tmp_path, "gate")
    remote_hub._seen.clear()
    started = gate_run(tmp_path, REPO)
    assert started.returncode == 0, started.stderr


def gate_run(tmp_path, draft: str) -> subprocess.CompletedProcess:
    """`drafter-lint gate -- vllm serve TARGET` with `draft`, a fake vllm that exits 0."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "vllm").write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    (bin_dir / "vllm").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    spec = json.dumps({"method": "dflash", "model": draft, "num_speculative_tokens": 15})
    return subprocess.run([sys.executable, "-m", "drafter_lint", "gate", "--", "vllm",
                           "serve", TARGET, "--speculative-config", spec],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)


@pytest.mark.parametrize("args", [(REPO,), ("fixtures/tiny-qwen3.6/drafter", "--target", REPO),
                                  ("fixtures/tiny-qwen3.6/drafter", "--reference", REPO)])
def test_a_rate_limit_past_the_retries_is_one_line(cli, remote_hub, monkeypatch, args):
    """U5-8: a repo the hub keeps answering 429 is one line saying "rate limited" and how
    long it waited, exit 2. Mutation caught: the 429 reported as "cannot list the repo's
    files: HfHubHTTPError", or "HTTP 429" without the wait."""
    from drafter_lint import hub

    remote_hub.behaviour[REPO], remote_hub.retry_after = "429-always", "0"
    monkeypatch.setattr(hub, "MAX_RETRIES", 2)
    run = cli("check", *[str(Path(__file__).parents[1] / a) if a.startswith("fixtures")
                         else a for a in args])
    assert run.code == 2 and len(run.err.strip().splitlines()) == 1, run.err
    assert "rate limited (HTTP 429) 3 times; gave up after waiting 0 s" in run.err
    assert "HfHubHTTPError" not in run.err and remote_hub.limited == 3


def test_a_long_retry_after_is_waited_at_most_the_cap(cli, remote_hub, monkeypatch):
    """A hub asking for two minutes (Retry-After: 120) is waited at most MAX_WAIT (30 s)
    per try and the run lints (exit 0). Mutation caught (round 2026-12-05b, M17): the cap
    dropped from a numeric Retry-After, so 120 s overran the 90 s budget at once and the
    run gave up on the first 429 ("rate limited ... 1 times", exit 2)."""
    from drafter_lint import hub

    slept = []
    monkeypatch.setattr(hub.time, "sleep", slept.append)
    remote_hub.limit_first, remote_hub.retry_after = True, "120"
    run = cli("check", REPO, "--target", TARGET, "--format", "json")
    assert run.code == 0, run.err
    assert slept and set(slept) == {hub.MAX_WAIT}, slept
    assert remote_hub.limited >= 1


def test_a_repo_is_named_as_itself_when_the_cache_dir_is_a_link(cli, remote_hub, tmp_path,
                                                               monkeypatch):
    """With DRAFTER_LINT_CACHE_DIR a symlink (a home cache linked to a larger disk), a hub
    repo's findings still name `org/name@<commit>`, not the folder drafter-lint read it
    into. Mutation caught (round 2026-12-05b, M05): the run recorded the materialized
    folder unresolved while every look-up resolves it, so the result was named as the
    cache path."""
    real = tmp_path / "big-disk" / "cache"
    real.mkdir(parents=True)
    (tmp_path / "linked-cache").symlink_to(real, target_is_directory=True)
    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / "linked-cache"))
    commit = remote_hub.commit(REPO)
    run = cli("check", REPO, "--target", TARGET, "--format", "json")
    assert run.code == 0, run.err
    assert [r["path"] for r in run.json()["results"]] == [f"{REPO}@{commit}"]


def test_aliases_of_one_commit_share_one_fetch(cli, remote_hub):
    """U5-12: one repo named three ways in one run (a collection: fetched in parallel) is
    fetched once. Mutation caught: no per-commit lock in materialize (three fetches, or
    an internal error on the shared partial folder)."""
    remote_hub.latency = 0.02                     # the fetches overlap
    commit = remote_hub.commit(REPO)
    run = cli("check", REPO, f"{REPO}@main", f"{REPO}@{commit}", "--target", TARGET,
              "--format", "json")
    assert run.code == 0, run.err
    assert [r["path"] for r in run.json()["results"]] == [f"{REPO}@{commit}"] * 3
    configs = [p for m, p in remote_hub.requests if m == "GET"
               and p == f"/{REPO}/resolve/{commit}/config.json"]
    headers = [p for m, p in remote_hub.requests if p.endswith("/model.safetensors")]
    assert len(configs) == 1 and len(headers) == 1, remote_hub.requests


def test_two_workers_fetching_one_commit_build_apart(remote_hub, tmp_path):
    """U5-12: two threads filling one commit's folder each build their own partial
    folder. Mutation caught: the partial named by pid alone (one worker removes or
    renames the other's folder: FileNotFoundError / FileExistsError)."""
    import threading

    from drafter_lint import remote

    remote_hub.latency = 0.02
    commit = remote_hub.commit(REPO)
    folder = remote._root() / REPO.replace("/", "--") / commit
    failures: list[BaseException] = []

    def fetch():
        try:
            remote._fetch(REPO, commit, folder)
        except BaseException as exc:  # noqa: BLE001 -- recorded for the assertion
            failures.append(exc)

    workers = [threading.Thread(target=fetch) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert failures == [] and (folder / remote.MARK).is_file()
    assert not list(folder.parent.glob(".*.partial"))


def test_partials_of_gone_processes_are_pruned(cli, remote_hub, monkeypatch):
    """U5-17: a fetch removes the `.partial` folders a killed run left (its pid is gone)
    and leaves a live process's. Mutation caught: no pruning (they accumulate)."""
    from drafter_lint import remote

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    other = remote._root() / "some--repo"
    stale = [other / f".{'a' * 40}.{gone}.partial", other / f".{'b' * 40}.{gone}.7.partial"]
    live = other / f".{'c' * 40}.{os.getppid()}.9.partial"
    for folder in (*stale, live):
        (folder / "sub").mkdir(parents=True)
    monkeypatch.setattr(remote, "_PRUNED", [], raising=False)   # as in a new process
    assert cli("check", REPO, "--target", TARGET).code == 0
    assert [p.exists() for p in stale] == [False, False] and live.exists()


def hub_cache_snapshot(repo: str, source: Path) -> str:
    """`repo` as huggingface_hub caches it under $HF_HOME/hub (refs/main, a snapshot of
    `source`'s files); its commit."""
    commit = "d" * 40
    root = Path(os.environ["HF_HOME"]) / "hub" / f"models--{repo.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(commit)
    (root / "blobs").mkdir()
    shutil.copytree(source, root / "snapshots" / commit)
    return commit


@pytest.mark.parametrize("how", ["--offline", "HF_HUB_OFFLINE", "hub down"])
def test_a_complete_hub_cache_snapshot_is_read_offline(cli, how, monkeypatch):
    """U5-14: the hub cache holds the repo complete; offline (or with the hub down) it is
    linted from there. Mutation caught: only drafter-lint's own cache consulted ("not in
    the local cache")."""
    repo = "cached/tiny-drafter"
    commit = hub_cache_snapshot(repo, Path(__file__).parents[1] / "fixtures" / "tiny-qwen3.6"
                                / "drafter")
    if how == "HF_HUB_OFFLINE":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    run = cli("check", repo, *(["--offline"] if how == "--offline" else []),
              "--format", "json")
    assert run.code == 0, run.err
    result = run.json()["results"][0]
    assert result["path"] == f"{repo}@{commit}" and result["family"] == "dflash"
    skipped = " ".join(s["reason"] for s in result["skipped"])
    assert "no safetensors weights" not in skipped            # headers from the snapshot


def test_an_incomplete_hub_cache_snapshot_is_not_linted(cli):
    """U5-14: a snapshot without its weights (only config.json was downloaded, as for a
    target) is not taken for the checkpoint. Mutation caught: no completeness check."""
    source = Path(__file__).parents[1] / "fixtures" / "tiny-qwen3.6" / "target"
    hub_cache_snapshot("cached/config-only", source)
    run = cli("check", "cached/config-only", "--offline")
    assert run.code == 2 and "not in the local cache" in run.err


@pytest.mark.parametrize("name, value", [("HF_HUB_ETAG_TIMEOUT", "abc"),
                                         ("HF_HUB_DOWNLOAD_TIMEOUT", "abc"),
                                         ("HF_ENDPOINT", "http://[::1")])
def test_a_bad_hub_variable_is_one_line(cli, name, value):
    """U5-20: a value huggingface_hub cannot parse is one line naming the variable, exit 2.
    Mutation caught: no check before the hub is used (internal error: ValueError)."""
    run = cli("check", REPO, env={name: value})
    assert run.code == 2 and name in run.err and "internal error" not in run.err, run.err
    assert len(run.err.strip().splitlines()) == 1


@pytest.mark.parametrize("name, args", [("HF_HUB_ETAG_TIMEOUT", ["CARDED"]),
                                        ("HF_HUB_DOWNLOAD_TIMEOUT", ["--hub-author", "one"])])
def test_a_bad_hub_variable_prints_nothing_on_stdout(tmp_path, name, args):
    """U5-20: huggingface_hub's import prints "Error importing ..." on stdout for such a
    value; the check refuses it before importing, so stdout (a JSON report) stays empty:
    a local folder with a model card (reading the card imports huggingface_hub), and a
    listing. Mutation caught: huggingface_hub imported before the variables are checked."""
    folder = tmp_path / "carded"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "tiny-qwen3.6" / "drafter",
                    folder)
    (folder / "README.md").write_text("---\nbase_model: Qwen/Qwen3.6-27B\n---\n# card\n")
    env = {**os.environ, name: "abc"}
    args = [str(folder) if a == "CARDED" else a for a in args]
    run = subprocess.run([sys.executable, "-m", "drafter_lint", "check", *args,
                          "--format", "json"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert name in run.stderr and "internal error" not in run.stderr


def test_an_oversized_config_is_refused_unsent_when_the_listing_has_no_sizes(cli, remote_hub,
                                                                          tmp_path):
    """U4-14: a named repo whose hub lists files without sizes had its 50 MB config.json
    downloaded whole before the 4 MiB refusal. Mutation caught: no preflight (which asks
    the size) when the listing gives none."""
    folder = tmp_path / "hub" / "big" / "config" / "main"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "qwen3", "pad": "' + "x" * (6 << 20)
                                        + '"}')
    remote_hub.repos = __import__("fakehub").load_repos(tmp_path / "hub")
    remote_hub.list_sizes = False
    run = cli("check", "big/config")
    assert "over the 4 MiB" in run.err or "over the 4 MiB" in run.out, run.err
    assert remote_hub.sent.get("config.json", 0) < 1 << 20, remote_hub.sent


def test_gate_reads_a_hub_targets_tokenizer_for_the_mask_check(remote_hub, tmp_path):
    """Issue 42 re-run (g110m): with an empty cache the gate fetched a hub target's
    config.json only, so DF104 (the mask token against the target's tokenizer, the
    incident's check) was skipped without a word and a drafter whose only fault is its
    mask token was started. Mutation caught: the target fetched without its tokenizer."""
    import shutil

    masked = tmp_path / "hub" / "mask" / "only" / "main"
    shutil.copytree(tmp_path / "hub" / REPO / "main", masked,
                    copy_function=os.link)          # the sparse weights linked, not copied
    config = json.loads((masked / "config.json").read_text())
    config["dflash_config"]["mask_token_id"] = 151669          # a Qwen3 id, guessed
    (masked / "config.json").write_text(json.dumps(config, indent=2))
    remote_hub.repos = __import__("fakehub").load_repos(tmp_path / "hub")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    (bin_dir / "vllm").chmod(0o755)
    spec = json.dumps({"method": "dflash", "model": "mask/only", "num_speculative_tokens": 15})
    run = subprocess.run([sys.executable, "-m", "drafter_lint", "gate", "--", "vllm", "serve",
                          TARGET, "--speculative-config", spec], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path,
                         env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert run.returncode == 1 and "DF104" in run.stderr, run.stderr
