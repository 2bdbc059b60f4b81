"""Runtime releases: which are recorded, which exist, and how a `--runtime` value names
one (`parse`); labels and verb agreement for messages."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from drafter_lint.errors import UnknownRuntime

# Every release on the package index (`pip index versions`, 2026-12-01), oldest first:
# the facts were read from each one's wheel (tools/oracle/release_evidence.py scans them
# all). vLLM from 0.8.0 (the first to serve EAGLE-3), SGLang from 0.4.1.post4 (the first
# build to serve EAGLE). A `.postN` build is listed where a probe or a value read whole
# from the wheels differs from the release before it (python tools/releases.py posts);
# the others get the facts of the listed release before them, and say so.
PUBLISHED = {
    "vllm": (
        "0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.8.4", "0.8.5", "0.9.0", "0.9.0.1", "0.9.1",
        "0.9.2", "0.10.0", "0.10.1", "0.10.1.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2",
        "0.12.0", "0.13.0", "0.14.0", "0.14.1", "0.15.0", "0.15.1", "0.16.0",
        "0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0", "0.19.1", "0.20.0",
        "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0",
        "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0",
        "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0"),
    "sglang": (
        "0.4.1.post4", "0.4.1.post5", "0.4.1.post6", "0.4.1.post7", "0.4.2", "0.4.3",
        "0.4.3.post1", "0.4.3.post2", "0.4.3.post3", "0.4.3.post4", "0.4.4", "0.4.4.post2",
        "0.4.4.post3", "0.4.4.post4", "0.4.5", "0.4.5.post1", "0.4.5.post2", "0.4.5.post3",
        "0.4.6", "0.4.6.post2", "0.4.6.post3", "0.4.6.post4", "0.4.6.post5", "0.4.7",
        "0.4.7.post1", "0.4.8", "0.4.8.post1", "0.4.9", "0.4.9.post2", "0.4.9.post3",
        "0.4.9.post4", "0.4.9.post5", "0.4.9.post6", "0.4.10", "0.4.10.post2", "0.5.0rc0",
        "0.5.0rc1", "0.5.0rc2", "0.5.1", "0.5.2", "0.5.3", "0.5.3.post1", "0.5.3.post2",
        "0.5.3.post3", "0.5.4", "0.5.4.post1", "0.5.4.post2", "0.5.4.post3", "0.5.5",
        "0.5.5.post1", "0.5.5.post2", "0.5.5.post3", "0.5.6", "0.5.6.post1", "0.5.6.post2",
        "0.5.7", "0.5.8", "0.5.9", "0.5.10", "0.5.11", "0.5.12", "0.5.13", "0.5.14", "0.5.15",
        "0.5.16", "0.5.17", "0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"),
}
# The releases whose facts are recorded, oldest first; the last one is the default.
KNOWN = {**PUBLISHED,
         "reference": ("44947fb",)}   # z-lab/dflash (transformers 4.57.1), not versioned
LABEL = {"vllm": "vLLM", "sglang": "SGLang", "reference": "the z-lab reference"}
# Runtimes a finding is checked for when --runtime is not given: the serving runtimes.
# The z-lab reference is a research implementation; ask for it with --runtime reference.
SERVING = ("vllm", "sglang")


@dataclass(frozen=True)
class Release:
    runtime: str
    version: str
    exact: bool = True      # False: a build or release not recorded itself (see `note`)
    note: str = ""          # what the CLI says about an inexact release
    runner: str = ""        # vLLM's model runner on the launch's path ("v1", "v2"), if known
    why: str = ""           # why that runner (runtimes/path.py)
    shown: bool = False     # whether messages name the runner (it depends on the launch)
    asked: str = ""         # the version asked for, when `version`'s facts answer for it

    @property
    def label(self) -> str:
        on = f" on its {self.runner.upper()} runner" if self.shown and self.runner else ""
        return f"{LABEL[self.runtime]} {self.asked or self.version}{on}"


@functools.lru_cache(maxsize=None)
def version_key(text: str) -> Version:
    """Releases ordered as pip orders them (PEP 440): `0.5.0rc2` < `0.5.0` < `0.5.1` <
    `0.10.1.1` < `0.10.2`; `0.5` is `0.5.0`."""
    return Version(text)


RELEASE_VERSION = re.compile(r"\d+(\.\d+)*((rc|a|b)\d+)?(\.post\d+)?")


def parse(spec: str) -> Release:
    """`vllm`, `vllm==0.33`, `sglang==0.5.23`, `reference` -> a Release.

    A recorded release is exact. A `.postN` build of one gets its facts and is named as
    asked, with a note. A version newer than the newest recorded is the newest (messages
    never speak for a release the facts do not describe: its code may have changed since)
    and a note says its facts may be stale; one older than the oldest recorded is named as
    asked, with the oldest's facts and a note saying so. `NAME==` with no
    version, a versioned `reference`, or anything else (not a version number, or a number
    the index does not have between its first and last release) raises UnknownRuntime.
    """
    name, _, version = spec.strip().partition("==")
    name, version = name.strip().lower(), version.strip()
    version = version.split("+", 1)[0]       # a local build tag (`0.33.0+cu128`): the release
    if name not in KNOWN:
        raise UnknownRuntime(f"unknown runtime {spec!r}: expected one of "
                             f"{', '.join(KNOWN)}, optionally NAME==VERSION")
    recorded = KNOWN[name]
    if "==" in spec and not version:
        raise UnknownRuntime(f"{spec!r}: no version after '=='; give {name} alone for the "
                             f"newest recorded release, or {name}==VERSION")
    if name == "reference" and version and version != recorded[-1]:
        raise UnknownRuntime(f"{spec!r}: the z-lab reference is not versioned; its facts "
                             f"are read from commit {recorded[-1]} (give `reference`)")
    if not version or name == "reference":
        return Release(name, recorded[-1])
    if not RELEASE_VERSION.fullmatch(version):
        raise UnknownRuntime(f"{spec!r}: {version!r} is not a release version of "
                             f"{LABEL[name]}")
    if version.count(".") < 1:
        raise UnknownRuntime(f"{spec!r}: {version!r} is not a release version of "
                             f"{LABEL[name]} (MAJOR.MINOR[.PATCH])")
    base, _, post = version.partition(".post")
    try:
        version_key(base)
    except InvalidVersion:
        raise UnknownRuntime(f"{spec!r}: {version!r} is not a release version of "
                             f"{LABEL[name]}") from None
    for known in recorded:
        if _same(known, version):
            return Release(name, known)
    for known in recorded:
        if _same(known, base) and post:
            # an unlisted post build: the listed release before it (its base, or an
            # earlier post build that changed something) answers for it
            before = [v for v in recorded if version_key(v) < version_key(version)][-1]
            return Release(name, before, exact=False, asked=version, note=(
                f"{LABEL[name]} {version} is a post-release of {known} that changes "
                f"nothing the tool reads: its facts are {before}'s"))
    label, oldest, newest = LABEL[name], recorded[0], recorded[-1]
    if version_key(base) > version_key(newest):       # messages speak for the recorded one
        return Release(name, newest, exact=False, note=(
            f"{label} {version} is newer than {newest}, the newest recorded release: its "
            f"facts are {newest}'s and may be stale; findings name {newest}"))
    if version_key(base) < version_key(oldest):
        return Release(name, oldest, exact=False, asked=version, note=(
            f"{label} {version} is older than {oldest}, the oldest recorded release: its "
            f"facts are {oldest}'s; findings name {version}"))
    around = [v for v in recorded if version_key(v) < version_key(base)][-1:] + \
        [v for v in recorded if version_key(v) > version_key(base)][:1]
    raise UnknownRuntime(f"{spec!r}: {label} has no release {version} (the releases "
                         f"around it are {' and '.join(around)})")


def _same(a: str, b: str) -> bool:
    """Equal as release numbers, zero-padded: `0.33` is `0.33.0`, `0.5` is no `0.5.0rc0`."""
    return version_key(a) == version_key(b)


def default_releases() -> tuple[Release, ...]:
    return tuple(Release(name, KNOWN[name][-1]) for name in SERVING)


def newest(name: str) -> str:
    """'vLLM 0.33.0': the newest known release of a runtime, for messages."""
    return Release(name, KNOWN[name][-1]).label


# the newest known releases, for messages that state a fact of the current runtimes
VLLM_LABEL, SGLANG_LABEL = newest("vllm"), newest("sglang")


def labels(releases) -> str:
    """'vLLM 0.33.0 and SGLang 0.5.23' for messages."""
    names = [r.label for r in releases]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


_PLURAL = {"is": "are", "has": "have", "does": "do"}
# verbs a message joins to the first with "and" ("builds it ... and refuses to start"):
# agreed with the releases too; any other word after "and" is left alone ("and prompts")
_JOINED = frozenset({"refuses", "raises", "fails", "loads", "leaves", "builds", "reads",
                     "takes", "serves", "sizes", "keeps", "stops", "crashes", "captures",
                     "runs", "computes", "is", "has", "does"})


def _plural(verb: str) -> str:
    return _PLURAL.get(verb, verb[:-1] if verb.endswith("s") else verb)


def agree(releases, phrase: str) -> str:
    """'vLLM 0.33.0 refuses to start' / 'vLLM 0.33.0 and SGLang 0.5.23 refuse to start':
    `phrase` starts with a verb in the third person singular; a verb of `_JOINED` after
    "and" agrees too ('... build it and refuse to start')."""
    releases = list(releases)
    words = phrase.split(" ")
    at = 1 if words[0] in ("then", "also") and len(words) > 1 else 0
    if len(releases) > 1:
        words[at] = _plural(words[at])
        for i in range(at + 1, len(words) - 1):
            if words[i] == "and" and words[i + 1] in _JOINED:
                words[i + 1] = _plural(words[i + 1])
    return f"{labels(releases)} {' '.join(words)}"
