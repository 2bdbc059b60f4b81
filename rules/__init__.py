"""The rule registry: every rule module, listed explicitly. Code -> Rule."""

from drafter_lint.rules import dflash, files

MODULES = (files, dflash)

RULES = {code: r for module in MODULES for code, r in module.RULES.items()}
