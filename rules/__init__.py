"""The rule registry: every rule module, listed explicitly. Code -> Rule."""

from drafter_lint.rules import (
                                dflash,
                                dflash_weights,
                                dspark,
                                eagle,
                                eagle3,
                                files,
                                launch,
                                loaded,
                                medusa,
                                mtp,
                                reference,
                                rope,
                                speculators,
                                startup,
)

MODULES = (files, startup, dflash, dflash_weights, dspark, eagle3, eagle, mtp, medusa,
           speculators, rope, reference, loaded, launch)

RULES = {code: r for module in MODULES for code, r in module.RULES.items()}
