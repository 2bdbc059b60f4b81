"""Turn results into output. Positions are resolved here, once, from each file's index."""

from __future__ import annotations

from drafter_lint.findings import Result
from drafter_lint.report import concise, github, json_report, sarif, text
from drafter_lint.report.common import failing, locate, location, summary

__all__ = ["REPORTERS", "failing", "locate", "location", "render", "summary"]

# --format NAME -> the module whose `render(results, options)` writes it
REPORTERS = {"text": text, "concise": concise, "json": json_report, "sarif": sarif,
             "github": github}


def render(fmt: str, results: list[Result], colour: bool = False, rules: dict | None = None
           ) -> str:
    """The report of `results` in format `fmt` (one of REPORTERS)."""
    return REPORTERS[fmt].render(results, {"colour": colour, "rules": rules or {}})
