"""The rules against the runtimes' own start-up verdicts (tests/data/oracle/), with no
runtime installed: tests/oracle/judge.py says what each verdict demands of the linter.

The oracle lane itself (`DRAFTER_LINT_LANE=oracle DRAFTER_LINT_ORACLE=DIR pytest
tests/test_oracle.py`, DIR from tools/oracle/setup.sh) runs vLLM's and SGLang's start-up
again and fails when a recorded verdict changed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "oracle"))

from corpus import cases  # noqa: E402
from judge import (CLAIM, _read, beyond_ids, effective, golden, judge, judgements,  # noqa: E402
                   lint_record, reported_by)
from launches import pairs as build_pairs  # noqa: E402

DOCUMENTS = golden()
RECORDS = [(d["runtime"], d["version"], r) for d in DOCUMENTS for r in d["launches"]]


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    return {p.id: p for p in build_pairs(tmp_path_factory.mktemp("oracle-pairs"))}


@pytest.mark.parametrize("runtime,version,record", RECORDS,
                         ids=[r["id"] for _, _, r in RECORDS])
def test_linter_agrees_with_the_runtime(pairs, runtime, version, record):
    """Mutations caught: a rule that stops reporting a refusal the runtime makes (the
    launch was refused, no mapped error), a rule whose message stops naming the runtime,
    and a rule that claims a refusal the runtime does not make (accepted launches)."""
    linted = lint_record(record, runtime, version, pairs)
    assert judge(linted, judgements()) == []


def test_what_transformers_loads_claims_no_refusal_of_a_runtime(pairs):
    """The transformers rules (TF1xx) are judged once per pair, not per release (their
    findings do not depend on it): none claims that a runtime refuses or fails to load a
    pair that runtime accepted on every recorded release. Mutation caught: a TF message that starts speaking for a runtime's
    start-up, which the per-launch judge no longer sees."""
    from drafter_lint.engine import lint
    from drafter_lint.options import Options
    from drafter_lint.rules import RULES

    loaded = {c: r for c, r in RULES.items() if "loaded" in r.needs}
    accepted: dict = {}             # pair -> the runtimes that accepted it on every release
    for runtime, version, record in RECORDS:
        ok = accepted.setdefault(record["pair"], {"vLLM": True, "SGLang": True})
        name = "vLLM" if runtime == "vllm" else "SGLang"
        ok[name] = ok[name] and effective(record, runtime, version)["verdict"] == "accepted"
    claims = []
    for pair_id, ok in accepted.items():
        pair = pairs[pair_id]
        checkpoint, target = _read(pair.drafter, pair.target, pair.id)
        for f in lint(checkpoint, Options(rules=loaded, target=target)).findings:
            if CLAIM.search(f.message) and any(re.search(rf"\b{n}\b", f.message)
                                               for n, yes in ok.items() if yes):
                claims.append((pair.id, f.rule, f.message[:120]))
    assert claims == []


def test_both_runtimes_and_their_releases_are_recorded():
    """At least 10 vLLM and 5 SGLang releases, among them each runtime's newest and vLLM's
    path boundaries: 0.21.0 (V1 only), 0.22.0 (V2 for Qwen3 dense targets), 0.24.0 (six
    listed architectures), 0.25.0 (every dense target; mixed DFlash refused), 0.26.0
    (mixed DFlash forced onto V2), 0.29.0 (V2 for every target). Mutation caught: a
    recorded release's file removed, renamed or cut short."""
    recorded = {(d["runtime"], d["version"]) for d in DOCUMENTS}
    assert {("vllm", v) for v in ("0.21.0", "0.22.0", "0.24.0", "0.25.0", "0.26.0",
                                  "0.29.0", "0.33.0")} | {("sglang", "0.5.23")} <= recorded
    assert sum(r == "vllm" for r, _ in recorded) >= 10
    assert sum(r == "sglang" for r, _ in recorded) >= 5
    for document in DOCUMENTS:
        assert len(document["launches"]) >= 57, document["version"]


def test_every_corpus_case_with_a_target_is_recorded():
    """Mutation caught: a corpus case with a target (or an MTP checkpoint, its own target)
    added without a recorded verdict for each runtime. Constructed cases are left out: the
    oracle records published configs, and a constructed one is its recorded base with a
    thread's change, held to that thread's release by the corpus test."""
    want = {c.id for c in cases() if not c.constructed and (
        c.meta["family"] == "mtp" or (c.folder / "target.config.json").is_file())}
    # a case added after most releases were recorded names why it is not in all of them
    # and is recorded in at least one (case.json `oracle_partial`)
    partial = {c.id: c.meta["oracle_partial"] for c in cases() if "oracle_partial" in c.meta}
    for document in DOCUMENTS:
        recorded = {r["pair"] for r in document["launches"]}
        assert want - recorded - set(partial) == set(), document["runtime"]
    for case, why in partial.items():
        assert len(why) > 60 and any(case in {r["pair"] for r in d["launches"]}
                                     for d in DOCUMENTS), case


def test_judgements_hold_no_stale_entries():
    """Every pattern maps a recorded refusal, every exception names a recorded launch and
    gives a reason; a refusal with no pattern is what test_linter_agrees reports."""
    table = judgements()
    refusals = [(d["runtime"], r["message"]) for d in DOCUMENTS for r in (
                effective(x, d["runtime"], d["version"]) for x in d["launches"])
                if r["verdict"] == "refused"]
    for entry in table["refusals"]:
        assert any(rt == entry["runtime"] and re.search(entry["match"], m)
                   for rt, m in refusals), entry
    ids = {r["id"] for _, _, r in RECORDS}
    for entry in table["beyond"]:
        assert entry["id"] in ids and len(entry["reason"]) > 40, entry
        if "releases" in entry:       # a range that holds at least one recorded release
            assert any(beyond_ids({"beyond": [entry]}, d["runtime"], d["version"])
                       for d in DOCUMENTS), entry
    from drafter_lint.rules import RULES

    for entry in table["refusals"] + table["conditional_claims"]:
        assert all(code in RULES for code in entry.get("rules", [entry.get("rule")])), entry


def test_loads_json_is_what_the_recorded_verdicts_show():
    """drafter_lint/runtimes/loads.json is written from the recorded weights layers
    (tools/oracle/weights_rows.py). Mutation caught: a release's verdicts landed without
    rewriting it (vLLM 0.20.2 and 0.10.1.1 did: the gate then judged their loads by
    no recorded placeholders at all)."""
    import json

    rows = _weights_rows()
    assert json.loads(rows.OUT.read_text())["rows"] == rows.rows(), \
        "loads.json is stale: run python tools/oracle/weights_rows.py"


def test_ld101_predicts_what_each_recorded_load_left_unfilled():
    """LD101 derives, from loads.json's name maps, which parameters a checkpoint leaves
    unfilled; every recorded load with a name map (published drafters and variants) holds
    it to the release's own run: what it predicts unfilled was unfilled, and what the run
    left unfilled among the class's needed parameters it predicts (where it judges).
    Mutation caught: the name map not applied (every needed parameter predicted unfilled,
    which the runs filled)."""
    from drafter_lint.runtimes.loads import loader
    from drafter_lint.rules.weights_loaded import filled, unfilled, _parent

    judged = 0
    for runtime, version, record in RECORDS:
        weights, resolved = record.get("weights") or {}, record.get("resolved") or {}
        if "took" not in weights:
            continue
        row = loader(runtime, version, (resolved.get("draft_architectures") or [""])[0])
        if row is None:
            continue
        tensors = list(weights["took"]) + weights["dropped"]
        predicted = set(unfilled(row, tensors))
        assert predicted <= set(weights["unfilled"]), (record["id"], version, predicted)
        got = filled(row, tensors)
        if got is None:
            continue
        blocks = {_parent(p) for p in got} | {""}
        missed = {p for p in weights["unfilled"] if p in row.needs and _parent(p) in blocks}
        assert missed <= predicted, (record["id"], version, missed - predicted)
        judged += 1
    assert judged >= 20, judged


def test_ld101_holds_a_layer_to_the_needs_only_where_the_checkpoint_fills_it():
    """A head with fewer layers than the published ones is not asked for the layers it
    does not have; a layer it has, missing one tensor, is. Mutation caught: the block
    condition dropped (a one-layer head reported for layer 1's every parameter)."""
    from drafter_lint.runtimes.loads import Loader
    from drafter_lint.rules.weights_loaded import unfilled

    row = Loader("vllm", "C", "0.1", "0.2", frozenset({"C"}),
                 {"layers.{i}.a.weight": "model.layers.{i}.a.weight",
                  "layers.{i}.b.weight": "model.layers.{i}.b.weight",
                  "norm.weight": "model.norm.weight"}, frozenset(),
                 frozenset({"model.layers.0.a.weight", "model.layers.0.b.weight",
                            "model.layers.1.a.weight", "model.layers.1.b.weight",
                            "model.norm.weight"}), frozenset())
    assert unfilled(row, ["layers.0.a.weight", "layers.0.b.weight", "norm.weight"]) == []
    assert unfilled(row, ["layers.0.a.weight", "layers.0.b.weight", "layers.1.a.weight"]) == \
        ["model.layers.1.b.weight", "model.norm.weight"]


def test_a_parameter_is_needed_only_when_every_good_load_filled_it():
    """`needs` is what every good load of a class at a release filled: a parameter one
    published checkpoint fills and another leaves to the runtime is not asked for.
    Mutation caught: the loads' needs united instead of intersected."""
    merge = _weights_rows()._merge
    one = {"unfilled": [], "dropped": [], "took": {"a": "model.a", "b": "model.b"}}
    two = {"unfilled": [], "dropped": [], "took": {"a": "model.a"}}
    assert merge(merge(None, one, "C"), two, "C")["needs"] == {"model.a"}


def _weights_rows():
    sys.path.insert(0, str(HERE.parent / "tools" / "oracle"))
    try:
        import weights_rows
    finally:
        sys.path.pop(0)
    return weights_rows


def test_the_name_map_keeps_layer_numbers_only_where_the_loader_keeps_them():
    """A tensor whose layer number the loader keeps (`layers.3.x` -> `model.layers.3.x`)
    is mapped by pattern; one it renumbers (EAGLE-3's `midlayer.x` -> `model.layers.0.x`,
    DeepSeek-V4's `mtp.0.x` -> `model.layers.43.x`) as written. Mutation caught: every
    name generalized, so `mtp.{i}` would fill `model.layers.{i}` with the wrong layer."""
    names = _weights_rows()._names({
        "layers.3.mlp.down_proj.weight": "model.layers.3.mlp.down_proj.weight",
        "midlayer.hidden_norm.weight": "model.layers.0.hidden_norm.weight",
        "mtp.0.e_proj.weight": "model.layers.43.e_proj.weight"})
    assert names == {
        "layers.{i}.mlp.down_proj.weight": "model.layers.{i}.mlp.down_proj.weight",
        "midlayer.hidden_norm.weight": "model.layers.0.hidden_norm.weight",
        "mtp.0.e_proj.weight": "model.layers.43.e_proj.weight"}


def test_a_load_that_drops_tensors_and_leaves_parameters_unfilled_is_no_baseline():
    """SGLang 0.4.x-0.5.0 build yuhuili's EAGLE head (architectures LlamaForCausalLM) as a
    plain Llama: every tensor is dropped and every layer left unfilled. Such a load is a
    name mismatch, not the class's placeholders: no row of loads.json takes it as good.
    Mutation caught: the exclusion dropped (the unfilled layers became placeholders, so
    the judge no longer counted that launch as left at init)."""
    rows = _weights_rows().rows()
    assert not [r for r in rows if r["runtime"] == "sglang"
                and r["draft_class"] == "LlamaForCausalLM"]
    # and the launch is held to its refusal: left at init, EA103's
    record = next(r for d in DOCUMENTS if d["runtime"] == "sglang" and d["version"] == "0.4.10"
                  for r in d["launches"] if r["id"] == "manifest-eagle-llama3-8b@sglang")
    assert effective(record, "sglang", "0.4.10")["verdict"] == "refused"


def test_the_refusal_table_sees_each_recorded_refusal():
    """Mutation caught: a judgements pattern edited so it no longer matches (the refused
    launch would then fail for want of a rule, not pass)."""
    table = judgements()
    for runtime, version, record in ((rt, v, effective(r, rt, v)) for rt, v, r in RECORDS):
        if record["verdict"] == "refused" and \
                record["id"] not in beyond_ids(table, runtime, version):
            assert reported_by(runtime, record["message"], table), record["id"]


@pytest.mark.skipif(os.environ.get("DRAFTER_LINT_LANE") != "oracle",
                    reason="the oracle lane: DRAFTER_LINT_LANE=oracle DRAFTER_LINT_ORACLE=DIR")
def test_recorded_verdicts_are_what_the_runtimes_say_today():
    venvs = os.environ.get("DRAFTER_LINT_ORACLE", os.path.expanduser("~/oracle"))
    run = subprocess.run([sys.executable, str(HERE.parent / "tools" / "oracle" / "run.py"), "--venvs", venvs,
                          "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


SINGULAR_SUBJECT = re.compile(r"(?<!and )\b(vLLM|SGLang) \d+\.\d+\.\d+ (?:then )?(refuse|read|look|"
                              r"serve|skip|do|build|use|run|raise|cap|load|capture|need)\b")
PLURAL_SUBJECT = re.compile(r"\band (vLLM|SGLang) \d+\.\d+\.\d+ (?:then )?(refuses|reads|looks|"
                            r"serves|skips|does|builds|uses|runs|raises|caps|loads|needs)\b")


@pytest.mark.parametrize("runtime", [None, "vllm", "sglang"])
def test_messages_name_their_runtime_with_a_verb_that_agrees(tmp_path, runtime):
    """Mutation caught: a message built with `labels(...)` and a fixed verb ("SGLang
    0.5.23 refuse to start"), or one naming vLLM when only SGLang is checked for."""
    from corpus import lint_case

    other = {"vllm": "SGLang", "sglang": "vLLM"}.get(runtime)
    for case in cases():
        for rule, _, _, message in lint_case(case, tmp_path / str(runtime), runtime).findings:
            assert not SINGULAR_SUBJECT.search(message), (case.id, rule, message)
            assert not PLURAL_SUBJECT.search(message), (case.id, rule, message)
            if other:
                assert not re.search(rf"\b{other} \d+\.\d+", message), (case.id, rule, message)


ORACLE = os.environ.get("DRAFTER_LINT_ORACLE", os.path.expanduser("~/oracle"))
ORACLE_LANE = pytest.mark.skipif(os.environ.get("DRAFTER_LINT_LANE") != "oracle",
                                 reason="the oracle lane: DRAFTER_LINT_LANE=oracle")


@ORACLE_LANE
@pytest.mark.parametrize("prefix,edit,expected", [
    ([], None, "accepted"),
    (["VLLM_USE_V2_MODEL_RUNNER=0"], None, "Model Runner V1 does not support: mixed sliding"),
    ([], ["DFlashQwen9Model"], "are not supported for now"),
])
def test_gate_dry_run_with_the_real_vllm(tmp_path, prefix, edit, expected):
    """The gate in front of a line whose `vllm` runs on the oracle lane's vLLM 0.33.0:
    its own start-up judges the launch. Mutation caught: the dry run's verdict dropped, or
    run with other arguments than the line's."""
    import json
    import shutil

    from sparse import FIXTURES

    tiny = tmp_path / "tiny"
    shutil.copytree(FIXTURES / "tiny-qwen3.6", tiny)
    if edit:
        config = json.loads((tiny / "drafter" / "config.json").read_text())
        config["architectures"] = edit
        (tiny / "drafter" / "config.json").write_text(json.dumps(config))
    env = _vllm_launcher(tmp_path, "0.33.0")
    spec = json.dumps({"method": "dflash", "model": "drafter", "num_speculative_tokens": 15})
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    run = subprocess.run([exe, "gate", "--", *prefix, "vllm", "serve", "target",
                          "--speculative-config", spec], cwd=tiny, env=env,
                         capture_output=True, text=True, timeout=600)
    assert "linting for vLLM 0.33.0" in run.stderr, run.stderr
    if expected == "accepted":
        assert run.returncode == 0 and "own start-up accepted the launch" in run.stderr
        assert (tmp_path / "started.json").exists()
    else:
        assert run.returncode == 1 and "LCH106" in run.stderr and expected in run.stderr, \
            run.stderr
        assert not (tmp_path / "started.json").exists()


@ORACLE_LANE
@pytest.mark.parametrize("architecture,verdict", [("LlamaForCausalLMEagle3", "accepted"),
                                                  ("Eagle3LlamaForCausalLM", "refused")])
def test_the_sglang_dry_run_with_the_real_sglang(tmp_path, architecture, verdict):
    """The gate's SGLang dry run (drafter_lint/dryrun/sglang_startup.py) in the oracle
    lane's SGLang 0.5.23: the published head is accepted, vLLM's class name refused with
    SGLang's own message; through `gate`, the refusal blocks the line. (An accepted line
    would start the real server, so that half runs the dry run alone.)"""
    import json
    import shutil

    from sparse import FIXTURES

    python = Path(ORACLE) / "sglang-0.5.23" / "bin" / "python"
    case = FIXTURES / "published" / "sglang-test-qwen3-8b-eagle3"
    (tmp_path / "draft").mkdir()
    (tmp_path / "target").mkdir()
    config = json.loads((case / "config.json").read_text())
    config["architectures"] = [architecture]
    (tmp_path / "draft" / "config.json").write_text(json.dumps(config))
    shutil.copyfile(case / "target.config.json", tmp_path / "target" / "config.json")
    server = ["--model-path", "target", "--speculative-algorithm", "EAGLE3",
              "--speculative-draft-model-path", "draft", "--speculative-num-steps", "3",
              "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
    env = dict(os.environ, DRAFTER_LINT_EMULATE_GPU="h100")
    out = tmp_path / "verdict.json"
    script = HERE.parent / "drafter_lint" / "dryrun" / "sglang_startup.py"
    subprocess.run([str(python), str(script), json.dumps({"argv": server, "init": True,
                                                          "out": str(out)})],
                   cwd=tmp_path, env=env, capture_output=True, timeout=600)
    assert json.loads(out.read_text())["verdict"] == verdict
    if verdict == "refused":
        exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
        run = subprocess.run([exe, "gate", "--", str(python), "-m", "sglang.launch_server",
                              *server], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 1 and "LCH106" in run.stderr
        assert "Cannot find model module" in run.stderr, run.stderr


RUNNER_RECORDS = [(d["version"], r) for d in DOCUMENTS if d["runtime"] == "vllm"
                  for r in d["launches"]
                  if isinstance((r.get("resolved") or {}).get("use_v2_model_runner"), bool)]


@pytest.mark.parametrize("version,record", RUNNER_RECORDS,
                         ids=[f"{r['id']}-{v}" for v, r in RUNNER_RECORDS])
def test_the_path_is_the_runner_vllm_chose(pairs, version, record):
    """vLLM's own start-up records which model runner it chose for each launch
    (`VllmConfig.use_v2_model_runner`); drafter_lint/runtimes/path.py, from the policy read
    off the wheel, chooses the same for the same target, method, draft and environment.
    Mutations caught: a policy run or a forced draft read wrong, MoE or hybrid targets
    taken as dense."""
    from judge import launch_facts
    from lintopts import launch_of

    from drafter_lint import runtimes
    from drafter_lint.engine import facts_for
    from drafter_lint.options import Options

    pair = pairs[record["pair"]]
    release = runtimes.parse(f"vllm=={version}")
    launch = launch_of(launch_facts(record, "vllm", pair.drafter), release)
    checkpoint, target = _read(pair.drafter, pair.target, pair.id)
    facts = facts_for(checkpoint, Options(rules={}, target=target, runtime=release,
                                          **launch))   # no rules: nothing to load
    chosen = facts.on_path(release)
    from judge import recorded_runner
    want = recorded_runner(record, version)
    assert chosen.runner == want, (chosen.why, record["launch"])


READER_RECORDS = [(d["version"], r, runner, what) for d in DOCUMENTS if d["runtime"] == "vllm"
                  for r in d["launches"] for runner, reads in (r.get("readers") or {}).items()
                  for what in reads]


@pytest.mark.parametrize("version,record,runner,what", READER_RECORDS,
                         ids=[f"{r['id']}-{v}-{runner}-{w}" for v, r, runner, w in READER_RECORDS])
def test_the_linter_reads_what_each_runner_reads(pairs, version, record, runner, what):
    """Each model runner's own reader of the mask id and the taps, executed on the recorded
    launch (tools/oracle/run_vllm.py `readers`), returns what the fact rows say that
    runner reads for that release: the mask id from the first `dflash.mask-sources`
    pointer set (none set: the reader raises), the taps from the first tap source set,
    shifted to capture indices (none set: no list, the model's default). Mutations caught:
    a source row's pointers, order, shift, runner or range changed."""
    from drafter_lint.rules.dflash import mask_source
    from drafter_lint.rules.eagle3_taps import AUX_NESTED, AUX_TOP

    from drafter_lint import runtimes
    from drafter_lint.engine import facts_for
    from drafter_lint.options import Options

    pair = pairs[record["pair"]]
    release = runtimes.on_runner(runtimes.parse(f"vllm=={version}"), runner)
    facts = facts_for(_read(pair.drafter, pair.target, pair.id)[0], Options(rules={}))
    got = record["readers"][runner][what]
    if what == "mask_token_id":
        source = mask_source(facts, release)
        assert (source[1] if source else None) == (None if isinstance(got, dict) else got), \
            (source, got)
        return
    if facts.family.startswith("eagle3"):
        sources = [(p, 0) for p in runtimes.value("eagle3.aux-sources", release,
                                                  (AUX_TOP, AUX_NESTED))]
    else:
        sources = runtimes.value("dflash.tap-sources", release, ())
    found = next(([v + shift for v in facts.get(p)] for p, shift in sources
                  if isinstance(facts.get(p, None), list) and facts.get(p)), None)
    assert found == got, (sources, got)


GRAMMAR_CACHE = Path(os.environ.get("DRAFTER_LINT_GRAMMAR",
                                    os.path.expanduser("~/.cache/drafter-lint/grammar")))


@ORACLE_LANE
def test_constructed_lines_against_each_releases_real_parser(tmp_path):
    """Each constructed line of tests/data/grammar_lines.json (an unknown flag, a flag
    removed at release X and the same at the release before, an ambiguous prefix, a value
    outside static choices, a unique prefix, the published z-lab lines; both runtimes)
    parsed again by the real parser of the release it names (tools/grammar_oracle.py in
    the grammar venv, DRAFTER_LINT_GRAMMAR=DIR holding venv/, tf5/, oracle-extras/ and the
    wheel cache of tools/grammar.py), then held against LCH108's reading. Mutations
    caught: a recorded verdict that the release's parser no longer gives (the grammar
    data or the oracle script drifted), and any line where the tool's reading and the
    parser disagree (a false LCH108 on an accepted line, none on a refused one, another
    option named)."""
    from grammar_lines import LINES, disagreement, verdicts

    python = GRAMMAR_CACHE / "venv" / "bin" / "python"
    if not python.is_file():
        pytest.skip(f"no grammar venv at {python} (DRAFTER_LINT_GRAMMAR)")
    out = tmp_path / "verdicts.json"
    command = [sys.executable, str(HERE.parent / "tools" / "grammar_oracle.py"),
               "--python", str(python), "--cache", str(GRAMMAR_CACHE), "--out", str(out)]
    for flag, folder in (("--tf5", "tf5"), ("--extras", "oracle-extras")):
        if (GRAMMAR_CACHE / folder).is_dir():
            command += [flag, str(GRAMMAR_CACHE / folder)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    fresh = verdicts(out)
    assert fresh == verdicts(), "re-record: tools/grammar_oracle.py (docs/internals/oracle.md)"
    wrong = {e["id"]: d for e in LINES if (d := disagreement(e, fresh[e["id"]]))}
    assert wrong == {}


def _tiny_missing_tensor(tmp_path: Path) -> Path:
    """The tiny pair with `hidden_norm.weight` taken out of the drafter's weights (a
    checkpoint saved without one module): no tensor fills that parameter."""
    import shutil

    from safetensors.numpy import load_file, save_file

    from sparse import FIXTURES

    tiny = tmp_path / "tiny"
    shutil.copytree(FIXTURES / "tiny-qwen3.6", tiny)
    weights = tiny / "drafter" / "model.safetensors"
    tensors = load_file(weights)
    del tensors["hidden_norm.weight"]
    save_file(tensors, weights, metadata={"format": "pt"})
    return tiny


def _vllm_launcher(tmp_path: Path, version: str) -> dict:
    """A `vllm` on PATH that is the oracle lane's vLLM `version` (its interpreter), which
    records its argv instead of serving; the environment to run the gate in."""
    python = Path(ORACLE) / f"vllm-{version}" / "bin" / "python"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(f"#!{python}\nimport sys, json\n"
                                  f"open({str(tmp_path / 'started.json')!r}, 'w').write("
                                  f"json.dumps(sys.argv))\n")
    (bin_dir / "vllm").chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                DRAFTER_LINT_EMULATE_GPU="h100")


DRY_RUN_SECONDS = re.compile(r"dry run: \S+ own start-up and weight loading (accepted|refused) "
                             r"the launch \((\d+(?:\.\d+)?) s(?:, (\d+(?:\.\d+)?) s of it "
                             r"loading)?")


@ORACLE_LANE
@pytest.mark.parametrize("version", ["0.33.0", "0.34.0"])
@pytest.mark.parametrize("missing", [False, True], ids=["published", "missing-tensor"])
def test_the_gate_loads_the_weights_with_the_real_vllm(tmp_path, version, missing):
    """The gate's dry run puts the draft's weights through the installed vLLM's own
    loader (meta tensors from the header). The published tiny drafter loads; the same
    weights without `hidden_norm.weight` leave that norm at its init, which vLLM's DFlash
    load does not report: the gate blocks it with LCH106 even with the lint's own rule
    for it (DF131) switched off. Mutations caught: the weights layer not asked for
    (`"weights": True` dropped: the launch starts), the unfilled norm not judged."""
    import json
    import shutil

    from sparse import FIXTURES

    if missing:
        tiny = _tiny_missing_tensor(tmp_path)
    else:
        tiny = tmp_path / "tiny"
        shutil.copytree(FIXTURES / "tiny-qwen3.6", tiny)
    spec = {"method": "dflash", "model": "drafter", "num_speculative_tokens": 15}
    env = _vllm_launcher(tmp_path, version)
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    run = subprocess.run([exe, "gate", "--ignore", "DF131", "--", "vllm", "serve", "target",
                          "--speculative-config", json.dumps(spec)], cwd=tiny, env=env,
                         capture_output=True, text=True, timeout=900)
    timing = DRY_RUN_SECONDS.search(run.stderr)
    assert timing, run.stderr
    print(f"vllm=={version} {'missing' if missing else 'published'}: dry run "
          f"{timing.group(2)} s, weights layer {timing.group(3)} s")
    if missing:
        assert run.returncode == 1 and "LCH106" in run.stderr, run.stderr
        assert "weight loading refuses" in run.stderr and "hidden_norm" in run.stderr
        assert not (tmp_path / "started.json").exists()
    else:
        assert run.returncode == 0 and timing.group(1) == "accepted", run.stderr
        assert "tensors from the headers on the meta device" in run.stderr
        assert (tmp_path / "started.json").exists()


@ORACLE_LANE
@pytest.mark.parametrize("version", ["0.26.0", "0.32.0", "0.34.0"])
def test_ld101_and_the_real_vllm_agree_on_an_eagle3_head_without_its_norm(tmp_path, version):
    """The published EAGLE-3 manifest without `midlayer.hidden_norm.weight`: the installed
    vLLM's own loader, run by the gate's dry run on meta tensors from the header, leaves
    `model.layers.0.hidden_norm.weight` unfilled with no error (the gate blocks it with
    LCH106 even with LD101 switched off), and LD101, derived from loads.json with no
    runtime, says the same of that release. Mutations caught: LD101's row lookup by the
    class name instead of the architecture (no finding), and the weights layer not run."""
    import json

    from sparse import load_manifest, materialize

    manifest = load_manifest("eagle3-llama3.1-8b")
    tensors = [t for t in manifest["drafter"]["files"]["model.safetensors"]["tensors"]
               if t[0] != "midlayer.hidden_norm.weight"]
    materialize(manifest, tmp_path, tensors=tensors)
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    spec = {"method": "eagle3", "model": "drafter", "num_speculative_tokens": 3}
    run = subprocess.run([exe, "gate", "--ignore", "LD101", "--", "vllm", "serve", "target",
                          "--speculative-config", json.dumps(spec)], cwd=tmp_path,
                         env=_vllm_launcher(tmp_path, version), capture_output=True,
                         text=True, timeout=900)
    timing = DRY_RUN_SECONDS.search(run.stderr)
    assert timing, run.stderr
    print(f"vllm=={version}: dry run {timing.group(2)} s, weights layer {timing.group(3)} s")
    assert run.returncode == 1 and "LCH106" in run.stderr, run.stderr
    assert "model.layers.0.hidden_norm.weight" in run.stderr, run.stderr
    check = subprocess.run([exe, "check", "drafter", "--target", "target", "--runtime",
                            f"vllm=={version}", "--format", "json"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    found = [f for r in json.loads(check.stdout)["results"] for f in r["findings"]
             if f["rule"] == "LD101"]
    assert found and "model.layers.0.hidden_norm.weight" in found[0]["message"], check.stdout


@ORACLE_LANE
def test_the_gate_loads_the_weights_with_the_real_sglang(tmp_path):
    """The same with SGLang 0.5.23: the tiny DFlash drafter without `hidden_norm.weight`
    loads with no error in SGLang's own load_weights and leaves the norm at its init;
    the gate refuses the line before it starts. (An accepted line would start the real
    server, so only the refusal runs through `gate`.)"""
    tiny = _tiny_missing_tensor(tmp_path)
    python = Path(ORACLE) / "sglang-0.5.23" / "bin" / "python"
    env = dict(os.environ, DRAFTER_LINT_EMULATE_GPU="h100")
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    run = subprocess.run([exe, "gate", "--ignore", "DF131", "--", str(python), "-m",
                          "sglang.launch_server", "--model-path", "target",
                          "--speculative-algorithm", "DFLASH",
                          "--speculative-draft-model-path", "drafter",
                          "--speculative-num-draft-tokens", "16"], cwd=tiny, env=env,
                         capture_output=True, text=True, timeout=900)
    timing = DRY_RUN_SECONDS.search(run.stderr)
    assert timing and timing.group(1) == "refused", run.stderr
    print(f"sglang==0.5.23 missing: dry run {timing.group(2)} s")
    assert run.returncode == 1 and "LCH106" in run.stderr and "hidden_norm" in run.stderr


def test_the_lane_check_takes_a_partial_cases_new_launch_as_pending(tmp_path, monkeypatch,
                                                                     capsys):
    """`run.py --check` compares a fresh run with the recorded file; a launch of a corpus
    case declared `oracle_partial` that the file does not hold yet is pending, not a
    changed verdict, while any other new or changed launch still fails the check.
    Mutation caught: the pending set ignored (the lane failed on every release recorded
    before the case was added)."""
    import json

    sys.path.insert(0, str(HERE.parent / "tools" / "oracle"))
    try:
        import run as lane
    finally:
        sys.path.pop(0)
    recorded = json.loads((HERE / "data" / "oracle" / "vllm-0.9.2.json").read_text())
    fresh = json.loads(json.dumps(recorded))
    fresh["launches"].append({"id": "deepseek-v4-pro-mtp@vllm", "verdict": "refused"})
    monkeypatch.setattr(lane, "releases", lambda asked, venvs: [("vllm", "0.9.2")])
    monkeypatch.setattr(lane, "run", lambda *a, **k: json.loads(json.dumps(fresh)))
    monkeypatch.setattr(sys, "argv", ["run.py", "--venvs", str(tmp_path), "--check"])
    assert lane.main() == 0
    assert "not recorded at 0.9.2 yet" in capsys.readouterr().out
    fresh["launches"].append({"id": "tiny-drafter+new@vllm", "verdict": "accepted"})
    assert lane.main() == 1
