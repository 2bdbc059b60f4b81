"""Rule metadata. A rule is one generator function; its docstring is its `explain` page."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Callable, Iterable

from drafter_lint.family import FAMILIES
from drafter_lint.findings import Finding, Severity

# Facts a rule can need; when one is missing the rule is reported as skipped.
NEEDS = {
    "config": "config.json could not be read as a JSON object",
    "weights": "no safetensors weights in the checkpoint",
    "target": "no target given (--target)",
    "reference": "no reference given (--reference or --from-hub)",
    "loaded": "transformers is not installed",
    "launch": "no launch settings given (--num-speculative-tokens, or `gate`)",
    "suppressions": "no ignores or baseline apply",
    "tokenizer": "no tokenizer.json or tokenizer_config.json in the target or the checkpoint",
}


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    family: str          # a family of drafter_lint.family.FAMILIES, or "any"
    needs: tuple[str, ...]
    fix: str             # as declared: "none" | "safe" | "unsafe" | "sometimes"
    summary: str
    doc: str
    check: Callable[..., Iterable[Finding]]
    phase: str = "check"   # "suppression": runs after ignores and the baseline are applied

    @property
    def severities(self) -> tuple[str, ...]:
        """Every severity the rule can report at, most severe first: its default and each
        `Severity.X` its function names (read from its source)."""

        found = {self.severity.value}
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(self.check)))
        except (OSError, TypeError, SyntaxError):
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == "Severity" and node.attr in ("ERROR", "WARNING", "INFO"):
                found.add(node.attr.lower())
        return tuple(s for s in ("error", "warning", "info") if s in found)

    @property
    def fix_availability(self) -> str:
        """Whether findings carry a fix: "always", "sometimes" or "never"."""
        return {"none": "never", "sometimes": "sometimes"}.get(self.fix, "always")

    @property
    def fix_applicability(self) -> str | None:
        """How its fixes apply: "safe", "unsafe", "per finding" (each Fix says), or None."""
        return {"none": None, "sometimes": "per finding"}.get(self.fix, self.fix)

    def to_json(self) -> dict:
        return {"code": self.code, "name": self.name, "severity": self.severity.value,
                "severities": list(self.severities), "family": self.family, "needs": list(self.needs), "fix": self.fix,
                "fix_availability": self.fix_availability,
                "fix_applicability": self.fix_applicability, "summary": self.summary}


def rule(code: str, name: str, severity: str, family: str,
         needs: tuple[str, ...] = ("config",), fix: str = "none", phase: str = "check"):
    """Declare a rule; the decorated function yields Findings from a Facts object."""

    for need in needs:
        if need not in NEEDS:
            raise ValueError(f"{code}: unknown need {need!r}")
    if family not in FAMILIES and family != "any":
        raise ValueError(f"{code}: unknown family {family!r}")

    def wrap(function):
        doc = inspect.cleandoc(function.__doc__ or "")
        if not doc:
            raise ValueError(f"{code}: a rule needs a docstring")
        function.rule = Rule(code, name, Severity(severity), family, needs, fix,
                             doc.splitlines()[0], doc, function, phase)
        return function

    return wrap


def collect(*functions) -> dict[str, Rule]:
    """Code -> Rule for the given rule functions; codes and names must be unique."""
    rules: dict[str, Rule] = {}
    names: set[str] = set()
    for function in functions:
        r = function.rule
        if r.code in rules or r.name in names:
            raise ValueError(f"duplicate rule {r.code} {r.name}")
        rules[r.code] = r
        names.add(r.name)
    return rules
