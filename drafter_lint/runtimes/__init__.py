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
from drafter_lint.runtimes.table import FACTS, Fact

__all__ = ["FACTS", "KNOWN", "LABEL", "PUBLISHED", "RELEASE_VERSION", "SERVING", "SGLANG_LABEL",
           "VLLM_LABEL", "Fact", "Release", "UnknownRuntime", "agree", "default_releases",
           "holds", "labels", "lookup", "matching", "newest", "parse", "serves", "value", "version_key"]


def holds(fact: Fact, release: Release) -> bool:
    if fact.runtime != release.runtime:
        return False
    if release.runtime == "reference":
        return True
    v = version_key(release.version)
    return ((not fact.since or v >= version_key(fact.since))
            and (not fact.until or v < version_key(fact.until)))


def lookup(key: str, release: Release) -> Fact | None:
    """The row for `key` that holds for `release`, or None when it is not recorded."""
    return next((f for f in FACTS if f.key == key and holds(f, release)), None)


# families the table has `serves.<family>` rows for
SERVES_ROWS = frozenset(f.key.split(".", 1)[1] for f in FACTS if f.key.startswith("serves."))


def serves(release: Release, family: str) -> bool:
    """Whether `release` serves drafters of `family` (unknown families: assume it does)."""
    key = "speculators" if family.startswith("speculators") else family
    fact = lookup(f"serves.{key}", release)
    if fact is None:
        return key not in SERVES_ROWS and release.runtime != "reference"
    return bool(fact.value)


def value(key: str, release: Release, default=None):
    """The value of `key` for `release`, or `default` when no row is recorded."""
    fact = lookup(key, release)
    return fact.value if fact is not None else default


def matching(releases, key: str, test=bool) -> list[Release]:
    """The releases for which `test(value)` holds for `key` (rows not recorded are skipped)."""
    out = []
    for release in releases:
        fact = lookup(key, release)
        if fact is not None and test(fact.value):
            out.append(release)
    return out
