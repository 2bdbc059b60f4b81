"""Configuration files and suppressions.

`[tool.drafter-lint]` in pyproject.toml, or the top level of `.drafter-lint.toml`, found by
walking up from each checkpoint folder. The nearest file wins key by key, parents fill in
the rest, and the command line wins over both. `per-path-ignores` of every file apply,
each relative to its own file. A baseline (`--baseline FILE`) suppresses known findings
keyed on rule + path + pointer, never on lines.

    [tool.drafter-lint]
    select = ["DF", "EA3"]
    ignore = ["DF126"]
    fail-on = "warning"
    runtime = "vllm"
    baseline = "drafter-lint-baseline.json"
    severity = { DF125 = "warning" }

    [[tool.drafter-lint.per-path-ignores]]
    path = "models/legacy-*"
    rules = ["DF114"]
    pointer = "/dflash_config/target_layer_ids"   # optional
    reason = "custom taps, trained so"
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint.bounded import read_text
from drafter_lint.errors import SettingsError
from drafter_lint.findings import describe
from drafter_lint.readonly import view
from drafter_lint.rules import RULES, redirect
from drafter_lint.fix.write import WriteError, atomic_write

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

KEYS = ("select", "ignore", "fail-on", "runtime", "baseline", "severity",
        "per-path-ignores")
LEVELS = ("error", "warning", "info")


@dataclass(frozen=True)
class Ignore:
    source: Path           # the file that declares it
    pointer_in_source: str
    base: Path             # globs are relative to this folder
    glob: str
    rules: tuple[str, ...]
    pointer: str | None
    reason: str

    def covers(self, root: Path) -> bool:
        try:
            rel = os.path.relpath(root.resolve(), self.base.resolve()).replace(os.sep, "/")
        except ValueError:
            return False
        outside = rel == ".." or rel.startswith("../")
        return not outside and (fnmatch.fnmatch(rel, self.glob)
                                             or fnmatch.fnmatch(rel + "/", self.glob))

    def matches(self, finding) -> bool:
        if not any(finding.rule.startswith(code) for code in self.rules):
            return False
        return self.pointer is None or finding.pointer == self.pointer or \
            finding.pointer.startswith(self.pointer + "/")


@dataclass(frozen=True)
class Settings:
    """A folder's settings files, merged; read-only once made."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: str = "error"
    runtime: str | None = None             # as written; parsed by pipeline.with_settings
    runtime_source: Path | None = None
    baseline: Path | None = None
    severity: Mapping[str, str] = field(default_factory=dict)
    ignores: tuple[Ignore, ...] = ()
    sources: tuple[Path, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "severity", view(dict(self.severity)))
        object.__setattr__(self, "ignores", tuple(self.ignores))
        object.__setattr__(self, "sources", tuple(self.sources))


def _read(path: Path) -> dict | None:
    """The drafter-lint table of a config file (None when the file has none)."""
    try:
        data = tomllib.loads(read_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read: {describe(exc)}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("drafter-lint")
        if data is None:
            return None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise SettingsError(f"{path}: unknown setting(s) {', '.join(unknown)} "
                            f"(known: {', '.join(KEYS)})")
    return data


def find_files(root: Path) -> list[Path]:
    """Config files from `root` up to the file-system root, nearest first."""
    found = []
    for folder in [root.resolve(), *root.resolve().parents]:
        for name in (".drafter-lint.toml", "pyproject.toml"):
            path = folder / name
            if path.exists() and not path.is_file():
                raise SettingsError(f"{path}: not a regular file; not read (drafter-lint "
                                    f"reads its settings from it)")
            if path.is_file() and _read(path) is not None:
                found.append(path)
                break
    return found


def _codes(value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: expected a list of rule codes")
    codes = tuple(redirect(v.strip().upper()) for v in value)
    for code in codes:
        _known(code, where)
    return codes


def _known(code: str, where: str) -> None:
    """A code or prefix must name a rule, as on the command line (a typo selects nothing)."""

    if not code or not any(known.startswith(code) for known in RULES):
        raise SettingsError(f"{where}: no rule code starts with {code!r} "
                            f"(see `drafter-lint rules`)")


def load(root: Path) -> Settings:
    """The settings that apply to checkpoint folder `root` (files only, no CLI)."""
    files = find_files(root)
    found: dict = {"sources": files}
    severity: dict[str, str] = {}
    ignores: list[Ignore] = []
    for path in reversed(files):                      # parents first, nearest last
        data = _read(path) or {}
        prefix = "/tool/drafter-lint" if path.name == "pyproject.toml" else ""
        where = f"{path}"
        if "select" in data:
            found["select"] = _codes(data["select"], f"{where}: select")
        if "ignore" in data:
            found["ignore"] = _codes(data["ignore"], f"{where}: ignore")
        if "fail-on" in data:
            if data["fail-on"] not in LEVELS:
                raise SettingsError(f"{where}: fail-on must be one of {', '.join(LEVELS)}")
            found["fail_on"] = data["fail-on"]
        if "runtime" in data:        # parsed where it is used: --runtime wins over it
            found["runtime"], found["runtime_source"] = str(data["runtime"]), path
        if "baseline" in data:
            found["baseline"] = (path.parent / str(data["baseline"])).resolve()
        for code, level in (data.get("severity") or {}).items():
            _known(str(code).upper(), f"{where}: severity")
            if level not in LEVELS:
                raise SettingsError(f"{where}: severity of {code} must be one of "
                                    f"{', '.join(LEVELS)}")
            severity[redirect(str(code).upper())] = level
        for i, entry in enumerate(data.get("per-path-ignores") or []):
            if not isinstance(entry, dict) or "path" not in entry or "rules" not in entry:
                raise SettingsError(f"{where}: per-path-ignores[{i}] needs path and rules")
            ignore = Ignore(path, f"{prefix}/per-path-ignores/{i}", path.parent,
                            str(entry["path"]), _codes(entry["rules"], f"{where}: rules"),
                            entry.get("pointer"), str(entry.get("reason", "")))
            if ignore.covers(root):
                ignores.append(ignore)
    return Settings(severity=severity, ignores=ignores, **found)


# --- baseline ---------------------------------------------------------------------------


def baseline_key(rule: str, root: Path, file: str, pointer: str, base: Path,
                 repo: str | None = None) -> tuple:
    """(rule, path, pointer): the path relative to the baseline's folder, or for a hub repo
    linted before download `hf://org/name/FILE` (no commit, no cache path: it travels)."""
    if repo:
        return rule, f"hf://{repo}/{file}", pointer
    path = os.path.relpath((root / file).resolve(), base.resolve()).replace(os.sep, "/")
    return rule, path, pointer


def baseline_prefix(root: Path, base: Path, repo: str | None = None) -> str:
    """What every baseline path of checkpoint `root` starts with."""
    if repo:
        return f"hf://{repo}/"
    return os.path.relpath(root.resolve(), base.resolve()).replace(os.sep, "/") + "/"


def write_baseline(path: Path, results) -> int:
    """Write every finding of `results` ((result, checkpoint folder, hub repo or None)) as
    a baseline entry; returns how many."""
    entries = []
    for result, root, repo in results:
        for f in result.findings:
            rule, rel, ptr = baseline_key(f.rule, root, f.file, f.pointer, path.parent, repo)
            entries.append({"rule": rule, "path": rel, "pointer": ptr})
    entries = sorted({json.dumps(e, sort_keys=True) for e in entries})
    document = {"version": 1, "tool": "drafter-lint",
                "entries": [json.loads(e) for e in entries]}

    try:
        atomic_write(path, (json.dumps(document, indent=2) + "\n").encode())
    except WriteError as exc:
        raise SettingsError(str(exc)) from None
    return len(entries)


def read_baseline(path: Path) -> list[dict]:
    try:
        data = json.loads(read_text(path))
    except (OSError, ValueError, RecursionError) as exc:
        raise SettingsError(f"baseline {path}: cannot read: {describe(exc)}") from None
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and {"rule", "path", "pointer"} <= set(e)
            and all(isinstance(e[k], str) for k in ("rule", "path", "pointer"))
            for e in entries):
        raise SettingsError(f"baseline {path}: expected {{\"entries\": [{{rule, path, "
                            f"pointer}}, ...]}}")
    return [{**e, "rule": redirect(str(e["rule"]))} for e in entries]
