"""The census of public failures is data the tests hold to its shape (issue 31): at least
50 reports, each sourced, triaged, and pointing only at rules and cases that exist."""

from __future__ import annotations

import re

from census import counts, reports
from corpus import cases
from sparse import FIXTURES

from drafter_lint.rules import RULES

CASES = {c.id: c for c in cases()}
THREAD = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/(issues|pull)/\d+")


def test_the_census_holds_fifty_sourced_triaged_reports():
    """Mutations caught: a report without a source, a duplicate, a triage naming a rule or a
    case that does not exist, a caught report with no rule, a report not seen with no
    reason."""
    rows = reports()
    assert len(rows) >= 50
    assert len({r["thread"] for r in rows}) == len(rows)
    for r in rows:
        found = THREAD.fullmatch(r["thread"])
        assert found and found.group(1) == r["tracker"], r["thread"]
        assert r["date"] is None or re.fullmatch(r"20(2[5-9])-\d\d-\d\d", r["date"]), r
        assert r["cause"] and r["quote"] and isinstance(r["visible"], bool), r["thread"]
        triage = r["triage"]
        assert triage["status"] in ("caught", "uncovered", "not-visible"), r["thread"]
        assert all(code in RULES for code in triage["rules"]), (r["thread"], triage["rules"])
        assert triage["status"] != "caught" or triage["rules"], r["thread"]
        assert (triage["status"] == "not-visible") == (not r["visible"]), r["thread"]
        assert len(triage["reason"]) > 20, r["thread"]
        assert triage["case"] is None or (FIXTURES / "published" / triage["case"]).is_dir()


def test_the_recall_is_what_the_census_says():
    found = counts(reports())
    assert found["visible"] == found["caught"] + found["uncovered"]
    assert found["reports"] == found["visible"] + found["not_visible"]
    assert 0 < found["recall"] <= 1


def _case_verdict(report: dict, tmp_path) -> bool:
    """Whether the report's corpus case, linted under the release the report happened on
    (the case's `failures` entry for this thread) or else for every runtime, draws what
    catches it."""
    from corpus import lint_case

    case = CASES[report["triage"]["case"]]
    failure = next((f for f in case.failures if f["thread"] == report["thread"]), None)
    if failure is None:
        return lint_case(case, tmp_path, None).caught()
    outcome = lint_case(case, tmp_path, f"{failure['runtime']}=={failure['failed_on']}")
    return bool(outcome.flags(failure["rule"], failure["pointer"], failure["expect"]))


def test_a_report_counts_as_caught_only_when_its_case_is_caught(tmp_path):
    """The census's recall is executed where a case exists: a report triaged `caught` with
    a case is caught by linting that case under the report's release, and one triaged
    `uncovered` is not. A constructed case names the report's thread among those that describe it. Mutations caught: a
    report marked caught whose case the rules miss; a case linked to the wrong thread; a
    rule that starts catching an `uncovered` report without the census following."""
    wrong = []
    for i, report in enumerate(r for r in reports() if r["triage"]["case"]):
        case = CASES[report["triage"]["case"]]
        if case.constructed:
            assert report["thread"] in case.constructed["threads"], case.id
        caught = _case_verdict(report, tmp_path / str(i))
        if caught != (report["triage"]["status"] == "caught"):
            wrong.append((report["thread"], case.id, caught))
    assert wrong == []



def test_every_visible_report_has_a_case_or_says_why_not():
    """Issue 31: every report a linter can see is held to a corpus case, or its triage
    says why no public file (verbatim or with a described change) shows it. Mutation
    caught: a visible report added with neither."""
    missing = [r["thread"] for r in reports() if r["visible"] and not r["triage"]["case"]
               and len(r["triage"].get("no_case") or "") < 20]
    assert missing == []
