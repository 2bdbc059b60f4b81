"""Turn findings' fixes (RFC 6902 edits) into a new config.json text, re-linting until
nothing fixable is left. No file is written here (see apply.py and write.py)."""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass, field

from drafter_lint import jsondoc
from drafter_lint.checkpoint import CONFIG, Checkpoint
from drafter_lint.stages import lint_with_settings
from drafter_lint.errors import PatchError
from drafter_lint.findings import DISPLAY_ONLY, SAFE, UNSAFE, Finding, Result
from drafter_lint.options import Options
from drafter_lint.fix.restyle import rewrite

MAX_ROUNDS = 5


@dataclass
class Plan:
    original: str                 # config.json text as read
    text: str                     # the fixed text (== original when nothing applies)
    value: object                 # the fixed document
    applied: list[tuple[Finding, dict, object]] = field(default_factory=list)  # edit, old
    not_applied: list[tuple[Finding, str]] = field(default_factory=list)
    result: Result | None = None  # findings left after fixing
    collapsed: list[str] = field(default_factory=list)   # duplicate keys the rewrite merges
    refused: str | None = None    # why nothing is written although fixes apply

    @property
    def changed(self) -> bool:
        return self.text != self.original


def apply_edit(document: object, edit: dict) -> object:
    """Apply one RFC 6902 add/replace/remove to `document` in place; returns it."""
    op, path = edit.get("op"), edit.get("path", "")
    if op not in ("add", "replace", "remove") or not path.startswith("/"):
        raise PatchError(f"unsupported edit {edit}")
    parent_ptr, token = path.rsplit("/", 1)
    token = token.replace("~1", "/").replace("~0", "~")
    try:
        parent = jsondoc.resolve(document, parent_ptr)
    except KeyError:
        raise PatchError(f"{parent_ptr or '/'} does not exist") from None
    if isinstance(parent, dict):
        if op != "add" and token not in parent:
            raise PatchError(f"{path} does not exist")
        if op == "remove":
            del parent[token]
        else:
            parent[token] = copy.deepcopy(edit["value"])
    elif isinstance(parent, list):
        index = len(parent) if token == "-" else int(token) if token.isdigit() else -1
        if not 0 <= index <= len(parent) - (op != "add"):
            raise PatchError(f"{path} is out of range")
        if op == "add":
            parent.insert(index, copy.deepcopy(edit["value"]))
        elif op == "remove":
            del parent[index]
        else:
            parent[index] = copy.deepcopy(edit["value"])
    else:
        raise PatchError(f"{parent_ptr} is not a container")
    return document


def serialize(value: object, like: jsondoc.JsonDocument) -> str:
    """`value` as JSON in the file's own style: the original text with only the changed
    values re-serialized (restyle.py), else a whole serialization with its
    indent, key order, line endings and final newline."""

    def whole(new: object) -> str:
        ascii_only = like.text.isascii()
        text = json.dumps(new, indent=like.indent, ensure_ascii=ascii_only)
        text += "\n" if like.trailing_newline else ""
        return text.replace("\n", "\r\n") if "\r\n" in like.text else text

    return rewrite(like.text, like.value, value, whole)


def with_config(checkpoint: Checkpoint, text: str) -> Checkpoint:
    """A copy of `checkpoint` whose config.json holds `text` (nothing is written)."""
    doc = jsondoc.parse(text)
    problems = [p for p in checkpoint.problems if p.file != CONFIG]
    return dataclasses.replace(checkpoint, config_doc=doc, config=doc.value, problems=problems,
                               family=None)   # detected anew from the new text


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _order(finding: Finding) -> tuple:
    # the reference is the authority; safe fixes before unsafe ones
    return (not finding.rule.startswith("REF"), -finding.fix.applicability,
            finding.rule, finding.pointer)


def plan(checkpoint: Checkpoint, options: Options, unsafe: bool) -> Plan:
    """Apply every applicable fix, re-lint, repeat until stable (at most MAX_ROUNDS).

    The reference's values are safe to copy only while they agree with the checkpoint
    itself: when copying them leaves more errors than there were (a reference of another
    size than these weights), the plan is made again without them, and they are listed as
    not applied (--unsafe-fixes applies them anyway)."""
    result, before = _plan(checkpoint, options, unsafe, trust_reference=True)
    after = _errors(result.result)
    if unsafe or after <= before or not any(f.rule.startswith("REF")
                                            for f, _, _ in result.applied):
        return result
    again, _ = _plan(checkpoint, options, unsafe, trust_reference=False)
    reason = (f"the reference contradicts this checkpoint: copying its values would leave "
              f"{after} errors where there are {before} (see `drafter-lint check` with it); "
              f"pass --unsafe-fixes to copy them anyway")
    again.not_applied = [(f, reason if f.rule.startswith("REF") else why)
                         for f, why in again.not_applied]
    return again


def _errors(result: Result | None) -> int:
    return sum(1 for f in (result.findings if result else ()) if f.severity.value == "error")


def _plan(checkpoint: Checkpoint, options: Options, unsafe: bool,
          trust_reference: bool) -> tuple[Plan, int]:
    """(the plan, the errors before it)."""
    doc = checkpoint.config_doc
    value = copy.deepcopy(doc.value)
    result = Plan(doc.text, doc.text, value)
    current = checkpoint
    first = None
    for _ in range(MAX_ROUNDS):
        found = lint_with_settings(current, options)
        first = found if first is None else first
        touched: list[str] = []
        progress = False
        for finding in sorted((f for f in found.findings if f.fix), key=_order):
            if finding.fix.applicability < (UNSAFE if unsafe else SAFE):
                continue
            if not trust_reference and not unsafe and finding.rule.startswith("REF"):
                continue
            paths = [e["path"] for e in finding.fix.edits]
            if any(_overlaps(p, t) for p in paths for t in touched):
                continue
            trial, done = copy.deepcopy(value), []
            try:
                for edit in finding.fix.edits:
                    old = _old(trial, edit["path"])
                    apply_edit(trial, edit)
                    done.append((finding, edit, old))
            except PatchError:
                continue        # all of a fix or none of it: its earlier edits go too
            result.applied.extend(done)
            value = trial
            touched.extend(paths)
            progress = True
        if not progress:
            result.result = found
            break
        current = with_config(checkpoint, serialize(value, doc))
    else:
        result.result = lint_with_settings(current, options)
    result.value = value
    result.text = serialize(value, doc) if result.applied else doc.text
    for finding in result.result.findings:
        if finding.fix:
            if finding.fix.applicability == DISPLAY_ONLY:
                reason = "a candidate to check by hand: never applied"
            elif (finding.fix.applicability == UNSAFE or finding.rule.startswith("REF")
                  and not trust_reference) and not unsafe:
                reason = "unsafe fix: pass --unsafe-fixes to apply it"
            else:
                reason = "conflicts with another fix"
            result.not_applied.append((finding, reason))
    if result.changed and doc.duplicates:
        _collapse(result, doc, unsafe, first)
    return result, _errors(first)


def _collapse(plan: Plan, doc: jsondoc.JsonDocument, unsafe: bool, before: Result) -> None:
    """A rewrite keeps one copy of each duplicated key, the last (what Python loaders
    read): listed as an edit of its own; where the copies differ that is a guess, made
    only with --unsafe-fixes (else nothing is written)."""
    differing = [d for d in doc.duplicates
                 if len({json.dumps(v, sort_keys=True) for v in d.values}) > 1]
    if differing and not unsafe:
        first = differing[0]
        plan.refused = (f"not written: config.json has {first.pointer} "
                        f"{len(first.values)} times with different values "
                        f"({', '.join(json.dumps(v) for v in first.values)}), and the rewrite "
                        f"would keep only the last; remove the wrong copy by hand, or pass "
                        f"--unsafe-fixes to keep the last (the one Python loaders read)")
        plan.text, plan.value, plan.result = plan.original, doc.value, before
        plan.applied.clear()
        return
    for dup in doc.duplicates:
        lines = ", ".join(str(line) for line, _ in dup.positions[:-1])
        plan.collapsed.append(
            f"DL003 {dup.pointer}: keep {json.dumps(dup.values[-1])} (line "
            f"{dup.positions[-1][0]}, the copy Python loaders read); drop "
            f"{', '.join(json.dumps(v) for v in dup.values[:-1])} (line {lines})")


def _old(document, ptr: str):
    try:
        return jsondoc.resolve(document, ptr)
    except KeyError:
        return None
