"""What a rule reports: findings addressed by JSON pointer, fixes as RFC 6902 edits."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

_CONTROL = {c: f"\\x{c:02x}" for c in range(32)} | {10: "\\n", 13: "\\r", 9: "\\t", 127: "\\x7f"}


def one_line(text: str) -> str:
    """`text` with control characters escaped: messages quote names from hostile files."""
    return text.translate(_CONTROL)


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True)
class Fix:
    """RFC 6902 operations on config.json; `safe` ones apply by default."""

    applicability: str  # "safe" | "unsafe"
    edits: tuple[dict, ...]

    def to_json(self) -> dict:
        return {"applicability": self.applicability, "edits": [dict(e) for e in self.edits]}


def replace(path: str, value: object, applicability: str = "unsafe") -> Fix:
    return Fix(applicability, ({"op": "replace", "path": path, "value": value},))


def add(path: str, value: object, applicability: str = "unsafe") -> Fix:
    return Fix(applicability, ({"op": "add", "path": path, "value": value},))


def remove(path: str, applicability: str = "unsafe") -> Fix:
    return Fix(applicability, ({"op": "remove", "path": path},))


@dataclass
class Finding:
    """One problem at one place. Rules fill pointer and message; the engine the rest."""

    pointer: str
    message: str
    file: str = "config.json"
    severity: Severity | None = None  # None: the rule's default
    fix: Fix | None = None
    rule: str = ""
    name: str = ""
    line: int | None = None    # resolved by the reporter
    column: int | None = None

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity.value,
            "file": self.file,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "fix": self.fix.to_json() if self.fix else None,
        }


@dataclass
class Skipped:
    rule: str
    reason: str

    def to_json(self) -> dict:
        return {"rule": self.rule, "reason": self.reason}


@dataclass
class Result:
    """Everything found in one checkpoint folder."""

    path: str
    family: str
    target: str | None = None
    reference: str | None = None
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "family": self.family,
            "target": self.target,
            "reference": self.reference,
            "findings": [f.to_json() for f in self.findings],
            "skipped": [s.to_json() for s in self.skipped],
        }
