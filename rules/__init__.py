"""The rule registry: every rule module, listed explicitly. Code -> Rule."""

from drafter_lint.rules import dflash, dflash_weights, files

MODULES = (files, dflash, dflash_weights)

RULES = {code: r for module in MODULES for code, r in module.RULES.items()}
