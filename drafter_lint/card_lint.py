"""The model card stage: each launch line of README.md linted as the gate would lint it,
and the release the card pins held to the facts, both as variants of the folder's own
lint (`engine.variants`), with the findings moved to the card. The card is read once,
with its one front-matter parser, by drafter_lint/card.py (through checkpoint.py)."""

from __future__ import annotations

import re
from dataclasses import replace

from drafter_lint import runtimes
from drafter_lint.checkpoint import CARD, Checkpoint
from drafter_lint.command import locate, read
from drafter_lint.engine import MAX_FINDINGS_PER_RULE, distinct, selected, variants
from drafter_lint.errors import GateError
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Result, Severity, Skipped
from drafter_lint.options import Options
from drafter_lint.registry import release_dependent


def lint_card(checkpoint: Checkpoint, options: Options, result: Result, facts: Facts) -> None:
    """Add the card's findings to the folder's `result` (its lint under `options`, whose
    `facts` the variants share): its launch lines and its pinned release, unless a launch
    line is given (the gate speaks for its own line) or the card is not asked for."""
    if options.launch is not None or not options.card or checkpoint.card is None:
        return
    found, linted = card_findings(checkpoint, options, facts)
    result.findings += found + pinned_findings(checkpoint, options, result, facts)
    result.skipped = [s for s in result.skipped if s.rule not in linted]
    if checkpoint.card.unread and selected("CRD101", options.select, options.ignore):
        result.skipped.append(Skipped("CRD101", f"{checkpoint.card.unread}: its launch "
                                                f"lines and pins are not checked"))


def card_findings(checkpoint: Checkpoint, options: Options, facts: Facts | None = None
                  ) -> tuple[list[Finding], set]:
    """Each launch line of the model card linted as the gate would lint it (the rules that
    read a launch, and the card rules), with the findings moved to the line in README.md,
    and the codes that ran on a line. A line speaks for `options.runtime` when it is the
    line's runtime, else for the release the card pins (`pip install vllm==X`), else the
    newest recorded. A card finding carries no fix: `fix` does not edit cards."""
    codes = tuple(c for c, r in options.rules.items()
                  if ("launch" in r.needs or "card" in r.needs)
                  and selected(c, options.select, options.ignore))
    plans = []        # (card line, its variant, whether it is a launch linted), in order
    for line in checkpoint.card.lines:
        if line.problem:
            continue                                  # CRD101 says it
        try:     # flags as the release the card pins (or --runtime) reads them (LCH108);
            # an unpinned card may be written for any release: the gate's own lists
            server = locate(list(line.argv), inherited={})
            named = server.runtime in checkpoint.card.pins or (
                options.runtime is not None and options.runtime.runtime == server.runtime)
            launch = read(server, _card_release(server.runtime, options,
                                                checkpoint.card.pins) if named else None)
        except GateError as exc:
            unread = replace(line, problem=f"{exc}")
            plans.append((line, dict(card_line=unread, select=("CRD101",), ignore=()), False))
            continue
        if launch.draftless or not codes:
            continue
        release = _card_release(launch.runtime, options, checkpoint.card.pins)
        plans.append((line, dict(launch=launch, server=replace(server, release=release),
                                 card_line=line, select=codes, ignore=(), runtime=release),
                      True))
    results = variants(checkpoint, options, [change for _, change, _ in plans], facts)
    placed, linted = [], set()    # (finding, what makes it the same as another)
    for (line, _, launched), found in zip(plans, results):
        if not launched:
            placed += [(f, id(f)) for f in found.findings
                       if selected(f.rule, options.select, options.ignore)]
            continue
        linted |= set(codes) - {s.rule for s in found.skipped}
        for finding in found.findings:      # two launches on one line say a thing once
            _to_card(finding, line.line, line.column)
            placed.append((finding, (finding.rule, finding.line, finding.message)))
    out = [f for f, _ in distinct(placed, key=lambda pair: pair[1])]
    return _capped(out, options.rules), linted


def _capped(findings: list[Finding], rules: dict) -> list[Finding]:
    """At most MAX_FINDINGS_PER_RULE of each rule, then one line saying how many more (a
    card of 5,000 launch lines must not print 5,000 findings)."""
    counts: dict[str, int] = {}
    out = []
    for finding in findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
        if counts[finding.rule] <= MAX_FINDINGS_PER_RULE:
            out.append(finding)
    for code, count in counts.items():
        if count > MAX_FINDINGS_PER_RULE:
            rule = rules[code]
            out.append(Finding("", f"{count - MAX_FINDINGS_PER_RULE} more {code} findings on "
                               f"the model card's launch lines are not listed", file=CARD,
                               severity=rule.severity, rule=code, name=rule.name))
    return out


def pinned_findings(checkpoint: Checkpoint, options: Options, result: Result,
                    facts: Facts | None = None) -> list[Finding]:
    """The errors this checkpoint draws on the release the card installs (`pip install
    vllm==X`, or the oldest `>=X` allows) that the run's own lint does not draw, at the pin
    in README.md: a card's stated release is held to the facts."""
    codes = tuple(c for c, r in release_dependent(options.rules).items()
                  if "launch" not in r.needs and "card" not in r.needs
                  and selected(c, options.select, options.ignore))
    seen = {(f.rule, f.pointer) for f in result.findings if f.severity is Severity.ERROR}
    pins = []
    for runtime, version in checkpoint.card.pins.items():
        if options.runtime is not None and options.runtime.runtime != runtime:
            continue
        try:
            release = runtimes.parse(f"{runtime}=={version}")
        except runtimes.UnknownRuntime:
            continue
        # `0.15` is 0.15.0; a `.postN` build answers with its base's facts (parse says
        # so); a release outside the recorded range has no facts of its own: not judged
        if runtimes.version_key(release.version) != runtimes.version_key(
                re.sub(r"\.post\d+$", "", version.split("+", 1)[0])):
            continue
        pins.append((runtime, release))
    results = variants(checkpoint, options, [dict(runtime=release, select=codes, ignore=())
                                             for _, release in pins], facts)
    out = []
    for (runtime, release), found in zip(pins, results):
        line, column = checkpoint.card.pin_at[runtime]
        how = "which the card installs" if checkpoint.card.pin_op.get(runtime) == "==" \
            else "the oldest release the card allows"
        if release.asked:
            how += f" (its facts are {release.version}'s)"
        for finding in found.findings:
            if finding.severity is Severity.ERROR and \
                    (finding.rule, finding.pointer) not in seen:     # not already an error
                finding.message = f"with {release.label}, {how}: {finding.message}"
                out.append(_to_card(finding, line, column))
    return out


def _to_card(finding: Finding, line: int, column: int) -> Finding:
    """`finding` moved to README.md:line:column, without a fix (cards are not edited)."""
    finding.file, finding.line, finding.column, finding.fix = CARD, line, column, None
    return finding


def _card_release(runtime: str, options: Options, pins: dict) -> runtimes.Release:
    if options.runtime is not None and options.runtime.runtime == runtime:
        return options.runtime
    try:
        return runtimes.parse(f"{runtime}=={pins[runtime]}" if runtime in pins else runtime)
    except runtimes.UnknownRuntime:
        return runtimes.parse(runtime)
