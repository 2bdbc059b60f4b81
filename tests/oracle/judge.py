"""Hold the linter to the runtimes' recorded verdicts (tests/data/oracle/*.json).

For each recorded launch the linter lints the same pair under that release and that
launch's settings, and `judge` says what is wrong, if anything:
- refused by the runtime: the linter must report an error from a rule that
  `judgements.json` maps the runtime's message to, naming that runtime;
- accepted: no finding may claim that this runtime refuses or fails to load it; a launch
  whose chosen model runner's own mask or tap reader raises counts as refused.
Launches whose verdict is beyond the linter's inputs (or where the linter is right beyond
the oracle's reach) are listed with a reason in `judgements.json` ("beyond").

    .venv/bin/python tests/oracle/judge.py      # one line per launch: verdict, findings
"""

from __future__ import annotations

import functools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))      # tests/: lintopts

DATA = HERE.parent / "data" / "oracle"
RUNTIME_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}
# what a message says when it claims the runtime refuses or cannot load the drafter
CLAIM = re.compile(r"\b(refuses?|refused|fails? (to load|to start|at start-up)|cannot "
                   r"(serve|start|load)|does not start|will not start)\b", re.I)


def golden() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(DATA.glob("*-*.json"))
            if p.name != "judgements.json"]


def judgements() -> dict:
    return json.loads((DATA / "judgements.json").read_text())


def launch_facts(record: dict, runtime: str, drafter: Path) -> dict:
    """The launch settings as `gate` hands them to the rules."""
    launch = record["launch"]
    out = {"runtime": runtime, "env": dict(launch.get("env") or {}), "draft": str(drafter)}
    if runtime == "vllm":
        out["method"] = launch.get("method")
        out["num_speculative_tokens"] = launch.get("k")
    else:
        out["method"] = launch.get("algorithm")
        if launch.get("num_draft_tokens"):
            out["num_draft_tokens"] = launch["num_draft_tokens"]
    return out


@dataclass
class Linted:
    record: dict
    runtime: str
    version: str
    findings: list          # (rule, severity, pointer, message)


@functools.lru_cache(maxsize=None)
def _read(drafter: Path, target: Path | None, display: str):
    """A pair read once for all the releases that launched it (reading has no release)."""
    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.target import read_target

    return read_checkpoint(drafter, display=display), read_target(target or drafter)


def lint_record(record: dict, runtime: str, version: str, pairs: dict) -> Linted:
    from drafter_lint.engine import lint
    from drafter_lint import runtimes
    from drafter_lint.options import Options
    from lintopts import launch_of
    from drafter_lint.rules import RULES
    from drafter_lint.registry import release_dependent

    pair = pairs[record["pair"]]
    checkpoint, target = _read(pair.drafter, pair.target, pair.id)
    release = runtimes.parse(f"{runtime}=={version}")
    launch = launch_of(launch_facts(record, runtime, pair.drafter), release)
    # what transformers loads does not depend on the release: test_oracle judges those
    # rules once per pair
    result = lint(checkpoint, Options(rules=release_dependent(RULES), target=target,
                                      runtime=release, **launch))
    return Linted(record, runtime, version, sorted(
        (f.rule, f.severity.value, f.pointer, f.message) for f in result.findings))


def reported_by(runtime: str, message: str, table: dict) -> list[dict]:
    """The `refusals` entries of judgements.json whose pattern matches this refusal."""
    return [r for r in table["refusals"] if r["runtime"] == runtime
            and re.search(r["match"], message)]


def left_at_init(record: dict, runtime: str, version: str) -> list[str]:
    """Parameters the release's own load left unfilled that it neither shares from the
    target nor leaves unfilled in published drafters of the same class (loads.json): they
    keep their random initialization."""
    from drafter_lint.runtimes.loads import left_at_init as left

    return left(runtime, version, (record.get("resolved") or {}).get("draft_class", ""),
                (record.get("weights") or {}).get("unfilled") or [])[0]


def recorded_runner(record: dict, version: str = "") -> str:
    """The model runner vLLM's start-up chose for the launch ("v1", "v2"), as recorded
    (`VllmConfig.use_v2_model_runner`). A release without Model Runner V1 (vllm==0.34.0
    platforms/interface.py:1481-1490) has no such attribute: run_vllm.py recorded False
    for 0.34.0's launches, which all ran V2 (it now records which runner the release
    has)."""
    if version:
        from drafter_lint import runtimes
        from drafter_lint.runtimes.path import policy
        rules = policy(runtimes.parse(f"vllm=={version}"))
        if rules is not None and rules.v1_removed:
            return "v2"
    return "v2" if (record.get("resolved") or {}).get("use_v2_model_runner") else "v1"


def effective(record: dict, runtime: str = "", version: str = "") -> dict:
    """The record as the server meets it: a launch whose start-up stages pass but whose
    chosen model runner's own reader raises (run_vllm.py `readers`) is refused when that
    runner builds its proposer; one whose weights leave a parameter at its random
    initialization is refused too, silently (it drafts garbage)."""
    if record["verdict"] != "accepted":
        return record
    left = left_at_init(record, runtime, version) if runtime else []
    if left:
        return dict(record, verdict="refused", message=f"left at init: {', '.join(left)}",
                    where="the weights layer (no tensor filled them)")
    runner = recorded_runner(record, version if runtime == "vllm" else "")
    for value in ((record.get("readers") or {}).get(runner) or {}).values():
        if isinstance(value, dict) and "raised" in value:
            return dict(record, verdict="refused", message=value["raised"],
                        where=f"the {runner.upper()} runner's reader")
    return record


def beyond_ids(table: dict, runtime: str, version: str) -> set[str]:
    """The launch ids judgements.json puts beyond the linter at this release: entries
    with no release, with `release` "vllm==X", or with `releases` "vllm>=X,<Y"."""
    from packaging.specifiers import SpecifierSet

    out = set()
    for entry in table["beyond"]:
        if "releases" in entry:
            name = re.match(r"[a-z]+", entry["releases"])[0]
            spec = entry["releases"][len(name):]
            if name == runtime and version in SpecifierSet(spec):
                out.add(entry["id"])
        elif entry.get("release", f"{runtime}=={version}") == f"{runtime}=={version}":
            out.add(entry["id"])
    return out


def judge(linted: Linted, table: dict) -> list[str]:
    """What is wrong with the linter's findings for this launch ([] when nothing)."""
    record = effective(linted.record, linted.runtime, linted.version)
    name = RUNTIME_NAMES[linted.runtime]
    if record["id"] in beyond_ids(table, linted.runtime, linted.version) or record["verdict"] == "oracle-limit":
        return []
    if record["verdict"] == "refused":
        entries = reported_by(linted.runtime, record["message"], table)
        if not entries:
            return [f"no judgements.json entry maps this refusal to a rule: "
                    f"{record['message'][:160]}"]
        rules = {code for e in entries for code in e["rules"]}
        hits = [f for f in linted.findings if f[0] in rules and f[1] == "error"]
        if not hits:
            return [f"{name} refuses it ({record['where']}: {record['message'][:120]}) but no "
                    f"{'/'.join(sorted(rules))} error is reported"]
        if not any(name in f[3] for f in hits):
            return [f"the {'/'.join(sorted(rules))} error does not name {name}"]
        return []
    conditional = {c["rule"] for c in table["conditional_claims"]}
    return [f"{f[0]} {f[1]} claims a refusal that {name} {linted.version} does not make: "
            f"{f[3][:160]}" for f in linted.findings
            if f[0] not in conditional and CLAIM.search(f[3]) and name in f[3]]


def main() -> int:
    import tempfile

    from launches import pairs as build_pairs

    table = judgements() if (DATA / "judgements.json").is_file() else \
        {"refusals": [], "beyond": [], "conditional_claims": []}
    with tempfile.TemporaryDirectory() as work:
        pairs = {p.id: p for p in build_pairs(Path(work))}
        bad = 0
        for document in golden():
            for record in document["launches"]:
                linted = lint_record(record, document["runtime"], document["version"], pairs)
                problems = judge(linted, table)
                bad += bool(problems)
                print(f"{'FAIL' if problems else 'ok  '} {record['id']} {record['verdict']} "
                      f"{(record.get('message') or '')[:90]}")
                for problem in problems:
                    print(f"     ! {problem}")
                for f in linted.findings:
                    if f[1] != "info" or CLAIM.search(f[3]):
                        print(f"     {f[0]} {f[1]} {f[3][:150]}")
    print(f"{bad} launches the linter gets wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
