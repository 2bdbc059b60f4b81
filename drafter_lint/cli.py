"""Command line: check, fix, gate, inspect, explain, rules. Exit 0 clean, 1 findings, 2
usage/IO/internal.

The one module that imports the engine inside its commands, so that `--version`, `--help`,
`rules` and `explain` start without it (tests/test_house.py holds the start-up time).
"""

from __future__ import annotations

import dataclasses
import difflib
import errno
import functools
import json
import math
import os
import sys
from pathlib import Path

import click

from drafter_lint import __version__
from drafter_lint import family as families
from drafter_lint.errors import DrafterLintError
from drafter_lint.errors import UsageError as Abort  # one-line exit 2
from drafter_lint.report import REPORTERS

SEVERITIES = ("error", "warning", "info")


def _use_colour(choice: str, stream=None) -> bool:
    """--color always/never, else the ecosystem's conventions: NO_COLOR (any value) wins,
    then FORCE_COLOR (set and not "0"), then TERM=dumb, then whether the stream (stdout)
    is a tty."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    return os.environ.get("TERM") != "dumb" and (stream or sys.stdout).isatty()


def _note(message: str) -> None:
    from drafter_lint.pipeline import stderr_note
    stderr_note(message)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="drafter-lint")
def cli():
    """Lint speculative-decoding drafter checkpoints before you serve them."""


def inputs(function):
    """Options shared by check and fix: what to hold the checkpoint against."""
    options = [
        click.option("--target", "target_arg", metavar="PATH|REPO[@REV]",
                     help="The target model the drafter serves: a folder or hub repo."),
        click.option("--reference", "reference_arg", metavar="PATH|REPO[@REV]",
                     help="The published config to compare with: a folder or hub repo."),
        click.option("--from-hub", "from_hub", metavar="REPO[@REV]",
                     help="Like --reference REPO, plus the model card (base_model names "
                          "the target when --target is absent)."),
        click.option("--offline", is_flag=True,
                     help="Use the local hub cache only (also HF_HUB_OFFLINE=1)."),
        click.option("--no-cache", is_flag=True,
                     help="Do not use or store cached transformers load results."),
        click.option("--select", multiple=True, metavar="CODES",
                     help="Only these rule codes or prefixes (comma-separated, repeatable)."),
        click.option("--ignore", multiple=True, metavar="CODES",
                     help="Skip these rule codes or prefixes (comma-separated, repeatable)."),
        click.option("--fail-on", type=click.Choice(SEVERITIES), default=None,
                     help="Lowest severity that makes the exit code 1 [default: error, or "
                          "the config file's]."),
        click.option("--family", type=click.Choice(families.CHOICES), default=None,
                     help="Drafter family, instead of detecting it."),
        click.option("--runtime", metavar="NAME[==VERSION]", multiple=True,
                     help="Check for one runtime: vllm, sglang or reference (z-lab), "
                          "optionally ==VERSION [default: every serving runtime's newest "
                          "known release; settings key `runtime`]."),
        click.option("--num-speculative-tokens", "speculative_tokens", type=click.IntRange(1),
                     default=None, help="The launch setting to check against the drafter."),
        click.option("--env", "server_env", multiple=True, metavar="NAME=VALUE",
                     help="A variable of the server's environment (repeatable), e.g. "
                          "VLLM_USE_V2_MODEL_RUNNER=0: what `gate` reads from the launch."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@functools.lru_cache(maxsize=None)
def _rules():
    from drafter_lint.pipeline import rules
    return rules()


FORMATS = tuple(REPORTERS)


def _render(results, fmt: str | None, colour: str, output: str | None = None,
            after_text: str = "") -> None:
    """Render in `fmt` (auto: github under GitHub Actions, else text) to stdout or a file;
    `after_text` follows a text report (a collection's summary table)."""
    from drafter_lint.report import render
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    use = _use_colour(colour) and output is None and fmt == "text"
    text = render(fmt, results, colour=use, rules=_rules())
    if fmt == "text" and after_text:
        text += "\n" + after_text
    if output:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise Abort(f"cannot write {output}: {exc.strerror or exc}") from None
    else:
        click.echo(text, nl=False, color=use)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@inputs
@click.option("--hub-author", metavar="ORG",
              help="Also lint every model repo of ORG on the hub (before download).")
@click.option("--hub-search", metavar="TEXT",
              help="Also lint every hub model repo whose id contains TEXT (with "
                   "--hub-author: of that author).")
@click.option("--jobs", type=click.IntRange(1, 64), default=8,
              show_default=True, help="Hub repos fetched at once.")
@click.option("--ranges", "ranges", is_flag=True,
              help="With a collection: also each repo's releases of each runtime that draw "
                   "no error (as `releases` computes them).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format [default: github under GitHub Actions, else text].")
@click.option("-o", "--output-file", "output_file", metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--baseline", "baseline_arg", metavar="FILE",
              help="Suppress the findings recorded in this baseline file.")
@click.option("--write-baseline", "write_baseline_arg", metavar="FILE",
              help="Record every current finding in FILE and exit 0.")
@click.option("--color", "colour", type=click.Choice(["auto", "always", "never"]),
              default="auto", show_default=True, help="Colour text output (NO_COLOR honoured).")
def check(paths, target_arg, reference_arg, from_hub, offline, no_cache, select, ignore,
          fail_on, family, runtime, speculative_tokens, server_env, hub_author, hub_search,
          jobs, ranges, fmt, output_file, baseline_arg, write_baseline_arg, colour):
    """Lint drafter checkpoints: folders, or files inside them (as pre-commit passes).

    Files are grouped by the nearest folder holding config.json; each folder is linted
    once. Settings come from the command line, then the nearest .drafter-lint.toml or
    pyproject.toml [tool.drafter-lint], then its parents. Exit 0 when nothing reaches
    --fail-on, 1 when something does, 2 when a path, a setting, the target or the
    reference cannot be read.

    Several hub repos (`org/name[@rev]`), or a whole organization or search
    (--hub-author, --hub-search), are a collection: fetched --jobs at a time, each pinned
    to the commit it resolved, then a summary table. A repo that cannot be read is a
    one-line result and exit 2; the others are linted.
    """
    from drafter_lint import collection, pipeline, precommit
    from drafter_lint import settings as config
    from drafter_lint.findings import Severity, one_line
    from drafter_lint.hub import parse_repo_arg
    from drafter_lint.progress import Progress
    if not paths and not (hub_author or hub_search):
        raise click.UsageError("give PATHS, --hub-author or --hub-search")
    if baseline_arg and write_baseline_arg:
        raise Abort("give --baseline or --write-baseline, not both")

    run = pipeline.prepare(
        target_arg=target_arg, reference_arg=reference_arg, from_hub=from_hub,
        offline=offline, select=select, ignore=ignore, no_cache=no_cache, family=family,
        runtime=runtime, speculative_tokens=speculative_tokens, note=_note, env=server_env)
    results, failed, for_baseline = [], False, []
    seen = precommit.already_linted()
    problems: list[str] = []          # paths that cannot be used; the others go on
    repos = [p for p in paths if not Path(p).exists() and parse_repo_arg(p)]
    if hub_author or hub_search:
        listed = collection.list_repos(run, hub_author, hub_search)
        if not listed:
            what = " and ".join(filter(None, [hub_author and f"author {hub_author}",
                                              hub_search and f"search {hub_search!r}"]))
            if not paths:
                raise Abort(f"the hub lists no model repo for {what}: nothing to lint")
            _note(f"the hub lists no model repo for {what}")
        repos += listed
    many = bool(hub_author or hub_search or len(repos) > 1)     # a collection
    if many:
        paths = tuple(p for p in paths if p not in repos)
    found_roots = pipeline.roots(run, paths, problems if len(paths) > 1 or many else None)
    roots = [r for r in found_roots if str(r.resolve()) not in seen]
    if len(roots) < len(found_roots):
        _note(f"{len(found_roots) - len(roots)} folder(s) already linted in this pre-commit "
              f"run and unchanged since: not linted again")
    if len(paths) == 1 and len(roots) > 1:
        _note(f"{paths[0]}: {len(roots)} checkpoints below it")
    if ranges and roots:
        _note(f"--ranges applies to hub repos linted as a collection; for "
              f"{'these folders' if len(roots) > 1 else roots[0]}: drafter-lint releases PATH")
    progress = Progress(len(roots) + (len(repos) if many else 0), "drafter-lint")
    for root in roots:
        progress.step(str(root))
        try:
            result, found = pipeline.lint_folder(run, root, baseline_arg,
                                                 bool(write_baseline_arg))
        except DrafterLintError as exc:
            if len(roots) == 1:
                raise
            problems.append(str(exc))
            continue
        except Exception as exc:  # noqa: BLE001 -- one folder's internal error, not the run's
            if len(roots) == 1:
                raise
            problems.append(f"{root}: internal error: {type(exc).__name__}: {exc}")
            continue
        results.append(result)
        for_baseline.append((result, root, run.repo_of(root)))
        level = Severity(fail_on or found.fail_on)
        failed = failed or any(f.severity.rank >= level.rank for f in result.findings)
    table = ""
    if many:
        fetched = collection.lint_repos(run, repos, jobs, progress,
                                        None if write_baseline_arg else baseline_arg,
                                        note=_note, ranges=ranges)
        level = Severity(fail_on or "error")
        failed = failed or any(f.severity.rank >= level.rank
                               for r in fetched for f in r.findings)
        problems += collection.problems(fetched)      # not read, or without its target
        results += fetched
        for_baseline += [(r, None, r.path.rsplit("@", 1)[0]) for r in fetched
                         if r.error is None]
        table = collection.table(fetched)
    progress.close()
    precommit.remember(roots)
    if write_baseline_arg:
        count = config.write_baseline(Path(write_baseline_arg), for_baseline)
        _note(f"wrote {count} baseline entries to {write_baseline_arg}")
        sys.exit(0)
    _render(results, fmt, colour, output_file, after_text=table)

    for problem in problems:
        click.echo(f"drafter-lint: error: {one_line(problem)}", err=True)
    sys.exit(2 if problems else 1 if failed else 0)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@inputs
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option("--dry-run", is_flag=True, help="List the edits; write nothing.")
@click.option("--output", "output", metavar="DIR", type=click.Path(path_type=str),
              help="Write the fixed checkpoint to DIR (config.json, copies of the "
                   "small files, hard links to the weights).")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes marked unsafe.")
@click.option("--no-backup", is_flag=True, help="Do not keep a backup of config.json.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: the findings left, as `check --format json`"
                                      " prints them, on stdout; the fix log on stderr.")
@click.option("--color", "colour", type=click.Choice(["auto", "always", "never"]),
              default="auto", show_default=True, help="Colour text output (NO_COLOR honoured).")
def fix(paths, target_arg, reference_arg, from_hub, offline, no_cache, select, ignore,
        fail_on, family, runtime, speculative_tokens, server_env, show_diff, dry_run, output,
        unsafe_fixes, no_backup, fmt, colour):
    """Apply the findings' fixes to config.json, atomically, and verify the write.

    PATHS are checkpoint folders or files in them (each folder is fixed once). Exit 0
    when nothing at or above --fail-on is left, 1 when something could not be fixed (or,
    with --diff or --dry-run, edits are pending), 2 when a write was refused or could not
    be verified (that file is then unchanged).
    """
    from drafter_lint import pipeline

    run = pipeline.prepare(
        target_arg=target_arg, reference_arg=reference_arg, from_hub=from_hub,
        offline=offline, select=select, ignore=ignore, no_cache=no_cache, family=family,
        runtime=runtime, speculative_tokens=speculative_tokens, note=_note, env=server_env)
    writes = not (show_diff or dry_run)
    roots = pipeline.roots(run, _fix_paths(paths, output if writes else None, writes,
                                           offline))
    if output and len(roots) > 1:
        raise Abort("--output takes one checkpoint")
    codes, left = [], []
    for root in roots:
        folder_options, found = pipeline.with_settings(root, run.options)
        code, result = _fix_one(run, root, folder_options, fail_on or found.fail_on,
                                show_diff, dry_run, output, unsafe_fixes, no_backup, fmt,
                                colour)
        codes.append(code)
        if result is not None:
            left.append(result)
    if fmt == "json":
        _render(left, "json", "never")
    sys.exit(max(codes))


def _fix_paths(paths, output, writes: bool, offline: bool) -> list:
    """PATHS, a hub repo id that will be written replaced by a full download of it (U5-1:
    drafter-lint's own cached copy, which check and gate trust, is never the one fixed);
    without --output such an id is refused."""
    from drafter_lint.fix import apply
    from drafter_lint.hub import parse_repo_arg

    out = []
    for raw in paths:
        parsed = None if Path(raw).exists() else parse_repo_arg(str(raw))
        if parsed is None or not writes:
            out.append(raw)
            continue
        repo, revision = parsed
        if output is None:
            where = "" if revision == "main" else f" --revision {revision}"
            raise Abort(f"{raw} is a hub repo: fix writes local files only. Download it "
                        f"(`hf download {repo}{where} --local-dir DIR`) and fix DIR, or "
                        f"pass --output DIR to fix a downloaded copy into DIR")
        if len(paths) > 1:
            raise Abort("--output takes one checkpoint")
        _note(f"downloading {raw} into the Hugging Face cache for --output")
        out.append(str(apply.download_repo(str(raw), offline)))
    return out


def _fix_one(run, root, options, fail_on, show_diff, dry_run, output, unsafe_fixes,
             no_backup, fmt="text", colour="auto"):
    """(exit code, the result of what is left at or above fail_on, or None). With --diff
    or --format json only the patch / the JSON report goes to stdout, the log to stderr."""
    from drafter_lint import pipeline
    from drafter_lint.fix import apply
    from drafter_lint.findings import Severity, one_line
    from drafter_lint.report import failing, locate, render
    checkpoint = pipeline.read(run, root, options.family)
    outcome = apply.run(checkpoint, options, unsafe=unsafe_fixes,
                         write=not (show_diff or dry_run), output=output, backup=not no_backup)
    log_to_stderr = show_diff or fmt == "json"
    for line in outcome.lines:
        click.echo(one_line(line), err=log_to_stderr)
    reference = options.reference
    if reference is not None and reference.revision and not reference.pinned:
        click.echo(f"reference values from {reference.display} ({reference.revision!r} "
                   f"resolved to that commit); pin it with {reference.display}",
                   err=log_to_stderr)
    if show_diff and outcome.diff:
        click.echo(outcome.diff, nl=False)
    if outcome.result is None:
        return 1, None
    locate(outcome.result, outcome.documents)
    left = [f for f in outcome.result.findings
            if f.severity.rank >= Severity(fail_on).rank]
    pending = bool(outcome.diff) and (show_diff or dry_run)   # shown, not written: as ruff
    code = 1 if pending or failing([outcome.result], Severity(fail_on)) else 0
    outcome.result.findings, outcome.result.skipped = left, []
    if left and fmt != "json":
        # U5-24: what is left was listed above as not applied, with why; the text
        # report's "[*] N fixable with `drafter-lint fix`" would advertise this very run
        shown = dataclasses.replace(outcome.result, findings=[
            dataclasses.replace(f, fix=None) for f in left])
        if show_diff:
            click.echo(render("text", [shown]), nl=False, err=True)
        else:
            _render([shown], "text", colour)
    return code, outcome.result


def _timeout(ctx, param, value):
    """A number of seconds: finite and at least 1 (NaN and `1e400` would wait forever)."""
    if value is not None and not (math.isfinite(value) and value >= 1):
        raise click.BadParameter(f"{value!r} is not a finite number of seconds >= 1")
    return value


@cli.command(context_settings={"ignore_unknown_options": True,
                               "allow_interspersed_args": False})
@click.option("--target", "target_arg", metavar="PATH|REPO[@REV]",
              help="Target to lint against instead of the launch line's model.")
@click.option("--offline", is_flag=True, help="Use the local hub cache only.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default=None,
              help="Lowest severity that refuses the launch [default: error, or the "
                   "settings file's].")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule codes.")
@click.option("--select", multiple=True, metavar="CODES",
              help="Only these rule codes or prefixes (comma-separated, repeatable).")
@click.option("--runtime", multiple=True, metavar="NAME[==VERSION]",
              help="Lint for this release instead of the one installed behind the line.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="How findings are shown on stderr (stdout is the "
                                      "server's).")
@click.option("--color", "colour", type=click.Choice(["auto", "always", "never"]),
              default="auto", show_default=True, help="Colour text output (NO_COLOR honoured).")
@click.option("--require-speculative", is_flag=True,
              help="Refuse a launch line that uses no speculative decoding.")
@click.option("--no-dry-run", "no_dry_run", is_flag=True,
              help="Do not run the installed runtime's own start-up resolution first.")
@click.option("--dry-run-timeout", type=float, default=180.0, callback=_timeout,
              show_default=True, metavar="SECONDS",
              help="How long the runtime's start-up resolution may take; past it, not judged.")
@click.option("-o", "--output-file", "output_file", metavar="FILE",
              help="Write the findings to FILE (whole, in --format) instead of stderr; "
                   "the notes stay on stderr.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def gate(target_arg, offline, fail_on, ignore, select, runtime, fmt, colour,
         require_speculative, no_dry_run, dry_run_timeout, output_file, command):
    """Lint the drafter of a launch line, then run it: `drafter-lint gate -- vllm serve ...`.

    Reads `vllm serve TARGET --speculative-config JSON` or
    `python -m sglang.launch_server --model-path ... --speculative-algorithm ...` the way
    the server does, lints the drafter against the target and the launch settings, asks
    the installed runtime's own start-up when the lint passes, and replaces itself with
    the command (exec). On findings at or above --fail-on it exits 1 and starts nothing; a
    bad option is exit 2 and starts nothing.
    """
    from drafter_lint import gate as gating
    from drafter_lint import pipeline
    from drafter_lint.findings import one_line

    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    run = pipeline.prepare(offline=offline, select=select, ignore=ignore,
                           runtime=runtime, note=_note, resolve=False)
    decision = gating.decide(argv, run, target_arg, fail_on, require_speculative,
                             None if no_dry_run else dry_run_timeout, note=_note)
    if decision.refused:
        click.echo(f"drafter-lint gate: refused: {one_line(decision.refused)}; nothing "
                   f"started", err=True)
        sys.exit(1)
    result = decision.result
    if not decision.start:
        result.findings, result.skipped = decision.blocking, []
        _gate_report(result, fmt, colour, output_file)
        click.echo(f"drafter-lint gate: refused: {len(decision.blocking)} finding(s) at or "
                   f"above {decision.fail_on}; nothing started", err=True)
        sys.exit(1)
    if result is not None:
        if result.findings or output_file:
            result.skipped = []
            _gate_report(result, fmt, colour, output_file)
        where = f"in {output_file}" if output_file else "shown above"
        shown = (f"{len(result.findings)} finding(s) below {decision.fail_on}, {where}"
                 if result.findings else
                 "no findings" + (f", the report {where}" if output_file else ""))
        _note(f"gate passed ({shown}); starting {decision.server.label}")
    _exec(decision.server)


def _gate_report(result, fmt: str, colour: str, output_file: str | None = None) -> None:
    """The gate's findings on stderr (stdout belongs to the server it starts), or whole
    in `output_file` (a JSON report stderr's notes would interleave)."""
    from drafter_lint.report import render

    if output_file:
        try:
            Path(output_file).write_text(render(fmt, [result], colour=False),
                                         encoding="utf-8")
        except OSError as exc:
            raise Abort(f"cannot write {output_file}: {exc.strerror or exc}") from None
        return
    use = fmt == "text" and _use_colour(colour, sys.stderr)
    text = render(fmt, [result], colour=use)
    click.echo(text, nl=not text.endswith("\n"), err=True, color=use)


def _exec(server) -> None:
    """Replace this process with the launch line, unchanged (launchers included), its
    VAR=value prefix in the environment."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(server.argv[0], list(server.argv), {**os.environ, **server.exec_env})
    except OSError as exc:
        raise Abort(f"cannot start {server.argv[0]}: {exc.strerror or exc}") from None


@cli.command()
@click.argument("path", type=click.Path(path_type=str))
@click.option("--target", "target_arg", metavar="PATH|REPO[@REV]",
              help="The target model the drafter serves.")
@click.option("--offline", is_flag=True, help="Use the local hub cache only.")
@click.option("--family", type=click.Choice(families.CHOICES), default=None)
def inspect(path, target_arg, offline, family):
    """Draw how the drafter is wired to its target: layers, taps per runtime, block, mask."""
    from drafter_lint import inspect_view, pipeline
    from drafter_lint.facts import Facts
    from drafter_lint.findings import escape_lines
    run = pipeline.prepare(target_arg=target_arg, offline=offline, no_cache=True,
                           note=_note)
    found = pipeline.roots(run, [path])
    if len(found) > 1:
        raise Abort(f"{path} holds {len(found)} checkpoints and inspect draws one: name one "
                    f"of them (e.g. {found[0]})")
    root = found[0]
    checkpoint = pipeline.read(run, root, family)
    options = run.options
    if options.target is None:
        options = options.but(target=pipeline.card_target(run, root, note=_note))
    facts = Facts(checkpoint, options, checkpoint.family)
    click.echo(escape_lines(inspect_view.render(facts)), nl=False)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--target", "target_arg", metavar="PATH|REPO[@REV]",
              help="The target model the drafter serves.")
@click.option("--offline", is_flag=True, help="Use the local hub cache only.")
@click.option("--family", type=click.Choice(families.CHOICES), default=None)
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule codes.")
@click.option("--runtime", multiple=True, type=click.Choice(["vllm", "sglang"]),
              help="Only this runtime (repeatable) [default: both].")
@click.option("--env", "server_env", multiple=True, metavar="NAME=VALUE",
              help="A variable of the server's environment (repeatable), as for check.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]),
              default="text", show_default=True,
              help="markdown: a table to paste into a model card.")
def releases(paths, target_arg, offline, family, ignore, runtime, server_env, fmt):
    """Which recorded releases of vLLM and SGLang serve each checkpoint: it is linted for
    every one, the releases that draw no error are given as ranges, and the first error
    just outside each range is shown. Exit 0 when some release of each runtime asked for
    serves it, 1 when one serves none, 2 when a path or the target cannot be read."""
    from drafter_lint import pipeline, releases_view, runtimes
    from drafter_lint.progress import Progress
    run = pipeline.prepare(target_arg=target_arg, offline=offline, ignore=ignore,
                           no_cache=True, family=family, note=_note, env=server_env)
    report, none = [], False
    roots, names = pipeline.roots(run, paths), runtime or ("vllm", "sglang")
    # every recorded release of each runtime is a lint: a bar on a terminal, none piped
    progress = Progress(len(roots) * sum(len(runtimes.PUBLISHED[r]) for r in names),
                        "drafter-lint releases")
    for root in roots:
        checkpoint, folder, _ = pipeline.prepare_folder(run, root)
        found = [releases_view.serving(checkpoint, folder, r, progress.step) for r in names]
        none = none or any(not s.ranges for s in found)
        report.append((checkpoint.display, found))
    progress.close()
    click.echo(releases_view.render(report, fmt), nl=False)
    sys.exit(1 if none else 0)


@cli.command()
@click.argument("code")
def explain(code):
    """Explain one rule (by code or name): what it checks, why, and examples."""
    from drafter_lint.registry import page
    from drafter_lint.rules import redirect
    rules = _rules()
    current = redirect(code.upper())
    rule = rules.get(current) or next((r for r in rules.values() if r.name == code), None)
    if rule is None:
        close = difflib.get_close_matches(code.upper(), list(rules), n=3) or \
            difflib.get_close_matches(code, [r.name for r in rules.values()], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise Abort(f"unknown rule {code!r}{hint}")
    click.echo(page(rule, code.upper() if rule.code == current else ""), nl=False)


@cli.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def list_rules(fmt):
    """List every rule: code, severities (the default first), family and summary."""
    rules = _rules()
    if fmt == "json":
        by_family: dict[str, list[str]] = {}
        for code, rule in sorted(rules.items()):
            by_family.setdefault(rule.family, []).append(code)
        click.echo(json.dumps({"rules": [r.to_json() for _, r in sorted(rules.items())],
                               "families": by_family}, indent=2))
        return
    for code, rule in sorted(rules.items()):       # default severity first, then the rest
        levels = "/".join([rule.severity.value] + [s for s in rule.severities
                                                   if s != rule.severity.value])
        status = "" if rule.status == "stable" else f"[{rule.status}] "
        click.echo(f"{code:<6}  {levels:<21}  {rule.family:<6}  "
                   f"{rule.name:<42}  {status}{rule.summary}")


def main(argv: list[str] | None = None) -> int:
    """Run drafter-lint with `argv` (default: the process arguments); the exit code.

    Commands end with sys.exit(code); that, click's own exits, usage errors, Ctrl-C and
    internal errors all come back as an int here (the console script passes it on). A
    standard output that cannot be written (a full disk, or closed: `>&-`) is an error of
    its own; only `gate`, which writes to stderr, runs without one."""
    words = sys.argv[1:] if argv is None else argv
    if sys.stdout is None and "gate" not in words[:1]:
        click.echo("drafter-lint: error: cannot write the output to standard output: it is "
                   "closed", err=True)
        return 2
    code = _run(argv)
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        return _unwritable_stdout(exc)
    return code


def _unwritable_stdout(exc: OSError) -> int:
    click.echo(f"drafter-lint: error: cannot write the output to standard output: "
               f"{exc.strerror or exc}", err=True)
    try:                  # nothing more for the interpreter to flush at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 2


def _run(argv: list[str] | None) -> int:
    from drafter_lint.findings import one_line
    try:
        cli.main(args=argv, standalone_mode=False)
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except DrafterLintError as exc:
        click.echo(f"drafter-lint: error: {one_line(str(exc))}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return 2
    except (click.exceptions.Abort, KeyboardInterrupt):
        # click turns Ctrl-C into Abort when it does not exit itself: 130 as shells expect
        click.echo("drafter-lint: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG):
            return _unwritable_stdout(exc)
        return _internal(exc)
    except Exception as exc:  # an internal error is exit 2 with one line, not a traceback
        return _internal(exc)


def _internal(exc: Exception) -> int:
    """An internal error: exit 2 with one line, not a traceback (unless asked for)."""
    from drafter_lint.findings import one_line

    click.echo(f"drafter-lint: internal error: {type(exc).__name__}: {one_line(str(exc))} "
               f"(set DRAFTER_LINT_TRACEBACK=1 for details)", err=True)
    if os.environ.get("DRAFTER_LINT_TRACEBACK"):
        raise exc
    return 2
