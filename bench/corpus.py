"""Summarize the published corpus: `python bench/corpus.py [--verbose]`.

Prints, per verdict, how many cases lint as they should: good drafters clean (no error,
no unjustified warning), documented bad ones caught at their field, and the findings of
every case with --verbose.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from corpus import cases, lint_case  # noqa: E402


def main() -> int:
    verbose = "--verbose" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = [lint_case(c, Path(tmp)) for c in cases()]
    verdicts = Counter(o.case.verdict for o in outcomes)
    good = [o for o in outcomes if o.case.verdict == "good"]
    false = [o for o in good if o.unjustified()]
    bad = [o for o in outcomes if o.case.verdict == "bad"]
    caught = [o for o in bad if o.caught()]
    print(f"cases: {len(outcomes)} ({', '.join(f'{n} {v}' for v, n in sorted(verdicts.items()))})")
    print(f"good clean: {len(good) - len(false)}/{len(good)}; false findings: "
          f"{sum(len(o.unjustified()) for o in false)} on {len(false)} drafters")
    print(f"bad caught: {len(caught)}/{len(bad)} "
          f"({sum(1 for o in bad if not o.case.detectable)} marked not detectable yet)")
    for o in outcomes:
        shown = o.findings if verbose else (o.unjustified() if o.case.verdict == "good" else [])
        if o.case.verdict == "bad" and not o.caught():
            print(f"  missed {o.case.id}: {o.case.cause_pointer}")
        for rule, severity, pointer, message in shown:
            print(f"  {o.case.id}: {rule} {severity} {pointer or '(file)'}: {message[:120]}")
    return 1 if false or len(caught) < sum(1 for o in bad if o.case.detectable) else 0


if __name__ == "__main__":
    sys.exit(main())
