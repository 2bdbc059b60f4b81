"""The runtime layer: what each release of vLLM, SGLang and the z-lab reference reads, as
data (`table.FACTS`), and the look-ups rules and the engine ask it through. It imports
nothing of the engine or the rules; both import it from below."""

from __future__ import annotations

from drafter_lint.runtimes.releases import (
    KNOWN,
    LABEL,
    PUBLISHED,
    RELEASE_VERSION,
    SERVING,
    SGLANG_LABEL,
    VLLM_LABEL,
    Release,
    UnknownRuntime,
    agree,
    default_releases,
    labels,
    newest,
    parse,
    version_key,
)
from drafter_lint.runtimes.path import Context, on_path, on_runner
from drafter_lint.runtimes.rows import (SERVES_ROWS, ever, held_since, held_until, holds, lookup,
                                        matching, recorded_for, serves, value)
from drafter_lint.runtimes.table import FACTS, Fact

__all__ = ["FACTS", "KNOWN", "LABEL", "PUBLISHED", "RELEASE_VERSION", "SERVES_ROWS", "SERVING",
           "SGLANG_LABEL", "VLLM_LABEL", "Context", "Fact", "Release", "UnknownRuntime",
           "agree", "default_releases", "ever", "held_since", "held_until", "holds", "labels",
           "lookup", "matching", "newest", "on_path", "on_runner", "parse", "recorded_for",
           "serves", "value", "version_key"]
