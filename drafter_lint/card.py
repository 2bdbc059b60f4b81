"""The launch lines a model card shows: the fenced shell and Python blocks of README.md,
read as a shell (or Python) would, into the argv the gate's parser takes.

Nothing here judges a line: a line that cannot be read keeps the reason (`problem`), and
rules/card.py reports it as a note, never a guess.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass, field

MAX_CARD_BYTES = 1 << 20       # cards are a few KB; a larger README is not read for lines
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")
PYTHON = {"python", "py", "python3", "ipython", "pycon"}
OPERATORS = {"&&", "||", ";", "|", "&"}
# the version ends on a letter, digit, `+` or `-`: `vllm==0.25.0.` ends a sentence
PIN = re.compile(r"\b(vllm|sglang)(?:\[[\w,-]+\])?(==|>=)([0-9](?:[\w.+-]*[\w+-])?)")


@dataclass(frozen=True)
class CardLine:
    """One launch the card shows, at `line`:`column` of README.md (1-based)."""

    line: int
    column: int
    text: str                               # its first line as written
    argv: tuple[str, ...] = ()              # as the server's parser reads it
    problem: str | None = None              # why it cannot be read (then no argv)
    placeholders: tuple[str, ...] = ()      # template words (`<TP_SIZE>`, `......`, `$MODEL`)


@dataclass
class Card:
    lines: list[CardLine] = field(default_factory=list)
    pins: dict[str, str] = field(default_factory=dict)   # runtime -> release it installs
    pin_at: dict[str, tuple[int, int]] = field(default_factory=dict)   # its line, column
    pin_op: dict[str, str] = field(default_factory=dict)   # "==", or ">=": the oldest allowed
    unread: str | None = None       # why the card's lines were not read (its size)
    bases: tuple[str, ...] = ()                           # its front matter's base_model
    relation: str | None = None       # base_model_relation: "quantized", "finetune", ...
    base_at: int | None = None                            # the line of `base_model:`


def read(text: str) -> Card:
    """The launches in the fenced blocks of `text`, the releases it pins and the
    `base_model` of its YAML front matter."""
    meta = front_matter(text)
    relation = meta.get("base_model_relation")
    card = Card(bases=_bases(meta), relation=relation if isinstance(relation, str) else None)
    found = re.search(r"^base_model\s*:", text, re.M) if card.bases else None
    card.base_at = text[:found.start()].count("\n") + 1 if found else None
    for match in PIN.finditer(text):      # `==X`, or `>=X`: the oldest it allows
        if match.group(1) not in card.pins:
            card.pins[match.group(1)] = match.group(3)
            card.pin_op[match.group(1)] = match.group(2)
            before = text[:match.start()]
            card.pin_at[match.group(1)] = (before.count("\n") + 1,
                                           match.start() - before.rfind("\n"))
    for start, info, body in _blocks(text.splitlines()):
        if info.lower() in PYTHON:
            card.lines += _python(start, body)
        else:
            card.lines += _shell(start, body)
    return card


def front_matter(text: str) -> dict:
    """The card's YAML front matter ({} when absent or unreadable)."""
    found = re.match(r"---\s*\n(.*?)\n---\s*(\n|$)", text, re.S)
    if not found:
        return {}
    import yaml     # only a card with front matter pays for it (a re-check is 0.13 s)

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)     # libyaml's, when built
    try:
        data = yaml.load(found.group(1), Loader=loader)
    except (yaml.YAMLError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _bases(data: dict) -> tuple[str, ...]:
    """`base_model` (a name or a list) of the front matter `data`."""
    value = data.get("base_model")
    values = value if isinstance(value, list) else [value]
    return tuple(v for v in values if isinstance(v, str))


def _blocks(lines: list[str]):
    """(first body line number, info string, body lines) of each fenced block; a block
    inside an HTML comment (`<!-- ... -->`) is not shown on the hub, so not read."""
    i, commented = 0, False
    while i < len(lines):
        text = lines[i]
        if commented or "<!--" in text:
            opened = text.rfind("<!--")
            commented = (commented or opened >= 0) and "-->" not in text[max(opened, 0):]
            if commented or opened >= 0:
                i += 1
                continue
        opening = FENCE.match(text)
        if not opening:
            i += 1
            continue
        fence = opening.group("fence")
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j])
            j += 1
        yield i + 2, opening.group("info"), body
        i = j + 1


def _shell(start: int, body: list[str]) -> list[CardLine]:
    """Logical commands (`\\` continuations joined, `$ ` prompts and comments dropped)
    that start vLLM or SGLang."""
    out, i = [], 0
    while i < len(body):
        first, column = body[i], len(body[i]) - len(body[i].lstrip()) + 1
        text, at = first.strip(), start + i
        while text.endswith("\\") and i + 1 < len(body):
            i += 1
            text = text[:-1] + " " + body[i].strip()
        i += 1
        if text.startswith("$ "):
            text, column = text[2:], column + 2
        if not text or text.startswith("#") or not _mentions_server(text):
            continue
        try:
            words = shlex.split(text, comments=True)
        except ValueError as exc:
            # a quoted argument (`--speculative-config '{` ... `}'`) may span lines: a
            # shell reads on to the closing quote
            words, taken = _quoted_on(text, body, i)
            if words is None:
                out.append(CardLine(at, column, first.strip(),
                                    problem=f"not shell syntax ({exc})"))
                continue
            i += taken
        for command in _commands(words):
            command = _server_command(command)
            if _is_launch(command):
                marks = tuple(dict.fromkeys(w for w in command if TEMPLATE.fullmatch(w)))
                # an ellipsis stands for arguments the card leaves out: not a word to read
                command = [w for w in command if not ELLIPSIS.fullmatch(w)]
                out.append(CardLine(at, column, first.strip(), tuple(command),
                                    placeholders=marks))
    return out


ELLIPSIS = re.compile(r"\.{3,}|…")
# words a card's template leaves for the reader to fill in
TEMPLATE = re.compile(r"<[A-Za-z_][\w.-]*>|\$\{?[A-Za-z_]\w*\}?|\.{3,}|…")


def _mentions_server(text: str) -> bool:
    return bool(re.search(r"\bvllm\s+serve\b|\bvllm\.entrypoints\.|sglang\.launch_server|"
                          r"\bsglang\s+serve\b|vllm/vllm-openai", text))


def _quoted_on(text: str, body: list[str], after: int) -> tuple[list[str] | None, int]:
    """`text` joined with the next lines of the block (newlines kept, as a shell keeps
    them inside quotes) until it is shell syntax: (words, lines taken), or (None, 0)."""
    for taken in range(1, min(len(body) - after, MAX_QUOTED_LINES) + 1):
        joined = text + "\n" + "\n".join(body[after:after + taken])
        if joined.rstrip().endswith("\\"):
            continue
        try:
            return shlex.split(joined, comments=True), taken
        except ValueError:
            continue
    return None, 0


MAX_QUOTED_LINES = 200
SUDO_VALUES = {"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir",
               "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-T",
               "--command-timeout", "-U", "--other-user"}
# container images whose entrypoint is `vllm serve` (vllm/vllm-openai, docker/Dockerfile)
VLLM_IMAGES = re.compile(r"(?:[\w.-]+/)*vllm/vllm-openai(?::[\w.-]+)?(?:@sha256:\w+)?")


def _server_command(words: list[str]) -> list[str]:
    """The server command a card's line runs: `sudo [opts]` dropped (a card shows what to
    run; the gate itself refuses sudo), and `docker run ... vllm/vllm-openai ARGS` read as
    `vllm serve ARGS` (the image's entrypoint); `docker run ... IMAGE CMD` as CMD."""
    if words and words[0].rsplit("/", 1)[-1] == "sudo":
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in SUDO_VALUES else 1
        words = words[i:]
    if len(words) > 2 and words[0].rsplit("/", 1)[-1] in ("docker", "podman") and \
            words[1] == "run":
        for i, word in enumerate(words[2:], 2):
            if VLLM_IMAGES.fullmatch(word):
                rest = words[i + 1:]
                return rest if rest[:2] == ["vllm", "serve"] else ["vllm", "serve", *rest]
        names = [w.rsplit("/", 1)[-1] for w in words]
        for starter in ("python", "python3", "vllm", "sglang"):   # an image's CMD
            if starter in names[2:]:
                return words[names.index(starter, 2):]
    return words


def _commands(words: list[str]) -> list[list[str]]:
    """`a && b; c` as [a, b, c]: an operator counts only as a word of its own (shlex does
    not split `a&&b`, and neither is it read here)."""
    out, current = [], []
    for word in words:
        if word in OPERATORS:
            out.append(current)
            current = []
        else:
            current.append(word)
    return [c for c in out + [current] if c]


# what a server command starts with: the server, Python, or a launcher the gate's parser
# reads through (drafter_lint/command.py); `echo vllm serve ...` is not a launch
STARTERS = {"vllm", "sglang", "env", "uv", "nohup", "exec", "setsid", "numactl", "taskset",
            "nice", "timeout", "stdbuf"}


def _is_launch(words: list[str]) -> bool:
    program = next((w for w in words if not re.fullmatch(r"[A-Za-z_]\w*=.*", w)), "")
    program = program.rsplit("/", 1)[-1]
    if program not in STARTERS and not re.fullmatch(r"python[\d.]*", program):
        return False
    names = [w.rsplit("/", 1)[-1] for w in words]
    return any(a == "vllm" and b == "serve" for a, b in zip(names, names[1:])) or \
        any(w.startswith("vllm.entrypoints.") for w in words) or \
        "sglang.launch_server" in words or \
        any(a == "sglang" and b == "serve" for a, b in zip(names, names[1:]))


# --- Python: vllm.LLM(...) and sglang.Engine(...) ---------------------------------------

VLLM_FLAGS = {"max_model_len": "--max-model-len", "hf_overrides": "--hf-overrides",
              "tensor_parallel_size": "--tensor-parallel-size",
              "quantization": "--quantization", "revision": "--revision"}


def _python(start: int, body: list[str]) -> list[CardLine]:
    source = "\n".join(body)
    if not re.search(r"\b(LLM|Engine)\s*\(", source):
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        line = start + (exc.lineno or 1) - 1
        return [CardLine(line, 1, (body[(exc.lineno or 1) - 1] if body else "").strip(),
                         problem=f"not Python syntax ({exc.msg})")]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callee(node) in ("LLM", "Engine"):
            kwargs = {k.arg: k.value for k in node.keywords if k.arg}
            if _callee(node) == "LLM" and "speculative_config" not in kwargs:
                continue
            if _callee(node) == "Engine" and "speculative_algorithm" not in kwargs:
                continue
            text = body[node.lineno - 1].strip()
            at, column = start + node.lineno - 1, node.col_offset + 1
            try:
                argv = _llm(kwargs) if _callee(node) == "LLM" else _engine(kwargs)
            except ValueError as exc:
                out.append(CardLine(at, column, text, problem=str(exc)))
                continue
            out.append(CardLine(at, column, text, tuple(argv)))
    return sorted(out, key=lambda c: (c.line, c.column))


def _callee(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None


def _value(node: ast.AST, what: str):
    """A literal; a bare name stands for a `$NAME` placeholder (a path the reader sets)."""
    if isinstance(node, ast.Name):
        return f"${node.id}"
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError(f"{what} is not a literal; not read") from None


def _llm(kwargs: dict) -> list[str]:
    model = _value(kwargs["model"], "model") if "model" in kwargs else None
    if not isinstance(model, str):
        raise ValueError("LLM(...) names no model; not read")
    spec = _value(kwargs["speculative_config"], "speculative_config")
    if isinstance(spec, str) and spec.startswith("$"):
        raise ValueError(f"speculative_config is the variable `{spec[1:]}`; not read")
    if not isinstance(spec, dict):
        raise ValueError("speculative_config is not a dict; not read")
    argv = ["vllm", "serve", model, "--speculative-config", json.dumps(spec)]
    for key, flag in VLLM_FLAGS.items():
        if key in kwargs:
            value = _value(kwargs[key], key)
            argv += [flag, json.dumps(value) if isinstance(value, dict) else str(value)]
    return argv


def _engine(kwargs: dict) -> list[str]:
    argv = ["python", "-m", "sglang.launch_server"]
    for key, node in kwargs.items():
        if key in ("model_path",) or key.startswith("speculative_") or key == "context_length":
            argv += ["--" + key.replace("_", "-"), str(_value(node, key))]
    if "--model-path" not in argv:
        raise ValueError("Engine(...) names no model_path; not read")
    return argv
