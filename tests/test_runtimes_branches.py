"""Branch by branch: the runtime layer (releases, runner path, loads, rows, grammar, keys),
the reports, the model card reader and its stage, collections, fix's apply/write/restyle,
findings, the registry, the engine and the dry run's pure helpers.

Each test names the mutation it kills (file:line as of the commit that added it); each was
checked by applying the mutation alone and seeing the test fail on an assertion.
"""

from __future__ import annotations

import json

import pytest

from drafter_lint import runtimes
from drafter_lint.runtimes import grammar, keys, loads, path
from drafter_lint.runtimes.path import Context

VLLM, SGLANG, REFERENCE = (runtimes.parse("vllm"), runtimes.parse("sglang"),
                           runtimes.parse("reference"))


def vllm(version: str) -> runtimes.Release:
    return runtimes.parse(f"vllm=={version}")


# --- runtimes/releases.py -----------------------------------------------------------------

def test_a_version_without_a_minor_number_is_refused():
    """`--runtime vllm==1` names no release. Mutation caught: the `version.count(".") < 1`
    bound off by one (`< 0`), which reads `1` as newer than the newest and answers with
    vLLM 0.34.0 (runtimes/releases.py:107)."""
    with pytest.raises(runtimes.UnknownRuntime, match=r"MAJOR\.MINOR"):
        runtimes.parse("vllm==1")


def test_an_unlisted_post_build_takes_the_listed_build_just_before_it():
    """SGLang 0.4.3.post5 is not listed: 0.4.3.post4, the listed build before it, answers
    for it. Mutation caught: `[0]` for `[-1]` in the post-build look-up, which took the
    oldest recorded release, 0.4.1.post4 (runtimes/releases.py:123)."""
    release = runtimes.parse("sglang==0.4.3.post5")
    assert (release.version, release.exact, release.label) == \
        ("0.4.3.post4", False, "SGLang 0.4.3.post5")
    assert "its facts are 0.4.3.post4's" in release.note


def test_a_version_between_releases_names_the_releases_around_it():
    """Mutation caught: `[:1]` for `[-1:]` of the releases below it, which named the
    oldest recorded release, 0.8.0, as the one below 0.10.3 (runtimes/releases.py:136)."""
    with pytest.raises(runtimes.UnknownRuntime,
                       match=r"no release 0\.10\.3 \(the releases around it are 0\.10\.2 and "
                             r"0\.11\.0\)"):
        runtimes.parse("vllm==0.10.3")


def test_a_release_older_than_the_oldest_is_named_as_asked():
    """vLLM 0.7.3 takes 0.8.0's facts, but findings name 0.7.3, as the note says.
    Mutation caught: `asked=version` dropped from the older-than-oldest release
    (runtimes/releases.py:133)."""
    release = runtimes.parse("vllm==0.7.3")
    assert release.version == "0.8.0"
    assert release.label == "vLLM 0.7.3"
    assert release.note.endswith("findings name 0.7.3")


def test_the_reference_takes_its_own_commit_and_no_other():
    """Mutation caught: the `version != recorded[-1]` test dropped, which refused
    `reference==44947fb`, the commit the facts are read from (runtimes/releases.py:99)."""
    assert runtimes.parse("reference==44947fb").version == "44947fb"
    with pytest.raises(runtimes.UnknownRuntime, match="not versioned"):
        runtimes.parse("reference==1.0")


def test_a_name_with_an_empty_version_is_refused():
    """Mutation caught: the `"==" in spec and not version` refusal dropped: `vllm==` read
    as `vllm`, the newest release (runtimes/releases.py:96)."""
    with pytest.raises(runtimes.UnknownRuntime, match="no version after '=='"):
        runtimes.parse("vllm==")


def test_three_releases_are_listed_with_commas_then_and():
    """Mutation caught: the `len(names) < 3` bound moved (`< 4`), which joined three
    labels with "and" twice (runtimes/releases.py:163)."""
    assert runtimes.labels([VLLM, SGLANG, REFERENCE]) == \
        "vLLM 0.34.0, SGLang 0.5.23 and the z-lab reference 44947fb"
    assert runtimes.labels([VLLM, SGLANG]) == "vLLM 0.34.0 and SGLang 0.5.23"
    assert runtimes.labels([VLLM]) == "vLLM 0.34.0"


def test_the_verb_after_also_agrees_with_several_releases():
    """Mutation caught: "also" dropped from the words skipped before the verb, which
    pluralised "also" and left "refuses" singular (runtimes/releases.py:184)."""
    assert runtimes.agree([VLLM, SGLANG], "also refuses to start") == \
        "vLLM 0.34.0 and SGLang 0.5.23 also refuse to start"
    assert runtimes.agree([VLLM], "also refuses to start") == \
        "vLLM 0.34.0 also refuses to start"


def test_only_a_known_verb_after_and_agrees():
    """"builds it and refuses" agrees both verbs; "and prompts" (no verb of _JOINED) is
    left alone. Mutation caught: the `in _JOINED` filter dropped, which wrote "and prompt"
    (runtimes/releases.py:188)."""
    assert runtimes.agree([VLLM, SGLANG], "builds it and refuses to start") == \
        "vLLM 0.34.0 and SGLang 0.5.23 build it and refuse to start"
    assert runtimes.agree([VLLM, SGLANG], "reads it and prompts") == \
        "vLLM 0.34.0 and SGLang 0.5.23 read it and prompts"


# --- runtimes/path.py ---------------------------------------------------------------------

QWEN3 = {"architectures": ["Qwen3ForCausalLM"]}


def runner(version: str, target=QWEN3, method="eagle3", draft=None, env=None) -> str:
    return path.on_path(vllm(version), Context(target, method, draft or {}, env or {})).runner


def test_v2_with_no_method_list_runs_every_method_it_does_not_refuse():
    """From vLLM 0.30.0 V2 lists no methods it runs, only those it refuses (medusa until
    0.33.0). Mutations caught: `methods and` dropped (an empty list refused every method:
    EAGLE-3 on V1), and the `refused_methods` operand dropped (Medusa on V2)
    (runtimes/path.py:111-112)."""
    assert runner("0.30.0", method="eagle3") == "v2"
    assert runner("0.30.0", method="medusa") == "v1"
    assert runner("0.33.0", method="suffix") == "v1"


def test_a_hybrid_pattern_target_is_hybrid():
    """A Nemotron-H style target (`hybrid_override_pattern`, no layer_types) is hybrid:
    vLLM 0.25.0 keeps it on V1 though V2 is the default for dense targets. Mutation
    caught: the `layers_block_type` / `hybrid_override_pattern` operand dropped
    (runtimes/path.py:125)."""
    target = {"architectures": ["NemotronHForCausalLM"], "hybrid_override_pattern": "M-M*"}
    assert runner("0.25.0", target, "dflash") == "v1"
    assert runner("0.25.0", {"architectures": ["X"], "layers_block_type": ["mamba"]},
                  "dflash") == "v1"
    assert runner("0.25.0", {"architectures": ["NemotronForCausalLM"]}, "dflash") == "v2"


def test_without_a_target_a_release_listing_qwen3_assumes_v2():
    """vLLM 0.22.0 lists Qwen3ForCausalLM (not `dense`): the assumed dense Qwen3 target
    takes V2. Mutation caught: `"Qwen3ForCausalLM" in rules.architectures` dropped from
    `_dense_default` (runtimes/path.py:159)."""
    release = path.on_path(vllm("0.22.0"), Context(None, "eagle3"))
    assert (release.runner, release.shown) == ("v2", True)
    assert release.why.startswith("assumed: a dense, unquantized target")
    assert path.on_path(vllm("0.21.0"), Context(None, "eagle3")).runner == "v1"


def test_a_release_without_v1_refuses_any_other_runner_value():
    """vLLM 0.34.0 has no V1: `VLLM_USE_V2_MODEL_RUNNER=1` is accepted, `0` refused.
    Mutation caught: the `== "1"` acceptance dropped, which refused 1 too
    (runtimes/path.py:52)."""
    assert path.refuses_runner_variable(vllm("0.34.0"), {path.ENV: "1"}) == ""
    assert "has no Model Runner V1" in path.refuses_runner_variable(vllm("0.34.0"),
                                                                    {path.ENV: "0"})
    assert "int()" in path.refuses_runner_variable(vllm("0.33.0"), {path.ENV: "true"})
    assert path.refuses_runner_variable(vllm("0.33.0"), {path.ENV: "0"}) == ""
    # before vLLM read it with int(): nothing recorded, nothing refused
    assert path.refuses_runner_variable(vllm("0.8.0"), {path.ENV: "true"}) == ""


# --- runtimes/loads.py --------------------------------------------------------------------

def test_the_last_release_of_a_loads_run_and_its_builds_are_recorded():
    """vLLM DFlash's `mask_embedding` placeholder is recorded from 0.25.0 up to and
    including 0.34.0, and for 0.34.0's local and post builds. Mutations caught: `<` for
    `<=` at the run's `until` (0.34.0 unrecorded) and the `base_version` dropped (a
    `+cu128` build unrecorded) (runtimes/loads.py:40, 35)."""
    cls = "DFlashQwen3ForCausalLM"
    assert loads.placeholders("vllm", "0.34.0", cls) == {"model.mask_embedding"}
    assert loads.placeholders("vllm", "0.34.0+cu128", cls) == {"model.mask_embedding"}
    assert loads.placeholders("vllm", "0.24.0", cls) == frozenset()
    assert loads.placeholders("vllm", "not-a-version", cls) is None


def test_a_load_leaves_only_what_is_beyond_the_placeholders():
    """Mutation caught: the `not in known` filter dropped from `left_at_init`, which
    listed the mask placeholder as left at its random init (runtimes/loads.py:51)."""
    cls = "DFlashQwen3ForCausalLM"
    assert loads.left_at_init("vllm", "0.33.0", cls, ["model.mask_embedding", "fc.weight"]) \
        == (["fc.weight"], True)
    assert loads.left_at_init("vllm", "0.8.0", cls, ["model.mask_embedding"]) == \
        (["model.mask_embedding"], False)


# --- runtimes/rows.py ---------------------------------------------------------------------

def test_the_reference_serves_no_family_the_table_does_not_know():
    """Mutation caught: `release.runtime != "reference"` replaced by True for families
    without `serves.` rows (runtimes/rows.py:40)."""
    assert runtimes.serves(VLLM, "no-such-family")
    assert not runtimes.serves(REFERENCE, "no-such-family")


def test_held_since_and_until_take_the_earliest_and_latest_of_many_rows():
    """The runner policy has a row per change, fourteen for vLLM. Mutations caught: `max`
    for `min` in `held_since` and `min` for `max` in `held_until`
    (runtimes/rows.py:81, 88)."""
    assert runtimes.held_since("runner.v2-policy") == "0.8.0"
    assert runtimes.held_until("runner.v2-policy", lambda p: not p.v1_removed) == "0.34.0"
    assert runtimes.held_until("runner.v2-policy", lambda p: p.default == "v1") == "0.22.0"


# --- runtimes/grammar.py ------------------------------------------------------------------

def g(spec: str) -> grammar.Grammar:
    found = grammar.for_release(runtimes.parse(spec))
    assert found is not None
    return found


def test_vllm_spells_underscores_as_dashes_only_before_the_field():
    """`--speculative_config.num_speculative_tokens=3` sets the JSON field as written.
    Mutation caught: the dash spelling applied past the first `.`, which named the field
    `num-speculative-tokens` (runtimes/grammar.py:120)."""
    found = g("vllm==0.34.0").resolve("--speculative_config.num_speculative_tokens=3")
    assert (found.option.name, found.field, found.value) == \
        ("--speculative-config", "num_speculative_tokens", "3")


def test_a_lone_dash_and_a_negative_number_are_values():
    """argparse reads `-` and `-1` as values when no option spells like a negative number.
    Mutations caught: the `word == "-"` test dropped, and the negative-number test dropped
    (runtimes/grammar.py:124, 131)."""
    found = g("vllm==0.34.0")
    assert not found.is_option("-")
    assert not found.is_option("-1")
    assert not found.is_option("-0.5")
    assert found.is_option("--max-model-len")


def test_dash_o_equals_level_is_the_level():
    """vLLM's FlexibleArgumentParser reads `-O=3` and `-O3` as `--optimization-level 3`.
    Mutation caught: the `=` skip dropped, which read the level as `=3`
    (runtimes/grammar.py:156)."""
    found = g("vllm==0.34.0")
    for word in ("-O=3", "-O3"):
        got = found.resolve(word)
        assert (got.option.name, got.value) == ("--optimization-level", "3"), word


def test_a_flag_added_later_names_the_release_that_added_it():
    """Mutation caught: `newer[-1]` for `newer[0]` in `history`, which said
    --optimization-level was added in 0.34.0 (runtimes/grammar.py:223)."""
    assert g("vllm==0.8.0").history("--optimization-level") == \
        "--optimization-level was added in vLLM 0.12.0"


def test_a_choice_added_later_names_the_first_release_that_takes_it():
    """Mutation caught: `newer[-1]` for `newer[0]` in `choice_history`, which said
    `--kv-cache-dtype bfloat16` is accepted from 0.34.0 (runtimes/grammar.py:248)."""
    found = g("vllm==0.8.0")
    option = found.resolve("--kv-cache-dtype").option
    assert found.bad_choice(option, "bfloat16") is not None
    assert found.choice_history(option, "bfloat16") == \
        "'bfloat16' is accepted from vLLM 0.11.0"
    assert found.choice_history(option, "no-such-dtype") == ""


def test_choices_that_are_not_strings_are_compared_as_converted():
    """argparse compares a value with a choice after conversion: "16" is the int choice 16,
    "False" the bool False. Mutation caught: `isinstance(choice, bool)` dropped, which
    converted "False" with bool() (True), so the choice True took it
    (runtimes/grammar.py:254)."""
    assert grammar._chosen("False", (True, False))
    assert not grammar._chosen("False", (True,))
    assert grammar._chosen("16", (8, 16))
    assert not grammar._chosen("x", (8, 16))
    assert not grammar._chosen("24", (8, 16))


def test_a_converted_option_has_no_static_choice_check():
    """A choice list after a type function (vLLM 0.34.0 `--moe-backend`) is not judged by
    the string. Mutation caught: the `option.converted` skip dropped
    (runtimes/grammar.py:195)."""
    found = g("vllm==0.34.0")
    option = found.resolve("--moe-backend").option
    assert option.converted
    assert found.bad_choice(option, "no-such-backend") is None
    plain = found.resolve("--max-lora-rank").option
    assert found.bad_choice(plain, "7").startswith("argument --max-lora-rank: invalid choice")


def test_speculative_config_keys_of_the_release_that_changed_them():
    """vLLM 0.34.0 added `custom_method` to SpeculativeConfig; 0.8.0 has no record.
    Mutation caught: `<` for `<=` at a run's first release, which gave 0.34.0 the keys of
    0.33.0 (runtimes/grammar.py:297)."""
    assert "custom_method" in grammar.speculative_keys(vllm("0.34.0"))
    assert "custom_method" not in grammar.speculative_keys(vllm("0.33.0"))
    assert grammar.speculative_keys(vllm("0.8.2")) is not None
    assert grammar.speculative_keys(vllm("0.8.0")) is None
    assert grammar.speculative_keys(SGLANG) is None


# --- runtimes/keys.py ---------------------------------------------------------------------

def test_a_fact_key_declared_twice_raises():
    """Mutation caught: the twice-declared test dropped from `keys.declare`, which let a
    second declaration change a key's type (runtimes/keys.py:157)."""
    with pytest.raises(ValueError, match="declared twice"):
        keys.declare("serves.dflash", keys.TEXT)
    assert keys.declared("serves.dflash") is keys.BOOL


# --- report/ ------------------------------------------------------------------------------

def _result(*findings, path="ckpt", **kw):
    from drafter_lint.findings import Result
    return Result(path=path, family="dflash", findings=list(findings), **kw)


def _finding(rule="DF114", severity="error", file="config.json", pointer="/x", line=3,
             fix=None, message="a message"):
    from drafter_lint.findings import Finding, Severity
    return Finding(pointer, message, file=file, severity=Severity(severity), fix=fix,
                   rule=rule, name="a-name", line=line, column=5 if line else None)


def test_text_report_counts_infos_without_a_plural_s():
    """Mutation caught: `sev != 'info'` dropped from the summary's plural, which wrote
    "2 infos" (report/text.py:39)."""
    from drafter_lint import report
    out = report.render("text", [_result(_finding(severity="info"), _finding(severity="info"),
                                         _finding(severity="warning"),
                                         _finding(severity="warning"))])
    assert out.splitlines()[-1] == "Found 2 warnings, 2 info in 1 checkpoint."


def test_text_report_marks_and_counts_safe_and_unsafe_fixes_apart():
    """A safe fix is marked `[*]` and counted for `fix`; an unsafe one is not marked and is
    counted for --unsafe-fixes. Mutations caught: `== SAFE` dropped from the mark (an
    unsafe fix marked), and `if unsafe` dropped from the "(N more ...)" clause
    (report/text.py:21, 48)."""
    from drafter_lint import report
    from drafter_lint.findings import replace
    safe = _finding(rule="DF101", fix=replace("/a", 1, "safe"))
    unsafe = _finding(rule="DF102", fix=replace("/b", 2, "unsafe"))
    lines = report.render("text", [_result(safe, unsafe)]).splitlines()
    assert lines[0].startswith("ckpt/config.json:3:5: DF101 [*] error")
    assert lines[1].startswith("ckpt/config.json:3:5: DF102 error")
    assert lines[-1] == "[*] 1 fixable with `drafter-lint fix` (1 more with --unsafe-fixes)."
    lines = report.render("text", [_result(safe)]).splitlines()
    assert lines[-1] == "[*] 1 fixable with `drafter-lint fix`."


def test_text_report_of_unsafe_fixes_only_points_at_unsafe_fixes(cli, tiny):
    """Mutation caught: the `elif unsafe` line dropped, which said nothing of the three
    unsafe fixes of tiny-qwen3.6's guessed drafter (report/text.py:49-51)."""
    run = cli("check", tiny / "drafter-guessed")
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[-1] == ("3 fixable with `drafter-lint fix --unsafe-fixes` (the rules' own "
                         "guesses: review them).")
    assert not any("[*]" in line for line in lines)


def test_text_report_says_one_skipped_check_in_the_singular(cli, tiny):
    """Mutation caught: `len(codes) > 1` for the plural made `>= 1`, which wrote "skipped
    1 checks" (report/text.py:32)."""
    run = cli("check", tiny / "drafter")
    assert f"{tiny / 'drafter'}: skipped 1 check: no tokenizer.json" in run.out
    assert "skipped 8 checks: no target given" in run.out


def test_text_report_colours_only_when_asked():
    """Mutation caught: `if colour` dropped from `style` (report/text.py:16)."""
    from drafter_lint import report
    results = [_result(_finding())]
    assert "\x1b[" in report.render("text", results, colour=True)
    assert "\x1b[" not in report.render("text", results, colour=False)


def test_github_annotations_of_a_finding_without_a_line_and_of_an_info():
    """A finding with no line (a whole-file one) has no line or col property; an info is a
    `::notice`; `:` and `,` in properties are escaped. Mutations caught: the `if f.line is
    not None` test dropped (`line=None`), and the `,` escape dropped
    (report/github.py:28, 20)."""
    from drafter_lint import report
    out = report.render("github", [_result(_finding(line=None, severity="info",
                                                    file="a,b:c.json"))])
    assert out == ("::notice file=ckpt/a%2Cb%3Ac.json,title=DF114 a-name::a message\n")


def test_sarif_lists_a_repo_that_could_not_be_read_as_an_artifact():
    """A collection repo with an error (no commit) is an artifact carrying its error, and
    the run's invocation fails. Mutation caught: `or r.error` dropped from the artifacts'
    filter (report/sarif.py:69)."""
    from drafter_lint import report
    from drafter_lint.findings import Result
    from drafter_lint.rules import RULES
    results = [Result(path="org/bad", family="unknown", error="repository not found"),
               _result(_finding(line=None), path="org/good@abc", commit="abc",
                       verdicts={"vLLM 0.34.0": "1 error"})]
    doc = json.loads(report.render("sarif", results, rules=RULES))
    run = doc["runs"][0]
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["org/bad", "org/good@abc"]
    assert run["artifacts"][0]["properties"] == {"family": "unknown",
                                                 "error": "repository not found"}
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "region" not in run["results"][0]["locations"][0]["physicalLocation"]


def test_findings_in_config_json_come_before_other_files():
    """Mutation caught: `f.file != "config.json"` dropped from `locate`'s sort, which put
    README.md (an upper-case R sorts first) before config.json (report/common.py:18)."""
    from drafter_lint import report
    result = _result(_finding(file="README.md", line=1), _finding(file="config.json", line=9),
                     _finding(file="a.json", line=2))
    report.locate(result, {})
    assert [f.file for f in result.findings] == ["config.json", "README.md", "a.json"]


def test_fail_on_a_severity_counts_that_severity():
    """Mutation caught: `>=` for `>` in `failing` (report/common.py:37)."""
    from drafter_lint import report
    from drafter_lint.findings import Severity
    results = [_result(_finding(severity="warning"))]
    assert report.failing(results, Severity.WARNING)
    assert not report.failing(results, Severity.ERROR)


def test_text_report_of_unread_repos_says_nothing_was_checked_and_names_assumed_paths():
    """Only unreadable repos: nothing passed. A result's assumed runner path is printed.
    Mutations caught: the `read == 0 and results` branch dropped ("All checks passed (0
    checkpoints)"), and the `result.paths` lines dropped (report/text.py:52, 25)."""
    from drafter_lint import report
    from drafter_lint.findings import Result
    out = report.render("text", [Result(path="org/x", family="unknown", error="gone")])
    assert out == "Nothing was checked: no checkpoint could be read.\n"
    out = report.render("text", [_result(paths=["vLLM 0.25.0: its V2 model runner, why"])])
    assert out.splitlines() == ["ckpt: path assumed: vLLM 0.25.0: its V2 model runner, why",
                                "All checks passed (1 checkpoint)."]


# --- card.py ------------------------------------------------------------------------------

def _card(body: str, info: str = "python"):
    from drafter_lint import card
    return card.read(f"# card\n\n```{info}\n{body}\n```\n")


def test_an_sglang_engine_call_is_read_as_its_launch_line():
    """`sglang.Engine(...)` with a speculative algorithm reads as `python -m
    sglang.launch_server` with its model path, its `speculative_*` keywords and its
    context length, nothing else. Mutations caught: `key == "context_length"` dropped,
    `key.startswith("speculative_")` dropped (card.py:312)."""
    found = _card('import sglang\n'
                  'engine = sglang.Engine(model_path="Qwen/Qwen3-8B", mem_fraction_static=0.7,\n'
                  '    speculative_algorithm="EAGLE3", speculative_num_steps=3,\n'
                  '    context_length=4096)')
    (line,) = found.lines
    assert (line.line, line.column) == (5, 10)
    assert line.argv == ("python", "-m", "sglang.launch_server", "--model-path",
                         "Qwen/Qwen3-8B", "--speculative-algorithm", "EAGLE3",
                         "--speculative-num-steps", "3", "--context-length", "4096")


def test_an_engine_without_a_speculative_algorithm_or_a_model_path():
    """An Engine with no speculative algorithm is no drafter launch; one without a model
    path is kept with its reason. Mutations caught: the `speculative_algorithm not in
    kwargs` skip dropped, and the model-path refusal dropped (card.py:263-264, 314-315)."""
    assert _card('e = Engine(model_path="m")').lines == []
    (line,) = _card('e = Engine(speculative_algorithm="EAGLE3")').lines
    assert line.problem == "Engine(...) names no model_path; not read" and not line.argv


def test_an_llm_calls_flags_are_passed_as_the_cli_spells_them():
    """`hf_overrides={...}` becomes `--hf-overrides` with JSON (what the CLI parses), a
    number its text. Mutation caught: the dict's `json.dumps` dropped, which passed
    Python's repr (`{'a': True}`) (card.py:305)."""
    (line,) = _card('llm = LLM(model="m", speculative_config={"method": "mtp"},\n'
                    '          max_model_len=4096, hf_overrides={"a": True})').lines
    assert line.argv == ("vllm", "serve", "m", "--speculative-config", '{"method": "mtp"}',
                         "--max-model-len", "4096", "--hf-overrides", '{"a": true}')


@pytest.mark.parametrize("call,problem", [
    ('LLM(speculative_config={"method": "mtp"})', "LLM(...) names no model; not read"),
    ('LLM(model="m", speculative_config="mtp")', "speculative_config is not a dict; not read"),
    ('LLM(model="m", speculative_config=make())', "speculative_config is not a literal; not read"),
    ('LLM(model=m, speculative_config=s)', "speculative_config is the variable `s`; not read"),
])
def test_an_llm_call_that_cannot_be_read_keeps_its_reason(call, problem):
    """Mutations caught: each refusal of `_llm` dropped (no model, a spec that is no dict)
    and `_value`'s literal_eval refusal turned into a value (card.py:289, 294, 299)."""
    (line,) = _card(f"x = {call}").lines
    assert line.problem == problem and line.argv == ()


def test_a_python_block_that_is_not_python_is_kept_at_its_line():
    """Mutation caught: the syntax error's line not added to the block's start (the
    finding placed on the block's first line) (card.py:254)."""
    (line,) = _card('from vllm import LLM\nllm = LLM(model="m",\nx = ]').lines
    assert line.problem.startswith("not Python syntax")
    assert (line.line, line.text) == (6, "x = ]")


def test_docker_and_sudo_lines_read_as_the_command_they_run():
    """`docker run ... IMAGE python3 -m sglang.launch_server` runs the image's command;
    `sudo -u USER` takes a value; `docker run ... vllm/vllm-openai vllm serve` is not
    `vllm serve` twice. Mutations caught: "python3" dropped from the image commands read,
    SUDO_VALUES' two-word skip made one word, `rest[:2] == ["vllm", "serve"]` dropped
    (card.py:201-205, 194)."""
    found = _card(
        "docker run --gpus all lmsysorg/sglang:latest python3 -m sglang.launch_server "
        "--model-path m --speculative-algorithm EAGLE3\n"
        "sudo -u svc vllm serve m --speculative-config '{}'\n"
        "docker run --gpus all vllm/vllm-openai:v0.9.0 vllm serve m --speculative-config '{}'",
        "bash")
    assert [c.argv[:3] for c in found.lines] == [("python3", "-m", "sglang.launch_server"),
                                                 ("vllm", "serve", "m"),
                                                 ("vllm", "serve", "m")]


def test_a_prompt_moves_the_column_and_a_commented_block_is_not_read():
    """Mutations caught: `column + 2` after a `$ ` prompt dropped (the finding placed on
    the `$`), and a block inside `<!-- -->` read (card.py:130, 99-104)."""
    from drafter_lint import card
    text = ("<!--\n```bash\nvllm serve hidden --speculative-config '{}'\n```\n-->\n"
            "```bash\n  $ vllm serve shown --speculative-config '{}'\n```\n")
    assert [(c.line, c.column, c.argv[2]) for c in card.read(text).lines] == [(7, 5, "shown")]


def test_a_front_matters_relation_is_read_only_as_text():
    """Mutation caught: the `isinstance(relation, str)` test dropped (card.py:53)."""
    from drafter_lint import card
    found = card.read("---\nbase_model: [a/b, 3]\nbase_model_relation: [x]\n---\nbody\n")
    assert (found.bases, found.relation, found.base_at) == (("a/b",), None, 2)
    found = card.read("---\nbase_model: a/b\nbase_model_relation: quantized\n---\n")
    assert found.relation == "quantized"


# --- fix/apply.py, fix/write.py, fix/restyle.py -------------------------------------------

FIX_ALL = ("--unsafe-fixes",)


def test_fix_output_onto_an_existing_file_is_refused_as_not_a_folder(cli, tiny, tmp_path):
    """Mutation caught: the exists-and-is-not-a-folder refusal dropped, which staged the
    copy and failed renaming it onto the file with an OS error's words
    (fix/apply.py:174-176)."""
    target = tmp_path / "a-file"
    target.write_text("keep me\n")
    run = cli("fix", tiny / "drafter-guessed", *FIX_ALL, "--output", target)
    assert run.code == 2
    assert f"--output {target} exists and is not a folder; name a new or empty folder" \
        in run.err
    assert target.read_text() == "keep me\n"


def test_fix_output_notes_a_linked_folder_and_copies_nothing_through_it(cli, tiny, tmp_path):
    """A link to a folder inside the checkpoint is not followed, and the note says so.
    Mutation caught: linked folders not moved to the file list, so `os.walk` skipped them
    without a word (fix/apply.py:246-247)."""
    source = tiny / "drafter-guessed"
    (source / "sub").mkdir()
    (source / "sub" / "x.txt").write_text("x\n")
    (source / "linked").symlink_to(source / "sub")
    out = tmp_path / "out"
    run = cli("fix", source, *FIX_ALL, "--output", out)
    assert run.code == 1, run.out + run.err           # DF122 has no fix: still an error
    notes = [line for line in run.out.splitlines() if line.startswith("not copied")]
    assert notes == ["not copied linked: a link to a folder; not followed"]
    assert (out / "sub" / "x.txt").read_text() == "x\n" and not (out / "linked").exists()


def test_the_read_back_compares_numbers_bools_lists_and_objects_as_loaded():
    """`_same` (the read-back's test): 5 is 5.0, 1 is not True, a list must keep its
    length, an object may gain keys. Mutations caught: `not isinstance(theirs, bool)`
    dropped (True read back for 1 passed), and the length test dropped (fix/apply.py:429,
    433)."""
    from drafter_lint.fix.apply import _same
    assert _same(5, 5.0) and _same({"a": [1, 2]}, {"a": [1.0, 2], "b": 0})
    assert not _same(1, True)
    assert not _same([1], [1, 2])
    assert not _same(True, 1)
    assert not _same("1", 1)


def test_the_read_back_finds_a_field_transformers_moved():
    """transformers 5 loads `rope_scaling.factor` as `rope_parameters.factor` and
    `torch_dtype` as `dtype`. Mutation caught: the rest of the pointer dropped after the
    moved head (fix/apply.py:419)."""
    from drafter_lint.fix.apply import _loaded_at
    loaded = {"dtype": "bfloat16", "rope_parameters": {"factor": 4.0, "rope_theta": 1e6}}
    assert _loaded_at(loaded, "/torch_dtype") == "bfloat16"
    assert _loaded_at(loaded, "/rope_scaling/factor") == 4.0
    assert _loaded_at(loaded, "/rope_theta") == 1e6
    with pytest.raises(KeyError):
        _loaded_at(loaded, "/hidden_size")


def test_fix_lines_show_values_up_to_80_characters_whole():
    """Mutation caught: `<= 80` made `< 80` in `_show`, which cut a value of exactly 80
    characters (fix/apply.py:45)."""
    from drafter_lint.fix.apply import _first_difference, _show
    assert _show("x" * 78) == json.dumps("x" * 78)                  # 80 characters
    assert _show("x" * 79) == json.dumps("x" * 79)[:77] + "..."
    assert _first_difference(b"abc", b"abcd") == 3
    assert _first_difference(b"abx", b"aby") == 2


def test_backups_of_one_second_are_listed_in_the_order_written(tmp_path, monkeypatch):
    """`.bak`, `.1.bak`, ..., `.10.bak`: the tenth after the ninth. Mutation caught: the
    counter compared as text (`.10` before `.2`) (fix/write.py:156)."""
    from drafter_lint.fix import write
    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / "cache"))
    config = tmp_path / "config.json"
    config.write_text("{}")
    folder = write.backup_folder(config)
    names = ["config.json.20261206T000000Z.bak"] + \
        [f"config.json.20261206T000000Z.{n}.bak" for n in range(1, 12)] + \
        ["config.json.20261206T000001Z.bak"]
    for name in reversed(names):
        (folder / name).write_text("{}")
    assert [p.name for p in write.backups_of(config)] == names


def test_restyle_adds_a_key_in_the_files_own_separators():
    """A one-member object on one line gains `, "b": 2` on that line; a tight file stays
    tight. Mutations caught: the one-line test of a lone sibling dropped (always a new
    line), `_after`'s look at the character after the mark dropped (always spaced), and
    the CRLF line ending not kept (a LF line added to a CRLF file)
    (fix/restyle.py:106, 54, 29)."""
    from drafter_lint.fix.restyle import restyle
    assert restyle('{"a": 1}', {"a": 1}, {"a": 1, "b": 2}) == '{"a": 1, "b": 2}'
    assert restyle('{"a":1,"c":3}', {"a": 1, "c": 3}, {"a": 1, "c": 3, "b": [1, 2]}) == \
        '{"a":1,"c":3,"b":[1,2]}'
    assert restyle('{\r\n  "a": 1\r\n}', {"a": 1}, {"a": 1, "b": 2}) == \
        '{\r\n  "a": 1,\r\n  "b": 2\r\n}'


def test_a_key_added_to_an_empty_object_falls_back_to_a_whole_serialization():
    """Mutation caught: the `_Fallback` for an object without siblings dropped: the
    IndexError escaped `rewrite` instead of the fallback answering (fix/restyle.py:98)."""
    from drafter_lint.fix.restyle import rewrite
    assert rewrite('{"a": {}}', {"a": {}}, {"a": {"b": 1}}, lambda new: "FALLBACK") == \
        "FALLBACK"


# --- findings.py, registry.py -------------------------------------------------------------

def test_a_read_error_is_described_in_one_plain_sentence():
    """Mutations caught: the OSError sentence's first letter not lowered, and the `[:3]`
    bound of the lines kept (findings.py:31, 33)."""
    from drafter_lint.findings import Applicability, describe
    assert describe(FileNotFoundError(2, "No such file or directory", "x")) == \
        "no such file or directory"
    assert describe(ValueError("first\n\n  second \nthird\nfourth")) == "first; second; third"
    assert describe(ValueError("")) == "ValueError"
    assert describe(RecursionError("maximum recursion depth")) == "nested too deeply to read"
    assert describe(UnicodeDecodeError("utf-8", b"ab\xff", 2, 3, "bad")) == \
        "not UTF-8 text (byte 2)"
    assert Applicability.of("display-only") is Applicability.DISPLAY_ONLY


def _rule(**kw):
    from drafter_lint.findings import Severity
    from drafter_lint.registry import Rule

    def check(facts):
        """Doc."""
        yield Severity.INFO

    base = {"code": "XX101", "name": "x", "severity": Severity.WARNING, "family": "dflash",
            "needs": ("config",), "fix": "sometimes", "applies": None, "summary": "s",
            "doc": "Doc.", "check": check}
    return Rule(**{**base, **kw})


def test_a_rules_page_says_its_status_and_its_other_severities():
    """Mutations caught: the "(never runs)" clause of a removed rule dropped, and the
    severities a rule's source names beyond its default not listed (registry.py:108,
    74)."""
    from drafter_lint.registry import page
    text = page(_rule(status="removed", replaced_by="XX102", why="vLLM 0.30.0 fixed it"))
    assert "Status: removed, replaced by XX102: vLLM 0.30.0 fixed it (never runs)" in text
    assert "Severity: warning (also info)" in text
    assert "(runs only when selected by its code)" in page(_rule(status="preview", why="w"))


def test_a_finding_whose_fix_exceeds_the_rules_declared_applicability_is_named():
    """Mutation caught: `>` for the applicability test made `>=`, which flagged a fix at
    the declared level (registry.py:171)."""
    from drafter_lint.findings import DISPLAY_ONLY, SAFE, UNSAFE, Finding, replace
    from drafter_lint.registry import undeclared_fix
    rule = _rule(applies=UNSAFE)
    assert undeclared_fix(rule, Finding("/a", "m", fix=replace("/a", 1, UNSAFE))) is None
    assert undeclared_fix(rule, Finding("/a", "m", fix=replace("/a", 1, DISPLAY_ONLY))) is None
    assert undeclared_fix(rule, Finding("/a", "m", fix=replace("/a", 1, SAFE))) == \
        "XX101 declares fixes up to unsafe; safe at '/a'"


# --- collection.py ------------------------------------------------------------------------

def test_the_collection_table_of_linted_and_unread_repos():
    """Mutations caught: the commit cut at 8 characters, not 12; a one-release range
    written `0.34.0-0.34.0`; an empty range list written "" instead of "none"; "1 repos";
    the `@commit` kept in the repo column (collection.py:259, 282, 284, 272, 254)."""
    from drafter_lint import collection
    from drafter_lint.findings import Result
    good = Result(path="org/a@0123456789abcdef", family="dflash", commit="0123456789abcdef",
                  verdicts={"vLLM 0.34.0": "ok"},
                  ranges={"vllm": {"ranges": [{"from": "0.26.0", "to": "0.33.0"},
                                              {"from": "0.34.0", "to": "0.34.0"}]}},
                  findings=[_finding(severity="warning")])
    none = Result(path="org/b@fedcba9876543210", family="dflash", commit="fedcba9876543210",
                  verdicts={"vLLM 0.34.0": "1 error"}, ranges={"vllm": {"ranges": []}},
                  findings=[_finding()])
    lines = collection.table([good, none]).splitlines()
    assert lines[0].split() == ["repo", "commit", "family", "vLLM", "0.34.0", "vLLM",
                                "releases", "errors", "warnings"]
    assert lines[1].split() == ["org/a", "0123456789ab", "dflash", "ok",
                                "0.26.0-0.33.0,", "0.34.0", "0", "1"]
    assert lines[2].split() == ["org/b", "fedcba987654", "dflash", "1", "error", "none",
                                "1", "0"]
    assert lines[3] == "2 repos: 2 linted, 0 not read."
    bad = Result(path="org/c", family="unknown", error="repository not found")
    lines = collection.table([bad]).splitlines()
    assert lines[-1] == "1 repo: 0 linted, 1 not read."
    assert lines[1].split()[:3] == ["org/c", "-", "-"] and "repository not found" in lines[1]
    assert collection.problems([bad, good]) == ["org/c: repository not found"]


# --- dryrun/verdict.py, dryrun/weights.py -------------------------------------------------

def test_a_refusal_by_the_argument_parser_says_so_and_a_long_message_is_cut():
    """Mutations caught: the SystemExit branch dropped (its code as the message), and the
    500-character cut moved (dryrun/verdict.py:11, 14)."""
    from drafter_lint.dryrun.verdict import refusal
    assert refusal("parse", SystemExit(2), "2", "x.py:1") == {
        "verdict": "refused", "stage": "parse", "error_type": "SystemExit",
        "message": "the argument parser exited (2)", "where": ""}
    out = refusal("load", ValueError("v"), "m" * 600, "y.py:2")
    assert (len(out["message"]), out["where"]) == (500, "y.py:2")


def _safetensors(path, header: dict, extra: bytes = b"") -> None:
    data = json.dumps(header).encode()
    path.write_bytes(len(data).to_bytes(8, "little") + data + extra)


def test_the_dry_runs_header_reader_checks_bounds_and_skips_metadata(tmp_path):
    """Mutations caught: `length > size - 8` dropped (a header past the file's end read as
    truncated JSON), the `__metadata__` skip dropped, and the shape bound `0 <= n`
    dropped (dryrun/weights.py:42, 50, 54)."""
    from drafter_lint.dryrun import weights
    good = tmp_path / "good.safetensors"
    _safetensors(good, {"__metadata__": {"format": "pt"},
                        "w": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]}},
                 b"\0" * 12)
    assert weights.header(str(good)) == {"w": ("BF16", [2, 3])}
    short = tmp_path / "short.safetensors"
    short.write_bytes((1000).to_bytes(8, "little") + b"{}")
    with pytest.raises(weights.BadHeader, match="header length 1000 is beyond the file"):
        weights.header(str(short))
    negative = tmp_path / "negative.safetensors"
    _safetensors(negative, {"w": {"dtype": "F32", "shape": [-1]}})
    with pytest.raises(weights.BadHeader, match="has no valid dtype and shape"):
        weights.header(str(negative))


def test_the_dry_run_reads_only_safetensors_files_inside_the_folder(tmp_path):
    """Mutation caught: the `realpath(...).startswith(real + os.sep)` test dropped, which
    fed a linked file from outside the checkpoint to the loader (dryrun/weights.py:67)."""
    from drafter_lint.dryrun import weights
    folder, outside = tmp_path / "ckpt", tmp_path / "outside.safetensors"
    folder.mkdir()
    outside.write_bytes(b"")
    for name in ("b.safetensors", "a.safetensors", "notes.txt"):
        (folder / name).write_bytes(b"")
    (folder / "c.safetensors").symlink_to(outside)
    assert weights.safetensors_files(str(folder)) == [str(folder / "a.safetensors"),
                                                      str(folder / "b.safetensors")]


def test_the_load_record_lists_shared_parameters_by_whole_name_parts():
    """A parameter the release shares from the target after loading (`lm_head`) is
    listed apart; `lm_head_extra.weight` is not `lm_head`. Mutation caught: the `+ "."`
    of the prefix test dropped (dryrun/weights.py:195)."""
    from drafter_lint.dryrun.weights import Recorder

    class Param:
        def numel(self):
            return 4

    class Model:
        def named_parameters(self):
            return [(n, Param()) for n in ("fc.weight", "lm_head.weight",
                                           "lm_head_extra.weight", "norm.weight")]

    recorder = Recorder()
    list(recorder.wrap_iterator([("norm.weight", object()), ("unused", object())]))
    recorder.filled["norm.weight"] = ("norm.weight", "bfloat16", [4])
    recorder.taken["norm.weight"] = "norm.weight"
    out = recorder.result(Model(), shared=("lm_head",))
    assert out == {"tensors": 2, "unfilled": ["fc.weight", "lm_head_extra.weight"],
                   "shared_from_target": ["lm_head.weight"], "dropped": ["unused"],
                   "dtype_changes": [], "took": {"norm.weight": "norm.weight"}}


def test_the_load_record_names_the_parameter_each_tensor_filled():
    """`took` maps each tensor a loader was handed to the parameter it filled, the first
    one where a tensor fills two (the name maps of loads.json are built from it).
    Mutations caught: the parameter recorded under its own name instead of the tensor's,
    and a later parameter overwriting the first (`setdefault` made an assignment)."""
    from types import SimpleNamespace

    from drafter_lint.dryrun.weights import Recorder

    params = {n: SimpleNamespace(numel=lambda: 4) for n in ("model.fc.weight", "model.b")}
    model = SimpleNamespace(named_parameters=lambda: list(params.items()))
    recorder = Recorder()
    recorder.install(model, lambda param, tensor: None)
    tensor = SimpleNamespace(dtype="bfloat16", shape=(4,))
    for _ in recorder.wrap_iterator([("fc.weight", tensor)]):
        params["model.fc.weight"].weight_loader(params["model.fc.weight"], tensor)
        params["model.b"].weight_loader(params["model.b"], tensor)
    assert recorder.result(model)["took"] == {"fc.weight": "model.fc.weight"}


# --- card_lint.py -------------------------------------------------------------------------

def _cohere_drafter(tmp_path, pin_line: str):
    folder = tmp_path / "drafter"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(
        {"model_type": "cohere2_moe", "architectures": ["Cohere2MoeForCausalLM"]}))
    (folder / "README.md").write_text(f"# drafter\n\n```sh\n{pin_line}\n```\n")
    return folder


def test_a_lower_bound_pin_is_judged_as_the_oldest_release_it_allows(cli, tmp_path):
    """`vllm>=0.15.0` allows 0.15.0, which cannot load a cohere2_moe config (DL014, as in
    tests/test_card.py's `==` pin). Mutation caught: the `pin_op == "=="` test dropped,
    which said the card installs 0.15.0 (card_lint.py:128)."""
    folder = _cohere_drafter(tmp_path, "pip install 'vllm>=0.15.0'")
    found = cli("check", folder, "--format", "json").json()["results"][0]["findings"]
    hits = [f for f in found if f["rule"] == "DL014"]
    assert [(f["file"], f["line"]) for f in hits] == [("README.md", 4)], found
    assert hits[0]["message"].startswith("with vLLM 0.15.0, the oldest release the card "
                                         "allows: "), hits[0]["message"]


def test_a_pin_of_another_runtime_than_the_one_asked_is_not_judged(cli, tmp_path):
    """`--runtime sglang` speaks for SGLang: the card's vLLM pin is not judged. Mutation
    caught: the `options.runtime.runtime != runtime` skip dropped (card_lint.py:111)."""
    folder = _cohere_drafter(tmp_path, "pip install vllm==0.15.0")
    found = cli("check", folder, "--runtime", "sglang", "--format", "json").json()
    assert not [f for f in found["results"][0]["findings"] if f["file"] == "README.md"]
    found = cli("check", folder, "--runtime", "vllm==0.34.0", "--format", "json").json()
    assert [f["rule"] for f in found["results"][0]["findings"]
            if f["file"] == "README.md"] == ["DL014"]
