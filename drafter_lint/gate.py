"""`drafter-lint gate -- <launch command>`: read a vLLM or SGLang launch line the way the
server does, lint its drafter against its target and the launch settings, then `exec` the
command (or exit 1 without starting anything)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path


class GateError(ValueError):
    """The launch line or its models cannot be used; one line, exit 1."""


@dataclass
class Launch:
    runtime: str                       # "vllm" | "sglang"
    argv: list[str]                    # the command to exec (without an env prefix)
    env: dict[str, str] = field(default_factory=dict)   # VAR=value given before it
    target: str | None = None
    draft: str | None = None
    method: str | None = None
    tokens: int | None = None          # vLLM num_speculative_tokens / SGLang draft tokens
    steps: int | None = None           # SGLang --speculative-num-steps

    def facts(self) -> dict:
        """The launch facts rules read (`facts.launch`)."""
        out = {"runtime": self.runtime, "method": self.method, "env": self.env}
        if self.runtime == "vllm" and self.tokens:
            out["num_speculative_tokens"] = self.tokens
        if self.runtime == "sglang" and self.tokens:
            out["num_draft_tokens"] = self.tokens
        return out


SGLANG_OPTIONS = {  # option -> field; argparse also accepts unambiguous prefixes
    "--model-path": "target", "--model": "target",
    "--speculative-algorithm": "method", "--speculative-draft-model-path": "draft",
    "--speculative-num-draft-tokens": "tokens", "--speculative-num-steps": "steps",
}


def _split_env(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    env, rest = {}, list(argv)
    if rest and os.path.basename(rest[0]) == "env":
        rest = rest[1:]
    while rest and "=" in rest[0] and not rest[0].startswith("-") and \
            rest[0].split("=", 1)[0].isidentifier():
        key, value = rest.pop(0).split("=", 1)
        env[key] = value
    return env, rest


def _options(args: list[str]):
    """(option, value) pairs of `--opt value` and `--opt=value`; positionals as (None, v)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--"):
            if "=" in arg:
                yield arg.split("=", 1)
            elif i + 1 < len(args) and not args[i + 1].startswith("--"):
                yield arg, args[i + 1]
                i += 1
            else:
                yield arg, None
        else:
            yield None, arg
        i += 1


def _int(value, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise GateError(f"{what} is {value!r}, not an integer") from None


def _speculative_config(value: str) -> dict:
    text = value
    if not value.lstrip().startswith("{") and Path(value).is_file():
        text = Path(value).read_text(encoding="utf-8")
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise GateError(f"--speculative-config is neither JSON nor a JSON file: {exc}") \
            from None
    if not isinstance(config, dict):
        raise GateError("--speculative-config must be a JSON object")
    return config


def parse(argv: list[str]) -> Launch:
    env, argv_rest = _split_env(argv)
    if not argv_rest:
        raise GateError("no launch command after --")
    program = os.path.basename(argv_rest[0])
    module = argv_rest[2] if len(argv_rest) > 2 and argv_rest[1] == "-m" else None
    if program == "vllm" and len(argv_rest) > 1 and argv_rest[1] == "serve":
        return _parse_vllm(argv_rest, env, argv_rest[2:], positional_model=True)
    if module and module.startswith("vllm.entrypoints"):
        return _parse_vllm(argv_rest, env, argv_rest[3:], positional_model=module.endswith("main"))
    if module == "sglang.launch_server" or program in ("sglang.launch_server",):
        return _parse_sglang(argv_rest, env, argv_rest[3:] if module else argv_rest[1:])
    raise GateError(f"not a vLLM or SGLang launch command: {' '.join(argv_rest[:3])} "
                    f"(expected `vllm serve ...` or `python -m sglang.launch_server ...`)")


def _parse_vllm(argv, env, args, positional_model: bool) -> Launch:
    launch = Launch("vllm", argv, env)
    for option, value in _options(args):
        if option is None and positional_model and launch.target is None:
            launch.target = value
        elif option == "--model":
            launch.target = value
        elif option in ("--speculative-config", "--speculative_config"):
            config = _speculative_config(value or "")
            launch.method = config.get("method")
            launch.draft = config.get("model")
            if config.get("num_speculative_tokens") is not None:
                launch.tokens = _int(config["num_speculative_tokens"], "num_speculative_tokens")
    if launch.method == "mtp" and launch.draft is None:
        launch.draft = launch.target          # MTP heads live in the target checkpoint
    return launch


def _parse_sglang(argv, env, args) -> Launch:
    launch = Launch("sglang", argv, env)
    for option, value in _options(args):
        if option is None:
            continue
        matches = [o for o in SGLANG_OPTIONS if o == option] or \
            [o for o in SGLANG_OPTIONS if o.startswith(option)]
        if len(matches) != 1:
            continue
        name = SGLANG_OPTIONS[matches[0]]
        if name in ("tokens", "steps"):
            setattr(launch, name, _int(value, matches[0]))
        else:
            setattr(launch, name, value)
    if launch.method in ("NEXTN", "EAGLE") and launch.draft is None:
        launch.draft = launch.target
    return launch


def resolve(model: str, offline: bool, what: str) -> Path:
    """A local folder for `model`: a path, or a hub id from the cache (else its config)."""
    path = Path(model).expanduser()
    if path.exists():
        return path
    from drafter_lint.hub import HubError, _settings, fetch, parse_repo_arg

    if parse_repo_arg(model) is None or model.startswith((".", "/", "~")):
        raise GateError(f"{what} {model!r} does not exist")
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, local_files_only=True,
                                      cache_dir=_settings()["cache_dir"]))
    except Exception:  # noqa: BLE001 -- not cached: read its config from the hub
        pass
    try:
        return fetch(model, offline=offline).folder
    except HubError as exc:
        raise GateError(f"{what}: {exc}") from None
