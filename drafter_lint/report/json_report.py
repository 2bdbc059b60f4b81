"""`--format json`: the JSON report (schema_version 1, schemas/report.schema.json)."""

from __future__ import annotations

import json

from drafter_lint import __version__
from drafter_lint.findings import Result
from drafter_lint.report.common import summary

SCHEMA_VERSION = 1


def render(results: list[Result], options: dict | None = None) -> str:
    report = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "drafter-lint", "version": __version__},
        "results": [r.to_json() for r in results],
        "summary": summary(results),
    }
    return json.dumps(report, indent=2) + "\n"
