"""The rule cases of fixtures/rules/<CODE>/: how one is read, built and linted.

A rule's folder holds `cases.json`, a list of cases, and `snapshot.json`, the findings of
the rule on each case (`snapshot.transformers<N>.json` for the rules that read what
transformers loads, which differ by major). A case is a checkpoint made from a base and
the edits it lists, the options it runs with, and what it asserts:

- `outcome` (`fail` / `pass`) and `why` (the case's id is `<CODE>-<outcome>-<why>`);
  `note`, what the case pins, when its name does not say it;
- `base`: `tiny-qwen3.6` (the default: fixtures/tiny-qwen3.6's drafter, its target and its
  config as the published one), a manifest of fixtures/manifests/, or an MTP target made
  by a generator of tests/sparse.py (`deepseek-v3`, `deepseek-v4`, `qwen3.5-moe`,
  `qwen3-next`, with `generator` its arguments);
- `ops` / `target_ops`: RFC 6902 edits (`[op, pointer, value]`) of the base's drafter and
  target config; `reference`: edits of the base config as the published one (null: no
  published config; tiny base only); `target: false`: no target;
- `tensors`: edits of the single shard's tensor list (`drop` names, `replace` and `add`
  `[name, dtype, shape]` items); `weights: false`: no weights; `read_as`: a tensor's
  `[dtype, shape]` as read (a header a generator cannot write);
- `files`: files written beside the config: `GOOD-INDEX` (an index naming the shard),
  `INDEX` (one naming a second, empty shard for `fc.weight`) or `copy:<path under
  fixtures/>`; files in the case's own folder (`fixtures/rules/<CODE>/<outcome>-<why>/`)
  are copied in verbatim (a `config.json` there is the case's config, byte for byte; a
  `README.md`, its model card);
  `folder`: the checkpoint folder's name;
- `runtime` (`--runtime`), `launch` (the settings of a launch, tests/lintopts.py),
  `transformers` (the major whose behaviour it pins; skipped on the other);
- for a failing case, `pointer` and `file` (`*`: any) where the rule must fire (and
  `line`, for a finding in a model card), and `severity` (default: the rule's);
- `pins`: the fact keys (drafter_lint/runtimes/table.py) whose rows decide the outcome:
  every key is pinned by a case (tests/test_runtimes.py `test_every_fact_is_pinned_by_rule_cases`);
- `test`: the test that holds a case needing more than a checkpoint (a settings file, a
  hub, a launch line); the case has no other fields.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field, fields
from pathlib import Path

from sparse import (FIXTURES, apply_ops, deepseek_v3, deepseek_v4, load_manifest, materialize,
                    qwen3_next, qwen35_moe, write_json, write_safetensors)

from drafter_lint.checkpoint import read_checkpoint
from drafter_lint.findings import Result
from drafter_lint.family import shards_needed
from drafter_lint.reference import read_reference
from drafter_lint.stages import lint_with_settings
from drafter_lint.target import read_target
from lintopts import options

RULE_FIXTURES = FIXTURES / "rules"
TINY = "tiny-qwen3.6"
GENERATORS = {"deepseek-v3": deepseek_v3, "deepseek-v4": deepseek_v4, "qwen3.5-moe": qwen35_moe,
              "qwen3-next": qwen3_next}
ST = "model.safetensors"
# the rules whose findings depend on the transformers major: a snapshot per major
PER_MAJOR_NEED = "loaded"


@dataclass(frozen=True)
class Case:
    rule: str
    outcome: str
    why: str
    base: str = TINY
    note: str = ""
    ops: list = field(default_factory=list)
    tensors: dict | None = None
    weights: bool = True
    read_as: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    folder: str = "drafter"
    target: bool = True
    target_ops: list = field(default_factory=list)
    reference: list | None = field(default_factory=list)
    generator: dict = field(default_factory=dict)
    runtime: str | None = None
    launch: dict = field(default_factory=dict)
    transformers: str | None = None
    pointer: str | None = None
    file: str = "config.json"
    line: int | None = None
    severity: str | None = None
    test: str | None = None
    pins: list = field(default_factory=list)   # fact keys whose rows decide this outcome

    @property
    def id(self) -> str:
        return f"{self.rule}-{self.outcome}-{self.why}"

    @property
    def own_files(self) -> Path:
        return RULE_FIXTURES / self.rule / f"{self.outcome}-{self.why}"


KEYS = {f.name for f in fields(Case)} - {"rule"}


def cases_of(rule: str) -> list[Case]:
    path = RULE_FIXTURES / rule / "cases.json"
    found = []
    for entry in json.loads(path.read_text(encoding="utf-8")):
        unknown = set(entry) - KEYS
        assert not unknown, f"{path}: unknown case keys {sorted(unknown)}"
        found.append(Case(rule=rule, **entry))
    return found


def rules_with_cases() -> list[str]:
    return sorted(p.parent.name for p in RULE_FIXTURES.glob("*/cases.json"))


def all_cases() -> list[Case]:
    return [case for rule in rules_with_cases() for case in cases_of(rule)]


def snapshot_path(rule: str, needs: tuple, major: str | None) -> Path:
    name = f"snapshot.transformers{major}.json" if PER_MAJOR_NEED in needs else "snapshot.json"
    return RULE_FIXTURES / rule / name


def edit_tensors(tensors: list, spec: dict | None) -> list:
    if not spec:
        return tensors
    drop = set(spec.get("drop", ()))
    replace = {t[0]: list(t) for t in spec.get("replace", ())}
    return [replace.get(t[0], list(t)) for t in tensors if t[0] not in drop] + \
        [list(t) for t in spec.get("add", ())]


def tiny_tensors() -> list:
    raw = (FIXTURES / TINY / "drafter" / ST).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    items = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"])
    return [[name, spec["dtype"], spec["shape"]] for name, spec in items]


def _write_files(case: Case, drafter: Path, tensors: list) -> None:
    for name, content in case.files.items():
        if content == "GOOD-INDEX":
            data = json.dumps({"metadata": {}, "weight_map": {t[0]: ST for t in tensors}}
                              ).encode()
        elif content == "INDEX":
            weight_map = {t[0]: ST for t in tensors}
            weight_map["fc.weight"] = "model-00002-of-00002.safetensors"
            write_safetensors(drafter / "model-00002-of-00002.safetensors", [], None)
            data = json.dumps({"metadata": {}, "weight_map": weight_map}).encode()
        else:
            assert content.startswith("copy:"), (case.id, name, content)
            data = (FIXTURES / content[len("copy:"):]).read_bytes()
        (drafter / name).write_bytes(data)
    if case.own_files.is_dir():
        for path in sorted(case.own_files.iterdir()):
            shutil.copyfile(path, drafter / path.name)


def _build_tiny(case: Case, root: Path):
    tiny = FIXTURES / TINY
    drafter = root / case.folder
    config = json.loads((tiny / "drafter" / "config.json").read_text())
    write_json(drafter / "config.json", apply_ops(config, case.ops))
    tensors = edit_tensors(tiny_tensors(), case.tensors)
    if case.weights:
        write_safetensors(drafter / ST, tensors, {"format": "pt"})
    _write_files(case, drafter, tensors)
    reference = None
    if case.reference is not None:
        write_json(root / "published" / "config.json", apply_ops(config, case.reference))
        reference = read_reference(str(root / "published"))
    target = None
    if case.target:
        shutil.copytree(tiny / "target", root / "target")
        target_config = json.loads((root / "target" / "config.json").read_text())
        write_json(root / "target" / "config.json", apply_ops(target_config, case.target_ops))
        target = read_target(root / "target", display="target")
    return read_checkpoint(drafter, "drafter"), target, reference


def _build_generated(case: Case, root: Path):
    folder = root / "target-with-mtp"
    GENERATORS[case.base](folder, **{"experts": 4, **case.generator})
    if case.ops:
        config = json.loads((folder / "config.json").read_text())
        write_json(folder / "config.json", apply_ops(config, case.ops))
    if not case.weights:
        for path in [*folder.glob("*.safetensors"), *folder.glob("*.index.json")]:
            path.unlink()
    return read_checkpoint(folder, "ckpt", select=shards_needed), None, None


def _build_manifest(case: Case, root: Path):
    manifest = load_manifest(case.base)
    tensors = manifest["drafter"]["files"][ST]["tensors"]
    manifest["target"]["config"] = apply_ops(manifest["target"]["config"], case.target_ops)
    drafter, target = materialize(manifest, root, apply_ops(manifest["drafter"]["config"],
                                                            case.ops),
                                  edit_tensors(tensors, case.tensors) if case.tensors else None)
    if case.folder != drafter.name:
        drafter = drafter.rename(drafter.parent / case.folder)
    _write_files(case, drafter, tensors)
    return read_checkpoint(drafter, "drafter"), read_target(target, "target"), None


def checkpoint_folder(case: Case, root: Path) -> Path:
    return root / ("target-with-mtp" if case.base in GENERATORS else case.folder)


def build(case: Case, root: Path):
    """(checkpoint, target, reference) of the case, written under `root`."""
    if case.base == TINY:
        return _build_tiny(case, root)
    if case.base in GENERATORS:
        return _build_generated(case, root)
    return _build_manifest(case, root)


def _read_as(case: Case, checkpoint) -> None:
    for name, (dtype, shape) in case.read_as.items():
        weight = checkpoint.weights[name]
        checkpoint.weights[name] = weight.__class__(name, dtype, tuple(shape), weight.file,
                                                    (0, 0))


def lint_case(case: Case, root: Path, rebuild: bool = True) -> Result:
    """Lint the case built under `root` (`rebuild=False`: as it is on disk now, after a fix)
    as `check` does (the model card's lines too), with the case's runtime and launch."""
    from drafter_lint.rules import RULES

    if rebuild:
        checkpoint, target, reference = build(case, root)
    else:
        select = shards_needed if case.base in GENERATORS else None
        checkpoint = read_checkpoint(checkpoint_folder(case, root), "drafter",
                                     **({"select": select} if select else {}))
        target = read_target(root / "target", "target") if (root / "target").exists() else None
        reference = read_reference(str(root / "published")) \
            if (root / "published").exists() else None
    _read_as(case, checkpoint)
    return lint_with_settings(checkpoint, options(rules=RULES, target=target,
                                                  reference=reference, runtime=case.runtime,
                                                  launch=case.launch))
