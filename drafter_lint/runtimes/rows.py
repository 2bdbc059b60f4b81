"""Look-ups in the table: which row of a fact holds for a release (its range, and its
model runner when the row names one)."""

from __future__ import annotations

from drafter_lint.runtimes import keys
from drafter_lint.runtimes.releases import Release, version_key
from drafter_lint.runtimes.table import FACTS, Fact


def holds(fact: Fact, release: Release) -> bool:
    """Whether `fact` holds for `release` (its range, and its runner when the row names
    one: a release whose runner is not known takes the rows of either)."""
    if fact.runtime != release.runtime:
        return False
    if fact.path and release.runner and fact.path != release.runner:
        return False
    if release.runtime == "reference":
        return True
    v = version_key(release.version)
    return ((not fact.since or v >= version_key(fact.since))
            and (not fact.until or v < version_key(fact.until)))


def lookup(key: str, release: Release) -> Fact | None:
    """The row for `key` that holds for `release`, or None when it is not recorded (a key
    not declared in runtimes/keys.py raises KeyError)."""
    keys.declared(key)
    return next((f for f in FACTS if f.key == key and holds(f, release)), None)


# families the table has `serves.<family>` rows for
SERVES_ROWS = frozenset(f.key.split(".", 1)[1] for f in FACTS if f.key.startswith("serves."))


def serves(release: Release, family: str) -> bool:
    """Whether `release` serves drafters of `family` (unknown families: assume it does)."""
    key = "speculators" if family.startswith("speculators") else family
    if key not in SERVES_ROWS:
        return release.runtime != "reference"
    fact = lookup(f"serves.{key}", release)
    return fact is not None and bool(fact.value)


def value(key: str, release: Release, default=None):
    """The value of `key` for `release`, or `default` when no row is recorded (a key not
    declared raises KeyError)."""
    fact = lookup(key, release)
    return fact.value if fact is not None else default


def matching(releases, key: str, test=bool) -> list[Release]:
    """The releases for which `test(value)` holds for `key` (rows not recorded are skipped;
    a key not declared raises KeyError)."""
    keys.declared(key)
    out = []
    for release in releases:
        fact = lookup(key, release)
        if fact is not None and test(fact.value):
            out.append(release)
    return out


# Questions about every recorded release at once (not one release's row)

def _passing(key: str, test) -> list[Fact]:
    keys.declared(key)
    return [f for f in FACTS if f.key == key and test(f.value)]


def ever(key: str, test=bool) -> bool:
    """Whether `test(value)` holds for some row of `key`, in any recorded release: does
    any release special-case this?"""
    return bool(_passing(key, test))


def held_since(key: str, test=bool) -> str | None:
    """The earliest release from which a row of `key` whose value passes `test` holds, or
    None when none does."""
    found = [f.since for f in _passing(key, test) if f.since]
    return min(found, key=version_key) if found else None


def held_until(key: str, test=bool) -> str | None:
    """The latest release at which a row of `key` whose value passes `test` stops holding
    (its `until`), or None when no such row has ended."""
    found = [f.until for f in _passing(key, test) if f.until]
    return max(found, key=version_key) if found else None


def recorded_for(key: str) -> tuple[str, ...]:
    """The runtimes with rows of `key`, sorted."""
    return tuple(sorted({f.runtime for f in _passing(key, lambda _: True)}))

