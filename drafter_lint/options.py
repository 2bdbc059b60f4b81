"""What one lint run is asked for, made once by the pipeline (drafter_lint/pipeline.py)
from the command line and the settings files, validated there, and read by the engine and
the rules (through `Facts`): typed values, never strings to parse again."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from drafter_lint.card import CardLine
from drafter_lint.launch import DryRunVerdict, LaunchLine, ServerContext, empty
from drafter_lint.readonly import readonly
from drafter_lint.reference import Reference
from drafter_lint.registry import Rule
from drafter_lint.runtimes import Release
from drafter_lint.target import Target

@dataclass(frozen=True)
class Options:
    rules: Mapping[str, Rule] = field(default_factory=empty)   # code -> Rule, read-only
    select: tuple[str, ...] = ()          # codes or prefixes (`DF1`); empty: every rule
    ignore: tuple[str, ...] = ()          # codes or prefixes; wins over select
    target: Target | None = None          # --target, or the card's base_model
    reference: Reference | None = None    # --reference / --from-hub
    family: str | None = None             # --family: no detection
    runtime: Release | None = None        # --runtime, the settings' or the launch's release;
    #                                       None: every serving runtime's newest release
    card_line: CardLine | None = None     # the model card's line this lint speaks for
    card_base_missing: str | None = None  # why the card's base_model is not on the hub
    card: bool = True                     # lint the model card's lines and pinned release
    #                                       (off where only the checkpoint is judged)
    launch: LaunchLine | None = None      # the launch line (`gate`, a card's line), or the
    #                                       settings check takes without one
    #                                       (--num-speculative-tokens, --env)
    server: ServerContext | None = None   # where the line's server runs: its environment
    #                                       (check's --env), the release behind it
    dry_run: DryRunVerdict | None = None  # the runtime's own start-up verdict (gate)
    use_cache: bool = True                # --no-cache turns result caches off
    settings: object = None               # settings.Settings of the folder, once applied
    #                                       (a frozen dataclass; settings.py imports the
    #                                       rules, which import this module)
    baseline: tuple | None = None         # the baseline's entries
    baseline_path: Path | None = None

    def __post_init__(self):
        # read-only however made, all the way down (the house test walks it): a rule table
        # given as a dict is wrapped, not copied; the baseline's entries made read-only
        if not isinstance(self.rules, MappingProxyType):
            object.__setattr__(self, "rules", MappingProxyType(self.rules))
        if self.baseline is not None:
            object.__setattr__(self, "baseline", readonly(tuple(self.baseline)))

    def but(self, **changes) -> "Options":
        """A copy with `changes` (the options are never changed in place)."""
        return replace(self, **changes)
