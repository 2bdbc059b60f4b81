"""What every report format shares: where a finding is, counts, the fail-on test, and
positions resolved once from each file's index."""

from __future__ import annotations

import os

from drafter_lint import jsondoc
from drafter_lint.findings import Result, Severity, one_line


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
