"""drafter-lint: lint and repair speculative-decoding drafter checkpoints.

The library face is drafter_lint.api (docs/api.md), re-exported here on first use: a
module-level __getattr__ imports it then, so `import drafter_lint.cli` stays light and
this base-layer module imports nothing above it at import time. __init__.pyi gives type
checkers the same names.
"""

__version__ = "0.1.0"

__all__ = ["DrafterLintError", "Finding", "Fix", "Report", "Result", "Skipped",
           "WouldNotServe", "assert_serves", "check"]


def __getattr__(name: str):
    if name in __all__:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
