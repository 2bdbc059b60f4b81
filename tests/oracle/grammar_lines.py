"""The constructed launch lines of tests/data/grammar_lines.json and what the tool's reading
(command.parse with the release's grammar, LCH108) says of each, held against the verdicts
of each release's real parser (tests/data/oracle/grammar_verdicts.json, written by
tools/grammar_oracle.py)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
LINES = json.loads((DATA / "grammar_lines.json").read_text(encoding="utf-8"))["lines"]
VERDICTS_PATH = DATA / "oracle" / "grammar_verdicts.json"


def verdicts(path: Path = VERDICTS_PATH) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["verdicts"]


def tool_problems(entry: dict) -> list[str]:
    """What LCH108 reports of the line at its release: the launch's flag problems."""
    from drafter_lint import runtimes
    from drafter_lint.command import parse

    launch = parse(shlex.split(entry["line"]), inherited={},
                   release=runtimes.parse(entry["release"]))
    assert launch.flags_for is not None, entry["release"]       # the grammar was used
    return launch.flag_problems


def _named(message: str) -> tuple[str, str, frozenset]:
    """(kind, the option argparse names, the candidates) of a refusal message."""
    if m := re.match(r"unrecognized arguments: (\S+)", message):
        return "unrecognized", m.group(1), frozenset()
    if m := re.match(r"ambiguous option: (\S+) could match (.*)$", message):
        return "ambiguous", m.group(1), frozenset(m.group(2).split(", "))
    if m := re.match(r"argument (\S+): invalid choice", message):
        return "choice", m.group(1), frozenset()
    return "other", message, frozenset()


def disagreement(entry: dict, verdict: dict) -> str | None:
    """None when the tool reads the line as the real parser did: accepted draws no LCH108;
    refused draws LCH108 naming the same option with the same kind of refusal (the same
    candidates when ambiguous, argparse's own message when a choice)."""
    problems = tool_problems(entry)
    if verdict["verdict"] == "accepted":
        return f"accepted by the parser, the tool says {problems}" if problems else None
    if not problems:
        return f"refused by the parser ({verdict['message']}), the tool says nothing"
    real, ours = _named(verdict["message"]), _named(problems[0])
    if real[0] == "other" or real != ours:
        return f"parser: {verdict['message']!r}; tool: {problems[0]!r}"
    if real[0] == "choice" and problems[0] != verdict["message"]:
        return f"parser: {verdict['message']!r}; tool: {problems[0]!r}"
    return None
