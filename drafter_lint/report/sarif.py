"""`--format sarif`: SARIF 2.1.0, one run, the rules that fired, stable fingerprints."""

from __future__ import annotations

import hashlib
import json
import os
from urllib.parse import quote

from drafter_lint import __version__
from drafter_lint.findings import Result

LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def fingerprint(rule: str, path: str, pointer: str) -> str:
    """Keyed on rule + path + pointer, never on lines: stable when a file is reformatted."""
    return hashlib.sha256(f"{rule}\0{path}\0{pointer}".encode()).hexdigest()


def render(results: list[Result], options: dict) -> str:
    rules = options["rules"]
    fired = sorted({f.rule for r in results for f in r.findings})
    index = {code: i for i, code in enumerate(fired)}
    descriptors = []
    for code in fired:
        rule = rules[code]
        descriptors.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.doc.split("\n\n")[0].replace("\n", " ")},
            "help": {"text": rule.doc},
            "defaultConfiguration": {"level": LEVELS[rule.severity.value]},
            "properties": {"family": rule.family},
        })
    out = []
    for result in results:
        for f in result.findings:
            uri = quote(os.path.join(result.path, f.file).replace(os.sep, "/"))
            physical: dict = {"artifactLocation": {"uri": uri}}
            if f.line is not None:
                physical["region"] = {"startLine": f.line, "startColumn": f.column}
            out.append({
                "ruleId": f.rule,
                "ruleIndex": index[f.rule],
                "level": LEVELS[f.severity.value],
                "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": physical,
                    "logicalLocations": [{"fullyQualifiedName": f.pointer or "/",
                                          "kind": "element"}],
                }],
                "partialFingerprints": {
                    "drafterLint/v1": fingerprint(f.rule, os.path.join(result.path, f.file),
                                                  f.pointer)},
                "properties": {"jsonPointer": f.pointer, "family": result.family},
            })
    report = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "drafter-lint", "version": __version__,
                                "semanticVersion": __version__, "rules": descriptors}},
            "results": out,
            "columnKind": "unicodeCodePoints",
        }],
    }
    repos = [r for r in results if r.commit or r.error]
    if repos:      # a collection: every repo is an artifact, with its commit and verdicts
        report["runs"][0]["artifacts"] = [{
            "location": {"uri": quote(r.path, safe="/@")},
            "properties": {k: v for k, v in (("commit", r.commit), ("family", r.family),
                                              ("verdicts", r.verdicts), ("error", r.error))
                           if v is not None}} for r in repos]
    failed = [r for r in results if r.error]
    if failed:     # a repo of a collection that could not be read: the run says so
        report["runs"][0]["invocations"] = [{
            "executionSuccessful": False,
            "toolExecutionNotifications": [
                {"level": "error", "message": {"text": f"{r.path}: {r.error}"}}
                for r in failed]}]
    return json.dumps(report, indent=2) + "\n"
