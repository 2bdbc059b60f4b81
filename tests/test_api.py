"""The library face (drafter_lint.api): the CLI's report as typed objects, its surface held
to docs/api-changelog.md."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import drafter_lint
from drafter_lint import api

ROOT = Path(__file__).resolve().parent.parent
TINY = Path("fixtures/tiny-qwen3.6")


def surface() -> str:
    """One line per public name: `name(signature)`, sorted."""
    lines = []
    for name in sorted(drafter_lint.__all__):
        obj = getattr(drafter_lint, name)
        try:
            lines.append(f"{name}{inspect.signature(obj)}")
        except ValueError:
            lines.append(name)
        if inspect.isclass(obj) and obj.__module__ == api.__name__:
            lines += [f"{name}.{member}" for member, _ in inspect.getmembers(obj)
                      if not member.startswith("_") and member not in
                      getattr(obj, "__dataclass_fields__", {}) and
                      member not in dir(BaseException)]
    return "\n".join(lines)


def test_the_public_surface_is_announced():
    """Mutation caught: a name added to (or dropped from) __all__, or a parameter changed,
    without the changelog's surface block saying so."""
    text = (ROOT / "docs" / "api-changelog.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- api-surface -->\n```text\n(.*?)\n```", text, re.S)
    assert block, "docs/api-changelog.md has no surface block"
    assert block.group(1) == surface(), f"announce the new surface:\n{surface()}"
    assert sorted(drafter_lint.__all__) == sorted(api.__all__)
    assert (ROOT / "drafter_lint" / "py.typed").is_file()
    assert '"drafter_lint" = ["py.typed", "*.pyi"]' in (ROOT / "pyproject.toml").read_text()
    stub = (ROOT / "drafter_lint" / "__init__.pyi").read_text()
    assert sorted(re.findall(r"import (\w+) as \1", stub)) == sorted(api.__all__)


def test_check_gives_the_cli_report_as_objects(cli, monkeypatch, capsys):
    """Mutation caught: a field of the JSON report lost or renamed on the way to the typed
    objects, or the API preparing its run otherwise than `check` does."""
    monkeypatch.chdir(ROOT)
    args = (str(TINY / "drafter-guessed"), "--target", str(TINY / "target"))
    expected = cli("check", *args, "--format", "json").json()
    capsys.readouterr()
    report = drafter_lint.check(TINY / "drafter-guessed", target=TINY / "target")
    assert capsys.readouterr() == ("", "")                # never prints
    assert report.to_json() == expected
    finding = report.findings[0]
    assert isinstance(finding, api.Finding) and isinstance(finding.line, int)
    assert [f.rule for f in report.errors] == ["DF104", "DF114", "DF122", "DF124"]
    fixed = next(f for f in report.findings if f.fix)
    assert isinstance(fixed.fix, api.Fix) and fixed.fix.edits[0]["op"]
    assert report.results[0].skipped[0].rule.startswith("LCH")


def test_assert_serves_raises_with_the_errors(monkeypatch):
    """Mutation caught: a warning or info treated as blocking, or an error let through."""
    monkeypatch.chdir(ROOT)
    with pytest.raises(AssertionError) as raised:
        drafter_lint.assert_serves(TINY / "drafter-guessed", target=TINY / "target")
    text = str(raised.value)
    assert text.startswith("4 error(s)")
    assert "drafter-guessed/config.json:9:5: DF104 error" in text and "DF105" not in text
    assert isinstance(raised.value, drafter_lint.WouldNotServe)
    # 0.33.0: the last vLLM with a V1 runner, whose DF125 note must not block
    report = drafter_lint.assert_serves(TINY / "drafter", target=TINY / "target",
                                        runtime="vllm==0.33.0")
    assert [f.rule for f in report.findings] == ["DF125"]


def test_errors_and_notes_are_not_printed(capfd):
    """Offline by default: a hub repo not in the cache is an error raised, not a request
    made (HF_ENDPOINT points at a closed port) and nothing is printed."""
    with pytest.raises(drafter_lint.DrafterLintError):
        drafter_lint.check("nobody/no-such-drafter")
    assert capfd.readouterr() == ("", "")


def test_two_threads_give_what_two_processes_give(monkeypatch):
    """Mutation caught: run state shared between two concurrent checks (the pipeline's
    module globals) without the API's lock."""
    monkeypatch.chdir(ROOT)
    cases = [(TINY / "drafter-guessed", TINY / "target"), (TINY / "drafter", TINY / "target")]
    exe = Path(sys.executable).with_name("drafter-lint")
    processes = [subprocess.Popen([str(exe), "check", str(d), "--target", str(t),
                                   "--format", "json"], stdout=subprocess.PIPE, text=True,
                                  env=os.environ.copy()) for d, t in cases]
    got: dict[int, dict] = {}

    def run(i, drafter, target):
        got[i] = drafter_lint.check(drafter, target=target).to_json()

    threads = [threading.Thread(target=run, args=(i, *c)) for i, c in enumerate(cases)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    expected = [json.loads(p.communicate(timeout=120)[0]) for p in processes]
    assert [got[0], got[1]] == expected


def test_importing_the_package_loads_no_engine():
    """The re-export is lazy: `import drafter_lint` (and so the CLI) loads no pipeline."""
    probe = ("import sys, drafter_lint; "
             "print(any(m.startswith(('drafter_lint.pipeline', 'drafter_lint.api')) "
             "for m in sys.modules)); print(drafter_lint.check.__module__)")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60, cwd=ROOT / "tests")
    assert run.stdout.split() == ["False", "drafter_lint.api"], run.stderr
