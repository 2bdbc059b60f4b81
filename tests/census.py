"""The census of public failures (tests/data/census.json): how many, from where, and the
recall of the rules on the ones a linter can see.

    python tests/census.py          # counts, recall, and the reports no rule covers

`recall_unseen` leaves out the reports the corpus documented when their rules were written
(the recall on failures the tool was not built from). A report's triage names the rule
that reads the field it names; where the report has a corpus case (`triage.case`, verbatim
or constructed from the thread's words), tests/test_census.py lints that case under the
report's release and holds the triage to the outcome, so those are executed. A visible
report without a case says why in `triage.no_case` (most: the config or tensors are
described, not published).
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

CENSUS = Path(__file__).resolve().parent / "data" / "census.json"


def reports() -> list[dict]:
    return json.loads(CENSUS.read_text(encoding="utf-8"))["reports"]


def counts(rows: list[dict]) -> dict:
    status = collections.Counter(r["triage"]["status"] for r in rows)
    visible = status["caught"] + status["uncovered"]
    return {"reports": len(rows), "trackers": len({r["tracker"] for r in rows}),
            "visible": visible, "caught": status["caught"],
            "uncovered": status["uncovered"], "not_visible": status["not-visible"],
            "with_case": sum(1 for r in rows if r["triage"]["case"]),
            "recall": round(status["caught"] / visible, 3) if visible else None,
            "recall_unseen": _recall([r for r in rows if not _from_corpus(r)])}


def _from_corpus(row: dict) -> bool:
    """A report the corpus documented when its rule was written, or one a rule was written
    from (`triage.written_from`): not an unseen case."""
    return row["read_from"].startswith("the corpus case's documented failure") or \
        bool(row["triage"].get("written_from"))


def _recall(rows: list[dict]) -> float | None:
    caught = sum(r["triage"]["status"] == "caught" for r in rows)
    visible = sum(r["triage"]["status"] in ("caught", "uncovered") for r in rows)
    return round(caught / visible, 3) if visible else None


def main() -> int:
    rows = reports()
    found = counts(rows)
    print(", ".join(f"{k} {v}" for k, v in found.items()))
    for tracker, n in collections.Counter(r["tracker"] for r in rows).most_common():
        print(f"  {tracker}: {n}")
    print("uncovered (visible, no rule):")
    for r in rows:
        if r["triage"]["status"] == "uncovered":
            print(f"  {r['thread']}: {r['triage']['reason']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
