"""The transformers-load rules: real transformers, never remote code, cached results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib import metadata

import pytest

SENTINEL_CODE = """
import pathlib
pathlib.Path({path!r}).write_text("checkpoint code ran")

class DFlashConfig:
    pass

class DFlashDraftModel:
    pass
"""


@pytest.mark.parametrize("model_type", [pytest.param("qwen3", marks=pytest.mark.slow), "dflash"])
def test_checkpoint_code_never_runs(tiny, tmp_path, model_type):
    sentinel = tmp_path / "SENTINEL"
    drafter = tiny / "drafter-guessed"
    for module in ("dflash.py", "configuration_dflash.py", "modeling_dflash.py"):
        (drafter / module).write_text(SENTINEL_CODE.format(path=str(sentinel)))
    config = json.loads((drafter / "config.json").read_text())
    config["model_type"] = model_type
    config["auto_map"] = {"AutoConfig": "configuration_dflash.DFlashConfig",
                          "AutoModel": "dflash.DFlashDraftModel"}
    (drafter / "config.json").write_text(json.dumps(config, indent=2))
    for command in (["check", str(drafter), "--target", str(tiny / "target")],
                    ["check", str(drafter), "--no-cache", "--format", "json"],
                    ["fix", str(drafter), "--unsafe-fixes", "--target", str(tiny / "target")],
                    ["explain", "TF101"]):
        run = subprocess.run([sys.executable, "-m", "drafter_lint", *command],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert "Traceback" not in run.stderr
        assert not sentinel.exists(), f"checkpoint code ran during {command[0]}"
    if model_type == "dflash":
        report = subprocess.run([sys.executable, "-m", "drafter_lint", "check", str(drafter),
                                 "--format", "json"], capture_output=True, text=True,
                                timeout=120, cwd=tmp_path)
        refused = [f for f in json.loads(report.stdout)["results"][0]["findings"]
                   if f["rule"] == "DL014"]     # the runtimes refuse the type (oracle lane)
        assert refused and "model_type is 'dflash'" in refused[0]["message"]


def test_messages_name_the_transformers_version(cli, tiny):
    drafter = tiny / "drafter"
    config = json.loads((drafter / "config.json").read_text())
    del config["rope_theta"]            # TF103 on every major: the class default fills it
    (drafter / "config.json").write_text(json.dumps(config))
    run = cli("check", drafter, "--select", "TF", "--format", "json")
    messages = [f["message"] for f in run.json()["results"][0]["findings"]]
    version = metadata.version("transformers")
    assert messages and all(f"transformers {version}" in m for m in messages)


def test_cache_is_keyed_by_bytes_and_version(tiny, tmp_path, monkeypatch):
    from drafter_lint import loading

    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / "cache"))
    text = (tiny / "drafter" / "config.json").read_text()
    first = loading.load(text, "dflash")
    assert not first.cached and first.values["sliding_window"] == 2048
    second = loading.load(text, "dflash")
    assert second.cached and second.values == first.values
    assert not loading.load(text + " ", "dflash").cached          # other bytes, other entry
    monkeypatch.setattr(loading, "transformers_version", lambda: "0.0-other")
    assert not loading.load(text, "dflash").cached                 # other version
    assert len(list((tmp_path / "cache" / "loaded").iterdir())) == 3


def test_loader_child_refuses_to_run_without_isolation(tmp_path):
    """The child checks sys.flags.isolated itself. Mutation caught: starting it without
    -I (then a checkpoint's `transformers.py` in the working folder would be imported);
    with the guard, that mutation makes every TF load fail, which the TF cases catch."""
    import subprocess
    import sys

    (tmp_path / "transformers.py").write_text("open('SENTINEL', 'w').write('ran')\n")
    run = subprocess.run([sys.executable, "-m", "drafter_lint.transformers_child"], input="",
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode != 0 and "python -I" in run.stderr
    assert not (tmp_path / "SENTINEL").exists()
    ok = subprocess.run([sys.executable, "-I", "-m", "drafter_lint.transformers_child"],
                        input="",
                        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert ok.returncode == 0 and not (tmp_path / "SENTINEL").exists()


def test_prewarm_starts_the_loader_child_only_for_a_load_to_come(tiny, tmp_path):
    """Issue 42 item 7: `check` starts the transformers child before its own imports when
    the config has no cached load, and not when it has one (a re-check must not pay for
    it); a child no load needed is stopped with the run. Mutations caught: a prewarm on a
    cache hit (the re-check slowed), a prewarmed child left running after the parent
    exits, a prewarm that skips the cache key's model_type."""
    import subprocess
    import sys

    script = f"""
import os, sys, json
from pathlib import Path
from drafter_lint import loading, transformers_child as child
cache = Path({str(tmp_path / 'cache')!r})
started = child.prewarm({str(tiny / 'drafter')!r}, child.installed_version(), child.cache_folder())
pid = child._WORKER[0].process.pid if child._WORKER else None
if sys.argv[1] == "load":
    loading.load(Path({str(tiny / 'drafter' / 'config.json')!r}).read_text(), "dflash")
print(json.dumps([started, pid]))
"""
    env = {**os.environ, "DRAFTER_LINT_CACHE_DIR": str(tmp_path / "cache")}

    def run(mode):
        done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True,
                              text=True, timeout=120, env=env)
        return json.loads(done.stdout.strip().splitlines()[-1])

    started, pid = run("exit")                   # cold, and no load asked: stopped at exit
    assert started and pid
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}") or \
        open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    assert run("load")[0]                        # cold: prewarmed, then used and cached
    assert run("exit") == [False, None]          # cached now: nothing started


@pytest.mark.parametrize("name", ["transformers", "click", "huggingface_hub", "jsonschema"])
def test_the_fast_version_lookup_agrees_with_importlib_metadata(name):
    """The cache key's transformers version is read from the dist-info folder's name.
    Mutation caught: a name sliced wrong, or another distribution's folder taken (a stale
    cache hit for another transformers)."""
    from drafter_lint.transformers_child import installed_version

    assert installed_version(name) == metadata.version(name)


@pytest.mark.parametrize("argv,path", [
    (["check", "D"], "D"),
    (["check", "--target", "T", "D"], "D"),              # the target is an option's value
    (["fix", "D", "--reference", "R", "--format", "json"], "D"),
    (["check", "D", "--ignore", "TF"], None),             # may leave no load to make
    (["check", "--select=DF", "D"], None),
    (["check", "D", "E"], None),                          # several: the CLI's own start
    (["gate", "--", "vllm", "serve", "D"], None),
    (["check", "nosuch"], None),                          # not a local folder
])
def test_the_console_script_guesses_the_one_checkpoint_early(tmp_path, monkeypatch, argv,
                                                             path):
    """Issue 42 item 7: the entry point starts the transformers child before the CLI's
    imports for `check PATH` / `fix PATH`. Mutations caught: an option's value taken for
    the path (a child started for the target's config), a narrowing --select/--ignore
    still prewarming, several paths treated as one."""
    from drafter_lint.entry import early_path

    for name in ("D", "E", "T", "R"):
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path)
    assert early_path(argv) == path


def test_prewarm_opens_no_linked_config(tmp_path):
    """"Nothing outside the checkpoint folder is opened": the early start reads config.json
    before the checkpoint reader judges it. Mutation caught: a config.json link to a file
    outside followed by the prewarm (it would read it and start the child)."""
    from drafter_lint import transformers_child

    (tmp_path / "outside.json").write_text('{"model_type": "qwen3"}')
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").symlink_to(tmp_path / "outside.json")
    assert transformers_child.prewarm(tmp_path / "ckpt", "5.0.0", None) is False
