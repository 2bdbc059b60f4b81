"""The census of public failures is data the tests hold to its shape (issue 31): at least
50 reports, each sourced, triaged, and pointing only at rules and cases that exist."""

from __future__ import annotations

import re

from census import counts, reports
from sparse import FIXTURES

from drafter_lint.rules import RULES

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
    assert 0 < found["recall"] < 1
