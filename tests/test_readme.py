"""The README's two set-up commands and its example output are what the tool really does
(the only README text a test reads; the docs are held by tests/test_docs.py)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands() -> list[str]:
    return re.findall(r"```sh\n(python3 -m venv .+?)\n```", README)


def test_first_command_output_is_as_documented(cli, monkeypatch):
    install_and_run = commands()[0]
    check = install_and_run.split("&& .venv/bin/drafter-lint ", 1)[1]
    block = README.split("<!-- readme-example-output -->", 1)[1]
    expected = re.search(r"```text\n(.*?)```", block, re.S).group(1)
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    run = cli(*shlex.split(check))
    assert run.code == 1
    assert run.out == expected


def test_ci_runs_the_readme_test_command():
    test_command = commands()[1]
    assert test_command.endswith("pytest")
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines          # verbatim, as its own line


@pytest.mark.parametrize("env,tty,colour", [
    ({"FORCE_COLOR": "1"}, False, True), ({"FORCE_COLOR": "0"}, False, False),
    ({"TERM": "dumb"}, True, False), ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
    ({}, True, True), ({}, False, False)])
def test_colour_follows_the_ecosystem(monkeypatch, env, tty, colour):
    """NO_COLOR wins, then FORCE_COLOR, then TERM=dumb, then the tty. Mutation caught:
    colour codes in a TERM=dumb log, or none under FORCE_COLOR in CI."""
    import sys

    from drafter_lint import cli

    for key in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert cli._use_colour("auto") is colour
