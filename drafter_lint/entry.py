"""The console script's first step: for `check PATH` / `fix PATH` of one local checkpoint
whose config has no cached load, start the transformers child before the CLI (click, the
engine, the rules) is imported, so that transformers' import overlaps all of it; then run
the CLI. Reading the command line here is a guess (the CLI reads it for real): a wrong
guess only starts a child no load uses, which is stopped with the run."""

from __future__ import annotations

import os
import sys

# check/fix options that take a value: the word after them is not the PATH
VALUED = frozenset({"--target", "--reference", "--from-hub", "--runtime", "--family",
                    "--num-speculative-tokens", "--env", "--hub-author", "--hub-search",
                    "--jobs", "--format", "-o", "--output-file", "--output", "--baseline",
                    "--write-baseline", "--fail-on", "--color"})
NARROWING = ("--select", "--ignore")        # may leave no rule that needs the load


def early_path(argv: list[str]) -> str | None:
    """The one checkpoint folder `check`/`fix` would lint, or None."""
    if not argv or argv[0] not in ("check", "fix"):
        return None
    paths, words = [], iter(argv[1:])
    for word in words:
        if word.split("=", 1)[0] in NARROWING:
            return None
        if word in VALUED:
            next(words, None)
        elif not word.startswith("-"):
            paths.append(word)
    return paths[0] if len(paths) == 1 and os.path.isdir(paths[0]) else None


def main() -> int:
    path = early_path(sys.argv[1:])
    if path is not None:
        from drafter_lint import transformers_child as child

        child.prewarm(path, child.installed_version(),
                      None if "--no-cache" in sys.argv else child.cache_folder())
    from drafter_lint.cli import main as run

    return run()
