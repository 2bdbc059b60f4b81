"""Every drafter family: detection, published layouts, what the manifests and the MTP
generators take. The family rules' cases are in fixtures/rules/ (tests/test_rule_cases.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from drafter_lint.rules import RULES
from rulecases import Case, build
from sparse import (FIXTURES, apply_ops, deepseek_v3, load_manifest, materialize, qwen35_moe,
                    write_json)

from drafter_lint.checkpoint import read_checkpoint
from drafter_lint.engine import lint
from lintopts import options

AUX = "/eagle_aux_hidden_state_layer_ids"
FAMILY_MANIFESTS = {"eagle3-llama3.1-8b": "eagle3", "eagle3-gpt-oss-120b": "eagle3",
                    "eagle-llama3-8b": "eagle", "medusa-vicuna-7b": "medusa",
                    "speculators-eagle3-qwen3-235b": "speculators/eagle3",
                    "qwen3.6-27b-dflash": "dflash", "qwen3-4b-dflash-b16": "dflash"}


E3, MED, SPC = ("eagle3-llama3.1-8b", "medusa-vicuna-7b", "speculators-eagle3-qwen3-235b")
IDS3 = [("add", AUX, [2, 16, 29])]
SPC_DFLASH = [("replace", "/speculators_model_type", "dflash"),
              ("add", "/transformer_layer_config/layer_types",
               ["sliding_attention", "full_attention"])]

# --- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize("name,family", sorted(FAMILY_MANIFESTS.items()))
def test_family_is_detected(cli, tmp_path, name, family):
    drafter, target = materialize(load_manifest(name), tmp_path)
    run = cli("check", drafter, "--target", target, "--format", "json")
    assert run.json()["results"][0]["family"] == family


@pytest.mark.parametrize("make,family", [(deepseek_v3, "mtp"), (qwen35_moe, "mtp")])
def test_mtp_targets_are_detected(cli, tmp_path, make, family):
    make(tmp_path / "t", experts=2)
    assert cli("check", tmp_path / "t", "--format", "json").json()["results"][0]["family"] \
        == family


@pytest.mark.parametrize("config", [
    {"architectures": ["Qwen3DSparkModel"], "model_type": "dspark"},   # TorchSpec 17037f5
    {"architectures": ["Gemma4DSparkModel"]},
    {"architectures": ["DSparkDraftModel"], "model_type": "qwen3"},     # SpecForge
])
def test_dspark_classes_vllm_registers_are_detected(config):
    """Mutation caught: only DSparkDraftModel recognised, so a TorchSpec DSpark drafter was
    'unknown' and no rule ran."""
    from drafter_lint.family import detect

    assert detect(config, set()) == "dspark"


def test_family_override_and_unknown(cli, tmp_path):
    drafter, _ = materialize(load_manifest(MED), tmp_path)
    natural = cli("check", drafter, "--format", "json").json()["results"][0]
    assert natural["family"] == "medusa"
    run = cli("check", drafter, "--family", "eagle3", "--format", "json")
    result = run.json()["results"][0]
    assert result["family"] == "eagle3"
    assert "EA302" in {f["rule"] for f in result["findings"]}
    assert not [f for f in result["findings"] if f["rule"].startswith("MED")]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text('{"model_type": "gpt2", "n_layer": 12}')
    unknown = cli("check", plain, "--format", "json").json()["results"][0]
    assert unknown["family"] == "unknown"
    assert [f["rule"] for f in unknown["findings"]] == ["DL007"]


def test_dflash2_is_named_and_warned(cli, tiny):
    config = json.loads((tiny / "drafter" / "config.json").read_text())
    config["architectures"] = ["DFlash2DraftModel"]
    (tiny / "drafter" / "config.json").write_text(json.dumps(config))
    result = cli("check", tiny / "drafter", "--format", "json").json()["results"][0]
    assert result["family"] == "dflash2"
    warned = [f for f in result["findings"] if f["rule"] == "DF136"]
    assert warned and "V2 model runner" in warned[0]["message"]
    assert warned[0]["severity"] == "info"


# --- published layouts and documented failures ---------------------------------------------


@pytest.mark.parametrize("name", sorted(n for n in FAMILY_MANIFESTS
                                         if not n.startswith("speculators")))
def test_published_family_configs_give_no_error(cli, tmp_path, name):
    """(The speculators fixture is a bug report's config: it is among the bug cases.)"""
    drafter, target = materialize(load_manifest(name), tmp_path)
    run = cli("check", drafter, "--target", target, "--format", "json")
    errors = [f["rule"] for f in run.json()["results"][0]["findings"]
              if f["severity"] == "error"]
    # the current runtimes refuse Medusa heads (MED103); SGLang refuses short contexts, and
    # builds SafeAILab's heads, which list LlamaForCausalLM, as a plain Llama (it serves
    # converted checkpoints listing its EAGLE classes): EA103 / EA330, executed on
    # sglang==0.5.0rc0-rc2
    expected = ["MED103"] if name.startswith("medusa") else \
        {"eagle-llama3-8b": ["EA103"], "eagle3-llama3.1-8b": ["EA330"]}.get(name, [])
    assert sorted(errors) == sorted(expected + refused_by_sglang(f"manifest-{name}@sglang")), errors


def refused_by_sglang(launch_id: str) -> list[str]:
    """DL013 where SGLang's own start-up refused this launch for the draft's short
    context (tests/data/oracle/sglang-0.5.23.json): published EAGLE heads with 2048 or
    4096 positions need SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 there."""
    from pathlib import Path

    golden = json.loads((Path(__file__).parent / "data" / "oracle" / "sglang-0.5.23.json")
                        .read_text())
    record = next((x for x in golden["launches"] if x["id"] == launch_id), None)
    return ["DL013"] if record and record["verdict"] == "refused" and \
        "derived context_length" in record["message"] else []


@pytest.mark.parametrize("make", [deepseek_v3, qwen35_moe])
def test_published_mtp_targets_give_no_error(cli, tmp_path, make):
    make(tmp_path / "t", experts=4)
    run = cli("check", tmp_path / "t", "--num-speculative-tokens", "1", "--format", "json")
    assert run.code == 0, run.out


# --- MTP targets: size and speed ------------------------------------------------------------


@pytest.mark.parametrize("make,shards,read", [(deepseek_v3, 163, 4), (qwen35_moe, 17, 1)])
@pytest.mark.parametrize("timed", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["shards", "time"])    # the 2 s goal: the slow lane's
def test_huge_mtp_target_lints_fast_reading_only_mtp_shards(tmp_path, make, shards, read,
                                                            timed):
    size = make(tmp_path / "target")
    assert size > 60 * 1024**3
    command = [sys.executable, "-m", "drafter_lint", "check", str(tmp_path / "target"),
               "--ignore", "TF", "--format", "json"]
    started = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    elapsed = time.monotonic() - started
    result = json.loads(run.stdout)["results"][0]
    assert result["family"] == "mtp" and run.returncode == 0
    skipped = {s["rule"]: s["reason"] for s in result["skipped"]}
    assert skipped["DL005"].startswith(f"{shards - read} of {shards} shards not read")
    assert not timed or elapsed < 2.0, f"{elapsed:.2f} s"


def test_an_ignored_dl005_is_not_listed_as_skipped(cli, tmp_path):
    """`--ignore DL005` silences the "N of M shards not read" line like any other rule:
    a user who ignores it does not see it in `skipped` either. Mutation caught (round
    2026-12-05c, M05): the DL005 skipped check added whatever `--select` / `--ignore`
    say (its `selected` test dropped)."""
    qwen35_moe(tmp_path / "target")
    shown = cli("check", tmp_path / "target", "--ignore", "TF", "--format", "json")
    assert "DL005" in {s["rule"] for s in shown.json()["results"][0]["skipped"]}
    run = cli("check", tmp_path / "target", "--ignore", "TF,DL005", "--format", "json")
    result = run.json()["results"][0]
    assert run.code == 0 and result["family"] == "mtp", run.out
    assert "DL005" not in {s["rule"] for s in result["skipped"]}, result["skipped"]


def test_runtime_option_changes_the_findings(cli, tmp_path):
    """Ids written at the top level in the SGLang convention: vLLM reads them (EA304),
    SGLang does not (EA302, its fallback). Mutation caught: rules ignoring --runtime."""
    manifest = load_manifest(E3)
    config = apply_ops(manifest["drafter"]["config"], [("add", AUX, [1, 15, 28])])
    drafter, target = materialize(manifest, tmp_path, config)

    def rules(*extra):
        run = cli("check", drafter, "--target", target, *extra, "--format", "json")
        return {(f["rule"], f["severity"]) for f in run.json()["results"][0]["findings"]}

    both, vllm, sglang = rules(), rules("--runtime", "vllm"), rules("--runtime", "sglang==0.5.23")
    assert ("EA304", "warning") in vllm and ("EA302", "warning") not in vllm
    assert ("EA302", "warning") in sglang and ("EA304", "warning") not in sglang
    assert {("EA304", "warning"), ("EA302", "warning")} <= both


def test_unknown_runtime_is_a_usage_error(cli, tmp_path):
    drafter, _ = materialize(load_manifest(E3), tmp_path)
    run = cli("check", drafter, "--runtime", "tgi")
    assert run.code == 2 and "unknown runtime" in run.err


def test_rules_json_lists_families(cli):
    listed = cli("rules", "--format", "json").json()
    assert set(listed["families"]) >= {"dflash", "eagle3", "eagle", "mtp", "medusa",
                                       "speculators", "any"}
    assert "EA301" in listed["families"]["eagle3"]


# --- speculators DFlash: mapped the way vLLM maps it, then the DFlash rules ---------------


def speculators_dflash(tiny_dir, aux):
    """The tiny DFlash drafter in the speculators layout vLLM's `update_dflash` reads
    (vllm==0.33.0 transformers_utils/configs/speculators/algos.py:90-126)."""
    layer = json.loads((tiny_dir / "drafter" / "config.json").read_text())
    mask = layer.pop("dflash_config")["mask_token_id"]
    block = layer.pop("block_size")
    layer.pop("num_target_layers")
    return {
        "architectures": ["DFlashSpeculator"],
        "speculators_model_type": "dflash",
        "speculators_config": {
            "algorithm": "dflash", "default_proposal_method": "greedy",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": block - 1}],
            "verifier": {"name_or_path": "Qwen/Qwen3.6-27B",
                         "architectures": ["Qwen3_5ForConditionalGeneration"]}},
        "transformer_layer_config": layer,
        "aux_hidden_state_layer_ids": aux,
        "mask_token_id": mask,
        "block_size": block,
        "target_hidden_size": None,
        "sliding_window_non_causal": False,
    }


def test_speculators_dflash_gets_the_dflash_checks(cli, tiny):
    """A converted file (taps + 1, top-level mask, target_hidden_size null) is clean; a
    converter that forgot the +1 is caught at the aux ids. Mutation caught: DFlash rules
    not seeing speculators fields (DF101/DL008 false errors, or the shift missed)."""
    config = tiny / "drafter" / "config.json"
    converted = speculators_dflash(tiny, [2, 7, 12, 17, 22])
    forgot = speculators_dflash(tiny, [1, 6, 11, 16, 21])
    config.write_text(json.dumps(converted))
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--format", "json")
    result = run.json()["results"][0]
    assert result["family"] == "speculators/dflash"
    loud = [(f["rule"], f["pointer"]) for f in result["findings"]
            if f["severity"] in ("error", "warning")]
    assert loud == [] and run.code == 0
    config.write_text(json.dumps(forgot))
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--format", "json")
    errors = [(f["rule"], f["pointer"]) for f in run.json()["results"][0]["findings"]
              if f["severity"] == "error"]
    assert ("DF114", "/aux_hidden_state_layer_ids") in errors and run.code == 1


def test_ref101_holds_an_eagle3_head_to_its_published_aux_ids(cli, tmp_path):
    """The runtime-field table is per family (schemas/fields.json). Mutation caught: REF
    rules knowing only DFlash's fields (an EAGLE-3 head with other aux ids than its
    published config was a warning and exit 0)."""
    manifest = load_manifest(E3)
    published = apply_ops(manifest["drafter"]["config"], IDS3)
    local = apply_ops(manifest["drafter"]["config"], [("add", AUX, [1, 15, 28])])
    drafter, _ = materialize(manifest, tmp_path, local)
    write_json(tmp_path / "published" / "config.json", published)
    run = cli("check", drafter, "--reference", tmp_path / "published", "--format", "json")
    ref = [(f["rule"], f["severity"]) for f in run.json()["results"][0]["findings"]
           if f["pointer"] == AUX and f["rule"].startswith("REF")]
    assert ref == [("REF101", "error")] and run.code == 1


NATIVE_DSPARK = FIXTURES / "published" / "specforge-glm-5.2-dspark" / "config.json"


@pytest.mark.parametrize("ops, tokens, fails", [
    ([], 7, False),                                    # vLLM's own default: block_size
    ([], 8, True),
    ([("remove", "/block_size"), ("add", "/dspark_block_size", 5)], 7, True),  # PR #41834
    ([("add", "/sample_from_anchor", False)], 7, True),  # 1 + N: six draft slots
])
@pytest.mark.parametrize("runtime, key, offset", [("vllm", "num_speculative_tokens", 0),
                                                  ("sglang", "num_draft_tokens", 1)])
def test_dspark_tokens_against_its_block(tmp_path, ops, tokens, fails, runtime, key, offset):
    """LCH102 on a native DSpark drafter (SpecForge GLM-5.2, block 7, anchor-first): vLLM
    takes up to 7 tokens, SGLang up to 8 draft tokens (gamma + 1). Mutation caught: the
    DFlash limit (block - 1) applied to DSpark, which refused the published 7-token
    launches, or `dspark_block_size` not read."""
    folder = tmp_path / "dspark"
    folder.mkdir()
    config = apply_ops(json.loads(NATIVE_DSPARK.read_text()), ops)
    write_json(folder / "config.json", config)
    result = lint(read_checkpoint(folder, "dspark"), options(
        rules=RULES, runtime=runtime, launch={"runtime": runtime, key: tokens + offset}))
    hits = [f for f in result.findings if f.rule == "LCH102"]
    if runtime == "sglang" and ops == [("add", "/sample_from_anchor", False)]:
        assert not hits   # SGLang's layout for a bonus-anchor DSpark is not recorded
        return
    assert bool(hits) == fails, [f.message for f in hits]


def test_spc114_offers_no_fix_that_leaves_a_refused_config(tmp_path):
    """Mutation caught: SPC114's safe token fix offered while sample_from_anchor is true,
    which vLLM refuses whatever the count (DF128): the fixed file would still not start."""
    case = Case("SPC114", "fail", "", base=SPC, ops=SPC_DFLASH + [
        ("add", "/block_size", 16), ("add", "/sample_from_anchor", True),
        ("replace", "/speculators_config/proposal_methods/0/speculative_tokens", 16)])
    checkpoint, target, _ = build(case, tmp_path)
    result = lint(checkpoint, options(rules=RULES, target=target, runtime="vllm"))
    spc114 = [f for f in result.findings if f.rule == "SPC114"]
    assert spc114 and spc114[0].fix is None and "DF128" in spc114[0].message
    assert [f.severity.value for f in result.findings if f.rule == "DF128"] == ["error"]
