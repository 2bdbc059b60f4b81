"""The command line as users and scripts meet it: formats, exit codes, bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources

import jsonschema
import pytest
from drafter_lint.rules import RULES
from sparse import write_safetensors

LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+)"
                  r"(?P<fixable> \[\*\])? (?P<severity>error|warning|info) (?P<message>.+)$")


def report_schema() -> dict:
    text = resources.files("drafter_lint.schemas").joinpath("report.schema.json").read_text()
    return json.loads(text)


# --- check: formats and exit codes --------------------------------------------------------


def test_guessed_example_text_output(cli, tiny):
    run = cli("check", tiny / "drafter-guessed", "--target", tiny / "target")
    assert run.code == 1
    lines = [line for line in run.out.splitlines() if ": skipped " not in line]
    parsed = [LINE.match(line) for line in lines[:-2]]
    assert all(parsed), lines
    codes = {m["code"] for m in parsed}
    assert {"DF104", "DF114", "DF122"} <= codes          # mask, taps, window
    config_lines = (tiny / "drafter-guessed" / "config.json").read_text().splitlines()
    for m in parsed:
        assert m["file"].endswith("drafter-guessed/config.json")
        # every position points at the line holding the field the message names
        key = {"DF104": "mask_token_id", "DF105": "mask_token_id", "DF114": "target_layer_ids",
               "DF122": "sliding_window", "DF124": "use_sliding_window",
               "DF125": "layer_types"}[m["code"]]
        assert f'"{key}"' in config_lines[int(m["line"]) - 1]
    assert lines[-2].startswith("Found 4 errors")
    assert lines[-1].startswith("3 fixable with `drafter-lint fix --unsafe-fixes`")
    assert "\x1b[" not in run.out


def test_json_report_matches_the_design_schema(cli, tiny):
    run = cli("check", tiny / "drafter-guessed", tiny / "drafter", "--target", tiny / "target",
              "--format", "json")
    report = run.json()
    jsonschema.Draft202012Validator(report_schema()).validate(report)
    assert [r["family"] for r in report["results"]] == ["dflash", "dflash"]
    assert report["summary"]["error"] == sum(
        f["severity"] == "error" for r in report["results"] for f in r["findings"])
    shift = next(f for f in report["results"][0]["findings"] if f["rule"] == "DF114")
    assert shift["fix"] == {"applicability": "unsafe", "edits": [
        {"op": "replace", "path": "/dflash_config/target_layer_ids", "value": [1, 6, 11, 16, 21]}]}
    assert run.code == 1


def test_report_schema_rejects_a_malformed_report(cli, tiny):
    report = cli("check", tiny / "drafter-guessed", "--format", "json").json()
    report["results"][0]["findings"][0]["severity"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, report_schema())


def test_format_does_not_change_exit_code(cli, tiny):
    codes = {cli("check", tiny / "drafter-guessed", "--format", f).code for f in ("text", "json")}
    assert codes == {1}


@pytest.mark.parametrize("fail_on,code", [("error", 0), ("warning", 0), ("info", 1)])
def test_fail_on(cli, tiny, fail_on, code):
    # the correct drafter has one info finding (mixed sliding/full layers) for vLLM 0.33.0,
    # the last with a V1 runner to refuse them
    assert cli("check", tiny / "drafter", "--target", tiny / "target", "--runtime",
               "vllm==0.33.0", "--fail-on", fail_on).code == code


def test_skipped_checks_are_listed(cli, tiny):
    run = cli("check", tiny / "drafter")
    needs_target = sorted(c for c, r in RULES.items() if "target" in r.needs
                          and r.family in ("dflash", "any"))
    assert (f"skipped {len(needs_target)} checks: no target given (--target) "
            f"({', '.join(needs_target)})") in run.out
    assert "skipped 1 check: no tokenizer.json or tokenizer_config.json in the target or " \
           "the checkpoint (DF104)" in run.out
    needs_reference = sorted(c for c, r in RULES.items() if "reference" in r.needs)
    assert (f"skipped {len(needs_reference)} checks: no reference given (--reference or "
            f"--from-hub) ({', '.join(needs_reference)})") in run.out
    needs_launch = sorted(c for c, r in RULES.items() if "launch" in r.needs
                          and r.family in ("dflash", "any") and "card" not in r.needs)
    report = cli("check", tiny / "drafter", "--format", "json").json()
    assert sorted(s["rule"] for s in report["results"][0]["skipped"]) == sorted(
        needs_target + needs_reference + needs_launch + ["DF104"])
    # no model card: its rules do not apply, so they are not skipped checks either
    assert not any(s["rule"].startswith("CRD") for s in report["results"][0]["skipped"])


def test_select_and_ignore(cli, tiny):
    only = cli("check", tiny / "drafter-guessed", "--select", "DF114", "--format", "json").json()
    assert {f["rule"] for f in only["results"][0]["findings"]} == {"DF114"}
    rest = cli("check", tiny / "drafter-guessed", "--ignore", "DF11,DF104", "--format", "json")
    assert not any(f["rule"].startswith("DF11") for f in rest.json()["results"][0]["findings"])
    bad = cli("check", tiny / "drafter", "--select", "ZZ9")
    assert bad.code == 2 and "ZZ9" in bad.err


def test_colour(cli, tiny, monkeypatch):
    assert "\x1b[" in cli("check", tiny / "drafter-guessed", "--color", "always").out
    from drafter_lint import cli as module

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert module._use_colour("auto") is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert module._use_colour("auto") is False


def test_files_are_grouped_by_checkpoint_folder(cli, tiny):
    d = tiny / "drafter-guessed"
    run = cli("check", d / "config.json", d / "model.safetensors", d, "--format", "json")
    assert len(run.json()["results"]) == 1


def test_clean_checkpoint_exits_zero(cli, tiny):
    run = cli("check", tiny / "drafter", "--target", tiny / "target")
    assert run.code == 0 and "All checks passed" in run.out         # vLLM 0.34.0: V2 alone
    run = cli("check", tiny / "drafter", "--target", tiny / "target", "--runtime", "vllm==0.33.0")
    assert run.code == 0 and "Found 1 info" in run.out


# --- explain and rules --------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_explains_itself(cli, code):
    run = cli("explain", code)
    assert run.code == 0
    assert run.out.startswith(f"{code} {RULES[code].name}")
    doc = RULES[code].doc
    assert len(doc) > 120 and any(f"{label}:" in doc for label in
                                  ("Fails", "Reports", "Warns", "Informs"))


def test_explain_by_name_and_unknown(cli):
    assert cli("explain", "eagle-aux-ids-stale").out.startswith("DF117")
    run = cli("explain", "DF1144")
    assert run.code == 2 and "did you mean" in run.err and "\n" == run.err[-1]


def test_rules_json_lists_every_rule(cli):
    listed = cli("rules", "--format", "json").json()["rules"]
    assert [r["code"] for r in listed] == sorted(RULES)
    assert len({r["name"] for r in listed}) == len(listed)


# --- bad input: a finding or exit 2 with one line, never a traceback ----------------------


def one_line(run):
    assert "Traceback" not in run.err + run.out
    return run


@pytest.mark.parametrize("content,rule", [
    (b'{"hidden_size": 16,,}', "DL001"),
    (b"\xff\xfe{}", "DL001"),
    (b'"just a string"', "DL002"),
    (b"[" * 50000, "DL001"),
])
def test_broken_config_is_a_finding(cli, tiny, content, rule):
    (tiny / "drafter" / "config.json").write_bytes(content)
    run = one_line(cli("check", tiny / "drafter", "--format", "json"))
    findings = run.json()["results"][0]["findings"]
    assert [f["rule"] for f in findings] == [rule]
    assert run.code == 1
    skipped = {s["rule"] for s in run.json()["results"][0]["skipped"]}
    assert "DF114" in skipped



@pytest.mark.parametrize("text", [
    '{"hidden_size": 16,,}',
    '{\n  "a": 1,\n  "b": [1, 2,, 3]\n}\n',
    '{\n\t"a": "x"\n\t"b": 2}',
    '{"a": 1}\n\n   ]',
])
def test_broken_config_is_reported_where_parsing_stopped(cli, tiny, text):
    """DL001's line and column are where Python's json stops (1-based). Mutation caught: a
    column off by one, or the line of the last newline instead of the error."""
    (tiny / "drafter" / "config.json").write_text(text)
    run = one_line(cli("check", tiny / "drafter", "--format", "json"))
    finding = run.json()["results"][0]["findings"][0]
    with pytest.raises(json.JSONDecodeError) as error:
        json.loads(text)
    assert finding["rule"] == "DL001"
    assert (finding["line"], finding["column"]) == (error.value.lineno, error.value.colno)

@pytest.mark.parametrize("content,needle", [
    (None, "runs past the end"),                       # cut short
    ((2**62).to_bytes(8, "little") + b"{}", "cap"),
    ((10**6).to_bytes(8, "little") + b"{}", "past the end"),
])
def test_broken_safetensors_is_a_finding(cli, tiny, content, needle):
    path = tiny / "drafter" / "model.safetensors"
    if content is None:
        content = path.read_bytes()[:200]
    path.write_bytes(content)
    run = one_line(cli("check", tiny / "drafter", "--format", "json"))
    hits = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "DL004"]
    assert len(hits) == 1 and needle in hits[0]["message"] and "\n" not in hits[0]["message"]
    assert run.code == 1


def test_unreadable_files_are_findings(cli, tiny):
    for name in ("config.json", "model.safetensors"):
        os.remove(tiny / "drafter" / name)
        os.mkdir(tiny / "drafter" / name)                 # exists, cannot be read as a file
    run = one_line(cli("check", tiny / "drafter", "--format", "json"))
    assert sorted(f["rule"] for f in run.json()["results"][0]["findings"]) == ["DL001", "DL004"]
    assert run.code == 1


ESCAPE_PROBE = """
import sys
from drafter_lint.cli import main
sys.argv = ['drafter-lint', 'check', sys.argv[1], '--format', 'json']
sys.exit(main())
"""


@pytest.mark.parametrize("how", ["index", "symlink", "sibling"])
def test_nothing_outside_the_folder_is_opened(tmp_path, tiny, how):
    """The outside file is a FIFO: opening it for reading would block, so the run would
    time out instead of reporting. `sibling`: a folder beside the checkpoint whose name
    starts with the checkpoint's (`drafter-outside/`) is outside it too. Mutation caught
    (round 2026-12-05, M16): `_contained` testing the path as a string prefix, without
    the separator."""
    drafter = tiny / "drafter"
    if how == "sibling":
        (tiny / "drafter-outside").mkdir()
        fifo = tiny / "drafter-outside" / "outside.safetensors"
        how = "symlink"
    else:
        fifo = tmp_path / "outside.safetensors"
    os.mkfifo(fifo)
    if how == "index":
        weight_map = {"fc.weight": "../../outside.safetensors"}
        (drafter / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    else:
        os.remove(drafter / "model.safetensors")
        os.symlink(fifo, drafter / "model.safetensors")
    run = subprocess.run([sys.executable, "-c", ESCAPE_PROBE, str(drafter)],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    hits = [f for f in json.loads(run.stdout)["results"][0]["findings"] if f["rule"] == "DL004"]
    assert hits and "outside the checkpoint folder" in hits[0]["message"]


def test_missing_path_is_exit_2_with_one_line(cli, tmp_path):
    run = one_line(cli("check", tmp_path / "nope"))
    assert run.code == 2 and run.err.count("\n") == 1 and "no such file" in run.err


def test_folder_without_config_is_a_finding(cli, tmp_path):
    run = one_line(cli("check", tmp_path, "--format", "json"))
    assert [f["rule"] for f in run.json()["results"][0]["findings"]] == ["DL001"]


@pytest.mark.parametrize("setup,needle", [
    (lambda t: None, "no such file"),
    (lambda t: (t.mkdir(), (t / "config.json").write_text("{")), "not valid JSON"),
    (lambda t: (t.mkdir(), (t / "config.json").write_text("[]")), "not a JSON object"),
])
def test_unusable_target_is_exit_2(cli, tiny, tmp_path, setup, needle):
    target = tmp_path / "t"
    setup(target)
    run = one_line(cli("check", tiny / "drafter", "--target", target))
    assert run.code == 2 and needle in run.err and run.err.count("\n") == 1


def test_unreachable_hub_target_is_exit_2(cli, tiny):
    run = one_line(cli("check", tiny / "drafter", "--target", "Qwen/Qwen3.6-27B"))
    assert run.code == 2 and "Qwen/Qwen3.6-27B" in run.err and run.err.count("\n") == 1


def test_sharded_weights_through_the_index(cli, tiny):
    """Shards listed in the index are read; an index naming a missing shard is a finding."""
    drafter = tiny / "drafter"
    header = drafter / "model.safetensors"
    raw = header.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    specs = json.loads(raw[8:8 + n])
    specs.pop("__metadata__")
    tensors = [[k, v["dtype"], v["shape"]] for k, v in sorted(specs.items(),
                                                               key=lambda kv: kv[1]["data_offsets"])]
    os.remove(header)
    write_safetensors(drafter / "a.safetensors", tensors[:10])
    write_safetensors(drafter / "b.safetensors", tensors[10:])
    weight_map = {t[0]: "a.safetensors" for t in tensors[:10]}
    weight_map.update({t[0]: "b.safetensors" for t in tensors[10:]})
    (drafter / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    assert cli("check", drafter, "--target", tiny / "target").code == 0
    weight_map["extra.weight"] = "c.safetensors"
    (drafter / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    run = cli("check", drafter, "--format", "json")
    hits = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "DL004"]
    assert hits and "c.safetensors" in hits[0]["message"]


# --- start-up path ------------------------------------------------------------------------


PROBE = """
import sys
import drafter_lint.cli
assert 'transformers' not in sys.modules, 'imported by the CLI import'
sys.argv = ['drafter-lint', 'check', *sys.argv[1:]]
try:
    drafter_lint.cli.main()
except SystemExit:
    pass
print('TRANSFORMERS' if 'transformers' in sys.modules else 'CLEAN')
"""


def probe(*args, cwd) -> str:
    run = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True,
                         text=True, timeout=120, cwd=cwd)
    assert run.stdout.strip().splitlines()[-1:] in (["CLEAN"], ["TRANSFORMERS"]), run.stderr
    return run.stdout.strip().splitlines()[-1]


def test_cli_never_imports_transformers_and_caches_loads(tiny, tmp_path, monkeypatch):
    """transformers runs only in the loader child process, and only on a cache miss."""
    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / "cache"))
    args = (tiny / "drafter-guessed", "--target", tiny / "target")
    assert probe(*args, "--ignore", "TF", cwd=tiny) == "CLEAN"
    assert not (tmp_path / "cache" / "loaded").exists()
    assert probe(*args, cwd=tiny) == "CLEAN"                 # cold: the child loads
    entries = list((tmp_path / "cache" / "loaded").iterdir())
    assert len(entries) == 1
    identity = (entries[0].stat().st_ino, entries[0].stat().st_mtime_ns)
    assert probe(*args, cwd=tiny) == "CLEAN"                 # same bytes: cached, no child
    assert (entries[0].stat().st_ino, entries[0].stat().st_mtime_ns) == identity
    assert probe(*args, "--no-cache", cwd=tiny) == "CLEAN"
    assert (entries[0].stat().st_ino, entries[0].stat().st_mtime_ns) == identity


def test_console_script_runs(tiny):
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    run = subprocess.run([exe, "check", str(tiny / "drafter-guessed"), "--target",
                          str(tiny / "target")], capture_output=True, text=True, timeout=120,
                         cwd=tiny)
    assert run.returncode == 1 and "DF114" in run.stdout
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                             cwd=tiny)
    assert version.returncode == 0 and "0.1.0" in version.stdout


def test_ctrl_c_exits_130(monkeypatch, capsys):
    """Mutation caught: Ctrl-C reported as a usage/internal error (exit 2)."""
    from drafter_lint import cli as module

    def interrupted():
        raise KeyboardInterrupt
    monkeypatch.setattr(module, "_rules", interrupted)
    assert module.main(["explain", "DF101"]) == 130       # main(argv) -> int
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["truncated-header", "link-to-a-device"])
def test_an_unreadable_weights_file_is_one_finding(cli, tiny, kind):
    """Mutation caught: the weights rules judging the tensors of an unread header as
    missing (five DF130 and three DF131 beside the one DL004), or a single-file
    checkpoint's device link reported against an index that does not exist."""
    import json as _json

    weights = tiny / "drafter" / "model.safetensors"
    weights.unlink()
    if kind == "truncated-header":
        weights.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    else:
        weights.symlink_to("/dev/zero")
    run = cli("check", tiny / "drafter", "--format", "json")
    result = _json.loads(run.out)["results"][0]
    errors = [f for f in result["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["file"]) for f in errors] == [("DL004", "model.safetensors")]
    skipped = {s["rule"]: s["reason"] for s in result["skipped"]}
    assert "DF130" in skipped and "cannot be read (DL004)" in skipped["DF130"]


@pytest.mark.parametrize("command", [["check", "org/näme"], ["check", "örg/name@main"],
                                     ["check", "{drafter}", "--format", "json", ">full"],
                                     ["rules", "--format", "json", ">full"]])
def test_former_internal_errors_are_specific_lines(tiny, command):
    """Mutation caught: a non-ASCII repo-like argument sent to huggingface_hub
    (HFValidationError) or a full standard output ending as "internal error"."""
    import subprocess
    import sys

    full = command[-1] == ">full"
    args = [a.replace("{drafter}", str(tiny / "drafter")) for a in command if a != ">full"]
    with open("/dev/full", "w") if full else open(os.devnull, "w") as out:
        run = subprocess.run([sys.executable, "-m", "drafter_lint", *args], stdout=out,
                             stderr=subprocess.PIPE, text=True, timeout=60, cwd=tiny,
                             env={**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9"})
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    assert ("cannot write the output" if full else "not a hub repo id") in run.stderr


def test_check_a_folder_of_checkpoints(cli, tiny, tmp_path):
    """Like `ruff check .`: a folder with no config.json at or above it stands for the
    checkpoints below it; `.git`, hidden folders and config.json files that are no model's
    are skipped, and each checkpoint is linted once. Mutation caught: DL001 on the parent
    folder (the old behaviour), or a tool's config.json linted as a drafter."""
    import json as _json
    import shutil

    models = tmp_path / "models"
    shutil.copytree(tiny / "drafter", models / "a")
    shutil.copytree(tiny / "drafter-guessed", models / "org" / "b")
    (models / "notes").mkdir()
    (models / "notes" / "config.json").write_text('{"editor": "vim"}')
    shutil.copytree(tiny / "drafter", models / ".git" / "hidden")
    run = cli("check", models, "--format", "json")
    paths = sorted(r["path"] for r in _json.loads(run.out)["results"])
    assert [os.path.relpath(p, models) for p in paths] == ["a", os.path.join("org", "b")]
    assert run.code == 1 and "2 checkpoints below it" in run.err


@pytest.mark.parametrize("stale", [".trash/old", "good/original"],
                         ids=["hidden-folder", "checkpoints-own-subfolder"])
def test_only_the_users_checkpoints_below_a_path_are_linted(cli, tiny, tmp_path, stale):
    """`check models/` lints the checkpoints below it, not those in its hidden folders (a
    `.trash/` or `.cache/` copy: an old download, an editor's backup), and stops at each
    checkpoint it finds (an `original/` copy of its config, a sub-model's folder belongs
    to that checkpoint); their errors would set the exit code. Mutations caught:
    `discover` entering hidden folders (round 2026-12-05c, M01: only SKIP_DIRS left out,
    the stale copy in `.trash/` linted and the run exiting 1 on it); `discover` going on
    below a checkpoint it found (round 2026-12-05d, M01: `dirs[:] = []` dropped,
    `good/original/` linted as a second checkpoint)."""
    import shutil

    models = tmp_path / "models"
    shutil.copytree(tiny / "drafter", models / "good")
    shutil.copytree(tiny / "drafter-guessed", models / stale)
    run = cli("check", models, "--format", "json")
    paths = [os.path.relpath(r["path"], models) for r in run.json()["results"]]
    assert paths == ["good"], paths
    assert run.code == 0, run.out


def test_a_faster_decoding_medusa_folder_below_a_path_is_a_checkpoint(cli, tiny, tmp_path):
    """FasterDecoding's Medusa heads ship a config.json with neither `model_type` nor
    `architectures` (`medusa_num_heads`, `medusa_num_layers`, `base_model_name_or_path`):
    `check models/` still finds the folder as a checkpoint and lints it as Medusa, beside
    the other drafters. Mutation caught (round 2026-12-05f, M15): `medusa_num_heads` left
    out of the keys that make a config.json a model's, so the Medusa folder was skipped as
    an app's config and its MED103 error never reported (exit 0)."""
    import shutil

    from sparse import load_manifest, materialize

    models = tmp_path / "models"
    made, _ = materialize(load_manifest("medusa-vicuna-7b"), tmp_path / "made")
    assert "model_type" not in json.loads((made / "config.json").read_text())
    shutil.copytree(made, models / "vicuna-7b-medusa")
    shutil.copytree(tiny / "drafter", models / "dflash")
    run = cli("check", models, "--format", "json")
    found = {os.path.relpath(r["path"], models): r for r in run.json()["results"]}
    assert sorted(found) == ["dflash", "vicuna-7b-medusa"], sorted(found)
    medusa = found["vicuna-7b-medusa"]
    assert medusa["family"] == "medusa" and "MED103" in {f["rule"] for f in medusa["findings"]}
    assert run.code == 1


def test_one_bad_path_does_not_stop_the_others(cli, tiny):
    """Mutation caught: the first unusable path ending the run before the others are
    linted, or its exit code hidden behind theirs."""
    import json as _json

    run = cli("check", tiny / "drafter", tiny / "nowhere", tiny / "drafter-guessed",
              "--format", "json")
    results = _json.loads(run.out)["results"]
    assert len(results) == 2 and run.code == 2
    assert run.err.count("\n") == 1 and "nowhere: no such file or folder" in run.err


@pytest.mark.parametrize("command", ["check", "fix", "inspect"])
def test_an_unreadable_target_tokenizer_is_a_note_not_a_crash(cli, tiny, command):
    """Mutation caught: the loop variable that shadowed the note callback
    (`for note in target.notes: note(note)`): a target with a broken tokenizer.json ended
    check, fix and inspect with an internal error."""
    (tiny / "target" / "tokenizer.json").write_text("{broken")
    run = cli(command, tiny / "drafter", "--target", tiny / "target")
    assert run.code in (0, 1) and "internal error" not in run.err, run.err
    assert "tokenizer" in run.err


def test_one_bad_folder_below_a_path_leaves_the_others_linted(cli, tiny):
    """`check DIR` with several checkpoints below it: one folder that cannot be linted (a
    broken settings file of its own) is one error line and exit 2; the others are
    linted and reported. Mutation caught (round 2026-12-05, M19): the run ending on that
    folder's error when one PATH was given (`len(paths) == 1` for `len(roots) == 1`)."""
    (tiny / "drafter-guessed" / ".drafter-lint.toml").write_text("select = [\n")
    run = cli("check", tiny, "--format", "json")
    assert run.code == 2, run.err
    linted = [r["path"] for r in run.json()["results"]]
    assert len(linted) >= 2 and not any(p.endswith("drafter-guessed") for p in linted), linted
    errors = [line for line in run.err.splitlines() if line.startswith("drafter-lint: error:")]
    assert len(errors) == 1 and ".drafter-lint.toml" in errors[0], run.err
