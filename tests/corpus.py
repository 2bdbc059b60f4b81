"""The published-drafter corpus (fixtures/published/): load a case, lint it, judge it.

Each case folder holds `config.json` (verbatim from its source), `case.json` (provenance,
verdict, documented cause), and optionally `target.config.json` and `tensors.json`
(names/dtypes/shapes only). A `constructed` case (a thread that describes a config without
publishing it) holds only `case.json`: its files are the verbatim ones of the case it names
`from`, with exactly the described `ops` (RFC 6902 edits), `drop_tensors` and
`retype_tensors` (name pattern -> the dtype the thread says it was stored in) applied.
Used by tests/test_corpus.py, tests/test_census.py and bench/corpus.py.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sparse import apply_ops, write_json, write_safetensors

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "published"


@dataclass
class Case:
    id: str
    folder: Path
    meta: dict

    @property
    def verdict(self) -> str:
        return self.meta["verdict"]

    @property
    def cause_pointer(self) -> str | None:
        cause = self.meta.get("cause") or {}
        return cause.get("pointer")

    @property
    def expect(self) -> str:
        """The least severity that counts as catching a bad case (case.json `expect`)."""
        return self.meta.get("expect", "warning")

    @property
    def detectable(self) -> bool:
        return self.meta.get("detectable", True)

    @property
    def failures(self) -> list[dict]:
        """Documented release-specific failures (case.json `failures`): each names the
        runtime, the release it failed on, the release that fixed it, the public thread,
        and the rule, pointer and least severity that catch it."""
        return self.meta.get("failures", [])

    @property
    def constructed(self) -> dict | None:
        """{from, threads, words, ops, drop_tensors, retype_tensors}: a config threads
        describe, built from a verbatim case with exactly the described change (`words`
        quotes the description)."""
        return self.meta.get("constructed")

    @functools.cached_property
    def base(self) -> "Case | None":
        """The verbatim case a constructed one is built from."""
        if not self.constructed:
            return None
        folder = CORPUS / self.constructed["from"]
        return Case(folder.name, folder, json.loads((folder / "case.json").read_text()))

    def file(self, name: str) -> Path | None:
        """The case's own file, or for a constructed case its base's (the target's from the
        case named `target_from`, when the thread pairs the base with that target)."""
        folders = [self.folder, self.base.folder if self.base else None]
        if name == "target.config.json" and (self.constructed or {}).get("target_from"):
            folders = [CORPUS / self.constructed["target_from"]]
        for folder in folders:
            if folder is not None and (folder / name).is_file():
                return folder / name
        return None

    def launch(self, release=None) -> dict:
        """The Options keywords (`launch`, `server`) of the case's launch line (`launch`:
        argv as the thread gives it) read as the gate reads it, for `release` (its newest
        when None); {} when `release` is another runtime's, as the gate refuses a
        --runtime that is not the line's."""
        from dataclasses import replace

        from drafter_lint import runtimes
        from drafter_lint.command import locate, read

        argv = self.meta.get("launch")
        if not argv:
            return {}
        server = locate(list(argv), inherited={})
        if release is not None and release.runtime != server.runtime:
            return {}
        return dict(launch=read(server), server=replace(
            server, release=release or runtimes.parse(server.runtime)))

    def config(self) -> dict:
        """The drafter config as linted: verbatim, or the base's with the described ops."""
        if self.base is None:
            return json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
        return apply_ops(self.base.config(), [tuple(op) for op in self.constructed["ops"]])

    def tensors(self) -> dict[str, list]:
        """{file: [[name, dtype, shape], ...]}, less a constructed case's dropped tensors
        and with its retyped ones in their described dtype."""
        found = self.file("tensors.json")
        spec = _tensor_files(json.loads(found.read_text())) if found else {}
        constructed = self.constructed or {}
        drop = [re.compile(p) for p in constructed.get("drop_tensors", [])]
        retype = [(re.compile(p), d) for p, d in constructed.get("retype_tensors", {}).items()]

        def dtype(name: str, stored: str) -> str:
            return next((d for p, d in retype if p.fullmatch(name)), stored)

        return {f: [[n, dtype(n, d), s] for n, d, s in items
                    if not any(p.fullmatch(n) for p in drop)]
                for f, items in spec.items()}

    @property
    def allowed(self) -> dict[str, str]:
        """rule -> reason: findings a good case may draw, each justified in case.json."""
        return {a["rule"]: a["reason"] for a in self.meta.get("allowed", [])}


def cases() -> list[Case]:
    return [Case(d.name, d, json.loads((d / "case.json").read_text(encoding="utf-8")))
            for d in sorted(CORPUS.iterdir()) if (d / "case.json").is_file()]


def _tensor_files(spec: dict) -> dict[str, list]:
    """{file: [[name, dtype, shape], ...]} from tensors.json, keeping entries with shapes."""
    out: dict[str, list] = {}
    for key, value in spec.items():
        if isinstance(value, list) and key.endswith(".safetensors"):
            out[key] = [t for t in value if isinstance(t, list) and len(t) == 3
                        and isinstance(t[2], list)]
    return out


def materialize(case: Case, dest: Path) -> tuple[Path, Path | None]:
    """Write the case's drafter (and target) under `dest`; (drafter, target or None)."""
    drafter = dest / case.id
    drafter.mkdir(parents=True)
    if case.constructed:
        write_json(drafter / "config.json", case.config())
    else:
        shutil.copyfile(case.folder / "config.json", drafter / "config.json")
    for name, items in case.tensors().items():
        if items:
            write_safetensors(drafter / name, items)
    extras = case.meta.get("extra_files") or (case.base.meta.get("extra_files")
                                              if case.base else None) or {}
    for extra in extras:        # verbatim files beside config.json (hf_quant_config.json)
        if (found := case.file(extra)) is not None:
            shutil.copyfile(found, drafter / extra)
    target, target_config = None, case.file("target.config.json")
    if target_config is not None:
        target = dest / f"{case.id}.target"
        target.mkdir()
        shutil.copyfile(target_config, target / "config.json")
    return drafter, target


@dataclass
class Outcome:
    case: Case
    family: str
    findings: list = field(default_factory=list)   # (rule, severity, pointer, message)

    def at_least(self, level: str) -> list:
        ranks = {"info": 0, "warning": 1, "error": 2}
        return [f for f in self.findings if ranks[f[1]] >= ranks[level]]

    def unjustified(self) -> list:
        return [f for f in self.at_least("warning") if not self._allowed(f)]

    def _allowed(self, finding) -> bool:
        """Justified in case.json; an entry with a `runtime` covers only findings for that
        runtime (their message names it; under --runtime of another it must not fire)."""
        from drafter_lint.runtimes import LABEL

        for entry in self.case.meta.get("allowed", []):
            if entry["rule"] != finding[0]:
                continue
            only = entry.get("runtime")
            if only is None or LABEL[only] in finding[3]:
                return True
        return False

    def flags(self, rule: str, pointer: str, level: str) -> list:
        """Findings of at least `level` by `rule`, or by any rule at `pointer` (or under it)."""
        return [f for f in self.at_least(level) if f[0] == rule or f[2] == pointer
                or (pointer and f[2].startswith(pointer + "/"))]

    def caught(self) -> bool:
        """A bad case is caught when a finding of at least its `expect` severity (default
        warning) points at its faulty field."""
        ptr = self.case.cause_pointer
        return any(f[2] == ptr or (ptr and f[2].startswith(ptr + "/"))
                   for f in self.at_least(self.case.expect))


def lint_case(case: Case, dest: Path, runtime: str | None = None) -> Outcome:
    from drafter_lint.rules import RULES

    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.engine import lint
    from drafter_lint import runtimes
    from drafter_lint.options import Options
    from drafter_lint.target import read_target

    drafter, target_dir = materialize(case, dest)
    checkpoint = read_checkpoint(drafter, display=case.id)
    target = read_target(target_dir) if target_dir else None
    release = runtimes.parse(runtime) if runtime else None
    result = lint(checkpoint, Options(rules=RULES, target=target, runtime=release,
                                      **case.launch(release)))
    from drafter_lint.registry import undeclared_fix

    mismatches = [m for f in result.findings if (m := undeclared_fix(RULES[f.rule], f))]
    assert not mismatches, (case.id, mismatches)     # fixes as each rule declares them
    return Outcome(case, result.family, sorted(
        (f.rule, f.severity.value, f.pointer, f.message) for f in result.findings))


def snapshot(outcomes: list[Outcome]) -> dict:
    """case id -> family and 'RULE severity pointer' lines: a rule change shows in review."""
    return {o.case.id: {"verdict": o.case.verdict, "family": o.family,
                        "findings": [f"{r} {s} {p or '(file)'}" for r, s, p, _ in o.findings]}
            for o in outcomes}
