"""Run the rules on one checkpoint: family, needs, selection, skipped checks."""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.checkpoint import Checkpoint
from drafter_lint.facts import Facts
from drafter_lint.family import detect, schemas
from drafter_lint.findings import Finding, Result, Severity, Skipped, one_line
from drafter_lint.loading import loads_through_transformers, start
from drafter_lint.options import Options
from drafter_lint.registry import NEEDS, Rule
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


def facts_for(checkpoint: Checkpoint, options: Options, like: Facts | None = None) -> Facts:
    """What the rules of one checkpoint see; the family is the one detected when it was read
    (or --family). `like`: the facts of the same checkpoint under other options, whose
    family, schemas and transformers load are taken as they are."""
    family = like.family if like is not None else options.family or checkpoint.family or \
        detect(checkpoint.config, _tensor_names(checkpoint))
    facts = Facts(checkpoint, options, family)
    if like is not None:
        facts.schemas = like.schemas
    else:
        facts.schemas = [s for s in (load_schema(name) for name in schemas(family)) if s]
    wanted = [r for c, r in options.rules.items()
              if selected(c, options.select, options.ignore)]
    if like is not None and like.pending_load is not None:
        facts.pending_load = like.pending_load      # one load, answered once
    elif checkpoint.config_doc is not None and any("loaded" in r.needs for r in wanted):
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


def variants(checkpoint: Checkpoint, options: Options, changes, facts: Facts | None = None,
             settings: bool = False) -> list[Result]:
    """`checkpoint`, read once, linted again under `options` changed by each of `changes`
    (`Options.but` keywords: another release, launch line, card line or selection): one
    Result each, in order. The family, the schemas and the transformers load do not depend
    on those and are worked out once (`facts`, else here) and shared. With `settings`, the
    folder's severities, ignores and baseline apply to each, as to the folder's own lint.
    The card stage, `releases`, the collections' verdicts and `--ranges` all lint this
    way."""
    base = facts or facts_for(checkpoint, options)
    out = []
    for change in changes:
        varied = options.but(**change)
        each = facts_for(checkpoint, varied, like=base)
        result = lint(checkpoint, varied, each)
        if settings and varied.settings is not None:
            suppress(result, each)
        out.append(result)
    return out


def distinct(items, key) -> list:
    """`items` (findings of variants of one lint, or pairs carrying them) in order, each
    `key(item)` kept once: what the variants report alike is said once."""
    seen, out = set(), []
    for item in items:
        if key(item) not in seen:
            seen.add(key(item))
            out.append(item)
    return out


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
    used_keys, used_ignores = set(), set()
    kept = []
    for finding in result.findings:
        if level(finding.rule):
            finding.severity = Severity(level(finding.rule))
        hit = next((n for n, i in enumerate(settings.ignores) if i.matches(finding)), None)
        if hit is not None:
            used_ignores.add(hit)
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
    facts.unused_ignores = [i for n, i in enumerate(settings.ignores) if n not in used_ignores]
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
