"""The stages one checkpoint folder's lint runs, in order: the rules (`engine.lint`), the
model card (`card_lint.lint_card`), the folder's settings and baseline
(`engine.suppress`). `lint_with_settings` is the one path `check`, `fix` (each planning
round) and `gate` share."""

from __future__ import annotations

from drafter_lint.card_lint import lint_card
from drafter_lint.checkpoint import Checkpoint
from drafter_lint.engine import facts_for, lint, suppress
from drafter_lint.findings import Result
from drafter_lint.options import Options


def lint_with_settings(checkpoint: Checkpoint, options: Options) -> Result:
    """`lint`, and the model card's launch lines and pins when no launch is given, then
    the folder's settings (severities, per-path ignores) and baseline."""
    facts = facts_for(checkpoint, options)
    result = lint(checkpoint, options, facts)
    lint_card(checkpoint, options, result, facts)
    if options.settings is not None:
        suppress(result, facts)
    return result
