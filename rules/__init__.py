"""The rule registry: every rule module, listed explicitly. Code -> Rule."""

from drafter_lint.rules import dflash, dflash_weights, files, loaded, reference

MODULES = (files, dflash, dflash_weights, reference, loaded)

RULES = {code: r for module in MODULES for code, r in module.RULES.items()}
