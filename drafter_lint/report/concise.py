"""`--format concise`: one line a finding, `path/file:line:col: CODE message`."""

from __future__ import annotations

from drafter_lint.findings import Result
from drafter_lint.report.common import location


def render(results: list[Result], options: dict | None = None) -> str:
    lines = []
    for result in results:
        for f in result.findings:
            lines.append(f"{location(result, f)}: {f.rule} {f.severity.value} {f.message}")
    return "".join(line + "\n" for line in lines)
