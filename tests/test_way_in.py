"""One way in, failing closed: every option checked once before anything runs, hostile
trees answered at once, and `fix` never changing more than it lists (issue 32). The gate's
own cases are in test_gate.py, the collection's in test_collection.py."""

from __future__ import annotations

import json
import os
import time

import pytest
from sparse import FIXTURES

from drafter_lint import runtimes


# --- options -------------------------------------------------------------------------------

@pytest.mark.parametrize("spec,refused", [
    ("vllm==", "no version after"), ("sglang== ", "no version after"),
    ("reference==1.0", "not versioned"), ("sglang==0.5.0", "has no release 0.5.0"),
    ("vllm==0.10.1.1", "")])
def test_a_runtime_spec_names_one_release_or_is_refused(spec, refused):
    """Mutations caught: `vllm==` read as the newest release; a versioned reference
    accepted; pre-releases ordered after their release (review M03), which made
    `sglang==0.5.0` the rc's facts instead of a refusal."""
    if refused:
        with pytest.raises(runtimes.UnknownRuntime, match=refused):
            runtimes.parse(spec)
    else:
        assert runtimes.parse(spec) == runtimes.Release("vllm", "0.10.1.1")
    assert runtimes.version_key("0.5.0rc2") < runtimes.version_key("0.5.0") < \
        runtimes.version_key("0.5.1") < runtimes.version_key("0.10.1.1") < \
        runtimes.version_key("0.10.2")


BAD_OPTIONS = [
    (("--select", "ZZ9"), "no rule code starts with 'ZZ9'"),
    (("--runtime", "vllm", "--runtime", "sglang"), "given 2 times"),
    (("--runtime", "vllm=="), "no version after"),
    (("--runtime", "sglang", "--num-speculative-tokens", "15"), "does not apply to")]


@pytest.mark.parametrize("command,options,says", [
    *[("check", *bad) for bad in BAD_OPTIONS], *[("fix", *bad) for bad in BAD_OPTIONS],
    ("check", ("--baseline", "b.json", "--write-baseline", "c.json"), "not both")])
def test_every_command_refuses_a_bad_option_before_reading(cli, tiny, command, options,
                                                           says):
    """Mutation caught: a command building its options itself, past the validation (the
    gate's own options: test_gate.py)."""
    before = (tiny / "drafter-guessed" / "config.json").read_bytes()
    run = cli(command, tiny / "drafter-guessed", *options)
    assert run.code == 2 and says in run.err and run.err.count("\n") == 1, run.err
    assert (tiny / "drafter-guessed" / "config.json").read_bytes() == before


def test_the_command_line_runtime_wins_over_a_bad_settings_one(cli, tiny):
    """A settings file's runtime is used (and so checked) only when --runtime is absent.
    Mutation caught: the settings file's bad value refusing a run that names a good one."""
    (tiny / ".drafter-lint.toml").write_text('runtime = "vllm==abc"\n')
    named = cli("check", tiny / "drafter", "--runtime", "vllm==0.32.0", "--format", "json")
    assert named.code == 0, named.err
    unnamed = cli("check", tiny / "drafter")
    assert unnamed.code == 2 and ".drafter-lint.toml: runtime:" in unnamed.err


def test_the_token_count_is_judged_for_the_release_asked(cli, tiny):
    """LCH102 speaks for the selected vLLM release, never for every runtime (review D2).
    Mutation caught: the runtimes looped by name (`vLLM` named whatever --runtime said)."""
    run = cli("check", tiny / "drafter", "--num-speculative-tokens", "16", "--runtime",
              "vllm==0.30.0", "--select", "LCH102", "--format", "json")
    found = run.json()["results"][0]["findings"]
    assert [f["rule"] for f in found] == ["LCH102"] and "vLLM 0.30.0" in found[0]["message"]
    both = cli("check", tiny / "drafter", "--num-speculative-tokens", "16", "--select",
               "LCH102", "--format", "json")
    assert [f["message"].count("SGLang") for f in both.json()["results"][0]["findings"]] == [0]


# --- hostile trees ---------------------------------------------------------------------------

def test_a_tree_with_a_fifo_a_deep_config_and_a_good_drafter_answers_at_once(cli, tmp_path):
    """`check PARENT` over a FIFO config.json, a link to it, a 10,000-deep config.json and a
    good drafter: DL001 for each bad one, the good one linted, in a moment. Mutations
    caught: discovery opening the FIFO (hung forever), RecursionError from the deep one
    ending the run as an internal error."""
    import shutil

    tree = tmp_path / "models"
    for name in ("a-fifo", "b-deep", "c-link"):
        (tree / name).mkdir(parents=True)
    os.mkfifo(tree / "a-fifo" / "config.json")
    (tree / "b-deep" / "config.json").write_text("[" * 10_000 + "]" * 10_000)
    (tree / "c-link" / "config.json").symlink_to(tree / "a-fifo" / "config.json")
    shutil.copytree(FIXTURES / "tiny-qwen3.6" / "drafter", tree / "d-good")
    started = time.monotonic()
    run = cli("check", tree, "--format", "json")
    assert time.monotonic() - started < 30 and "internal error" not in run.err, run.err
    got = {os.path.basename(r["path"]): [f["rule"] for f in r["findings"]]
           for r in run.json()["results"]}
    assert got["a-fifo"] == ["DL001"] and got["b-deep"] == ["DL001"], got
    assert got["c-link"] == ["DL001"] and "DL001" not in got["d-good"], got
    assert run.code == 1


def test_a_stray_config_json_above_does_not_hide_the_drafters_below(cli, tmp_path):
    """U5-9: an editor's or app's config.json in a parent folder is not a checkpoint, so
    `check proj/models` still lints each drafter below it. Mutation caught: any config.json
    above PATH taken as its checkpoint (the parent linted, DL007 info, exit 0, the guessed
    drafter never read)."""
    import shutil

    (tmp_path / "proj" / "models").mkdir(parents=True)
    (tmp_path / "proj" / "config.json").write_text('{"editor": "vim", "theme": "dark"}')
    for name, source in (("a", "drafter"), ("b", "drafter-guessed")):
        shutil.copytree(FIXTURES / "tiny-qwen3.6" / source, tmp_path / "proj" / "models" / name)
    run = cli("check", tmp_path / "proj" / "models", "--target",
              FIXTURES / "tiny-qwen3.6" / "target", "--format", "json")
    got = {os.path.basename(r["path"]): [f["rule"] for f in r["findings"]]
           for r in run.json()["results"]}
    assert sorted(got) == ["a", "b"] and "DF104" in got["b"], got
    assert run.code == 1


# --- fix lists every change it makes ---------------------------------------------------------

def _with_duplicate_block(folder) -> None:
    text = (folder / "config.json").read_text()
    (folder / "config.json").write_text(text.replace("{\n", '{\n  "block_size": 8,\n', 1))


def test_fix_never_drops_a_duplicate_key_silently(cli, tiny):
    """A rewrite keeps one copy of a duplicated key. With different values that is a
    guess: without --unsafe-fixes nothing is written and the reason is said; with it, the
    collapse is listed like any edit. Mutation caught: the earlier copy dropped without a
    word (`block_size` 8 and 16, the 8 gone)."""
    guessed = tiny / "drafter-guessed"
    _with_duplicate_block(guessed)
    before = (guessed / "config.json").read_bytes()
    safe = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert safe.code == 1 and (guessed / "config.json").read_bytes() == before
    assert "/block_size 2 times with different values (8, 16)" in safe.out, safe.out
    unsafe = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target",
                 "--unsafe-fixes")
    assert "fix DL003 /block_size: keep 16" in unsafe.out and "drop 8" in unsafe.out
    assert (guessed / "config.json").read_text().count('"block_size"') == 1


def test_fix_does_not_copy_a_reference_that_contradicts_the_weights(cli, tiny, tmp_path):
    """The reference's values are safe to copy only while they fit the checkpoint: the
    27B reference on the tiny drafter's weights would turn 8 errors into dozens. Mutation
    caught: the "safe" copies applied anyway (16 errors became 53 in the review)."""
    big = tmp_path / "big"
    big.mkdir()
    (big / "config.json").write_bytes(
        (FIXTURES / "hub" / "z-lab" / "Qwen3.6-27B-DFlash" / "main" / "config.json")
        .read_bytes())
    drafter = tiny / "drafter"
    before = (drafter / "config.json").read_bytes()
    run = cli("fix", drafter, "--reference", big, "--target", tiny / "target")
    assert run.code == 1 and (drafter / "config.json").read_bytes() == before
    assert "the reference contradicts this checkpoint" in run.out, run.out
    forced = cli("fix", drafter, "--reference", big, "--target", tiny / "target",
                 "--unsafe-fixes", "--dry-run")
    assert "would fix REF101 /hidden_size: 16 -> 5120" in forced.out, forced.out


def test_fix_diff_with_pending_edits_exits_1_and_writes_nothing(cli, tiny):
    """`fix --diff` shows the patch and exits 1 while edits are pending (as ruff's
    --diff). Mutation caught: exit 0 for a diff that still has to be applied."""
    guessed = tiny / "drafter-guessed"
    before = (guessed / "config.json").read_bytes()
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--diff")
    assert run.code == 1 and run.out.startswith("--- a/config.json"), run.out
    assert (guessed / "config.json").read_bytes() == before
    json.loads(before)


# --- no internal error on hostile input --------------------------------------------------------

DEEP = "[" * 10_000 + "]" * 10_000


@pytest.mark.parametrize("name,setup,command", [
    ("layer-kinds-of-any-type", lambda d: _config(d, layer_types=[1, None, {}]), "inspect"),
    ("deep-baseline", lambda d: _baseline(d, DEEP), "check"),
    ("baseline-entries-of-any-type",
     lambda d: _baseline(d, '{"entries": [{"rule": 5, "path": [], "pointer": {}}]}'), "fix"),
])
def test_hostile_files_are_one_line_never_an_internal_error(cli, tiny, name, setup, command):
    """Each of these ended in `internal error` (a sweep of 167 hostile runs over every
    command found them). Mutation caught: a type or depth assumed of a user's file."""
    drafter = tiny / "drafter"
    setup(drafter)
    args = [command, drafter, "--target", tiny / "target"] + (
        ["--dry-run"] if command == "fix" else [])
    run = cli(*args)
    assert run.code in (0, 1, 2) and "internal error" not in run.err, run.err


def _config(folder, **changes) -> None:
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def _baseline(folder, text: str) -> None:
    (folder / ".drafter-lint.toml").write_text('baseline = "b.json"\n')
    (folder / "b.json").write_text(text)


@pytest.mark.parametrize("config", [
    '{"model": 5}', '{"method": ["x"], "model": "drafter"}', '{"model": {"a": 1}}',
    '{"method": "dflash", "model": "drafter", "revision": 5}'])
def test_a_speculative_config_of_the_wrong_types_is_refused_in_one_line(config):
    """vLLM's SpeculativeConfig refuses these; the gate did too, as an internal error."""
    from drafter_lint.gate import GateError, parse

    with pytest.raises(GateError, match="not a string"):
        parse(["vllm", "serve", "T", "--speculative-config", config])
    with pytest.raises(GateError, match="not JSON"):
        parse(["vllm", "serve", "T", "--speculative-config.model", "{bad"])


def test_wording_names_what_is_there(cli, tmp_path):
    """Mutations caught: "holds a array", a folder called a FIFO."""
    (tmp_path / "arr").mkdir()
    (tmp_path / "arr" / "config.json").write_text("[1]")
    (tmp_path / "dir" / "config.json").mkdir(parents=True)
    array = cli("check", tmp_path / "arr", "--format", "concise")
    folder = cli("check", tmp_path / "dir", "--format", "concise")
    assert "config.json holds an array, not an object" in array.out, array.out
    assert "not a regular file (a folder)" in folder.out and "FIFO" not in folder.out


@pytest.mark.parametrize("release,says", [
    ("sglang==0.5.2", "positions unchanged"),
    ("sglang==0.5.3", "raises it to the target's")])
def test_the_short_context_message_says_what_the_release_does(release, says, tmp_path):
    """SGLang raises the draft's max_position_embeddings with the override variable only from
    0.5.3 (configs/model_config.py:270-274). Mutation caught: the 0.5.3 wording for 0.5.2."""
    from rulecases import cases_of, lint_case

    case = next(c for c in cases_of("DL013") if c.runtime == release)
    found = [f for f in lint_case(case, tmp_path).findings if f.rule == "DL013"]
    assert len(found) == 1 and says in found[0].message, [f.message for f in found]


def test_check_takes_the_servers_environment(cli, tiny):
    """`check --env NAME=VALUE` gives check the context `gate` reads from a launch: with
    VLLM_USE_V2_MODEL_RUNNER=0 a mixed drafter is refused on vLLM 0.27.0's V1 runner, and
    the report says which path it assumed. Mutation caught: --env ignored (no LCH103), or
    the runner not taken from it."""
    plain = cli("check", tiny / "drafter", "--runtime", "vllm==0.27.0", "--format", "json")
    v1 = cli("check", tiny / "drafter", "--runtime", "vllm==0.27.0", "--format", "json",
             "--env", "VLLM_USE_V2_MODEL_RUNNER=0")
    assert plain.code == 0 and v1.code == 1, (plain.out, v1.out)
    result = v1.json()["results"][0]
    assert [f["rule"] for f in result["findings"] if f["severity"] == "error"] == ["LCH103"]
    assert result["paths"] == ["vLLM 0.27.0: its V1 model runner, VLLM_USE_V2_MODEL_RUNNER=0 "
                               "asks for it"]


def test_a_closed_standard_output_is_one_line_and_exit_2(tmp_path):
    """U5-21: `check ... >&-` printed a traceback (sys.stdout is None) and exit 1, which
    reads as "findings". Mutation caught: any write or flush to the missing stdout."""
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    run = subprocess.run(["bash", "-c", f'"{exe}" check "$0" --target "$1" >&-',
                          str(FIXTURES / "tiny-qwen3.6" / "drafter-guessed"),
                          str(FIXTURES / "tiny-qwen3.6" / "target")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "cannot write the output to standard output" in run.stderr


def test_a_deeply_nested_speculative_config_is_a_one_line_refusal():
    """U4-18: a 5,000-deep --speculative-config was `internal error: RecursionError`.
    Mutation caught: json.loads's RecursionError escaping the gate's reader."""
    from drafter_lint.command import parse
    from drafter_lint.errors import GateError

    with pytest.raises(GateError, match="nested too deeply"):
        parse(["vllm", "serve", "T", "--speculative-config", "[" * 100_000 + "]" * 100_000])


def test_inspect_of_a_folder_of_checkpoints_names_them_instead_of_drawing_one(cli, tmp_path):
    """U5-24 (i06): `inspect PARENT` silently drew the first of 56 checkpoints. Mutation
    caught: roots()[0] taken without a word."""
    import shutil

    for name in ("a", "b"):
        shutil.copytree(FIXTURES / "tiny-qwen3.6" / "drafter", tmp_path / "m" / name)
    run = cli("inspect", tmp_path / "m")
    assert run.code == 2 and "holds 2 checkpoints" in run.err, run.err


def test_a_settings_file_that_is_not_a_regular_file_is_said(cli, tmp_path):
    """U5-24 (set-s4): a FIFO pyproject.toml was silently ignored, with the settings it
    may hold. Mutation caught: is_file() skipping it without a word."""
    import shutil

    shutil.copytree(FIXTURES / "tiny-qwen3.6" / "drafter", tmp_path / "d")
    os.mkfifo(tmp_path / "d" / "pyproject.toml")
    run = cli("check", tmp_path / "d")
    assert run.code == 2 and "pyproject.toml: not a regular file" in run.err, run.err


def test_a_typod_local_path_is_not_only_a_hub_error(cli):
    """U5-24 (t01, t02): `check fixture/drafter` (a typo of fixtures/...) reads like a hub
    id; the one line says it is no local path either. Mutation caught: the hub's answer
    alone, which sends the user looking for a repo."""
    run = cli("check", "fixture/drafter")
    assert run.code == 2 and "nor is fixture/drafter a local path" in run.err, run.err


def test_a_run_that_read_nothing_does_not_say_all_checks_passed(cli):
    """U4-22 (u22b): "All checks passed (0 checkpoints)." printed above "2 repos: 0 linted,
    2 not read" (exit 2). Mutation caught: the summary's pass line on zero reads."""
    run = cli("check", "nosuch/one", "nosuch/two")
    assert run.code == 2, run.err
    assert "All checks passed" not in run.out and "Nothing was checked" in run.out, run.out


def test_from_hub_whose_card_names_a_missing_base_model_goes_on(cli, tmp_path, monkeypatch):
    """U5-24 (f05): `--from-hub` whose card names a base_model the hub lacks ended the run
    (exit 2), where a collection makes it a warning. Mutation caught: the card's target
    error raised as the user's own --target's would be."""
    import shutil

    from fakehub import FakeHub

    root = tmp_path / "hub"
    shutil.copytree(FIXTURES / "hub", root)
    repo = root / "z-lab" / "Qwen3.6-27B-DFlash" / "main"
    (repo / "README.md").write_text("---\nbase_model: Qwen/Qwen3.6-27B-Typo\n---\n# card\n")
    with FakeHub(root) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        run = cli("check", FIXTURES / "tiny-qwen3.6" / "drafter-guessed", "--from-hub",
                  "z-lab/Qwen3.6-27B-DFlash", "--format", "json")
    assert run.code == 1, run.err
    assert "Qwen/Qwen3.6-27B-Typo" in run.err and "linted without a target" in run.err
    assert run.json()["results"][0]["findings"]


def test_gate_json_goes_whole_to_its_output_file(tmp_path):
    """U5-26 (o09): `gate --format json` wrote its JSON to stderr between note lines, so it
    could not be parsed. Mutation caught: -o ignored, or notes written into the file."""
    import json
    import subprocess
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "vllm").chmod(0o755)
    tiny = FIXTURES / "tiny-qwen3.6"
    spec = json.dumps({"method": "dflash", "model": str(tiny / "drafter-guessed"),
                       "num_speculative_tokens": 15})
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    run = subprocess.run([exe, "gate", "--format", "json", "-o", str(tmp_path / "r.json"), "--",
                          "vllm", "serve", str(tiny / "target"), "--speculative-config", spec],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert run.returncode == 1 and "nothing started" in run.stderr, run.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert {f["rule"] for f in report["results"][0]["findings"]} >= {"DF104"}
    good = spec.replace("drafter-guessed", "drafter")          # o09d: passes, says where
    run = subprocess.run([exe, "gate", "--format", "json", "-o", str(tmp_path / "r.json"), "--",
                          "vllm", "serve", str(tiny / "target"), "--speculative-config", good],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert run.returncode == 0 and f"in {tmp_path / 'r.json'}" in run.stderr, run.stderr
    assert "shown above" not in run.stderr


@pytest.mark.parametrize("architecture,refused", [
    ("Eagle3DeepSeekMTPModel", True),      # issue 38's unplaced drafter: both registries refuse
    ("DominoDraftModel", True),
    ("BrandNewForCausalLM", False),        # may load through a Transformers backend
    ("LlamaForCausalLM", False),           # registered
])
def test_a_drafter_of_no_known_family_still_meets_the_registries(cli, tmp_path, architecture,
                                                                 refused):
    """Issue 38 item 4: a family the tool cannot tell (DL007) no longer means only file
    checks: a draft class no release registers under any method's rename is DL012. Mutation
    caught: unknown families skipped (the miss the executed vLLM 0.25.0 showed), or a
    non-draft class (which the runtimes' Transformers backend may load) refused."""
    (tmp_path / "config.json").write_text(json.dumps({"architectures": [architecture],
                                                      "model_type": "deepseek_v3"}))
    run = cli("check", tmp_path, "--format", "json")
    rules = [f["rule"] for f in run.json()["results"][0]["findings"]]
    assert "DL007" in rules
    assert rules.count("DL012") == (2 if refused else 0), rules


def test_ranges_on_a_local_folder_says_where_to_look(cli):
    """U5-24 (c18): `--ranges` on a local path was silently ignored. Mutation caught: the
    flag dropped without a word."""
    run = cli("check", FIXTURES / "tiny-qwen3.6" / "drafter", "--ranges")
    assert "--ranges applies to hub repos" in run.err and "drafter-lint releases" in run.err


@pytest.mark.parametrize("runtime,severity", [("vllm==0.11.0", "error"),
                                              ("vllm==0.19.0", "error"),
                                              ("vllm==0.20.0", None), (None, None)])
def test_a_speculators_type_the_release_asked_for_does_not_map_is_its_refusal(cli, runtime,
                                                                             severity):
    """Issue 38: vLLM 0.11.0, executed, refuses nine speculators-format DFlash drafters
    (its speculators loader maps only eagle3) which the tool passed for that release.
    Mutation caught: SPC101 judging the newest releases whatever --runtime asks."""
    case = FIXTURES / "published" / "speculators-613-dflash-partial-rotary"
    run = cli("check", case, "--format", "json", *(("--runtime", runtime) if runtime else ()))
    found = [f["severity"] for f in run.json()["results"][0]["findings"]
             if f["rule"] == "SPC101"]
    assert found == ([severity] if severity else []), found


@pytest.mark.parametrize("line,said", [
    (["vllm", "serve", "T", "--", "--speculative-config", "{}"], "`--` ends vLLM's options"),
    (["python", "-m", "sglang.launch_server", "--model-path", "T", "--", "--x"],
     "`--` ends SGLang's options"),
])
def test_words_after_double_dash_are_positionals_as_argparse_reads_them(line, said):
    """Issue 42 re-run (g12): `vllm serve T -- --speculative-config ...` was refused as
    "-- is an abbreviation of --model or ...". Mutation caught: `--` read as an option."""
    from drafter_lint.command import parse
    from drafter_lint.errors import GateError

    with pytest.raises(GateError, match=said):
        parse(line)
    assert parse(["vllm", "serve", "--", "T"]).target == "T"      # one positional: the model


def test_a_server_config_over_its_cap_is_refused_unparsed(tmp_path):
    """Issue 42 re-run (g93, U5-22): a 2 MiB --config YAML was cut at the read cap and
    reported as a YAML syntax error. Mutation caught: the cut bytes parsed."""
    from drafter_lint.command import parse
    from drafter_lint.errors import GateError

    (tmp_path / "big.yaml").write_text("a: '" + "x" * (2 << 20) + "'\n")
    with pytest.raises(GateError, match="over the 1 MiB limit"):
        parse(["vllm", "serve", "T", "--config", str(tmp_path / "big.yaml")])


def test_df125_follows_the_servers_runner_choice(cli):
    """Issue 42 re-run (n16): with --env VLLM_USE_V2_MODEL_RUNNER=0, DF125 still said V2
    serves it "(the default)" beside LCH103's refusal. Mutation caught: DF125 blind to the
    launch's own runner choice."""
    tiny = FIXTURES / "tiny-qwen3.6"
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--format", "json",
              "--env", "VLLM_USE_V2_MODEL_RUNNER=0", "--runtime", "vllm==0.33.0")
    df125 = [f["message"] for f in run.json()["results"][0]["findings"] if f["rule"] == "DF125"]
    assert df125 and "(the default)" not in df125[0] and "LCH103" in df125[0], df125
    # vLLM 0.34.0 has no V1: no DF125 note, LCH103 refuses the variable itself
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--format", "json",
              "--env", "VLLM_USE_V2_MODEL_RUNNER=0", "--runtime", "vllm==0.34.0")
    found = {f["rule"]: f for f in run.json()["results"][0]["findings"]}
    assert "DF125" not in found and found["LCH103"]["severity"] == "error", found


def test_the_gate_names_the_server_it_starts_not_its_launcher():
    """Issue 42 re-run: "starting python3 -m", "starting env -u". Mutation caught: the
    exec'd line's first two words named instead of the server command."""
    from drafter_lint.command import locate

    assert locate(["env", "-u", "X", "vllm", "serve", "T"]).label == "vllm serve"
    assert locate(["python3", "-u", "-m", "sglang.launch_server", "--model-path", "T"]
                  ).label == "python3 -m sglang.launch_server"


# --- the run's options are deeply immutable (issue 40 part 2) ----------------------------

ATOMS = (str, bytes, int, float, bool, type(None), os.PathLike)


def _mutable_parts(value, where: str = "options") -> list[str]:
    """Where `value` holds something that can change in place: a list, dict, set or
    bytearray, or a dataclass that is not frozen. Read-only mappings (drafter_lint.readonly's
    dicts too), tuples, frozensets and read-only lists are walked; functions (a rule's
    check) and enum members are values."""
    import dataclasses
    import enum
    from types import FunctionType, MappingProxyType

    from drafter_lint.readonly import ReadOnlyDict, ReadOnlyList

    if isinstance(value, ReadOnlyDict):
        return [p for k, v in value.items() for p in _mutable_parts(v, f"{where}[{k!r}]")]
    if isinstance(value, ReadOnlyList):
        return [p for i, v in enumerate(value) for p in _mutable_parts(v, f"{where}[{i}]")]
    if isinstance(value, (list, dict, set, bytearray)):
        return [f"{where}: {type(value).__name__}"]
    if isinstance(value, ATOMS + (enum.Enum, FunctionType)):
        return []
    if isinstance(value, MappingProxyType):
        return [p for k, v in value.items() for p in _mutable_parts(v, f"{where}[{k!r}]")]
    if isinstance(value, (tuple, frozenset)):
        return [p for i, v in enumerate(value) for p in _mutable_parts(v, f"{where}[{i}]")]
    if dataclasses.is_dataclass(value):
        own = [] if type(value).__dataclass_params__.frozen else \
            [f"{where}: {type(value).__name__} is not frozen"]
        return own + [p for f in dataclasses.fields(value)
                      for p in _mutable_parts(getattr(value, f.name), f"{where}.{f.name}")]
    return [f"{where}: {type(value).__name__}, not known to be immutable"]


def test_a_folders_options_are_deeply_immutable(tiny, tmp_path, cli):
    """Issue 40 item 2: nothing reachable from a run's Options can be changed in place:
    the target's and reference's configs, the tokenizer's tables, the settings, their
    ignores and severities, the baseline, the launch line. Built as `check` builds them,
    with every one of those given. Mutations caught: Target, Reference, Settings,
    TokenizerFacts or Ignore no longer frozen, a config dict kept plain, the baseline's
    entries or the settings' severity table left writable (Ignore.used set in place was
    one: it made a run's suppression depend on earlier lints in the process)."""
    from drafter_lint import pipeline

    folder = tiny / "drafter-guessed"
    baseline = tmp_path / "baseline.json"
    assert cli("check", folder, "--write-baseline", baseline).code == 0
    (folder / ".drafter-lint.toml").write_text(
        '[severity]\nDF114 = "warning"\n'
        '[[per-path-ignores]]\npath = "*"\nrules = ["DF104"]\nreason = "test"\n')
    run = pipeline.prepare(target_arg=str(tiny / "target"), reference_arg=str(tiny / "drafter"),
                           runtime=("vllm==0.33.0",), env=("VLLM_USE_V2_MODEL_RUNNER=1",))
    _, options, found = pipeline.prepare_folder(run, folder, baseline_arg=str(baseline))
    assert options.target.tokenizer and found.severity and found.ignores and options.baseline
    assert options.reference.config and options.launch and options.server
    assert _mutable_parts(options) == []
    target = options.target
    object.__setattr__(target, "config", dict(target.config))       # the walk can fail
    assert _mutable_parts(options) == ["options.target.config: dict"]


def test_the_options_of_check_fix_and_gate_are_deeply_immutable(tiny):
    """Issue 40 part 2: the frozen Options held a mutable Launch that the gate changed
    after it went in (LCH106 saw the dry run only through that aliasing). Mutations
    caught: a list, dict or set anywhere in what `prepare` makes for check, fix and gate
    (the rule table as a dict, --env's variables, a launch line's flags), a LaunchLine,
    ServerContext or DryRunVerdict made mutable again, and the gate's options with its
    line, server and verdict."""
    import shlex
    from dataclasses import replace

    from drafter_lint import pipeline
    from drafter_lint.command import locate, read
    from drafter_lint.launch import DryRunVerdict

    check = pipeline.prepare(select=("DF", "LCH"), ignore=("DL009",), family="dflash",
                             runtime=("vllm==0.33.0",), speculative_tokens=3,
                             env=("VLLM_USE_V2_MODEL_RUNNER=1",)).options
    fix = pipeline.prepare(select=("DF1",), no_cache=True).options
    gate = pipeline.prepare(select=("LCH",), resolve=False).options
    server = locate(shlex.split(
        "env -u HOME A=1 vllm serve target --hf-overrides '{\"rope\": {\"f\": [1, 2]}}' "
        "--speculative-config '{\"method\": \"dflash\", \"model\": \"d\", "
        "\"num_speculative_tokens\": 15}'"), inherited={"HOME": "/root", "PATH": "/bin"})
    launch = read(server, runtimes.parse("vllm==0.33.0"))
    gated = gate.but(launch=launch, server=replace(server, release=runtimes.parse("vllm")),
                     dry_run=DryRunVerdict("refused", "vllm", "0.33.0", "no", "x.py:1"))
    assert check.launch.tokens == 3 and not check.server.env_cleared
    assert check.server.environment == {
        "VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert launch.hf_overrides["rope"]["f"] == [1, 2] and launch.tokens == 15
    for name, options in (("check", check), ("fix", fix), ("gate", gate),
                          ("gate's folder", gated)):
        assert _mutable_parts(options, name) == []
