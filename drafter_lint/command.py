"""A server's command line as the server reads it: `vllm serve ...`, `python -m
sglang.launch_server ...` and the launchers around them (env, uv run, taskset, ...) into a
`ServerContext` and a `LaunchLine` (drafter_lint/launch.py). Used by the gate before a server starts and by the model
card's launch lines (drafter_lint/card.py, rules/card.py)."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType, SimpleNamespace


from drafter_lint.bounded import read_regular, read_text
from drafter_lint.errors import GateError
from drafter_lint.findings import describe
from drafter_lint.launch import LaunchLine, ServerContext
from drafter_lint.readonly import readonly
from drafter_lint.runtimes import Release, grammar


SGLANG_OPTIONS = {  # option -> field; argparse also accepts unambiguous prefixes
    "--model-path": "target", "--model": "target",
    "--speculative-algorithm": "method", "--speculative-draft-model-path": "draft",
    "--speculative-num-draft-tokens": "tokens", "--revision": "target_revision",
    "--speculative-draft-model-revision": "draft_revision",
    "--context-length": "context_length",
    "--disable-radix-cache": "radix_cache_disabled",
    "--mamba-scheduler-strategy": "mamba_strategy",
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
class _Booleans(frozenset):
    """vLLM's store-true flags: the listed ones and, by name, every `--enable-*`,
    `--disable-*` and `--no-*` (its boolean config fields are BooleanOptionalAction)."""

    def __contains__(self, option) -> bool:
        return super().__contains__(option) or str(option).startswith(
            ("--enable-", "--disable-", "--no-"))


VLLM_BOOLEANS = _Booleans({
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
        if arg == "--":                 # argparse: only positionals from here on
            yield from ((None, word) for word in args[i + 1:])
            return
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
    except RecursionError:
        raise GateError("--speculative-config is nested too deeply to read") from None
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
                           "--default-index", "--extra", "--group", "--package",
                           "--extra-index-url", "--index-url", "--find-links", "-f",
                           "--no-extra", "--only-group", "--no-group", "--cache-dir",
                           "--config-file", "--color", "--index-strategy", "--prerelease",
                           "--resolution", "--python-preference", "--isolated-from"})
UV_RUN_FLAGS = frozenset({"--frozen", "--locked", "--no-sync", "--isolated", "--no-dev",
                          "--all-extras", "--all-groups", "--only-dev", "--no-project",
                          "--no-config", "--offline", "--no-cache", "--active",
                          "--no-editable", "--exact", "--no-env-file", "-q", "--quiet",
                          "-v", "--verbose", "--refresh", "--no-python-downloads",
                          "--managed-python", "--no-managed-python", "--script", "-s",
                          "--no-progress", "--native-tls"})
# the word after these launchers' options that is theirs, not the command's
POSITIONAL = {"taskset": 1, "timeout": 1}


# `env` options (GNU coreutils env(1)): those that take a value as the next word
ENV_VALUES = {"-u": "unset", "--unset": "unset", "-C": "chdir", "--chdir": "chdir",
              "-S": "split", "--split-string": "split"}
ENV_FLAGS = frozenset({"-i", "--ignore-environment", "-", "-0", "--null", "-v", "--debug",
                       "--list-signal-handling"})
ENV_SIGNALS = ("--default-signal", "--ignore-signal", "--block-signal")   # [=SIG]


@dataclass
class Unwrapped:
    """What the launchers in front of the server command do to the server's process."""
    command: list[str]
    cleared: bool = False                 # `env -i`: nothing inherited
    unset: set = field(default_factory=set)      # `env -u NAME`: removed from the inherited
    cwd: str | None = None                # `env -C DIR`, `uv run --directory DIR`
    uv_project: str | None = None         # `uv run --project DIR`: whose .venv runs it
    env_file: dict = field(default_factory=dict)   # `uv run --env-file FILE`'s variables


def _env_option(word: str, rest: list[str]) -> tuple[str, str | None]:
    """(kind, value) of one `env` option: "unset", "chdir", "split", "clear", "flag"."""
    if word in ("-i", "--ignore-environment", "-"):
        return "clear", None
    if word in ENV_FLAGS or word.split("=", 1)[0] in ENV_SIGNALS:
        return "flag", None
    if word in ENV_VALUES:
        if not rest:
            raise GateError(f"env {word} needs a value")
        return ENV_VALUES[word], rest.pop(0)
    name, eq, value = word.partition("=")
    if eq and name in ENV_VALUES:
        return ENV_VALUES[name], value
    if word[:2] in ("-u", "-C", "-S") and len(word) > 2:          # -uNAME, -CDIR
        return ENV_VALUES[word[:2]], word[2:]
    raise GateError(f"env option {word} is not one the gate reads through; the gate "
                    f"refuses a launcher it cannot read (write the line without it)")


def _dotenv(name: str, cwd: str | None) -> dict[str, str]:
    """`uv run --env-file FILE`: its KEY=VALUE lines (dotenv: `export`, quotes, comments)."""
    path = Path(cwd or ".") / Path(name).expanduser()
    try:
        text = read_regular(str(path), 1 << 20).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GateError(f"uv run --env-file {name}: {describe(exc)}") from None
    out = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key.isidentifier():
            raise GateError(f"uv run --env-file {name}: line {number} is not KEY=VALUE; "
                            f"the gate cannot tell what the server sees")
        if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) > 1:
            value = value[1:-1]
        out[key] = value
    return out


def _unwrap(words: list[str], env: dict[str, str]) -> Unwrapped:
    """The server command behind launchers (`nohup`, `exec`, `uv run`, `numactl ...`,
    `taskset ...`, `env [-i] [-u NAME] [-C DIR] [-S STRING] VAR=...`, `timeout`, `nice`,
    `stdbuf`, `setsid`), with the environment changes they make applied to `env`. An
    option the gate does not know of `env` or `uv run` is refused, never guessed."""
    out = Unwrapped([])
    rest = list(words)

    def chdir(folder: str) -> None:
        base = out.cwd or os.getcwd()
        out.cwd = os.path.normpath(os.path.join(base, os.path.expanduser(folder)))

    while rest:
        name = os.path.basename(rest[0])
        if name == "env":
            rest = rest[1:]
            while rest and (rest[0].startswith("-") or "=" in rest[0]):
                word = rest.pop(0)
                if word == "--":
                    break
                if "=" in word and not word.startswith("-"):
                    key, value = word.split("=", 1)
                    env[key] = value
                    out.unset.discard(key)
                    continue
                kind, value = _env_option(word, rest)
                if kind == "clear":
                    out.cleared = True
                    env.clear()
                elif kind == "unset":
                    env.pop(value, None)
                    out.unset.add(value)
                elif kind == "chdir":
                    chdir(value)
                elif kind == "split":          # `env -S 'A=1 vllm serve'`: words again
                    try:
                        rest[:0] = shlex.split(value)
                    except ValueError as exc:
                        raise GateError(f"env -S {value[:40]!r}: {exc}") from None
            continue
        if name == "uv" and len(rest) > 1 and rest[1] == "run":
            rest = rest[2:]
            while rest and rest[0].startswith("-"):
                word = rest.pop(0)
                if word == "--":
                    break
                if word in ("-m", "--module"):          # `uv run -m MODULE`: python -m
                    rest[:0] = ["python", "-m"]
                    break
                option, eq, value = word.partition("=")
                if option in UV_RUN_VALUES and not eq:
                    if not rest:
                        raise GateError(f"uv run {option} needs a value")
                    value = rest.pop(0)
                elif option not in UV_RUN_VALUES and option not in UV_RUN_FLAGS:
                    raise GateError(f"uv run option {option} is not one the gate reads "
                                    f"through; the gate refuses a launcher it cannot read")
                if option == "--directory":
                    chdir(value)
                elif option == "--project":
                    out.uv_project = value
                elif option == "--env-file":
                    out.env_file.update(_dotenv(value, out.cwd))
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
        if name in REFUSED_LAUNCHERS:
            raise GateError(f"`{name}` {REFUSED_LAUNCHERS[name]}; the gate cannot read the "
                            f"launch behind it: put `drafter-lint gate --` in front of the "
                            f"server command itself")
        break
    out.command = rest
    return out


# launchers the gate does not read through, and why
REFUSED_LAUNCHERS = {
    "sudo": "runs the server as another user, with another environment",
    "su": "runs the server as another user, with another environment",
    "bash": "runs a shell script or -c string", "sh": "runs a shell script or -c string",
    "zsh": "runs a shell script or -c string", "docker": "runs the server in a container",
    "podman": "runs the server in a container", "srun": "runs the server on another node",
    "ssh": "runs the server on another host", "torchrun": "starts several processes",
}


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


def parse(argv: list[str], inherited: dict[str, str] | None = None,
          release: Release | None = None) -> LaunchLine:
    """The launch line `argv` as the server reads it; `inherited` is the environment the
    gate itself runs in (default: this process's), which the server inherits unless the
    line clears it (`env -i`). With `release`, its flags are read as that release's own
    parser reads them (`read`). Its server context is `locate`'s."""
    return read(locate(argv, inherited), release)


def locate(argv: list[str], inherited: dict[str, str] | None = None) -> ServerContext:
    """The launchers, environment and server command of `argv`, its flags not yet read:
    enough to find the interpreter and release behind it."""
    env, line = _split_env(argv)
    while line and line[0] == "exec":
        line = line[1:]           # the shell's builtin: the gate replaces itself anyway
    if not line:
        raise GateError("no launch command after --")
    seen = dict(env)
    wrapped = _unwrap(line, seen)
    command = wrapped.command
    if not command:
        raise GateError(f"no server command after {' '.join(line[:3])}")
    runtime, server_args = _server(command)
    server = ServerContext(
        runtime, tuple(line), tuple(command), tuple(server_args), MappingProxyType(env),
        MappingProxyType(seen), MappingProxyType(dict(os.environ if inherited is None
                                                       else inherited)),
        wrapped.cleared, frozenset(wrapped.unset), wrapped.cwd, wrapped.uv_project)
    for key, value in wrapped.env_file.items():
        # which of the two uv lets win is not modelled: only an agreeing or new one is read
        if server.environment.get(key, value) != value:
            raise GateError(f"uv run --env-file sets {key}, which the line's environment "
                            f"also sets to another value; the gate cannot tell which the "
                            f"server sees")
        seen[key] = value
    return replace(server, env=MappingProxyType(dict(seen)))


def read(server: ServerContext, release: Release | None = None) -> LaunchLine:
    """The server flags of a located launch, read once into a frozen line. With a
    `release` whose grammar is recorded (runtimes/grammar.py), each flag is resolved as
    that release's parser does (unique prefixes, `--a_b` on vLLM, which options take a
    value) and what it refuses is kept in `flag_problems` (LCH108); else the gate's own
    lists read them."""
    found = grammar.for_release(release) if release is not None and \
        release.runtime == server.runtime else None
    launch = _Reading(runtime=server.runtime,
                      flags_for=release if found is not None else None)
    args = list(server.server_args)
    if server.runtime == "vllm":
        served = args[:1] == ["serve"]
        _parse_vllm(launch, args[1 if served else 0:], served, server.cwd, found)
    else:
        _parse_sglang(launch, args, server.cwd, found)
    return launch.line()


class _Reading(SimpleNamespace):
    """A LaunchLine while the parsers fill it in (their only mutable state)."""

    def __init__(self, **given):
        defaults = {f.name: f.default for f in fields(LaunchLine)
                    if f.default is not MISSING}
        super().__init__(**{**defaults, "hf_overrides": {}, "legacy_flags": [],
                            "flag_problems": [], **given})

    def line(self) -> LaunchLine:
        values = dict(vars(self))
        values.update(hf_overrides=readonly(values["hf_overrides"]),
                      legacy_flags=tuple(values["legacy_flags"]),
                      flag_problems=tuple(values["flag_problems"]))
        return LaunchLine(**values)


def _server(argv_rest: list[str]) -> tuple[str, list[str]]:
    """(runtime, the arguments its parser reads) of the server line `argv_rest` (after
    any launcher); vLLM's start with `serve` when the model may come positionally."""
    program = os.path.basename(argv_rest[0])
    module, after = _python_module(argv_rest)
    if program == "vllm" and len(argv_rest) > 1 and argv_rest[1] == "serve":
        return "vllm", ["serve", *argv_rest[2:]]
    if module == "vllm.entrypoints.cli.main" and len(argv_rest) > after and \
            argv_rest[after] == "serve":
        return "vllm", ["serve", *argv_rest[after + 1:]]
    if module and module.startswith("vllm.entrypoints"):
        return "vllm", list(argv_rest[after:])
    if module == "sglang.launch_server" or program in ("sglang.launch_server",):
        return "sglang", list(argv_rest[after:] if module else argv_rest[1:])
    if program == "sglang" and len(argv_rest) > 1 and argv_rest[1] == "serve":
        return "sglang", list(argv_rest[2:])
    raise GateError(f"not a vLLM or SGLang launch command: {' '.join(argv_rest[:3])} "
                    f"(expected `vllm serve ...` or `python -m sglang.launch_server ...`)")


SPEC_FLAGS = {"--spec-method": "method", "--spec-model": "model",
              "--spec-tokens": "num_speculative_tokens"}   # vllm==0.33.0 arg_utils.py:1869
# the flags --speculative-config replaced (vllm==0.8.2 engine/arg_utils.py:779-801; gone
# from 0.8.3): read as they served, and LCH107 says which releases refuse them
LEGACY_FLAGS = {"--speculative-model": "model",
                "--num-speculative-tokens": "num_speculative_tokens"}


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


def _config_files(args: list[str], booleans: frozenset,
                  cwd: str | None = None) -> tuple[list[str], list[str]]:
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
    if files:
        import yaml     # only a line with --config pays for it
    for name in files:

        try:
            path = os.path.join(cwd, os.path.expanduser(name)) if cwd else name
            data = yaml.safe_load(read_text(path, 1 << 20))   # over it: refused unparsed
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


HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kmgtKMGT]?)")
SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
          "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _max_model_len(value) -> int | None:
    """`--max-model-len` as vLLM's `human_readable_int` reads it (vllm==0.33.0
    utils/argparse_utils.py): `4k` is 4,000 and `4K` 4,096, a decimal only with a
    lower-case suffix; None for what sizes itself (`auto`, -1). Anything else vLLM's
    parser refuses, and so does the gate."""
    text = str(value or "").strip()
    if text in ("auto", "-1"):
        return None
    match = HUMAN_INT.fullmatch(text)
    if not match or ("." in match[1] and match[2] not in "kmgt") or \
            ("." in match[1] and not match[2]):
        raise GateError(f"--max-model-len {text[:40]!r} is not a number of tokens vLLM "
                        f"reads (an integer, `32k` = 32,000, `32K` = 32,768, or auto)")
    number = int(float(match[1]) * SUFFIX[match[2]]) if match[2] else int(match[1])
    if number <= 0:
        raise GateError(f"--max-model-len {text!r}: vLLM requires a positive length")
    return number


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


class _Flags:
    """The options of a release's grammar that take no value, as the `booleans` the
    config-file and option readers ask (`option in flags`)."""

    def __init__(self, found: grammar.Grammar):
        self.found = found

    def __contains__(self, option) -> bool:
        return self.found.takes_value(str(option)) is False


def _grammar_options(args: list[str], found: grammar.Grammar, problems: list[str]):
    """(option, value) pairs of `args` as `found`'s parser reads them, the option named by
    its first long spelling (`--speculative-config.model` keeps its field); positionals as
    (None, word). What the parser refuses is appended to `problems` in its own words, with
    the release that removed or added the spelling where the grammar shows it."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            for rest in args[i + 1:]:
                yield None, rest
            return
        if not found.is_option(word):
            yield None, word
            i += 1
            continue
        got = found.resolve(word)
        option = got.option
        name = next((s for s in option.spellings if s.startswith("--")), option.name) \
            if option is not None else got.key
        if got.field is not None:
            name += "." + got.field
        takes = "one" if got.field is not None else option.takes if option is not None \
            else "one" if got.key in LEGACY_FLAGS else "none"   # unknown: no value (extras)
        values: list[str] = []
        if got.value is not None:
            values = [got.value]
        elif takes in ("one", "+") or takes.isdigit():
            count = int(takes) if takes.isdigit() else 1
            while len(values) < count and i + 1 < len(args) and \
                    (got.field is not None or not found.is_option(args[i + 1])):
                i += 1
                values.append(args[i])
            while takes == "+" and i + 1 < len(args) and not found.is_option(args[i + 1]):
                i += 1
                values.append(args[i])
        elif takes in ("?", "*"):
            while i + 1 < len(args) and not found.is_option(args[i + 1]):
                i += 1
                values.append(args[i])
                if takes == "?":
                    break
        i += 1
        problem = _flag_problem(found, got, takes, values)
        if problem and not (option is None and got.key in LEGACY_FLAGS):   # LCH107's
            problems.append(problem)
        if option is not None and option.takes == "none" and got.field is None:
            yield name, None
        else:
            yield name, values[0] if len(values) == 1 else (
                " ".join(values) if values else None)


def _flag_problem(found: grammar.Grammar, got: grammar.Resolved, takes: str,
                  values: list[str]) -> str | None:
    """What `found`'s parser says of one resolved flag and its values, or None."""
    option = got.option
    if option is None:
        history = found.history(got.key) if not got.candidates else ""
        return got.problem + (f" ({history})" if history else "")
    if got.field is not None:
        return None if values else f"argument {option.label}: expected one argument"
    if option.takes == "none":
        if got.value is not None:
            return f"argument {option.label}: ignored explicit argument {got.value!r}"
        return None
    if not values and takes in ("one", "+") or (takes.isdigit() and len(values) < int(takes)):
        count = {"one": "one argument", "+": "at least one argument"}.get(
            takes, f"{takes} arguments")
        return f"argument {option.label}: expected {count}"
    for value in values:
        bad = found.bad_choice(option, value)
        if bad:
            before = found.choice_history(option, value)
            return bad + (f" ({before})" if before else "")
    return None


# the vLLM options the gate reads: argparse (allow_abbrev, vLLM's FlexibleArgumentParser
# keeps it on) would take any unique prefix of them, which the gate does not resolve
VLLM_READ = ("--model", "--revision", "--max-model-len", "--hf-overrides",
             "--speculative-config", "--config", *SPEC_FLAGS, *LEGACY_FLAGS)
# common `vllm serve` options that take a value (vllm==0.33.0 engine/arg_utils.py,
# entrypoints/openai/cli_args.py): the word after them is never the model
VLLM_VALUES = frozenset({
    *VLLM_READ, "--host", "--port", "--api-key", "--served-model-name", "--tokenizer",
    "--dtype", "--quantization", "-q", "--kv-cache-dtype", "--tensor-parallel-size", "-tp",
    "--pipeline-parallel-size", "-pp", "--data-parallel-size", "-dp", "--seed",
    "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens",
    "--block-size", "--swap-space", "--download-dir", "--load-format",
    "--tokenizer-mode", "--chat-template", "--tool-call-parser", "--reasoning-parser",
    "--attention-backend", "--compilation-config", "-O", "--limit-mm-per-prompt",
    "--uvicorn-log-level", "--tokenizer-revision", "--code-revision", "--max-logprobs",
    "--distributed-executor-backend", "--kv-transfer-config", "--generation-config",
    "--override-generation-config", "--lora-modules", "--max-lora-rank", "--max-loras",
    "--cpu-offload-gb", "--mm-processor-kwargs", "--override-pooler-config", "--task",
    "--runner", "--convert", "--root-path", "--ssl-keyfile", "--ssl-certfile",
    "--allowed-origins", "--middleware", "--response-role", "--config-format",
    "--trust-request-chat-template", "--model-impl", "--max-seq-len-to-capture",
    "--cuda-graph-sizes", "--long-prefill-token-threshold", "--scheduling-policy",
})


def _first_positional(args: list[str], unknown_takes_value: bool) -> str | None:
    """The model `vllm serve` reads from `args` when an option the gate does not know
    takes a value (or not)."""
    booleans = VLLM_BOOLEANS if unknown_takes_value else None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
            option = _normal(arg)
            takes = "=" not in arg and (
                option in VLLM_VALUES or (booleans is not None and option not in booleans))
            nxt = args[i + 1] if i + 1 < len(args) else None
            if takes and nxt is not None and not (nxt.startswith("-") and not _is_number(nxt)):
                i += 1
        else:
            return arg
        i += 1
    return None


def _check_vllm_options(own: list[str], positional_model: bool, own_model: list) -> None:
    """Refuse what the gate cannot read as vLLM does: an abbreviation of an option it
    reads, or an unknown option whose next word may be the model."""
    for option, _ in _options(own, VLLM_BOOLEANS):
        if option is None or option in VLLM_VALUES or "." in option:
            continue
        longer = [o for o in VLLM_READ if o.startswith(option) and o != option]
        if longer and option.startswith("--"):
            raise GateError(f"{option} is an abbreviation vLLM's argument parser reads as "
                            f"{' or '.join(longer)} (a unique prefix is accepted); the gate "
                            f"does not resolve abbreviations: write the option out in full")
    if positional_model and not own_model:      # with --model, a positional is refused
        read = _first_positional(own, True), _first_positional(own, False)
        if read[0] != read[1]:
            before = own[own.index(read[1]) - 1] if read[1] in own[1:] else "an option"
            raise GateError(f"cannot tell whether {before} takes a value or is a flag, so "
                            f"whether vLLM serves {read[1]} or "
                            f"{read[0] or 'no positional model'}; put the model right after "
                            f"`serve`")


def _options_end(args: list[str], server: str, slots: int = 0) -> None:
    """argparse reads every word after `--` as a positional argument: the options there
    are not options, and the server refuses positionals beyond its `slots` (`vllm serve`'s
    model, when none came before)."""
    if "--" in args:
        rest = args[args.index("--") + 1:]
        if len(rest) <= slots:
            return
        raise GateError(f"`--` ends {server}'s options: {' '.join(rest[:2]) or 'nothing'}"
                        f"{' ...' if len(rest) > 2 else ''} after it would be positional "
                        f"arguments, which its parser refuses (unrecognized arguments); "
                        f"remove the `--`")


def _parse_vllm(launch: _Reading, args, positional_model: bool, cwd: str | None = None,
                found: grammar.Grammar | None = None) -> _Reading:
    before = args[:args.index("--")] if "--" in args else args
    _options_end(args, "vLLM", int(positional_model and not any(
        v for o, v in _options(before, VLLM_BOOLEANS) if o is None)))
    config: dict = {}
    legacy: dict = {}
    booleans = _Flags(found) if found is not None else VLLM_BOOLEANS
    from_file, own = _config_files(args, booleans, cwd)
    if found is not None:
        pairs = list(_grammar_options(own, found, launch.flag_problems))
        options = pairs + list(_grammar_options(from_file, found, []))
    else:
        pairs = list(_options(own, VLLM_BOOLEANS))
        options = list(_options(from_file + own, VLLM_BOOLEANS))
    positional = [v for o, v in pairs if o is None]
    own_model = [v for o, v in pairs if o == "--model"]
    if found is None:
        _check_vllm_options(own, positional_model, own_model)
    if positional_model and positional and own_model:
        # vLLM moves --model's value before the positional one; two model tags then stop
        # argparse ("unrecognized arguments", vllm==0.33.0 utils/argparse_utils.py:324-355,
        # entrypoints/common/cli_args.py:439-443); 0.10.x raised ValueError instead
        raise GateError(f"the line names the model twice ({positional[0]} after `serve`, "
                        f"{own_model[-1]} with --model); vLLM refuses it: give it once")
    for option, value in options:
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
        elif option in LEGACY_FLAGS:
            launch.legacy_flags.append(option)
            legacy[LEGACY_FLAGS[option]] = value     # argparse keeps the last
    for key in ("method", "model", "revision"):
        if config.get(key) is not None and not isinstance(config[key], str):
            raise GateError(f"speculative config {key} is {json.dumps(config[key])}, not a "
                            f"string; vLLM refuses it")
    if legacy and not config:       # what vLLM up to 0.8.2 served (LCH107 says after)
        config = dict(legacy)
    if positional_model and positional:
        launch.target = positional[0]     # over a config file's model (serve.py:54-57)
    launch.method = config.get("method")      # `*_mtp` as written: LCH101 reads it per release
    # MTP heads live in the target checkpoint; DSpark's may, and vLLM drafts from the
    # target when no model is given (vllm==0.25.0 config/speculative.py:672-678)
    in_target = isinstance(launch.method, str) and (
        launch.method == "mtp" or launch.method.endswith("_mtp") or
        (launch.method == "dspark" and config.get("model") is None))
    launch.draft = config.get("model")
    if isinstance(config.get("revision"), str):
        launch.draft_revision = config["revision"]
    elif in_target:
        launch.draft_revision = launch.target_revision   # the target checkpoint itself
    if config.get("num_speculative_tokens") is not None:
        launch.tokens = _vllm_tokens(config["num_speculative_tokens"])
    if in_target and launch.draft is None:
        launch.draft = launch.target
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


def _parse_sglang(launch: _Reading, args, cwd: str | None = None,
                  found: grammar.Grammar | None = None) -> _Reading:
    """argparse rules (sglang==0.5.23 server_args.py:679, allow_abbrev on): a unique prefix
    of a known option is that option, an ambiguous one is refused."""
    _options_end(args, "SGLang")
    if found is not None:
        return _read_sglang(launch, args, cwd, found)
    known = tuple(dict.fromkeys(tuple(SGLANG_OPTIONS) + SGLANG_SPECULATIVE))
    for option, value in _options(sum(_config_files(args, SGLANG_BOOLEANS, cwd), []),
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
        elif name == "radix_cache_disabled":
            launch.radix_cache_disabled = True       # store_true
        elif name:
            setattr(launch, name, value)
    return _sglang_method(launch)


def _read_sglang(launch: _Reading, args, cwd: str | None, found: grammar.Grammar
                 ) -> _Reading:
    """SGLang's flags as `found`'s parser reads them: each option by any spelling."""
    from_file, own = _config_files(args, _Flags(found), cwd)
    pairs = list(_grammar_options(own, found, launch.flag_problems))
    for option, value in list(_grammar_options(from_file, found, [])) + pairs:
        resolved = found.spellings.get(option or "")
        spellings = resolved.spellings if resolved is not None else (option,)
        name = next((SGLANG_OPTIONS[s] for s in spellings if s in SGLANG_OPTIONS), None)
        if "--speculative-draft-model" in spellings:
            name = "draft"
        if "--speculative-dflash-block-size" in spellings:
            name = "tokens"        # the DFLASH alias of --speculative-num-draft-tokens
        if name in ("tokens", "context_length"):
            setattr(launch, name, _int(value, option))
        elif name == "radix_cache_disabled":
            launch.radix_cache_disabled = True       # store_true
        elif name:
            setattr(launch, name, value)
    return _sglang_method(launch)


def _sglang_method(launch: _Reading) -> _Reading:
    if isinstance(launch.method, str):
        launch.method = launch.method.upper()     # speculative_hook.py:137-143
    if launch.method in ("NEXTN", "EAGLE") and launch.draft is None:
        launch.draft, launch.draft_revision = launch.target, launch.target_revision
    if launch.method in ("NGRAM",):
        launch.draftless = True
    return launch
