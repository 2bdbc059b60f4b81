from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
ROOT = Path(__file__).resolve().parent.parent


class _ThisCheckoutsRules:
    """The suite tests the checkout it lives in. Run from a git worktree with
    PYTHONPATH=<worktree> against another checkout's editable install, drafter_lint comes
    from the worktree but drafter_lint.rules and .schemas (mapped from rules/ and schemas/
    by pyproject's package-dir) would come from the installed checkout, so a rule changed
    in the worktree would not be the one tested: take them from this checkout too. In the
    installed checkout itself this finds what the install would. (In-process tests only: a
    subprocess imports through the install.)"""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        import importlib.util

        folder = {"drafter_lint.rules": "rules", "drafter_lint.schemas": "schemas"}.get(fullname)
        package = sys.modules.get("drafter_lint")
        if folder is None or package is None or \
                Path(package.__file__).resolve().parent != ROOT / "drafter_lint":
            return None
        return importlib.util.spec_from_file_location(
            fullname, ROOT / folder / "__init__.py",
            submodule_search_locations=[str(ROOT / folder)])


sys.meta_path.insert(0, _ThisCheckoutsRules())

from sparse import FIXTURES  # noqa: E402


@pytest.fixture(autouse=True)
def no_real_hub(monkeypatch, tmp_path_factory):
    """No test reaches a real hub: a dead local endpoint unless a test starts a fake one,
    and private hub and drafter-lint caches."""
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    home = tmp_path_factory.mktemp("hf-home")
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path_factory.mktemp("dl-cache")))


class Run:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def json(self):
        """The JSON report, held to the shipped schema (U5-16: a `--ranges` report failed it
        unseen): every test reading a report checks it."""
        import json

        doc = json.loads(self.out)
        if isinstance(doc, dict) and "schema_version" in doc and "results" in doc:
            _report_validator().validate(doc)
        return doc


_VALIDATOR = []


def _report_validator():
    if not _VALIDATOR:
        import json

        import jsonschema

        schema = json.loads((Path(__file__).resolve().parent.parent / "schemas"
                             / "report.schema.json").read_text())
        _VALIDATOR.append(jsonschema.Draft202012Validator(schema))
    return _VALIDATOR[0]


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run `drafter-lint ARGS` in this process through the real entry point."""
    from drafter_lint.cli import main

    def run(*args, env: dict | None = None) -> Run:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        monkeypatch.setattr(sys, "argv", ["drafter-lint", *map(str, args)])
        capsys.readouterr()
        code = main()
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


@pytest.fixture
def tiny(tmp_path) -> Path:
    """A writable copy of fixtures/tiny-qwen3.6 (drafter, drafter-guessed, target)."""
    dest = tmp_path / "tiny"
    shutil.copytree(FIXTURES / "tiny-qwen3.6", dest)
    return dest


@pytest.fixture
def hub(monkeypatch):
    """A fake Hugging Face Hub on 127.0.0.1 serving fixtures/hub; HF_ENDPOINT points at it."""
    from fakehub import FakeHub

    with FakeHub(FIXTURES / "hub") as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "2")
        yield server
