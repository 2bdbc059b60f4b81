"""What a rule reports: findings addressed by JSON pointer, fixes as RFC 6902 edits."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

# C0 and C1 controls, DEL, and the invisible or reordering characters a hostile name can
# use to rewrite a terminal line (bidi overrides and isolates, zero-width marks).
_INVISIBLE = [*range(0x200B, 0x2010), 0x2028, 0x2029, *range(0x202A, 0x202F),
              *range(0x2060, 0x206A), 0xFEFF]
_CONTROL = ({c: f"\\x{c:02x}" for c in [*range(32), *range(0x7F, 0xA0)]}
            | {c: f"\\u{c:04x}" for c in _INVISIBLE}
            | {10: "\\n", 13: "\\r", 9: "\\t"})


def one_line(text: str) -> str:
    """`text` with control and invisible characters escaped, for everything printed that
    came from outside: messages, names, values and paths, in every format."""
    return str(text).translate(_CONTROL)


def describe(exc: BaseException) -> str:
    """One plain sentence for an error from reading a file: no `[Errno 2]`, no Python
    internals ("maximum recursion depth ...")."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return "; ".join(lines[:3]) if lines else type(exc).__name__


def escape_lines(text: str) -> str:
    """`one_line` for each line of a multi-line text (a diff), keeping the line breaks."""
    return "".join(one_line(line) + "\n" for line in text.splitlines())


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Applicability(enum.IntEnum):
    """How a fix may be applied, ordered as ruff orders them: a display-only fix is shown,
    never applied; an unsafe one is applied with --unsafe-fixes; a safe one by `fix`."""

    DISPLAY_ONLY = 0     # a candidate to check by hand (a guess from a table or a depth)
    UNSAFE = 1           # right for most drafters of the family, not provably for this one
    SAFE = 2             # leaves what the runtime computes as the drafter was trained

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")

    @classmethod
    def of(cls, value) -> "Applicability":
        """`Applicability` from itself or its label ("safe", "unsafe", "display-only")."""
        return value if isinstance(value, cls) else cls[str(value).upper().replace("-", "_")]


SAFE, UNSAFE, DISPLAY_ONLY = Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY


@dataclass(frozen=True)
class Fix:
    """RFC 6902 operations on config.json; safe ones apply by default."""

    applicability: Applicability
    edits: tuple[dict, ...]

    def __post_init__(self):
        object.__setattr__(self, "applicability", Applicability.of(self.applicability))

    def to_json(self) -> dict:
        return {"applicability": self.applicability.label,
                "edits": [dict(e) for e in self.edits]}


def replace(path: str, value: object, applicability=UNSAFE) -> Fix:
    return Fix(applicability, ({"op": "replace", "path": path, "value": value},))


def add(path: str, value: object, applicability=UNSAFE) -> Fix:
    return Fix(applicability, ({"op": "add", "path": path, "value": value},))


def remove(path: str, applicability=UNSAFE) -> Fix:
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
    # a hub collection's repo (`check --hub-author`): its commit, the verdict per runtime
    # release, or the one line saying why it could not be read
    commit: str | None = None
    verdicts: dict[str, str] | None = None
    ranges: dict[str, dict] | None = None   # runtime -> releases with no error (`--ranges`)
    error: str | None = None
    # the path assumed where a release's own code branches ("vLLM 0.25.0: its V2 model
    # runner, the default for dense targets such as Qwen3ForCausalLM")
    paths: list[str] | None = None

    def to_json(self) -> dict:
        out = {
            "path": self.path,
            "family": self.family,
            "target": self.target,
            "reference": self.reference,
            "findings": [f.to_json() for f in self.findings],
            "skipped": [s.to_json() for s in self.skipped],
        }
        for key in ("commit", "verdicts", "ranges", "error", "paths"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out
