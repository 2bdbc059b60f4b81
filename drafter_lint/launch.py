"""A server launch as read: the line `gate` parses (drafter_lint/gate.py), or the settings
`check --num-speculative-tokens` gives without one. Rules read it through `facts.launch`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from drafter_lint.runtimes import Release


@dataclass
class Launch:
    runtime: str | None = None         # "vllm" | "sglang"; None: settings without a line
    argv: list[str] = field(default_factory=list)   # the line to exec (no VAR=value prefix)
    env: dict[str, str] = field(default_factory=dict)   # what the line sets for the server
    exec_env: dict[str, str] = field(default_factory=dict)   # the prefix, for the exec
    inherited: dict[str, str] = field(default_factory=dict)  # the gate's own environment
    target: str | None = None
    draft: str | None = None
    method: str | None = None
    tokens: int | None = None          # vLLM num_speculative_tokens / SGLang draft tokens
    context_length: int | None = None  # SGLang --context-length: the draft's too
    max_model_len: int | None = None   # vLLM --max-model-len: the server's context
    hf_overrides: dict = field(default_factory=dict)   # vLLM --hf-overrides: the target's config
    draftless: bool = False            # ngram/suffix: no draft checkpoint to lint
    server_args: list[str] = field(default_factory=list)   # what the server's parser reads
    legacy_flags: list[str] = field(default_factory=list)  # --speculative-model and such
    flag_problems: list[str] = field(default_factory=list)   # what the parser refuses (LCH108)
    flags_for: Release | None = None   # the release whose grammar read the flags, if any
    command: list[str] = field(default_factory=list)   # the server line behind launchers
    env_cleared: bool = False          # `env -i`: the server sees only `env`
    unset: set = field(default_factory=set)   # `env -u NAME`: not inherited by the server
    cwd: str | None = None             # `env -C DIR`, `uv run --directory DIR`: where it runs
    uv_project: str | None = None      # `uv run --project DIR`
    speculators_direct: bool = False   # `vllm serve SPECULATOR`: it names its verifier
    target_revision: str | None = None  # the hub revisions the server loads (else main)
    draft_revision: str | None = None
    release: Release | None = None     # the release installed behind it (or --runtime's)
    dry_run: dict | None = None        # the runtime's own start-up verdict (gate)

    @property
    def environment(self) -> dict[str, str]:
        """What the server process sees: the inherited environment (unless `env -i`) with
        the line's own assignments over it."""
        if self.env_cleared:
            return dict(self.env)
        kept = {k: v for k, v in self.inherited.items() if k not in self.unset}
        return {**kept, **self.env}

    @property
    def server(self) -> str:
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

    def count(self, runtime: str) -> int | None:
        """The token count in `runtime`'s own terms: vLLM's `num_speculative_tokens`, SGLang's
        `--speculative-num-draft-tokens`. Settings without a line (`check
        --num-speculative-tokens`) are vLLM's."""
        return self.tokens if (self.runtime or "vllm") == runtime else None
