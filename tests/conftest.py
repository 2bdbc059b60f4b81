from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sparse import FIXTURES  # noqa: E402


class Run:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def json(self):
        import json

        return json.loads(self.out)


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run `drafter-lint ARGS` in this process through the real entry point."""
    from drafter_lint.cli import main

    def run(*args, env: dict | None = None) -> Run:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        monkeypatch.setattr(sys, "argv", ["drafter-lint", *map(str, args)])
        capsys.readouterr()
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


@pytest.fixture
def tiny(tmp_path) -> Path:
    """A writable copy of fixtures/tiny-qwen3.6 (drafter, drafter-guessed, target)."""
    dest = tmp_path / "tiny"
    shutil.copytree(FIXTURES / "tiny-qwen3.6", dest)
    return dest
