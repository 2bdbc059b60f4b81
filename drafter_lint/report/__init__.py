"""Turn results into output. Positions are resolved here, once, from each file's index."""

from __future__ import annotations

from drafter_lint import jsondoc
from drafter_lint.findings import Result, Severity


# --format NAME -> the module whose `render(results, options)` writes it (imported on use)
REPORTERS = {"text": "text", "concise": "concise", "json": "json_report", "sarif": "sarif",
             "github": "github"}


def render(fmt: str, results: list[Result], colour: bool = False, rules: dict | None = None
           ) -> str:
    """The report of `results` in format `fmt` (one of REPORTERS)."""
    import importlib

    module = importlib.import_module(f"drafter_lint.report.{REPORTERS[fmt]}")
    return module.render(results, {"colour": colour, "rules": rules or {}})


def locate(result: Result, documents: dict[str, jsondoc.JsonDocument]) -> None:
    """Fill line/column of findings in parsed JSON files (missing keys: nearest parent)."""
    for finding in result.findings:
        doc = documents.get(finding.file)
        if finding.line is None and doc is not None:
            finding.line, finding.column = doc.position(finding.pointer)
    result.findings.sort(key=lambda f: (f.file != "config.json", f.file, f.line or 0,
                                        f.column or 0, f.rule, f.pointer))


def location(result: Result, finding) -> str:
    """`path/file:line:col` (or `path/file` for a finding without a line)."""
    import os

    from drafter_lint.findings import one_line

    where = one_line(os.path.join(result.path, finding.file))
    return where + (f":{finding.line}:{finding.column}" if finding.line is not None else "")


def summary(results: list[Result]) -> dict[str, int]:
    counts = {s.value: 0 for s in Severity}
    for result in results:
        for finding in result.findings:
            counts[finding.severity.value] += 1
    return counts


def failing(results: list[Result], fail_on: Severity) -> bool:
    return any(f.severity.rank >= fail_on.rank for r in results for f in r.findings)
