"""Every rule's cases (fixtures/rules/<CODE>/cases.json), held to what each asserts and to the
rule's snapshot of findings.

A failing case must draw the rule at its pointer and file with its severity, and a fix it
carries must make the finding go when applied; a passing case must draw nothing of the
rule. What the rule reports on each case is compared with `snapshot.json` beside it;
`UPDATE_SNAPSHOTS=1 pytest tests/test_rule_cases.py` rewrites the snapshots (review the
diff). tests/rulecases.py says what a case holds.
"""

from __future__ import annotations

import json
import os

import pytest
from drafter_lint.rules import RULES
from rulecases import (Case, all_cases, build, cases_of, lint_case, rules_with_cases,
                       snapshot_path)
from sparse import apply_ops

from drafter_lint.engine import lint
from drafter_lint.options import Options
from drafter_lint.registry import undeclared_fix


def transformers_major() -> str:
    from drafter_lint.loading import transformers_version

    return (transformers_version() or "").split(".")[0]


def recorded(finding, root) -> dict:
    """A finding as the snapshot keeps it: the case's folder written `<case>`, the installed
    transformers release `<installed>` (a snapshot is per major, not per release)."""
    from drafter_lint.loading import transformers_version

    message = finding.message.replace(str(root), "<case>")
    if transformers_version():
        message = message.replace(f"transformers {transformers_version()}",
                                  "transformers <installed>")
    entry = {"severity": finding.severity.value, "file": finding.file,
             "pointer": finding.pointer, "message": message}
    if finding.line is not None:
        entry["line"] = finding.line
    if finding.fix is not None:
        entry["fix"] = finding.fix.to_json()
    return entry


def dump_snapshot(snapshot: dict) -> str:
    """One line per finding, so that a review diff shows each finding that changed."""
    def one(value) -> str:
        return json.dumps(value, ensure_ascii=False)
    blocks = []
    for case, found in snapshot.items():
        inner = ",\n".join(f"  {one(f)}" for f in found)
        blocks.append(f" {one(case)}: [\n{inner}\n ]" if found else f" {one(case)}: []")
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def check_case(case: Case, root) -> list:
    """Lint the case, hold it to what it asserts, and return the rule's findings."""
    result = lint_case(case, root)
    mine = [f for f in result.findings if f.rule == case.rule]
    # each rule's fixes are what it declares (fix availability and applicability)
    assert not [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))], \
        (case.id, [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))])
    # `rules` / `explain` list every severity a rule fires at (DF114 is info and error)
    assert all(f.severity.value in RULES[f.rule].severities for f in result.findings), \
        (case.id, [(f.rule, f.severity.value, RULES[f.rule].severities)
                   for f in result.findings])
    assert case.rule not in [s.rule for s in result.skipped], f"{case.id}: skipped"
    if case.outcome == "pass":
        assert mine == [], (case.id, [f.message for f in mine])
        return mine
    assert mine, (case.id, "did not fire", [(f.rule, f.message) for f in result.findings])
    hits = [f for f in mine if f.pointer == case.pointer
            and (case.file == "*" or f.file == case.file)]
    assert hits, (case.id, [(f.file, f.pointer, f.message) for f in mine])
    assert hits[0].severity.value == (case.severity or RULES[case.rule].severity.value), \
        case.id
    assert case.line is None or all(f.line == case.line for f in hits), \
        (case.id, [f.line for f in hits])
    assert hits[0].message
    if hits[0].fix is not None and hits[0].file == "config.json":
        assert_fix_repairs(case, hits[0], root)
    return mine


def assert_fix_repairs(case: Case, finding, root) -> None:
    """The fix's resulting document no longer draws the finding. Mutation caught: a fix
    that writes the wrong value (a wrong DF117 list, a DF114 shift kept)."""
    from rulecases import checkpoint_folder

    path = checkpoint_folder(case, root) / "config.json"
    edits = [(e["op"], e["path"], *([e["value"]] if "value" in e else []))
             for e in finding.fix.edits]
    path.write_text(json.dumps(apply_ops(json.loads(path.read_text()), edits)))
    again = lint_case(case, root, rebuild=False)
    left = [f.message for f in again.findings
            if f.rule == case.rule and f.pointer == case.pointer]
    assert left == [], (case.id, finding.fix.edits, left)


@pytest.mark.parametrize("rule", rules_with_cases())
def test_rule_cases(rule, tmp_path):
    """One test per rule folder, as ruff's one test_case line per rule and fixture."""
    major = transformers_major()
    snapshot = {}
    for index, case in enumerate(cases_of(rule)):
        if case.test:
            continue
        if case.transformers and case.transformers != major:
            continue             # pins the other major's behaviour
        root = tmp_path / str(index)
        root.mkdir()
        snapshot[f"{case.outcome}-{case.why}"] = [recorded(f, root)
                                                  for f in check_case(case, root)]
    if not snapshot and all(c.test for c in cases_of(rule)):
        return                   # its cases are held by other tests
    path = snapshot_path(rule, RULES[rule].needs, major)
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.write_text(dump_snapshot(snapshot), encoding="utf-8")
    if not path.exists() and path.name != "snapshot.json" and major != "5":
        pytest.skip(f"no {path.name} recorded: UPDATE_SNAPSHOTS=1 on this major records it")
    assert path.exists(), f"{path} missing: UPDATE_SNAPSHOTS=1 pytest {__file__} writes it"
    assert snapshot == json.loads(path.read_text(encoding="utf-8")), \
        f"{rule}'s findings differ from {path.name}: UPDATE_SNAPSHOTS=1 rewrites it; review"


def test_case_ids_are_unique():
    ids = [c.id for c in all_cases()]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_the_correct_tiny_drafter_has_no_error_or_warning(tmp_path):
    checkpoint, target, reference = build(Case("-", "pass", "base"), tmp_path)
    result = lint(checkpoint, Options(rules=RULES, target=target, reference=reference))
    # no DF125 info either: the newest vLLM (0.34.0) has no V1 runner to refuse the mix
    assert [(f.rule, f.severity.value) for f in result.findings] == []
    assert {s.rule for s in result.skipped} == {c for c, r in RULES.items()
                                                if "launch" in r.needs and r.family != "mtp"
                                                and "card" not in r.needs}

