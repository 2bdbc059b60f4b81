"""Which releases serve a checkpoint: the checkpoint read once, linted for every recorded
release of each runtime, the releases that draw no error grouped into ranges, and the
first error just outside each range (`drafter-lint releases`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from drafter_lint import __version__, runtimes
from drafter_lint.engine import facts_for, variants
from drafter_lint.findings import Finding, Severity, one_line
from drafter_lint.options import Options
from drafter_lint.registry import release_dependent
from drafter_lint.report import locate


@dataclass
class Outside:
    release: str          # the release just outside a range
    finding: Finding      # its first error


@dataclass
class Serving:
    runtime: str
    ranges: list[tuple[str, str]] = field(default_factory=list)   # (first, last) release
    outside: list[Outside] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"ranges": [{"from": a, "to": b} for a, b in self.ranges],
                "outside": [{"release": o.release, "rule": o.finding.rule,
                             "pointer": o.finding.pointer, "message": o.finding.message}
                            for o in self.outside]}


def errors(checkpoint, options: Options, release, facts=None) -> list[Finding]:
    """The errors a lint for `release` reports (the folder's settings applied; the card,
    which speaks for one release, not linted), in the reporter's order: a variant of the
    checkpoint's lint, sharing `facts` (engine.variants)."""
    result, = variants(checkpoint, options, [dict(runtime=release, card=False)], facts,
                       settings=True)
    locate(result, checkpoint.documents)
    return [f for f in result.findings if f.severity is Severity.ERROR]


def serving(checkpoint, options: Options, runtime: str,
            step: Callable[[str], None] = lambda _: None) -> Serving:
    """Every recorded release of `runtime`, oldest first, grouped by whether it draws an
    error; each range's neighbours give their first error. `step` is told each release
    as it is linted (a progress bar). The release-free rules (what transformers loads,
    the reference) do not run: they say the same for every release."""
    options = options.but(rules=release_dependent(options.rules), card=False)
    out = Serving(runtime)
    first: dict[str, Finding | None] = {}
    order = list(runtimes.PUBLISHED[runtime])
    facts = facts_for(checkpoint, options)          # what no release changes, once
    for version in order:
        step(f"{runtimes.LABEL[runtime]} {version}")
        found = errors(checkpoint, options, runtimes.parse(f"{runtime}=={version}"), facts)
        first[version] = found[0] if found else None
    start = None
    for i, version in enumerate(order + [None]):
        clean = version is not None and first[version] is None
        if clean and start is None:
            start = i
        if not clean and start is not None:
            out.ranges.append((order[start], order[i - 1]))
            for j in (start - 1, i):
                if 0 <= j < len(order) and first[order[j]] is not None and \
                        all(o.release != order[j] for o in out.outside):
                    out.outside.append(Outside(order[j], first[order[j]]))
            start = None
    if not out.ranges and order:
        out.outside.append(Outside(order[-1], first[order[-1]]))
    return out


def _span(first: str, last: str) -> str:
    return first if first == last else f"{first}-{last}"


def render(report, fmt: str) -> str:
    """`report`, [(checkpoint, [Serving])], as text, JSON or a Markdown table."""
    if fmt == "json":
        return json.dumps({"checkpoints": [
            {"path": path, "runtimes": {s.runtime: s.to_json() for s in found}}
            for path, found in report]}, indent=2) + "\n"
    lines = []
    for path, found in report:
        if fmt == "markdown":
            lines += [f"Releases that serve `{path}` (drafter-lint {__version__}):", "",
                      "| Runtime | Releases with no error | Just outside |", "| --- | --- | --- |"]
        else:
            lines.append(f"{path}:")
        for s in found:
            name = runtimes.LABEL[s.runtime]
            spans = ", ".join(_span(a, b) for a, b in s.ranges) or "none"
            outside = [f"{o.release}: {o.finding.rule} {one_line(o.finding.message)}"
                       for o in s.outside]
            if fmt == "markdown":
                cell = "<br>".join(x.replace("|", "\\|") for x in outside) or "-"
                lines.append(f"| {name} | {spans} | {cell} |")
            else:
                lines.append(f"  {name}: serves {spans}")
                lines += [f"    {x}" for x in outside]
        lines.append("")
    return "\n".join(lines)
