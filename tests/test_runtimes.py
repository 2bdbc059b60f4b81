"""The runtime facts table (rules/runtimes.py): cited, versioned, and every row used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drafter_lint import runtimes

ROOT = Path(__file__).resolve().parent.parent


def test_every_fact_cites_released_code():
    """Mutation caught: a runtime claim added without saying where it was read."""
    for fact in runtimes.FACTS:
        assert fact.runtime in runtimes.KNOWN, fact
        assert re.match(r"(V|S|ZL|SP) |vllm==|sglang==|vLLM before", fact.cite), fact
        assert fact.effect in ("start-up", "silent", "ignored"), fact


def test_every_fact_is_read_by_code():
    """A row nothing reads is a claim nothing enforces. Mutation caught: a rule that goes
    back to hard-coding a runtime behaviour, leaving its row unused."""
    source = "\n".join(p.read_text() for p in [*(ROOT / "rules").glob("*.py"),
                                              *(ROOT / "drafter_lint").glob("*.py"),
                                              ROOT / "drafter_lint" / "runtimes" / "path.py",
                                              ROOT / "drafter_lint" / "runtimes" / "trained.py"]
                       if p.name != "runtimes.py")
    for key in {f.key for f in runtimes.FACTS}:
        if key.startswith("serves."):
            continue                      # read through runtimes.serves(release, family)
        assert f'"{key}"' in source, key


@pytest.mark.parametrize("spec,version,exact", [("vllm", "0.34.0", True),
                                                ("vllm==0.33", "0.33.0", True),
                                                ("vllm==0.31.0", "0.31.0", True),
                                                ("vllm==0.34.0", "0.34.0", True),
                                                ("vllm==0.35.0", "0.34.0", False),
                                                ("vllm==99.0", "0.34.0", False),
                                                ("vllm==0.8.5.post1", "0.8.5", False),
                                                ("vllm==0.33.0+cu128", "0.33.0", True),
                                                ("vllm==0.7.3", "0.8.0", False),
                                                ("sglang==0.5.10.post1", "0.5.10", False),
                                                # a post build that changed what the
                                                # tool reads is listed; the next is not
                                                ("sglang==0.4.4.post2", "0.4.4.post2", True),
                                                ("sglang==0.4.4.post1", "0.4.4", False),
                                                ("SGLang==0.5.23", "0.5.23", True),
                                                ("reference", "44947fb", True)])
def test_runtime_specs_parse(spec, version, exact):
    release = runtimes.parse(spec)
    assert (release.version, release.exact) == (version, exact)


def test_rows_follow_their_release_range():
    """Medusa: served before vLLM 0.33, not from it. Mutation caught: since/until ignored."""
    assert runtimes.serves(runtimes.parse("vllm==0.32.0"), "medusa")
    assert not runtimes.serves(runtimes.parse("vllm==0.33"), "medusa")
    assert not runtimes.serves(runtimes.parse("sglang"), "speculators/dflash")
    assert runtimes.serves(runtimes.parse("vllm"), "speculators/dflash")




def pinned_by() -> dict[str, list[str]]:
    """fact key -> the cases whose outcome it decides: rule cases that name it in `pins`
    (fixtures/rules/<CODE>/cases.json) and the gate's (tests/test_gate.py GATE_PINS). The
    SGLang rows of dspark.* are decided in test_families.py
    test_dspark_tokens_against_its_block (a native DSpark drafter, which no manifest has)."""
    from rulecases import all_cases
    from test_gate import GATE_PINS

    out: dict[str, list[str]] = {}
    for case in all_cases():
        for key in case.pins:
            out.setdefault(key, []).append(case.id)
    for case, keys in GATE_PINS.items():
        for key in keys:
            out.setdefault(key, []).append(f"gate:{case}")
    return out


def test_every_fact_is_pinned_by_rule_cases():
    """Each row's effect on a rule is a case that would flip if the row changed: a case
    names the keys it pins, and every key of the table is pinned. Mutation caught: a fact
    added (or a case's pin removed) without a test of its effect; a pin naming a key no
    row has (a typo)."""
    from test_gate import GATE_CASES

    pins = pinned_by()
    gate = {f"gate:{rule}-{outcome}" for rule, outcome, *_ in GATE_CASES}
    assert set(pins) == {f.key for f in runtimes.FACTS}, \
        set(pins) ^ {f.key for f in runtimes.FACTS}
    assert all(c in gate for cases in pins.values() for c in cases if c.startswith("gate:"))


@pytest.mark.parametrize("runtime,method,rule,severity", [
    ("vllm", "dflash", "LCH101", None),        # vLLM serves DFlash2 as method dflash (V2)
    ("sglang", "DFLASH", "LCH101", None),      # SGLang serves it under DFLASH
    (None, None, "DF136", "info"),             # checking for both: a fact
    ("reference", None, "DF136", "error"),     # the z-lab reference has DFlash v1 only
])
def test_dflash2_per_runtime(tmp_path, runtime, method, rule, severity):
    """Mutation caught: LCH101/DF136 claiming no runtime serves DFlash2 (it blocked valid
    launches), or the reference accepting it."""
    import json
    import shutil

    from drafter_lint.rules import RULES
    from sparse import FIXTURES

    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.engine import lint
    from lintopts import options

    drafter = tmp_path / "drafter"
    shutil.copytree(FIXTURES / "tiny-qwen3.6" / "drafter", drafter)
    config = json.loads((drafter / "config.json").read_text())
    config["architectures"] = ["DFlash2DraftModel"]
    (drafter / "config.json").write_text(json.dumps(config))
    launch = {"runtime": runtime, "method": method} if method else {}
    result = lint(read_checkpoint(drafter, "d"), options(rules=RULES, runtime=runtime, launch=launch))
    found = [f.severity.value for f in result.findings if f.rule == rule]
    assert found == ([severity] if severity else []), [f.message for f in result.findings
                                                        if f.rule == rule]


def test_local_verifier_refusal_follows_its_release(tmp_path):
    """vLLM 0.33.0 refuses a local verifier when serving a speculators checkpoint alone;
    0.32.0 used it. Mutation caught: the row's `since` ignored (0.32 told it refuses) or
    the row dropped (0.33 not told)."""
    from drafter_lint.rules import RULES
    from rulecases import Case, build
    from test_families import SPC

    from drafter_lint.engine import lint
    from drafter_lint.options import Options

    case = Case("SPC107", "fail", "", base=SPC,
                ops=[("replace", "/speculators_config/verifier/name_or_path", "/model/from_s3")])
    messages = {}
    for version in ("0.33.0", "0.32.0"):
        checkpoint, target, _ = build(case, tmp_path / version)
        result = lint(checkpoint, Options(rules=RULES, target=target, runtime=runtimes.parse(f"vllm=={version}")))
        messages[version] = [f.message for f in result.findings if f.rule == "SPC107"]
    assert "vLLM 0.33.0 refuses" in messages["0.33.0"][0]
    assert "refuses" not in messages["0.32.0"][0] and "cannot resolve" in messages["0.32.0"][0]


@pytest.mark.parametrize("spec", ["vllm==banana", "sglang==abc", "vllm==0.32.1", "vllm==0"])
def test_a_version_that_is_no_release_is_refused(cli, spec):
    """Mutation caught: `vllm==banana` (or a number the index never had) silently read as
    the newest release."""
    from sparse import FIXTURES

    run = cli("check", FIXTURES / "tiny-qwen3.6" / "drafter", "--runtime", spec)
    assert run.code == 2 and run.err.count("\n") == 1 and "--runtime" in run.err, run.err


@pytest.mark.parametrize("spec,says", [
    ("vllm==0.35.0", "newer than 0.34.0, the newest recorded release"),
    ("vllm==0.8.5.post1", "a post-release of 0.8.5 that changes nothing the tool reads"),
    ("vllm==0.7.3", "older than 0.8.0, the oldest recorded release"),
    ("vllm==0.31.0", None),
    ("vllm==0.33.0", None),
    ("vllm==0.34.0", None)])
def test_the_cli_says_which_facts_a_release_gets(cli, spec, says):
    from sparse import FIXTURES

    run = cli("check", FIXTURES / "tiny-qwen3.6" / "drafter", "--runtime", spec)
    assert run.code in (0, 1) and "Traceback" not in run.err, run.err   # 1: not served then
    assert (says in run.err) if says else "recorded" not in run.err, run.err


@pytest.mark.parametrize("spec,named,facts", [
    ("sglang==0.4.10.post1", "SGLang 0.4.10.post1", "0.4.10"),     # a post build: its base's
    ("sglang==0.4.1.post2", "SGLang 0.4.1.post2", "0.4.1.post4"),  # older than the oldest
    ("vllm==0.8.5.post1", "vLLM 0.8.5.post1", "0.8.5"),
    ("vllm==0.35.0", "vLLM 0.34.0", "0.34.0"),      # newer: its code may have moved on
])
def test_a_release_outside_the_table_is_named_as_asked(cli, spec, named, facts):
    """Issue 38 item 1: `--runtime sglang==0.4.10.post2` answered "SGLang 0.5.0rc0 does
    not serve ...", naming a release the user did not ask about. Mutation caught: the
    label taken from the facts' release for a post build or an older release (or, for a
    newer one, a message speaking for code the facts do not describe)."""
    from sparse import FIXTURES

    release = runtimes.parse(spec)
    assert (release.label, release.version) == (named, facts)
    run = cli("check", FIXTURES / "tiny-qwen3.6" / "drafter", "--runtime", spec,
              "--format", "json")
    messages = " ".join(f["message"] for f in run.json()["results"][0]["findings"])
    assert named in messages or not messages, messages


def test_no_rule_body_names_a_release():
    """Messages take releases from the facts table. Mutation caught: a rule that writes
    "vLLM 0.33" or uses the newest label in its message, which --runtime then cannot
    change (docstrings may cite releases)."""
    import ast

    release = re.compile(r"\b0\.\d+(\.\d+)?\b")      # vLLM 0.x, SGLang 0.5.x
    keys = {f.key for f in runtimes.FACTS}
    for path in sorted((ROOT / "rules").glob("*.py")):
        if path.name in ("runtimes.py", "registries.py"):
            continue
        tree = ast.parse(path.read_text())
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            body = function.body[1:] if ast.get_docstring(function) else function.body
            for node in (n for b in body for n in ast.walk(b)):
                if isinstance(node, ast.Name):
                    assert node.id not in ("VLLM_LABEL", "SGLANG_LABEL"), (path.name, node.id)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                        node.value not in keys:
                    found = [m.group(0) for m in release.finditer(node.value)]
                    assert not found, (path.name, function.name, node.value)


def test_every_row_has_a_range_with_evidence_at_both_ends():
    """Every vLLM and SGLang row holds for a range of releases that
    tools/oracle/release_evidence.py found in the wheels: `path:line` where its probe holds
    at `since` and at its last release (the newest recorded, or the one before `until`),
    and the releases on either side where it does not (none below the oldest recorded).
    z-lab reference rows are read from one commit. Mutation caught: a range moved, a row
    added or its value changed without re-running the probe tool; a row with no range."""
    import json

    evidence = json.loads((ROOT / "tests" / "data" / "release-evidence.json").read_text())
    records = {(r["key"], r["runtime"], r["since"], r["until"], r.get("path", "")): r
               for r in evidence["records"]}
    assert len(runtimes.KNOWN["reference"]) == 1
    for fact in runtimes.FACTS:
        if fact.runtime == "reference":
            assert fact.cite.startswith("ZL ") and not fact.since and not fact.until, fact.key
            continue
        published = runtimes.PUBLISHED[fact.runtime]
        assert fact.since in published and (not fact.until or fact.until in published), \
            (fact.key, fact.runtime, fact.since, fact.until)
        record = records.get((fact.key, fact.runtime, fact.since, fact.until, fact.path))
        assert record, ("no evidence", fact.key, fact.runtime, fact.since, fact.until)
        at = published.index(fact.since)
        last = published[published.index(fact.until) - 1] if fact.until else published[-1]
        spec = f"{fact.runtime}=="
        assert record["lower"]["release"] == fact.since and record["upper"]["release"] == last
        assert re.fullmatch(rf"{spec}{re.escape(fact.since)} \S+:\d+", record["lower"]["at"])
        assert re.fullmatch(rf"{spec}{re.escape(last)} \S+:\d+", record["upper"]["at"])
        assert record["lower"]["absent_in"] == (f"{spec}{published[at - 1]}" if at else None)
        assert record["upper"]["absent_in"] == (f"{spec}{fact.until}" if fact.until else None)


def test_rows_of_one_fact_do_not_overlap():
    """At most one row of a key holds for any release. Mutation caught: a new range added
    without closing the old row, so `lookup` silently takes whichever comes first."""
    for runtime, published in runtimes.PUBLISHED.items():
        for version in published:
            for runner in (("v1", "v2") if runtime == "vllm" else ("",)):
                release = runtimes.Release(runtime, version, runner=runner)
                keys = [f.key for f in runtimes.FACTS if runtimes.holds(f, release)]
                assert len(keys) == len(set(keys)), (version, runner, sorted(
                    k for k in set(keys) if keys.count(k) > 1))


@pytest.mark.parametrize("edit,before,since,rule", [
    ({}, "0.5.10", "0.5.11", "DL015"),                                          # DFlash
    ({"architectures": ["DFlash2DraftModel"]}, "0.5.18", "0.5.19", "DF136"),    # DFlash2
    ({"dspark_target_layer_ids": [1, 6, 11, 16, 21]}, "0.5.15", "0.5.16", "DL015"),  # DSpark
])
def test_sglang_serves_each_drafter_family_from_the_release_that_added_it(
        cli, tiny, edit, before, since, rule):
    """The `serves.*` ranges read from SGLang's wheels (tests/data/release-evidence.json):
    the release before the model class is refused (DL015; DF136 for DFlash2), the one
    that added it is not.
    Mutation caught: a range dropped, so `--runtime sglang==0.5.10` is told 0.5.23's
    behaviour."""
    import json

    path = tiny / "drafter" / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **edit}, indent=2))

    def refused(version):
        run = cli("check", tiny / "drafter", "--target", tiny / "target", "--ignore", "TF",
                  "--runtime", f"sglang=={version}", "--format", "json")
        return [f for f in run.json()["results"][0]["findings"]
                if f["rule"] == rule and f["severity"] == "error"]

    assert refused(before) and "does not serve" in refused(before)[0]["message"]
    assert refused(since) == []


# Gaps between the rows of one fact that are meant: the release between reads the fact in a
# way no row can say. (key, runtime, runner) -> (releases, why)
INTENDED_GAPS = {
    ("eagle3.aux-sources", "vllm", "v2"): (
        ("0.11.1", "0.11.2", "0.12.0", "0.13.0", "0.14.0", "0.14.1", "0.15.0", "0.15.1",
         "0.16.0"), "no V2 model runner reads EAGLE-3 aux ids before vllm==0.17.0 "
        "(v1/worker/gpu/spec_decode/eagle/eagle3_utils.py appears there)"),
    ("dflash.causal-sources", "sglang", ""): (
        ("0.5.17",), "sglang==0.5.17 models/dflash.py:58-70 applies `is_causal` to full layers "
        "only and runs sliding layers causal, which a source list cannot say"),
}


def test_no_fact_leaves_a_gap_of_releases_unexplained():
    """Between the first and the last release a fact's rows cover, on each vLLM runner,
    every release has a row (a look-up that finds none makes its rules silent: DF126 and
    DF128 said nothing on SGLang 0.5.17 and vLLM 0.27-0.28). Mutation caught: a row's
    `until` moved past the next row's `since`, or a row dropped."""
    groups: dict = {}
    for fact in runtimes.FACTS:
        if fact.runtime == "reference":
            continue
        for runner in (("v1", "v2") if fact.runtime == "vllm" else ("",)):
            if not fact.path or fact.path == runner:
                groups.setdefault((fact.key, fact.runtime, runner), []).append(fact)
    found = {}
    for (key, runtime, runner), rows in groups.items():
        versions = runtimes.PUBLISHED[runtime]
        covered = [v for v in versions if any(runtimes.holds(
            f, runtimes.Release(runtime, v, runner=runner)) for f in rows)]
        inside = [v for v in versions if runtimes.version_key(covered[0]) <=
                  runtimes.version_key(v) <= runtimes.version_key(covered[-1])]
        gaps = tuple(v for v in inside if v not in covered)
        if gaps:
            found[(key, runtime, runner if runtime == "vllm" else "")] = gaps
    intended = {k: v[0] for k, v in INTENDED_GAPS.items()}
    for (key, runtime, runner), gaps in list(found.items()):
        if runtime == "vllm" and intended.get((key, runtime, "")) == gaps:
            found[(key, runtime, "")] = gaps
            del found[(key, runtime, runner)]
    assert found == intended, found


QWEN3 = {"architectures": ["Qwen3ForCausalLM"]}
LLAMA = {"architectures": ["LlamaForCausalLM"]}
QWEN3_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "num_experts": 128}
DSV2 = {"architectures": ["DeepseekV2ForCausalLM"], "n_routed_experts": 64}
HYBRID = {"architectures": ["Qwen3NextForCausalLM"], "num_experts": 512,
          "layer_types": ["linear_attention", "full_attention"]}
QUANTIZED = {**QWEN3, "quantization_config": {"quant_method": "fp8"}}
MIXED = {"layer_types": ["sliding_attention", "full_attention"]}


@pytest.mark.parametrize("release,target,method,draft,env,runner", [
    ("0.21.0", QWEN3, "eagle3", {}, {}, "v1"),                 # V1 only before 0.22
    ("0.21.0", QWEN3, "eagle3", {}, {"VLLM_USE_V2_MODEL_RUNNER": "1"}, "v2"),
    ("0.22.0", QWEN3, "eagle3", {}, {}, "v2"),                 # listed, dense, unquantized
    ("0.22.0", QUANTIZED, "eagle3", {}, {}, "v1"),             # 0.22 lists only unquantized
    # listed but MoE (kills M17: `listed_unless: is_moe` dropped, and it took V2)
    ("0.22.0", {**QWEN3, "num_experts": 8}, "eagle3", {}, {}, "v1"),
    # an expert count of 0 is a dense model (`is_moe`: num_experts > 0; kills round-e M06)
    ("0.22.0", {**QWEN3, "num_experts": 0}, "eagle3", {}, {}, "v2"),
    ("0.22.0", LLAMA, "eagle3", {}, {}, "v1"),                 # not listed until 0.23
    ("0.22.0", QWEN3, "dflash", {}, {}, "v1"),                 # V2 ran no DFlash yet
    ("0.23.0", LLAMA, "eagle3", {}, {}, "v2"),
    ("0.24.0", QUANTIZED, "dflash", {}, {}, "v2"),             # any quantization from 0.24
    ("0.24.0", DSV2, "eagle3", {}, {}, "v2"),                  # a listed MoE
    ("0.24.0", QWEN3_MOE, "eagle3", {}, {}, "v1"),
    ("0.25.0", {"architectures": ["GraniteForCausalLM"]}, "eagle3", {}, {}, "v2"),  # any dense
    ("0.25.0", {"architectures": ["GptOssForCausalLM"]}, "eagle3", {}, {}, "v1"),  # MoE by class
    ("0.25.0", QWEN3_MOE, "dflash", {}, {}, "v1"),
    ("0.25.0", HYBRID, "dflash", {}, {}, "v1"),
    ("0.25.0", QWEN3_MOE, "dspark", {}, {}, "v2"),             # DSpark forced to V2
    ("0.26.0", QWEN3_MOE, "dflash", MIXED, {}, "v2"),          # a mixed DFlash draft forced
    # all sliding is no mix: the MoE default (kills round-b M06, `sliding <= len(kinds)`)
    ("0.26.0", QWEN3_MOE, "dflash", {"layer_types": ["sliding_attention"] * 2}, {}, "v1"),
    ("0.27.0", QWEN3_MOE, "dflash", {"architectures": ["DFlash2DraftModel"]}, {}, "v1"),
    ("0.28.0", QWEN3_MOE, "dflash", {"architectures": ["DFlash2DraftModel"]}, {}, "v2"),
    ("0.29.0", QWEN3_MOE, "dflash", {}, {}, "v2"),             # V2 for all from 0.29
    ("0.29.0", QWEN3, "medusa", {}, {}, "v1"),                 # a method V2 does not run
    ("0.33.0", QWEN3, "dflash", MIXED, {"VLLM_USE_V2_MODEL_RUNNER": "0"}, "v1"),
    # vLLM reads the variable with int(), which takes surrounding blanks (an env file's
    # `0 `): V1 asked for (kills round-f M05, the value compared unstripped)
    ("0.22.0", QWEN3, "eagle3", {}, {"VLLM_USE_V2_MODEL_RUNNER": "0 "}, "v1"),
])
def test_the_runner_is_chosen_as_the_release_chooses(release, target, method, draft, env,
                                                     runner):
    """Each release's `VllmConfig.use_v2_model_runner`, read from its wheel (the facts
    audit's table: vllm==0.22.0 config/vllm.py:69, 493-532; 0.23.0 :69-75; 0.24.0 :68-77,
    550-560; 0.25.0 :557-571; 0.26.0 and 0.28.0 forcing; 0.29.0 :645-675). Mutations caught:
    the policy ignored (one runner per release), the variable ignored, MoE, hybrid,
    quantization or forced drafts not read. Mutation caught (round 2026-12-05b, M06): a
    DFlash draft whose layers are all sliding taken for a mixed one and sent to V2.
    Mutation caught (round 2026-12-05e, M06): an expert count of 0 taken for experts
    (`>= 0`), a dense listed target sent to V1 as MoE (vLLM's `is_moe` is `> 0`).
    Mutation caught (round 2026-12-05f, M05): the variable's value compared as written
    (`.strip().lower()` dropped), so `VLLM_USE_V2_MODEL_RUNNER="0 "`, which vLLM's
    `maybe_convert_bool` (`bool(int(value))`, vllm==0.33.0 envs.py:360-363) reads as 0,
    left a listed Qwen3 target on V2."""
    chosen = runtimes.on_path(runtimes.parse(f"vllm=={release}"), runtimes.Context(
        target=target, method=method, draft=draft, env=env))
    assert chosen.runner == runner, chosen.why


def test_the_runner_policy_is_parsed_once_and_refuses_an_unknown_key():
    """Every `runner.v2-policy` row holds a RunnerPolicy parsed from registries.json, and a
    key the parser does not know is an error, not a policy silently read without it.
    Mutation caught: unknown keys dropped (a new wheel's check the runner choice ignores)."""
    from drafter_lint.runtimes.policy import RunnerPolicy

    rows = [f for f in runtimes.FACTS if f.key == "runner.v2-policy"]
    assert rows and all(isinstance(f.value, RunnerPolicy) for f in rows)
    with pytest.raises(ValueError, match="listed_unles"):
        RunnerPolicy.read({"default": "model", "listed_unles": ["is_moe"]})
    with pytest.raises(ValueError, match="'V2'"):
        RunnerPolicy.read({"default": "V2"})


# the functions whose string arguments are fact keys (runtimes/rows.py, runtimes/trained.py)
LOOKUPS = {"lookup", "value", "matching", "ever", "held_since", "held_until", "recorded_for",
           "Trained"}
KEY = re.compile(r"[a-z0-9]+\.[a-z0-9][a-z0-9.-]*")


def _code_strings(path: Path):
    """(string constant, the name of the call it is an argument of, or "") in `path`,
    docstrings left out."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    called = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            for arg in node.args:
                called[id(arg)] = name
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in docs:
            yield node.value, called.get(id(node), "")


def test_a_key_declared_beside_its_rows_is_declared_once(monkeypatch):
    """A key may be declared in table.py with its rows (keys.declare); declaring one twice
    fails, and its rows are type-checked like any other. Mutations caught: `declare`
    overwriting an existing key's type (a second declaration silently wins), or its rows
    escaping the type check."""
    from drafter_lint.runtimes import keys
    from drafter_lint.runtimes.table import Fact

    with pytest.raises(ValueError, match="declared twice"):
        keys.declare("eagle3.aux-sources", keys.BOOL)
    assert keys.declared("eagle3.aux-sources") is keys.POINTERS
    monkeypatch.setattr(keys, "KEYS", dict(keys.KEYS))
    assert keys.declare("test.new-key", keys.NAMES) == "test.new-key"
    Fact("test.new-key", "vllm", frozenset({"llama"}), "silent", "x", since="0.33.0")
    with pytest.raises(TypeError):
        Fact("test.new-key", "vllm", True, "silent", "x", since="0.33.0")


def test_every_key_looked_up_is_declared_and_every_declared_key_is_used():
    """runtimes/keys.py declares each fact key once with its value's type. Mutations
    caught: a look-up of a key nobody declared (a typo that would answer None), a key
    declared that no code asks for (a claim nothing reads)."""
    from drafter_lint.family import FAMILY_TABLE
    from drafter_lint.runtimes.keys import KEYS

    own = {ROOT / "drafter_lint" / "runtimes" / n for n in ("table.py", "keys.py")}
    files = [p for p in [*(ROOT / "drafter_lint").rglob("*.py"), *(ROOT / "rules").glob("*.py")]
             if p not in own]
    asked, strings = set(), set()
    for path in files:
        for text, call in _code_strings(path):
            strings.add(text)
            if call in LOOKUPS and KEY.fullmatch(text):
                asked.add(text)
    assert asked and asked <= set(KEYS), sorted(asked - set(KEYS))
    # serves.<family> is asked through runtimes.serves(release, family)
    served = {f"serves.{f.name}" for f in FAMILY_TABLE}
    assert set(KEYS) - strings - served == set()


def test_a_key_not_declared_fails_at_import_and_at_look_up():
    """A row or a look-up with a key runtimes/keys.py does not declare raises, and so does
    a row whose value is not of its key's type. Mutations caught: Fact's check dropped (a
    mistyped row accepted at import), a look-up of a typo answering None or the default."""
    release = runtimes.parse("vllm")
    with pytest.raises(KeyError, match="'dflash.mask-source'"):
        runtimes.Fact("dflash.mask-source", "vllm", ("/mask_token_id",), "silent", "V x",
                      since="0.20.0")
    with pytest.raises(TypeError, match="JSON pointers"):
        runtimes.Fact("dflash.mask-sources", "vllm", ("mask_token_id",), "silent", "V x",
                      since="0.20.0")
    with pytest.raises(KeyError):
        runtimes.value("dflash.mask-source", release, ())
    with pytest.raises(KeyError):
        runtimes.lookup("dflash.mask-source", release)
    with pytest.raises(KeyError):
        runtimes.matching([release], "dflash.mask-source")
    assert runtimes.value("dflash.mask-sources", release)            # declared: answered


def test_a_flag_is_no_offset_and_an_offset_no_flag():
    """An offset key (INT) takes an int and refuses a bool, which Python counts among the
    ints; a flag key (BOOL) refuses 1. Mutation caught (round 2026-12-05, M09): INT's test
    `isinstance(v, int)`, so a row reading `True` for a token offset loads as 1."""
    from drafter_lint.runtimes import keys

    keys.check("dflash.tokens-per-block", 1)
    with pytest.raises(TypeError, match="int"):
        keys.check("dflash.tokens-per-block", True)
    with pytest.raises(TypeError, match="int"):
        runtimes.Fact("dflash.tokens-per-block", "vllm", False, "silent", "V x",
                      since="0.20.0")
    keys.check("vllm.legacy-speculative-flags", False)
    with pytest.raises(TypeError, match="bool"):
        keys.check("vllm.legacy-speculative-flags", 1)


def test_questions_about_every_recorded_release():
    """The named questions rules ask of all rows of a key at once (runtimes/rows.py).
    Mutations caught: the first row taken instead of the earliest / latest, a test
    ignored, an undeclared key answered."""
    assert runtimes.held_until("serves.medusa") == "0.33.0"
    assert runtimes.held_since("vllm.legacy-speculative-flags", lambda v: v is False) == "0.8.3"
    assert runtimes.held_since("dflash.reads-use-swa") == "0.25.0"
    assert runtimes.held_since("serves.dflash2", lambda v: v is True) == "0.5.19"
    assert runtimes.ever("quant.moe-exclusions-read", lambda methods: "modelopt_fp4" in methods)
    assert not runtimes.ever("quant.moe-exclusions-read", lambda methods: "gptq" in methods)
    assert runtimes.recorded_for("serves.medusa") == ("sglang", "vllm")
    with pytest.raises(KeyError):
        runtimes.ever("serves.medusas")


def test_each_probe_takes_the_range_of_the_row_its_evidence_was_read_for():
    """The probes (release_probes.py) state no range: the n-th probe of a key, runtime and
    runner takes the n-th such row of table.py. Each must be the probe the row's evidence
    was read with. Mutations caught: two probes of a key swapped (each gets the other's
    range), a row left without a probe or a probe without a row (import error)."""
    import json
    import sys

    oracle = ROOT / "tools" / "oracle"
    sys.path.insert(0, str(oracle))
    try:
        from release_probes import PROBES
    finally:
        sys.path.remove(str(oracle))
    evidence = json.loads((ROOT / "tests" / "data" / "release-evidence.json").read_text())
    records = {(r["key"], r["runtime"], r["since"], r["until"], r.get("path", "")): r["probe"]
               for r in evidence["records"]}
    assert len(PROBES) == len(records)
    for probe in PROBES:
        recorded = records[(probe.key, probe.runtime, probe.since, probe.until, probe.path)]
        assert recorded == ({"extract": probe.extract} if probe.extract else {
            "files": probe.files, "pattern": probe.pattern,
            **({"also": [list(p) for p in probe.also]} if probe.also else {}),
            **({"also_not": [list(p) for p in probe.also_not]} if probe.also_not else {})}), \
            (probe.key, probe.runtime, probe.since, probe.until)


@pytest.mark.parametrize("phrase,one,two", [
    ("refuses to start", "refuses to start", "refuse to start"),
    ("does not serve it and refuses to start", "does not serve it and refuses to start",
     "do not serve it and refuse to start"),
    ("keeps it, and prompts past it", "keeps it, and prompts past it",
     "keep it, and prompts past it"),
    ("then is asked", "then is asked", "then are asked"),
])
def test_messages_agree_every_joined_verb_with_their_releases(phrase, one, two):
    """'vLLM X and SGLang Y do not serve ... and refuse to start'. Mutation caught (round
    2026-12-05f noted it): only the first verb agreed, so MED103 read "... do not serve
    Medusa heads and refuses to start"; or a noun after "and" taken for a verb."""
    vllm, sglang = runtimes.parse("vllm==0.33.0"), runtimes.parse("sglang==0.5.23")
    assert runtimes.agree([vllm], phrase) == f"vLLM 0.33.0 {one}"
    assert runtimes.agree([vllm, sglang], phrase) == f"vLLM 0.33.0 and SGLang 0.5.23 {two}"
