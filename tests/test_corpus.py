"""The published-drafter corpus (fixtures/published, see docs/internals/corpus.md).

Good drafters draw no error and no unjustified warning; every detectable documented bad
one is caught at its faulty field; the findings of every case match the snapshot, so a
rule change shows its effect across the corpus in review (UPDATE_SNAPSHOTS=1 rewrites it).
"""

from __future__ import annotations

import json
import re
import os
from pathlib import Path

import pytest
from corpus import cases, lint_case, snapshot


def _snapshot_path() -> Path:
    """One snapshot per transformers major: the TF rules describe the installed one."""
    from drafter_lint.loading import transformers_version

    major = (transformers_version() or "none").split(".")[0]
    return Path(__file__).resolve().parent / "snapshots" / f"corpus-transformers{major}.json"


SNAPSHOT = _snapshot_path()
CASES = cases()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    return {c.id: lint_case(c, root) for c in CASES}


def test_corpus_is_large_and_sourced():
    """At least 40 cases, each with a source (repo@commit path, or a URL) and a verdict."""
    assert len(CASES) >= 40
    for case in CASES:
        source = case.meta["source"]
        assert source.get("url") or (source.get("repo") and len(source.get("commit", "")) == 40
                                     and source.get("path")), case.id
        assert case.verdict in ("good", "bad", "unclear"), case.id
        if case.verdict == "bad":
            assert case.cause_pointer is not None, case.id
        if case.expect != "warning":   # caught below a warning only with a recorded reason
            assert case.expect in ("info", "error") and case.meta.get("expect_reason"), case.id
        if not case.detectable:
            assert case.meta.get("detectable_reason"), case.id
    families = {c.meta["family"].split("-")[0] for c in CASES}
    assert {"eagle3", "eagle", "dflash", "dflash2", "dspark", "mtp", "medusa"} <= families


def _touches(ops: list, pointer: str) -> bool:
    return any(op[1] == pointer or op[1].startswith(pointer + "/")
               or pointer.startswith(op[1] + "/") for op in ops)


@pytest.mark.parametrize("case", [c for c in CASES if c.constructed], ids=lambda c: c.id)
def test_a_constructed_case_is_its_verbatim_base_with_only_the_described_change(
        outcomes, case, tmp_path):
    """A constructed case (a thread describes the config, none publishes it) is a verbatim
    case with exactly the change the thread describes, quoted in `words`; the change is at
    the faulty field (or drops the tensors the thread says are missing), and the base
    itself is not caught there, so what catches the case is the described change.
    Mutations caught: a constructed case built on another constructed one, with a change
    elsewhere than its cause, without the thread's words, or one a rule catches for a
    reason the base already has. A case may instead pair its verbatim base with the
    verbatim target of another case (`target_from`) or with the launch line the thread
    names: the fault lies between them, and the base alone is not caught."""
    spec, base = case.constructed, case.base
    assert base is not None and base.constructed is None and (base.folder / "config.json").is_file()
    assert not (case.folder / "config.json").exists(), "a constructed case has no own config"
    assert spec["threads"] and all(t.startswith("https://github.com/") for t in spec["threads"])
    assert len(spec["words"]) > 20 and case.cause_pointer is not None
    assert case.verdict == "bad" or case.failures and case.meta.get("verdict_reason")
    paired = spec.get("target_from") or case.meta.get("launch")
    assert spec["ops"] or spec.get("drop_tensors") or paired
    assert _touches(spec["ops"], case.cause_pointer) or spec.get("drop_tensors") or paired
    assert case.config() != base.config() or spec.get("drop_tensors") or paired
    if case.verdict == "bad":
        assert outcomes[case.id].caught(), outcomes[case.id].findings
        assert not [f for f in outcomes[base.id].at_least(case.expect)
                    if f[2] == case.cause_pointer], outcomes[base.id].findings
    for failure in case.failures:       # the base, on the same release, does not draw it
        release = f"{failure['runtime']}=={failure['failed_on']}"
        alone = lint_case(base, tmp_path / release, release)
        assert not alone.flags(failure["rule"], failure["pointer"], failure["expect"]), \
            alone.findings


@pytest.mark.parametrize("case", [c for c in CASES if c.verdict == "good"], ids=lambda c: c.id)
def test_good_drafter_draws_no_error_or_unjustified_warning(outcomes, case):
    """Mutation caught: any rule made stricter than the runtimes (a false error/warning)."""
    assert outcomes[case.id].unjustified() == []


def test_no_good_drafter_gains_a_model_type_error(outcomes):
    """Precision of DL014 for a drafter of no known family, judged by what each release
    loads a config for (its config registry and every transformers its pin admits,
    runtimes config.model-types): no good case draws a DL014 error its case.json does not
    allow (torchspec-domino-draft-config allows it: neither runtime has a `domino` config
    class), and the good cases of no known family are judged without one (`kimi_k2`,
    `qwen3_next`, `kimi_k3`). Mutations caught: a runtime's own registry or the
    transformers union left out of the set; the judgement applied to a known family."""
    judged = [o for o in outcomes.values() if o.case.verdict == "good"
              and o.family == "unknown"]
    assert len(judged) >= 3
    wrong = [(o.case.id, f[3]) for o in outcomes.values() if o.case.verdict == "good"
             for f in o.at_least("error") if f[0] == "DL014" and f[0] not in o.case.allowed]
    assert wrong == []


@pytest.mark.parametrize("runtime", ["vllm", "sglang"])
def test_good_drafters_are_clean_for_each_runtime_alone(tmp_path_factory, runtime):
    """Checked for one runtime (`--runtime`), a good drafter draws no error and no
    unjustified warning either. Mutation caught: a rule whose single-runtime path is
    stricter than its both-runtimes path."""
    from drafter_lint import runtimes

    root = tmp_path_factory.mktemp(f"corpus-{runtime}")
    release = runtimes.parse(runtime)
    dirty, unserved = {}, {}
    for case in (c for c in CASES if c.verdict == "good"):
        outcome = lint_case(case, root, runtime)
        if runtimes.serves(release, outcome.family):
            dirty[case.id] = outcome.unjustified()
        else:       # a format the runtime cannot read (speculators on SGLang): one DL015
            unserved[case.id] = [f[0] for f in outcome.at_least("error")]
    assert not {k: v for k, v in dirty.items() if v}
    assert all(v == ["DL015"] for v in unserved.values()), unserved


@pytest.mark.parametrize("case", [c for c in CASES if c.verdict == "bad" and c.detectable],
                         ids=lambda c: c.id)
def test_documented_bad_drafter_is_caught_at_its_field(outcomes, case):
    """Mutation caught: a rule that stops firing on a documented real failure."""
    assert outcomes[case.id].caught(), outcomes[case.id].findings


FAILURES = [(c, f) for c in CASES for f in c.failures]


def test_the_record_holds_ten_release_specific_failures():
    """Each from a public thread, on a named release, fixed by a later one."""
    from drafter_lint import runtimes

    assert len(FAILURES) >= 10
    for case, failure in FAILURES:
        published = runtimes.PUBLISHED[failure["runtime"]]
        assert failure["failed_on"] in published and failure["fixed_in"] in published
        assert published.index(failure["failed_on"]) < published.index(failure["fixed_in"])
        assert failure["thread"].startswith("https://") and failure["quote"], case.id
        assert failure["rule"] and failure["expect"] in ("info", "warning", "error")


@pytest.mark.parametrize("case,failure", FAILURES,
                         ids=[f"{c.id}@{f['runtime']}=={f['failed_on']}" for c, f in FAILURES])
def test_a_documented_failure_is_caught_on_its_release_and_quiet_on_the_fix(
        tmp_path, case, failure):
    """Linted for the release the thread reports, the case draws the recorded rule (or a
    finding at the faulty field) at the recorded severity; for the release that fixed it,
    neither. Mutation caught: a fact row whose range is dropped or moved (the old release
    is told the new behaviour, or the reverse)."""
    runtime = failure["runtime"]
    rule, pointer, level = failure["rule"], failure["pointer"], failure["expect"]
    before = lint_case(case, tmp_path / "before", f"{runtime}=={failure['failed_on']}")
    after = lint_case(case, tmp_path / "after", f"{runtime}=={failure['fixed_in']}")
    assert [f for f in before.flags(rule, pointer, level) if f[0] == rule and (
        f[2] == pointer or f[2].startswith(pointer + "/"))], before.findings
    assert after.flags(rule, pointer, level) == [], after.findings


def test_findings_match_the_snapshot(outcomes):
    current = snapshot(list(outcomes.values()))
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    assert json.loads(SNAPSHOT.read_text()) == current


def test_every_finding_is_at_a_severity_its_rule_lists(outcomes):
    """Mutation caught: a rule that fires at a severity `drafter-lint rules` and `explain`
    do not show (DF114 was listed as info and fired as error)."""
    from drafter_lint.rules import RULES

    wrong = [(o.case.id, rule, severity) for o in outcomes.values()
             for rule, severity, _, _ in o.findings
             if rule in RULES and severity not in RULES[rule].severities]
    assert wrong == []


def _every_release():
    from drafter_lint import runtimes

    return [f"{rt}=={v}" for rt in runtimes.SERVING for v in runtimes.PUBLISHED[rt]]


def _one_case_per_family():
    seen, out = set(), []
    for case in CASES:
        if case.meta["family"] not in seen:
            seen.add(case.meta["family"])
            out.append(case)
    return out


@pytest.mark.parametrize("runtime", _every_release()[::3] + _every_release()[-1:])
def test_every_release_lints_every_family(tmp_path, runtime):
    """One corpus case of each family, linted for every third release of vLLM and SGLang:
    no crash, whatever rows that release has or lacks. Mutation caught: a rule that indexes
    a fact's value without allowing for an older release's shorter (or empty) one; the
    slow lane runs every case for every release."""
    for case in _one_case_per_family():
        lint_case(case, tmp_path / case.id, runtime)


@pytest.mark.slow
@pytest.mark.parametrize("runtime", _every_release())
def test_every_release_lints_every_case(tmp_path, runtime):
    for case in CASES:
        lint_case(case, tmp_path / case.id, runtime)


def _recorded_releases() -> list[str]:
    """Every release the oracle lane executed (tests/data/oracle)."""
    data = Path(__file__).resolve().parent / "data" / "oracle"
    return sorted(p.stem.replace("-", "==", 1) for p in data.glob("*-*.json")
                  if p.name != "judgements.json")


def test_good_drafters_draw_only_findings_of_that_release_under_each_recorded_one(tmp_path):
    """Under every release the oracle lane executed, whatever a good drafter draws beyond
    its `allowed` entries is about that release: the message names it (a refusal the
    release makes, a field it reads elsewhere or not at all, a format it does not serve);
    the newest release of each runtime must be clean (above), and the oracle judges the
    refusals (test_oracle). Rules that do not depend on the release (what transformers
    loads, the published card) are left out, as `releases` leaves them. Mutation caught: a
    rule that fires for an older release with a finding not tied to it (a generic false
    error), as DF136 did ("vLLM does not serve DFlash2" under vLLM 0.21-0.27)."""
    from corpus import Outcome, materialize

    from drafter_lint import runtimes
    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.engine import lint
    from drafter_lint.options import Options
    from drafter_lint.rules import RULES
    from drafter_lint.registry import release_dependent
    from drafter_lint.target import read_target

    rules = release_dependent(RULES)
    releases = [runtimes.parse(r) for r in _recorded_releases()]
    assert len(releases) >= 10
    wrong = {}
    for case in (c for c in CASES if c.verdict == "good"):
        drafter, target_dir = materialize(case, tmp_path)
        checkpoint = read_checkpoint(drafter, display=case.id)
        target = read_target(target_dir) if target_dir else None
        for release in releases:
            result = lint(checkpoint, Options(rules=rules, target=target, runtime=release))
            outcome = Outcome(case, result.family, [(f.rule, f.severity.value, f.pointer,
                                                     f.message) for f in result.findings])
            loose = [f for f in outcome.unjustified() if not re.search(
                rf"{re.escape(release.label)}(?![\d.])", f[3])]
            if loose:
                wrong[(case.id, str(release.version))] = loose
    assert not wrong
