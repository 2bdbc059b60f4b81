"""Full-size published layouts, materialized as sparse files: real headers, no data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sparse import apply_ops, load_manifest, materialize, write_json, write_safetensors

TAPS = "/dflash_config/target_layer_ids"
MASK = "/dflash_config/mask_token_id"


@pytest.fixture(scope="module")
def qwen36(tmp_path_factory):
    """z-lab/Qwen3.6-27B-DFlash (3.4 GB of sparse weights) beside a Qwen3.6-27B target."""
    manifest = load_manifest("qwen3.6-27b-dflash")
    drafter, target = materialize(manifest, tmp_path_factory.mktemp("qwen36"))
    return manifest, drafter, target


def test_sparse_layout_is_full_size_but_empty(qwen36):
    _, drafter, _ = qwen36
    info = os.stat(drafter / "model.safetensors")
    assert info.st_size > 3 * 1024**3            # apparent: the published ~3.4 GB
    assert info.st_blocks * 512 < 1024 * 1024    # on disk: the header only


@pytest.mark.parametrize("name", ["qwen3.6-27b-dflash", "qwen3-4b-dflash-b16"])
def test_published_config_gives_no_error(cli, tmp_path, name):
    drafter, target = materialize(load_manifest(name), tmp_path)
    run = cli("check", drafter, "--target", target, "--format", "json")
    assert run.code == 0, run.out
    findings = run.json()["results"][0]["findings"]
    assert [f for f in findings if f["severity"] == "error"] == []
    skipped = {s["rule"]: s["reason"] for s in run.json()["results"][0]["skipped"]}
    assert skipped.pop("DF104").startswith("no tokenizer.json")
    assert set(skipped.values()) == {"no reference given (--reference or --from-hub)",
                                     "no launch settings given (--num-speculative-tokens, "
                                     "or `gate`)"}


def _drop_layer(tensors, i):
    return [t for t in tensors if not t[0].startswith(f"layers.{i}.")]


BROKEN = [
    # (id, config edits, tensor edit, expected rule, pointer, lowest acceptable severity)
    ("taps-shifted-plus-one", [("replace", TAPS, [2, 17, 32, 47, 62])], None,
     "DF114", TAPS, "warning"),
    ("tap-beyond-target-depth", [("replace", TAPS, [1, 16, 31, 46, 64])], None,
     "DF112", TAPS + "/4", "error"),
    ("four-taps-for-five-tap-fc", [("replace", TAPS, [1, 16, 31, 46])], None,
     "DF113", TAPS, "error"),
    ("layer-types-one-short", [("remove", "/layer_types/4")], None,
     "DF120", "/layer_types", "error"),
    ("sliding-without-window", [("remove", "/sliding_window")], None,
     "DF122", "/sliding_window", "error"),
    ("use-sliding-window-false", [("add", "/use_sliding_window", False)], None,
     "DF124", "/use_sliding_window", "warning"),
    ("mask-id-beyond-vocab", [("replace", MASK, 248320)], None, "DF103", MASK, "error"),
    ("num-target-layers-not-target-depth", [("replace", "/num_target_layers", 48)], None,
     "DF115", "/num_target_layers", "error"),
    ("stale-eagle-aux-ids", [("add", "/eagle_aux_hidden_state_layer_ids", [1, 16, 31, 46, 61])],
     None, "DF117", "/eagle_aux_hidden_state_layer_ids", "error"),
    ("weights-missing-a-layer", [], lambda ts: _drop_layer(ts, 3),
     "DF130", "/layers.3.self_attn.q_proj.weight", "error"),
    ("hidden-size-not-target", [("replace", "/hidden_size", 4096)], None,
     "DF140", "/hidden_size", "error"),
]
RANK = {"info": 0, "warning": 1, "error": 2}


@pytest.mark.parametrize("case", BROKEN, ids=[c[0] for c in BROKEN])
def test_qwen36_broken_variant_is_found(cli, tmp_path, case):
    _, ops, edit_tensors, rule, pointer, severity = case
    manifest = load_manifest("qwen3.6-27b-dflash")
    tensors = manifest["drafter"]["files"]["model.safetensors"]["tensors"]
    drafter, target = materialize(manifest, tmp_path,
                                  config=apply_ops(manifest["drafter"]["config"], ops),
                                  tensors=edit_tensors(tensors) if edit_tensors else None)
    run = cli("check", drafter, "--target", target, "--format", "json")
    findings = run.json()["results"][0]["findings"]
    hits = [f for f in findings if f["rule"] == rule and f["pointer"] == pointer]
    assert hits, [(f["rule"], f["pointer"]) for f in findings]
    assert RANK[hits[0]["severity"]] >= RANK[severity]
    assert run.code == (1 if any(f["severity"] == "error" for f in findings) else 0)


def test_qwen36_duplicated_key_with_two_values(cli, tmp_path):
    manifest = load_manifest("qwen3.6-27b-dflash")
    drafter, target = materialize(manifest, tmp_path)
    text = (drafter / "config.json").read_text()
    # a second write appended a conflicting window, as a botched hand edit would
    text = text.replace('"sliding_window": 2048,', '"sliding_window": 2048,\n  "sliding_window": 4096,')
    (drafter / "config.json").write_text(text)
    run = cli("check", drafter, "--target", target, "--format", "json")
    hits = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "DL003"]
    assert [(h["pointer"], h["severity"]) for h in hits] == [("/sliding_window", "error")]
    assert "2048" in hits[0]["message"] and "4096" in hits[0]["message"]
    assert hits[0]["line"] == text.splitlines().index('  "sliding_window": 2048,') + 1
    assert run.code == 1


PROBE = textwrap.dedent("""
    import mmap, os, sys
    _real_mmap = mmap.mmap
    class _NoWeightMaps(_real_mmap):   # mapping a weights file would bypass the rchar count
        def __new__(cls, fileno, *args, **kwargs):
            target = os.readlink(f'/proc/self/fd/{fileno}') if fileno >= 0 else ''
            if target.endswith('.safetensors'):
                sys.stderr.write(f'MMAP {target}\\n')
                raise OSError('drafter-lint must not map weights')
            return _real_mmap.__new__(cls, fileno, *args, **kwargs)
    mmap.mmap = _NoWeightMaps
    def rchar():
        with open('/proc/self/io') as f:
            return int(next(l for l in f if l.startswith('rchar')).split()[1])
    from drafter_lint import cli, checkpoint, engine, rules, structure, target
    from drafter_lint.report import text, json_report
    structure._validator_class(); structure.load_schema('dflash')
    sys.argv = ['drafter-lint', 'check', *sys.argv[1:], '--format', 'json']
    def run():
        try:
            cli.main()
        except SystemExit:
            pass
    run()                       # warm: imports, transformers load cached
    sys.stdout.write('\\n=====\\n')
    before = rchar()
    run()
    sys.stderr.write(f'READ {rchar() - before}\\n')
""")


def test_no_tensor_data_is_read(qwen36, tmp_path):
    """Bytes read by a whole `check` of the 3.4 GB drafter (plus a 2-shard copy) < 1 MiB."""
    manifest, drafter, target = qwen36
    tensors = manifest["drafter"]["files"]["model.safetensors"]["tensors"]
    sharded = tmp_path / "sharded"
    halves = {"model-00001-of-00002.safetensors": tensors[:30],
              "model-00002-of-00002.safetensors": tensors[30:]}
    for name, part in halves.items():
        write_safetensors(sharded / name, part, {"format": "pt"})
    write_json(sharded / "model.safetensors.index.json",
               {"metadata": {}, "weight_map": {t[0]: n for n, p in halves.items() for t in p}})
    write_json(sharded / "config.json", manifest["drafter"]["config"])
    weight_bytes = sum(os.path.getsize(p) for p in [drafter / "model.safetensors",
                                                   *[sharded / n for n in halves]])
    assert weight_bytes > 6 * 1024**3
    run = subprocess.run([sys.executable, "-c", PROBE, str(drafter), str(sharded),
                          "--target", str(target)], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    report = json.loads(run.stdout.split("\n=====\n")[1])
    assert [r["family"] for r in report["results"]] == ["dflash", "dflash"]
    assert report["summary"]["error"] == 0
    read = int(run.stderr.split("READ ")[1].split()[0])
    assert read < 1024 * 1024, f"read {read} bytes"
    assert "MMAP" not in run.stderr, run.stderr        # mapped pages are not in rchar


def test_no_module_can_map_or_load_tensors():
    """Structural half of "never reads tensor data": no module of the tool imports mmap,
    numpy, torch or safetensors (whose safe_open maps the whole file). Mutation caught:
    a reader switched to safetensors.safe_open or mmap, which rchar cannot see."""
    import ast

    root = Path(__file__).resolve().parent.parent
    banned = {"mmap", "numpy", "torch", "safetensors"}
    # drafter_lint/dryrun/ holds scripts the gate runs in the *runtime's* interpreter,
    # which builds the draft on the meta device (no tensor data); drafter-lint never
    # imports them (the next assertion)
    dryrun = root / "drafter_lint" / "dryrun"
    for path in [*(root / "drafter_lint").rglob("*.py"), *(root / "rules").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if dryrun not in path.parents:
                assert not {n.split(".")[0] for n in names} & banned, (path.name, names)
                assert not any(n.startswith("drafter_lint.dryrun") for n in names), path.name
