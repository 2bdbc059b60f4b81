"""drafter-lint: lint and repair speculative-decoding drafter checkpoints."""

__version__ = "0.1.0"

# Installed, `rules/` and `schemas/` ship inside this package (pyproject's package-dir
# mapping). In a source checkout they sit beside it: let `drafter_lint.rules` and
# `drafter_lint.schemas` resolve there, so `python -m drafter_lint` works from the root.
if not __import__("os").path.isdir(__path__[0] + "/rules"):
    __path__.append(__import__("os").path.dirname(__path__[0]))
