"""The README's commands and expected output are what the tool really does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

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
