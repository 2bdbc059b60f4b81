"""What one lint run is asked for, made once by the pipeline (drafter_lint/pipeline.py)
from the command line and the settings files, and read by the engine and the rules
(through `Facts`): no option travels in a dict."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

from drafter_lint.reference import Reference
from drafter_lint.registry import Rule
from drafter_lint.target import Target


@dataclass(frozen=True)
class Options:
    rules: Mapping[str, Rule] = field(default_factory=dict)   # the rules to run (code -> Rule)
    select: tuple[str, ...] = ()          # codes or prefixes (`DF1`); empty: every rule
    ignore: tuple[str, ...] = ()          # codes or prefixes; wins over select
    target: Target | None = None          # --target, or the card's base_model
    reference: Reference | None = None    # --reference / --from-hub
    family: str | None = None             # --family: no detection
    runtime: object = None                # --runtime (str) or a runtimes.Release; None: every
    #                                       serving runtime's newest release
    launch: Mapping = field(default_factory=dict)   # the launch's settings (`gate`, or
    #                                       --num-speculative-tokens): num_speculative_tokens,
    #                                       method, runtime, env, dry_run, ...
    use_cache: bool = True                # --no-cache turns result caches off
    settings: object = None               # settings.Settings of the folder, once applied
    baseline: list | None = None          # the baseline's entries
    baseline_path: Path | None = None

    def but(self, **changes) -> "Options":
        """A copy with `changes` (the options are never changed in place)."""
        return replace(self, **changes)
