"""A server launch as read, in three frozen parts: the `LaunchLine` (the server's flags as
its parser reads them: drafter_lint/command.py), the `ServerContext` (where and how the
server runs: the launchers' effects, its environment, the exec plan, the release behind
it) and the `DryRunVerdict` (what the runtime's own start-up said, gate only). `check
--num-speculative-tokens` / `--env` give a line and a context without a command. Rules read
them through `facts.launch`, `facts.server` and `facts.dry_run`."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from drafter_lint.runtimes import Release
from drafter_lint.runtimes.loads import left_at_init

EMPTY: Mapping = MappingProxyType({})


def empty() -> Mapping:
    """EMPTY, as a field's default (a dataclass takes no unhashable default as such)."""
    return EMPTY


@dataclass(frozen=True)
class LaunchLine:
    """The server's flags as its parser reads them (`command.read`)."""
    runtime: str | None = None         # "vllm" | "sglang"; None: settings without a line
    target: str | None = None
    draft: str | None = None
    method: str | None = None
    tokens: int | None = None          # vLLM num_speculative_tokens / SGLang draft tokens
    context_length: int | None = None  # SGLang --context-length: the draft's too
    radix_cache_disabled: bool = False  # SGLang --disable-radix-cache
    mamba_strategy: str | None = None  # SGLang --mamba-scheduler-strategy (default: auto)
    max_model_len: int | None = None   # vLLM --max-model-len: the server's context
    # vLLM --hf-overrides: set over the target's config (frozen)
    hf_overrides: Mapping = field(default_factory=empty)
    draftless: bool = False            # ngram/suffix: no draft checkpoint to lint
    legacy_flags: tuple[str, ...] = ()   # --speculative-model and such
    flag_problems: tuple[str, ...] = ()  # what the parser refuses (LCH108)
    flags_for: Release | None = None   # the release whose grammar read the flags, if any
    speculators_direct: bool = False   # `vllm serve SPECULATOR`: it names its verifier
    target_revision: str | None = None  # the hub revisions the server loads (else main)
    draft_revision: str | None = None

    def count(self, runtime: str) -> int | None:
        """The token count in `runtime`'s own terms: vLLM's `num_speculative_tokens`, SGLang's
        `--speculative-num-draft-tokens`. Settings without a line (`check
        --num-speculative-tokens`) are vLLM's."""
        return self.tokens if (self.runtime or "vllm") == runtime else None


@dataclass(frozen=True)
class ServerContext:
    """Where and how the server runs (`command.locate`), and the release behind it."""
    runtime: str | None = None         # "vllm" | "sglang"; None: check's --env alone
    argv: tuple[str, ...] = ()         # the line to exec (no VAR=value prefix)
    command: tuple[str, ...] = ()      # the server line behind launchers
    server_args: tuple[str, ...] = ()  # what the server's parser reads
    exec_env: Mapping = field(default_factory=empty)   # the VAR=value prefix, for exec
    # what the line (and its launchers) set for the server
    env: Mapping = field(default_factory=empty)
    # the gate's own environment (check's: none)
    inherited: Mapping = field(default_factory=empty)
    env_cleared: bool = False          # `env -i`: the server sees only `env`
    unset: frozenset = frozenset()     # `env -u NAME`: not inherited by the server
    cwd: str | None = None             # `env -C DIR`, `uv run --directory DIR`: where it runs
    uv_project: str | None = None      # `uv run --project DIR`
    release: Release | None = None     # the release installed behind it (or --runtime's)

    @property
    def environment(self) -> dict[str, str]:
        """What the server process sees: the inherited environment (unless `env -i`) with
        the line's own assignments over it."""
        if self.env_cleared:
            return dict(self.env)
        kept = {k: v for k, v in self.inherited.items() if k not in self.unset}
        return {**kept, **self.env}

    @property
    def label(self) -> str:
        """The server command for messages: `vllm serve`, `python3 -m sglang.launch_server`
        (the launchers in front of it left out)."""
        words = self.command or self.argv
        if "-m" in words[:-1] and os.path.basename(words[0]).startswith(("python", "pypy")):
            return " ".join([words[0], "-m", words[words.index("-m") + 1]])
        return " ".join(words[:2])

    def path(self, model: str) -> str:
        """`model` as the server resolves a relative path: in the folder it runs in."""
        if self.cwd and not model.startswith(("/", "~")):
            return os.path.join(self.cwd, model)
        return model


@dataclass(frozen=True)
class DryRunVerdict:
    """The runtime's own start-up resolution of a launch (drafter_lint/dryrun/)."""
    verdict: str                       # "accepted" | "refused" | "unavailable"
    runtime: str = ""
    version: str = ""
    message: str = ""
    where: str = ""                    # the file:line that raised, when refused
    seconds: float = 0.0
    stage: str = ""                    # the last stage run: config, init or weights
    tensors: int = 0                   # header tensors the weights layer handed the loader
    load_seconds: float = 0.0          # how long the weights layer took
    unexplained: tuple[str, ...] = ()  # left unfilled, with no recorded load to judge it by

    @classmethod
    def of(cls, data, seconds: float) -> "DryRunVerdict":
        """The verdict a dry-run script wrote (JSON), its other keys left out. An accepted
        load that leaves parameters at their random init (runtimes/loads.py: beyond the
        draft class's placeholders at that release, and what the runtime shares from the
        target) is refused; with no recorded load of the class to tell placeholders, the
        unfilled parameters are only noted."""
        data = data if isinstance(data, dict) else {}

        def text(key: str, within: dict = data) -> str:
            value = within.get(key)
            return value if isinstance(value, str) else ""

        verdict = text("verdict")
        weights = data.get("weights") if isinstance(data.get("weights"), dict) else {}
        unfilled = [n for n in weights.get("unfilled") or () if isinstance(n, str)]
        tensors = weights.get("tensors") if isinstance(weights.get("tensors"), int) else 0
        took = weights.get("seconds")
        took = float(took) if isinstance(took, (int, float)) and not isinstance(took, bool) \
            else 0.0
        resolved = data.get("resolved") if isinstance(data.get("resolved"), dict) else {}
        draft = text("draft_class") or text("draft_class", resolved)
        out = cls(verdict if verdict in ("accepted", "refused") else "unavailable",
                  text("runtime"), text("version"),
                  text("message") or ("" if verdict else "the dry run wrote no verdict"),
                  text("where"), seconds, text("stage") or ("weights" if weights else ""),
                  tensors, took)
        if out.verdict != "accepted" or not unfilled:
            return out
        left, recorded = left_at_init(out.runtime, out.version, draft, unfilled)
        if not recorded:
            return dataclasses.replace(out, unexplained=tuple(left))
        if not left:
            return out
        return dataclasses.replace(
            out, verdict="refused", where="its weight loading",
            message=f"{draft}'s load leaves {', '.join(left)} unfilled: no tensor of the "
                    f"checkpoint fills {'it' if len(left) == 1 else 'them'} and the "
                    f"runtime does not share {'it' if len(left) == 1 else 'them'} from the "
                    f"target, so the draft runs with random weights there")

    @property
    def refused(self) -> bool:
        return self.verdict == "refused"
