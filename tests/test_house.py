"""The house rules: layers and imports, one place per list, rules that document and declare
themselves, a rule lifecycle, and CONTRIBUTING naming every place a change touches."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import import_graph  # noqa: E402

from drafter_lint import errors, family, runtimes  # noqa: E402
from drafter_lint.engine import lint  # noqa: E402
from drafter_lint.findings import DISPLAY_ONLY, SAFE, UNSAFE, Applicability, Finding  # noqa: E402
from drafter_lint.options import Options  # noqa: E402
from drafter_lint.registry import collect, rule, undeclared_fix  # noqa: E402
from drafter_lint.rules import MODULES, RULES, redirect  # noqa: E402

# Third-party imports kept inside the function that needs them, with the measured reason
# (`python -X importtime`, this machine): everything else is imported at module top.
DEFERRED_THIRD_PARTY = {
    "transformers": "0.8 s; the brief: imported lazily, only where a config is loaded",
    "huggingface_hub": "0.3 s for hf_hub_download and HfApi; local checks never use it",
    "deepdiff": "0.2 s; only the reference rules compare documents",
    "jsonschema": "0.1 s; validation results are cached per config",
    "yaml": "10 ms of a 0.13 s re-check; only cards' front matter and --config files",
}


@pytest.fixture(scope="module")
def graph():
    return import_graph.build()


def test_import_graph_has_no_cycle_and_no_upward_import(graph):
    """Mutation caught: a module importing from a layer above it (facts.py reaching into
    rules/ once did) or two modules importing each other (loading <-> write did)."""
    assert len(graph.files) > 50 and graph.edge_count > 200
    assert import_graph.cycles(graph) == []
    assert import_graph.upward(graph) == []
    assert import_graph.unlayered(graph) == []


def test_the_graph_sees_an_upward_import(graph, tmp_path, monkeypatch):
    """The check itself can fail: an edge from the runtime layer to the rules is upward."""
    graph.edges.setdefault("drafter_lint.runtimes.table", set()).add("drafter_lint.rules.mtp")
    try:
        assert ("drafter_lint.runtimes.table", "drafter_lint.rules.mtp") in \
            import_graph.upward(graph)
        graph.edges.setdefault("drafter_lint.rules.mtp", set()).add(
            "drafter_lint.runtimes.table")
        assert import_graph.cycles(graph)
    finally:
        graph.edges["drafter_lint.runtimes.table"].discard("drafter_lint.rules.mtp")
        graph.edges["drafter_lint.rules.mtp"].discard("drafter_lint.runtimes.table")


# Modules allowed to import drafter_lint modules inside functions, with the measured reason.
DEFERRED_INTERNAL = {
    "drafter_lint.cli": "--version/--help/rules start in 0.09 s, 0.2 s with the engine at "
                        "top (goal 0.15 s)",
    "drafter_lint.entry": "the transformers child starts before the CLI is imported: the "
                          "cold check 1.00x the bare load (1.09x when check started it)",
}


def test_internal_imports_are_at_module_top(graph):
    """Mutation caught: an import moved into a function to dodge a cycle."""
    assert {m: sorted(n) for m, n in graph.deferred.items()
            if n and m not in DEFERRED_INTERNAL} == {}


def test_the_cli_starts_without_the_engine():
    """The measured reason for the CLI's deferred imports holds: importing it loads no
    rule, no runtime table beyond the family list, no hub client. Mutation caught: the
    engine imported at the CLI's top again."""
    import subprocess

    probe = ("import sys, drafter_lint.cli; "
             "print(sorted(m for m in sys.modules if m.startswith(('drafter_lint.rules', "
             "'drafter_lint.engine', 'drafter_lint.pipeline', 'huggingface_hub', "
             "'transformers', 'jsonschema', 'deepdiff'))))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60, cwd=ROOT / "tests")
    assert run.stdout.strip() == "[]", run.stdout + run.stderr


def test_deferred_third_party_imports_have_a_measured_reason(graph):
    """Mutation caught: a third-party import put inside a function without its measured
    reason here, or transformers imported at module top (the loader child is then not the
    only importer)."""
    deferred = {name for names in graph.deferred_external.values() for name in names}
    assert deferred <= set(DEFERRED_THIRD_PARTY), deferred - set(DEFERRED_THIRD_PARTY)
    assert "transformers" in deferred


def test_dry_run_scripts_import_nothing_of_drafter_lint(graph):
    """They run in the runtime's interpreter, where drafter_lint need not be installed."""
    scripts = {m: e for m, e in graph.edges.items() if m.startswith(import_graph.SCRIPTS)}
    assert scripts and all(not e for e in scripts.values()), scripts


def test_no_path_manipulation_maps_the_rules():
    """rules/ reaches drafter_lint.rules through the packaging alone."""
    source = (ROOT / "drafter_lint" / "__init__.py").read_text()
    assert "__path__" not in source and "sys.path" not in source
    assert '"drafter_lint.rules" = "rules"' in (ROOT / "pyproject.toml").read_text()


def test_prepare_takes_keywords_only():
    """Issue 40 item 2: `prepare(target_arg, None, None, offline, (), (), True, ...)` read
    as twelve positional slots. Mutation caught: a positional parameter back in it."""
    import inspect

    from drafter_lint.pipeline import prepare

    kinds = {p.kind for p in inspect.signature(prepare).parameters.values()}
    assert kinds == {inspect.Parameter.KEYWORD_ONLY}


def test_the_package_cites_only_what_ships():
    """Issue 40 item 5: rule docs cited research/*.md, which is not in the repository,
    and `drafter-lint explain` printed it. Mutation caught: a docstring or comment of the
    package pointing a reader at a file they do not have."""
    cited = [f"{path.relative_to(ROOT)}:{number}"
             for folder in ("drafter_lint", "rules") for path in (ROOT / folder).rglob("*.py")
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if "research/" in line]
    assert cited == []


# --- no run state in modules ------------------------------------------------------------

# The criterion. A module-level name bound to a mutable container (a list, dict or set
# display or comprehension, or a call of list/dict/set/defaultdict/OrderedDict/Counter/
# deque/bytearray) or to a lock (Lock/RLock/Condition/Semaphore/Event) is module state. It
# is allowed only as
#   - a read-only table: an ALL_CAPS name (`_` prefix allowed) or a dunder (`__all__`)
#     that is not a lock and that no function of its module mutates (see `_mutated`), or
#   - the process's own state, listed here with why it outlives a run.
# Everything a run learns (hub folders read, the hub's listing, card targets) lives in the
# run's `Run` (drafter_lint/run.py), which `pipeline.prepare` makes.
PROCESS_STATE = {
    "drafter_lint.api._RUN": "the process has one loader child, which answers one call "
                             "at a time: library calls take turns",
    "drafter_lint.loading._SEEN": "loader results read from the cache, by their file: the "
                                  "same for every run",
    "drafter_lint.structure._MEMO": "schema validation results, by schema and config digest",
    "drafter_lint.transformers_child._WORKER": "the process's one transformers loader child",
    "drafter_lint.remote._LOCKS": "one lock per cache folder, for the process's threads",
    "drafter_lint.remote._LOCKS_LOCK": "guards _LOCKS",
    "drafter_lint.remote._BUILDING": "partial folders this process writes, removed at exit",
    "drafter_lint.remote._PRUNED": "the cache's stale partial folders are pruned once per "
                                   "process",
    "drafter_lint.registry.BY_MODULE": "filled by @rule as the rule modules are imported",
    "drafter_lint.runtimes.keys.KEYS": "filled as table.py is imported (keys.declare beside "
                                      "a key's rows); a typo fails then",
}
MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "OrderedDict", "Counter", "deque",
                 "bytearray"}
LOCK_CALLS = {"Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore", "Event"}
MUTATORS = {"append", "add", "update", "clear", "pop", "popitem", "setdefault", "extend",
            "insert", "remove", "discard", "sort", "reverse"}
CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*|__[a-z]+__")


def _module_state(tree: ast.Module) -> dict[str, str]:
    """Module-level name -> "mutable" or "lock", for the names bound to such a value."""
    out = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value else []
        value = getattr(node, "value", None)
        kind = None
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                              ast.SetComp)):
            kind = "mutable"
        elif isinstance(value, ast.Call):
            func = value.func
            name = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else ""
            kind = "lock" if name in LOCK_CALLS else "mutable" if name in MUTABLE_CALLS \
                else None
        for target in targets:
            if kind and isinstance(target, ast.Name):
                out[target.id] = kind
    return out


def _mutated(tree: ast.Module, names: set[str]) -> set[str]:
    """The module-level `names` some function of the module changes: `global NAME`,
    `NAME.append/add/update/clear/pop/...(...)`, `NAME[...] = / += / del`. A name a
    function binds itself (a parameter, a local) is that function's, not the module's."""
    out = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        local = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(function)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                out |= set(node.names) & names
                continue
            receiver = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in MUTATORS:
                receiver = node.func.value
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store,
                                                                          ast.Del)):
                receiver = node.value
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                receiver = node.target.value
            if isinstance(receiver, ast.Name) and receiver.id in names and \
                    receiver.id not in local:
                out.add(receiver.id)
    return out


def module_state_problems(source: str, module: str) -> list[str]:
    """`module.NAME: why` for each module-level state the criterion above refuses."""
    tree = ast.parse(source)
    state = _module_state(tree)
    mutated = _mutated(tree, set(state))
    # `global NAME` rebinds module state whatever its value: never allowed
    out = [f"{module}.{name}: rebound by `global`" for node in ast.walk(tree)
           if isinstance(node, ast.Global) for name in node.names
           if f"{module}.{name}" not in PROCESS_STATE]
    for name, kind in sorted(state.items()):
        if f"{module}.{name}" in PROCESS_STATE:
            continue
        if kind == "lock":
            out.append(f"{module}.{name}: a module-level lock guards module state")
        elif name in mutated:
            out.append(f"{module}.{name}: changed by the module's functions")
        elif not CONSTANT.fullmatch(name):
            out.append(f"{module}.{name}: a mutable module-level value not named as a "
                       f"constant")
    return out


def test_no_module_keeps_run_state(graph):
    """Issue 40 part 1: a run kept its state in module globals (pipeline's `_REMOTE`,
    `_OFFLINE`, `_CARD_TARGETS`, `_CARD_MISSING`, `_TARGET_LOCKS`, collection's `LISTED`),
    so two runs in one process shared it. Mutation caught: any of them back (a module
    `dict` written by `remember_remote`, `LISTED[repo] = ...` in `list_repos`, a module
    `threading.Lock()`), or a `global` assignment; process state is listed in
    PROCESS_STATE with why. The dry-run scripts run as programs of their own."""
    problems = []
    for module, path in graph.files.items():
        if module.startswith(import_graph.SCRIPTS):
            continue
        problems += module_state_problems(path.read_text(), module)
    assert problems == []
    stale = [name for name in PROCESS_STATE if name.rsplit(".", 1)[0] not in graph.files]
    assert stale == []


@pytest.mark.parametrize("source, caught", [
    ("_REMOTE: dict[str, str] = {}\ndef remember(a, b):\n    _REMOTE[a] = b\n", True),
    ("LISTED = {}\ndef listed(r, s):\n    LISTED.setdefault(r, s)\n", True),
    ("_OFFLINE = [False]\ndef offline(v):\n    _OFFLINE[0] = v\n", True),
    ("import threading\n_LOCKS_LOCK = threading.Lock()\n", True),
    ("state = dict()\n", True),
    ("COUNT = 0\ndef bump():\n    global COUNT\n    COUNT += 1\n", True),
    ("TABLE = {'a': 1}\ndef read(k):\n    return TABLE[k]\n", False),
    ("TABLE = {'a': 1}\ndef local(TABLE):\n    TABLE['b'] = 2\n", False),
])
def test_the_module_state_check_can_fail(source, caught):
    """The check itself: each kind of run state it is there to refuse is refused (a
    `global` rebinding too, whatever the value), and a read-only table (or a parameter
    shadowing its name) is not."""
    assert bool(module_state_problems(source, "m")) is caught


# --- errors -----------------------------------------------------------------------------


def test_every_user_facing_error_lives_in_the_errors_module():
    """Mutation caught: a new error class defined beside its raiser, which the CLI would
    not know to print as one line with its exit code."""
    defined = []
    for path in [*(ROOT / "drafter_lint").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]:
        if path.name == "errors.py" or "dryrun" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name) and (b.id.endswith(("Error", "Exception")))
                    for b in node.bases) and not node.name.startswith("_"):
                defined.append(f"{path.name}:{node.name}")
    assert defined == []
    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, errors.DrafterLintError)]
    assert len(classes) >= 14 and all(c.exit_code in (1, 2) for c in classes)


def test_an_error_ends_the_run_with_its_own_exit_code(cli, tmp_path):
    """A settings error once had to be converted to a usage error by hand."""
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text("{}")
    (tmp_path / "ckpt" / ".drafter-lint.toml").write_text('select = ["ZZ9"]\n')
    run = cli("check", tmp_path / "ckpt")
    assert run.code == errors.SettingsError.exit_code == 2
    assert run.err.count("\n") == 1 and "no rule code starts with 'ZZ9'" in run.err


# --- one table of families --------------------------------------------------------------


def test_every_list_of_families_derives_from_the_table(cli, tmp_path):
    """`--family dspark` was refused by click while the detector returned it."""
    names = [f.name for f in family.FAMILY_TABLE]
    assert family.FAMILIES == tuple(names)
    assert set(names) <= set(family.CHOICES)
    assert {r.family for r in RULES.values()} - {"any"} <= set(names)
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen3"}))
    run = cli("check", folder, "--family", "dspark", "--format", "json", "--ignore", "TF")
    assert run.code in (0, 1), run.err
    assert run.json()["results"][0]["family"] == "dspark"


@pytest.fixture(scope="module")
def family_cases(tmp_path_factory) -> dict[str, list[str]]:
    """family -> the manifests and published corpus cases that detect as it, read as the
    tool reads them (corpus cases written out by tests/corpus.py)."""
    from corpus import cases, materialize

    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.family import detect
    from sparse import load_manifest

    out: dict[str, list[str]] = {}
    for path in sorted((ROOT / "fixtures" / "manifests").glob("*.json")):
        drafter = load_manifest(path.stem)["drafter"]
        names = [t[0] for f in drafter.get("files", {}).values() for t in f.get("tensors", [])]
        out.setdefault(detect(drafter["config"], names).split("/")[0], []).append(path.name)
    root = tmp_path_factory.mktemp("corpus")
    for case in cases():
        folder, _ = materialize(case, root)
        found = read_checkpoint(folder, case.id).family
        out.setdefault(found.split("/")[0], []).append(case.id)
    return out


@pytest.mark.parametrize("row", family.FAMILY_TABLE, ids=lambda r: r.name)
def test_every_family_has_every_place(row, family_cases):
    """The places CONTRIBUTING's "Add a family" lists. Mutation caught: a family added to
    the table without a schema, a fields row, a rule, a serves row for a runtime, a
    launch method, or a checkpoint that detects as it."""
    assert (ROOT / "schemas" / f"{row.schema}.schema.json").is_file()
    fields = json.loads((ROOT / "schemas" / "fields.json").read_text())
    assert row.schema in fields, f"schemas/fields.json has no {row.schema!r} row"
    own = [c for c, r in RULES.items() if r.family in row.rules]
    assert own, f"no rule of {row.rules}"
    serves = {f.runtime for f in runtimes.FACTS if f.key == f"serves.{row.name}"}
    assert {"vllm", "sglang"} <= serves, f"serves.{row.name} rows: {sorted(serves)}"
    methods = [f for f in runtimes.FACTS if f.key == "launch.methods"]
    for runtime in ("vllm", "sglang"):
        assert any(row.name in f.value for f in methods if f.runtime == runtime), runtime
    assert family_cases.get(row.name), f"no manifest or corpus case detects as {row.name}"


# --- rules document and declare themselves ---------------------------------------------


def test_every_rule_has_its_generated_page():
    """docs/rules/ holds a page for each code and the index links it (tools/docs.py writes
    them; tests/test_docs.py holds them to their text). Mutation caught: a rule added
    without regenerating the pages, or a page left for a code no rule has."""
    pages = {p.stem for p in (ROOT / "docs" / "rules").glob("*.md")} - {"index"}
    assert pages == set(RULES), sorted(pages ^ set(RULES))
    index = (ROOT / "docs" / "rules" / "index.md").read_text()
    assert set(re.findall(r"\[([A-Z]+\d+)\]\(\1\.md\)", index)) >= set(RULES)


DRAWS = re.compile(r"\b(Fails|Warns|Informs|Reports):")
FIX_LINE = re.compile(r"\bFix \((safe|unsafe|display-only)[,)]")


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_docstring_has_the_documented_sections(code):
    """CONTRIBUTING's "Add a rule", item 2. Mutation caught: a rule without a passing
    example, without an example that draws it, or whose Fix lines disagree with its
    declared fixes."""
    r = RULES[code]
    doc = r.doc
    assert r.summary and r.summary == doc.splitlines()[0] and len(doc.splitlines()) > 2
    assert DRAWS.search(doc), f"{code}: no Fails:/Warns:/Informs:/Reports: example"
    assert "Passes:" in doc, f"{code}: no Passes: example"
    labels = {Applicability.of(m) for m in FIX_LINE.findall(doc)}
    if r.fix == "never":
        assert not labels and "Fix:" not in doc, f"{code}: a Fix line but no fixes"
    else:
        assert labels and max(labels) == r.applies, (code, labels, r.applies)


def test_every_rule_function_is_registered():
    """Rules register through @rule (issue 40 item 1: no collect(...) lists to forget).
    Mutation caught: a module of rules left out of rules/__init__.py's MODULES, or a
    module holding a list that would shadow the decorator's."""
    declared, with_rules = set(), set()
    for path in (ROOT / "rules").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for dec in node.decorator_list:
                    if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "rule":
                        declared.add(dec.args[0].value)
                        with_rules.add(path.stem)
        assert path.stem == "__init__" or "collect(" not in path.read_text(), path
    assert declared == set(RULES)
    assert {m.__name__.rsplit(".", 1)[1] for m in MODULES} == with_rules


def test_undeclared_fix_catches_each_mismatch():
    """The harness check that every case and corpus finding is held to."""
    def make(fix, applies):
        @rule("ZZ901", "zz", "warning", "any", fix=fix, applies=applies)
        def zz(facts):
            """Summary.

            Fails: x. Passes: y."""
            yield from ()
        return zz.rule

    from drafter_lint.findings import replace

    never, always = make("never", None), make("always", UNSAFE)
    assert undeclared_fix(never, Finding("/a", "m", fix=replace("/a", 1)))
    assert undeclared_fix(always, Finding("/a", "m"))
    assert undeclared_fix(always, Finding("/a", "m", fix=replace("/a", 1, SAFE)))
    assert undeclared_fix(always, Finding("/a", "m", fix=replace("/a", 1, DISPLAY_ONLY))) \
        is None
    with pytest.raises(ValueError):
        make("always", None)
    with pytest.raises(ValueError):
        make("sometimes-maybe", UNSAFE)


def test_applicability_is_ordered_and_spelled_as_the_report_spells_it():
    assert DISPLAY_ONLY < UNSAFE < SAFE
    assert [a.label for a in Applicability] == ["display-only", "unsafe", "safe"]
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    assert set(re.findall(r'"(display-only|unsafe|safe)"', json.dumps(schema))) == \
        {a.label for a in Applicability}


def test_a_display_only_fix_is_shown_and_never_applied(cli, tiny, tmp_path):
    """DF114 on another tap list: the z-lab default is a candidate, not a repair. Mutation
    caught: display-only fixes applied by `fix --unsafe-fixes`."""
    import shutil

    folder = tmp_path / "d"
    shutil.copytree(tiny / "drafter", folder)
    config = json.loads((folder / "config.json").read_text())
    depth = json.loads((tiny / "target" / "config.json").read_text())
    depth = (depth.get("text_config") or depth)["num_hidden_layers"]
    config["dflash_config"]["target_layer_ids"] = [0, 2, depth - 1][:len(
        config["dflash_config"]["target_layer_ids"])]
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    before = (folder / "config.json").read_bytes()
    run = cli("check", folder, "--target", tiny / "target", "--select", "DF114",
              "--format", "json", "--fail-on", "info")
    found = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "DF114"]
    assert found and found[0]["fix"]["applicability"] == "display-only", found
    fixed = cli("fix", folder, "--target", tiny / "target", "--select", "DF114",
                "--unsafe-fixes", "--fail-on", "info")
    assert (folder / "config.json").read_bytes() == before
    assert fixed.code == 1 and "never applied" in fixed.out + fixed.err


# --- rule lifecycle ---------------------------------------------------------------------


def _lifecycle_rules():
    def make(code, status, **kw):
        @rule(code, f"zz-{code.lower()}", "warning", "any", status=status, **kw)
        def zz(facts):
            """Summary.

            Fails: x. Passes: y."""
            yield Finding("", f"{code} ran")
        return zz

    return collect(make("ZZ1", "stable"), make("ZZ2", "preview"),
                   make("ZZ3", "deprecated", replaced_by="ZZ1", why="said by ZZ1"),
                   make("ZZ4", "removed", why="vLLM 0.40 retired its reason"))


def test_lifecycle_decides_what_runs(tiny):
    """Mutation caught: a removed rule still running, or a preview rule running unasked."""
    from drafter_lint.checkpoint import read_checkpoint

    rules = _lifecycle_rules()
    checkpoint = read_checkpoint(tiny / "drafter", "d")

    def ran(select=()):
        result = lint(checkpoint, Options(rules=rules, select=select))
        return sorted(f.rule for f in result.findings)

    assert ran() == ["ZZ1", "ZZ3"]
    assert ran(("ZZ",)) == ["ZZ1", "ZZ3"]          # a prefix does not opt into preview
    assert ran(("ZZ2",)) == ["ZZ2"]                # its full code does
    assert ran(("ZZ4",)) == []                     # a removed rule never runs
    with pytest.raises(ValueError):
        rule("ZZ5", "zz5", "info", "any", status="removed")   # a removed rule says why
    with pytest.raises(ValueError):
        rule("ZZ6", "zz6", "info", "any", status="retired")


def test_redirects_keep_old_codes_meaningful(cli, tiny, tmp_path, monkeypatch):
    """An old code in --select, settings and the baseline acts on the new code. Mutation
    caught: a redirect honoured on the command line only."""
    import shutil

    from drafter_lint import rules as registry

    assert redirect("DF101") == "DF101"
    monkeypatch.setitem(registry.REDIRECTS, "DF199", "DF122")
    monkeypatch.setitem(registry.REDIRECTS, "DF198", "DF199")
    assert redirect("DF198") == "DF122"                        # chains resolve
    assert redirect("X1", {"X1": "X2", "X2": "X1"}) in ("X1", "X2")   # a loop ends
    from drafter_lint import pipeline, settings

    assert pipeline.codes(("DF199,DL",)) == ("DF122", "DL")
    folder = tmp_path / "d"
    shutil.copytree(tiny / "drafter-guessed", folder)
    (folder / ".drafter-lint.toml").write_text('ignore = ["DF199"]\n')
    assert settings.load(folder).ignore == ("DF122",)
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"version": 1, "entries": [
        {"rule": "DF199", "path": "d", "pointer": "/x"}]}))
    assert settings.read_baseline(baseline)[0]["rule"] == "DF122"


def test_rules_and_explain_show_status(cli):
    listed = {r["code"]: r for r in cli("rules", "--format", "json").json()["rules"]}
    assert all(r["status"] == "stable" for r in listed.values())
    assert "Status:" not in cli("explain", "DF101").out


def test_every_rule_has_a_folder_with_a_failing_and_a_passing_case():
    """A registered rule (any status but `removed`) has fixtures/rules/<CODE>/ with a case of
    each outcome; a case held by another test names it, and that test exists."""
    from rulecases import RULE_FIXTURES, cases_of, rules_with_cases

    missing, lost = [], []
    for code, entry in RULES.items():
        if entry.status == "removed":
            continue
        cases = cases_of(code) if (RULE_FIXTURES / code / "cases.json").exists() else []
        outcomes = {c.outcome for c in cases}
        missing += [(code, o) for o in ("fail", "pass") if o not in outcomes]
        for case in cases:
            if case.test:
                file, _, name = case.test.partition("::")
                source = ROOT / file
                if not source.exists() or f"def {name}(" not in source.read_text():
                    lost.append(case.id)
    unknown = [r for r in rules_with_cases() if r not in RULES]
    assert (missing, unknown, lost) == ([], [], [])


# --- CONTRIBUTING names every place -----------------------------------------------------


def _section(title: str) -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 3)
    return text[start:end if end > 0 else None]


# the places each test above checks, as CONTRIBUTING must name them
PLACES = {
    "Add a rule": ["rules/", "MODULES", "tools/docs.py", "tests/test_rule_cases.py",
                   "fixtures/rules/<CODE>/cases.json", "tests/data/census.json",
                   "tests/rulecases.py", "drafter_lint/runtimes/", "applies=",
                   "Passes:", "Fix (safe|unsafe|display-only)", "REDIRECTS"],
    "Add a family": ["FAMILY_TABLE", "drafter_lint/family.py", "schemas/<schema>.schema.json",
                     "schemas/fields.json", "rules/__init__.py", "serves.<family>",
                     "launch.methods", "drafter_lint/runtimes/table.py",
                     "fixtures/manifests/", "fixtures/published/"],
    "Add a runtime fact": ["drafter_lint/runtimes/table.py", "drafter_lint/runtimes/releases.py",
                           "PUBLISHED", '"pins"', "fixtures/rules/<CODE>/cases.json",
                           "tools/oracle/release_probes.py", "tools/oracle/release_evidence.py",
                           "tests/data/release-evidence.json",
                           "drafter_lint/runtimes/registries.json"],
}


@pytest.mark.parametrize("title", PLACES)
def test_contributing_names_every_place(title):
    """Mutation caught: a place the tests hold a change to that CONTRIBUTING does not tell
    a newcomer about (or a path it names that no longer exists)."""
    section = _section(title)
    missing = [p for p in PLACES[title] if p not in section]
    assert missing == [], (title, missing)
    for path in re.findall(r"`((?:drafter_lint|rules|schemas|tests|fixtures|bench)/[^`<*]*?)`",
                           section):
        assert (ROOT / path.split(" ")[0]).exists(), f"CONTRIBUTING names {path}: missing"
