"""Run the rules on one checkpoint: family, needs, selection, skipped checks."""

from __future__ import annotations

from drafter_lint.checkpoint import Checkpoint
from drafter_lint.facts import Facts
from drafter_lint.family import detect
from drafter_lint.findings import Finding, Result, Skipped, one_line
from drafter_lint.reference import Reference
from drafter_lint.registry import NEEDS, Rule
from drafter_lint.target import Target

MAX_FINDINGS_PER_RULE = 50  # a broken 100k-tensor file must not print 100k lines
STOP_COUNTING = 1000        # ... nor spend its time building them


def selected(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """`select`/`ignore` hold codes or prefixes (`DF1`, `DF`); ignore wins."""
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(i) for i in ignore)


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
        if need == "launch" and not facts.launch:
            return NEEDS[need]
        if need == "loaded" and facts.loaded is None:
            from drafter_lint.loading import loads_through_transformers

            if not loads_through_transformers(facts.family, facts.checkpoint.config):
                return (f"{facts.family} configs are read by the runtime's own config "
                        f"class, not a transformers one")
            return NEEDS[need]
        if need == "reference" and facts.reference is None:
            return NEEDS[need]
        if need == "tokenizer" and facts.tokenizer is None:
            return NEEDS[need]
    return None


def lint(checkpoint: Checkpoint, target: Target | None, rules: dict[str, Rule],
         select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
         reference: Reference | None = None, use_cache: bool = True,
         family: str | None = None, runtime: str | None = None,
         launch: dict | None = None) -> Result:
    from drafter_lint.structure import load_schema

    family = family or detect(checkpoint.config, _tensor_names(checkpoint))
    facts = Facts(checkpoint, target, family, [], reference, runtime=runtime,
                  launch=launch or {}, use_cache=use_cache)
    facts.schemas = [s for s in (load_schema(f) for f in sorted(facts.families)) if s]
    wanted = [r for c, r in rules.items() if selected(c, select, ignore)]
    if checkpoint.config_doc is not None and any("loaded" in r.needs for r in wanted):
        from drafter_lint.loading import loads_through_transformers, start

        if loads_through_transformers(family, checkpoint.config):
            facts.pending_load = start(checkpoint.config_doc.text, family, use_cache)
    result = Result(path=checkpoint.display, family=family,
                    target=target.display if target else None,
                    reference=reference.display if reference else None)
    for code, rule in sorted(rules.items()):
        if not selected(code, select, ignore):
            continue
        if rule.family != "any" and rule.family not in facts.families:
            continue  # another family's rule: not a skipped check
        if rule.phase != "check":
            continue
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
    if checkpoint.unread_shards and selected("DL005", select, ignore):
        read = len(checkpoint.headers)
        result.skipped.append(Skipped("DL005", f"{len(checkpoint.unread_shards)} of "
                                      f"{read + len(checkpoint.unread_shards)} shards not read: "
                                      f"the {family} rules need only the shards holding "
                                      f"their tensors"))
    return result


def lint_with_settings(checkpoint: Checkpoint, settings=None, baseline=None,
                       baseline_path=None, **lint_args) -> Result:
    """`lint`, then the folder's settings (severities, per-path ignores) and baseline: the
    one pipeline `check`, `fix` (each planning round) and `gate` run."""
    result = lint(checkpoint, **lint_args)
    if settings is not None:
        suppress(result, checkpoint, lint_args["rules"], settings, baseline, baseline_path)
    return result


def _tensor_names(checkpoint: Checkpoint):
    if checkpoint.index_doc is not None:
        return checkpoint.index_doc.value["weight_map"]
    return checkpoint.weights

def suppress(result: Result, checkpoint: Checkpoint, rules: dict[str, Rule], settings,
             baseline: list[dict] | None = None, baseline_path=None) -> None:
    """Apply configured severities, per-path ignores and the baseline to `result`, then
    report ignores that matched nothing and stale baseline entries (DL009, DL010)."""
    import os

    from drafter_lint.settings import baseline_key

    def level(code: str) -> str | None:
        matches = [k for k in settings.severity if code.startswith(k)]
        return settings.severity[max(matches, key=len)] if matches else None

    from drafter_lint.findings import Severity

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
                               baseline_path.parent)
            if key in keys:
                used_keys.add(key)
                continue
        kept.append(finding)
    result.findings = kept
    stale = []
    if baseline_path is not None:
        prefix = os.path.relpath(checkpoint.root.resolve(), baseline_path.parent.resolve())
        prefix = prefix.replace(os.sep, "/") + "/"
        stale = [e for k, e in keys.items() if k not in used_keys
                 and (e["path"] + "/").startswith(prefix)]
    facts = Facts(checkpoint, family=result.family,
                  unused_ignores=[i for i in settings.ignores if not i.used],
                  stale_baseline=stale, baseline_path=baseline_path)
    for code, rule in sorted(rules.items()):
        if rule.phase == "suppression" and selected(code, settings.select, settings.ignore):
            for finding in rule.check(facts):
                finding.rule, finding.name = rule.code, rule.name
                finding.severity = finding.severity or rule.severity
                finding.message = one_line(finding.message)
                # a baseline silences what it recorded, unused-ignore warnings included
                # (their file is the settings file, outside the checkpoint folder)
                if baseline_path is not None and code != "DL010" and baseline_key(
                        code, checkpoint.root, finding.file, finding.pointer,
                        baseline_path.parent) in keys:
                    continue
                result.findings.append(finding)
