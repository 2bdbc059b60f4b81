"""`--format text`: `path/file:line:col: CODE severity message`, like ruff."""

from __future__ import annotations

import click

from drafter_lint.findings import SAFE, UNSAFE, Result, one_line
from drafter_lint.report.common import location, summary

COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def render(results: list[Result], options: dict | None = None) -> str:
    colour = (options or {}).get("colour", False)
    def style(text: str, **kw) -> str:
        return click.style(text, **kw) if colour else text

    lines = []
    for result in results:
        for f in result.findings:
            mark = " [*]" if f.fix and f.fix.applicability == SAFE else ""   # as ruff
            lines.append(f"{style(location(result, f), bold=True)}: {style(f.rule, bold=True)}"
                         f"{mark} {style(f.severity.value, fg=COLOURS[f.severity.value])} "
                         f"{f.message}")
        for path in result.paths or ():
            lines.append(style(f"{one_line(result.path)}: path assumed: {path}", dim=True))
        reasons: dict[str, list[str]] = {}
        for s in result.skipped:
            reasons.setdefault(s.reason, []).append(s.rule)
        for reason, codes in reasons.items():
            lines.append(style(f"{one_line(result.path)}: skipped {len(codes)} "
                               f"check{'s' if len(codes) > 1 else ''}: {reason} "
                               f"({', '.join(codes)})", dim=True))
    counts = summary(results)
    total = sum(counts.values())
    read = sum(1 for r in results if r.error is None)    # a repo not read is no checkpoint
    folders = f"{read} checkpoint{'s' if read != 1 else ''}"
    if total:
        parts = [f"{n} {sev}{'s' if n != 1 and sev != 'info' else ''}"
                 for sev, n in counts.items() if n]
        lines.append(style(f"Found {', '.join(parts)} in {folders}.", bold=True))
        safe = sum(1 for r in results for f in r.findings
                   if f.fix and f.fix.applicability == SAFE)
        unsafe = sum(1 for r in results for f in r.findings
                     if f.fix and f.fix.applicability == UNSAFE)
        if safe:
            lines.append(f"[*] {safe} fixable with `drafter-lint fix`"
                         + (f" ({unsafe} more with --unsafe-fixes)" if unsafe else "") + ".")
        elif unsafe:
            lines.append(f"{unsafe} fixable with `drafter-lint fix --unsafe-fixes` "
                         f"(the rules' own guesses: review them).")
    elif read == 0 and results:      # every path or repo unreadable: nothing passed
        lines.append(style("Nothing was checked: no checkpoint could be read.", bold=True))
    else:
        lines.append(style(f"All checks passed ({folders}).", fg="green"))
    return "\n".join(lines) + "\n"
