"""The rule registry: every rule module, listed explicitly; each module's `@rule`
functions register themselves (registry.BY_MODULE). Code -> Rule."""

from drafter_lint.registry import BY_MODULE, collect
from drafter_lint.rules import (card, dflash_block, dflash_mask, dflash_taps,
                                dflash_weights, dflash_window, dspark, eagle, eagle3_layers,
                                eagle3_serving, eagle3_taps, eagle3_vocab, files, launch,
                                loaded, medusa, mtp, mtp_quantization, reads, reference,
                                rope, speculators, startup, weights_loaded)

MODULES = (files, startup, dflash_mask, dflash_taps, dflash_window, dflash_block,
           dflash_weights, dspark, eagle3_taps, eagle3_vocab, eagle3_layers, eagle3_serving,
           eagle, mtp, mtp_quantization, medusa, speculators, rope, reference, loaded, launch,
           reads, weights_loaded, card)

RULES = collect(*(f for module in MODULES for f in BY_MODULE.get(module.__name__, ())))

# Codes that once named a rule now split, merged or renamed: old code -> the code that
# says it now. Selecting, ignoring, configuring or baselining the old code acts on the
# new one (`redirect`), so users' ignores and baselines keep their meaning.
REDIRECTS: dict[str, str] = {
    "EA322": "RD101",     # norm_before_residual not read: one of the derived reads now
}


def redirect(code: str, redirects: dict[str, str] | None = None) -> str:
    """The current code for `code` (itself unless it was redirected)."""
    redirects = REDIRECTS if redirects is None else redirects
    seen = set()
    while code in redirects and code not in seen:
        seen.add(code)
        code = redirects[code]
    return code
