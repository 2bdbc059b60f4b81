"""`drafter-lint gate -- <launch command>`: read a vLLM or SGLang launch line the way the
server does, lint its drafter against its target and the launch settings, then `exec` the
command (or exit 1 without starting anything)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from drafter_lint.bounded import read_regular
from drafter_lint.checkpoint import CheckpointNotFound, find_root
from drafter_lint.errors import GateError
from drafter_lint.findings import describe
from drafter_lint.hub import HubError, _settings, fetch, parse_repo_arg
from drafter_lint.remote import materialize
from drafter_lint.target import TargetError, resolve_target


@dataclass
class Launch:
    runtime: str                       # "vllm" | "sglang"
    argv: list[str]                    # the line to exec (without its VAR=value prefix)
    env: dict[str, str] = field(default_factory=dict)   # what the server's env adds
    exec_env: dict[str, str] = field(default_factory=dict)   # the prefix, for the exec
    target: str | None = None
    draft: str | None = None
    method: str | None = None
    tokens: int | None = None          # vLLM num_speculative_tokens / SGLang draft tokens
    draftless: bool = False            # ngram/suffix: no draft checkpoint to lint
    server_args: list[str] = field(default_factory=list)   # what the server's parser reads
    command: list[str] = field(default_factory=list)   # the server line behind launchers
    env_cleared: bool = False          # `env -i`: the server sees only `env`
    speculators_direct: bool = False   # `vllm serve SPECULATOR`: it names its verifier
    target_revision: str | None = None  # the hub revisions the server loads (else main)
    draft_revision: str | None = None
    release: str | None = None         # "vllm==0.33.0": the release installed behind it
    dry_run: dict | None = None        # the runtime's own start-up verdict (gate)

    def facts(self) -> dict:
        """The launch facts rules read (`facts.launch`)."""
        out = {"runtime": self.runtime, "method": self.method, "env": self.env,
               "env_cleared": self.env_cleared, "speculators_direct": self.speculators_direct,
               "draft": self.draft, "release": self.release, "dry_run": self.dry_run}
        if self.runtime == "vllm" and self.tokens:
            out["num_speculative_tokens"] = self.tokens
        if self.runtime == "sglang" and self.tokens:
            out["num_draft_tokens"] = self.tokens
        return out


SGLANG_OPTIONS = {  # option -> field; argparse also accepts unambiguous prefixes
    "--model-path": "target", "--model": "target",
    "--speculative-algorithm": "method", "--speculative-draft-model-path": "draft",
    "--speculative-num-draft-tokens": "tokens", "--revision": "target_revision",
    "--speculative-draft-model-revision": "draft_revision",
}


def _split_env(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """The shell's `VAR=value ...` prefix and the rest of the line (`env ...` is a
    launcher: it stays in the line, see `_unwrap`)."""
    env, rest = {}, list(argv)
    while rest and "=" in rest[0] and not rest[0].startswith("-") and \
            rest[0].split("=", 1)[0].isidentifier():
        key, value = rest.pop(0).split("=", 1)
        env[key] = value
    return env, rest


# Store-true flags of `vllm serve` that take no value (vllm==0.33.0 engine/arg_utils.py,
# entrypoints/openai/cli_args.py): a flag followed by the model must not swallow it.
VLLM_BOOLEANS = frozenset({
    "--trust-remote-code", "--enforce-eager", "--enable-prefix-caching",
    "--no-enable-prefix-caching", "--enable-chunked-prefill", "--no-enable-chunked-prefill",
    "--disable-log-stats", "--disable-log-requests", "--enable-log-requests",
    "--enable-auto-tool-choice", "--enable-expert-parallel", "--disable-custom-all-reduce",
    "--enable-lora", "--async-scheduling", "--no-async-scheduling", "--headless",
    "--disable-sliding-window", "--skip-tokenizer-init", "--enable-sleep-mode",
    "--disable-cascade-attn", "--enable-eplb", "--enable-dbo", "--disable-fastapi-docs",
    "--enable-prompt-tokens-details", "--enable-server-load-tracking",
    "--enable-force-include-usage", "--enable-log-outputs", "--return-tokens-as-token-ids",
    "--disable-frontend-multiprocessing", "--enable-request-id-headers",
    "--disable-uvicorn-access-log", "--enable-reasoning", "--fully-sharded-loras",
    "--enable-mfu-metrics", "--no-trust-remote-code", "--enforce-eager=false",
})
SGLANG_BOOLEANS = frozenset({
    "--trust-remote-code", "--enable-torch-compile", "--disable-radix-cache",
    "--disable-cuda-graph", "--enable-dp-attention", "--enable-metrics",
    "--skip-server-warmup", "--disable-overlap-schedule", "--enable-mixed-chunk",
    "--log-requests", "--disable-custom-all-reduce", "--enable-ep-moe",
})


def _normal(option: str) -> str:
    """argparse spells `--a_b` and `--a-b` alike (vLLM's FlexibleArgumentParser)."""
    head, dot, tail = option.partition(".")
    return head.replace("_", "-") + dot + tail


def _options(args: list[str], booleans: frozenset = frozenset()):
    """(option, value) pairs of `--opt value` and `--opt=value`; positionals as (None, v).
    Known store-true flags never take the next word."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
            if "=" in arg:
                option, value = arg.split("=", 1)
                yield _normal(option), value
            elif _normal(arg) in booleans:
                yield _normal(arg), None
            elif i + 1 < len(args) and not (args[i + 1].startswith("-")
                                            and not _is_number(args[i + 1])):
                yield _normal(arg), args[i + 1]
                i += 1
            else:
                yield _normal(arg), None
        else:
            yield None, arg
        i += 1


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _int(value, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise GateError(f"{what} is {value!r}, not an integer") from None


def _vllm_tokens(value) -> int:
    """`num_speculative_tokens` as vLLM's SpeculativeConfig validates it (pydantic, lax):
    `true` is 1, `2.0` and `"3"` are integers; a fraction, a non-finite number (`1e400`
    reads as infinity) or a count below 1 is refused at start-up ("Input should be
    greater than 0", measured on vllm==0.33.0 with the oracle lane)."""

    number = value
    if isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            raise GateError(f"num_speculative_tokens is {value!r}, not an integer; vLLM "
                            f"refuses it") from None
    if isinstance(number, float):
        if not math.isfinite(number):
            raise GateError(f"num_speculative_tokens is {value!r}, not a finite number; "
                            f"vLLM refuses it") from None
        if not number.is_integer():
            raise GateError(f"num_speculative_tokens is {value!r}, which has a fractional "
                            f"part; vLLM refuses it")
        number = int(number)
    if not isinstance(number, int):
        raise GateError(f"num_speculative_tokens is {value!r}, not an integer; vLLM "
                        f"refuses it")
    if number < 1:
        raise GateError(f"num_speculative_tokens is {value!r}; vLLM requires at least 1 "
                        f"and refuses it at start-up")
    return int(number)


def _speculative_config(value: str) -> dict:
    """vLLM 0.33 parses --speculative-config with json.loads only (arg_utils.py:173-179,
    1864-1866): a file path is refused by the server, so by the gate too."""
    try:
        config = json.loads(value)
    except ValueError:
        hint = " (vLLM takes JSON text, not a file: pass \"$(cat FILE)\")" \
            if Path(value).is_file() else ""
        raise GateError(f"--speculative-config is not JSON{hint}; vLLM refuses it") from None
    if not isinstance(config, dict):
        raise GateError("--speculative-config must be a JSON object")
    return config


# Methods without a draft checkpoint (vllm==0.33.0 config/speculative.py:74-82).
DRAFTLESS = frozenset({"ngram", "ngram_gpu", "suffix", "extract_hidden_states"})


# Launchers that run the command after their own options: how many words each option
# takes (None: a flag). The gate reads the server line behind them and execs the whole
# line unchanged.
WRAPPERS = {
    "nohup": {}, "exec": {}, "setsid": {"-w": None, "--wait": None},
    "numactl": {"-N": 1, "-m": 1, "-C": 1, "-i": 1, "-p": 1, "-l": None, "-a": None,
                "--localalloc": None, "--all": None},
    "taskset": {"-a": None, "--all-tasks": None, "-c": None, "--cpu-list": None},
    "nice": {"-n": 1}, "timeout": {"-s": 1, "-k": 1, "--signal": 1, "--kill-after": 1,
                                   "--preserve-status": None, "--foreground": None, "-v": None},
    "stdbuf": {"-i": 1, "-o": 1, "-e": 1},
}
# `uv run` options that take a value (uv 0.x `uv run --help`)
UV_RUN_VALUES = frozenset({"--with", "--with-editable", "--with-requirements", "--python",
                           "-p", "--project", "--directory", "--env-file", "--index",
                           "--default-index", "--extra", "--group", "--package"})
# the word after these launchers' options that is theirs, not the command's
POSITIONAL = {"taskset": 1, "timeout": 1}


def _unwrap(words: list[str], env: dict[str, str]) -> tuple[list[str], bool]:
    """The server command behind launchers (`nohup`, `exec`, `uv run`, `numactl ...`,
    `taskset ...`, `env [-i] VAR=...`, `timeout`, `nice`, `stdbuf`, `setsid`), with the
    environment changes they make applied to `env`; (command, environment cleared)."""
    cleared = False
    rest = list(words)
    while rest:
        name = os.path.basename(rest[0])
        if name == "env":
            rest = rest[1:]
            while rest and (rest[0].startswith("-") or "=" in rest[0]):
                word = rest.pop(0)
                if word in ("-i", "--ignore-environment", "-"):
                    cleared = True
                    env.clear()
                elif word in ("-u", "--unset") and rest:
                    env.pop(rest.pop(0), None)
                elif word.startswith("--unset="):
                    env.pop(word.split("=", 1)[1], None)
                elif word == "--":
                    break
                elif "=" in word and not word.startswith("-"):
                    key, value = word.split("=", 1)
                    env[key] = value
            continue
        if name == "uv" and len(rest) > 1 and rest[1] == "run":
            rest = rest[2:]
            while rest and rest[0].startswith("-"):
                word = rest.pop(0)
                if word == "--":
                    break
                if word in UV_RUN_VALUES and rest:
                    rest.pop(0)
            continue
        if name in WRAPPERS:
            options, rest = WRAPPERS[name], rest[1:]
            while rest and rest[0].startswith("-") and rest[0] != "--":
                takes = options.get(rest.pop(0))        # `--opt=value` is one word
                if takes:
                    del rest[:takes]
            if rest and rest[0] == "--":
                rest = rest[1:]
            rest = rest[POSITIONAL.get(name, 0):]
            continue
        break
    return rest, cleared


def _python_module(words: list[str]) -> tuple[str | None, int]:
    """`python [-u -O -X opt ...] -m MODULE`: (MODULE, the index after it)."""
    if not os.path.basename(words[0]).startswith("python"):
        return None, 0
    i = 1
    while i < len(words) and words[i].startswith("-") and words[i] != "-m":
        i += 2 if words[i] in ("-X", "-W") else 1
    if i + 1 < len(words) and words[i] == "-m":
        return words[i + 1], i + 2
    return None, 0


def parse(argv: list[str]) -> Launch:
    env, line = _split_env(argv)
    while line and line[0] == "exec":
        line = line[1:]           # the shell's builtin: the gate replaces itself anyway
    if not line:
        raise GateError("no launch command after --")
    seen = dict(env)
    command, cleared = _unwrap(line, seen)
    if not command:
        raise GateError(f"no server command after {' '.join(line[:3])}")
    launch = _parse_command(command, line, seen)
    launch.env_cleared, launch.command, launch.exec_env = cleared, command, env
    return launch


def _parse_command(argv_rest: list[str], line: list[str], env: dict[str, str]) -> Launch:
    """The server line `argv_rest` (after any launcher); `line` is what is exec'd."""
    program = os.path.basename(argv_rest[0])
    module, after = _python_module(argv_rest)
    if program == "vllm" and len(argv_rest) > 1 and argv_rest[1] == "serve":
        return _parse_vllm(line, env, argv_rest[2:], positional_model=True)
    if module == "vllm.entrypoints.cli.main" and len(argv_rest) > after and \
            argv_rest[after] == "serve":
        return _parse_vllm(line, env, argv_rest[after + 1:], positional_model=True)
    if module and module.startswith("vllm.entrypoints"):
        return _parse_vllm(line, env, argv_rest[after:], positional_model=False)
    if module == "sglang.launch_server" or program in ("sglang.launch_server",):
        return _parse_sglang(line, env, argv_rest[after:] if module else argv_rest[1:])
    if program == "sglang" and len(argv_rest) > 1 and argv_rest[1] == "serve":
        return _parse_sglang(line, env, argv_rest[2:])
    raise GateError(f"not a vLLM or SGLang launch command: {' '.join(argv_rest[:3])} "
                    f"(expected `vllm serve ...` or `python -m sglang.launch_server ...`)")


SPEC_FLAGS = {"--spec-method": "method", "--spec-model": "model",
              "--spec-tokens": "num_speculative_tokens"}   # vllm==0.33.0 arg_utils.py:1869


def _with_config_file(args: list[str], booleans: frozenset) -> list[str]:
    """`--config FILE.yaml` expanded the way vLLM's FlexibleArgumentParser and SGLang do:
    each key becomes `--key value` placed before the command line's own arguments, which
    win (vllm==0.33.0 utils/argparse_utils.py:551-553; sglang==0.5.23 server_args.py:
    400-405). Nested values (a speculative_config object) are passed as JSON."""
    out, i = [], 0
    files = []
    while i < len(args):
        if args[i] == "--config" and i + 1 < len(args):
            files.append(args[i + 1])
            i += 2
        elif args[i].startswith("--config="):
            files.append(args[i].split("=", 1)[1])
            i += 1
        else:
            out.append(args[i])
            i += 1
    expanded: list[str] = []
    for name in files:

        try:
            data = yaml.safe_load(read_regular(name, 1 << 20).decode("utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise GateError(f"--config {name}: {describe(exc)}") from None
        if not isinstance(data, dict):
            raise GateError(f"--config {name}: expected a mapping of options")
        for key, value in data.items():
            flag = "--" + str(key).replace("_", "-")
            if value is True and flag in booleans:
                expanded.append(flag)
            elif value is not False and value is not None:
                expanded += [flag, json.dumps(value) if isinstance(value, (dict, list))
                             else str(value)]
    return expanded + out


def _parse_vllm(argv, env, args, positional_model: bool) -> Launch:
    launch = Launch("vllm", argv, env, server_args=(["serve"] if positional_model else [])
                    + list(args))
    config: dict = {}
    for option, value in _options(_with_config_file(args, VLLM_BOOLEANS), VLLM_BOOLEANS):
        if option is None:
            if positional_model and launch.target is None:
                launch.target = value
        elif option == "--model":
            launch.target = value
        elif option == "--revision":
            launch.target_revision = value
        elif option in ("--speculative-config", "-sc"):
            config.update(_speculative_config(value or ""))
        elif option.startswith("--speculative-config."):
            key = option.split(".", 1)[1].replace("-", "_")
            config[key] = json.loads(value) if value and value[:1] in "{[0123456789" \
                else value
        elif option in SPEC_FLAGS:
            key = SPEC_FLAGS[option]
            if key in config:
                raise GateError(f"{option} repeats speculative-config {key}; vLLM refuses it")
            config[key] = value
    method = config.get("method")
    if isinstance(method, str) and method.endswith("_mtp"):
        method = "mtp"                    # every *_mtp alias is mtp (speculative.py:1246)
    launch.method = method
    launch.draft = config.get("model")
    if isinstance(config.get("revision"), str):
        launch.draft_revision = config["revision"]
    elif launch.method == "mtp":
        launch.draft_revision = launch.target_revision   # the target checkpoint itself
    if config.get("num_speculative_tokens") is not None:
        launch.tokens = _vllm_tokens(config["num_speculative_tokens"])
    if launch.method == "mtp" and launch.draft is None:
        launch.draft = launch.target          # MTP heads live in the target checkpoint
    if launch.method in DRAFTLESS or launch.draft == "ngram":
        launch.draftless = True
    return launch


SGLANG_SPECULATIVE = ("--speculative-algorithm", "--speculative-draft-model-path",
                      "--speculative-draft-model-revision", "--speculative-draft-load-format",
                      "--speculative-num-steps", "--speculative-eagle-topk",
                      "--speculative-num-draft-tokens", "--speculative-dflash-block-size",
                      "--speculative-accept-threshold-single",
                      "--speculative-accept-threshold-acc", "--speculative-token-map",
                      "--speculative-attention-mode", "--speculative-draft-model")


def _parse_sglang(argv, env, args) -> Launch:
    """argparse rules (sglang==0.5.23 server_args.py:679, allow_abbrev on): a unique prefix
    of a known option is that option, an ambiguous one is refused."""
    launch = Launch("sglang", argv, env, server_args=list(args))
    known = tuple(dict.fromkeys(tuple(SGLANG_OPTIONS) + SGLANG_SPECULATIVE))
    for option, value in _options(_with_config_file(args, SGLANG_BOOLEANS), SGLANG_BOOLEANS):
        if option is None:
            continue
        exact = [o for o in known if o == option]
        matches = exact or sorted({o for o in known if o.startswith(option)})
        if len(matches) > 1 and option.startswith("--speculative"):
            raise GateError(f"{option} is ambiguous ({', '.join(matches[:4])}, ...); "
                            f"SGLang refuses it")
        if len(matches) != 1:
            continue
        name = SGLANG_OPTIONS.get(matches[0])
        if matches[0] == "--speculative-draft-model":
            name = "draft"
        if matches[0] == "--speculative-dflash-block-size":
            name = "tokens"        # the DFLASH alias of --speculative-num-draft-tokens
        if name == "tokens":
            setattr(launch, name, _int(value, matches[0]))
        elif name:
            setattr(launch, name, value)
    if isinstance(launch.method, str):
        launch.method = launch.method.upper()     # speculative_hook.py:137-143
    if launch.method in ("NEXTN", "EAGLE") and launch.draft is None:
        launch.draft, launch.draft_revision = launch.target, launch.target_revision
    if launch.method in ("NGRAM",):
        launch.draftless = True
    return launch


def resolve_models(launch: Launch, target_arg, offline: bool):
    """(drafter checkpoint folder, Target) named by the launch line (or --target), failing
    closed: a line whose target or drafter cannot be resolved is refused, never linted
    with less."""

    if not (target_arg or launch.target):
        raise GateError("the launch line names no target model (vLLM: the model after "
                        "`serve` or --model; SGLang: --model-path)")
    if not launch.draft:
        raise GateError("the launch line names no draft model (vLLM: --speculative-config "
                        "model; SGLang: --speculative-draft-model-path)")
    draft = resolve(launch.draft, offline, "draft model", headers=True,
                    revision=launch.draft_revision)
    if launch.speculators_direct and not target_arg:
        verifier = _verifier(draft)
        if verifier is None:
            raise GateError(f"{launch.draft} names no verifier (speculators_config.verifier."
                            f"name_or_path), which `vllm serve SPECULATOR` serves")
        launch.target = verifier
    try:
        target = resolve_target(str(target_arg or resolve(
            launch.target, offline, "target model", revision=launch.target_revision)),
            offline)
    except TargetError as exc:
        raise GateError(str(exc)) from None
    try:
        return find_root(draft), target
    except CheckpointNotFound as exc:
        raise GateError(f"draft model: {exc}") from None


def _verifier(folder: Path) -> str | None:
    """`speculators_config.verifier.name_or_path` of the speculators checkpoint `folder`."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
        name = config["speculators_config"]["verifier"]["name_or_path"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return name if isinstance(name, str) and name else None


def speculation(launch: Launch, offline: bool) -> str:
    """What a vLLM line without a speculative config serves: "speculators" when its model
    is a speculators checkpoint (vLLM then serves the verifier it names with it as the
    draft, vllm==0.33.0 transformers_utils/config.py:837-873), else "none"."""
    if launch.runtime != "vllm" or launch.draft or launch.method or not launch.target:
        return "configured"
    try:
        folder = resolve(launch.target, offline, "model", headers=True)
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (GateError, OSError, ValueError):
        return "none"
    return "speculators" if isinstance(config, dict) and \
        isinstance(config.get("speculators_config"), dict) else "none"


def resolve(model: str, offline: bool, what: str, headers: bool = False,
            revision: str | None = None) -> Path:
    """A local folder for `model`: a path, or a hub id (at the `revision` the launch line
    names, else main) from the cache; else, from the hub, its config (a target) or its
    small files and weight headers (a drafter, `headers`: drafter_lint/remote.py), never
    its weights. A revision the hub does not have is refused."""
    path = Path(model).expanduser()
    if path.exists():
        return path

    if parse_repo_arg(model) is None or model.startswith((".", "/", "~")):
        raise GateError(f"{what} {model!r} does not exist")
    pinned = f"{model}@{revision}" if revision else model
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, revision=revision or "main",
                                      local_files_only=True,
                                      cache_dir=_settings()["cache_dir"]))
    except Exception:  # noqa: BLE001 -- not cached: read it from the hub
        pass
    try:
        if headers:
            return materialize(pinned, offline)[0]
        return fetch(pinned, offline=offline).folder
    except HubError as exc:
        raise GateError(f"{what}: {exc}") from None


# --- the runtime behind the launch line ---------------------------------------------------

DRYRUN = Path(__file__).resolve().parent / "dryrun"


def _env(launch: Launch) -> dict[str, str]:
    """The environment the server process sees."""
    return dict(launch.env) if launch.env_cleared else {**os.environ, **launch.env}


def interpreter(launch: Launch) -> str | None:
    """The Python that will run the server: `python -m ...` itself, or the interpreter on
    the `#!` line of the `vllm` / `sglang` console script found on the launch's PATH."""

    command = launch.command or launch.argv
    program = command[0]
    local = Path(".venv") / "bin" / program      # `uv run` uses the project's venv
    found = str(local.resolve()) if "uv" in launch.argv[:1] and local.is_file() else \
        shutil.which(program, path=_env(launch).get("PATH"))
    if found is None:
        return None
    if os.path.basename(program).startswith("python"):
        return found
    try:
        with open(found, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env" and len(words) > 1:
        return shutil.which(words[1], path=_env(launch).get("PATH"))
    return words[0] if words else None


def installed_version(python: str, launch: Launch, timeout: float = 30.0) -> str | None:
    """The version of the runtime's distribution as `python` sees it (its metadata only:
    the runtime is not imported), with the launch line's environment."""

    query = "import importlib.metadata as m, sys; sys.stdout.write(m.version(sys.argv[1]))"
    try:
        done = subprocess.run([python, "-c", query, launch.runtime], env=_env(launch),
                              capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = done.stdout.strip()
    return version if done.returncode == 0 and version else None


def dry_run(python: str, launch: Launch, timeout: float) -> dict:
    """The runtime's own start-up resolution of the launch's arguments, in `python`
    (drafter_lint/dryrun/<runtime>_startup.py): {"verdict": "accepted" | "refused" |
    "unavailable", "message", "where", "seconds", ...}. No weights, no device memory."""

    script = DRYRUN / f"{launch.runtime}_startup.py"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="drafter-lint-dryrun-") as work:
        out = Path(work) / "verdict.json"
        request = json.dumps({"argv": launch.server_args, "init": True, "out": str(out)})
        try:
            subprocess.run([python, str(script), request], env=_env(launch), cwd=os.getcwd(),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"verdict": "unavailable", "seconds": round(time.monotonic() - started, 1),
                    "message": f"no verdict within {timeout:g} s"}
        except OSError as exc:
            return {"verdict": "unavailable", "message": str(exc), "seconds": 0.0}
        try:
            verdict = json.loads(out.read_text())
        except (OSError, ValueError):
            verdict = {"verdict": "unavailable", "message": "the dry run wrote no verdict"}
    verdict["seconds"] = round(time.monotonic() - started, 1)
    return verdict
