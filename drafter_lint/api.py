"""The library face: `check` a drafter from Python and get the JSON report as typed objects.

`check` goes through the CLI's own preparation (`pipeline.prepare`, `roots`, `lint_folder`),
so settings files, baselines and rule selection apply as for `drafter-lint check`. It never
prints (notes go to `Report.notes`) and makes no network request unless `offline=False`.
Each call is a run of its own (`pipeline.prepare` makes its `Run`: nothing is shared between
calls), and calls are serialized by one lock: the process has one transformers loader
child, which answers one caller at a time.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from drafter_lint import __version__, pipeline
from drafter_lint.errors import DrafterLintError, WouldNotServe
from drafter_lint.report.common import summary

__all__ = ["DrafterLintError", "Finding", "Fix", "Report", "Result", "Skipped",
           "WouldNotServe", "assert_serves", "check"]

_RUN = threading.Lock()     # one run at a time: see the module docstring


@dataclass(frozen=True)
class Fix:
    """RFC 6902 edits on config.json and the most they may be applied."""

    applicability: str                      # "safe" | "unsafe" | "display-only"
    edits: tuple[Mapping[str, Any], ...]

    def to_json(self) -> dict:
        return {"applicability": self.applicability, "edits": [dict(e) for e in self.edits]}


@dataclass(frozen=True)
class Finding:
    """One finding, as the JSON report's `findings[]` has it."""

    rule: str
    name: str
    severity: str                           # "error" | "warning" | "info"
    file: str
    pointer: str                            # RFC 6901 pointer into `file`
    line: int | None
    column: int | None
    message: str
    fix: Fix | None

    def to_json(self) -> dict:
        return {"rule": self.rule, "name": self.name, "severity": self.severity,
                "file": self.file, "pointer": self.pointer, "line": self.line,
                "column": self.column, "message": self.message,
                "fix": self.fix.to_json() if self.fix else None}

    def __str__(self) -> str:
        place = ":".join(str(p) for p in (self.file, self.line, self.column) if p)
        return f"{place}: {self.rule} {self.severity} {self.message}"


@dataclass(frozen=True)
class Skipped:
    """A check that could not run, and why."""

    rule: str
    reason: str

    def to_json(self) -> dict:
        return {"rule": self.rule, "reason": self.reason}


_OPTIONAL = ("commit", "verdicts", "ranges", "error", "paths")


@dataclass(frozen=True)
class Result:
    """One checkpoint folder's result, as the JSON report's `results[]` has it."""

    path: str
    family: str
    target: str | None
    reference: str | None
    findings: tuple[Finding, ...]
    skipped: tuple[Skipped, ...]
    commit: str | None = None
    verdicts: Mapping[str, str] | None = None
    ranges: Mapping[str, Any] | None = None
    error: str | None = None
    paths: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        out = {"path": self.path, "family": self.family, "target": self.target,
               "reference": self.reference,
               "findings": [f.to_json() for f in self.findings],
               "skipped": [s.to_json() for s in self.skipped]}
        for key in _OPTIONAL:
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "paths" else value
        return out


@dataclass(frozen=True)
class Report:
    """The JSON report (schemas/report.schema.json, schema_version 1) as objects, with the
    notes the CLI would have printed on stderr."""

    results: tuple[Result, ...]
    summary: Mapping[str, int]
    schema_version: int = 1
    tool: Mapping[str, str] = field(
        default_factory=lambda: {"name": "drafter-lint", "version": __version__})
    notes: tuple[str, ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every result's findings, in order."""
        return tuple(f for r in self.results for f in r.findings)

    @property
    def errors(self) -> tuple[Finding, ...]:
        """The findings that stop a drafter from serving as trained."""
        return tuple(f for f in self.findings if f.severity == "error")

    def to_json(self) -> dict:
        """The report exactly as `drafter-lint check --format json` prints it."""
        return {"schema_version": self.schema_version, "tool": dict(self.tool),
                "results": [r.to_json() for r in self.results],
                "summary": dict(self.summary)}


def _finding(doc: Mapping) -> Finding:
    fix = doc["fix"]
    return Finding(doc["rule"], doc["name"], doc["severity"], doc["file"], doc["pointer"],
                   doc["line"], doc["column"], doc["message"],
                   Fix(fix["applicability"], tuple(fix["edits"])) if fix else None)


def _result(doc: Mapping) -> Result:
    return Result(doc["path"], doc["family"], doc["target"], doc["reference"],
                  tuple(_finding(f) for f in doc["findings"]),
                  tuple(Skipped(s["rule"], s["reason"]) for s in doc["skipped"]),
                  **{k: (tuple(doc[k]) if k == "paths" else doc[k])
                     for k in _OPTIONAL if k in doc})


def check(path: str | os.PathLike, *, target: str | os.PathLike | None = None,
          reference: str | os.PathLike | None = None, runtime: str | None = None,
          offline: bool = True, select: Iterable[str] = (),
          ignore: Iterable[str] = ()) -> Report:
    """Lint the checkpoint(s) at `path` (a folder, a file in one, a folder of checkpoints,
    or with `offline=False` a hub repo `org/name[@rev]`), as `drafter-lint check` does.

    `target` and `reference` are folders or hub repos; `runtime` is `vllm`, `sglang` or
    `reference`, optionally `==VERSION`; `select` / `ignore` take codes or prefixes.
    Raises a `DrafterLintError` (its `exit_code` is the CLI's) where the CLI exits 2."""
    notes: list[str] = []
    with _RUN:
        run = pipeline.prepare(
            target_arg=str(target) if target is not None else None,
            reference_arg=str(reference) if reference is not None else None,
            offline=offline, select=tuple(select), ignore=tuple(ignore),
            runtime=(runtime,) if runtime else (), note=notes.append)
        results = []
        for root in pipeline.roots(run, [os.fspath(path)]):
            result, _ = pipeline.lint_folder(run, root, note=notes.append)
            results.append(result)
    return Report(tuple(_result(r.to_json()) for r in results), summary(results),
                  notes=tuple(notes))


def assert_serves(path: str | os.PathLike, *, target: str | os.PathLike | None = None,
                  reference: str | os.PathLike | None = None, runtime: str | None = None,
                  offline: bool = True, select: Iterable[str] = (),
                  ignore: Iterable[str] = ()) -> Report:
    """`check` with the same arguments, raising `WouldNotServe` (an AssertionError whose
    text lists each error at its file:line:col) when any finding is an error; else the
    report."""
    report = check(path, target=target, reference=reference, runtime=runtime,
                   offline=offline, select=select, ignore=ignore)
    if report.errors:
        raise WouldNotServe(report)
    return report
