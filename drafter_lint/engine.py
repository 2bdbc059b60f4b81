"""Run the rules on one checkpoint: family, needs, selection, skipped checks."""

from __future__ import annotations

from dataclasses import replace

from drafter_lint import runtimes
from drafter_lint.checkpoint import CARD, Checkpoint
from drafter_lint.command import locate, read
from drafter_lint.errors import GateError
from drafter_lint.facts import Facts
from drafter_lint.family import detect, schemas
from drafter_lint.findings import Finding, Result, Severity, Skipped, one_line
from drafter_lint.loading import loads_through_transformers, start
from drafter_lint.options import Options
from drafter_lint.registry import NEEDS, Rule, release_dependent
from drafter_lint.settings import baseline_key, baseline_prefix
from drafter_lint.structure import load_schema

MAX_FINDINGS_PER_RULE = 50  # a broken 100k-tensor file must not print 100k lines
STOP_COUNTING = 1000        # ... nor spend its time building them


def selected(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """`select`/`ignore` hold codes or prefixes (`DF1`, `DF`); ignore wins."""
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(i) for i in ignore)


def runs(rule: Rule, select: tuple[str, ...]) -> bool:
    """A removed rule never runs; a preview rule only when selected by its full code."""
    if rule.status == "removed":
        return False
    return rule.status != "preview" or rule.code in select


def _missing_need(rule: Rule, facts: Facts) -> str | None:
    for need in rule.needs:
        if need == "config" and facts.checkpoint.config is None:
            return NEEDS[need]
        if need == "weights" and facts.weights is None:
            return NEEDS[need]
        if need == "weights" and facts.checkpoint.unreadable_shards:
            # judged on a part of the weights, every rule would report the rest missing
            shards = facts.checkpoint.unreadable_shards
            return (f"{shards[0]}{f' and {len(shards) - 1} more' if len(shards) > 1 else ''}"
                    f" cannot be read (DL004)")
        if need == "target" and facts.target is None:
            return NEEDS[need]
        if need == "launch" and facts.options.launch is None:
            return NEEDS[need]
        if need == "card" and facts.options.card_line is None:
            return NEEDS[need]
        if need == "loaded" and facts.loaded is None:
            if not loads_through_transformers(facts.family, facts.checkpoint.config):
                return (f"{facts.family} configs are read by the runtime's own config "
                        f"class, not a transformers one")
            return NEEDS[need]
        if need == "reference" and facts.reference is None:
            return NEEDS[need]
        if need == "tokenizer" and facts.tokenizer is None:
            return NEEDS[need]
    return None


def facts_for(checkpoint: Checkpoint, options: Options) -> Facts:
    """What the rules of one checkpoint see; the family is the one detected when it was read
    (or --family)."""
    family = options.family or checkpoint.family or detect(checkpoint.config,
                                                           _tensor_names(checkpoint))
    facts = Facts(checkpoint, options, family)
    facts.schemas = [s for s in (load_schema(name) for name in schemas(family)) if s]
    wanted = [r for c, r in options.rules.items()
              if selected(c, options.select, options.ignore)]
    if checkpoint.config_doc is not None and any("loaded" in r.needs for r in wanted):
        if loads_through_transformers(family, checkpoint.config):
            facts.pending_load = start(checkpoint.config_doc.text, family, options.use_cache)
    return facts


def lint(checkpoint: Checkpoint, options: Options, facts: Facts | None = None) -> Result:
    """Run the check-phase rules of `options` on one checkpoint."""
    facts = facts or facts_for(checkpoint, options)
    family, target, reference = facts.family, options.target, options.reference
    select, ignore = options.select, options.ignore
    result = Result(path=checkpoint.display, family=family,
                    target=target.display if target else None,
                    reference=reference.display if reference else None)
    for code, rule in sorted(options.rules.items()):
        if not selected(code, select, ignore):
            continue
        if rule.family != "any" and rule.family not in facts.families:
            continue  # another family's rule: not a skipped check
        if rule.phase != "check" or not runs(rule, select):
            continue
        if "card" in rule.needs and checkpoint.card is None:
            continue  # no model card: nothing of it to check, not a skipped check
        reason = _missing_need(rule, facts)
        if reason:
            result.skipped.append(Skipped(code, reason))
            continue
        count, stopped = 0, False
        for finding in rule.check(facts):
            count += 1
            if count > MAX_FINDINGS_PER_RULE:
                if count >= STOP_COUNTING:
                    stopped = True
                    break
                continue
            finding.rule, finding.name = rule.code, rule.name
            if finding.file == "config.json":
                finding.pointer = facts.where(finding.pointer)
            finding.severity = finding.severity or rule.severity
            finding.message, finding.file = one_line(finding.message), one_line(finding.file)
            result.findings.append(finding)
        if count > MAX_FINDINGS_PER_RULE:
            more = f"{count - MAX_FINDINGS_PER_RULE}{'+' if stopped else ''}"
            result.findings.append(Finding("", f"{more} more {code} findings in this "
                                           f"checkpoint are not listed", file=finding.file,
                                           severity=rule.severity, rule=code, name=rule.name))
    paths = [f"{runtimes.on_runner(release, '').label}: its {release.runner.upper()} model "
             f"runner, {release.why}" for release in facts.releases if release.shown]
    result.paths = paths or None
    if checkpoint.unread_shards and selected("DL005", select, ignore):
        read = len(checkpoint.headers)
        result.skipped.append(Skipped("DL005", f"{len(checkpoint.unread_shards)} of "
                                      f"{read + len(checkpoint.unread_shards)} shards not read: "
                                      f"the {family} rules need only the shards holding "
                                      f"their tensors"))
    return result


def lint_with_settings(checkpoint: Checkpoint, options: Options) -> Result:
    """`lint`, and the model card's launch lines when no launch is given, then the folder's
    settings (severities, per-path ignores) and baseline: the one pipeline `check`, `fix`
    (each planning round) and `gate` run."""
    facts = facts_for(checkpoint, options)
    result = lint(checkpoint, options, facts)
    if options.launch is None and options.card and checkpoint.card is not None:
        found, linted = card_findings(checkpoint, options)
        result.findings += found + pinned_findings(checkpoint, options, result)
        result.skipped = [s for s in result.skipped if s.rule not in linted]
        if checkpoint.card.unread and selected("CRD101", options.select, options.ignore):
            result.skipped.append(Skipped("CRD101", f"{checkpoint.card.unread}: its launch "
                                                    f"lines and pins are not checked"))
    if options.settings is not None:
        suppress(result, facts)
    return result


def card_findings(checkpoint: Checkpoint, options: Options) -> tuple[list[Finding], set]:
    """Each launch line of the model card linted as the gate would lint it (the rules that
    read a launch, and the card rules), with the findings moved to the line in README.md,
    and the codes that ran on a line. A line speaks for `options.runtime` when it is the
    line's runtime, else for the release the card pins (`pip install vllm==X`), else the
    newest recorded. A card finding carries no fix: `fix` does not edit cards."""
    codes = tuple(c for c, r in options.rules.items()
                  if ("launch" in r.needs or "card" in r.needs)
                  and selected(c, options.select, options.ignore))
    out, seen, linted = [], set(), set()
    for line in checkpoint.card.lines:
        if line.problem:
            continue                                  # CRD101 says it
        try:     # flags as the release the card pins (or --runtime) reads them (LCH108);
            # an unpinned card may be written for any release: the gate's own lists
            launch = locate(list(line.argv), inherited={})
            named = launch.runtime in checkpoint.card.pins or (
                options.runtime is not None and options.runtime.runtime == launch.runtime)
            read(launch, _card_release(launch.runtime, options, checkpoint.card.pins)
                 if named else None)
        except GateError as exc:
            unread = replace(line, problem=f"{exc}")
            found = lint(checkpoint, options.but(card_line=unread, select=("CRD101",),
                                                 ignore=()))
            out += [f for f in found.findings if selected(f.rule, options.select,
                                                          options.ignore)]
            continue
        if launch.draftless or not codes:
            continue
        launch.release = _card_release(launch.runtime, options, checkpoint.card.pins)
        found = lint(checkpoint, options.but(launch=launch, card_line=line, select=codes,
                                             ignore=(), runtime=launch.release))
        linted |= set(codes) - {s.rule for s in found.skipped}
        for finding in found.findings:
            _to_card(finding, line.line, line.column)
            key = (finding.rule, finding.line, finding.message)
            if key not in seen:
                seen.add(key)
                out.append(finding)
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




def pinned_findings(checkpoint: Checkpoint, options: Options, result: Result
                    ) -> list[Finding]:
    """The errors this checkpoint draws on the release the card installs (`pip install
    vllm==X`, or the oldest `>=X` allows) that the run's own lint does not draw, at the pin
    in README.md: a card's stated release is held to the facts."""
    codes = tuple(c for c, r in release_dependent(options.rules).items()
                  if "launch" not in r.needs and "card" not in r.needs
                  and selected(c, options.select, options.ignore))
    seen = {(f.rule, f.pointer) for f in result.findings if f.severity is Severity.ERROR}
    out = []
    for runtime, version in checkpoint.card.pins.items():
        if options.runtime is not None and options.runtime.runtime != runtime:
            continue
        try:
            release = runtimes.parse(f"{runtime}=={version}")
        except runtimes.UnknownRuntime:
            continue
        if release.version != version.split("+", 1)[0]:
            continue                       # not a recorded release: no facts speak for it
        line, column = checkpoint.card.pin_at[runtime]
        found = lint(checkpoint, options.but(runtime=release, select=codes, ignore=()))
        how = "which the card installs" if checkpoint.card.pin_op.get(runtime) == "==" \
            else "the oldest release the card allows"
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


def _tensor_names(checkpoint: Checkpoint):
    if checkpoint.index_doc is not None:
        return checkpoint.index_doc.value["weight_map"]
    return checkpoint.weights


def suppress(result: Result, facts: Facts) -> None:
    """Apply configured severities, per-path ignores and the baseline to `result`, then
    report ignores that matched nothing and stale baseline entries (DL009, DL010)."""
    checkpoint, options = facts.checkpoint, facts.options
    settings, baseline, baseline_path = options.settings, options.baseline, options.baseline_path

    def level(code: str) -> str | None:
        matches = [k for k in settings.severity if code.startswith(k)]
        return settings.severity[max(matches, key=len)] if matches else None

    keys = {(e["rule"], e["path"], e["pointer"]): e for e in baseline or []}
    used_keys = set()
    kept = []
    for finding in result.findings:
        if level(finding.rule):
            finding.severity = Severity(level(finding.rule))
        hit = next((i for i in settings.ignores if i.matches(finding)), None)
        if hit is not None:
            hit.used = True
            continue
        if baseline_path is not None:
            key = baseline_key(finding.rule, checkpoint.root, finding.file, finding.pointer,
                               baseline_path.parent, checkpoint.repo)
            if key in keys:
                used_keys.add(key)
                continue
        kept.append(finding)
    result.findings = kept
    stale = []
    if baseline_path is not None:
        prefix = baseline_prefix(checkpoint.root, baseline_path.parent, checkpoint.repo)
        stale = [e for k, e in keys.items() if k not in used_keys
                 and (e["path"] + "/").startswith(prefix)]
    facts.unused_ignores = [i for i in settings.ignores if not i.used]
    facts.stale_baseline = stale
    for code, rule in sorted(options.rules.items()):
        if rule.phase == "suppression" and selected(code, settings.select, settings.ignore):
            for finding in rule.check(facts):
                finding.rule, finding.name = rule.code, rule.name
                finding.severity = finding.severity or rule.severity
                finding.message = one_line(finding.message)
                # a baseline silences what it recorded, unused-ignore warnings included
                # (their file is the settings file, outside the checkpoint folder)
                if baseline_path is not None and code != "DL010" and baseline_key(
                        code, checkpoint.root, finding.file, finding.pointer,
                        baseline_path.parent, checkpoint.repo) in keys:
                    continue
                result.findings.append(finding)
