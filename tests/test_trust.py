"""Guarantees: hostile inputs never crash a reader, nothing from the checkpoint runs,
crashes mid-write never leave a partial file, resources stay bounded, tokens stay secret.

The property-based suites run DRAFTER_LINT_FUZZ_EXAMPLES examples per reader (10,000 by
default, as in CI).
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import random
import resource
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from drafter_lint.rules import RULES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sparse import FIXTURES, write_safetensors

from drafter_lint.fix.write import backups_of

from drafter_lint.checkpoint import read_checkpoint
from drafter_lint.engine import lint
from drafter_lint.options import Options

# The quick lane replays 100 fixed examples per reader; the slow lane (`pytest -m slow`,
# which CI runs) 10,000 from a random seed per run, printed with any failure
# (--hypothesis-seed=N replays it).
SLOW_LANE = os.environ.get("DRAFTER_LINT_LANE") == "slow"
EXAMPLES = int(os.environ.get("DRAFTER_LINT_FUZZ_EXAMPLES", "10000" if SLOW_LANE else "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not SLOW_LANE,
                print_blob=True, suppress_health_check=list(HealthCheck))
TINY = FIXTURES / "tiny-qwen3.6"
BASE_CONFIG = json.loads((TINY / "drafter" / "config.json").read_text())
BASE_HEADER = (TINY / "drafter" / "model.safetensors").read_bytes()
RULES_NO_TF = {c: r for c, r in RULES.items() if not c.startswith("TF")}


def lint_folder(folder: Path):
    """Read and lint; every outcome must be findings, each a single line."""
    checkpoint = read_checkpoint(folder, "fuzz")
    result = lint(checkpoint, Options(rules=RULES_NO_TF))
    for finding in result.findings:
        assert finding.message and "\n" not in finding.message, finding
    return result


MEMORY_BUDGET = 4 << 30   # address space a fuzz test may add (it needs well under 1 GiB)


@contextlib.contextmanager
def capped_memory(budget: int = MEMORY_BUDGET):
    """Run with at most `budget` more bytes of address space than the process has now:
    unbounded allocation becomes a MemoryError. Relative to the current size, so a large
    test process (threads, imported libraries) is not itself over the cap."""
    page = os.sysconf("SC_PAGE_SIZE")
    try:
        used = int(Path("/proc/self/statm").read_text().split()[0]) * page
    except (OSError, ValueError, IndexError):
        used = 2 << 30
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = used + budget
    resource.setrlimit(resource.RLIMIT_AS,
                       (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.fixture(autouse=True)
def bounded_memory(request):
    """Fuzz tests run under the cap: an input that makes a reader or a rule allocate
    without bound then fails as a MemoryError, with its example printed, instead of the
    machine's OOM killer ending the whole run (a CI run was once killed at 24 GB)."""
    if request.node.get_closest_marker("fuzz") is None:
        yield
        return
    with capped_memory():
        yield


@pytest.mark.parametrize("key", ["num_hidden_layers", "num_target_layers",
                                 "target_num_hidden_layers", "mtp_num_hidden_layers"])
def test_a_hostile_layer_count_is_a_finding_not_an_allocation(tmp_path, key):
    """Mutation caught: a rule that walks `range(n)` or builds `[x] * n` from a config
    count (DF126 once built a 10**12-entry list and the CI run died of OOM)."""
    config = dict(BASE_CONFIG, **{key: 10**12})
    folder = tmp_path / "drafter"
    folder.mkdir()
    fresh(folder, config=json.dumps(config).encode())
    with capped_memory(1 << 30):   # 1 GiB more than the process has
        started = time.monotonic()
        result = lint_folder(folder)
        assert time.monotonic() - started < 20
    if key != "mtp_num_hidden_layers":   # not a DFlash schema field
        assert any(f.rule == "DL008" and "4096" in f.message for f in result.findings), \
            [(f.rule, f.message) for f in result.findings]


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def fresh(folder: Path, config: bytes | None = None, weights: bytes | None = None) -> Path:
    for child in folder.iterdir():
        child.unlink()
    (folder / "config.json").write_bytes(config if config is not None
                                         else json.dumps(BASE_CONFIG).encode())
    (folder / "model.safetensors").write_bytes(weights if weights is not None else BASE_HEADER)
    return folder


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=5),
    max_leaves=12)
CONFIG_KEYS = sorted(BASE_CONFIG) + ["eagle_aux_hidden_state_layer_ids", "draft_vocab_size",
                                     "speculators_model_type", "speculators_config",
                                     "transformer_layer_config", "num_nextn_predict_layers",
                                     "medusa_num_heads", "text_config", "target_hidden_size"]


@st.composite
def mutated_configs(draw):
    config = json.loads(json.dumps(BASE_CONFIG))
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(CONFIG_KEYS))
        if draw(st.booleans()) and key in config:
            del config[key]
        else:
            config[key] = draw(json_values)
    if draw(st.booleans()):
        config["dflash_config"] = {"mask_token_id": draw(json_values),
                                   "target_layer_ids": draw(json_values)}
    return json.dumps(config).encode()


@pytest.mark.fuzz
@FUZZ
@given(st.one_of(st.binary(max_size=300), mutated_configs(),
                 json_values.map(lambda v: json.dumps(v).encode())))
def test_config_reader_never_crashes(fuzz_dir, data):
    lint_folder(fresh(fuzz_dir, config=data))


@st.composite
def safetensors_files(draw):
    if draw(st.integers(0, 4)) == 0:
        return draw(st.binary(max_size=200))
    tensors = {}
    for i in range(draw(st.integers(0, 4))):
        tensors[draw(st.sampled_from(["fc.weight", "norm.weight", f"layers.{i}.x", "d2t",
                                      "__metadata__"]))] = {
            "dtype": draw(st.sampled_from(["F16", "BF16", "I64", "F4", "XX", 7])),
            "shape": draw(st.lists(st.integers(-3, 2**40) | st.floats(0, 4) | st.text(max_size=2),
                                   max_size=3)),
            "data_offsets": draw(st.lists(st.integers(-10, 2**63) | st.none(), max_size=3)),
        }
    header = json.dumps(tensors).encode()
    if draw(st.booleans()):
        header = draw(json_values.map(lambda v: json.dumps(v).encode()))
    length = draw(st.sampled_from([len(header), len(header) + 1, 2**62, 2**64 - 1, 0,
                                   max(len(header) - 3, 0)]))
    data = b"\0" * draw(st.integers(0, 64))
    return struct.pack("<Q", length) + header + data


@pytest.mark.fuzz
@FUZZ
@given(safetensors_files())
def test_safetensors_reader_never_crashes(fuzz_dir, data):
    result = lint_folder(fresh(fuzz_dir, weights=data))
    problems = [f for f in result.findings if f.rule == "DL004"]
    assert all(f.file == "model.safetensors" for f in problems)


@st.composite
def index_files(draw):
    if draw(st.integers(0, 5)) == 0:
        return draw(st.binary(max_size=200))
    weight_map = {draw(st.text(max_size=10)): draw(
        st.sampled_from(["model.safetensors", "../x.safetensors", "/etc/passwd", "",
                         "missing.safetensors", "a/../../b", "model.safetensors\0"])
        | json_values) for _ in range(draw(st.integers(0, 5)))}
    document = {"metadata": draw(json_values), "weight_map": weight_map}
    if draw(st.integers(0, 5)) == 0:
        document = draw(json_values)
    return json.dumps(document).encode()


@pytest.mark.fuzz
@FUZZ
@given(index_files())
def test_index_reader_never_crashes(fuzz_dir, data):
    folder = fresh(fuzz_dir)
    (folder / "model.safetensors.index.json").write_bytes(data)
    lint_folder(folder)


@st.composite
def tokenizer_files(draw):
    if draw(st.integers(0, 5)) == 0:
        return draw(st.binary(max_size=200))
    vocab = draw(st.dictionaries(st.text(max_size=5), st.integers(-5, 300000) | json_values,
                                 max_size=6) | json_values)
    added = draw(st.lists(st.fixed_dictionaries({"id": st.integers(-5, 300000) | json_values,
                                                 "content": json_values,
                                                 "special": json_values}), max_size=4)
                 | json_values)
    return json.dumps({"model": {"vocab": vocab}, "added_tokens": added}).encode()


@pytest.mark.fuzz
@FUZZ
@given(tokenizer_files(), st.integers(-1, 300000))
def test_tokenizer_reader_never_crashes(fuzz_dir, data, mask):
    config = dict(BASE_CONFIG, dflash_config={"mask_token_id": mask,
                                              "target_layer_ids": [1, 6, 11, 16, 21]})
    folder = fresh(fuzz_dir, config=json.dumps(config).encode())
    (folder / "tokenizer.json").write_bytes(data)
    lint_folder(folder)


# --- nothing from the checkpoint runs ------------------------------------------------------


class Sentinel:
    """Unpickling this object creates the sentinel file."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "unpickled"))


def test_no_checkpoint_code_runs_in_any_command(tmp_path, tiny):
    sentinel = tmp_path / "SENTINEL"
    drafter = tiny / "drafter-guessed"
    code = f"open({str(sentinel)!r}, 'w').write('imported')\nclass X: pass\n"
    for module in ("dflash.py", "configuration_dflash.py", "__init__.py"):
        (drafter / module).write_text(code)
    for blob in ("pytorch_model.bin", "mask_embedding.pt", "training_args.bin"):
        (drafter / blob).write_bytes(pickle.dumps(Sentinel(str(sentinel))))
    config = json.loads((drafter / "config.json").read_text())
    config["auto_map"] = {"AutoConfig": "configuration_dflash.X", "AutoModel": "dflash.X"}
    (drafter / "config.json").write_text(json.dumps(config, indent=2))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "vllm").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", PYTHONPATH=str(drafter))
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    spec = json.dumps({"method": "dflash", "model": str(drafter), "num_speculative_tokens": 15})
    commands = {
        "check": ["check", str(drafter), "--target", str(tiny / "target"), "--no-cache"],
        "fix": ["fix", str(drafter), "--unsafe-fixes"],
        "explain": ["explain", "DF114"],
        "inspect": ["inspect", str(drafter), "--target", str(tiny / "target")],
        "gate": ["gate", "--fail-on", "info", "--", "vllm", "serve", str(tiny / "target"),
                 "--speculative-config", spec],
    }
    for name, command in commands.items():
        run = subprocess.run([exe, *command], env=env, capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        assert "Traceback" not in run.stderr, run.stderr
        assert not sentinel.exists(), f"checkpoint code ran during {name}"


# --- crash safety ---------------------------------------------------------------------------


@pytest.mark.slow
def test_200_sigkills_leave_no_partial_file(tmp_path):
    """Two workers, 100 trials each: `fix` killed at a random moment, every time config.json
    is the old or the new bytes, backups are whole, and the next fix gets the lock."""
    reference = tmp_path / "published"
    shutil.copytree(TINY / "drafter", reference)
    old = (TINY / "drafter-guessed" / "config.json").read_bytes()
    new_value = json.loads((reference / "config.json").read_text())
    outcomes = {"old": 0, "new": 0}
    errors: list[str] = []

    def worker(index: int) -> None:
        folder = tmp_path / f"w{index}"
        shutil.copytree(TINY / "drafter-guessed", folder)
        command = [sys.executable, "-m", "drafter_lint", "fix", str(folder), "--reference",
                   str(reference), "--target", str(TINY / "target")]
        durations = []
        for _ in range(2):
            (folder / "config.json").write_bytes(old)
            started = time.monotonic()
            subprocess.run(command, capture_output=True, timeout=120, cwd=tmp_path)
            durations.append(time.monotonic() - started)
        new = (folder / "config.json").read_bytes()
        if json.loads(new) != new_value:
            errors.append("calibration run did not fix")
            return
        rng = random.Random(index)
        for _ in range(100):
            (folder / "config.json").write_bytes(old)
            for backup in backups_of(folder / "config.json"):
                backup.unlink()
            process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.2, 1.0) * min(durations))
            process.send_signal(signal.SIGKILL)
            process.wait()
            data = (folder / "config.json").read_bytes()
            if data not in (old, new):
                errors.append(f"partial config.json: {data[:60]!r}")
            outcomes["old" if data == old else "new"] += 1
            if any(b.read_bytes() != old for b in backups_of(folder / "config.json")):
                errors.append("a partial backup")
        (folder / "config.json").write_bytes(old)
        final = subprocess.run(command, capture_output=True, timeout=120, cwd=tmp_path)
        if final.returncode != 0 or (folder / "config.json").read_bytes() != new:
            errors.append(f"fix after the kills failed: {final.stderr[-200:]!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert outcomes["old"] + outcomes["new"] == 200
    assert outcomes["old"] and outcomes["new"], outcomes
    print(f"200 SIGKILL trials: {outcomes}, 0 partial files")


# --- resource bounds ------------------------------------------------------------------------

MEASURE = """
import sys, time
from drafter_lint.cli import main
sys.argv = ["drafter-lint", "check", *sys.argv[1:], "--format", "json", "-o", "/dev/null"]
started = time.monotonic()
code = main()
peak = next(int(line.split()[1]) for line in open("/proc/self/status")
            if line.startswith("VmHWM"))   # this process image's peak RSS, in kB
print(time.monotonic() - started, peak, code)
"""


def measure(folder: Path, *args):
    run = subprocess.run([sys.executable, "-c", MEASURE, str(folder), *args],
                         capture_output=True, text=True, timeout=120, cwd=folder.parent)
    seconds, rss_kb, code = run.stdout.split()
    return float(seconds), int(rss_kb) / 1024, int(code), run.stderr


# Wall-clock goals are the slow lane's (the `time` variant); the quick lane holds memory
# and the outcome, which do not depend on how loaded the machine is.
TIMED = pytest.mark.parametrize("timed", [False, pytest.param(True, marks=pytest.mark.slow)],
                                ids=["bounds", "time"])


@TIMED
def test_header_length_2_pow_62(tmp_path, timed):
    folder = tmp_path / "ckpt"
    shutil.copytree(TINY / "drafter", folder)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", 2**62) + b"{}")
    seconds, rss, code, err = measure(folder, "--ignore", "TF")
    assert code == 1 and rss < 300 and (not timed or seconds < 2), (seconds, rss, err)


@TIMED
def test_100000_tensors(tmp_path, timed):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(BASE_CONFIG))
    write_safetensors(folder / "model.safetensors",
                      [[f"extra.{i}.weight", "F16", [8, 8]] for i in range(100_000)])
    seconds, rss, code, err = measure(folder, "--ignore", "TF")
    assert code == 1 and rss < 300 and (not timed or seconds < 2), (seconds, rss, err)


@TIMED
def test_50_mb_config(tmp_path, timed):
    folder = tmp_path / "ckpt"
    shutil.copytree(TINY / "drafter", folder)
    with open(folder / "config.json", "w") as handle:
        handle.write('{"pad": "' + "x" * (50 * 1024 * 1024) + '"}')
    seconds, rss, code, err = measure(folder)
    assert code == 1 and rss < 300 and (not timed or seconds < 2), (seconds, rss, err)


@pytest.mark.parametrize("shape", ["array", "object", "nested"])
@TIMED
def test_worst_config_under_the_cap_is_bounded(tmp_path, shape, timed):
    """Just under the 4 MiB cap: a 1.3M-element tap list, 200k keys, 190-deep nesting.
    Mutation caught: a pure-Python positional parse of large files (8 s, 425 MB before) or
    a rule walking the whole document per element."""
    folder = tmp_path / "ckpt"
    shutil.copytree(TINY / "drafter", folder)
    config = json.loads((folder / "config.json").read_text())
    if shape == "array":
        config["dflash_config"]["target_layer_ids"] = [0] * 1_300_000
    elif shape == "object":
        config["extra"] = {f"k{i}": i for i in range(200_000)}
    else:
        deep: dict = {}
        for _ in range(190):
            deep = {"d": deep}
        config["extra"] = deep
    text = json.dumps(config)
    assert len(text) < 4 * 1024 * 1024
    (folder / "config.json").write_text(text)
    seconds, rss, code, err = measure(folder, "--ignore", "TF")
    assert code in (0, 1) and rss < 200 and (not timed or seconds < 3), (seconds, rss, err)


def test_findings_per_rule_are_bounded(cli, tmp_path):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(BASE_CONFIG))
    write_safetensors(folder / "model.safetensors",
                      [[f"extra.{i}.weight", "F16", [2]] for i in range(500)])
    found = cli("check", folder, "--format", "json", "--select", "DF132").json()
    rows = found["results"][0]["findings"]
    summary = [r for r in rows if "more DF132 findings" in r["message"]]
    assert len(rows) == 51 and len(summary) == 1 and summary[0]["message"].startswith("450 more")


# --- secrets --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "github"])
def test_token_never_printed(cli, hub, tiny, fmt):
    token = "hf_SECRETtokenSECRETtokenSECRET42"
    good = cli("check", tiny / "drafter", "--from-hub", "z-lab/Qwen3.6-27B-DFlash",
               "--format", fmt, env={"HF_TOKEN": token})
    hub.behaviour["z-lab/Qwen3.6-27B-DFlash"] = "gated"
    bad = cli("check", tiny / "drafter", "--reference", "z-lab/Qwen3.6-27B-DFlash@main",
              "--format", fmt, "--no-cache", env={"HF_TOKEN": token})
    assert bad.code == 2 and good.code in (0, 1)
    for run in (good, bad):
        assert token not in run.out + run.err


# --- special files: never a hang ------------------------------------------------------------


SLOW = pytest.mark.slow     # the rest of a parametrized guarantee: the slow lane runs it


@pytest.mark.parametrize("where", ["config.json", pytest.param("model.safetensors", marks=SLOW),
                                   "tokenizer.json", pytest.param("reference", marks=SLOW),
                                   "target"])
def test_a_fifo_is_an_instant_error_not_a_hang(tmp_path, where):
    """A FIFO named like a checkpoint file blocks open() forever unless opened O_NONBLOCK
    and checked with fstat. Mutation caught: dropping O_NONBLOCK or the S_ISREG check in
    drafter_lint/bounded.py or safetensors_header.py (the run times out)."""
    drafter = tmp_path / "drafter"
    shutil.copytree(TINY / "drafter", drafter)
    other = tmp_path / "other"
    other.mkdir()
    command = [sys.executable, "-m", "drafter_lint", "check", str(drafter)]
    if where in ("reference", "target"):
        os.mkfifo(other / "config.json")
        command += [f"--{where}", str(other)]
    else:
        (drafter / where).unlink(missing_ok=True)
        os.mkfifo(drafter / where)
    run = subprocess.run(command, capture_output=True, text=True, timeout=20, cwd=tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    if where in ("reference", "target"):
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    else:   # a finding: DL001 / DL004 errors, DL006 a warning
        assert "not a regular file" in run.stdout and run.returncode == (
            0 if where == "tokenizer.json" else 1)


# --- terminal escapes from paths and values ---------------------------------------------------


@pytest.mark.parametrize("command", [
    ["check"], pytest.param(["check", "--format", "concise"], marks=SLOW),
    pytest.param(["check", "--format", "github"], marks=SLOW), ["inspect"],
    ["fix", "--diff", "--unsafe-fixes"]])
def test_hostile_path_never_reaches_the_terminal_raw(tmp_path, command):
    """A folder named with ESC/OSC/BEL, C1 and bidi characters (a cloned repo can carry
    one) is printed escaped in every format. Mutation caught: a renderer printing
    result.path or a diff line without findings.one_line."""
    hostile = "m\x1b]0;owned\x07\x9b31m\u202e"
    drafter = tmp_path / hostile
    shutil.copytree(TINY / "drafter-guessed", drafter)
    config = json.loads((drafter / "config.json").read_text())
    config["description"] = "a\u202eb\x9bc"
    (drafter / "config.json").write_text(json.dumps(config, indent=2))
    run = subprocess.run([sys.executable, "-m", "drafter_lint", *command, str(drafter),
                          "--target", str(TINY / "target")],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    out = run.stdout + run.stderr
    assert "Traceback" not in out and out.strip()
    for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert raw not in out, (command, repr(out[:300]))


# --- crash safety, deterministically: a crash at every step of the write ---------------------

CRASH_CHILD = textwrap.dedent("""
    import builtins, os, sys
    crash_at, config, reference = int(sys.argv[1]), os.path.realpath(sys.argv[2]), sys.argv[3]
    steps = [0]
    def step(function):
        def wrapped(*args, **kwargs):
            steps[0] += 1
            if steps[0] == crash_at:
                os._exit(137)                      # as SIGKILL: no cleanup runs
            return function(*args, **kwargs)
        return wrapped
    def in_place(path, flags_or_mode):
        try:
            same = os.path.realpath(path) == config
        except (TypeError, ValueError):
            return
        writes = (isinstance(flags_or_mode, str) and set(flags_or_mode) & set("wax+")) or (
            isinstance(flags_or_mode, int) and flags_or_mode & (os.O_WRONLY | os.O_RDWR))
        if same and writes:
            sys.stderr.write("IN-PLACE WRITE\\n")
            os._exit(3)
    real_open, real_os_open = builtins.open, os.open
    def guarded_open(file, mode="r", *args, **kwargs):
        in_place(file, mode)
        return real_open(file, mode, *args, **kwargs)
    def guarded_os_open(path, flags, *args, **kwargs):
        in_place(path, flags)
        return real_os_open(path, flags, *args, **kwargs)
    builtins.open = guarded_open
    os.open = step(guarded_os_open)
    for name in ("fsync", "replace", "rename", "chmod", "close", "unlink", "link"):
        setattr(os, name, step(getattr(os, name)))
    from drafter_lint import cli
    sys.argv = ["drafter-lint", "fix", os.path.dirname(config), "--reference", reference]
    code = cli.main()
    sys.stderr.write(f"STEPS {steps[0]}\\n")
    sys.exit(code)
""")


@pytest.mark.parametrize("stride", [16, pytest.param(1, marks=pytest.mark.slow)],
                         ids=["every-sixteenth-step", "every-step"])
def test_a_crash_at_every_write_step_leaves_old_or_new_bytes(tmp_path, stride):
    """`fix` is killed at its 1st, 2nd, ... file-system step (open, fsync, chmod, replace,
    close, unlink, link) until a run finishes: config.json is always the old or the new
    bytes, every backup is whole, and config.json itself is never opened for writing.
    Mutations caught, deterministically in the slow lane (every step; the quick lane takes
    every sixteenth): an in-place write (open(config, "w")) and a rename before the data is
    synced or complete."""
    reference = tmp_path / "published"
    shutil.copytree(TINY / "drafter", reference)
    folder = tmp_path / "drafter"
    shutil.copytree(TINY / "drafter-guessed", folder)
    old = (folder / "config.json").read_bytes()
    env = dict(os.environ, DRAFTER_LINT_CACHE_DIR=str(tmp_path / "cache"))
    seen, crash_at = set(), 1
    while True:
        (folder / "config.json").write_bytes(old)
        run = subprocess.run([sys.executable, "-c", CRASH_CHILD, str(crash_at),
                              str(folder / "config.json"), str(reference)],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
        assert "IN-PLACE WRITE" not in run.stderr
        data = (folder / "config.json").read_bytes()
        new = (reference / "config.json").read_bytes()
        assert data == old or json.loads(data) == json.loads(new), (crash_at, data[:80])
        seen.add("old" if data == old else "new")
        for backup in backups_of(folder / "config.json"):
            assert backup.read_bytes() == old
        if run.returncode != 137:
            assert run.returncode == 0, run.stderr
            break
        crash_at += stride
        assert crash_at < 200
    assert seen == {"old", "new"} and crash_at > 5     # crashes landed on both sides


def test_errors_are_plain_sentences(cli, tmp_path):
    """Mutation caught: raw Python text in messages ("[Errno 2] ...", "maximum recursion
    depth exceeded ...") instead of findings.describe."""
    drafter = tmp_path / "drafter"
    shutil.copytree(TINY / "drafter", drafter)
    (drafter / "tokenizer.json").write_text("[" * 100_000 + "]" * 100_000)
    run = cli("check", drafter)
    dl006 = [line for line in run.out.splitlines() if "DL006" in line]
    assert dl006 and "nested too deeply" in dl006[0] and "recursion" not in run.out
    os.mkfifo(tmp_path / "fifo.json")
    run = cli("check", drafter, "--reference", tmp_path / "fifo.json")
    assert run.code == 2 and "[Errno" not in run.err and "not a regular file" in run.err
