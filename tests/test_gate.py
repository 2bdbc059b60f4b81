"""The launch gate, `inspect`, the progress bar, and the pre-commit hooks, for real."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest
from sparse import FIXTURES, load_manifest, materialize

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"

STAND_IN = """#!{python}
import json, os, sys
with open(os.environ["STANDIN_OUT"], "w") as handle:
    json.dump({{"argv": sys.argv, "v2": os.environ.get("VLLM_USE_V2_MODEL_RUNNER")}}, handle)
"""


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    """One drafter-lint cache for the gate runs: each would otherwise start transformers
    cold to load the same tiny configs (about 1.5 s a run); no test here is about it."""
    return tmp_path_factory.mktemp("gate-cache")


@pytest.fixture
def stand_ins(tmp_path, shared_cache):
    """A harmless `vllm` executable and `sglang.launch_server` module that record argv."""
    bin_dir, lib = tmp_path / "bin", tmp_path / "lib"
    bin_dir.mkdir()
    (lib / "sglang").mkdir(parents=True)
    (bin_dir / "vllm").write_text(STAND_IN.format(python=sys.executable))
    (bin_dir / "vllm").chmod(0o755)
    (lib / "sglang" / "__init__.py").write_text("")
    (lib / "sglang" / "launch_server.py").write_text(STAND_IN.format(python=sys.executable))
    out = tmp_path / "started.json"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", PYTHONPATH=str(lib),
               STANDIN_OUT=str(out), DRAFTER_LINT_CACHE_DIR=str(shared_cache))
    env.pop("VLLM_USE_V2_MODEL_RUNNER", None)
    return env, out


def gate_process(env, cwd, *command, options=()):
    """`drafter-lint gate` in a process of its own, which execs the launch."""
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    return subprocess.run([exe, "gate", *options, "--", *command], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def gate(env, cwd, *command, options=()):
    """`drafter-lint gate` run in this process with `env` as its environment and `cwd` as
    its folder, its exec replaced by starting the launch as a child and waiting for it
    (the stand-in server then writes its marker as after an exec): the same decisions and
    messages as `gate_process` at a tenth of the cost. test_gate_execs_the_exact_command
    and the process tests keep the real exec."""
    from drafter_lint import cli

    def start(server):
        done = subprocess.run(server.argv, env={**os.environ, **server.exec_env},
                              timeout=120)
        raise SystemExit(done.returncode)

    out, err = io.StringIO(), io.StringIO()
    saved, folder = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        with mock.patch.object(cli, "_exec", start), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            code = cli.main(["gate", *options, "--", *command])
    finally:
        os.environ.clear()
        os.environ.update(saved)
        os.chdir(folder)
    return subprocess.CompletedProcess([], code, out.getvalue(), err.getvalue())


def spec(method="dflash", model="drafter", tokens=15):
    return json.dumps({"method": method, "model": model, "num_speculative_tokens": tokens})


V2 = "VLLM_USE_V2_MODEL_RUNNER=1"
V1 = "VLLM_USE_V2_MODEL_RUNNER=0"   # vLLM 0.33 runs V2 unless told otherwise
# (rule, outcome, launch line, findings that must block or must not appear)
# gate case (rule-outcome) -> the fact keys whose rows decide it (tests/test_runtimes.py
# pinned_by, with the rule cases' `pins`)
GATE_PINS = {"LCH103-pass": ("runner.v2-policy",),
             "LCH103-fail": ("runner.v1-refuses-mixed-swa",),
             "LCH102-fail": ("dflash.tokens-per-block",),
             "LCH102-pass": ("dflash.tokens-per-block",),
             "LCH101-fail": ("launch.methods",)}
GATE_CASES = [
    ("LCH101", "pass", [V2, "vllm", "serve", "target", "--speculative-config", spec()]),
    ("LCH101", "fail", [V2, "vllm", "serve", "target", "--speculative-config",
                        spec("eagle3")]),
    ("LCH102", "pass", [sys.executable, "-m", "sglang.launch_server", "--model-path", "target",
                        "--speculative-algorithm", "DFLASH", "--speculative-draft-model-path",
                        "drafter", "--speculative-num-draft-tokens", "16"]),
    ("LCH102", "fail", [V2, "vllm", "serve", "target", "--speculative-config",
                        spec(tokens=16)]),
    ("LCH102", "fail", [sys.executable, "-m", "sglang.launch_server", "--model-path", "target",
                        "--speculative-algo", "dflash", "--speculative-draft-model", "drafter",
                        "--speculative-num-draft-tokens", "17"]),
    ("LCH101", "fail", [sys.executable, "-m", "sglang.launch_server", "--model-path", "target",
                        "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
                        "drafter"]),
    ("LCH103", "pass", ["vllm", "serve", "target", "--speculative-config", spec()]),
    ("LCH103", "pass", [V2, "vllm", "serve", "target", "--speculative-config", spec()]),
    ("LCH103", "fail", [V1, "vllm", "serve", "target", "--speculative-config", spec()]),
    # the release's own parser: a unique prefix is the option; a bad choice is refused
    ("LCH108", "pass", ["vllm", "serve", "target", "--speculative-conf", spec()]),
    ("LCH108", "fail", ["vllm", "serve", "target", "--dtype", "fp9", "--speculative-config",
                        spec()]),
]


@pytest.mark.parametrize("rule,outcome,command", GATE_CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(GATE_CASES)])
def test_gate_launch_lines(tiny, stand_ins, rule, outcome, command):
    env, out = stand_ins
    run = gate(env, tiny, *command)
    if outcome == "fail":
        assert run.returncode == 1, run.stderr
        assert rule in run.stderr and "nothing started" in run.stderr
        assert not out.exists()
    else:
        assert run.returncode == 0, run.stderr
        started = json.loads(out.read_text())
        assert started["argv"][-2:] == command[-2:]       # the stand-in got the launch args
        assert rule not in run.stderr


# (launch line, what the server does) -> the gate must do the same: start it, or refuse
READ_AS_THE_SERVER_DOES = [
    # vLLM docs: -sc is the short form of --speculative-config
    (["vllm", "serve", "target", "-sc", spec()], "start"),
    # dotted keys (FlexibleArgumentParser)
    (["vllm", "serve", "target", "--speculative-config.method", "dflash",
      "--speculative-config.model", "drafter",
      "--speculative-config.num_speculative_tokens", "15"], "start"),
    # vLLM 0.33 --spec-* flags
    (["vllm", "serve", "target", "--spec-method", "dflash", "--spec-model", "drafter",
      "--spec-tokens", "15"], "start"),
    # a store-true flag before the model must not swallow it
    (["vllm", "serve", "--trust-remote-code", "target", "--speculative-config", spec()],
     "start"),
    (["vllm", "serve", "--trust-remote-code", "target", "--speculative-config",
      spec(tokens=16)], "refuse"),
    # the CLI module entry point
    ([sys.executable, "-m", "vllm.entrypoints.cli.main", "serve", "target",
      "--speculative-config", spec()], "start-module"),
    # draft-less methods: nothing to lint, start
    (["vllm", "serve", "target", "--speculative-config",
      json.dumps({"method": "ngram", "num_speculative_tokens": 4,
                  "prompt_lookup_max": 4})], "start"),
    # vLLM 0.33 has no Medusa
    (["vllm", "serve", "target", "--speculative-config", spec("medusa")], "refuse"),
    # a file path: vLLM 0.33 takes JSON text only
    (["vllm", "serve", "target", "--speculative-config", "spec.json"], "refuse"),
    # SGLang upper-cases the algorithm; an ambiguous prefix is an argparse error
    ([sys.executable, "-m", "sglang.launch_server", "--model-path", "target",
      "--speculative-algorithm", "dflash", "--speculative-draft-model-path", "drafter",
      "--speculative-num-draft-tokens", "16"], "start"),
    ([sys.executable, "-m", "sglang.launch_server", "--model-path", "target",
      "--speculative-algorithm", "DFLASH", "--speculative-draft", "drafter"], "refuse"),
    # --config FILE.yaml merged the way the server merges it (the line's own options win)
    (["vllm", "serve", "target", "--config", "serve.yaml"], "start"),
    (["vllm", "serve", "target", "--config", "too-many.yaml"], "refuse"),
    ([sys.executable, "-m", "sglang.launch_server", "--config", "sglang.yaml"], "start"),
    # SGLang's DFLASH block-size alias is read (17 > the trained 16)
    ([sys.executable, "-m", "sglang.launch_server", "--model-path", "target",
      "--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "drafter",
      "--speculative-dflash-block-size", "17"], "refuse"),
]


@pytest.mark.parametrize("command,expected", READ_AS_THE_SERVER_DOES,
                         ids=[str(i) for i in range(len(READ_AS_THE_SERVER_DOES))])
def test_gate_reads_launch_lines_as_the_server_does(tiny, stand_ins, command, expected):
    """Mutation caught: a parser that misreads a form the server accepts (refusing a good
    launch) or accepts a form the server refuses."""
    env, out = stand_ins
    (tiny / "spec.json").write_text(spec())
    (tiny / "serve.yaml").write_text("speculative_config:\n  method: dflash\n"
                                     "  model: drafter\n  num_speculative_tokens: 15\n")
    (tiny / "too-many.yaml").write_text("speculative-config: {method: dflash, model: drafter, "
                                        "num_speculative_tokens: 16}\n")
    (tiny / "sglang.yaml").write_text("model-path: target\nspeculative-algorithm: DFLASH\n"
                                      "speculative-draft-model-path: drafter\n"
                                      "speculative-num-draft-tokens: 16\n")
    if expected == "start-module":
        lib = Path(env["PYTHONPATH"])
        (lib / "vllm" / "entrypoints" / "cli").mkdir(parents=True)
        for pkg in ("vllm", "vllm/entrypoints", "vllm/entrypoints/cli"):
            (lib / pkg / "__init__.py").write_text("")
        (lib / "vllm" / "entrypoints" / "cli" / "main.py").write_text(
            STAND_IN.format(python=sys.executable))
    run = gate(env, tiny, *command)
    if expected == "refuse":
        assert run.returncode == 1 and "nothing started" in run.stderr, run.stderr
        assert not out.exists()
    else:
        assert run.returncode == 0, run.stderr
        assert json.loads(out.read_text())["argv"][-1] == command[-1]


def test_gate_execs_the_exact_command(tiny, stand_ins):
    """The real exec (gate_process): the process becomes the launch, unchanged, its
    VAR=value prefix in the environment. Mutation caught: the line rebuilt or reordered,
    or the prefix dropped."""
    env, out = stand_ins
    run = gate_process(env, tiny, V2, "vllm", "serve", "target", "--speculative-config",
               spec(), "--max-num-batched-tokens", "32768")
    assert run.returncode == 0, run.stderr
    started = json.loads(out.read_text())
    assert started["argv"][1:] == ["serve", "target", "--speculative-config", spec(),
                                   "--max-num-batched-tokens", "32768"]
    assert started["v2"] == "1"                       # the env prefix reaches the server


@pytest.mark.parametrize("command,reason", [
    (["vllm", "serve", "target", "--speculative-config", spec(model="nowhere")],
     "does not exist"),
    (["vllm", "serve", "target", "--speculative-config", "{not json"], "is not JSON"),
    (["python", "train.py"], "not a vLLM or SGLang launch command"),
])
def test_gate_refuses_unusable_launch_lines(tiny, stand_ins, command, reason):
    env, out = stand_ins
    run = gate(env, tiny, *command)
    assert run.returncode == 1 and reason in run.stderr and not out.exists()
    assert "Traceback" not in run.stderr


def test_gate_blocks_the_guessed_drafter(tiny, stand_ins):
    env, out = stand_ins
    run = gate(env, tiny, V2, "vllm", "serve", "target", "--speculative-config",
               spec(model="drafter-guessed"))
    assert run.returncode == 1 and "DF114" in run.stderr and not out.exists()


# --- inspect ------------------------------------------------------------------------------


def test_inspect_snapshot_qwen36(cli, tmp_path, monkeypatch):
    materialize(load_manifest("qwen3.6-27b-dflash"), tmp_path)
    shutil.copy(FIXTURES / "hub" / "Qwen" / "Qwen3.6-27B" / "main" / "tokenizer.json",
                tmp_path / "target")
    monkeypatch.chdir(tmp_path)
    run = cli("inspect", "drafter", "--target", "target")
    snapshot = SNAPSHOTS / "inspect-qwen3.6-27b-dflash.txt"
    if os.environ.get("DRAFTER_LINT_UPDATE_SNAPSHOTS"):
        snapshot.write_text(run.out)
    assert run.code == 0 and run.out == snapshot.read_text()


def test_inspect_shows_a_shifted_tap(cli, tiny):
    run = cli("inspect", tiny / "drafter-guessed", "--target", tiny / "target")
    lines = run.out.splitlines()
    vllm = next(line for line in lines if line.startswith("vLLM taps"))
    default = next(line for line in lines if line.startswith("z-lab default"))
    assert vllm.index("^") == default.index("^") + 1
    assert "ORDINARY TEXT TOKEN" in run.out


# --- progress -----------------------------------------------------------------------------


class FakeTerminal:
    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_bar_only_on_a_terminal(cli, tiny):
    from drafter_lint.progress import Progress

    terminal = FakeTerminal()
    bar = Progress(3, "drafter-lint", stream=terminal)
    for name in ("a", "b", "c"):
        bar.step(name)
    bar.close()
    assert "3/3 c" in terminal.text and "#" * 24 in terminal.text
    run = cli("check", tiny / "drafter", tiny / "drafter-guessed", tiny / "target")
    assert "\r" not in run.err and "[" not in run.err       # not a terminal: no bar


# --- pre-commit ---------------------------------------------------------------------------


def test_each_folder_once_per_pre_commit_run(tiny, tmp_path):
    """Two batches of one pre-commit run (same parent process) lint a folder once."""
    driver = f"""
import json, os, subprocess, sys
exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
env = dict(os.environ, PRE_COMMIT="1")
counts = []
for batch in (["{tiny}/drafter/config.json"], ["{tiny}/drafter/model.safetensors"]):
    run = subprocess.run([exe, "check", "--format", "json", *batch], env=env,
                         capture_output=True, text=True)
    counts.append(len(json.loads(run.stdout)["results"]))
print(json.dumps(counts))
"""
    run = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [1, 0], run.stderr


def test_a_folder_changed_since_its_lint_is_linted_again_in_one_run(tiny, tmp_path):
    """U5-23: a hook script that checks a folder, breaks its config and checks it again
    (same parent, same options) got no output and exit 0 the second time. Mutation
    caught: the run's state keyed on the folder's name alone."""
    guessed = (tiny / "drafter-guessed" / "config.json").read_text()
    driver = f"""
import json, os, subprocess, sys
exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
env = dict(os.environ, PRE_COMMIT="1")
out = []
for step in range(3):
    if step == 1:
        open("{tiny}/drafter/config.json", "w").write({guessed!r})
    run = subprocess.run([exe, "check", "--format", "json", "--target", "{tiny}/target",
                          "{tiny}/drafter"], env=env, capture_output=True, text=True)
    out.append([run.returncode, len(json.loads(run.stdout)["results"])])
print(json.dumps(out))
"""
    run = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [[0, 1], [1, 1], [0, 0]], \
        run.stderr


def test_two_hooks_with_other_options_do_not_skip_each_other(tiny, tmp_path):
    """Two drafter-lint hooks in one pre-commit run (the second with --target): each lints
    the folder. Mutation caught: state keyed by the pre-commit process alone."""
    driver = f"""
import json, os, subprocess, sys
exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
env = dict(os.environ, PRE_COMMIT="1")
counts = []
for options in (["--format", "json"], ["--format", "json", "--target", "{tiny}/target"]):
    run = subprocess.run([exe, "check", *options, "{tiny}/drafter-guessed/config.json"],
                         env=env, capture_output=True, text=True)
    counts.append(len(json.loads(run.stdout)["results"]))
print(json.dumps(counts))
"""
    run = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [1, 1], run.stderr
    from drafter_lint.cache import cache_dir

    assert list((cache_dir() / "pre-commit").glob("*.json"))     # state in the cache dir


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))


@pytest.mark.slow
def test_pre_commit_try_repo_blocks_a_broken_drafter(tmp_path):
    """The real `pre-commit try-repo` against this repository, in a git model repo."""
    repo = tmp_path / "model-repo"
    shutil.copytree(FIXTURES / "tiny-qwen3.6" / "drafter-guessed", repo / "drafter")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    env.pop("VIRTUAL_ENV", None)
    exe = os.path.join(os.path.dirname(sys.executable), "pre-commit")
    command = [exe, "try-repo", str(ROOT), "drafter-lint", "--verbose"]
    broken = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True,
                            timeout=1200)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "DF114" in broken.stdout and "DF122" in broken.stdout
    shutil.copy(FIXTURES / "tiny-qwen3.6" / "drafter" / "config.json",
                repo / "drafter" / "config.json")
    git(repo, "add", "-A")
    fixed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True,
                           timeout=1200)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


# --- real launch lines from public docs, recipes and READMEs (tests/data/launch_lines.json) --

LAUNCH_LINES = json.loads((Path(__file__).parent / "data" / "launch_lines.json").read_text())


@pytest.mark.parametrize("entry", LAUNCH_LINES, ids=[f"{i}-{e['runtime']}"
                                                     for i, e in enumerate(LAUNCH_LINES)])
def test_published_launch_line_is_read_as_the_server_reads_it(entry):
    """Each line is quoted from its `source`. The gate must find the same target, draft,
    method and token count as the server, or refuse where the server refuses. Mutation
    caught: any parser regression on a form people really type (a store-true flag eating
    the model, an alias or a dotted key missed, *_mtp not mapped, a prefix mis-resolved)."""
    import shlex

    from drafter_lint import gate as gating

    argv = shlex.split(entry["line"])
    if entry["server"] != "accepts":
        with pytest.raises(gating.GateError):
            launch = gating.parse(argv)
            if launch.legacy_flags:     # refused per release by LCH107, as vLLM 0.33 does
                from drafter_lint import runtimes

                newest = runtimes.parse(entry["runtime"])
                assert runtimes.value("vllm.legacy-speculative-flags", newest) is False
                raise gating.GateError("old speculative flags (LCH107)")
            if not launch.draft and not launch.draftless:
                raise gating.GateError("no draft")
        return
    launch = gating.parse(argv)
    method = launch.method        # as written; vLLM 0.33 (the data's reading) maps *_mtp
    if launch.runtime == "vllm" and isinstance(method, str) and method.endswith("_mtp"):
        method = "mtp"            # to mtp, older releases do not (LCH101 reads it per release)
    got = (launch.runtime, method, launch.target, launch.tokens)
    assert got == (entry["runtime"], entry["method"], entry["target"], entry["tokens"]), \
        entry["line"]
    if not launch.draftless:
        assert launch.draft == entry["draft"], entry["line"]


# Real launch lines whose drafter is also in the published corpus (the MTP target itself).
LINE_AND_DRAFTER = {18: "qwen3.6-35b-a3b-nvfp4-mtp", 63: "deepseek-v3-mtp",
                    66: "glm-5-fp8-mtp", 68: "qwen3.5-397b-a17b-mtp",
                    69: "qwen3.5-397b-a17b-mtp"}


@pytest.mark.parametrize("index, case", sorted(LINE_AND_DRAFTER.items()),
                         ids=[f"{i}-{c}" for i, c in sorted(LINE_AND_DRAFTER.items())])
def test_published_launch_of_a_published_drafter_draws_no_error(index, case):
    """A real launch line against the published config it serves: the gate's rules must
    not refuse it. Mutation caught: a launch rule stricter than the server (SGLang's
    EAGLE alias for NEXTN refused, an MTP token count misjudged)."""
    import shlex

    from dataclasses import replace

    from drafter_lint import gate as gating
    from drafter_lint import runtimes
    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.engine import lint
    from drafter_lint.options import Options
    from drafter_lint.family import shards_needed
    from drafter_lint.rules import RULES

    entry = LAUNCH_LINES[index]
    assert entry["draft"] == entry["target"] and entry["server"] == "accepts"
    server = gating.locate(shlex.split(entry["line"]))
    launch = gating.read(server)
    checkpoint = read_checkpoint(FIXTURES / "published" / case, case, select=shards_needed)
    release = runtimes.parse(launch.runtime)
    rules = {c: r for c, r in RULES.items() if not c.startswith("TF")}
    result = lint(checkpoint, Options(rules=rules, runtime=release, launch=launch,
                                      server=replace(server, release=release)))
    assert not [f for f in result.findings if f.severity.value != "info"], \
        [(f.rule, f.message) for f in result.findings]


# --- the release installed behind the launch line, and its own start-up ---------------------

STAND_IN_VLLM = {
    "vllm/__init__.py": "__version__ = '{version}'\n",
    "vllm/engine/__init__.py": "",
    "vllm/utils/__init__.py": "",
    "vllm/utils/argparse_utils.py": "from argparse import ArgumentParser as FlexibleArgumentParser\n",
    "vllm/entrypoints/__init__.py": "",
    "vllm/entrypoints/common/__init__.py": "",
    "vllm/entrypoints/common/cli_args.py": (
        "def make_arg_parser(parser):\n"
        "    parser.add_argument('model_tag', nargs='?')\n"
        "    parser.add_argument('--speculative-config')\n"
        "    return parser\n"),
    "vllm/engine/arg_utils.py": (
        "import json, os\n"
        "class AsyncEngineArgs:\n"
        "    @classmethod\n"
        "    def from_cli_args(cls, args):\n"
        "        self = cls(); self.spec = json.loads(args.speculative_config); return self\n"
        "    def create_engine_config(self):\n"
        "        if os.environ.get('STANDIN_REFUSE'):\n"
        "            raise ValueError('stand-in start-up refuses ' + self.spec['method'])\n"
        "        return type('Config', (), {'speculative_config': None})()\n"),
}


def install_stand_in_vllm(lib: Path, version: str, start_up: bool) -> None:
    """Distribution metadata of vLLM `version` on the launch's PYTHONPATH; with
    `start_up`, a package answering the dry run's calls as the real one is shaped."""
    info = lib / f"vllm-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n")
    files = STAND_IN_VLLM if start_up else {"vllm/__init__.py": STAND_IN_VLLM["vllm/__init__.py"]}
    for name, text in files.items():
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        (lib / name).write_text(text.replace("{version}", version))


@pytest.mark.parametrize("version,starts", [("0.32.0", True), ("0.33.0", False)])
def test_gate_judges_the_installed_release(tmp_path, stand_ins, version, starts):
    """A Medusa launch: vLLM 0.32.0 serves it, 0.33.0 refuses it. Mutation caught: the
    gate linting for the newest release whatever is installed (it refused 0.32.0's
    launch), or the launch rules rebuilding the release from the bare name."""
    env, out = stand_ins
    install_stand_in_vllm(Path(env["PYTHONPATH"]), version, start_up=False)
    drafter, target = materialize(load_manifest("medusa-vicuna-7b"), tmp_path)
    command = ["vllm", "serve", str(target), "--speculative-config",
               json.dumps({"method": "medusa", "model": str(drafter),
                           "num_speculative_tokens": 3})]
    run = gate(env, tmp_path, *command)
    assert f"linting for vLLM {version}" in run.stderr, run.stderr
    if starts:
        assert run.returncode == 0 and out.exists(), run.stderr
        assert "dry run: not judged" in run.stderr      # the stand-in has no start-up code
    else:
        assert run.returncode == 1 and not out.exists()
        assert "vLLM 0.33.0 does not serve Medusa" in run.stderr, run.stderr


def test_a_console_script_run_through_env_dash_s_finds_its_python(tmp_path, stand_ins):
    """A `vllm` console script whose `#!` line is `/usr/bin/env -S PYTHON -u` (env's
    options before the interpreter) is run by PYTHON: the gate asks it for the installed
    release and lints for that one. vLLM 0.32.0 serves this Medusa launch, the newest
    recorded release does not. Mutation caught (round 2026-12-05c, M03): env's options
    kept as words (`-S` taken for the interpreter), so the release could not be told, the
    newest was linted and the good launch refused."""
    env, out = stand_ins
    install_stand_in_vllm(Path(env["PYTHONPATH"]), "0.32.0", start_up=False)
    script = Path(env["PATH"].split(":")[0]) / "vllm"
    script.write_text(STAND_IN.format(python=f"/usr/bin/env -S {sys.executable} -u"))
    drafter, target = materialize(load_manifest("medusa-vicuna-7b"), tmp_path)
    command = ["vllm", "serve", str(target), "--speculative-config",
               json.dumps({"method": "medusa", "model": str(drafter),
                           "num_speculative_tokens": 3})]
    run = gate(env, tmp_path, *command, options=("--no-dry-run",))
    assert "linting for vLLM 0.32.0" in run.stderr, run.stderr
    assert run.returncode == 0 and out.exists(), run.stderr


def test_gate_says_when_it_cannot_tell_the_release(tiny, stand_ins):
    env, _ = stand_ins
    run = gate(env, tiny, V2, "vllm", "serve", "target", "--speculative-config", spec())
    assert run.returncode == 0 and "cannot tell which vLLM release" in run.stderr, run.stderr
    assert "no dry run" in run.stderr and "dry run:" not in run.stderr   # nothing to ask


@pytest.mark.parametrize("refuse", [True, False])
def test_gate_dry_run_plumbing(tiny, stand_ins, refuse):
    """The launch's own arguments and environment reach the runtime's start-up in its
    interpreter; a refusal there blocks with the runtime's message and file:line, and a
    crash of the dry run itself never blocks (precision first). Mutations caught: the
    verdict ignored, the message or location dropped, a broken dry run blocking."""
    env, out = stand_ins
    install_stand_in_vllm(Path(env["PYTHONPATH"]), "0.33.0", start_up=True)
    prefix = ["STANDIN_REFUSE=1"] if refuse else []
    run = gate(env, tiny, *prefix, V2, "vllm", "serve", "target", "--speculative-config",
               spec())
    if refuse:
        assert run.returncode == 1 and not out.exists()
        assert "LCH106" in run.stderr and "stand-in start-up refuses dflash" in run.stderr
        assert "(vllm/engine/arg_utils.py:" in run.stderr, run.stderr
    else:
        assert run.returncode == 0 and out.exists(), run.stderr
        assert "dry run: vllm==0.33.0's own start-up accepted the launch" in run.stderr
    skipped = gate(env, tiny, *prefix, V2, "vllm", "serve", "target", "--speculative-config",
                   spec(), options=("--no-dry-run",))
    assert skipped.returncode == 0 and "dry run" not in skipped.stderr
    # `--runtime vllm` names the release to lint for; the installed one is still asked
    # (mutation caught: a bare runtime name silently skipping the dry run)
    named = gate(env, tiny, *prefix, V2, "vllm", "serve", "target", "--speculative-config",
                 spec(), options=("--runtime", "vllm"))
    assert ("refused" if refuse else "accepted") in named.stderr, named.stderr
    assert named.returncode == (1 if refuse else 0), named.stderr


@pytest.mark.parametrize("written,read", [
    ("true", 1), ("2.0", 2), ('"3"', 3), ("15", 15),            # vLLM accepts these
    ("0", None), ("-1", None), ("1e400", None), ("2.5", None), ('"x"', None), ("null", 0)])
def test_vllm_token_counts_are_read_as_the_server_does(written, read):
    """Measured on vllm==0.33.0 (the oracle lane's dry run): pydantic reads `true` as 1
    and `2.0` / `"3"` as integers, and refuses 0, negatives, infinity (`1e400`) and
    fractions at start-up. Mutations caught: 0 or a negative count passing the gate,
    `1e400` as an internal error (int(inf)), `true` refused though vLLM serves it."""
    from drafter_lint.gate import GateError, parse

    line = ["vllm", "serve", "target", "--speculative-config",
            f'{{"method": "dflash", "model": "drafter", "num_speculative_tokens": {written}}}']
    if read is None:
        with pytest.raises(GateError, match="num_speculative_tokens"):
            parse(line)
    else:
        assert (parse(line).tokens or 0) == read


def test_an_overflowing_token_count_is_a_one_line_refusal(tiny, stand_ins):
    env, out = stand_ins
    run = gate(env, tiny, "vllm", "serve", "target", "--speculative-config",
               '{"method": "dflash", "model": "drafter", "num_speculative_tokens": 1e400}')
    assert run.returncode == 1 and not out.exists()
    assert run.stderr.strip().count("\n") == 0 and "not a finite number" in run.stderr, \
        run.stderr


SERVE = ["vllm", "serve", "target", "--speculative-config",
         '{"method": "dflash", "model": "drafter", "num_speculative_tokens": 15}']
SGLANG = ["-m", "sglang.launch_server", "--model-path", "target", "--speculative-algorithm",
          "DFLASH", "--speculative-draft-model-path", "drafter"]


@pytest.mark.parametrize("line,env", [
    (["nohup", *SERVE], {}),
    (["exec", *SERVE], {}),
    (["uv", "run", "--with", "vllm==0.33.0", "--no-sync", *SERVE], {}),
    (["uv", "run", "--", *SERVE], {}),
    (["numactl", "--cpunodebind=0", "--membind=0", *SERVE], {}),
    (["numactl", "-N", "0", "-m", "0", *SERVE], {}),
    (["taskset", "-c", "0-31", *SERVE], {}),
    (["taskset", "0xff", *SERVE], {}),
    (["env", "-i", "PATH=/usr/bin", "VLLM_USE_V2_MODEL_RUNNER=1", *SERVE],
     {"PATH": "/usr/bin", "VLLM_USE_V2_MODEL_RUNNER": "1"}),
    (["CUDA_VISIBLE_DEVICES=0,1", "nohup", "python3", "-u", "-m", "vllm.entrypoints.cli.main",
      *SERVE[1:]], {"CUDA_VISIBLE_DEVICES": "0,1"}),
    (["CUDA_VISIBLE_DEVICES=0", "python3", *SGLANG], {"CUDA_VISIBLE_DEVICES": "0"}),
    (["timeout", "--signal=KILL", "3600", "nice", "-n", "5", "python3", "-X", "dev", *SGLANG],
     {}),
])
def test_launchers_before_the_server_are_read_through(line, env):
    """Launch scripts put nohup, uv run, numactl, taskset, env -i, exec, timeout and a
    VAR=value prefix before the server. Mutation caught: a launcher read as the server
    ("not a vLLM or SGLang launch command"), its options read as the model, or the exec'd
    line changed."""
    from drafter_lint.gate import locate, read

    server = locate(line)
    launch = read(server)
    assert (launch.target, launch.draft) == ("target", "drafter")
    assert launch.method in ("dflash", "DFLASH")
    assert server.env == env
    prefix = list(itertools.takewhile(lambda word: "=" in word, line))
    executed = line[len(prefix):]
    if executed[0] == "exec":           # a shell builtin, not a program: the gate execs
        executed = executed[1:]
    assert list(server.argv) == executed              # exec'd unchanged, prefix in env
    assert server.env_cleared == ("-i" in line)


@pytest.mark.parametrize("launcher", [["nohup", "env", "VLLM_USE_V2_MODEL_RUNNER=1"],
                                      ["exec", "env", "VLLM_USE_V2_MODEL_RUNNER=1"]])
def test_the_gate_execs_the_whole_launcher_line(tiny, stand_ins, launcher):
    env, out = stand_ins
    run = gate_process(env, tiny, *launcher, *SERVE)
    assert run.returncode == 0, run.stderr
    started = json.loads(out.read_text())
    assert started["argv"][1:] == SERVE[1:] and started["v2"] == "1"


def test_a_line_without_speculative_decoding_starts_with_a_note(tiny, stand_ins):
    """`vllm serve MODEL` has no drafter to lint: the gate starts it and says so, unless
    --require-speculative asks for refusal. Mutation caught: a plain launch refused as
    "names no draft model" (a gate that blocks good launches gets removed)."""
    env, out = stand_ins
    run = gate(env, tiny, "vllm", "serve", "target")
    assert run.returncode == 0 and out.exists(), run.stderr
    assert "uses no speculative decoding" in run.stderr
    out.unlink()
    run = gate(env, tiny, "vllm", "serve", "target", options=("--require-speculative",))
    assert run.returncode == 1 and not out.exists() and "no speculative" in run.stderr


@pytest.mark.parametrize("release,refused", [("0.32.0", False), ("0.33.0", True)])
def test_vllm_serve_speculator_lints_the_speculator_and_its_verifier(
        tmp_path, stand_ins, release, refused):
    """`vllm serve SPECULATOR` (the speculators short form): vLLM serves the verifier the
    checkpoint names, here a local folder, which vLLM 0.33.0 refuses in this form and
    0.32.0 used. Mutation caught: the line refused as naming no draft model, the verifier
    not linted as the target, or 0.33.0's local-verifier refusal not applied."""
    env, out = stand_ins
    install_stand_in_vllm(Path(env["PYTHONPATH"]), release, start_up=False)
    drafter, target = materialize(load_manifest("speculators-eagle3-qwen3-235b"), tmp_path)
    config = json.loads((drafter / "config.json").read_text())
    config["speculators_config"]["verifier"]["name_or_path"] = str(target)
    (drafter / "config.json").write_text(json.dumps(config))
    run = gate(env, tmp_path, "vllm", "serve", str(drafter), options=("--ignore", "EA,SPC1"))
    assert "is a speculators checkpoint" in run.stderr, run.stderr
    assert "names no draft model" not in run.stderr
    assert run.returncode == 0, run.stderr      # SPC107 ignored: the rest of the pair is good
    spc107 = gate(env, tmp_path, "vllm", "serve", str(drafter), options=("--ignore", "EA"))
    assert ("refuses to serve the checkpoint alone" in spc107.stderr) == refused, \
        spc107.stderr


@pytest.mark.parametrize("line,expected", [
    (["vllm", "serve", "Qwen/Qwen3.6-27B", "--revision", "v2", "--speculative-config",
      '{"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash", "revision": "v2", '
      '"num_speculative_tokens": 15}'], "v2"),
    ([sys.executable, "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3.6-27B",
      "--revision", "v2", "--speculative-algorithm", "DFLASH",
      "--speculative-draft-model-path", "z-lab/Qwen3.6-27B-DFlash",
      "--speculative-draft-model-revision", "v2"], "v2"),
    (["vllm", "serve", "Qwen/Qwen3.6-27B", "--speculative-config",
      '{"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash", "revision": "nope", '
      '"num_speculative_tokens": 15}'], "refused"),
])
def test_the_gate_lints_the_revision_the_server_loads(tmp_path, stand_ins, monkeypatch,
                                                      line, expected):
    """vLLM's `--revision` and the speculative config's `revision`, SGLang's `--revision`
    and `--speculative-draft-model-revision`: the gate reads those revisions (here `v2`,
    whose drafter has the guessed mask) or refuses one the hub does not have. Mutation
    caught: the revision ignored and `main` linted silently."""
    from fakehub import FakeHub

    root = tmp_path / "hub"
    shutil.copytree(FIXTURES / "hub", root)
    for repo in ("Qwen/Qwen3.6-27B", "z-lab/Qwen3.6-27B-DFlash"):
        shutil.copytree(root / repo / "main", root / repo / "v2")
    drafter_v2 = root / "z-lab/Qwen3.6-27B-DFlash" / "v2" / "config.json"
    config = json.loads(drafter_v2.read_text())
    config["dflash_config"]["target_layer_ids"] = [2, 17, 32, 47, 62]     # shifted by +1
    drafter_v2.write_text(json.dumps(config, indent=2))
    env, out = stand_ins
    with FakeHub(root) as hub:
        env = {**env, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")}
        run = gate(env, tmp_path, *line, options=("--no-dry-run", "--ignore", "DF104"))
    assert run.returncode == 1 and not out.exists(), run.stderr
    if expected == "refused":
        assert "nope" in run.stderr and "nothing started" in run.stderr, run.stderr
    else:
        assert "DF114" in run.stderr, run.stderr       # v2's taps, not main's


def test_gate_takes_the_common_options(tiny, stand_ins):
    """--format json (on stderr: stdout is the server's), --select and --runtime, as check
    has them. Mutation caught: the options refused by click, or --runtime ignored in
    favour of the installed release."""
    env, out = stand_ins
    line = [V2, "vllm", "serve", "target", "--speculative-config", spec(model="drafter-guessed")]
    run = gate(env, tiny, *line, options=("--format", "json", "--no-dry-run"))
    assert run.returncode == 1 and not out.exists()
    report = json.loads(run.stderr[run.stderr.index("{"):run.stderr.rindex("}") + 1])
    assert "DF114" in {f["rule"] for f in report["results"][0]["findings"]}
    only = gate(env, tiny, *line, options=("--select", "DF105", "--no-dry-run"))
    assert only.returncode == 0 and out.exists() and "DF114" not in only.stderr
    out.unlink()
    medusa = [V2, "vllm", "serve", "target", "--speculative-config",
              spec(method="medusa", tokens=3)]
    old = gate(env, tiny, *medusa, options=("--runtime", "vllm==0.32.0", "--select", "LCH101",
                                            "--no-dry-run"))
    assert "linting for vLLM 0.32.0, as --runtime asks" in old.stderr
    # not 0.33.0's facts; on V2 because the line's VLLM_USE_V2_MODEL_RUNNER=1 asks for it
    # (0.32.0 would run method medusa on V1)
    assert "vLLM 0.32.0 on its V2 runner serves it with" in old.stderr, old.stderr


# --- failing closed: options, launches and interpreters (issue 32) ---------------------------

@pytest.mark.parametrize("options", [
    ("--select", "ZZ9"), ("--ignore", "ZZ9"), ("--select", "DF1,ZZ9"),
    ("--runtime", "vllm=="), ("--runtime", "vllm==abc"), ("--runtime", "reference==1.0"),
    ("--runtime", "vllm", "--runtime", "vllm==0.32.0"), ("--runtime", "sglang"),
    ("--dry-run-timeout", "nan"), ("--dry-run-timeout", "1e400"), ("--dry-run-timeout", "0"),
    ("--dry-run-timeout", "-5"), ("--fail-on", "fatal")])
def test_a_typo_in_any_gate_option_starts_nothing(tiny, stand_ins, options):
    """Every option of `gate` is checked before anything runs: a wrong one is exit 2 and
    nothing starts. Mutation caught: the gate building its options without the validation
    `check` gets (`--select ZZ9` started the server with a drafter that has 4 errors),
    NaN or infinity accepted as a timeout (the dry run then waits forever), a runtime that
    does not match the line silently replaced by the line's."""
    env, out = stand_ins
    run = gate(env, tiny, V2, "vllm", "serve", "target", "--speculative-config",
               spec(model="drafter-guessed"), options=options)
    assert run.returncode == 2 and not out.exists(), run.stderr
    assert "rror" in run.stderr and "Traceback" not in run.stderr


def test_a_dry_run_timeout_of_one_second_is_accepted(tiny, stand_ins):
    """`--dry-run-timeout` takes any finite number of seconds of at least 1, as its help
    and its error say: 1 itself is a timeout, and the launch starts. Mutation caught (round
    2026-12-05e, M19): the bound taken as exclusive (`value > 1`), `--dry-run-timeout 1`
    refused as a typo, exit 2 and nothing started."""
    env, out = stand_ins
    run = gate(env, tiny, V2, "vllm", "serve", "target", "--speculative-config", spec(),
               options=("--dry-run-timeout", "1"))
    assert run.returncode == 0 and out.exists(), run.stderr


def test_vllm_serve_with_two_models_is_refused_and_a_config_file_model_yields(tmp_path):
    """vLLM moves `--model B` before the positional `A` and argparse then refuses two model
    tags (vllm==0.33.0 utils/argparse_utils.py:324-355); a config file's `model:` yields to
    the positional one (entrypoints/cli/serve.py:54-57) and is used without one. Mutation
    caught: linting B while vLLM serves A (or refuses the line)."""
    from drafter_lint.gate import GateError, parse

    sc = ["--speculative-config", spec()]
    with pytest.raises(GateError, match="names the model twice"):
        parse(["vllm", "serve", "A", "--model", "B", *sc])
    with pytest.raises(GateError, match="names the model twice"):
        parse(["vllm", "serve", "--model=B", "A", *sc])
    config = tmp_path / "serve.yaml"
    config.write_text("model: B\nport: 8000\n")
    assert parse(["vllm", "serve", "A", "--config", str(config), *sc]).target == "A"
    assert parse(["vllm", "serve", "--config", str(config), *sc]).target == "B"
    assert parse(["vllm", "serve", "--model", "B", *sc]).target == "B"


def test_numactl_long_options_take_their_value_as_the_next_word():
    """numactl(8): `--cpunodebind 0` is one option and its value. Mutation caught: `0` read
    as the command (the line was refused)."""
    from drafter_lint.gate import parse

    for launcher in (["numactl", "--cpunodebind", "0", "--membind", "0"],
                     ["numactl", "--cpunodebind=0"], ["numactl", "-N", "0", "-l"],
                     ["numactl", "--physcpubind", "0-7", "--interleave", "all"]):
        launch = parse([*launcher, "vllm", "serve", "T", "--speculative-config", spec()])
        assert launch.runtime == "vllm" and launch.target == "T", launcher


def test_a_yaml_alias_bomb_in_a_server_config_is_refused_at_once(tiny, stand_ins):
    """A --config file of a few lines whose aliases expand to billions of values is a
    one-line refusal. Mutation caught: the expansion size unchecked (MemoryError after
    minutes, reported as an internal error)."""
    env, out = stand_ins
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    (tiny / "bomb.yaml").write_text("\n".join(lines) + "\nport: 8000\n")
    run = gate(env, tiny, V2, "vllm", "serve", "target", "--config", "bomb.yaml",
               "--speculative-config", spec())
    assert run.returncode == 1 and not out.exists(), run.stderr
    assert "expand to more than" in run.stderr and "internal error" not in run.stderr


def test_a_console_script_that_is_not_python_is_never_run_as_the_probe(tiny, stand_ins):
    """When the `vllm` on PATH is a shell script, the release probe and the dry run are
    not run through its `#!` interpreter: bash would run `import ...` or an unrelated
    `serve` program. The gate says it cannot tell the release and lints for the newest.
    Mutation caught: the `#!` interpreter used whatever it is."""
    env, out = stand_ins
    bin_dir = Path(env["PATH"].split(":")[0])
    marker = tiny / "ran.txt"
    for name in ("import", "serve", "from"):
        (bin_dir / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
        (bin_dir / name).chmod(0o755)
    (bin_dir / "vllm").write_text(f"#!/bin/bash\necho \"$@\" > {out}\n")
    run = gate(env, tiny, V2, "vllm", "serve", "target", "--speculative-config", spec())
    assert run.returncode == 0 and out.exists(), run.stderr      # the line itself ran
    assert not marker.exists(), marker.read_text()
    assert "not run by a Python" in run.stderr and "dry run:" not in run.stderr


STAND_IN_SPAWNING = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
    "open(os.environ['CHILD_PID'], 'w').write(str(child.pid))\n"
    "time.sleep(120)\n")


def test_a_timed_out_dry_run_leaves_no_process_behind(tiny, stand_ins):
    """The dry run runs in a process group of its own, killed as a whole on timeout: the
    runtime's start-up may fork workers. Mutation caught: only the direct child killed
    (its worker kept running after the gate had exited)."""
    env, out = stand_ins
    lib = Path(env["PYTHONPATH"])
    install_stand_in_vllm(lib, "0.33.0", start_up=True)
    (lib / "vllm" / "engine" / "arg_utils.py").write_text(
        STAND_IN_VLLM["vllm/engine/arg_utils.py"].replace(
            "    def create_engine_config(self):\n",
            "    def create_engine_config(self):\n" + "".join(
                f"        {line}\n" for line in STAND_IN_SPAWNING.splitlines())))
    pid_file = tiny / "child.pid"
    run = gate({**env, "CHILD_PID": str(pid_file)}, tiny, V2, "vllm", "serve", "target",
               "--speculative-config", spec(), options=("--dry-run-timeout", "3"))
    assert run.returncode == 0 and "no verdict within 3 s" in run.stderr, run.stderr
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "the dry run's child outlived it"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:      # a zombie is not running
        return handle.read().split(")")[-1].split()[0] != "Z"


def test_a_refused_dry_run_is_reported_without_a_second_lint(tiny, stand_ins, monkeypatch):
    """The gate's policy (gate.decide): the lint first, the dry run only when it passes, and
    the refusal added as LCH106 without reading the checkpoint again. Mutation caught: the
    dry run run for a launch the lint already refused, or a second read and lint."""
    from drafter_lint import gate as gating
    from drafter_lint import pipeline
    from drafter_lint.launch import DryRunVerdict

    reads, asked = [], []
    real_prepare = pipeline.prepare_folder
    monkeypatch.setattr(pipeline, "prepare_folder",
                        lambda *a, **k: reads.append(a[0]) or real_prepare(*a, **k))
    monkeypatch.setattr(gating, "installed_version", lambda python, launch: "0.33.0")
    monkeypatch.setattr(gating, "interpreter", lambda launch: sys.executable)
    monkeypatch.setattr(gating, "dry_run", lambda python, server, timeout: asked.append(1) or
                        DryRunVerdict("refused", "vllm", "0.33.0", "no", "x.py:1"))
    monkeypatch.chdir(tiny)
    run = pipeline.prepare(resolve=False)
    line = [V2, "vllm", "serve", "target", "--speculative-config"]
    bad = gating.decide(line + [spec(model="drafter-guessed")], run, None, None, False, 10.0,
                        note=lambda _: None)
    assert not bad.start and not asked and len(reads) == 1
    good = gating.decide(line + [spec()], run, None, None, False, 10.0, note=lambda _: None)
    assert not good.start and asked == [1] and len(reads) == 2
    assert [f.rule for f in good.blocking] == ["LCH106"]


MAXPOS2048 = FIXTURES / "published" / "specforge-qwen3-8b-eagle3-maxpos2048"


def short_head(tmp_path):
    """(drafter, target) folders: the 2048-position head and its 40960-context target."""
    drafter, target = tmp_path / "head", tmp_path / "target"
    drafter.mkdir()
    target.mkdir()
    shutil.copyfile(MAXPOS2048 / "config.json", drafter / "config.json")
    shutil.copyfile(MAXPOS2048 / "target.config.json", target / "config.json")
    return drafter, target


@pytest.mark.parametrize("how,starts", [
    ("plain", False), ("inherited", True), ("prefix", True), ("context-fits", True),
    ("context-too-long", False), ("env-i-drops-it", False)])
def test_the_sglang_short_context_head_follows_the_servers_environment(tmp_path, stand_ins,
                                                                        how, starts):
    """A 2048-position EAGLE-3 head for the 40960-context Qwen3-8B: SGLang refuses it
    unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set in the environment the server
    sees (the gate's own, or the line's), or --context-length is at most 2048 (the draft
    is built with the server's context length, sglang==0.5.23
    speculative/draft_worker_common.py:100, configs/model_config.py:1291-1316). Mutations
    caught: the variable honoured only as a prefix (DL013 said set it, and refused when
    it was), --context-length ignored (the message's own way out refused)."""
    env, out = stand_ins
    drafter, target = short_head(tmp_path)
    line = [sys.executable, "-m", "sglang.launch_server", "--model-path", str(target),
            "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
            str(drafter), "--speculative-num-draft-tokens", "4"]
    allow = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
    env = dict(env, **({allow: "1"} if how in ("inherited", "env-i-drops-it") else {}))
    line = {"prefix": [f"{allow}=1", *line],
            "context-fits": [*line, "--context-length", "2048"],
            "context-too-long": [*line, "--context-length", "4096"],
            "env-i-drops-it": ["env", "-i", f"PATH={env['PATH']}",
                               f"PYTHONPATH={env['PYTHONPATH']}",
                               f"STANDIN_OUT={env['STANDIN_OUT']}", *line]}.get(how, line)
    run = gate(env, tmp_path, *line, options=("--select", "DL013", "--runtime", "sglang"))
    assert (run.returncode == 0) == starts and out.exists() == starts, run.stderr
    if not starts:
        assert "DL013" in run.stderr and "vLLM" not in run.stderr.split("refused")[-1]


@pytest.mark.parametrize("how,starts", [
    ("plain", False), ("max-model-len-fits", True), ("max-model-len-too-long", False),
    ("max-model-len-auto", False), ("hf-overrides-shorten-target", True),
    ("hf-overrides-other-key", False)])
def test_the_vllm_short_context_head_follows_the_servers_flags(tmp_path, stand_ins, how,
                                                               starts):
    """The same 2048-position head on vLLM 0.26.0, which keeps the draft's short RoPE
    cache (EA315 warns: prompts past 2048 tokens overrun it). `--max-model-len` at most
    2048 serves no such prompt, and `--hf-overrides` that shorten the target's
    max_position_embeddings leave the head as long as its target (vLLM sets dict
    overrides on the target's config, vllm==0.33.0 config/model.py:555-570). Mutations
    caught: either flag ignored (the gate blocks a launch that cannot overrun), or an
    unsized `auto` / an unrelated override taken as a fit."""
    env, out = stand_ins
    drafter, target = short_head(tmp_path)
    line = ["vllm", "serve", str(target), "--speculative-config",
            json.dumps({"method": "eagle3", "model": str(drafter),
                        "num_speculative_tokens": 3})]
    extra = {"max-model-len-fits": ["--max-model-len", "2048"],
             "max-model-len-too-long": ["--max-model-len", "4096"],
             "max-model-len-auto": ["--max-model-len", "auto"],
             "hf-overrides-shorten-target": ["--hf-overrides",
                                             '{"max_position_embeddings": 2048}'],
             "hf-overrides-other-key": ["--hf-overrides", '{"rope_theta": 1000000}']}
    run = gate(env, tmp_path, *line, *extra.get(how, []),
               options=("--select", "EA315", "--runtime", "vllm==0.26.0", "--fail-on",
                        "warning"))
    assert (run.returncode == 0) == starts and out.exists() == starts, run.stderr
    if not starts:
        assert "EA315" in run.stderr


def test_hf_overrides_that_vllm_refuses_are_refused(tmp_path, stand_ins):
    """`--hf-overrides` that is not a JSON object stops vLLM's parser; the gate refuses the
    line with one line (exit 1, as for any line it refuses). Mutation caught: a bad value ignored (linting a target
    the server never builds)."""
    env, out = stand_ins
    for value in ("{not json", "[1, 2]"):
        run = gate(env, tmp_path, "vllm", "serve", "t", "--hf-overrides", value,
                   "--speculative-config", spec())
        assert run.returncode == 1 and "--hf-overrides" in run.stderr, run.stderr
        assert not out.exists() and "Traceback" not in run.stderr


@pytest.mark.parametrize("release,starts", [("0.32.0", False), ("0.33.0", True)])
def test_hf_overrides_lengthen_the_target_but_not_its_mtp_draft(tmp_path, stand_ins, release,
                                                                starts):
    """vLLM #58080: dict --hf-overrides that lengthen Qwen3.5-27B's context reach the target
    but not its MTP draft, the checkpoint as written; vLLM before 0.33.0 keeps the draft's
    262144 positions, and prompts past them overrun its RoPE cache (RP102); 0.33.0 raises
    it. Mutations caught: overrides not applied to the target, or applied to the draft."""
    env, out = stand_ins
    model = tmp_path / "qwen3.5-27b"
    model.mkdir()
    shutil.copyfile(FIXTURES / "published" / "qwen3.5-27b-mtp" / "config.json",
                    model / "config.json")
    line = ["vllm", "serve", str(model), "--speculative-config",
            json.dumps({"method": "mtp", "num_speculative_tokens": 1}), "--hf-overrides",
            json.dumps({"text_config": {"max_position_embeddings": 1048576}})]
    run = gate(env, tmp_path, *line, options=("--select", "RP102", "--runtime",
                                              f"vllm=={release}"))
    assert (run.returncode == 0) == starts and out.exists() == starts, run.stderr
    if not starts:
        assert "RP102" in run.stderr and "1048576" in run.stderr


# --- launchers, the server's environment and option spellings (issue 42, U5-2..U5-11) ----

UV_STAND_IN = """#!/bin/bash
# `uv run [--directory D] [opts] CMD...`: changes into D, then runs CMD (a stand-in)
shift
while [ $# -gt 0 ]; do
  case "$1" in
    --directory) cd "$2"; shift 2 ;;
    --project|--with|--python) shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
  esac
done
exec "$@"
"""


def hf_snapshot(cache: Path, repo: str, source: Path) -> Path:
    """`source`'s files as huggingface_hub's cache holds repo `repo` at main (refs/main, a
    snapshot folder), which snapshot_download(local_files_only=True) finds."""
    commit = "a" * 40
    root = cache / f"models--{repo.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(commit)
    shutil.copytree(source, root / "snapshots" / commit)
    return root


def spec_of(model):
    return spec(model=model)


# (case, the line after `gate --` as a function of the test's folders, expected):
# "start" means exec'd (the stand-in's marker written); else the refusal's words
LAUNCHER_FORMS = [
    # U5-2: the server runs in another folder, where `drafter` is the guessed one
    ("env --chdir=DIR", lambda d: ["env", f"--chdir={d['other']}", *d["serve"]], "DF10"),
    ("env -C DIR", lambda d: ["env", "-C", str(d["other"]), *d["serve"]], "DF10"),
    ("env -CDIR", lambda d: ["env", f"-C{d['other']}", *d["serve"]], "DF10"),
    ("uv run --directory DIR", lambda d: ["uv", "run", "--directory", str(d["other"]),
                                          *d["serve"]], "DF10"),
    ("env -C GOOD", lambda d: ["env", "-C", str(d["tiny"]), *d["serve"]], "start"),
    # U5-6: `env -u` removes an inherited variable from what the server sees
    ("env -u NAME", lambda d: ["env", "-u", "VLLM_USE_V2_MODEL_RUNNER", *d["serve"]],
     "start"),
    ("env --unset=NAME", lambda d: ["env", "--unset=VLLM_USE_V2_MODEL_RUNNER", *d["serve"]],
     "start"),
    ("env -S STRING", lambda d: ["env", "-S", "VLLM_USE_V2_MODEL_RUNNER=0 vllm serve",
                                 "target", "--speculative-config", spec()], "LCH103"),
    ("env -i", lambda d: ["env", "-i", f"PATH={d['path']}", f"STANDIN_OUT={d['out']}",
                          *d["serve"]], "start"),
    # launchers the gate cannot read through: refused, naming them
    ("sudo", lambda d: ["sudo", *d["serve"]], "`sudo`"),
    ("bash -c", lambda d: ["bash", "-c", " ".join(d["serve"])], "`bash`"),
    ("env --bogus", lambda d: ["env", "--bogus", *d["serve"]], "env option --bogus"),
    ("uv run --bogus", lambda d: ["uv", "run", "--bogus", *d["serve"]],
     "uv run option --bogus"),
    # U5-4: option prefixes vLLM's parser accepts are not read as "no speculation"
    ("--speculative-conf", lambda d: ["vllm", "serve", "target", "--speculative-conf",
                                      spec_of("drafter-guessed")], "DF104"),
    ("--speculative", lambda d: ["vllm", "serve", "target", "--speculative",
                                 spec_of("drafter-guessed")], "DF104"),
    # U5-7: a vLLM boolean before the model does not swallow it; an unknown option may
    ("boolean before the model", lambda d: ["vllm", "serve",
                                            "--disable-hybrid-kv-cache-manager", "target",
                                            "--speculative-config", spec()], "start"),
    ("unknown option before the model", lambda d: ["vllm", "serve", "--frobnicate",
                                                   "target", "--speculative-config",
                                                   spec()], "LCH108"),
]


@pytest.mark.parametrize("form,line,expected", LAUNCHER_FORMS,
                         ids=[f[0] for f in LAUNCHER_FORMS])
def test_each_launcher_form_is_read_through_or_refused(tiny, tmp_path, stand_ins, form,
                                                       line, expected):
    """Every launcher form the gate meets: read through to what the server will load
    (where it runs, what it inherits) or refused with one line naming it; never exec'd
    unlinted. The marker (the stand-in server's file) says whether it was exec'd.
    Mutations caught: `env -C`/`uv run --directory` resolved in the gate's folder (U5-2:
    the good drafter linted, the guessed one served), `env -u` ignored (U5-6: LCH103
    refuses a valid launch), `env -S` not split, a launcher skipped as if absent, an option
    prefix read as no speculative decoding (U5-4), a boolean swallowing the model (U5-7)."""
    env, out = stand_ins
    other = tmp_path / "elsewhere"                   # `drafter` here is the guessed one
    other.mkdir()
    shutil.copytree(tiny / "target", other / "target")
    shutil.copytree(tiny / "drafter-guessed", other / "drafter")
    bin_dir = Path(env["PATH"].split(":")[0])
    (bin_dir / "uv").write_text(UV_STAND_IN)
    (bin_dir / "uv").chmod(0o755)
    env = {**env, "VLLM_USE_V2_MODEL_RUNNER": "0"} if "-u" in form or "unset" in form \
        else env
    folders = {"tiny": tiny, "other": other, "path": env["PATH"], "out": out,
                      "serve": ["vllm", "serve", "target", "--speculative-config", spec()]}
    run = gate(env, tiny, *line(folders))
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    if expected == "start":
        assert run.returncode == 0 and out.exists(), run.stderr
    else:
        assert run.returncode == 1 and not out.exists(), run.stderr
        assert expected in run.stderr, run.stderr


def test_a_home_relative_draft_is_not_resolved_in_the_servers_folder(tiny, tmp_path,
                                                                     stand_ins):
    """`env -C DIR vllm serve ... "model": "~/drafter"`: a path from the home folder is the
    same wherever the server runs, so the gate lints ~/drafter (the good drafter here) and
    starts the launch. Mutation caught (round 2026-12-05c, M04): `ServerContext.path`
    joining `~/...` to the server's folder like a relative path (DIR/~/drafter, which does
    not exist), so a valid launch was refused."""
    env, out = stand_ins
    env = {**env, "HOME": str(tiny)}
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copytree(tiny / "target", other / "target")
    run = gate(env, tiny, "env", "-C", str(other), "vllm", "serve", "target",
               "--speculative-config", spec(model="~/drafter"))
    assert "Traceback" not in run.stderr and "does not exist" not in run.stderr, run.stderr
    assert run.returncode == 0 and out.exists(), run.stderr


def test_the_gate_resolves_hub_models_in_the_servers_environment(tiny, tmp_path, stand_ins):
    """U5-3: HF_HUB_CACHE / HF_HOME / HF_HUB_OFFLINE on the launch line decide which copy
    the server loads; the gate lints that copy. Mutation caught: resolution in the gate's
    own environment (its empty cache here), which cannot see the stale snapshot the server
    loads, or an offline server's missing repo linted from elsewhere."""
    env, out = stand_ins
    env = {**env, "HF_HUB_CACHE": str(tmp_path / "gate-own-cache"), "HF_HUB_OFFLINE": "1"}
    served = tmp_path / "server-cache"
    hf_snapshot(served, "org/target", tiny / "target")
    hf_snapshot(served, "org/drafter", tiny / "drafter-guessed")
    good = tmp_path / "good-cache"
    hf_snapshot(good, "org/target", tiny / "target")
    hf_snapshot(good, "org/drafter", tiny / "drafter")
    line = ["vllm", "serve", "org/target", "--speculative-config", spec(model="org/drafter")]

    run = gate(env, tmp_path, f"HF_HUB_CACHE={served}", *line)
    assert run.returncode == 1 and not out.exists() and "DF10" in run.stderr, run.stderr
    run = gate(env, tmp_path, "env", f"HF_HOME={good.parent / 'home'}",
               f"HF_HUB_CACHE={good}", *line)
    assert run.returncode == 0 and out.exists(), run.stderr
    out.unlink()
    run = gate(env, tmp_path, *line)          # the server's (inherited) cache is empty
    assert run.returncode == 1 and not out.exists(), run.stderr
    assert "would not start" in run.stderr or "not in" in run.stderr, run.stderr


def test_a_model_the_gate_cannot_read_is_refused_not_served_unlinted(tmp_path, stand_ins):
    """U5-5: `vllm serve org/name` whose config the gate cannot read may be a speculators
    checkpoint; it is refused with the reason, never started as "no speculative decoding".
    Mutation caught: the read failure turned into "none" (exec'd unlinted)."""
    env, out = stand_ins
    env = {**env, "HF_HUB_CACHE": str(tmp_path / "empty"), "HF_HUB_OFFLINE": "1"}
    run = gate(env, tmp_path, "vllm", "serve", "spec/bad-speculator")
    assert run.returncode == 1 and not out.exists(), run.stderr
    assert "cannot tell whether spec/bad-speculator is a speculators checkpoint" in run.stderr


@pytest.mark.parametrize("release", ["sglang==0.5.11", None])
@pytest.mark.parametrize("flags,disabled,strategy", [
    ([], False, None),
    (["--disable-radix-cache"], True, None),
    (["--disable-radix"], True, None),                        # argparse's unique prefix
    (["--mamba-scheduler-strategy", "extra_buffer"], False, "extra_buffer"),
    (["--mamba-scheduler-strategy=no_buffer"], False, "no_buffer")])
def test_sglangs_radix_cache_and_mamba_flags_are_read(release, flags, disabled, strategy):
    """DL018 turns on them: SGLang 0.5.10-0.5.13 refuse a hybrid target's speculative
    decoding unless the radix cache is off or the mamba strategy is extra_buffer. Read by
    the release's grammar and by the gate's own lists alike. Mutations caught: either flag
    not read (a good line blocked), a store-true flag taking the next word."""
    from drafter_lint import runtimes
    from drafter_lint.command import locate, read

    line = ["python", "-m", "sglang.launch_server", "--model-path", "T", *flags,
            "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "D"]
    launch = read(locate(line), runtimes.parse(release) if release else None)
    assert (launch.radix_cache_disabled, launch.mamba_strategy) == (disabled, strategy)
    assert launch.draft == "D" and launch.method == "EAGLE3"


@pytest.mark.parametrize("written,tokens", [("4k", 4000), ("4K", 4096), ("2.5k", 2500),
                                            ("32768", 32768), ("auto", None), ("-1", None),
                                            ("1.5K", "refused"), ("4q", "refused")])
def test_max_model_len_is_read_as_vllms_human_readable_int(written, tokens):
    """U5-11: vLLM reads `4k` as 4,000 and `4K` as 4,096. Mutation caught: a `k` value
    taken as unsized, so the target's whole context is claimed served (a valid launch
    refused by RP102), or decimal and binary suffixes confused."""
    from drafter_lint.command import parse
    from drafter_lint.errors import GateError

    line = ["vllm", "serve", "T", "--max-model-len", written]
    if tokens == "refused":
        with pytest.raises(GateError):
            parse(line)
    else:
        assert parse(line).max_model_len == tokens


def test_a_repeated_legacy_speculative_flag_is_read_as_argparse_reads_it():
    """vLLM 0.8.x's parser keeps the last of a repeated `--speculative-model` (argparse's
    store action), so the gate reads the draft the server loads. Mutation caught (round
    2026-12-05e, noted there): the first kept (`setdefault`), so the gate linted a draft
    the server never loads."""
    from drafter_lint.command import parse

    line = ["vllm", "serve", "T", "--speculative-model", "a", "--speculative-model", "b",
            "--num-speculative-tokens", "3", "--num-speculative-tokens", "5"]
    launch = parse(line)
    assert launch.draft == "b"
    assert list(launch.legacy_flags) == ["--speculative-model", "--speculative-model",
                                         "--num-speculative-tokens",
                                         "--num-speculative-tokens"]


@pytest.mark.parametrize("config,draft,revision", [
    ('{"method": "dspark", "num_speculative_tokens": 5}', "T", "r1"),
    ('{"method": "dspark", "model": "D", "num_speculative_tokens": 5}', "D", None),
    ('{"method": "mtp", "num_speculative_tokens": 1}', "T", "r1"),
])
def test_a_dspark_line_without_a_model_drafts_from_the_target(config, draft, revision):
    """vLLM drafts DSpark from the target when the speculative config names no model
    (vllm==0.25.0 config/speculative.py:672-678: a DeepSeek-V4 checkpoint carries its own
    DSpark stages). Mutations caught: the gate refusing that line as naming no draft model
    (it blocked a good launch), and a DSpark draft given in `model` read at the target's
    revision."""
    from drafter_lint.command import parse

    launch = parse(["vllm", "serve", "T", "--revision", "r1", "--speculative-config", config])
    assert (launch.draft, launch.draft_revision) == (draft, revision)


def test_releases_and_the_dry_run_show_progress_on_a_terminal_only(cli, tiny, monkeypatch):
    """Issue 41 item 4: `releases` lints every recorded release of each runtime (about
    seventy lints) and the gate's dry run may take minutes, both without a sign of life.
    Mutations caught: no bar for `releases` on a terminal; a bar or spinner written into
    a pipe."""
    import sys as system

    from drafter_lint import progress, runtimes

    terminal = FakeTerminal()
    monkeypatch.setattr(system, "stderr", terminal)
    run = cli("releases", tiny / "drafter", "--target", tiny / "target", "--runtime", "vllm")
    total = len(runtimes.PUBLISHED["vllm"])
    assert run.code == 0 and f"{total}/{total}" in terminal.text, terminal.text[-300:]
    monkeypatch.undo()
    run = cli("releases", tiny / "drafter", "--target", tiny / "target", "--runtime", "vllm")
    assert "\r" not in run.err and "/" + str(total) not in run.err
    spun = FakeTerminal()
    with progress.waiting("vllm's own start-up", after=0.0, stream=spun, what="the dry run"):
        time.sleep(0.3)
    assert "waiting for the dry run: vllm's own start-up" in spun.text


@pytest.mark.parametrize("unfilled,draft,verdict,unexplained", [
    # only the class's recorded placeholder: what every published DFlash drafter leaves
    (["model.mask_embedding"], "DFlashQwen3ForCausalLM", "accepted", ()),
    # beyond it: random weights where the checkpoint has no tensor
    (["model.mask_embedding", "model.markov_head.markov_w1.weight"],
     "DFlashQwen3ForCausalLM", "refused", ()),
    # no recorded load of the class: noted, never blocking
    (["model.markov_head.markov_w1.weight"], "SomeUnrecordedDraft", "accepted",
     ("model.markov_head.markov_w1.weight",)),
])
def test_the_dry_run_weights_layer_judges_what_the_load_left(unfilled, draft, verdict,
                                                            unexplained):
    """The weights layer's report (drafter_lint/dryrun/weights.py) as the gate reads it.
    Mutations caught: unfilled parameters ignored (the second row passes), the recorded
    placeholders not subtracted (the first row is refused), an unrecorded class's
    unfilled parameters treated as refusals (the third row is refused)."""
    from drafter_lint.launch import DryRunVerdict

    got = DryRunVerdict.of({"verdict": "accepted", "runtime": "vllm", "version": "0.33.0",
                            "draft_class": draft,
                            "weights": {"tensors": 58, "unfilled": unfilled,
                                        "seconds": 0.4}}, 1.0)
    assert (got.verdict, got.unexplained, got.stage, got.tensors, got.load_seconds) == \
        (verdict, unexplained, "weights", 58, 0.4)
    if verdict == "refused":
        assert "markov_w1" in got.message and "mask_embedding" not in got.message
    # an installed local build answers for its release; a version that is no release
    # number leaves the load unjudged, never a traceback (mutations: the local part
    # compared, so 0.33.0+cu128 falls outside every row; an unparsed version raising)
    # (round 2026-12-05b, M07: the version compared without dropping its local or post
    # part, so a build of 0.34.0, the last release of the recorded run, fell outside it
    # and its load went unjudged)
    for installed, judged in (("0.33.0+cu128", verdict), ("0.34.0+cu129", verdict),
                              ("0.34.0.post1", verdict), ("", "accepted")):
        again = DryRunVerdict.of({"verdict": "accepted", "runtime": "vllm",
                                  "version": installed, "draft_class": draft,
                                  "weights": {"unfilled": unfilled}}, 1.0)
        assert again.verdict == judged, installed


def test_the_weights_layer_does_not_count_an_empty_parameter_as_unfilled():
    """A parameter of no elements (an empty placeholder a release declares) holds nothing a
    checkpoint could fill: the weights layer (drafter_lint/dryrun/weights.py, run in the
    runtime's interpreter) leaves it out of `unfilled`, so the gate's verdict on the load
    stays accepted; a real parameter no tensor filled still refuses it. Mutation caught
    (round 2026-12-05b, M20): the size test dropped, so the empty parameter was reported
    unfilled and a good launch refused as drafting with random weights."""
    from types import SimpleNamespace

    from drafter_lint.dryrun.weights import Recorder
    from drafter_lint.launch import DryRunVerdict

    class Model:             # what named_parameters gives: names and numel()
        def __init__(self, sizes):
            self.params = {n: SimpleNamespace(numel=lambda s=s: s) for n, s in sizes.items()}

        def named_parameters(self):
            return list(self.params.items())

    def verdict(sizes, tensors):
        """(unfilled, the gate's verdict) after a load that hands `tensors` to the
        parameters of the same names, through the loaders the layer wraps."""
        model, recorder = Model(sizes), Recorder()
        recorder.install(model, lambda param, tensor: None)
        weights = [(n, SimpleNamespace(dtype="bfloat16", shape=(16,))) for n in tensors]
        for name, tensor in recorder.wrap_iterator(weights):
            model.params[name].weight_loader(model.params[name], tensor)
        report = recorder.result(model)
        return report["unfilled"], DryRunVerdict.of(
            {"verdict": "accepted", "runtime": "vllm", "version": "0.33.0",
             "draft_class": "Eagle3LlamaForCausalLM", "weights": report}, 1.0).verdict

    sizes = {"model.fc.weight": 16, "model.empty_placeholder": 0}
    assert verdict(sizes, ["model.fc.weight"]) == ([], "accepted")
    assert verdict(sizes, []) == (["model.fc.weight"], "refused")


def test_the_weights_layer_shares_only_the_named_modules_from_the_target():
    """SGLang sets the draft's `model.embed_tokens` and `lm_head` from the target after the
    load (dryrun/sglang_startup.py `shared_from_target`): those parameters, and what is
    below them, are left apart, not counted unfilled. A parameter whose name only starts
    with a shared name (`lm_heads.0.weight`, a head of its own) is not shared: left
    unfilled, it refuses the load. Mutation caught (round 2026-12-05c, M20): the shared
    test a bare string prefix (`n.startswith(s)`, no `.`), so the draft's own unfilled head
    passed as the target's and the draft ran with random weights there."""
    from types import SimpleNamespace

    from drafter_lint.dryrun.weights import Recorder
    from drafter_lint.launch import DryRunVerdict

    names = ("model.embed_tokens.weight", "lm_head.weight", "lm_heads.0.weight",
             "model.fc.weight")
    params = {n: SimpleNamespace(numel=lambda: 16) for n in names}
    model = SimpleNamespace(named_parameters=lambda: list(params.items()))
    recorder = Recorder()
    recorder.install(model, lambda param, tensor: None)
    loaded = [("model.fc.weight", SimpleNamespace(dtype="bfloat16", shape=(16,)))]
    for name, tensor in recorder.wrap_iterator(loaded):
        params[name].weight_loader(params[name], tensor)
    report = recorder.result(model, ("model.embed_tokens", "lm_head"))
    assert report["shared_from_target"] == ["lm_head.weight", "model.embed_tokens.weight"]
    assert report["unfilled"] == ["lm_heads.0.weight"]
    verdict = DryRunVerdict.of({"verdict": "accepted", "runtime": "sglang",
                                "version": "0.5.23", "draft_class": "DFlashDraftModel",
                                "weights": report}, 1.0)
    assert verdict.refused and "lm_heads.0.weight" in verdict.message


def test_a_uv_env_file_reads_export_lines_as_dotenv_does(tmp_path):
    """`uv run --env-file FILE` reads FILE as dotenv files are read: `export NAME=VALUE`
    sets NAME, a quoted value loses its quotes, a comment is skipped; the server sees
    those variables and the gate reads the line through. Mutation caught (round
    2026-12-05d, M03): the `export ` prefix kept as part of the name, so the line was "not
    KEY=VALUE" and the gate refused a launch uv starts."""
    from drafter_lint.command import locate

    env_file = tmp_path / "server.env"
    env_file.write_text("# the server's settings\nexport VLLM_USE_V2_MODEL_RUNNER=0\n"
                        "HF_HUB_OFFLINE='1'\n")
    server = locate(["uv", "run", "--env-file", str(env_file), "vllm", "serve", "org/model"],
                    inherited={})
    assert server.runtime == "vllm"
    assert server.environment["VLLM_USE_V2_MODEL_RUNNER"] == "0"
    assert server.environment["HF_HUB_OFFLINE"] == "1"


def test_the_vllm_dry_run_names_the_root_causes_line_through_an_implicit_chain(monkeypatch,
                                                                               tmp_path):
    """The vLLM dry run's `raised_at` (dryrun/vllm_startup.py) says where the refusal
    comes from: the innermost vllm frame of the root cause, followed through `raise ...
    from` (`__cause__`) and through an exception raised while handling another
    (`__context__`), as vLLM's config validation re-raises. Mutation caught (round
    2026-12-05e, M20): only `__cause__` followed, so an implicitly chained refusal named the
    frame that re-raised it, not the check that failed."""
    import importlib.util
    import sys

    import drafter_lint

    def load(name: str, path: Path):
        found = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
        return module

    folder = Path(drafter_lint.__file__).parent / "dryrun"
    monkeypatch.syspath_prepend(str(folder))        # the script imports its neighbours
    for name in ("verdict", "weights"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    script = load("vllm_startup_under_test", folder / "vllm_startup.py")

    vllm = tmp_path / "site-packages" / "vllm"       # frames in files named as vLLM's
    (vllm / "config").mkdir(parents=True)
    (vllm / "engine").mkdir()
    (vllm / "config" / "speculative.py").write_text(
        "def check():\n    raise ValueError('draft vocab')\n")
    (vllm / "engine" / "arg_utils.py").write_text(
        "def build(check):\n    try:\n        check()\n"
        "    except ValueError as exc:\n        raise RuntimeError(str(exc))\n\n\n"
        "def explicit(check):\n    try:\n        check()\n"
        "    except ValueError as exc:\n        raise RuntimeError(str(exc)) from exc\n")
    check = load("speculative_under_test", vllm / "config" / "speculative.py").check
    engine = load("arg_utils_under_test", vllm / "engine" / "arg_utils.py")
    for wrap in (engine.build, engine.explicit):
        with pytest.raises(RuntimeError) as raised:
            wrap(check)
        assert script.raised_at(raised.value) == "vllm/config/speculative.py:2", wrap


def test_sglang_shares_the_head_of_an_eagle3_draft_that_does_not_say_it_keeps_it(monkeypatch):
    """The SGLang dry run's `shared_from_target` (dryrun/sglang_startup.py): the draft
    worker sets the embedding and the head from the target after loading, unless an
    EAGLE-3 draft's own __init__ set `load_lm_head_from_target` False. A draft class that
    does not carry the attribute (releases before it, classes that never set it) has its
    head shared: left unfilled by the checkpoint, it is not a random head and the load is
    accepted. Mutation caught (round 2026-12-05d, M20): the attribute read with a default
    of False, so such a draft's `lm_head.weight` counted as unfilled and the gate refused
    a launch SGLang serves."""
    import importlib.util
    import sys
    from types import SimpleNamespace

    import drafter_lint
    from drafter_lint.launch import DryRunVerdict

    folder = Path(drafter_lint.__file__).parent / "dryrun"
    monkeypatch.syspath_prepend(str(folder))        # the script imports its neighbours
    for name in ("verdict", "weights"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    spec = importlib.util.spec_from_file_location("sglang_startup_under_test",
                                                  folder / "sglang_startup.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    plain = SimpleNamespace()                                   # no attribute at all
    keeps = SimpleNamespace(load_lm_head_from_target=False)     # declares its own head
    assert script.shared_from_target(plain, "EAGLE3") == ("model.embed_tokens", "lm_head")
    assert script.shared_from_target(keeps, "EAGLE3") == ("model.embed_tokens",)

    names = ("model.embed_tokens.weight", "lm_head.weight", "model.fc.weight")
    params = {n: SimpleNamespace(numel=lambda: 16) for n in names}
    model = SimpleNamespace(named_parameters=lambda: list(params.items()))
    recorder = script.Recorder()
    recorder.install(model, lambda param, tensor: None)
    loaded = [("model.fc.weight", SimpleNamespace(dtype="bfloat16", shape=(16,)))]
    for name, tensor in recorder.wrap_iterator(loaded):
        params[name].weight_loader(params[name], tensor)
    report = recorder.result(model, script.shared_from_target(plain, "EAGLE3"))
    verdict = DryRunVerdict.of({"verdict": "accepted", "runtime": "sglang",
                                "version": "0.5.23", "draft_class": "LlamaForCausalLMEagle3",
                                "weights": report}, 1.0)
    assert report["unfilled"] == [] and not verdict.refused, verdict


@pytest.mark.parametrize("release", [None, "sglang==0.5.23"])
def test_a_config_files_false_store_true_flag_is_left_unset(tmp_path, release):
    """A `--config` YAML key that is a store-true flag set to `false` adds nothing to the
    line, as SGLang's config merger does (sglang==0.5.23 utils/server_args_config_parser.py
    `_add_boolean_arg`: value False -> skip): `disable-radix-cache: false` leaves the radix
    cache on, so DL018 still speaks for a hybrid target on 0.5.10-0.5.13; `true` disables
    it. Read with the gate's own lists and with the release's grammar alike. Mutation
    caught (round 2026-12-05f, M03): the `false` value not skipped, so the file added
    `--disable-radix-cache False` and the flag read as given (the radix cache off)."""
    from drafter_lint import runtimes
    from drafter_lint.gate import parse

    config = tmp_path / "sglang.yaml"
    line = [sys.executable, "-m", "sglang.launch_server", "--config", str(config)]
    asked = runtimes.parse(release) if release else None
    for written, disabled in (("false", False), ("true", True)):
        config.write_text("model-path: target\nspeculative-algorithm: DFLASH\n"
                          "speculative-draft-model-path: drafter\n"
                          f"disable-radix-cache: {written}\n")
        launch = parse(line, inherited={}, release=asked)
        assert (launch.target, launch.draft) == ("target", "drafter"), launch
        assert launch.radix_cache_disabled is disabled, (written, launch)


def test_the_servers_hub_cache_follows_xdg_cache_home():
    """The hub cache the server's process uses is huggingface_hub's: HF_HUB_CACHE, else
    HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub; the
    gate resolves the launch's models there (`server_hub`). Mutation caught (round
    2026-12-05f, M04): XDG_CACHE_HOME not read, so a server whose environment sets it was
    looked up in ~/.cache/huggingface/hub, where its copy of the model is not."""
    from drafter_lint.gate import ServerContext, server_cache, server_hub

    home = {"HOME": "/home/u"}
    assert server_cache(home) == "/home/u/.cache/huggingface/hub"
    assert server_cache({**home, "XDG_CACHE_HOME": "/var/cache/u"}) == \
        "/var/cache/u/huggingface/hub"
    assert server_cache({**home, "XDG_CACHE_HOME": "/var/cache/u", "HF_HOME": "/hf"}) == \
        "/hf/hub"
    server = ServerContext(env={**home, "XDG_CACHE_HOME": "/var/cache/u"}, env_cleared=True)
    with server_hub(server):
        assert os.environ["HF_HUB_CACHE"] == "/var/cache/u/huggingface/hub"


def test_hf_overrides_of_a_nested_config_are_laid_over_it_key_by_key():
    """vLLM applies `--hf-overrides` to a nested `*_config` object key by key and replaces
    any other key (vllm==0.33.0 config/model.py:555-570): `{"text_config":
    {"max_position_embeddings": N}}` lengthens a Qwen3-VL target and keeps its depth,
    width and vocabulary, which the taps and vocabulary checks read. Mutation caught
    (round 2026-12-05f, M17): the nested object replaced whole, so the overridden target
    had no hidden_size, num_hidden_layers or vocab_size and those checks went quiet."""
    from drafter_lint.target import overridden, target_of

    whole = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
             "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096,
                             "num_hidden_layers": 36, "vocab_size": 151936,
                             "max_position_embeddings": 262144},
             "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    target = target_of(whole, "Qwen/Qwen3-VL-8B-Instruct-FP8")
    longer = overridden(target, {"text_config": {"max_position_embeddings": 1048576}})
    assert (longer.hidden_size, longer.num_hidden_layers, longer.vocab_size) == \
        (4096, 36, 151936)
    assert longer.config["max_position_embeddings"] == 1048576
    # quantization_config is no nested model config: replaced whole, as vLLM does
    other = overridden(target, {"quantization_config": {"quant_method": "fp8"}})
    assert dict(other.whole["quantization_config"]) == {"quant_method": "fp8"}


def test_the_vllm_dry_run_gives_a_validation_errors_own_words():
    """The vLLM dry run's `message` (dryrun/vllm_startup.py) reports a pydantic validation
    error as the check's own sentence, without pydantic's wrapping (the model's name, the
    `[type=..., input_value=...]` tail, the errors.pydantic.dev link): that is the line
    LCH106 shows for a refused launch. Another error's text is kept, on one line. Mutation
    caught (round 2026-12-05f, M20): the extraction dropped, so the refusal quoted the
    whole pydantic dump (cut at 500 characters)."""
    import importlib.util

    import drafter_lint

    folder = Path(drafter_lint.__file__).parent / "dryrun"
    found = importlib.util.spec_from_file_location("vllm_startup_message_under_test",
                                                   folder / "vllm_startup.py")
    script = importlib.util.module_from_spec(found)
    with mock.patch.object(sys, "path", [str(folder), *sys.path]), \
            mock.patch.dict(sys.modules):
        for name in ("verdict", "weights"):
            sys.modules.pop(name, None)
        found.loader.exec_module(script)
    raised = ValueError(
        "1 validation error for SpeculativeConfig\n  Value error, num_speculative_tokens 16 "
        "is more than the 15 draft slots of block_size 16 [type=value_error, "
        "input_value=ArgsKwargs((), {'model': 'drafter'}), input_type=ArgsKwargs]\n"
        "    For further information visit https://errors.pydantic.dev/2.11/v/value_error")
    assert script.message(raised) == \
        "num_speculative_tokens 16 is more than the 15 draft slots of block_size 16"
    assert script.message(RuntimeError("the draft\nhas no fc")) == "the draft has no fc"


@pytest.mark.parametrize("home", ["common", "launchers", "openai"])
def test_the_vllm_dry_run_finds_the_parser_where_each_release_keeps_it(home):
    """vLLM moved its server argument parser twice: entrypoints/openai/cli_args.py, then
    entrypoints/launchers/cli_args.py (vllm==0.29.0-0.32.0), then entrypoints/common/
    (0.33.0 on). The dry run finds it in each. Mutation caught: the launchers home dropped
    (with vLLM 0.29-0.32 installed every launch was refused: "No module named
    'vllm.entrypoints.openai.cli_args'"; the oracle-lane LD101 test found it at 0.32.0)."""
    import importlib.util
    import types

    import drafter_lint

    folder = Path(drafter_lint.__file__).parent / "dryrun"
    found = importlib.util.spec_from_file_location("vllm_startup_parser_under_test",
                                                   folder / "vllm_startup.py")
    script = importlib.util.module_from_spec(found)
    parser = object()
    names = ["vllm", "vllm.entrypoints", f"vllm.entrypoints.{home}",
             f"vllm.entrypoints.{home}.cli_args"]
    fakes = {n: types.ModuleType(n) for n in names}
    fakes[names[-1]].make_arg_parser = parser
    for parent, child in zip(names, names[1:]):
        fakes[parent].__path__ = []
    with mock.patch.object(sys, "path", [str(folder), *sys.path]), \
            mock.patch.dict(sys.modules, fakes):
        for name in ("verdict", "weights"):
            sys.modules.pop(name, None)
        found.loader.exec_module(script)
        assert script._make_arg_parser() is parser
