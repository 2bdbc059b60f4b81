"""The one lint pipeline every command runs: inputs -> checkpoint -> rules -> settings.

`prepare` resolves what the command line names (target, reference, rule selection) into
the run's `Run` (drafter_lint/run.py), which every stage below takes; `roots` and `read`
find and read checkpoint folders, `with_settings` adds the folder's
settings files and baseline, and `lint_folder` runs the rules and the suppression phase
and resolves positions. `check`, `fix` and `gate` (and pre-commit, through `check`) all go
through here; drafter_lint/cli.py only parses options and renders.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Callable

import click

from drafter_lint import family as families
from drafter_lint import remote, runtimes
from drafter_lint import settings as config
from drafter_lint.checkpoint import (
    find_root,
    has_checkpoint_above,
    is_checkpoint,
    read_checkpoint,
)
from drafter_lint.stages import lint_with_settings
from drafter_lint.errors import DrafterLintError, SettingsError, UsageError
from drafter_lint.findings import one_line
from drafter_lint.hub import base_models, parse_repo_arg, read_card
from drafter_lint.launch import LaunchLine, ServerContext
from drafter_lint.options import Options
from drafter_lint.reference import read_reference
from drafter_lint.report import locate
from drafter_lint.rules import RULES, redirect
from drafter_lint.run import Run
from drafter_lint.target import TargetError, resolve_target


def rules() -> dict:
    return RULES


def codes(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--select DF1,DL --select TF` -> ("DF1", "DL", "TF"); a redirected code becomes the
    code that says it now (rules.REDIRECTS)."""
    return tuple(redirect(c.strip().upper()) for v in values for c in v.split(",")
                 if c.strip())


def requested_release(values, note: Callable[[str], None] = lambda _: None):
    """The one release `--runtime` names (given at most once), or None; its note said."""
    values = tuple(v for v in ((values,) if isinstance(values, str) else values or ()))
    if len(values) > 1:
        raise UsageError(f"--runtime is given {len(values)} times ({', '.join(values)}); "
                         f"give it once")
    if not values:
        return None
    try:
        release = runtimes.parse(values[0])
    except runtimes.UnknownRuntime as exc:
        raise UsageError(f"--runtime: {exc}") from None
    if release.note:
        note(release.note)
    return release


def prepare(*, target_arg=None, reference_arg=None, from_hub=None, offline=False, select=(),
            ignore=(), no_cache=False, family=None, runtime=(), speculative_tokens=None,
            note: Callable[[str], None] = lambda _: None, resolve: bool = True,
            env=()) -> Run:
    """Validate what the command line names and resolve it into the run (its Options and
    the state its stages share): the one way in for check, fix, gate, inspect and
    collections. Every option is checked before anything is read (a UsageError, exit 2);
    with `resolve`, the target and the reference are then read."""
    known = rules()
    select, ignore = codes(select), codes(ignore)
    for code in select + ignore:
        if not any(k.startswith(code) for k in known):
            raise UsageError(f"no rule code starts with {code!r} (see `drafter-lint rules`)")
    if reference_arg and from_hub:
        raise UsageError("give --reference or --from-hub, not both")
    release = requested_release(runtime, note)
    if speculative_tokens is not None and release is not None and \
            release.runtime != "vllm":
        raise UsageError(f"--num-speculative-tokens is vLLM's num_speculative_tokens and "
                         f"does not apply to --runtime {release.runtime}; lint an SGLang "
                         f"launch line with `drafter-lint gate -- python -m "
                         f"sglang.launch_server ...`")
    variables = {}
    for item in env:
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise UsageError(f"--env {item!r}: expected NAME=VALUE")
        variables[name] = value
    # settings without a line: the count, and the server's environment as given (this
    # process's own is not the server's)
    launch = LaunchLine(tokens=speculative_tokens) if speculative_tokens or variables \
        else None
    server = ServerContext(env=MappingProxyType(variables)) if variables else None
    options = Options(rules=known, select=select, ignore=ignore, family=family,
                      runtime=release, launch=launch, server=server,
                      use_cache=not no_cache)
    if not resolve:
        return Run(options, offline)
    reference = None
    if reference_arg or from_hub:
        reference = read_reference(reference_arg or from_hub, offline, card=bool(from_hub))
    from_card = None
    if not target_arg and reference and reference.card:
        bases = base_models(reference.card)
        if bases:
            target_arg = from_card = bases[0]
            note(f"target {target_arg}: the base_model of {reference.display}'s model card")
    target = None
    if target_arg:
        try:
            target = resolve_target(target_arg, offline)
        except TargetError as exc:
            if target_arg != from_card:
                raise
            # the card's word, not the user's: as in collections, the run goes on
            note(f"warning: {reference.display}'s card names base_model {from_card}, which "
                 f"cannot be read ({exc}); linted without a target")
        for message in target.notes if target else ():
            note(message)
    return Run(options.but(target=target, reference=reference), offline)


def with_settings(root, options: Options, baseline_arg=None, write_baseline=False):
    """(options, settings) for checkpoint folder `root`: the command line, then the
    nearest .drafter-lint.toml / [tool.drafter-lint], then its parents. The same for
    check, fix and gate: severities, per-path ignores and the baseline apply alike."""
    found = config.load(root)
    baseline_path = Path(baseline_arg).resolve() if baseline_arg else found.baseline
    entries = (config.read_baseline(baseline_path)
               if baseline_path and not write_baseline else None)
    found = replace(found, select=options.select or found.select,
                    ignore=options.ignore or found.ignore)
    release = options.runtime
    if release is None and found.runtime is not None:
        try:
            release = runtimes.parse(found.runtime)
        except runtimes.UnknownRuntime as exc:
            raise SettingsError(f"{found.runtime_source}: runtime: {exc}") from None
    return options.but(select=found.select, ignore=found.ignore, runtime=release,
                       settings=found,
                       baseline=entries,
                       baseline_path=baseline_path if entries is not None else None), found


def roots(run: Run, paths, problems: list | None = None) -> list:
    """Checkpoint folders for PATH arguments; `org/name[@rev]` that names no local path is
    a hub repo, read without downloading its weights (drafter_lint/remote.py). A folder
    with no config.json at or above it stands for the checkpoints below it (`check
    models/`). With `problems`, a path that cannot be used is recorded there (one line)
    and the others go on; without, it ends the run."""

    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        try:
            if not Path(raw).exists() and parse_repo_arg(str(raw)):
                try:
                    folder, display = remote.materialize(str(raw), run.offline)
                except DrafterLintError as exc:    # a typo'd local path reads like org/name
                    exc.args = (f"{exc} (nor is {raw} a local path)",)
                    raise
                run.remember(folder, display)
                raw = folder
            path = Path(raw)
            below = discover(path) if path.is_dir() and not has_checkpoint_above(path) \
                else []
            for root in below or [find_root(path)]:
                if root.resolve() not in seen:
                    seen.add(root.resolve())
                    found.append(root)
        except DrafterLintError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
    return found


# folders never searched for checkpoints: VCS and tool state, hub cache internals
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "blobs", "refs", ".git", ".hg",
                       ".venv", "venv"})


def discover(folder) -> list:
    """The checkpoint folders below `folder`: each holds a config.json that looks like a
    model's (one of MODEL_KEYS, or not parseable, which the check then reports), sorted;
    hidden folders and SKIP_DIRS are not entered, nor are checkpoints' own subfolders."""

    out = []
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        if "config.json" in files and is_checkpoint(Path(top)):
            out.append(Path(top))
            dirs[:] = []
    return out


def read(run: Run, root, family: str | None = None):
    """The checkpoint folder `root` as read (its family detected unless given), with only
    the shards its family's rules need; a hub repo's folder is named as the repo."""
    remote = run.display_of(root)
    display = remote or (str(root) if os.path.isabs(str(root)) else os.path.relpath(root))
    checkpoint = read_checkpoint(root, display=display, select=families.shards_needed,
                                 family=family)
    checkpoint.repo = remote.rsplit("@", 1)[0] if remote else None
    return checkpoint


def prepare_folder(run: Run, root, baseline_arg=None, write_baseline: bool = False,
                   note: Callable[[str], None] | None = None, options: Options | None = None):
    """(checkpoint, the folder's options, settings) for one checkpoint folder: its settings
    and baseline applied over `options` (else the run's), and the card's target when none
    was given (said to `note`, else on stderr)."""
    options, found = with_settings(root, options or run.options, baseline_arg,
                                   write_baseline)
    checkpoint = read(run, root, options.family)
    if options.target is None:
        target = card_target(run, root, note)
        missing = run.card_missing.get(checkpoint.card.bases[0]) \
            if target is None and checkpoint.card and checkpoint.card.bases else None
        options = options.but(target=target, card_base_missing=missing)
    return checkpoint, options, found


def lint_prepared(checkpoint, options: Options):
    """The result, with positions, of a folder `prepare_folder` read."""
    result = lint_with_settings(checkpoint, options)
    locate(result, checkpoint.documents)
    return result


def lint_folder(run: Run, root, baseline_arg=None, write_baseline: bool = False,
                note: Callable[[str], None] | None = None):
    """(result with positions, settings) for one checkpoint folder."""
    checkpoint, options, found = prepare_folder(run, root, baseline_arg, write_baseline,
                                                note)
    return lint_prepared(checkpoint, options), found


def card_target(run: Run, root, note: Callable[[str], None] | None = None):
    """With no --target, the target the model card names as `base_model`, read like
    --target: for a hub repo linted before download from the hub (its cache first), for a
    local folder from the hub cache only (a local check makes no request); else None."""

    display = run.display_of(root)
    card = Path(root) / "README.md"
    if not card.is_file():
        return None
    if display is None:
        return _cached_card_target(root, card, note or stderr_note)

    bases = base_models(read_card(card))
    if not bases:
        return None
    with run.target_lock(bases[0]):      # drafters sharing a target wait for its one read
        if bases[0] in run.card_targets:
            return run.card_targets[bases[0]]
        try:
            try:        # a cached copy first: the drafter's revision is what was asked for
                target = resolve_target(bases[0], True)
            except TargetError:
                target = resolve_target(bases[0], run.offline)
        except TargetError as exc:
            run.card_targets[bases[0]] = None
            if "no such repo" in str(exc) or "no such revision" in str(exc):
                run.card_missing[bases[0]] = str(exc)      # CRD104; unreachable is not missing
            (note or stderr_note)(f"{display}: its card's base_model {bases[0]} cannot be "
                                   f"read as the target ({exc}); target checks skipped")
            return None
        run.card_targets[bases[0]] = target
        (note or stderr_note)(f"target {bases[0]}: the base_model of {display}'s model card")
        return target


def _cached_card_target(root, card: Path, note: Callable[[str], None]):
    """A local folder's card `base_model`, when the hub cache holds it."""
    bases = base_models(read_card(card))
    if not bases:
        return None
    try:
        target = resolve_target(bases[0], True)
    except TargetError:
        note(f"{root}: its card's base_model {bases[0]} is not in the hub cache; target "
             f"checks skipped (give --target)")
        return None
    note(f"target {bases[0]}: the base_model of {root}'s model card, from the hub cache")
    return target


def stderr_note(message: str) -> None:
    """`drafter-lint: MESSAGE` on stderr, one line (the CLI's notes)."""
    click.echo(f"drafter-lint: {one_line(message)}", err=True)
