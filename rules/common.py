"""Checks more than one family's rules make the same way."""

from __future__ import annotations

from drafter_lint.facts import Facts
from drafter_lint.findings import Finding


def target_hidden_size_differs(facts: Facts) -> Finding | None:
    """`target_hidden_size`, when written, against the target's `hidden_size` (the width
    `fc` takes per tap, for DFlash and EAGLE-3 alike)."""
    written, target = facts.int("/target_hidden_size"), facts.target.hidden_size
    if written is None or not target or written == target:
        return None
    return Finding("/target_hidden_size", f"target_hidden_size is {written} but the target "
                   f"({facts.target.display}) has hidden_size {target}")


def architecture_names(facts: Facts) -> set[str]:
    """The class names `architectures` lists (none when it is not a list of strings)."""
    written = facts.get("/architectures", None)
    return {a for a in written if isinstance(a, str)} if isinstance(written, list) else set()
