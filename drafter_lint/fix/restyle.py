"""Rewrite a JSON file in place: only changed values are re-serialized.

Untouched bytes (line endings, separators, indentation, key order, escapes, number
spellings such as `2.0e-2`) stay as they are. A changed scalar or container replaces its
own span; a removed member takes its comma with it; an added member goes after the
object's last member, in the separators and indentation of its siblings. Anything this
cannot place exactly (duplicate keys, a key added to an empty object, which has no
sibling to copy) falls back to a whole-file serialization in the file's style.
"""

from __future__ import annotations

import json

from drafter_lint import jsondoc


class _Fallback(Exception):
    """This change cannot be placed without guessing the style."""


def _same(a, b) -> bool:
    return type(a) is type(b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class _Style:
    def __init__(self, text: str):
        self.text = text
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.ascii = text.isascii()
        self.colon = _after(text, '":', " ", ": ", ":")
        self.comma = _after(text, ",", " ", ", ", ",")
        self.indent = jsondoc._style(text)[0]

    def line_indent(self, offset: int) -> str:
        """The leading whitespace of the line holding `offset`."""
        start = self.text.rfind("\n", 0, offset) + 1
        line = self.text[start:offset]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def dump(self, value, base: str) -> str:
        """`value` serialized like the file, its continuation lines indented from `base`."""
        if self.indent is None:
            return json.dumps(value, ensure_ascii=self.ascii,
                              separators=(self.comma, self.colon))
        text = json.dumps(value, indent=self.indent, ensure_ascii=self.ascii,
                          separators=(",", self.colon))
        return text.replace("\n", self.newline + base)


def _after(text: str, mark: str, char: str, spaced: str, tight: str) -> str:
    """`spaced` when the first `mark` in `text` is followed by `char`, else `tight`."""
    at = text.find(mark)
    return spaced if at >= 0 and text[at + len(mark):at + len(mark) + 1] == char else tight


def restyle(original: str, old, new) -> str:
    """`original` (whose value is `old`) changed to hold `new`, touching only what changed."""
    doc = jsondoc.parse(original)
    if doc.duplicates:
        raise _Fallback
    parser = jsondoc.layout(original)
    style = _Style(original)
    edits: list[tuple[int, int, str]] = []          # (start, end, replacement)
    _diff(parser, style, "", old, new, edits)
    text = original
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _diff(parser, style: _Style, ptr: str, old, new, edits: list) -> None:
    if _same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        _diff_object(parser, style, ptr, old, new, edits)
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            _diff(parser, style, f"{ptr}/{i}", a, b, edits)
        return
    start, end = parser.spans[ptr]
    edits.append((start, end, style.dump(new, style.line_indent(start))))


def _diff_object(parser, style: _Style, ptr: str, old: dict, new: dict, edits: list) -> None:
    text = parser.text
    for key in old:
        child = ptr + "/" + jsondoc.escape(key)
        if key not in new:
            edits.append(_removal(parser, child))
        else:
            _diff(parser, style, child, old[key], new[key], edits)
    added = [k for k in new if k not in old]
    if not added:
        return
    siblings = [ptr + "/" + jsondoc.escape(k) for k in old]
    if not siblings:
        raise _Fallback
    last_start, last_end = parser.members[siblings[-1]]
    if len(siblings) > 1:
        _, before_last = parser.members[siblings[-2]]
        separator = text[before_last:last_start]  # ",\n    " or ", " as the file has it
    else:
        separator = "," + (style.newline + style.line_indent(last_start)
                           if "\n" in text[parser.spans[ptr][0]:last_start] else " ")
    base = style.line_indent(last_start)
    pieces = "".join(f"{separator}{json.dumps(k, ensure_ascii=style.ascii)}{style.colon}"
                     f"{style.dump(new[k], base)}" for k in added)
    edits.append((last_end, last_end, pieces))


def _removal(parser, child: str) -> tuple[int, int, str]:
    """The span of member `child` with one adjacent comma (and the whitespace before it)."""
    text = parser.text
    start, end = parser.members[child]
    after = end
    while after < len(text) and text[after] in " \t\r\n":
        after += 1
    if after < len(text) and text[after] == ",":
        # drop "member," and the whitespace up to the next member
        nxt = after + 1
        while nxt < len(text) and text[nxt] in " \t\r\n":
            nxt += 1
        return start, nxt, ""
    # the last member: drop the comma before it and the whitespace between
    before = start - 1
    while before >= 0 and text[before] in " \t\r\n":
        before -= 1
    if before >= 0 and text[before] == ",":
        return before, end, ""
    return start, end, ""


def rewrite(original: str, old, new, fallback) -> str:
    """`restyle`, or `fallback(new)` where the change cannot be placed exactly; the result
    always parses to `new`."""
    try:
        text = restyle(original, old, new)
        if _same(json.loads(text), new):
            return text
    except (_Fallback, KeyError, ValueError):
        pass
    return fallback(new)
