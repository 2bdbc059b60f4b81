"""Each release's command line as its own parser reads it (drafter_lint/runtimes/grammar.py,
built by tools/grammar.py), and the launch parser reading flags through it (LCH108)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from drafter_lint import runtimes
from drafter_lint.command import parse
from drafter_lint.runtimes import grammar

SPEC = json.dumps({"method": "dflash", "model": "drafter", "num_speculative_tokens": 15})
LAUNCH_LINES = json.loads((Path(__file__).parent / "data" / "launch_lines.json").read_text())


def _release(spec: str) -> runtimes.Release:
    return runtimes.parse(spec)


def _executed(runtime: str) -> list[str]:
    return [v for v in runtimes.PUBLISHED[runtime] if grammar.how(runtime, v) == "executed"]


@pytest.mark.parametrize("runtime", ["vllm", "sglang"])
def test_every_release_has_a_grammar_with_evidence(runtime):
    """Every recorded release is in the data with its parser executed and a grammar served
    for it. Mutation caught: a release missing from the data or recorded as not read (its
    lines then fall back to the gate's own lists), a release's grammar not served, or a
    run of an option without the file:line that defines it at its first and last
    release."""
    data = grammar._data(runtime)
    assert list(data["releases"]) == list(runtimes.PUBLISHED[runtime])
    assert _executed(runtime) == list(runtimes.PUBLISHED[runtime])
    for version in runtimes.PUBLISHED[runtime]:
        found = grammar.for_release(_release(f"{runtime}=={version}"))
        assert found is not None and found.spellings, version
    for entry in data["options"]:
        for run in entry["runs"]:
            for end in ("at", "last"):
                version, _, where = run[end].partition(" ")
                assert version in runtimes.PUBLISHED[runtime] and ":" in where, run


@pytest.mark.parametrize("runtime", ["vllm", "sglang"])
def test_every_option_of_every_release_resolves_to_itself(runtime):
    """Mutation caught: a spelling resolved as the prefix of another option instead of
    itself (`--model` read as `--model-impl`), an alias (`-tp`, `-sc`) dropped, or
    underscores normalized where the release's parser does not."""
    for version in _executed(runtime):
        found = grammar.for_release(_release(f"{runtime}=={version}"))
        for spelling, option in found.spellings.items():
            got = found.resolve(spelling)
            assert got.option is option and got.problem is None, (version, spelling)
            assert found.takes_value(spelling) == (option.takes != "none")


def _removals(runtime: str):
    """(spelling, last release with it, first release without it) of each removal."""
    out = []
    versions = _executed(runtime)
    for spelling in grammar._spelling_releases(runtime):
        having = grammar.releases_with(runtime, spelling)
        for before, after in zip(versions, versions[1:]):
            if before in having and after not in having:
                out.append((spelling, before, after))
    return out


@pytest.mark.parametrize("runtime", ["vllm", "sglang"])
def test_a_removed_flag_is_refused_from_its_removal_on_only(runtime):
    """Mutation caught: a removed flag accepted on the release that dropped it, or refused
    on the release before (the runs' since/until off by one), or the message not naming
    the release that removed it."""
    removals = _removals(runtime)
    assert removals
    newest = runtimes.PUBLISHED[runtime][-1]
    for spelling, before, after in removals:
        if not spelling.startswith("--") or spelling in ("--speculative-model",
                                                         "--num-speculative-tokens"):
            continue                                      # LCH107's, or a short alias
        old = grammar.for_release(_release(f"{runtime}=={before}"))
        assert old.resolve(spelling).option is not None
        for version in (after, newest):
            if spelling in grammar.releases_with(runtime, spelling) and \
                    version in grammar.releases_with(runtime, spelling):
                continue                                  # back again later
            found = grammar.for_release(_release(f"{runtime}=={version}"))
            got = found.resolve(spelling)
            if got.option is not None:
                continue           # now the unique prefix of a longer option: accepted
            if got.candidates:
                continue           # now a prefix of several: refused as ambiguous
            assert got.problem == f"unrecognized arguments: {spelling}"
            if version == after and before == _executed(runtime)[
                    _executed(runtime).index(after) - 1]:
                assert f"{grammar.LABEL[runtime]} {after} (last in {before})" in \
                    found.history(spelling)


def _problems(line: str, release: str) -> tuple:
    launch = parse(shlex.split(line), inherited={}, release=_release(release))
    return launch, list(launch.flag_problems)


def test_an_unknown_flag_is_refused_in_the_parsers_words():
    """Mutation caught: an unknown flag read silently (only the dry run would see it)."""
    launch, problems = _problems(f"vllm serve target --no-such-flag 1 --speculative-config "
                                 f"'{SPEC}'", "vllm==0.33.0")
    assert problems == ["unrecognized arguments: --no-such-flag"]
    assert launch.draft == "drafter" and launch.target == "target"


def test_a_unique_prefix_is_the_option_it_abbreviates():
    """Mutation caught: `--speculative-conf` refused (as the gate did without a grammar)
    or not read as --speculative-config, so the draft goes unlinted."""
    launch, problems = _problems(f"vllm serve target --speculative-conf '{SPEC}'",
                                 "vllm==0.33.0")
    assert problems == [] and (launch.draft, launch.tokens) == ("drafter", 15)
    with pytest.raises(Exception, match="abbreviation"):
        parse(shlex.split(f"vllm serve target --speculative-conf '{SPEC}'"), inherited={})


def test_an_ambiguous_prefix_lists_its_candidates():
    """Mutation caught: an ambiguous prefix resolved to one of its candidates."""
    _, problems = _problems("python -m sglang.launch_server --model-path target "
                            "--speculative-draft drafter --speculative-algorithm DFLASH",
                            "sglang==0.5.23")
    assert len(problems) == 1 and problems[0].startswith(
        "ambiguous option: --speculative-draft could match --speculative-draft-")


def test_a_value_outside_the_static_choices_is_refused():
    """Mutation caught: choices not checked, or checked against another release's."""
    _, problems = _problems(f"vllm serve target --dtype fp9 --speculative-config '{SPEC}'",
                            "vllm==0.33.0")
    assert problems and problems[0].startswith(
        "argument --dtype: invalid choice: 'fp9' (choose from 'auto',")
    _, problems = _problems(f"vllm serve target --dtype half --speculative-config '{SPEC}'",
                            "vllm==0.33.0")
    assert problems == []


def test_a_dropped_choice_names_the_last_release_that_took_it():
    """A value a release no longer offers is refused with where it was last accepted:
    `--mamba-cache-mode all` was a choice of vLLM 0.15.0 through 0.31.0, and SGLang's
    `--quantization marlin` of 0.4.2 through 0.5.19, so the message points at the newest
    release to pin for it. Mutation caught (round 2026-12-05f, M06): `choice_history`
    named the oldest release that accepted it (`older[0]`), "accepted up to vLLM 0.15.0",
    which suggests 0.16.0-0.31.0 refuse it too."""
    _, problems = _problems(f"vllm serve target --mamba-cache-mode all --speculative-config "
                            f"'{SPEC}'", "vllm==0.33.0")
    assert len(problems) == 1 and problems[0].startswith(
        "argument --mamba-cache-mode: invalid choice: 'all'"), problems
    assert problems[0].endswith("('all' was accepted up to vLLM 0.31.0)"), problems
    _, problems = _problems("python3 -m sglang.launch_server --model-path target --quantization"
                            " marlin --speculative-algorithm DFLASH "
                            "--speculative-draft-model-path drafter", "sglang==0.5.23")
    assert len(problems) == 1, problems
    assert problems[0].endswith("('marlin' was accepted up to SGLang 0.5.19)"), problems


def test_a_flag_never_takes_the_model():
    """Mutation caught: a store-true / BooleanOptionalAction flag reading the next word
    as its value, so the model is lost (on an old release and a new one)."""
    for release in ("vllm==0.8.2", "vllm==0.33.0"):
        launch, problems = _problems(f"vllm serve --enforce-eager target "
                                     f"--speculative-config '{SPEC}'", release)
        assert (launch.target, problems) == ("target", []), release


def test_an_unknown_release_keeps_the_gates_own_lists():
    """Mutation caught: a grammar guessed for a release none was read for."""
    launch = parse(shlex.split(f"vllm serve target --no-such-flag x --speculative-config "
                               f"'{SPEC}'"), inherited={}, release=None)
    assert launch.flag_problems == () and launch.flags_for is None


@pytest.mark.parametrize("entry", LAUNCH_LINES, ids=[f"{i}-{e['runtime']}"
                                                     for i, e in enumerate(LAUNCH_LINES)])
def test_a_published_line_the_server_accepts_draws_no_flag_problem(entry):
    """Each published line the server accepts, read by the newest release's grammar:
    no flag problem, and the same target, draft, method and tokens as the gate's own
    lists read. Mutation caught: a false LCH108 error (precision first), or a grammar
    reading that loses the model or the draft."""
    if entry["server"] != "accepts":
        return
    argv = shlex.split(entry["line"])
    plain = parse(argv, inherited={})
    clean, newest = [], None
    for version in reversed(_executed(entry["runtime"])):
        read = parse(argv, inherited={}, release=_release(f"{entry['runtime']}=={version}"))
        newest = newest or read
        if not read.flag_problems:
            clean.append(version)
            assert (read.target, read.draft, read.method, read.tokens) == \
                (plain.target, plain.draft, plain.method, plain.tokens), entry["line"]
            break
    if not clean:      # only flags of releases whose grammar could not be read
        for problem in newest.flag_problems:
            if "invalid choice" in problem:
                continue       # a choice added in a release not read
            flag = problem.split(": ", 1)[1].split(" ")[0]
            assert problem.startswith("unrecognized") and \
                not grammar.releases_with(entry["runtime"], flag), (entry["line"], problem)


def _constructed():
    import sys
    sys.path.insert(0, str(Path(__file__).parent / "oracle"))
    import grammar_lines
    return grammar_lines


REFUSED_KINDS = {"unknown", "removed", "ambiguous", "choice"}


def test_constructed_lines_cover_each_refusal_for_both_runtimes():
    """tests/data/grammar_lines.json holds, for each runtime, lines of every kind (unknown,
    removed and the same flag the release before, ambiguous, a bad choice, a unique prefix,
    published), and the real parser's recorded verdict on each is the one its kind means.
    Mutation caught: a constructed line edited (or a grammar re-recorded) so that it no
    longer exercises the refusal it is named for, or a line left without a verdict."""
    lines = _constructed()
    verdicts = lines.verdicts()
    assert [e["id"] for e in lines.LINES] == list(verdicts)
    kinds = REFUSED_KINDS | {"before-removal", "prefix", "published"}
    for runtime in ("vllm", "sglang"):
        assert kinds <= {e["kind"] for e in lines.LINES if e["release"].startswith(runtime)}
    for entry in lines.LINES:
        verdict = verdicts[entry["id"]]
        assert verdict["release"] == entry["release"]
        want = "refused" if entry["kind"] in REFUSED_KINDS else "accepted"
        assert verdict["verdict"] == want, (entry["id"], verdict)


@pytest.mark.parametrize("entry", _constructed().LINES, ids=lambda e: e["id"])
def test_the_grammar_reads_each_constructed_line_as_the_real_parser_did(entry):
    """The recorded verdict of the release's own parser (tests/data/oracle/
    grammar_verdicts.json, tools/grammar_oracle.py) against LCH108's reading of the line
    at that release, with no venv. Mutations caught: a change in the grammar reading
    (runtimes/grammar.py prefix matching, vLLM's `--a_b` spelling, choices, a run's
    since/until) or in command.py's flag reading that makes LCH108 refuse a line the
    parser accepts, accept one it refuses, or name another option or candidate set."""
    lines = _constructed()
    assert lines.disagreement(entry, lines.verdicts()[entry["id"]]) is None
