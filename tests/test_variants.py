"""One checkpoint linted again under changed options (engine.variants): the card's lines
and pins, `releases`, the collections' verdicts and `--ranges` all go through it."""

from __future__ import annotations

import ast
from pathlib import Path

from sparse import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
TINY = FIXTURES / "tiny-qwen3.6"


def _key(result):
    return sorted((f.rule, f.file, f.pointer, f.message) for f in result.findings)


def test_each_variant_is_the_lint_of_its_change_and_the_load_is_shared(monkeypatch):
    """Each result is what a lint under its change reports on its own, and the
    transformers load is started once for all. Mutations caught: the facts shared whole
    (the first release's `releases` cached for every variant), a change not applied, or
    the load started again for each variant."""
    from drafter_lint import engine, pipeline, runtimes

    run = pipeline.prepare(target_arg=str(TINY / "target"))
    checkpoint, options, _ = pipeline.prepare_folder(run, TINY / "drafter")
    changes = [dict(runtime=runtimes.parse(spec))
               for spec in ("vllm==0.25.0", "vllm==0.26.0", "sglang")]
    started = []
    real = engine.start
    monkeypatch.setattr(engine, "start", lambda *a, **k: started.append(1) or real(*a, **k))
    got = engine.variants(checkpoint, options, changes)
    assert started == [1]
    want = [engine.lint(checkpoint, options.but(**change)) for change in changes]
    assert [_key(r) for r in got] == [_key(r) for r in want]
    assert _key(got[0]) != _key(got[1]) != _key(got[2])     # the releases differ


def test_only_variants_and_the_folder_lint_call_the_engine():
    """Five places once re-linted a read checkpoint each in a loop of its own. Mutation
    caught: a module calling `engine.lint` itself again (a sixth loop), instead of
    `engine.variants` or the folder's one lint (`stages.lint_with_settings`)."""
    callers = []
    for path in sorted((ROOT / "drafter_lint").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                        node.func.id == "lint":
                    callers.append(f"{path.stem}.{function.name}")
    assert sorted(set(callers)) == ["engine.variants", "stages.lint_with_settings"]


def test_the_card_has_one_front_matter_parser():
    """README.md's YAML front matter is read by `card.front_matter` alone (the hub's
    metadata, the card's base_model, the reference's card). Mutation caught: a second
    reader (huggingface_hub's ModelCard, a YAML load of the card elsewhere)."""
    readers = []
    for path in sorted((ROOT / "drafter_lint").rglob("*.py")):
        text = path.read_text()
        if "ModelCard" in text or ("yaml" in text and path.name not in ("card.py",
                                                                         "command.py")):
            readers.append(path.name)
    assert readers == []
