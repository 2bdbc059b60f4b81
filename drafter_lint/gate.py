"""`drafter-lint gate -- <launch command>`: read a vLLM or SGLang launch line the way the
server does, lint its drafter against its target and the launch settings, ask the installed
runtime's own start-up (the dry run), and decide (`decide`): the CLI then execs the command
or exits 1 without starting anything."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
import time
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from drafter_lint import pipeline, runtimes
from drafter_lint.bounded import read_regular, read_text
from drafter_lint.checkpoint import CheckpointNotFound, find_root
from drafter_lint.errors import GateError, UsageError
from drafter_lint.findings import Finding, Result, Severity, describe
from drafter_lint.hub import HubError, fetch, parse_repo_arg, settings
from drafter_lint.launch import Launch
from drafter_lint.options import Options
from drafter_lint.remote import materialize
from drafter_lint.runtimes import LABEL, Release
from drafter_lint.target import TargetError, overridden, resolve_target


SGLANG_OPTIONS = {  # option -> field; argparse also accepts unambiguous prefixes
    "--model-path": "target", "--model": "target",
    "--speculative-algorithm": "method", "--speculative-draft-model-path": "draft",
    "--speculative-num-draft-tokens": "tokens", "--revision": "target_revision",
    "--speculative-draft-model-revision": "draft_revision",
    "--context-length": "context_length",
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
    "--enable-mfu-metrics", "--no-trust-remote-code",
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
    # numactl 2.0 (numactl(8)): long options take their value as the next word too
    "numactl": {"-N": 1, "--cpunodebind": 1, "-m": 1, "--membind": 1, "-C": 1,
                "--physcpubind": 1, "-i": 1, "--interleave": 1, "-p": 1, "--preferred": 1,
                "-P": 1, "--preferred-many": 1, "-w": 1, "--weighted-interleave": 1,
                "-l": None, "--localalloc": None, "-a": None, "--all": None, "-b": None,
                "--balancing": None, "-t": None, "--strict": None, "-u": None,
                "--huge": None, "-T": None, "--touch": None},
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


def parse(argv: list[str], inherited: dict[str, str] | None = None) -> Launch:
    """The launch line `argv` as the server reads it; `inherited` is the environment the
    gate itself runs in (default: this process's), which the server inherits unless the
    line clears it (`env -i`)."""
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
    launch.inherited = dict(os.environ if inherited is None else inherited)
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


# the most YAML nodes a --config file may expand to (aliases counted at each use): an
# alias bomb of a few lines would otherwise expand to gigabytes
MAX_CONFIG_NODES = 100_000


def _expanded_size(value, budget: int) -> int:
    """How many nodes `value` has with every shared (aliased) node counted at each use,
    stopping once over `budget`."""
    count, stack = 0, [value]
    while stack and count <= budget:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _config_files(args: list[str], booleans: frozenset) -> tuple[list[str], list[str]]:
    """(the arguments `--config FILE.yaml` adds, the command line's own arguments), read
    the way vLLM's FlexibleArgumentParser and SGLang do: each key becomes `--key value`,
    placed before the command line's own arguments, which win (vllm==0.33.0
    utils/argparse_utils.py:551-553; sglang==0.5.23 server_args.py:400-405). Nested values
    (a speculative_config object) are passed as JSON."""
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
        except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as exc:
            raise GateError(f"--config {name}: {describe(exc)}") from None
        if not isinstance(data, dict):
            raise GateError(f"--config {name}: expected a mapping of options")
        if _expanded_size(data, MAX_CONFIG_NODES) > MAX_CONFIG_NODES:
            raise GateError(f"--config {name}: its aliases expand to more than "
                            f"{MAX_CONFIG_NODES:,} values; not read")
        for key, value in data.items():
            flag = "--" + str(key).replace("_", "-")
            if value is True and flag in booleans:
                expanded.append(flag)
            elif value is not False and value is not None:
                expanded += [flag, json.dumps(value) if isinstance(value, (dict, list))
                             else str(value)]
    return expanded, out


def _max_model_len(value) -> int | None:
    """`--max-model-len` as a number of tokens; None for what the linter does not size
    (`auto`, -1, or a `32k`-style value vLLM also takes)."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


def _hf_overrides(value) -> dict:
    """`--hf-overrides`: a JSON object; vLLM's parser refuses anything else."""
    try:
        data = json.loads(value or "")
    except (ValueError, RecursionError):
        raise GateError(f"--hf-overrides {str(value)[:60]!r} is not JSON; vLLM refuses it") \
            from None
    if not isinstance(data, dict):
        raise GateError("--hf-overrides is not a JSON object; vLLM refuses it")
    return data


def _parse_vllm(argv, env, args, positional_model: bool) -> Launch:
    launch = Launch("vllm", argv, env, server_args=(["serve"] if positional_model else [])
                    + list(args))
    config: dict = {}
    from_file, own = _config_files(args, VLLM_BOOLEANS)
    positional = [v for o, v in _options(own, VLLM_BOOLEANS) if o is None]
    own_model = [v for o, v in _options(own, VLLM_BOOLEANS) if o == "--model"]
    if positional_model and positional and own_model:
        # vLLM moves --model's value before the positional one; two model tags then stop
        # argparse ("unrecognized arguments", vllm==0.33.0 utils/argparse_utils.py:324-355,
        # entrypoints/common/cli_args.py:439-443); 0.10.x raised ValueError instead
        raise GateError(f"the line names the model twice ({positional[0]} after `serve`, "
                        f"{own_model[-1]} with --model); vLLM refuses it: give it once")
    for option, value in _options(from_file + own, VLLM_BOOLEANS):
        if option is None:
            continue
        if option == "--model":
            launch.target = value
        elif option == "--revision":
            launch.target_revision = value
        elif option == "--max-model-len":
            launch.max_model_len = _max_model_len(value)
        elif option == "--hf-overrides":
            launch.hf_overrides = _hf_overrides(value)
        elif option in ("--speculative-config", "-sc"):
            config.update(_speculative_config(value or ""))
        elif option.startswith("--speculative-config."):
            key = option.split(".", 1)[1].replace("-", "_")
            try:
                config[key] = json.loads(value) if value and value[:1] in "{[0123456789" \
                    else value
            except (ValueError, RecursionError):
                raise GateError(f"{option} is not JSON; vLLM refuses it") from None
        elif option in SPEC_FLAGS:
            key = SPEC_FLAGS[option]
            if key in config:
                raise GateError(f"{option} repeats speculative-config {key}; vLLM refuses it")
            config[key] = value
    for key in ("method", "model", "revision"):
        if config.get(key) is not None and not isinstance(config[key], str):
            raise GateError(f"speculative config {key} is {json.dumps(config[key])}, not a "
                            f"string; vLLM refuses it")
    if positional_model and positional:
        launch.target = positional[0]     # over a config file's model (serve.py:54-57)
    launch.method = config.get("method")      # `*_mtp` as written: LCH101 reads it per release
    mtp = isinstance(launch.method, str) and (launch.method == "mtp"
                                              or launch.method.endswith("_mtp"))
    launch.draft = config.get("model")
    if isinstance(config.get("revision"), str):
        launch.draft_revision = config["revision"]
    elif mtp:
        launch.draft_revision = launch.target_revision   # the target checkpoint itself
    if config.get("num_speculative_tokens") is not None:
        launch.tokens = _vllm_tokens(config["num_speculative_tokens"])
    if mtp and launch.draft is None:
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
    for option, value in _options(sum(_config_files(args, SGLANG_BOOLEANS), []),
                                  SGLANG_BOOLEANS):
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
        if name in ("tokens", "context_length"):
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
    if launch.hf_overrides:
        target = overridden(target, launch.hf_overrides)
    try:
        return find_root(draft), target
    except CheckpointNotFound as exc:
        raise GateError(f"draft model: {exc}") from None


def _verifier(folder: Path) -> str | None:
    """`speculators_config.verifier.name_or_path` of the speculators checkpoint `folder`."""
    try:
        config = json.loads(read_text(Path(folder) / "config.json"))
        name = config["speculators_config"]["verifier"]["name_or_path"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
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
        config = json.loads(read_text(Path(folder) / "config.json"))
    except (GateError, OSError, ValueError, RecursionError):
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
                                      cache_dir=settings()["cache_dir"]))
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
# what a Python interpreter's file is called: python, python3, python3.11, pypy3, python3-dbg
PYTHON_NAME = re.compile(r"(python|pypy)(\d+(\.\d+)*)?(-dbg)?")


def interpreter(launch: Launch) -> str | None:
    """The Python that will run the server: `python -m ...` itself, or the interpreter on
    the `#!` line of the `vllm` / `sglang` console script found on the launch's PATH. None
    when that is not a Python (a shell script, a binary): nothing is then run through it."""

    command = launch.command or launch.argv
    program = command[0]
    path = launch.environment.get("PATH")
    local = Path(".venv") / "bin" / program      # `uv run` uses the project's venv
    found = str(local.resolve()) if "uv" in launch.argv[:1] and local.is_file() else \
        shutil.which(program, path=path)
    if found is None:
        return None
    if PYTHON_NAME.fullmatch(os.path.basename(program)):
        return found
    try:
        with open(found, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]   # `env -S python3 -u`
        python = shutil.which(words[0], path=path) if words else None
    else:
        python = words[0] if words else None
    return python if python and PYTHON_NAME.fullmatch(os.path.basename(python)) else None


def _run_group(argv: list[str], env: dict[str, str], timeout: float,
               capture: bool = False) -> tuple[int, str] | None:
    """(exit code, stdout) of `argv` run in a session (process group) of its own, which is
    killed as a whole when it ends, times out or the gate is interrupted: nothing it
    started outlives it. None on timeout."""
    process = subprocess.Popen(argv, env=env, cwd=os.getcwd(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _kill_group(process)
    return process.returncode, out or ""


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def installed_version(python: str, launch: Launch, timeout: float = 30.0) -> str | None:
    """The version of the runtime's distribution as `python` sees it (its metadata only:
    the runtime is not imported), with the launch line's environment."""

    query = "import importlib.metadata as m, sys; sys.stdout.write(m.version(sys.argv[1]))"
    try:
        done = _run_group([python, "-c", query, launch.runtime], launch.environment,
                          timeout, capture=True)
    except OSError:
        return None
    if done is None:
        return None
    version = done[1].strip()
    return version if done[0] == 0 and version else None


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
            done = _run_group([python, str(script), request], launch.environment, timeout)
        except OSError as exc:
            return {"verdict": "unavailable", "message": str(exc), "seconds": 0.0}
        if done is None:
            return {"verdict": "unavailable", "seconds": round(time.monotonic() - started, 1),
                    "message": f"no verdict within {timeout:g} s"}
        try:
            verdict = json.loads(out.read_text())
        except (OSError, ValueError):
            verdict = {"verdict": "unavailable", "message": "the dry run wrote no verdict"}
    verdict["seconds"] = round(time.monotonic() - started, 1)
    return verdict


def dry_run_note(launch: Launch) -> str:
    verdict = launch.dry_run or {}
    name = f"{launch.runtime}=={verdict.get('version', '?')}"
    seconds = verdict.get("seconds", 0)
    if verdict.get("verdict") == "accepted":
        return f"dry run: {name}'s own start-up accepted the launch ({seconds:g} s)"
    if verdict.get("verdict") == "refused":
        return f"dry run: {name}'s own start-up refused the launch ({seconds:g} s)"
    return (f"dry run: not judged ({verdict.get('message', 'no verdict')}; {seconds:g} s); "
            f"skip it with --no-dry-run")


# --- the policy ----------------------------------------------------------------------------

@dataclass
class Decision:
    """What the gate decided: start the launch, or refuse it (and why)."""
    launch: Launch | None = None
    start: bool = False
    result: Result | None = None         # the lint (and dry-run) findings
    blocking: list[Finding] = field(default_factory=list)
    fail_on: str = "error"
    refused: str = ""                    # one line, when the line itself is refused


def decide(argv: list[str], options: Options, target_arg: str | None, offline: bool,
           fail_on: str | None, require_speculative: bool, timeout: float | None,
           note: Callable[[str], None]) -> Decision:
    """The gate's policy, in order. Read the line as the server does; a line that cannot
    be read, or names a model that cannot be resolved, is refused. Lint the drafter for the
    release installed behind the line (or --runtime's). Only if nothing blocks, ask that
    runtime's own start-up (the dry run, unless `timeout` is None). Block on either. The
    checkpoint is read once and each rule runs once."""
    try:
        launch = parse(argv)
        served = speculation(launch, offline)
        if served == "speculators":
            launch.draft, launch.speculators_direct = launch.target, True
            note(f"{launch.target} is a speculators checkpoint: vLLM serves the verifier it "
                 f"names with it as the draft; linting both")
        elif served == "none" and not launch.draft and not launch.method:
            if require_speculative:
                raise GateError("the launch line uses no speculative decoding "
                                "(--require-speculative)")
            note(f"the launch line uses no speculative decoding: nothing to lint; "
                 f"starting {' '.join(launch.argv[:2])}")
            return Decision(launch, start=True)
        if launch.draftless:
            note(f"method {launch.method or 'ngram'} has no draft checkpoint to lint; "
                 f"starting {' '.join(launch.argv[:2])}")
            return Decision(launch, start=True)
        if options.runtime is not None and options.runtime.runtime != launch.runtime:
            raise UsageError(f"--runtime {options.runtime.runtime} does not match the "
                             f"launch line, which starts {LABEL[launch.runtime]}")
        root, target = resolve_models(launch, target_arg, offline)
    except GateError as exc:
        return Decision(refused=str(exc))
    python = interpreter(launch)
    installed = installed_version(python, launch) if python else None
    launch.release = _release(launch, options.runtime, python, installed, note)
    checkpoint, folder, found = pipeline.prepare_folder(
        root, options.but(target=target, runtime=launch.release, launch=launch))
    result = pipeline.lint_prepared(checkpoint, folder)
    level = Severity(fail_on or found.fail_on)
    blocking = [f for f in result.findings if f.severity.rank >= level.rank]
    if not blocking and installed and timeout is not None:     # the runtime's own word
        launch.dry_run = dry_run(python, launch, timeout)
        note(dry_run_note(launch))
        if launch.dry_run.get("verdict") == "refused":
            refusal = pipeline.lint_prepared(checkpoint, folder.but(select=(REFUSED,)))
            result.findings += refusal.findings
            blocking = [f for f in refusal.findings if f.severity.rank >= level.rank]
    return Decision(launch, not blocking, result, blocking, level.value)


REFUSED = "LCH106"      # the rule that reports the dry run's refusal (rules/launch.py)


def _release(launch: Launch, asked: Release | None, python: str | None,
             installed: str | None, note: Callable[[str], None]) -> Release:
    """The release the lint speaks for: --runtime's, else the one installed behind the
    line (its distribution metadata), else the newest recorded; a note says which."""
    name = LABEL[launch.runtime]
    if asked is not None:
        note(f"linting for {asked.label}, as --runtime asks"
             + (f" (the dry run asks the installed {name} {installed})"
                if installed and installed != asked.version else ""))
        return asked
    newest = runtimes.parse(launch.runtime)
    if installed is None:
        why = (f"no {launch.runtime} installed for {python}" if python else
               f"`{launch.command[0]}` is not run by a Python found on the line's PATH")
        note(f"cannot tell which {name} release `{launch.command[0]}` runs ({why}); "
             f"linting for the newest recorded, {newest.label}; no dry run")
        return newest
    try:
        release = runtimes.parse(f"{launch.runtime}=={installed}")
    except runtimes.UnknownRuntime:       # a source or dev build: no release number
        note(f"{name} {installed}, installed for {python}, is not a release; linting for "
             f"the newest recorded, {newest.label}")
        return newest
    note(f"linting for {name} {installed}, installed for {python}"
         + (f" ({release.note})" if release.note else ""))
    return release
