"""check/fix against a published config served by a real local HTTP hub (tests/fakehub.py)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from sparse import apply_ops, load_manifest, materialize

REPO = "z-lab/Qwen3.6-27B-DFlash"
TAPS = "/dflash_config/target_layer_ids"
MASK = "/dflash_config/mask_token_id"

# The incident: three fields still at guessed values (Qwen3 mask id, taps shifted the vLLM
# way, the Qwen3.5 drafter's all-full layout without a window).
GUESSES = [("replace", MASK, 151669), ("replace", TAPS, [2, 17, 32, 47, 62]),
           ("replace", "/layer_types", ["full_attention"] * 5),
           ("replace", "/sliding_window", None)]


@pytest.fixture
def guessed(tmp_path):
    manifest = load_manifest("qwen3.6-27b-dflash")
    drafter, _ = materialize(manifest, tmp_path,
                             config=apply_ops(manifest["drafter"]["config"], GUESSES))
    return drafter


def published() -> dict:
    return load_manifest("qwen3.6-27b-dflash")["drafter"]["config"]


def test_an_import_under_offline_mode_does_not_keep_the_process_offline(cli, hub, guessed,
                                                                         monkeypatch):
    """huggingface_hub fixes its offline flag when first imported; a gate that resolved a
    server's HF_HUB_OFFLINE=1 cache in this process imported it so. A later run without
    the variable still reaches the hub. Mutation caught: hub.settings() no longer syncing
    `constants.HF_HUB_OFFLINE` with the environment (the lane failed that way when
    test_gate's offline tests ran first on a worker)."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    run = cli("check", guessed, "--from-hub", REPO, "--format", "json")
    assert run.code == 1 and "cannot reach" not in run.err, run.err
    assert findings(run, "REF101")


def findings(run, rule=None):
    found = run.json()["results"][0]["findings"]
    return [f for f in found if rule is None or f["rule"] == rule]


def test_incident_end_to_end(cli, hub, guessed):
    commit = hub.commit(REPO)
    run = cli("check", guessed, "--from-hub", REPO, "--format", "json")
    assert run.code == 1
    report = run.json()["results"][0]
    assert report["reference"] == f"{REPO}@{commit}"
    assert report["target"] == f"Qwen/Qwen3.6-27B@{hub.commit('Qwen/Qwen3.6-27B')}"
    assert "base_model" in run.err                                  # the target was named
    ref = {f["pointer"]: f for f in findings(run, "REF101")}
    for ptr, mine, theirs in ((MASK, "151669", "248070"),
                              (TAPS, "[2, 17, 32, 47, 62]", "[1, 16, 31, 46, 61]"),
                              ("/layer_types", '"full_attention"', '"sliding_attention"'),
                              ("/sliding_window", "null", "2048")):
        assert ref[ptr]["severity"] == "error"
        assert mine in ref[ptr]["message"] and theirs in ref[ptr]["message"]
        assert ref[ptr]["fix"]["applicability"] == "safe"            # the user named it
    # the target from the card also shows the mask id is plain text there
    assert findings(run, "DF104")

    config = guessed / "config.json"
    original = config.read_bytes()
    fixed = cli("fix", guessed, "--from-hub", REPO)          # as users type it: no revision
    assert fixed.code == 0, fixed.out + fixed.err
    assert f"{REPO}@{commit}" in fixed.out and "'main' resolved" in fixed.out
    assert json.loads(config.read_text()) == published()
    from drafter_lint.fix.write import backups_of

    assert [b.read_bytes() for b in backups_of(config)] == [original]
    again = cli("check", guessed, "--from-hub", REPO, "--format", "json")
    assert not findings(again, "REF101") and again.code == 0
    assert {f["severity"] for f in findings(again)} <= {"info"}
    before = config.read_bytes()
    second = cli("fix", guessed, "--from-hub", REPO)
    assert second.code == 0 and config.read_bytes() == before     # idempotent


def test_local_only_keys_are_kept_by_safe_fixes(cli, hub, guessed):
    """Mutation caught: removing keys the reference lacks as a safe fix."""
    config = guessed / "config.json"
    document = json.loads(config.read_text())
    document["description"] = "our local note"
    config.write_text(json.dumps(document, indent=2))
    run = cli("fix", guessed, "--from-hub", REPO)
    assert json.loads(config.read_text())["description"] == "our local note"
    assert "description" in run.out and "unsafe" in run.out
    run = cli("fix", guessed, "--from-hub", REPO, "--unsafe-fixes")
    assert run.code == 0 and json.loads(config.read_text()) == published()


def test_revision_is_resolved_and_cached_for_offline_use(cli, hub, guessed):
    first = cli("check", guessed, "--reference", REPO, "--format", "json")
    assert first.json()["results"][0]["reference"] == f"{REPO}@{hub.commit(REPO)}"
    served = len(hub.requests)
    offline = cli("check", guessed, "--reference", REPO, "--offline", "--format", "json")
    assert offline.json()["results"][0]["reference"] == f"{REPO}@{hub.commit(REPO)}"
    assert len(hub.requests) == served                     # nothing asked of the hub
    env = cli("check", guessed, "--reference", REPO, "--format", "json",
              env={"HF_HUB_OFFLINE": "1"})
    assert env.code == 1 and len(hub.requests) == served


def test_reference_folder_and_hub_agree(cli, hub, guessed, tmp_path):
    folder = tmp_path / "published"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(published()))
    local = cli("check", guessed, "--reference", folder, "--format", "json")
    remote = cli("check", guessed, "--reference", REPO, "--format", "json")
    pick = lambda run: sorted((f["pointer"], f["rule"]) for f in findings(run)  # noqa: E731
                              if f["rule"].startswith("REF"))
    assert pick(local) == pick(remote) and pick(local)
    assert all(f["fix"]["applicability"] == "safe" for f in findings(local, "REF101"))


FAILURES = [
    # (id, repo argument, hub behaviour, extra env, text the one-line error must contain)
    ("no-such-repo", "z-lab/nope", None, {}, "no such repo"),
    ("no-such-file", "z-lab/card-only", None, {}, "has no config.json"),
    ("no-such-revision", f"{REPO}@v9", None, {}, "no such revision"),
    ("gated", REPO, "gated", {}, "is gated"),
    ("server-error", REPO, "error", {}, "HTTP 500"),
    ("stalled", REPO, "stall", {"HF_HUB_ETAG_TIMEOUT": "1"}, "raise HF_HUB_ETAG_TIMEOUT"),
    ("no-network", REPO, None, {"HF_ENDPOINT": "http://127.0.0.1:9"}, "cannot reach"),
    ("offline-without-cache", REPO, None, {"HF_HUB_OFFLINE": "1"}, "offline mode is on"),
]


@pytest.mark.parametrize("case", FAILURES, ids=[c[0] for c in FAILURES])
def test_hub_failures_are_one_line_exit_2(cli, hub, guessed, case):
    _, repo, behaviour, env, needle = case
    if behaviour:
        hub.behaviour[REPO] = behaviour
    token = "hf_FAKEtokenFAKEtokenFAKEtoken1234"
    started = time.monotonic()
    run = cli("check", guessed, "--from-hub", repo, env={**env, "HF_TOKEN": token})
    assert time.monotonic() - started < 20
    assert run.code == 2
    assert run.err.count("\n") == 1 and "Traceback" not in run.err
    assert needle in run.err and repo.split("@")[0] in run.err
    assert token not in run.out + run.err


def test_cached_reference_survives_an_outage(cli, hub, guessed):
    cli("check", guessed, "--reference", REPO)
    hub.behaviour[REPO] = "error"
    run = cli("check", guessed, "--reference", REPO, "--format", "json")
    assert run.code == 1 and run.json()["results"][0]["reference"].startswith(REPO)


def test_hub_target(cli, hub, guessed):
    run = cli("check", guessed, "--target", "Qwen/Qwen3.6-27B", "--format", "json")
    result = run.json()["results"][0]
    assert result["target"].startswith("Qwen/Qwen3.6-27B@")
    assert findings(run, "DF104")        # the small tokenizer.json came along


def test_fix_refuses_hub_cache_snapshot_and_writes_output(cli, hub, tmp_path):
    from huggingface_hub import hf_hub_download

    cache = os.path.join(os.environ["HF_HOME"], "hub")
    hf_hub_download(REPO, "README.md", endpoint=hub.url, cache_dir=cache)
    path = hf_hub_download(REPO, "config.json", endpoint=hub.url, cache_dir=cache)
    folder = Path(path).parent
    blob = Path(path).resolve()
    before = blob.read_bytes()
    edited = tmp_path / "edited"
    edited.mkdir()
    (edited / "config.json").write_text(json.dumps(apply_ops(published(), GUESSES[:1]),
                                                   indent=2))
    run = cli("fix", folder, "--reference", edited)
    assert run.code == 2 and "Hugging Face cache snapshot" in run.err and "--output" in run.err
    assert blob.read_bytes() == before
    out = tmp_path / "fixed"
    run = cli("fix", folder, "--reference", edited, "--output", out)
    assert run.code == 0, run.out + run.err
    assert json.loads((out / "config.json").read_text())["dflash_config"]["mask_token_id"] \
        == 151669
    assert blob.read_bytes() == before and not (out / "README.md").is_symlink()
    # a copy, not a link to the shared blob: an ordinary edit of it leaves the cache alone
    # (mutation caught: small files hard-linked, which changed the cached card)
    card_blob = Path(folder / "README.md").resolve()
    card = card_blob.read_bytes()
    assert not os.path.samefile(out / "README.md", card_blob)
    with open(out / "README.md", "ab") as handle:
        handle.write(b"\nedited\n")
    assert card_blob.read_bytes() == card
    # a complete checkpoint that check accepts: no link leaves the folder
    check = cli("check", out, "--format", "json")
    assert check.code == 0, check.out
    assert not [f for f in check.json()["results"][0]["findings"] if f["rule"].startswith("DL")]


def test_fake_hub_answers_model_info(hub):
    from huggingface_hub import HfApi

    info = HfApi(endpoint=hub.url).model_info(REPO)
    assert info.sha == hub.commit(REPO)
    assert {s.rfilename for s in info.siblings} == {"config.json", "README.md"}


def test_a_slow_hub_shows_one_waiting_line_on_a_terminal(hub, guessed, tmp_path):
    """On a terminal, a hub that takes seconds to answer shows a spinner line naming the
    repo and file, and the failure after it names the variable that raises the timeout.
    Mutation caught: a silent wait (users kill the run), or the spinner written to a
    file or pipe (it must not be: the next test's stderr is a pipe)."""
    import pty
    import subprocess
    import sys

    hub.behaviour[REPO] = "stall"
    hub.stall_seconds = 4.0                 # past the client's 2 s: a timeout
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HUB_ETAG_TIMEOUT": "2"}
    master, slave = pty.openpty()
    proc = subprocess.Popen([exe, "check", guessed, "--from-hub", REPO], stderr=slave,
                            stdout=subprocess.DEVNULL, env=env)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=60)
    os.close(master)
    text = seen.decode("utf-8", "replace")
    assert proc.returncode == 2
    assert f"waiting for the hub: {REPO} config.json" in text, text
    assert "HF_HUB_ETAG_TIMEOUT" in text
    piped = subprocess.run([exe, "check", guessed, "--from-hub", REPO], env=env,
                           capture_output=True, text=True, timeout=60)
    assert "waiting for the hub" not in piped.stderr and piped.stderr.count("\n") == 1


@pytest.mark.parametrize("option", ["--reference", "--target"])
def test_a_config_over_the_cap_is_refused_unparsed(cli, tiny, tmp_path, option):
    """U5-22: a --reference (or --target) config.json over the 4 MiB read cap says so, as
    the checkpoint's own config does. Mutation caught: the file cut at the cap and then
    parsed ("Unterminated string")."""
    big = tmp_path / "big"
    big.mkdir()
    (big / "config.json").write_text(json.dumps({"model_type": "qwen3", "x": "a" * (5 << 20)}))
    run = cli("check", tiny / "drafter", option, big)
    assert run.code == 2 and "over the 4 MiB limit" in run.err, run.err
    assert "Unterminated" not in run.err and len(run.err.strip().splitlines()) == 1
