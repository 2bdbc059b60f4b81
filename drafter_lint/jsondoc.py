"""A JSON reader that keeps what `json.loads` throws away.

`parse(text)` returns the same value `json.loads` would (last duplicate wins), plus:
- `positions`: RFC 6901 pointer -> (line, column), 1-based, of the member's key (object
  members) or of the value (array items and the root);
- `duplicates`: every key that appears more than once in one object, with all positions
  and values, since different JSON readers keep different copies.

Nesting is bounded so hostile input cannot exhaust the stack.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import math
import re
from dataclasses import dataclass, field

from drafter_lint.errors import JsonSyntaxError

MAX_DEPTH = 200
POSITIONS_LIMIT = 1 << 20     # bytes; beyond this, findings are reported at line 1

_WS = " \t\n\r"
_NUMBER = json.scanner.NUMBER_RE
_CONSTANTS = {"null": None, "true": True, "false": False,
              "NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def strings(value) -> list[str]:
    """The strings of a JSON list (anything else: none)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


@dataclass
class Duplicate:
    pointer: str                      # pointer of the duplicated member
    positions: list[tuple[int, int]]  # every occurrence, in file order
    values: list                      # every value, in file order


@dataclass
class JsonDocument:
    text: str
    value: object
    positions: dict[str, tuple[int, int]] | None = field(default_factory=dict)  # None: lazy
    duplicates: list[Duplicate] = field(default_factory=list)
    indent: int | str | None = 2
    trailing_newline: bool = True

    def position(self, pointer: str) -> tuple[int, int]:
        """Position of `pointer`, or of its nearest existing parent (missing keys). Files
        over POSITIONS_LIMIT (shard indexes; real configs are a few KB) are not parsed
        for positions, which would cost seconds in Python: each key is found by a text
        search instead, in order along the pointer (C speed)."""
        if self.positions is None:
            self.positions = {} if len(self.text) > POSITIONS_LIMIT else \
                parse(self.text).positions
        if not self.positions and len(self.text) > POSITIONS_LIMIT:
            return _scan_position(self.text, pointer)
        while True:
            if pointer in self.positions:
                return self.positions[pointer]
            if not pointer:
                return (1, 1)
            pointer = pointer.rsplit("/", 1)[0]


def _scan_position(text: str, pointer: str) -> tuple[int, int]:
    """Where the keys of `pointer` appear, each searched after the previous one's (an
    array index keeps the position reached so far); (1, 1) when a key is not found."""
    at, found = 0, None
    for token in (t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]):
        if token.isdigit():
            continue
        spellings = {json.dumps(token), json.dumps(token, ensure_ascii=False)}
        hits = [m for m in (re.compile(re.escape(k) + r"\s*:").search(text, at)
                            for k in spellings) if m]
        if not hits:
            break
        found = min(hits, key=lambda m: m.start())
        at = found.start() + 1
    if found is None:
        return (1, 1)
    start = found.start()
    return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)


def escape(token: str) -> str:
    """One RFC 6901 reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def pointer(*tokens: object) -> str:
    return "".join("/" + escape(str(t)) for t in tokens)


def dotted(ptr: str) -> str:
    """`/dflash_config/mask_token_id` -> `dflash_config.mask_token_id`, for messages."""
    return ptr[1:].replace("/", ".")


def resolve(document: object, ptr: str) -> object:
    """The value at `ptr`; KeyError when it does not exist."""
    node = document
    if not ptr:
        return node
    for raw in ptr[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(ptr)
    return node


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self.positions: dict[str, tuple[int, int]] = {}
        self.duplicates: list[Duplicate] = []
        # offsets for rewriting in place (drafter_lint/fix/restyle.py): pointer -> (start, end)
        # of the value, of the whole member (key to value) and the container's closer
        self.spans: dict[str, tuple[int, int]] = {}
        self.members: dict[str, tuple[int, int]] = {}
        self.closers: dict[str, int] = {}

    def where(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, index)
        return line, index - self.line_starts[line - 1] + 1

    def fail(self, message: str, index: int):
        raise JsonSyntaxError(message, *self.where(min(index, len(self.text))))

    def skip(self, i: int) -> int:
        text = self.text
        while i < len(text) and text[i] in _WS:
            i += 1
        return i

    def value(self, i: int, ptr: str, depth: int) -> tuple[object, int]:
        value, end = self._value(i, ptr, depth)
        self.spans[ptr] = (i, end)
        return value, end

    def _value(self, i: int, ptr: str, depth: int) -> tuple[object, int]:
        if depth > MAX_DEPTH:
            self.fail(f"nested deeper than {MAX_DEPTH} levels", i)
        text = self.text
        if i >= len(text):
            self.fail("unexpected end of file", i)
        c = text[i]
        if c == "{":
            return self.object(i, ptr, depth)
        if c == "[":
            return self.array(i, ptr, depth)
        if c == '"':
            return self.string(i)
        for word, constant in _CONSTANTS.items():
            if text.startswith(word, i):
                return constant, i + len(word)
        match = _NUMBER.match(text, i)
        if match:
            integer, frac, exp = match.groups()
            try:
                if frac or exp:
                    return float(integer + (frac or "") + (exp or "")), match.end()
                return int(integer), match.end()
            except ValueError:
                self.fail("number too long", i)
        self.fail(f"unexpected character {c!r}", i)

    def string(self, i: int) -> tuple[str, int]:
        try:
            return json.decoder.scanstring(self.text, i + 1, True)
        except json.JSONDecodeError as exc:
            self.fail(exc.msg.lower(), exc.pos)

    def object(self, i: int, ptr: str, depth: int) -> tuple[dict, int]:
        text = self.text
        result: dict = {}
        seen: dict[str, list] = {}
        i = self.skip(i + 1)
        if i < len(text) and text[i] == "}":
            self.closers[ptr] = i
            return result, i + 1
        while True:
            if i >= len(text) or text[i] != '"':
                self.fail("expected a quoted key", i)
            key_at, key_start = self.where(i), i
            key, i = self.string(i)
            i = self.skip(i)
            if i >= len(text) or text[i] != ":":
                self.fail("expected ':' after key", i)
            child = ptr + "/" + escape(key)
            value, i = self.value(self.skip(i + 1), child, depth + 1)
            self.members[child] = (key_start, i)
            if key in seen:
                seen[key].append((key_at, value))
            else:
                seen[key] = [(key_at, value)]
                self.positions[child] = key_at
            result[key] = value
            i = self.skip(i)
            if i < len(text) and text[i] == ",":
                i = self.skip(i + 1)
                continue
            if i < len(text) and text[i] == "}":
                self.closers[ptr] = i
                break
            self.fail("expected ',' or '}'", i)
        for key, occurrences in seen.items():
            if len(occurrences) > 1:
                self.duplicates.append(Duplicate(
                    ptr + "/" + escape(key),
                    [at for at, _ in occurrences],
                    [v for _, v in occurrences]))
        return result, i + 1

    def array(self, i: int, ptr: str, depth: int) -> tuple[list, int]:
        text = self.text
        result: list = []
        i = self.skip(i + 1)
        if i < len(text) and text[i] == "]":
            self.closers[ptr] = i
            return result, i + 1
        while True:
            child = f"{ptr}/{len(result)}"
            self.positions[child] = self.where(i)
            value, i = self.value(i, child, depth + 1)
            result.append(value)
            i = self.skip(i)
            if i < len(text) and text[i] == ",":
                i = self.skip(i + 1)
                continue
            if i < len(text) and text[i] == "]":
                self.closers[ptr] = i
                return result, i + 1
            self.fail("expected ',' or ']'", i)


def _style(text: str) -> tuple[int | str | None, bool]:
    """Indent unit of `text` (None when on one line) and whether it ends with a newline."""
    indent: int | str | None = None
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            indent = len(lead) if set(lead) == {" "} else lead
            break
    return indent, text.endswith("\n")


def layout(text: str) -> "_Parser":
    """The parser state of `text` after a full parse: value spans, member spans, closers."""
    parser = _Parser(text)
    start = parser.skip(0)
    parser.value(start, "", 0)
    return parser


def parse(text: str) -> JsonDocument:
    """Parse `text`; raises JsonSyntaxError on anything `json.loads` would refuse."""
    parser = _Parser(text)
    if text.startswith("\ufeff"):
        parser.fail("starts with a byte order mark, which json.loads refuses", 0)
    start = parser.skip(0)
    parser.positions[""] = parser.where(start)
    value, end = parser.value(start, "", 0)
    end = parser.skip(end)
    if end != len(text):
        parser.fail("extra data after the JSON value", end)
    indent, newline = _style(text)
    return JsonDocument(text, value, parser.positions, parser.duplicates, indent, newline)


def parse_fast(text: str) -> JsonDocument:
    """Like `parse`, at C speed for large files (shard indexes): positions are worked out
    on first use. Falls back to `parse` when the text has duplicate keys or is invalid."""
    duplicated = False

    def pairs_hook(pairs):
        nonlocal duplicated
        result = dict(pairs)
        duplicated = duplicated or len(result) != len(pairs)
        return result

    try:
        value = json.loads(text, object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return parse(text)
    if duplicated:
        return parse(text)
    indent = _style(text[:4096])[0]
    return JsonDocument(text, value, None, [], indent, text.endswith("\n"))
