"""A server's command line as the server reads it: `vllm serve ...`, `python -m
sglang.launch_server ...` and the launchers around them (env, uv run, taskset, ...) into a
`Launch` (drafter_lint/launch.py). Used by the gate before a server starts and by the model
card's launch lines (drafter_lint/card.py, rules/card.py)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import yaml

from drafter_lint.bounded import read_regular
from drafter_lint.errors import GateError
from drafter_lint.findings import describe
from drafter_lint.launch import Launch


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
    legacy: dict = {}
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
        elif option in LEGACY_FLAGS:
            launch.legacy_flags.append(option)
            legacy.setdefault(LEGACY_FLAGS[option], value)
    for key in ("method", "model", "revision"):
        if config.get(key) is not None and not isinstance(config[key], str):
            raise GateError(f"speculative config {key} is {json.dumps(config[key])}, not a "
                            f"string; vLLM refuses it")
    if legacy and not config:       # what vLLM up to 0.8.2 served (LCH107 says after)
        config = dict(legacy)
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
