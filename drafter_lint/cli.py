"""Command line: check, explain, rules. Exit 0 clean, 1 findings, 2 usage/IO/internal.

Importing this module imports only click; the engine is imported inside the commands.
"""

from __future__ import annotations

import os
import sys

import click

from drafter_lint import __version__

SEVERITIES = ("error", "warning", "info")


class Abort(Exception):
    """A one-line error that ends the run with exit 2."""


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())


def _use_colour(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="drafter-lint")
def cli():
    """Lint speculative-decoding drafter checkpoints before you serve them."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--target", "target_arg", metavar="PATH",
              help="The target model the drafter serves: a folder with config.json.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="error", show_default=True,
              help="Lowest severity that makes the exit code 1.")
@click.option("--select", multiple=True, metavar="CODES",
              help="Only these rule codes or prefixes (comma-separated, repeatable).")
@click.option("--ignore", multiple=True, metavar="CODES",
              help="Skip these rule codes or prefixes (comma-separated, repeatable).")
@click.option("--color", "colour", type=click.Choice(["auto", "always", "never"]),
              default="auto", show_default=True, help="Colour text output (NO_COLOR honoured).")
def check(paths, target_arg, fmt, fail_on, select, ignore, colour):
    """Lint drafter checkpoints: folders, or files inside them (as pre-commit passes).

    Files are grouped by the nearest folder holding config.json; each folder is linted
    once. Exit 0 when nothing reaches --fail-on, 1 when something does, 2 when a path or
    the target cannot be read.
    """
    from pathlib import Path

    from drafter_lint.checkpoint import CheckpointNotFound, find_root, read_checkpoint
    from drafter_lint.engine import lint
    from drafter_lint.findings import Severity
    from drafter_lint.report import failing, locate
    from drafter_lint.rules import RULES

    select, ignore = _codes(select), _codes(ignore)
    for code in select + ignore:
        if not any(known.startswith(code) for known in RULES):
            raise Abort(f"no rule code starts with {code!r} (see `drafter-lint rules`)")
    target = _read_target(target_arg) if target_arg else None

    roots: list[Path] = []
    try:
        for raw in paths:
            root = find_root(Path(raw))
            if root.resolve() not in [r.resolve() for r in roots]:
                roots.append(root)
    except CheckpointNotFound as exc:
        raise Abort(str(exc)) from None
    results = []
    for root in roots:
        try:
            checkpoint = read_checkpoint(root, display=os.path.relpath(root)
                                         if not os.path.isabs(str(root)) else str(root))
        except CheckpointNotFound as exc:
            raise Abort(str(exc)) from None
        result = lint(checkpoint, target, RULES, select, ignore)
        locate(result, checkpoint.documents)
        results.append(result)

    if fmt == "json":
        from drafter_lint.report.json_report import render as render_json

        click.echo(render_json(results), nl=False)
    else:
        from drafter_lint.report.text import render as render_text

        for note in target.notes if target else []:
            click.echo(f"note: {note}", err=True)
        use = _use_colour(colour)
        click.echo(render_text(results, use), nl=False, color=use)
    sys.exit(1 if failing(results, Severity(fail_on)) else 0)


def _read_target(arg: str):
    from pathlib import Path

    from drafter_lint.target import TargetError, read_target

    path = Path(arg)
    if not path.exists():
        if "/" in arg and not arg.startswith((".", "/")):
            raise Abort(f"target {arg!r} is not a local folder; reading targets from the "
                        f"Hugging Face Hub is not available in this version")
        raise Abort(f"target {arg}: no such file or folder")
    try:
        return read_target(path, display=arg)
    except TargetError as exc:
        raise Abort(str(exc)) from None


@cli.command()
@click.argument("code")
def explain(code):
    """Explain one rule (by code or name): what it checks, why, and examples."""
    from drafter_lint.rules import RULES

    rule = RULES.get(code.upper()) or next((r for r in RULES.values() if r.name == code), None)
    if rule is None:
        import difflib

        close = difflib.get_close_matches(code.upper(), list(RULES), n=3) or \
            difflib.get_close_matches(code, [r.name for r in RULES.values()], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise Abort(f"unknown rule {code!r}{hint}")
    click.echo(f"{rule.code} {rule.name}\n")
    click.echo(f"Severity: {rule.severity.value}    Family: {rule.family}    "
               f"Fix: {rule.fix}    Needs: {', '.join(rule.needs) or '-'}\n")
    click.echo(rule.doc)


@cli.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def list_rules(fmt):
    """List every rule with its code, default severity, family and summary."""
    from drafter_lint.rules import RULES

    if fmt == "json":
        import json

        click.echo(json.dumps({"rules": [r.to_json() for _, r in sorted(RULES.items())]},
                              indent=2))
        return
    for code, rule in sorted(RULES.items()):
        click.echo(f"{code}  {rule.severity.value:<7}  {rule.family:<6}  "
                   f"{rule.name:<42}  {rule.summary}")


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except Abort as exc:
        click.echo(f"drafter-lint: error: {exc}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("drafter-lint: aborted", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as exc:  # an internal error is exit 2 with one line, not a traceback
        click.echo(f"drafter-lint: internal error: {type(exc).__name__}: {exc} "
                   f"(set DRAFTER_LINT_TRACEBACK=1 for details)", err=True)
        if os.environ.get("DRAFTER_LINT_TRACEBACK"):
            raise
        sys.exit(2)
