"""Findings derived from what the selected path reads (RD101): a field the drafter was
trained with, which a release's path does not read, or reads under another spelling.

No per-field code: the fields are `runtimes.trained.TRAINED`, and whether a path reads
one is the table row of its key for that release and runner.
"""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule
from drafter_lint.runtimes.trained import TRAINED, WHEN, Trained


def asks(when: str, value) -> bool:
    """Whether a field's `value` asks for what `when` names (trained.WHEN)."""
    if when == "true":
        return value is True
    if when == "false":
        return value is False
    if when == "sliding":
        return isinstance(value, list) and "sliding_attention" in value
    raise ValueError(f"unknown condition {when!r}")


def read_spellings(field: Trained, value) -> set[str] | None:
    """The pointers of `field` that a row's `value` reads (None: the row is not a read)."""
    if isinstance(value, bool):
        return {ptr for ptr, _ in field.spellings} if value else set()
    if not isinstance(value, tuple):
        return None
    listed = {v[0] if isinstance(v, tuple) else v for v in value}
    if all(not name for _, name in field.spellings):      # a list of sources: read if any
        return {ptr for ptr, _ in field.spellings} if listed else set()
    return {ptr for ptr, name in field.spellings if name in listed or ptr in listed}


def unread(facts: Facts, field: Trained):
    """(pointer, releases, what they read instead) for the first spelling the checkpoint
    sets to a value that asks for something, grouped over the releases whose path reads
    no spelling so set."""
    active = [ptr for ptr, _ in field.spellings if asks(field.when, facts.get(ptr, None))]
    if not active:
        return
    skipping: dict[tuple, list] = {}
    for release in facts.releases:
        fact = runtimes.lookup(field.key, release)
        reads = read_spellings(field, fact.value) if fact is not None else None
        if reads is None or any(ptr in reads for ptr in active):
            continue                       # not recorded, or reads a spelling that is set
        skipping.setdefault(tuple(sorted(reads)), []).append(release)
    for reads, releases in skipping.items():
        yield active[0], releases, reads


@rule("RD101", "trained-field-not-read", "warning", "any")
def trained_field_not_read(facts: Facts):
    """The drafter sets a field it was trained with, and the selected release's path does
    not read it (or reads it only under another spelling), so it computes something else.

    Derived, not written per field: each field of `runtimes/trained.py` names the fact
    whose rows say, release by release and runner by runner, whether the path reads it.
    An error where the skipped field changes the computation (norms, windows, the draft's
    input), a warning otherwise. Among them:
    - EAGLE-3.1 `fc_norm` / `norm_output` / `norm_before_fc`: vLLM reads none before
      0.18.0 and only `norm_before_fc` in 0.18-0.21 (vllm==0.17.1 and vllm==0.21.0
      model_executor/models/llama_eagle3.py); SGLang reads none before 0.5.12 and
      `norm_before_fc` from 0.5.17 (sglang==0.5.11, sglang==0.5.12 models/llama_eagle3.py);
      vLLM never reads the legacy `use_aux_norm` spelling (vllm==0.33.0
      llama_eagle3.py:184-188).
    - `norm_before_residual: true` (speculators-trained heads): SGLang never reads it
      (sglang==0.5.23 models/llama_eagle3.py:97-101), nor vLLM before 0.10.1.
    - `eagle_config.use_aux_hidden_state: false` (heads trained on the last hidden state,
      vLLM #40656): see the `eagle3.reads-use-aux-hidden-state` rows.
    - DFlash `layer_types` with sliding layers: vLLM 0.20-0.24 and SGLang 0.5.11-0.5.13
      read no window and run every layer as full attention (vllm==0.24.0 and
      sglang==0.5.11 model files).
    A release with no row for the field is not judged. It replaces EA322.

    Fails: `"fc_norm": true` under `--runtime vllm==0.21.0`; `"norm_before_residual":
    true` for SGLang; sliding `layer_types` under `--runtime sglang==0.5.13`.
    Passes: the same under vLLM 0.33.0; flags false or absent.
    """
    for field in TRAINED:
        if field.family != facts.family:
            continue
        for ptr, releases, reads in unread(facts, field):
            name = dotted(ptr)
            what = f"{name} {WHEN[field.when]}"
            elsewhere = sorted(p for p in reads if p != ptr)
            how = (f"{runtimes.agree(releases, 'reads')} only {dotted(elsewhere[0])}"
                   if elsewhere else runtimes.agree(releases, field.unread))
            yield Finding(ptr, f"{what} but {how}: {field.instead}",
                          severity=Severity.ERROR if field.severity == "error"
                          else Severity.WARNING)
