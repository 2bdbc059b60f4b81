"""`--format concise`: one line a finding, `path/file:line:col: CODE message`."""

from __future__ import annotations

import os

from drafter_lint.findings import Result


def render(results: list[Result]) -> str:
    lines = []
    for result in results:
        for f in result.findings:
            where = os.path.join(result.path, f.file)
            if f.line is not None:
                where += f":{f.line}:{f.column}"
            lines.append(f"{where}: {f.rule} {f.message}")
    return "".join(line + "\n" for line in lines)
