"""docs/: the generated pages match their generator (tools/docs.py), `explain` prints each
rule's page, the pre-commit snippet is the published hook, and relative links resolve."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

from drafter_lint.rules import REDIRECTS, RULES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("docs_tool", ROOT / "tools" / "docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_are_current(tmp_path):
    """Regenerated into a temporary folder, the pages equal docs/ (CI runs this through the
    README's test command). Mutation caught: a rule's docstring, a rule added or removed,
    bench/results.json re-measured, or an oracle verdict re-recorded without
    `python tools/docs.py`."""
    docs = _generator()
    docs.write(tmp_path)
    fresh, committed = docs.generated(tmp_path), docs.generated(DOCS)
    assert sorted(fresh) == sorted(committed), "run python tools/docs.py"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert stale == [], f"stale: {stale}; run python tools/docs.py"
    assert {f"rules/{code}.md" for code in RULES} <= set(fresh)


def test_explain_prints_the_rule_page(cli):
    """`drafter-lint explain CODE` prints the page's text after its title's `# `, for every
    rule; a redirected code prints its rule's page with one line saying so."""
    for code in sorted(RULES):
        page = (DOCS / "rules" / f"{code}.md").read_text(encoding="utf-8")
        body = page.split("\n", 1)[1].removeprefix("# ")
        assert cli("explain", code).out == body, code
    for old, new in REDIRECTS.items():
        out = cli("explain", old).out
        assert out.startswith(f"{new} ") and f"({old} is now {new}:" in out


def test_the_pre_commit_snippet_is_the_published_hook():
    """The `repo: local` snippet of docs/pre-commit.md works as pasted: it is the hook of
    .pre-commit-hooks.yaml (entry, files, serial), and the page names every hook and how
    the manual one runs. Mutation caught: the hook changed and the page left behind."""
    text = (DOCS / "pre-commit.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.pre-commit-config\.yaml.*?)```", text, re.S).group(1)
    local = yaml.safe_load(block)["repos"][0]
    assert local["repo"] == "local"
    published = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml")
                                                    .read_text())}
    for hook in local["hooks"]:
        theirs = published[hook["id"]]
        assert (hook["entry"], hook["files"], hook.get("require_serial")) == \
            (theirs["entry"], theirs["files"], theirs.get("require_serial"))
    assert set(re.findall(r"- id: ([\w-]+)", text)) == set(published)
    assert published["drafter-lint"]["entry"].endswith("--offline")
    assert published["drafter-lint-fix"]["stages"] == ["manual"]
    assert "--hook-stage manual" in text


def test_relative_links_resolve():
    """Every relative link of README.md and docs/ names a file that exists (anchors are
    not checked). Mutation caught: a page renamed or moved without its links."""
    broken = []
    for page in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *DOCS.rglob("*.md")]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
