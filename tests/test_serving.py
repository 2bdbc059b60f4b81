"""`drafter-lint releases`: the recorded releases that serve a checkpoint, as ranges, with
the first error just outside each."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from corpus import cases, materialize
from sparse import FIXTURES

TINY = FIXTURES / "tiny-qwen3.6"


def releases(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "drafter_lint", "releases", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def ranges(path, target=None):
    from drafter_lint import pipeline, releases_view

    run = pipeline.prepare(target_arg=str(target) if target else None)
    checkpoint, folder, _ = pipeline.prepare_folder(run, path)
    return {r: releases_view.serving(checkpoint, folder, r) for r in ("vllm", "sglang")}


def inside(found, version: str) -> bool:
    from drafter_lint.runtimes import version_key

    return any(version_key(a) <= version_key(version) <= version_key(b)
               for a, b in found.ranges)


def test_the_tiny_drafter_is_served_from_the_releases_that_read_its_windows():
    """vLLM serves its mixed sliding/full layers from 0.26.0 (0.25.x refuse them, DF125);
    SGLang windows them from 0.5.14 (0.5.13 reads no window, RD101, and refuses the hybrid
    Qwen3.6 target's speculative decoding with its radix cache on, DL018, the first error
    shown). Mutations caught: a range cut one release short or long, the wrong
    neighbour's error shown."""
    run = releases(str(TINY / "drafter"), "--target", str(TINY / "target"), "--format", "json")
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)["checkpoints"][0]["runtimes"]
    assert found["vllm"]["ranges"] == [{"from": "0.26.0", "to": "0.34.0"}]
    assert [(o["release"], o["rule"]) for o in found["vllm"]["outside"]] == [("0.25.1", "DF125")]
    assert found["sglang"]["ranges"] == [{"from": "0.5.14", "to": "0.5.23"}]
    assert [(o["release"], o["rule"]) for o in found["sglang"]["outside"]] == [
        ("0.5.13", "DL018")]


def test_markdown_is_a_table_and_a_drafter_no_release_serves_exits_1(tmp_path):
    """The table a publisher pastes; the guessed drafter (no window) is served by no
    release. Mutations caught: exit 0 for a checkpoint nothing serves; a cell's `|` not
    escaped."""
    run = releases(str(TINY / "drafter"), "--target", str(TINY / "target"), "--format",
                   "markdown")
    lines = run.stdout.splitlines()
    assert "| Runtime | Releases with no error | Just outside |" in lines
    assert any(line.startswith("| vLLM | 0.26.0-0.34.0 |") for line in lines)
    assert all(line.count(" | ") == 2 for line in lines if line.startswith("| vLLM"))
    bad = releases(str(TINY / "drafter-guessed"), "--target", str(TINY / "target"))
    assert bad.returncode == 1 and "serves none" in bad.stdout, bad.stdout


# failures that need the thread's launch line are left out: `releases` lints a checkpoint
# (and target) as published, with no launch line
FAILURES = [(c, f) for c in cases() for f in c.failures
            if f["expect"] == "error" and not c.meta.get("launch")]


@pytest.mark.parametrize("case,failure", FAILURES,
                         ids=[f"{c.id}@{f['runtime']}=={f['failed_on']}" for c, f in FAILURES])
def test_ranges_agree_with_the_documented_failures(tmp_path, case, failure):
    """Every documented release-specific failure that is an error falls outside the ranges,
    and its fixing release inside them when nothing else is wrong there. Mutation caught:
    ranges computed from the newest facts only, or grouped without the errors."""
    from drafter_lint import pipeline, runtimes
    from drafter_lint.registry import release_dependent
    from drafter_lint.releases_view import errors

    drafter, target = materialize(case, tmp_path)
    found = ranges(drafter, target)[failure["runtime"]]
    assert not inside(found, failure["failed_on"]), (failure, found.ranges)
    run = pipeline.prepare(target_arg=str(target) if target else None)
    checkpoint, folder, _ = pipeline.prepare_folder(run, drafter)
    fixed = runtimes.parse(f"{failure['runtime']}=={failure['fixed_in']}")
    if not errors(checkpoint, folder.but(rules=release_dependent(folder.rules)), fixed):
        assert inside(found, failure["fixed_in"]), (failure, found.ranges)


def test_the_servers_environment_moves_the_ranges(tmp_path):
    """The 2048-position EAGLE-3 head for a 131072-context target: SGLang refuses it from
    0.5.1 unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set (DL013); `--env` gives
    the server's environment as for check. Mutation caught: --env not passed to the
    lints (the range stays cut at 0.5.0rc2)."""
    case = next(c for c in cases() if c.id == "eagle-traineagle3-llama3.1-8b")
    drafter, target = materialize(case, tmp_path)
    plain = releases(str(drafter), "--target", str(target), "--runtime", "sglang",
                     "--format", "json")
    found = json.loads(plain.stdout)["checkpoints"][0]["runtimes"]["sglang"]
    assert found["ranges"] == [{"from": "0.4.4.post2", "to": "0.5.0rc2"}]   # EAGLE-3 from it
    assert [(o["release"], o["rule"]) for o in found["outside"]] == [("0.4.4", "DL015"),
                                                                      ("0.5.1", "DL013")]
    allowed = releases(str(drafter), "--target", str(target), "--runtime", "sglang",
                       "--env", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", "--format",
                       "json")
    found = json.loads(allowed.stdout)["checkpoints"][0]["runtimes"]["sglang"]
    assert found["ranges"] == [{"from": "0.4.4.post2", "to": "0.5.23"}], allowed.stderr
