"""Each recorded release's server command line, as its own argument parser reads it.

grammar-vllm.json and grammar-sglang.json hold, for every recorded release, the options of
`vllm serve` (the OpenAI server's `make_arg_parser`: its frontend options and
`EngineArgs.add_cli_args`, vllm==0.33.0 entrypoints/common/cli_args.py:431) and of SGLang's
`ServerArgs.add_cli_args` (sglang==0.5.23 server_args.py:679): each option's spellings,
whether it takes a value, its static choices, as runs of releases with the same
definition and the file:line that added it at both ends of each run. They are written by
`python tools/grammar.py`, which executes each release's own parser construction.

`Grammar.resolve` reads a flag as argparse does (Python 3.11 `_parse_optional`; both
parsers keep `allow_abbrev` on): an exact spelling, `--opt=value`, a unique prefix, or an
ambiguous one; vLLM's FlexibleArgumentParser first spells `--a_b` as `--a-b` (up to the
first `.`, vllm==0.33.0 utils/argparse_utils.py:374-394) and reads `--opt.key value` as a
JSON field of `--opt`. SGLang's parser is plain argparse: no such spelling.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from drafter_lint.runtimes.releases import LABEL, Release

HERE = Path(__file__).resolve().parent
NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")     # argparse's negative-number test


@dataclass(frozen=True)
class Option:
    name: str                       # its first spelling, as argparse names it
    spellings: tuple[str, ...]
    takes: str                      # "none", "one", "?", "*", "+", or a count
    choices: tuple | None = None    # static choices, checked after conversion
    converted: bool = False         # a type function converts the value first
    dest: str = ""
    at: str = ""                    # "release path:line" that added it

    @property
    def label(self) -> str:
        """argparse's name for it in messages: its spellings joined by `/`."""
        return "/".join(self.spellings)


@dataclass(frozen=True)
class Resolved:
    """One command-line word read as an option: `option` None when argparse does not
    match it (`problem` then says why, in argparse's words)."""
    word: str                       # as written
    key: str                        # the part before `=` (and `.`), normalized
    option: Option | None = None
    value: str | None = None        # `--opt=value`, `-qfp8`
    problem: str | None = None
    candidates: tuple[str, ...] = ()
    field: str | None = None        # vLLM `--opt.field`: the JSON field it sets


@functools.lru_cache(maxsize=None)
def _data(runtime: str) -> dict:
    path = HERE / f"grammar-{runtime}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


@functools.lru_cache(maxsize=None)
def _order(runtime: str) -> dict[str, int]:
    return {v: i for i, v in enumerate(_data(runtime).get("releases", {}))}


def how(runtime: str, version: str) -> str:
    """"executed" or "not read": how the release's grammar was obtained."""
    return _data(runtime).get("releases", {}).get(version, {}).get("how", "not read")


def _covers(run: dict, at: int, order: dict[str, int]) -> bool:
    return order[run["since"]] <= at and (not run["until"] or at < order[run["until"]])


def for_release(release: Release | None) -> Grammar | None:
    """The grammar of `release` (its recorded version), or None when none was read."""
    if release is None or release.runtime not in ("vllm", "sglang"):
        return None
    return _grammar(release.runtime, release.version)


@functools.lru_cache(maxsize=None)
def _grammar(runtime: str, version: str) -> Grammar | None:
    if how(runtime, version) != "executed":
        return None
    data, order = _data(runtime), _order(runtime)
    at = order[version]
    options = []
    for entry in data["options"]:
        for run in entry["runs"]:
            if _covers(run, at, order):
                choices = run.get("choices")
                options.append(Option(
                    run["options"][0], tuple(run["options"]), run["takes"],
                    tuple(data["choices"][choices]) if choices is not None else None,
                    "type" in run, entry["dest"], run["at"]))
    return Grammar(runtime, version, options)


class Grammar:
    def __init__(self, runtime: str, version: str, options: list[Option]):
        self.runtime, self.version = runtime, version
        self.label = f"{LABEL[runtime]} {version}"
        self.options = {o.name: o for o in options}
        self.spellings = {s: o for o in options for s in o.spellings}
        self._negative = any(NEGATIVE.match(s) for s in self.spellings)

    def normal(self, word: str) -> str:
        """vLLM's spelling of `--a_b...` as `--a-b...` up to the first `.` (and `=`)."""
        if self.runtime != "vllm" or not word.startswith("--"):
            return word
        key, eq, value = word.partition("=")
        head, dot, tail = key[2:].partition(".")
        return "--" + head.replace("_", "-") + dot + tail + eq + value

    def is_option(self, word: str) -> bool:
        """Whether argparse reads `word` as an option (else a value or positional)."""
        if not word.startswith("-") or word == "-":
            return False
        word = self.normal(word)
        if word in self.spellings or word.partition("=")[0] in self.spellings:
            return True
        if self._matches(word):
            return True
        if NEGATIVE.match(word) and not self._negative:
            return False
        return " " not in word

    def _matches(self, word: str) -> list[tuple[str, str | None]]:
        """argparse's `_get_option_tuples`: (spelling, explicit value) of each match."""
        out = []
        if word.startswith("--"):
            prefix, eq, value = word.partition("=")
            out = [(s, value if eq else None) for s in self.spellings if s.startswith(prefix)]
        elif word.startswith("-") and len(word) > 1:
            short, rest = word[:2], word[2:]
            for s in self.spellings:
                if s == short:
                    out.append((s, rest or None))
                elif s.startswith(word):
                    out.append((s, None))
        return out

    def resolve(self, word: str) -> Resolved:
        """`word` (an option-like command-line word) as this release's parser reads it."""
        word_n = self.normal(word)
        if self.runtime == "vllm" and word_n.startswith("-O") and "-O" not in self.spellings \
                and "--optimization-level" in self.spellings:
            # FlexibleArgumentParser rewrites -O3 / -O 3 as --optimization-level
            value = word_n[3:] if word_n[2:3] == "=" else word_n[2:]
            return Resolved(word, "-O", self.spellings["--optimization-level"], value or None)
        key, eq, value = word_n.partition("=")
        explicit = value if eq else None
        field = None
        if self.runtime == "vllm" and "." in key:     # `--speculative-config.model X`
            key, _, field = key.partition(".")
            word_n = key + (("=" + value) if eq else "")
        if word_n in self.spellings:
            return Resolved(word, word_n, self.spellings[word_n], None, field=field)
        if key in self.spellings and eq:
            return Resolved(word, key, self.spellings[key], explicit, field=field)
        matches = self._matches(word_n)
        found = {self.spellings[s] for s, _ in matches}
        if len(found) == 1:
            spelling, value = matches[0]
            return Resolved(word, key, self.spellings[spelling], value, field=field)
        if len(found) > 1:
            names = tuple(s for s, _ in matches)
            return Resolved(word, key, None, explicit, candidates=names, field=field,
                            problem=f"ambiguous option: {word_n} could match "
                                    f"{', '.join(names)}")
        return Resolved(word, key, None, explicit, field=field,
                        problem=f"unrecognized arguments: {word}")

    def takes_value(self, word: str) -> bool | None:
        """Whether the option `word` resolves to reads a value; None when it does not
        resolve."""
        found = self.resolve(word)
        if found.option is None:
            return None
        return found.option.takes != "none" or found.field is not None

    def choices(self, word: str) -> tuple | None:
        found = self.resolve(word)
        return found.option.choices if found.option is not None else None

    def bad_choice(self, option: Option, value: str) -> str | None:
        """argparse's message when `value` is outside `option`'s static choices."""
        if option.choices is None or option.converted:
            return None
        if _chosen(value, option.choices):
            return None
        listed = ", ".join(repr(c) for c in option.choices)
        return f"argument {option.label}: invalid choice: {value!r} (choose from {listed})"

    def history(self, word: str) -> str:
        """Where the spelling `word` (its key) exists in other releases: "removed in
        vLLM X (last in W)", "added in vLLM Y", or ""."""
        key = self.normal(word).partition("=")[0].partition(".")[0]
        present = releases_with(self.runtime, key)
        order = _order(self.runtime)
        here = order[self.version]
        older = [v for v in present if order[v] < here]
        newer = [v for v in present if order[v] > here]
        names = list(order)
        if older:
            last = older[-1]
            gone = names[order[last] + 1]
            how_ = "in" if how(self.runtime, gone) == "executed" else "by"
            if how_ == "by":           # the releases between were not read
                gone = next(v for v in names[order[last] + 1:]
                            if how(self.runtime, v) == "executed")
            said = f"{key} was removed {how_} {LABEL[self.runtime]} {gone} (last in {last})"
            instead = self._renamed(key, last)
            return said + (f"; {self.label} spells it {instead}" if instead else "")
        if newer:
            return f"{key} was added in {LABEL[self.runtime]} {newer[0]}"
        return ""

    def _renamed(self, key: str, last: str) -> str | None:
        """The spelling that sets the same destination here, if the option was renamed."""
        before = _grammar(self.runtime, last)
        option = before.spellings.get(key) if before else None
        if option is None:
            return None
        same = [o for o in self.options.values() if o.dest == option.dest]
        return same[0].name if len(same) == 1 else None

    def choice_history(self, option: Option, value: str) -> str:
        """The releases whose `option` accepted `value`, when this one does not."""
        order = _order(self.runtime)
        here = order[self.version]
        accepted = [v for v in order
                    if (g := _grammar(self.runtime, v)) is not None
                    and (o := g.spellings.get(option.name)) is not None
                    and o.choices is not None and _chosen(value, o.choices)]
        older = [v for v in accepted if order[v] < here]
        newer = [v for v in accepted if order[v] > here]
        if older:
            return f"{value!r} was accepted up to {LABEL[self.runtime]} {older[-1]}"
        if newer:
            return f"{value!r} is accepted from {LABEL[self.runtime]} {newer[0]}"
        return ""


def _chosen(value: str, choices: tuple) -> bool:
    for choice in choices:
        if isinstance(choice, bool) or isinstance(choice, str):
            if str(choice) == value:
                return True
        else:
            try:
                if type(choice)(value) == choice:
                    return True
            except ValueError:
                continue
    return False


@functools.lru_cache(maxsize=None)
def _spelling_releases(runtime: str) -> dict[str, tuple[str, ...]]:
    """Each spelling -> the releases whose parser has it."""
    data, order = _data(runtime), _order(runtime)
    names = list(order)
    read = [v for v in names if how(runtime, v) == "executed"]
    out: dict[str, list[str]] = {}
    for entry in data.get("options", ()):
        for run in entry["runs"]:
            for version in read:
                if _covers(run, order[version], order):
                    for spelling in run["options"]:
                        out.setdefault(spelling, []).append(version)
    return {k: tuple(sorted(set(v), key=order.get)) for k, v in out.items()}


def releases_with(runtime: str, spelling: str) -> tuple[str, ...]:
    """The recorded releases whose parser has `spelling`, oldest first."""
    return _spelling_releases(runtime).get(spelling, ())


def speculative_keys(release: Release) -> frozenset | None:
    """The fields of vLLM's SpeculativeConfig in `release` (its --speculative-config
    keys), or None when not read."""
    if release.runtime != "vllm":
        return None
    order = _order("vllm")
    if release.version not in order:
        return None
    found = None
    for run in _data("vllm").get("speculative_keys", ()):
        if order[run["since"]] <= order[release.version]:
            found = frozenset(run["keys"])
    return found
