"""File-level rules: what could not be read, duplicate keys, structure by JSON Schema.

These run on every checkpoint, whatever its family.
"""

from __future__ import annotations

import json
import math
import os

from drafter_lint.facts import Facts
from drafter_lint.findings import Finding, Severity
from drafter_lint.jsondoc import dotted, pointer
from drafter_lint.registry import rule
from drafter_lint.structure import validate


def _problems(facts: Facts, code: str):
    for problem in facts.checkpoint.problems:
        if problem.rule == code:
            finding = Finding(problem.pointer, problem.message, file=problem.file)
            if problem.position:
                finding.line, finding.column = problem.position
            yield finding


@rule("DL001", "config-unreadable", "error", "any", needs=())
def config_unreadable(facts: Facts):
    """config.json is missing, unreadable, not UTF-8 or not valid JSON.

    Every runtime (transformers, vLLM, SGLang) starts by loading config.json; none of the
    drafter's rules can run without it, so they are listed as skipped. The same holds
    for `hf_quant_config.json` when present: vLLM loads it as the quantization config of
    a ModelOpt checkpoint (vllm==0.33.0 model_executor/model_loader/weight_utils.py
    get_quant_config), so an unreadable one stops start-up too.

    Fails: a config with a trailing comma, `{"hidden_size": 5120,}` (reported at the
    line and column where parsing stopped), a UTF-8 byte order mark, a missing file.
    Passes: any file that `json.loads` accepts.
    """
    yield from _problems(facts, "DL001")


@rule("DL002", "config-not-object", "error", "any", needs=())
def config_not_object(facts: Facts):
    """config.json is valid JSON but not an object.

    transformers reads config.json into keyword arguments, so a list, string or number at
    the top level fails to load.

    Fails: `[{"hidden_size": 5120}]`. Passes: `{"hidden_size": 5120}`.
    """
    yield from _problems(facts, "DL002")


@rule("DL003", "duplicate-key", "warning", "any", needs=())
def duplicate_key(facts: Facts):
    """A key appears twice in one JSON object.

    Python's `json` (and so transformers, vLLM and SGLang) silently keeps the *last* copy;
    other readers (some Rust and C++ loaders, editors, review tools) keep the first or
    refuse. When the copies differ, what a person reads and what a runtime loads are two
    different configs: an error. Identical copies are a warning.

    Fails: `{"sliding_window": 2048, ..., "sliding_window": null}`.
    Passes: each key once.
    """
    doc = facts.checkpoint.config_doc
    if doc is None:
        return
    for dup in doc.duplicates:
        values = [json.dumps(v) for v in dup.values]
        lines = ", ".join(str(line) for line, _ in dup.positions)
        key = dup.pointer.rsplit("/", 1)[1]
        if len(set(values)) > 1:
            yield Finding(dup.pointer, f"{key!r} appears {len(values)} times (lines {lines}) "
                          f"with different values {', '.join(values)}; Python loaders keep "
                          f"the last ({values[-1]}), other readers may keep the first",
                          severity=Severity.ERROR)
        else:
            yield Finding(dup.pointer, f"{key!r} appears {len(values)} times (lines {lines}) "
                          f"with the same value {values[0]}; keep one")


@rule("DL004", "weights-unreadable", "error", "any", needs=())
def weights_unreadable(facts: Facts):
    """A safetensors file or the shard index cannot be read or is not valid.

    Checks the 8-byte header length against the file size and a 100 MB cap, the header
    JSON, dtypes, shapes, and that `data_offsets` tile the data exactly, as the
    `safetensors` loader does; an index shard that is missing or whose path leaves the
    checkpoint folder (it is not opened). Only headers are read, never tensor data.

    Fails: a file cut short by an interrupted download; a header length of 2**62;
    `"weight_map": {"fc.weight": "../../etc/passwd"}`.
    Passes: files written by `safetensors.save_file`.
    """
    yield from _problems(facts, "DL004")


@rule("DL005", "weights-index-mismatch", "error", "any", needs=())
def weights_index_mismatch(facts: Facts):
    """`model.safetensors.index.json` disagrees with the shards, or a tensor is stored twice.

    Loaders follow the index: a tensor mapped to the wrong shard is not found, a tensor
    missing from the index is never loaded, and a tensor stored in two shards loads
    whichever copy the loader meets last.

    Fails: an index mapping `fc.weight` to a shard that does not hold it.
    Passes: an index written by `save_pretrained`.
    """
    yield from _problems(facts, "DL005")


@rule("DL006", "tokenizer-unreadable", "warning", "any", needs=())
def tokenizer_unreadable(facts: Facts):
    """tokenizer.json or tokenizer_config.json in the checkpoint is not readable JSON.

    Serving stacks load the tokenizer from the drafter folder when it has one.

    Fails: a truncated tokenizer.json. Passes: a valid one, or none at all.
    """
    yield from _problems(facts, "DL006")


@rule("DL007", "family-unknown", "info", "any")
def family_unknown(facts: Facts):
    """The drafter family could not be told from config.json and tensor names.

    Only file-level rules ran; the family rules are listed as skipped. A DFlash drafter is
    recognised by `dflash_config`, a `DFlash*` architecture, or an `fc.weight` beside
    `hidden_norm.weight`.

    Fails: a plain Llama config. Passes: any DFlash drafter config.
    """
    if facts.family == "unknown":
        yield Finding("", "cannot tell the drafter family from config.json or tensor names "
                      "(no dflash_config, no DFlash architecture); only file checks ran")


@rule("DL008", "config-schema", "error", "any")
def config_schema(facts: Facts):
    """A field of config.json has the wrong JSON type or an impossible value.

    Structure is kept in `schemas/<family>.schema.json` (JSON Schema 2020-12; a
    speculators checkpoint is held against its own and its wrapped family's), where each
    field's `description` says who reads it. Integers must be JSON integers: transformers 5
    refuses `5120.0` for `hidden_size`, and `true` is not a layer id.

    A field is reported once, though a speculators config meets two schemas.

    Fails: `"hidden_size": "5120"`, `"block_size": 16.0`, `"attention_bias": "false"`.
    Passes: the published configs in fixtures/.
    """

    # one finding per field: the schemas' messages differ by their descriptions, and a
    # speculators config is held against two (the first, its own, is the one shown)
    seen = set()
    for schema in facts.schemas:
        source = facts.family + "\0" + facts.checkpoint.config_doc.text
        for finding in validate(facts.config, schema, facts.use_cache, source):
            if finding.pointer not in seen:
                seen.add(finding.pointer)
                yield finding


# Keys a runtime computes with, so a non-finite value breaks the model (matched on the
# last key of the pointer); elsewhere (e.g. Nemotron-H `time_step_limit: [0.0, Infinity]`,
# written by Python's json for an unbounded limit) it is only not strict JSON.
FINITE_PARTS = ("eps", "theta", "factor", "size", "_id", "_ids", "window", "layers",
                "heads", "dim", "position", "scale", "beta", "temperature", "bias",
                "dropout", "range", "rank", "alpha")


def _non_finite(value, ptr: str = ""):
    if isinstance(value, float) and not math.isfinite(value):
        yield ptr, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite(item, ptr + pointer(str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _non_finite(item, f"{ptr}/{i}")


@rule("DL011", "non-finite-number", "error", "any")
def non_finite_number(facts: Facts):
    """A number in config.json is `NaN` or `Infinity` where a runtime computes with it.

    Python's json reads and writes these non-standard literals, and reads a number past a
    double's range (`1e400`, `-1e400`) as infinity too, so they pass through transformers
    silently: `rms_norm_eps: NaN` makes every normalized activation NaN,
    `rope_theta: Infinity` every rotation angle 0. Where the key is a size, id, epsilon,
    RoPE base or factor, window, scale and the like it is an error; elsewhere an info
    (strict JSON readers such as `jq` refuse the file, but published configs use
    `Infinity` for unbounded limits, e.g. Nemotron-H's `time_step_limit`).

    Fails: `"rms_norm_eps": NaN`, `"rope_scaling": {"factor": Infinity}`, `"rope_theta":
    1e400`.
    Informs: `"time_step_limit": [0.0, Infinity]`. Passes: finite numbers.
    """
    doc = facts.checkpoint.config_doc
    if doc is None:
        return
    for ptr, value in _non_finite(facts.checkpoint.config or {}):
        keys = [k for k in ptr.split("/") if k and not k.isdigit()]
        key = keys[-1].lower() if keys else ""
        computed = any(part in key for part in FINITE_PARTS)
        yield Finding(ptr, f"{dotted(ptr)} is {value!r}, not a finite number"
                      + ("; a runtime computes with it" if computed else
                         " (not strict JSON; some readers refuse the file)"),
                      severity=None if computed else Severity.INFO)


@rule("DL009", "unused-ignore", "warning", "any", needs=(), phase="suppression")
def unused_ignore(facts: Facts):
    """A `per-path-ignores` entry covers this checkpoint but suppressed nothing.

    Ignores outlive the problems they hid: a stale one would silently hide the next real
    finding of that rule. Remove it, or narrow it.

    Fails: `{path = "models/*", rules = ["DF114"]}` where no DF114 finding remains.
    Passes: an ignore that suppresses a finding.
    """

    for ignore in facts.unused_ignores:
        where = os.path.relpath(ignore.source, facts.checkpoint.root)
        yield Finding(ignore.pointer_in_source, f"ignore of {', '.join(ignore.rules)} for "
                      f"{ignore.glob!r}" + (f" at {ignore.pointer}" if ignore.pointer else "")
                      + f" ({ignore.reason or 'no reason given'}) matched no finding here; "
                      f"remove it", file=where)


@rule("DL010", "stale-baseline-entry", "info", "any", needs=(), phase="suppression")
def stale_baseline_entry(facts: Facts):
    """A baseline entry for this checkpoint matches no finding any more.

    The problem it recorded is gone (or moved to another pointer): rewrite the baseline
    with `--write-baseline` so it cannot hide a future finding at that place.

    Fails: an entry for `DF114` at `/dflash_config/target_layer_ids` after the taps were
    fixed. Passes: every entry still matches.
    """

    path = facts.baseline_path
    for entry in facts.stale_baseline:
        yield Finding("", f"baseline entry {entry['rule']} {entry['path']} "
                      f"{entry['pointer'] or '/'} matches no finding any more; rewrite the "
                      f"baseline with --write-baseline",
                      file=os.path.relpath(path, facts.checkpoint.root))
