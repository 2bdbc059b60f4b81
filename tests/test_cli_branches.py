"""Branch by branch: the launch-line parser, the settings files, the hub helpers, the
gate's environment and release choice, the pipeline's option checks and the CLI's small
decisions. Each test names the mutation it kills (round of branch tests, 2026-12-06):
what a user would see differ if that one branch, operand or bound were changed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from drafter_lint.command import locate, parse
from drafter_lint.errors import GateError, SettingsError, UsageError


def spec(**config) -> str:
    return json.dumps({"method": "dflash", "model": "D", "num_speculative_tokens": 4,
                       **config})


# --- command.py: the launch line as the server reads it ---------------------------------


def test_a_word_with_an_equals_sign_that_is_no_variable_name_is_not_the_environment():
    """Mutation caught: `.isidentifier()` dropped from `_split_env` (command.py:42):
    `9X=1 vllm serve T` read as a variable 9X and a vLLM line, where the shell runs a
    program called `9X=1`."""
    with pytest.raises(GateError, match="not a vLLM or SGLang launch command"):
        parse(["9X=1", "vllm", "serve", "T"], inherited={})
    assert dict(locate(["A_1=x", "vllm", "serve", "T"], inherited={}).env) == {"A_1": "x"}


@pytest.mark.parametrize("flag", ["--no-zzz-thing", "--enable-zzz-thing",
                                  "--disable-zzz-thing"])
def test_a_boolean_option_vllm_derives_by_name_does_not_swallow_the_model(flag):
    """Mutation caught: one of `--enable-`, `--disable-`, `--no-` dropped from
    `_Booleans.__contains__` (command.py:56): a store-true flag vLLM makes from a boolean
    field took the model as its value and the line was refused as ambiguous."""
    launch = parse(["vllm", "serve", flag, "T", "--speculative-config", spec()],
                   inherited={})
    assert launch.target == "T"


def test_an_underscored_option_is_the_dashed_one():
    """Mutation caught: `_normal` keeping the underscores (command.py:84): vLLM reads
    `--max_model_len 4k` as `--max-model-len`, the gate ignored it."""
    launch = parse(["vllm", "serve", "T", "--max_model_len", "4k", "--speculative-config",
                    spec()], inherited={})
    assert launch.max_model_len == 4000


@pytest.mark.parametrize("value,expected", [("4k", 4000), ("4K", 4096), ("1.5k", 1500),
                                            ("2m", 2_000_000), ("1M", 1 << 20),
                                            ("32768", 32768), ("auto", None),
                                            ("-1", None), (" 8k ", 8000)])
def test_max_model_len_is_read_as_vllms_human_readable_int(value, expected):
    """Mutations caught: a suffix's multiplier changed (`k` 10**3 / `K` 2**10,
    command.py:548), `auto` or `-1` not sizing itself (command.py:558), `.strip()`
    dropped (command.py:557)."""
    launch = parse(["vllm", "serve", "T", "--max-model-len", value, "--speculative-config",
                    spec()], inherited={})
    assert launch.max_model_len == expected


@pytest.mark.parametrize("value", ["1.5K", "1.5", "0", "0k", "12x", ""])
def test_max_model_len_vllm_refuses_is_refused(value):
    """Mutations caught: the decimal-with-binary-suffix test dropped (`match[2] not in
    "kmgt"`, command.py:561), the bare-decimal test dropped (command.py:562), `number <= 0`
    made `< 0` (command.py:566)."""
    with pytest.raises(GateError, match="max-model-len"):
        parse(["vllm", "serve", "T", "--max-model-len", value, "--speculative-config",
               spec()], inherited={})


@pytest.mark.parametrize("tokens,expected", [(1, 1), ("3", 3), (2.0, 2), (True, 1)])
def test_num_speculative_tokens_vllm_takes(tokens, expected):
    """Mutations caught: `number < 1` made `number < 2` (command.py:152); the float that
    is a whole number refused (command.py:145)."""
    assert parse(["vllm", "serve", "T", "--speculative-config",
                  spec(num_speculative_tokens=tokens)], inherited={}).tokens == expected


@pytest.mark.parametrize("tokens,said", [(0, "at least 1"), (-2, "at least 1"),
                                         (2.5, "fractional"), ("two", "not an integer"),
                                         (1e400, "finite")])
def test_num_speculative_tokens_vllm_refuses(tokens, said):
    """Mutations caught: `number < 1` made `number < 0` (command.py:152), the fraction
    test dropped (command.py:145), the finite test dropped (command.py:142)."""
    with pytest.raises(GateError, match=said):
        parse(["vllm", "serve", "T", "--speculative-config",
               spec(num_speculative_tokens=tokens)], inherited={})


def test_uv_run_env_file_is_read_as_dotenv(tmp_path):
    """Mutations caught: `.removeprefix("export ")` dropped (command.py:264: the line is
    refused), the quotes kept (command.py:270) or a lone quote emptied (`len(value) > 1`
    dropped, command.py:269), comments read (command.py:262)."""
    env_file = tmp_path / "serve.env"
    env_file.write_text('# the server\n\nexport A="x y"\nB=\'z\'\nC = plain \nD="\n')
    server = locate(["uv", "run", "--env-file", str(env_file), "vllm", "serve", "T"],
                    inherited={})
    env = server.environment
    assert (env["A"], env["B"], env["C"], env["D"]) == ("x y", "z", "plain", '"')


def test_uv_run_env_file_disagreeing_with_the_line_is_refused(tmp_path):
    """Mutation caught: the disagreement test of `locate` dropped (command.py:411): the gate
    would pick one of two values uv does not document."""
    (tmp_path / "e").write_text("A=2\n")
    with pytest.raises(GateError, match="sets A"):
        locate(["A=1", "uv", "run", "--env-file", str(tmp_path / "e"), "vllm", "serve", "T"],
               inherited={})
    assert locate(["A=2", "uv", "run", "--env-file", str(tmp_path / "e"), "vllm", "serve",
                   "T"], inherited={}).environment["A"] == "2"


def test_env_unset_then_set_again_is_seen_by_the_server():
    """Mutation caught: `out.unset.discard(key)` dropped (command.py:298): `env -u A A=1`
    leaves A=1 for the server (the line's own value wins either way), and
    `env -uHF_TOKEN` (the attached form, command.py:246) removes the inherited token."""
    server = locate(["env", "-u", "A", "A=1", "vllm", "serve", "T"], inherited={"A": "0"})
    assert "A" not in server.unset and server.environment["A"] == "1"
    server = locate(["env", "-uHF_TOKEN", "vllm", "serve", "T"],
                    inherited={"HF_TOKEN": "t", "KEEP": "k"})
    assert "HF_TOKEN" not in server.environment and server.environment["KEEP"] == "k"


def test_env_i_clears_what_the_server_inherits():
    """Mutation caught: `out.cleared = True` dropped (command.py:302): after `env -i` the
    server sees only the line's own variables."""
    server = locate(["env", "-i", "B=2", "vllm", "serve", "T"], inherited={"A": "1"})
    assert server.environment == {"B": "2"}


@pytest.mark.parametrize("line", [
    ["nice", "-n", "5", "vllm", "serve", "T"],
    ["timeout", "60", "vllm", "serve", "T"],
    ["timeout", "-k", "5", "60", "vllm", "serve", "T"],
    ["taskset", "-c", "0-3", "vllm", "serve", "T"],
    ["numactl", "--cpunodebind", "0", "--membind", "0", "vllm", "serve", "T"],
    ["nohup", "--", "vllm", "serve", "T"],
])
def test_the_server_behind_a_launcher_is_found(line):
    """Mutations caught: a launcher option's value not skipped (`del rest[:takes]` dropped,
    command.py:344), `timeout`/`taskset`'s own positional not skipped (POSITIONAL,
    command.py:347), `--` not dropped after them (command.py:345)."""
    server = locate(line, inherited={})
    assert server.runtime == "vllm" and server.command == ("vllm", "serve", "T")


def test_python_options_with_a_value_before_dash_m_are_skipped():
    """Mutation caught: `-X`/`-W` taking one word instead of two in `_python_module`
    (command.py:375): `python -X dev -m sglang.launch_server` was no launch command."""
    launch = parse(["python3", "-X", "dev", "-W", "ignore", "-u", "-m", "sglang.launch_server",
                    "--model-path", "T"], inherited={})
    assert launch.runtime == "sglang" and launch.target == "T"


def test_sglang_serve_and_the_console_script_are_sglang_launches():
    """Mutation caught: the `sglang serve` branch of `_server` dropped (command.py:469)."""
    launch = parse(["sglang", "serve", "--model-path", "T", "--speculative-algorithm",
                    "eagle", "--speculative-draft-model-revision", "r1"], inherited={})
    assert (launch.runtime, launch.target, launch.method, launch.draft) == \
        ("sglang", "T", "EAGLE", "T")


def test_a_config_file_named_with_an_equals_sign_is_read(tmp_path):
    """Mutation caught: the `--config=FILE` branch of `_config_files` dropped
    (command.py:516): its options were ignored and the launch read as without a draft."""
    (tmp_path / "s.yaml").write_text("speculative-config:\n  method: dflash\n  model: D\n"
                                     "  num_speculative_tokens: 7\nmax_model_len: 2k\n")
    launch = parse(["vllm", "serve", "T", f"--config={tmp_path / 's.yaml'}"], inherited={})
    assert (launch.draft, launch.tokens, launch.max_model_len) == ("D", 7, 2000)


def test_a_config_file_value_loses_to_the_lines_own():
    """Mutation caught: the config file's arguments placed after the line's own
    (`from_file + own` made `own + from_file`, command.py:768): vLLM lets the command
    line win."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write("max-model-len: 1k\n")
    launch = parse(["vllm", "serve", "T", "--config", handle.name, "--max-model-len", "3k",
                    "--speculative-config", spec()], inherited={})
    Path(handle.name).unlink()
    assert launch.max_model_len == 3000


def test_spec_flags_that_repeat_the_speculative_config_are_refused():
    """Mutation caught: the `key in config` test of the --spec-* flags dropped
    (command.py:801)."""
    with pytest.raises(GateError, match="repeats speculative-config method"):
        parse(["vllm", "serve", "T", "--speculative-config", spec(), "--spec-method",
               "eagle3"], inherited={})


def test_legacy_speculative_flags_are_read_as_they_served():
    """Mutations caught: `legacy and not config` made `legacy and config` (command.py:811),
    argparse's last value not kept (`legacy.setdefault`, command.py:806)."""
    launch = parse(["vllm", "serve", "T", "--speculative-model", "A",
                    "--speculative-model", "B", "--num-speculative-tokens", "3"],
                   inherited={})
    assert (launch.draft, launch.tokens) == ("B", 3)
    assert launch.legacy_flags == ("--speculative-model", "--speculative-model",
                                   "--num-speculative-tokens")


@pytest.mark.parametrize("method", ["mtp", "qwen3_next_mtp", "deepseek_mtp"])
def test_an_mtp_method_drafts_from_the_target_at_its_revision(method):
    """Mutations caught: `== "mtp"` or `.endswith("_mtp")` dropped (command.py:816), the
    target's revision not given to the draft (command.py:822)."""
    launch = parse(["vllm", "serve", "T", "--revision", "r7", "--speculative-config",
                    json.dumps({"method": method, "num_speculative_tokens": 1})],
                   inherited={})
    assert (launch.draft, launch.draft_revision) == ("T", "r7")


def test_a_draft_revision_written_wins_over_the_targets():
    """Mutation caught: the draft's own `revision` not read (command.py:819)."""
    launch = parse(["vllm", "serve", "T", "--revision", "r7", "--speculative-config",
                    json.dumps({"method": "qwen3_next_mtp", "revision": "d1",
                                "num_speculative_tokens": 1})], inherited={})
    assert launch.draft_revision == "d1"


@pytest.mark.parametrize("config", [{"method": "suffix", "num_speculative_tokens": 4},
                                    {"model": "ngram", "num_speculative_tokens": 4}])
def test_a_draftless_method_has_no_draft_to_lint(config):
    """Mutation caught: `or launch.draft == "ngram"` dropped, or a DRAFTLESS method lost
    (command.py:827)."""
    assert parse(["vllm", "serve", "T", "--speculative-config", json.dumps(config)],
                 inherited={}).draftless


def test_sglang_options_are_read_by_unique_prefix_and_ngram_is_draftless():
    """Mutations caught: `--disable-radix-cache` not set (command.py:868), the context
    length not an integer (command.py:866), NGRAM not draftless (command.py:901), the
    algorithm not upper-cased (command.py:898)."""
    launch = parse([sys.executable, "-m", "sglang.launch_server", "--model-path", "T",
                    "--speculative-algo", "ngram", "--disable-radix-cache",
                    "--context-length", "4096"], inherited={})
    assert (launch.method, launch.draftless, launch.radix_cache_disabled,
            launch.context_length) == ("NGRAM", True, True, 4096)


def test_an_ambiguous_non_speculative_sglang_prefix_is_left_to_the_server():
    """Mutation caught: the `option.startswith("--speculative")` condition of the ambiguity
    refusal dropped (command.py:855): `--mod` (ambiguous between --model-path and --model
    in the gate's list) refused a line whose target is given in full."""
    launch = parse([sys.executable, "-m", "sglang.launch_server", "--model-path", "T",
                    "--mod", "x"], inherited={})
    assert launch.target == "T"


# --- gate.py: the server's environment, its Python, its release ----------------------------


@pytest.mark.parametrize("env,expected", [
    ({"HF_HUB_CACHE": "/c1", "HF_HOME": "/h"}, "/c1"),
    ({"HUGGINGFACE_HUB_CACHE": "/c2", "HF_HOME": "/h"}, "/c2"),
    ({"HF_HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/h/hub"),
    ({"HOME": "/home/u"}, "/home/u/.cache/huggingface/hub"),
])
def test_the_servers_hub_cache_is_huggingface_hubs(env, expected):
    """Mutations caught: `or env.get("HUGGINGFACE_HUB_CACHE")` dropped (gate.py:47),
    `env.get("HF_HOME") or` dropped (gate.py:50), the server's HOME replaced by the gate's
    own (gate.py:51)."""
    from drafter_lint.gate import server_cache

    assert server_cache(env) == expected


def test_the_interpreter_of_an_env_dash_s_shebang_is_found(tmp_path):
    """Mutation caught: the `not w.startswith("-")` filter dropped (gate.py:212): a console
    script starting `#!/usr/bin/env -S python3 -u` had no Python, so no dry run and no
    installed release."""
    from drafter_lint.gate import interpreter

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python3"
    python.symlink_to(sys.executable)
    (bin_dir / "vllm").write_text("#!/usr/bin/env -S python3 -u\n")
    (bin_dir / "vllm").chmod(0o755)
    (bin_dir / "env").write_text("#!/bin/sh\n")
    server = locate(["vllm", "serve", "T"], inherited={"PATH": str(bin_dir)})
    assert interpreter(server) == str(python)
    assert interpreter(locate(["vllm", "serve", "T"], inherited={"PATH": "/nonexistent"})) \
        is None


def _uv_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".venv" / "bin").mkdir(parents=True)
    script = project / ".venv" / "bin" / "vllm"
    script.write_text(f"#!{sys.executable}\n")
    script.chmod(0o755)
    return project


def test_uv_run_uses_its_projects_venv(tmp_path):
    """Mutation caught: the `uv run` project venv branch of `interpreter` dropped
    (gate.py:197): the gate looked for `vllm` on PATH, not in the project's .venv."""
    from drafter_lint.gate import interpreter

    project = _uv_project(tmp_path)
    server = locate(["uv", "run", "--project", str(project), "vllm", "serve", "T"],
                    inherited={"PATH": "/nonexistent"})
    assert interpreter(server) == sys.executable


def test_uv_run_given_by_its_path_uses_its_projects_venv(tmp_path):
    """A `uv` written with its path runs its project's venv, as command.py reads `uv run` by
    its basename. Mutation caught (bug found in this file's round, fixed): gate.py tested
    `"uv" in server.argv[:1]`, the whole first word, and looked for vllm on PATH."""
    from drafter_lint.gate import interpreter

    project = _uv_project(tmp_path)
    server = locate(["/usr/local/bin/uv", "run", "--project", str(project), "vllm", "serve",
                     "T"], inherited={"PATH": "/nonexistent"})
    assert server.uv_project == str(project)
    assert interpreter(server) == sys.executable


def test_a_per_path_ignore_covers_a_folder_whose_name_starts_with_two_dots(tmp_path):
    """`..old` inside the settings file's folder is inside it. Mutation caught (bug found in
    this file's round, fixed): settings.py refused every relative path starting with `..`,
    so per-path-ignores did not apply below a folder named so."""
    from drafter_lint.settings import load

    (tmp_path / ".drafter-lint.toml").write_text('[[per-path-ignores]]\npath = "..old/*"\n'
                                                 'rules = ["DF"]\n')
    model = tmp_path / "..old" / "m"
    model.mkdir(parents=True)
    assert len(load(model).ignores) == 1


def test_the_release_linted_for_is_the_installed_one_or_the_newest():
    """Mutations caught: the installed release not parsed (gate.py:421), a dev build not
    falling back to the newest (gate.py:422), the --runtime note's "the dry run asks the
    installed" clause shown when the versions agree (gate.py:409)."""
    from drafter_lint import runtimes
    from drafter_lint.gate import _release

    server = locate(["vllm", "serve", "T"], inherited={})
    notes: list[str] = []
    assert _release(server, None, "/py", "0.32.0", notes.append).version == "0.32.0"
    newest = runtimes.parse("vllm")
    assert _release(server, None, "/py", "0.33.0rc1.dev5+gabc", notes.append) == newest
    assert "is not a release" in notes[-1]
    assert _release(server, None, None, None, notes.append) == newest
    assert "not run by a Python" in notes[-1]
    asked = runtimes.parse("vllm==0.32.0")
    _release(server, asked, "/py", "0.32.0", notes.append)
    assert "the dry run asks" not in notes[-1] and "no dry run" not in notes[-1]
    _release(server, asked, "/py", "0.33.0", notes.append)
    assert "the dry run asks the installed vLLM 0.33.0" in notes[-1]


def test_the_dry_run_note_says_what_ran():
    """Mutations caught: the `stage == "weights"` wording (gate.py:296), the unknown
    version's `?` (gate.py:295), the unexplained clause (gate.py:302)."""
    from drafter_lint.gate import dry_run_note
    from drafter_lint.launch import DryRunVerdict

    note = dry_run_note(DryRunVerdict("accepted", stage="weights", tensors=3,
                                      load_seconds=0.5, seconds=2.0,
                                      unexplained=("fc.bias",)), "vllm")
    assert note.startswith("dry run: vllm==?'s own start-up and weight loading accepted")
    assert "3 tensors" in note and "left fc.bias unfilled" in note
    note = dry_run_note(DryRunVerdict("refused", version="0.33.0", stage="init"), "vllm")
    assert note == "dry run: vllm==0.33.0's own start-up refused the launch (0 s)"
    assert "no verdict" in dry_run_note(DryRunVerdict("unavailable"), "sglang")


def test_a_speculators_verifier_must_be_a_non_empty_string(tmp_path):
    """Mutation caught: `and name` dropped in `_verifier` (gate.py:119): an empty verifier
    would be served as the target ""."""
    from drafter_lint.gate import _verifier

    (tmp_path / "config.json").write_text(json.dumps(
        {"speculators_config": {"verifier": {"name_or_path": ""}}}))
    assert _verifier(tmp_path) is None
    (tmp_path / "config.json").write_text(json.dumps(
        {"speculators_config": {"verifier": {"name_or_path": "org/t"}}}))
    assert _verifier(tmp_path) == "org/t"


# --- hub.py ---------------------------------------------------------------------------------


@pytest.mark.parametrize("variable,value,offline", [
    ("HF_HUB_OFFLINE", "1 ", True), ("HF_HUB_OFFLINE", "yes", True),
    ("TRANSFORMERS_OFFLINE", "1", True), ("HF_HUB_OFFLINE", "0", False),
])
def test_offline_mode_reads_both_variables(monkeypatch, variable, value, offline):
    """Mutations caught: `or os.environ.get("TRANSFORMERS_OFFLINE")` dropped (hub.py:72),
    `.strip()` dropped (hub.py:73), "YES" dropped from the set (hub.py:73)."""
    from drafter_lint.hub import offline_mode

    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv(variable, value)
    assert offline_mode() is offline
    assert offline_mode(True) is True


def test_hub_settings_follow_hf_home_and_the_etag_timeout(monkeypatch, tmp_path):
    """Mutations caught: the HF_HOME/hub fallback dropped (hub.py:84), the etag timeout's
    default changed (hub.py:86)."""
    from drafter_lint.hub import settings

    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_ETAG_TIMEOUT", raising=False)
    got = settings()
    assert got["cache_dir"] == str(tmp_path / "hub") and got["etag_timeout"] == 10.0
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "3")
    got = settings()
    assert got["cache_dir"] == str(tmp_path / "c") and got["etag_timeout"] == 3.0


@pytest.mark.parametrize("name,value,refused", [
    ("HF_HUB_ETAG_TIMEOUT", "-1", True), ("HF_HUB_ETAG_TIMEOUT", "0", False),
    ("HF_HUB_DOWNLOAD_TIMEOUT", "ten", True), ("HF_HUB_DOWNLOAD_TIMEOUT", "", False),
    ("HF_ENDPOINT", "ftp://hub.example", True), ("HF_ENDPOINT", "http://", True),
    ("HF_ENDPOINT", "https://hub.example", False),
])
def test_hub_variables_huggingface_hub_would_fail_on_are_refused(monkeypatch, name, value,
                                                                refused):
    """Mutations caught: `int(value) < 0` made `<= 0` (hub.py:101), `bool(value) and`
    dropped (an empty variable refused, hub.py:101), the scheme test of HF_ENDPOINT dropped
    (hub.py:114)."""
    from drafter_lint.hub import check_environment

    monkeypatch.setenv(name, value)
    if refused:
        with pytest.raises(UsageError, match=name):
            check_environment()
    else:
        check_environment()


def test_tokens_never_appear_in_messages(monkeypatch):
    """Mutations caught: HUGGING_FACE_HUB_TOKEN not scrubbed (hub.py:120), the `hf_...`
    pattern's length changed (hub.py:124)."""
    from drafter_lint.hub import scrub

    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HUGGING_FACE_HUB_TOKEN", "s3cr3t-value")
    text = scrub("auth s3cr3t-value and hf_" + "a" * 20 + " and hf_short")
    assert text == "auth *** and hf_*** and hf_short"


@pytest.mark.parametrize("header,attempt,expected", [
    ("5", 0, 5.0), (" 7 ", 0, 7.0), ("120", 0, 30.0), (None, 0, 1.0), (None, 3, 8.0),
    (None, 9, 30.0), ("garbage", 2, 4.0),
])
def test_retry_after_is_the_hubs_or_a_doubling_wait(header, attempt, expected):
    """Mutations caught: `.strip()` dropped (hub.py:280), the MAX_WAIT cap dropped
    (hub.py:282), `2 ** attempt` changed (hub.py:288)."""
    from drafter_lint.hub import retry_after

    assert retry_after(header, attempt) == expected


def test_retries_stop_at_the_count_and_the_budget():
    """Mutations caught: `attempt >= MAX_RETRIES` made `>` (hub.py:295), `<=` of the budget
    made `<` (hub.py:298), a 503 not retried (RETRIED, hub.py:273)."""
    from drafter_lint.hub import MAX_RETRIES, WAIT_BUDGET, next_wait

    assert next_wait(503, "2", 0, 0.0) == 2.0
    assert next_wait(429, "2", MAX_RETRIES - 1, 0.0) == 2.0
    assert next_wait(429, "2", MAX_RETRIES, 0.0) is None
    assert next_wait(429, "2", 1, WAIT_BUDGET - 2) == 2.0
    assert next_wait(429, "2", 1, WAIT_BUDGET - 1) is None
    assert next_wait(500, "2", 0, 0.0) is None


def test_only_a_4xx_other_than_429_is_the_hubs_answer():
    """Mutations caught: `status != 429` dropped (hub.py:265), the 4xx bounds changed
    (hub.py:264): a 500 or a 429 would not fall back to the cached copy."""
    from drafter_lint.hub import _answered

    def error(status):
        exc = Exception()
        exc.response = SimpleNamespace(status_code=status, headers={})
        return exc

    assert [_answered(error(s)) for s in (399, 400, 404, 429, 499, 500)] == \
        [False, True, True, False, True, False]
    wrapped = Exception()
    wrapped.__cause__ = error(404)
    assert _answered(wrapped) and not _answered(Exception())


def test_base_models_keep_only_repo_ids():
    """Mutation caught: the `parse_repo_arg(v)` filter of `base_models` dropped
    (hub.py:593): a card's `base_model: [./local, 3]` named a target."""
    from drafter_lint.hub import base_models

    assert base_models({"base_model": ["./x", 3, "org/t", "org/u"]}) == ["org/t", "org/u"]
    assert base_models({"base_model": "org/t"}) == ["org/t"]
    assert base_models({}) == []


def test_a_hub_cache_snapshot_is_told_from_a_folder_called_snapshots(tmp_path):
    """Mutation caught: the `blobs` test of `in_hub_cache` dropped (hub.py:624): a user's
    folder `snapshots/x` would be refused by fix as the hub's cache."""
    from drafter_lint.hub import in_hub_cache

    (tmp_path / "mine" / "snapshots" / "x").mkdir(parents=True)
    assert not in_hub_cache(tmp_path / "mine" / "snapshots" / "x")
    (tmp_path / "mine" / "blobs").mkdir()
    assert in_hub_cache(tmp_path / "mine" / "snapshots" / "x")


def test_too_big_is_strictly_over_the_limit():
    """Mutation caught: `size > limit` made `>=` (hub.py:458): a file exactly at the cap was
    refused."""
    from drafter_lint.errors import FileTooBig
    from drafter_lint.hub import too_big

    too_big("o/n", "main", "config.json", 100, 100)
    with pytest.raises(FileTooBig):
        too_big("o/n", "main", "config.json", 101, 100)


def test_parse_repo_arg_defaults_to_main():
    """Mutation caught: `or "main"` dropped (hub.py:68)."""
    from drafter_lint.hub import parse_repo_arg

    assert parse_repo_arg("org/name") == ("org/name", "main")
    assert parse_repo_arg("org/name@v1") == ("org/name", "v1")
    assert parse_repo_arg("./org/name") is None


# --- settings.py ------------------------------------------------------------------------------


def _folder(tmp_path: Path, toml: str, name: str = ".drafter-lint.toml") -> Path:
    (tmp_path / name).write_text(toml)
    model = tmp_path / "models" / "legacy-a"
    model.mkdir(parents=True, exist_ok=True)
    return model


def test_settings_codes_are_stripped_and_upper_cased(tmp_path):
    """Mutations caught: `.strip()` or `.upper()` dropped from `_codes` (settings.py:132),
    `.upper()` dropped from the severity key (settings.py:173)."""
    from drafter_lint.settings import load

    found = load(_folder(tmp_path, 'select = [" df104 ", "ea3"]\n'
                                   'severity = { df125 = "warning" }\n'))
    assert found.select == ("DF104", "EA3") and dict(found.severity) == {"DF125": "warning"}


@pytest.mark.parametrize("toml,said", [
    ('select = [""]\n', "no rule code starts with ''"),
    ('ignore = "DF104"\n', "expected a list of rule codes"),
    ('fail-on = "warn"\n', "fail-on must be one of"),
    ('severity = { DF104 = "fatal" }\n', "severity of DF104"),
    ('[[per-path-ignores]]\npath = "x"\n', "needs path and rules"),
    ('colour = "always"\n', "unknown setting"),
])
def test_a_bad_setting_is_refused_naming_it(tmp_path, toml, said):
    """Mutations caught: `not code or` dropped from `_known` (settings.py:141: an empty
    code selects every rule), the list type test (settings.py:130), the fail-on and
    severity level tests (settings.py:161, 170), `"rules" not in entry` dropped
    (settings.py:175), the unknown-key test (settings.py:108)."""
    from drafter_lint.settings import load

    with pytest.raises(SettingsError, match=said):
        load(_folder(tmp_path, toml))


def test_the_nearest_file_wins_key_by_key_and_the_baseline_is_relative_to_its_file(tmp_path):
    """Mutations caught: the files read nearest first instead of parents first
    (`reversed(files)` dropped, settings.py:152), the baseline resolved from the checkpoint
    instead of the file declaring it (settings.py:167)."""
    from drafter_lint.settings import load

    model = _folder(tmp_path, 'select = ["DF"]\nfail-on = "info"\nbaseline = "b.json"\n')
    (tmp_path / "models" / ".drafter-lint.toml").write_text('select = ["EA3"]\n')
    (model / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    found = load(model)
    assert found.select == ("EA3",) and found.fail_on == "info"
    assert found.baseline == (tmp_path / "b.json").resolve()


def test_pyproject_settings_are_read_from_the_tool_table(tmp_path):
    """Mutation caught: the `tool.drafter-lint` table not read from pyproject.toml
    (settings.py:104)."""
    from drafter_lint.settings import load

    model = _folder(tmp_path, '[tool.drafter-lint]\nfail-on = "warning"\n', "pyproject.toml")
    assert load(model).fail_on == "warning"


def test_per_path_ignores_cover_their_glob_relative_to_their_file(tmp_path):
    """Mutations caught: `not rel.startswith("..")` dropped (settings.py:65), the
    pointer's `+ "/"` boundary dropped in `matches` (settings.py:72), the rule prefix test
    (settings.py:69)."""
    from drafter_lint.settings import load

    model = _folder(tmp_path, '[[per-path-ignores]]\npath = "models/legacy-*"\n'
                              'rules = ["df1"]\npointer = "/dflash_config/a"\n')
    found = load(model)
    assert len(found.ignores) == 1
    ignore = found.ignores[0]
    finding = lambda rule, ptr: SimpleNamespace(rule=rule, pointer=ptr)
    assert ignore.matches(finding("DF114", "/dflash_config/a"))
    assert ignore.matches(finding("DF114", "/dflash_config/a/0"))
    assert not ignore.matches(finding("DF114", "/dflash_config/ab"))
    assert not ignore.matches(finding("EA3101", "/dflash_config/a"))
    outside = tmp_path.parent / f"{tmp_path.name}-other"
    outside.mkdir()
    assert not ignore.covers(outside)
    (outside / "models").mkdir()
    sub = tmp_path / "sub"
    sub.mkdir()
    wide = ignore.__class__(ignore.source, "", sub, "*", ("DF",), None, "")
    assert not wide.covers(tmp_path / "models" / "legacy-a")


def test_a_baseline_is_written_once_per_entry_and_read_back(tmp_path):
    """Mutations caught: the duplicate collapse of `write_baseline` dropped
    (settings.py:213), `read_baseline`'s shape test (settings.py:231)."""
    from drafter_lint.settings import read_baseline, write_baseline

    root = tmp_path / "m"
    root.mkdir()
    f = SimpleNamespace(rule="DF104", file="config.json", pointer="/a")
    result = SimpleNamespace(findings=[f, f])
    assert write_baseline(tmp_path / "b.json", [(result, root, None),
                                                 (result, root, "org/r")]) == 2
    entries = read_baseline(tmp_path / "b.json")
    assert {e["path"] for e in entries} == {"m/config.json", "hf://org/r/config.json"}
    (tmp_path / "bad.json").write_text(json.dumps({"entries": [{"rule": "DF104",
                                                                "path": "x"}]}))
    with pytest.raises(SettingsError, match="expected"):
        read_baseline(tmp_path / "bad.json")


# --- pipeline.py --------------------------------------------------------------------------------


def test_codes_split_commas_strip_and_upper_case():
    """Mutations caught: `.strip()` or `.upper()` dropped from `codes` (pipeline.py:50)."""
    from drafter_lint.pipeline import codes

    assert codes(("df104, ea3", " TF ")) == ("DF104", "EA3", "TF")


@pytest.mark.parametrize("kwargs,said", [
    ({"runtime": ("vllm", "sglang")}, "given 2 times"),
    ({"runtime": ("sglang",), "speculative_tokens": 3}, "does not apply to --runtime sglang"),
    ({"reference_arg": "a", "from_hub": "o/n"}, "not both"),
    ({"env": ("NOEQUALS",)}, "expected NAME=VALUE"),
    ({"env": ("9X=1",)}, "expected NAME=VALUE"),
    ({"select": ("ZZ9",)}, "no rule code starts with 'ZZ9'"),
])
def test_prepare_refuses_a_bad_option_before_reading(kwargs, said):
    """Mutations caught: `len(values) > 1` made `> 2` (pipeline.py:57), the vLLM-only
    token count test (pipeline.py:87), the --reference/--from-hub test (pipeline.py:84),
    `not sep` or `.isidentifier()` dropped from --env (pipeline.py:96)."""
    from drafter_lint.pipeline import prepare

    with pytest.raises(UsageError, match=said):
        prepare(resolve=False, **kwargs)


def test_prepare_takes_the_servers_environment_and_count():
    """Mutation caught: the launch made only for a count (`speculative_tokens or
    variables` losing `or variables`, pipeline.py:101): --env alone was dropped."""
    from drafter_lint.pipeline import prepare

    run = prepare(resolve=False, env=("VLLM_USE_V2_MODEL_RUNNER=0", "A=b=c"))
    assert dict(run.options.server.env) == {"VLLM_USE_V2_MODEL_RUNNER": "0", "A": "b=c"}
    assert run.options.launch is not None and run.options.launch.tokens is None


def test_command_line_selection_wins_over_the_settings_file(tmp_path):
    """Mutation caught: `options.select or found.select` reversed (pipeline.py:141)."""
    from drafter_lint.pipeline import prepare, with_settings

    model = _folder(tmp_path, 'select = ["DF"]\nignore = ["DF104"]\nruntime = "vllm==0.32.0"\n')
    options, _ = with_settings(model, prepare(resolve=False, select=("EA3",)).options)
    assert options.select == ("EA3",) and options.ignore == ("DF104",)
    assert options.runtime.version == "0.32.0"
    options, _ = with_settings(model, prepare(resolve=False, runtime=("vllm==0.33.0",)
                                              ).options)
    assert options.runtime.version == "0.33.0"


def test_discover_skips_hidden_and_tool_folders(tmp_path):
    """Mutations caught: the hidden-folder or SKIP_DIRS filter of `discover` dropped
    (pipeline.py:200)."""
    from drafter_lint.pipeline import discover

    config = json.dumps({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})
    for name in ("a", ".trash/b", "node_modules/c", "d"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "config.json").write_text(config)
    assert [p.name for p in discover(tmp_path)] == ["a", "d"]


# --- cli.py -----------------------------------------------------------------------------------


class _Tty:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("env,tty,colour", [
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
    ({"FORCE_COLOR": "0"}, False, False),
    ({"FORCE_COLOR": "1"}, False, True),
    ({"TERM": "dumb"}, True, False),
    ({}, True, True),
    ({}, False, False),
])
def test_colour_follows_the_conventions(monkeypatch, env, tty, colour):
    """Mutations caught: the NO_COLOR test dropped (cli.py:37), FORCE_COLOR="0" read as on
    (cli.py:39), TERM=dumb ignored (cli.py:41)."""
    from drafter_lint.cli import _use_colour

    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _use_colour("auto", _Tty(tty)) is colour
    assert _use_colour("always", _Tty(False)) and not _use_colour("never", _Tty(True))


@pytest.mark.parametrize("value", ["0.5", "nan", "inf", "1e400"])
def test_the_dry_run_timeout_is_finite_and_at_least_a_second(cli, value):
    """Mutations caught: `math.isfinite` or `value >= 1` dropped (cli.py:367)."""
    run = cli("gate", "--dry-run-timeout", value, "--", "vllm", "serve", "T")
    assert run.code == 2 and "is not a finite number of seconds" in run.err


def test_the_dry_run_timeout_takes_one_second():
    """Mutation caught: `value >= 1` made `> 1` (cli.py:367)."""
    from drafter_lint.cli import _timeout

    assert _timeout(None, None, 1.0) == 1.0 and _timeout(None, None, None) is None
    assert _timeout(None, None, 180.0) == 180.0


def test_explain_takes_a_code_in_any_case_and_suggests_a_close_one(cli):
    """Mutations caught: `.upper()` dropped from the code (cli.py:545), the close-match
    hint dropped (cli.py:550)."""
    run = cli("explain", "df104")
    assert run.code == 0 and "DF104" in run.out
    run = cli("explain", "DF10")
    assert run.code == 2 and "did you mean" in run.err and "DF10" in run.err


def test_the_rules_list_puts_the_default_severity_first(cli):
    """Mutation caught: the levels listed in the rule's order instead of the default
    first (cli.py:569)."""
    from drafter_lint.rules import RULES

    run = cli("rules")
    lines = {line.split()[0]: line.split()[1] for line in run.out.splitlines()}
    for code, rule in RULES.items():
        assert lines[code].split("/")[0] == rule.severity.value, code


def test_check_refuses_a_baseline_and_a_baseline_to_write(cli, tmp_path):
    """Mutation caught: the --baseline/--write-baseline test dropped (cli.py:169)."""
    run = cli("check", tmp_path, "--baseline", tmp_path / "a.json", "--write-baseline",
              tmp_path / "b.json")
    assert not (tmp_path / "b.json").exists()
    assert run.code == 2 and "not both" in run.err


def test_check_without_paths_or_hub_options_is_a_usage_error(cli):
    """Mutation caught: the no-paths test dropped (cli.py:167)."""
    run = cli("check")
    assert run.code == 2 and "give PATHS" in run.err


def test_the_report_format_is_github_under_github_actions(monkeypatch, cli):
    """Mutation caught: the GITHUB_ACTIONS default dropped (cli.py:108)."""
    from sparse import FIXTURES

    tiny = FIXTURES / "tiny-qwen3.6"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    run = cli("check", tiny / "drafter-guessed", "--target", tiny / "target")
    assert "::error " in run.out or "::warning " in run.out, run.out
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    run = cli("check", tiny / "drafter-guessed", "--target", tiny / "target")
    assert "::error " not in run.out and "::warning " not in run.out


def test_a_non_integer_exit_is_exit_2(monkeypatch):
    """Mutation caught: `SystemExit("message")` read as 0 (cli.py:614)."""
    from drafter_lint import cli as module

    def fail(*_, **__):
        raise SystemExit("broken")

    monkeypatch.setattr(module.cli, "main", fail)
    assert module._run(["rules"]) == 2

    def done(*_, **__):
        raise SystemExit(None)

    monkeypatch.setattr(module.cli, "main", done)
    assert module._run(["rules"]) == 0


def test_a_closed_stdout_refuses_every_command_but_gate(monkeypatch, capsys):
    """Mutation caught: the `"gate" not in words[:1]` exception dropped (cli.py:584)."""
    from drafter_lint import cli as module

    monkeypatch.setattr(sys, "stdout", None)
    assert module.main(["rules"]) == 2
    monkeypatch.setattr(module, "_run", lambda argv: 7)
    assert module.main(["gate", "--", "x"]) == 7


# --- releases_view.py and inspect_view.py -----------------------------------------------------


def _serving(monkeypatch, outcome: dict):
    """`serving` over a made-up release list whose errors are `outcome` (release -> rule)."""
    from drafter_lint import releases_view, runtimes

    monkeypatch.setitem(runtimes.PUBLISHED, "vllm", tuple(outcome))
    monkeypatch.setattr(releases_view, "facts_for", lambda *_: None)
    monkeypatch.setattr(releases_view, "release_dependent", lambda rules: rules)
    monkeypatch.setattr(runtimes, "parse", lambda spec: spec.split("==")[1])

    def errors(checkpoint, options, release, facts=None):
        rule = outcome[release]
        return [SimpleNamespace(rule=rule, pointer="", message=rule)] if rule else []

    monkeypatch.setattr(releases_view, "errors", errors)
    options = SimpleNamespace(rules={}, but=lambda **_: options)
    return releases_view.serving(None, options, "vllm")


def test_releases_group_into_ranges_with_their_neighbours_errors(monkeypatch):
    """Mutations caught: a range's left neighbour (`start - 1`) or right neighbour (`i`)
    not shown (releases_view.py:70), a range closed one release late (`order[i - 1]`,
    releases_view.py:69)."""
    found = _serving(monkeypatch, {"1": "A", "2": None, "3": None, "4": "B", "5": None})
    assert found.ranges == [("2", "3"), ("5", "5")]
    assert [(o.release, o.finding.rule) for o in found.outside] == [("1", "A"), ("4", "B")]
    found = _serving(monkeypatch, {"1": None, "2": "A"})
    assert found.ranges == [("1", "1")] and [o.release for o in found.outside] == ["2"]


def test_a_release_that_serves_nothing_names_the_newest_error(monkeypatch):
    """Mutation caught: `order[-1]` made `order[0]` (releases_view.py:76)."""
    found = _serving(monkeypatch, {"1": "A", "2": "B"})
    assert found.ranges == [] and [o.release for o in found.outside] == ["2"]


def test_releases_render_one_release_ranges_and_escape_markdown():
    """Mutations caught: `_span` of one release written `a-a` (releases_view.py:81), the
    `|` escape of a Markdown cell dropped (releases_view.py:103), "none" dropped
    (releases_view.py:99)."""
    from drafter_lint.releases_view import Outside, Serving, render

    finding = SimpleNamespace(rule="DF104", pointer="/a", message="a | b")
    report = [("m", [Serving("vllm", [("0.32.0", "0.32.0"), ("0.33.0", "0.34.0")],
                             [Outside("0.31.0", finding)]), Serving("sglang")])]
    text = render(report, "text")
    assert "vLLM: serves 0.32.0, 0.33.0-0.34.0" in text and "SGLang: serves none" in text
    markdown = render(report, "markdown")
    assert "0.31.0: DF104 a \\| b" in markdown and "| SGLang | none | - |" in markdown


def test_inspect_marks_and_ruler():
    """Mutations caught: a tap below 0 or past the last layer drawn or said wrong
    (inspect_view.py:46-51), the ruler's tens (inspect_view.py:36)."""
    from drafter_lint.inspect_view import _marks, _ruler, _strip

    assert _marks(4, [0, 3]) == ("^  ^", [])
    assert _marks(4, [-1, 4]) == ("", ["the embeddings (before layer 0)",
                                        "layer 4, which the target does not have"])
    assert _ruler(23) == "0         10        20"
    assert _strip(3, ["full_attention", "linear_attention", "x"]) == "Fl?"
    assert _strip(3, ["full_attention"]) == "..."


# --- fix/plan.py ----------------------------------------------------------------------------------


def test_json_patch_edits_unescape_and_bound_list_indices():
    """Mutations caught: `~1` and `~0` unescaped in the wrong order (plan.py:44), the
    list bound's `- (op != "add")` dropped (plan.py:58), `-` not the end (plan.py:57)."""
    from drafter_lint.fix.plan import PatchError, apply_edit

    doc = {"a/b": 1, "~1": 2, "l": [1, 2]}
    apply_edit(doc, {"op": "replace", "path": "/a~1b", "value": 3})
    apply_edit(doc, {"op": "replace", "path": "/~01", "value": 4})
    assert doc["a/b"] == 3 and doc["~1"] == 4
    apply_edit(doc, {"op": "add", "path": "/l/2", "value": 3})
    apply_edit(doc, {"op": "add", "path": "/l/-", "value": 4})
    assert doc["l"] == [1, 2, 3, 4]
    with pytest.raises(PatchError, match="out of range"):
        apply_edit(doc, {"op": "replace", "path": "/l/4", "value": 0})
    with pytest.raises(PatchError, match="out of range"):
        apply_edit(doc, {"op": "remove", "path": "/l/4"})
    with pytest.raises(PatchError, match="does not exist"):
        apply_edit(doc, {"op": "replace", "path": "/missing", "value": 0})
    apply_edit(doc, {"op": "remove", "path": "/l/3"})
    assert doc["l"] == [1, 2, 3]
