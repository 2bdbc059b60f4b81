"""The model card's launch lines against the checkpoint it belongs to (drafter_lint/card.py
reads them; the pipeline lints each line with the launch rules, whose findings it moves to
the line)."""

from __future__ import annotations

import re

from drafter_lint import runtimes
from drafter_lint.checkpoint import CARD
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.registry import rule



def _at(line) -> dict:
    return {"file": CARD, "line": line.line, "column": line.column}


# a quantized copy of a model keeps its name with one of these after it
QUANTIZED = re.compile(r"[-_.](nv)?(mx)?(fp4|fp8|int4|int8|awq|gptq|w4a16|w8a8|w4a8|w8a16|"
                       r"gguf|bnb|[48]bit|quark|quantized)\b", re.I)


def _unquantized(name: str) -> str:
    """A repo's last name part without the quantization marks a build adds after the
    model's name (`Qwen3.5-27B-NVFP4` and `Qwen3.5-27B-FP8` are both `Qwen3.5-27B`)."""
    last = name.rstrip("/").rsplit("/", 1)[-1]
    found = QUANTIZED.search(last)
    return last[:found.start()] if found else last


def _same(named: str, wanted: str, copies: bool = False) -> bool:
    """A name is the wanted repo as written, or a local path to a copy of it (its last part
    is the repo's name); with `copies`, also another build of the same model (quantized,
    or its unquantized base: both named after it)."""
    named, mine = named.rstrip("/"), wanted.rsplit("/", 1)[-1]
    last = named.rsplit("/", 1)[-1]
    return named == wanted or last == mine or \
        copies and _unquantized(last).lower() == _unquantized(mine).lower()


def _serves_itself(facts: Facts) -> bool:
    """An MTP line of a checkpoint that carries its own MTP layers: the served model is
    the draft (the repo itself, under whatever local path it was downloaded to)."""
    launch = facts.launch
    return facts.family == "mtp" and bool(launch.draft) and launch.draft == launch.target


def _placeholder(value: str) -> bool:
    return "$" in value or "<" in value or "{" in value


@rule("CRD101", "card-launch-unreadable", "info", "any", needs=())
def launch_unreadable(facts: Facts):
    """A launch line in the model card that cannot be read as its server reads it.

    The card's fenced shell blocks are read as a shell would (`\\` continuations, quotes,
    `$VAR` left as written) and its Python blocks' `LLM(...)` / `Engine(...)` calls as
    literals, then with the gate's parser. A line that does not parse is said once, here,
    and not linted: a guess at what it meant would be a finding about another line.

    A template's placeholders (`<TP_SIZE>`, `$MODEL`, a `......` standing for the
    arguments left out) are named once, and the line is read with them as written.

    Informs: an unclosed quote in `--speculative-config`; `speculative_config=spec` (a
    variable); `--tensor-parallel-size <TP_SIZE>`. Passes: every line readable, or no card.
    """
    card, asked = facts.checkpoint.card, facts.options.card_line
    for line in [asked] if asked else card.lines if card else ():
        if line.problem:
            yield Finding("", f"card line `{_short(line.text)}` is not read: {line.problem}",
                          **_at(line))
        elif line.placeholders:
            yield Finding("", f"card line `{_short(line.text)}` is a template "
                          f"({', '.join(line.placeholders)}): the rest of it is read, and "
                          f"the checks that need those values are skipped", **_at(line))


@rule("CRD102", "card-launch-other-drafter", "warning", "any", needs=("card", "launch"))
def launch_other_drafter(facts: Facts):
    """A launch line in the model card serves another drafter than this checkpoint.

    Users copy the card's command: a draft path naming another repo (a sibling size, an
    older revision's name) serves that drafter, and nothing errors. The line must name
    this repo, `.`, or a local path whose last part is its name.

    Warns: `--speculative-draft-model-path z-lab/Qwen3-8B-DFlash` in the card of
    `z-lab/Qwen3-4B-DFlash` (checked on the hub; for a local folder, whose name may not be
    the repo's, an info). Passes: the repo itself, `$DRAFT`, a local copy, and an MTP line
    whose draft is the served model itself (a checkpoint's own MTP layers).
    """
    line, draft = facts.options.card_line, facts.launch.draft
    if line is None or not draft or _placeholder(draft) or draft in (".", "./") or \
            _serves_itself(facts):
        return
    repo = facts.checkpoint.repo or facts.checkpoint.root.resolve().name
    if not _same(draft, repo):
        # a local folder's name may not be its repo's: then only an info
        local = facts.checkpoint.repo is None
        yield Finding("", f"the card's launch line serves {draft} as the draft, not this "
                      f"checkpoint ({repo}{', the folder' if local else ''}): users who copy "
                      f"it get that drafter", severity=Severity.INFO if local else None,
                      **_at(line))


@rule("CRD103", "card-launch-target-not-base-model", "warning", "any",
      needs=("card", "launch"))
def launch_target_not_base(facts: Facts):
    """A launch line in the model card serves another target than its `base_model`.

    The card's `base_model` names the model the drafter was trained against; its launch
    line should serve that target. Another target (a sibling size, a different
    fine-tune) taps hidden states the drafter never saw: acceptance collapses silently.

    Warns: `vllm serve Qwen/Qwen3-8B` in a card whose base_model is Qwen/Qwen3-4B. Passes:
    the base model, a local copy of it, another build of it named after it
    (`ornith-ai/Ornith-1.5-35B-A3B-NVFP4` for `ornith-ai/Ornith-1.5-35B-A3B`, as
    jzinno/Ornith-1.5-35B-A3B-DFlash2's card serves; an FP8 build where base_model names
    the NVFP4 one), the MTP line of a `base_model_relation: quantized` repo serving itself
    (as `/model` or any path), `$MODEL`, a card with no base_model.
    """
    line, target = facts.options.card_line, facts.launch.target
    card = facts.checkpoint.card
    if line is None or card is None or not card.bases or not target or _placeholder(target):
        return
    if card.relation == "quantized" and _serves_itself(facts):
        return          # a quantized build serving its own MTP layers: it is the target
    if not any(_same(target, base, copies=True) for base in card.bases):
        yield Finding("", f"the card's launch line serves {target} as the target, but its "
                      f"base_model is {', '.join(card.bases)}", **_at(line))


@rule("CRD104", "card-base-model-missing", "warning", "any", needs=())
def base_model_missing(facts: Facts):
    """The card's `base_model` names a repo (or revision) the hub does not have.

    For a hub repo linted before download, the card's `base_model` is the target the
    drafter is held to (hidden size, vocabulary, the taps against its depth). A name the
    hub does not know (a typo, a renamed or private repo) leaves users without the
    target the drafter was trained for, and these checks do not run. A hub that cannot be
    reached is a note, not this finding.

    Warns: `base_model: Qwen/Qwen3.6-27B-Instruct` when no such repo exists. Passes: a
    base_model the hub serves; a local folder (nothing is looked up).
    """
    card, missing = facts.checkpoint.card, facts.options.card_base_missing
    if card is not None and card.bases and missing:
        yield Finding("", f"the card's base_model {card.bases[0]} is not on the hub "
                      f"({missing}): the target checks did not run", file=CARD,
                      line=card.base_at, column=1)


@rule("CRD105", "card-pin-not-a-release", "warning", "any", needs=())
def pin_not_a_release(facts: Facts):
    """The card installs a vLLM or SGLang version that was never released.

    `pip install vllm==0.32.1` fails when no such release exists, and the card's pinned
    release is also what its launch lines are checked against: a pin between two recorded
    releases that is neither names none. A version newer than the newest recorded release
    is not this finding (it may be one this tool does not know yet), nor is `>=X`.

    Warns: `pip install vllm==0.32.1` (the releases around it are 0.32.0 and 0.33.0).
    Passes: `pip install vllm==0.33.0`, `pip install "sglang>=0.5.9"`, no pin.
    """
    card = facts.checkpoint.card
    for runtime, version in (card.pins if card else {}).items():
        if card.pin_op.get(runtime) != "==":
            continue
        try:
            runtimes.parse(f"{runtime}=={version}")
        except runtimes.UnknownRuntime as exc:
            if "has no release" in str(exc):
                line, column = card.pin_at[runtime]
                yield Finding("", f"the card installs {runtime}=={version}: "
                              f"{str(exc).split(': ', 1)[-1]}; pip cannot install it",
                              file=CARD, line=line, column=column)


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."
