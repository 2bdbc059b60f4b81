"""Rule metadata. A rule is one generator function; its docstring is its `explain` page."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Callable, Iterable

from drafter_lint.family import FAMILIES
from drafter_lint.findings import Applicability, Finding, Severity

# Facts a rule can need; when one is missing the rule is reported as skipped.
NEEDS = {
    "config": "config.json could not be read as a JSON object",
    "weights": "no safetensors weights in the checkpoint",
    "target": "no target given (--target)",
    "reference": "no reference given (--reference or --from-hub)",
    "loaded": "transformers is not installed",
    "launch": "no launch settings given (--num-speculative-tokens, or `gate`)",
    "card": "no launch line in a model card (README.md)",
    "suppressions": "no ignores or baseline apply",
    "tokenizer": "no tokenizer.json or tokenizer_config.json in the target or the checkpoint",
}


# needs whose findings no runtime release changes (what transformers loads, the reference)
RELEASE_FREE = ("loaded", "reference")


def release_dependent(rules: dict) -> dict:
    """The rules whose findings can differ from one release to another."""
    return {c: r for c, r in rules.items() if not set(r.needs) & set(RELEASE_FREE)}


# fix availability: whether a rule's findings carry a fix
AVAILABILITY = ("never", "sometimes", "always")
# rule lifecycle, as ruff has it: a preview rule runs only when selected by its full code;
# a deprecated one runs and says what replaces it; a removed one never runs, but its code
# stays meaningful (ignores, baselines and `explain` still know it)
STATUSES = ("stable", "preview", "deprecated", "removed")


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    family: str          # a family of drafter_lint.family.FAMILIES, or "any"
    needs: tuple[str, ...]
    fix: str             # availability: "never" | "sometimes" | "always"
    applies: Applicability | None   # the most its fixes may be applied (None: no fixes)
    summary: str
    doc: str
    check: Callable[..., Iterable[Finding]]
    phase: str = "check"   # "suppression": runs after ignores and the baseline are applied
    status: str = "stable"
    replaced_by: str = ""  # for a deprecated or removed rule: the code that says it now
    why: str = ""          # for a deprecated or removed rule: why (a runtime release, ...)

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
        return self.fix

    @property
    def fix_applicability(self) -> str | None:
        """The label of the most its fixes may be applied ("safe", "unsafe", "display-only")."""
        return self.applies.label if self.applies is not None else None

    def to_json(self) -> dict:
        return {"code": self.code, "name": self.name, "severity": self.severity.value,
                "severities": list(self.severities), "family": self.family,
                "needs": list(self.needs), "fix": self.fix,
                "fix_availability": self.fix_availability,
                "fix_applicability": self.fix_applicability, "status": self.status,
                "replaced_by": self.replaced_by or None, "summary": self.summary}


def page(rule: Rule, asked: str = "") -> str:
    """A rule's page, the one text `drafter-lint explain` prints and tools/docs.py writes
    to docs/rules/<CODE>.md: the metadata, then the docstring. `asked` is the code the
    user gave, when a redirect (rules.REDIRECTS) led from it to this rule."""
    parts = [f"{rule.code} {rule.name}"]
    if asked and asked != rule.code:
        parts.append(f"({asked} is now {rule.code}: ignores and baselines naming {asked} "
                     f"apply to it)")
    if rule.status != "stable":
        parts.append(f"Status: {rule.status}"
                     + (f", replaced by {rule.replaced_by}" if rule.replaced_by else "")
                     + (f": {rule.why}" if rule.why else "")
                     + (" (runs only when selected by its code)" if rule.status == "preview"
                        else " (never runs)" if rule.status == "removed" else ""))
    applies = f" ({rule.fix_applicability})" if rule.fix_applicability else ""
    also = [s for s in rule.severities if s != rule.severity.value]
    severity = rule.severity.value + (f" (also {', '.join(also)})" if also else "")
    parts.append(f"Severity: {severity}    Family: {rule.family}    "
                 f"Fix: {rule.fix_availability}{applies}    "
                 f"Needs: {', '.join(rule.needs) or '-'}")
    parts.append(rule.doc)
    return "\n\n".join(parts) + "\n"


def rule(code: str, name: str, severity: str, family: str,
         needs: tuple[str, ...] = ("config",), fix: str = "never",
         applies: Applicability | str | None = None, phase: str = "check",
         status: str = "stable", replaced_by: str = "", why: str = ""):
    """Declare a rule; the decorated function yields Findings from a Facts object.
    `fix` says whether its findings carry a fix (never / sometimes / always), `applies`
    the most applicable of those fixes (Applicability)."""
    for need in needs:
        if need not in NEEDS:
            raise ValueError(f"{code}: unknown need {need!r}")
    if family not in FAMILIES and family != "any":
        raise ValueError(f"{code}: unknown family {family!r}")
    if fix not in AVAILABILITY:
        raise ValueError(f"{code}: fix must be one of {AVAILABILITY}, not {fix!r}")
    if (fix == "never") != (applies is None):
        raise ValueError(f"{code}: a rule with fixes says how they apply, and only then")
    if status not in STATUSES:
        raise ValueError(f"{code}: unknown status {status!r}")
    if status in ("deprecated", "removed") and not why:
        raise ValueError(f"{code}: a {status} rule says why")

    def wrap(function):
        doc = inspect.cleandoc(function.__doc__ or "")
        if not doc:
            raise ValueError(f"{code}: a rule needs a docstring")
        function.rule = Rule(code, name, Severity(severity), family, needs, fix,
                             Applicability.of(applies) if applies is not None else None,
                             doc.splitlines()[0], doc, function, phase, status, replaced_by,
                             why)
        BY_MODULE.setdefault(function.__module__, []).append(function)
        return function

    return wrap


# rule functions by the module that declares them, as `@rule` registers them on import:
# a rule module lists nothing; rules/__init__.py names the modules
BY_MODULE: dict[str, list] = {}


def rules_of(module) -> dict[str, Rule]:
    """Code -> Rule of every `@rule` function of `module`, in source order."""
    return collect(*BY_MODULE.get(module.__name__, ()))


def undeclared_fix(rule: Rule, finding: Finding) -> str | None:
    """How `finding` breaks `rule`'s declared fixability, or None (the tests hold every
    finding of every case and corpus checkpoint to it)."""
    if rule.fix == "never" and finding.fix is not None:
        return f"{rule.code} declares no fix but yields one at {finding.pointer!r}"
    if rule.fix == "always" and finding.fix is None and finding.pointer:
        return f"{rule.code} declares a fix on every finding; none at {finding.pointer!r}"
    if finding.fix is not None and finding.fix.applicability > rule.applies:
        return (f"{rule.code} declares fixes up to {rule.applies.label}; "
                f"{finding.fix.applicability.label} at {finding.pointer!r}")
    return None


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
