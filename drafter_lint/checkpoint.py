"""Read a checkpoint folder: config.json with positions, safetensors headers, tokenizer facts.

Nothing here judges the drafter. What cannot be read is kept as a `ReadProblem` for the
file rules to report; only a folder that does not exist raises. No tensor data is read,
and no file outside the folder (or, for a Hugging Face cache snapshot, outside its repo)
is opened.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint import card as cards
from drafter_lint import jsondoc
from drafter_lint.bounded import read_regular
from drafter_lint.errors import CheckpointNotFound
from drafter_lint.family import detect
from drafter_lint.findings import describe
from drafter_lint.quantization import QUANT_FILE
from drafter_lint.remote import INDEX, MAX_INDEX, MAX_SMALL_FILE, declared_sizes
from drafter_lint.safetensors_header import Header, HeaderError, TensorInfo, read_header
from drafter_lint.tokenizer import (
    TOKENIZER_FILES,
    TokenizerError,
    TokenizerFacts,
    read_tokenizer,
)

CONFIG = "config.json"
QUANT = QUANT_FILE                      # ModelOpt's quantization description
CARD = "README.md"                      # the model card: its launch lines
# one cap each, local or downloaded: refused before parsing
MAX_CONFIG_BYTES, MAX_INDEX_BYTES = MAX_SMALL_FILE, MAX_INDEX


@dataclass
class ReadProblem:
    """Something unreadable; `rule` is the code of the file rule that reports it."""

    rule: str
    file: str
    pointer: str
    message: str
    position: tuple[int, int] | None = None


@dataclass
class Checkpoint:
    root: Path
    display: str
    files: frozenset[str] = frozenset()
    config_doc: jsondoc.JsonDocument | None = None
    config: dict | None = None
    index_doc: jsondoc.JsonDocument | None = None
    quant_doc: jsondoc.JsonDocument | None = None    # hf_quant_config.json, when an object
    card: cards.Card | None = None   # README.md's launch lines, when it has a fenced block
    headers: dict[str, Header] = field(default_factory=dict)
    weights: dict[str, TensorInfo] | None = None
    tokenizer: TokenizerFacts | None = None
    problems: list[ReadProblem] = field(default_factory=list)
    family: str | None = None      # detected when read (family.detect), or as asked
    unread_shards: list[str] = field(default_factory=list)  # not needed by the family
    unreadable_shards: list[str] = field(default_factory=list)  # needed, header not read
    repo: str | None = None        # "org/name" of a hub repo read before download

    @property
    def documents(self) -> dict[str, jsondoc.JsonDocument]:
        """Parsed JSON files by name, for resolving pointers to positions."""
        docs = {CONFIG: self.config_doc, INDEX: self.index_doc, QUANT: self.quant_doc}
        return {name: doc for name, doc in docs.items() if doc is not None}


def _looks_like_repo(path) -> bool:
    text = str(path)
    return text.count("/") == 1 and not text.startswith((".", "/", "~")) and \
        not text.isascii()


MODEL_KEYS = ("model_type", "architectures", "speculators_config", "dflash_config",
              "medusa_num_heads")


def is_checkpoint(folder: Path) -> bool:
    """Whether `folder` holds a config.json that looks like a model's: one of MODEL_KEYS,
    or one that cannot be parsed (the check then reports it). An editor's or an app's
    config.json is not a checkpoint's."""
    config = folder / CONFIG
    if not config.exists():
        return False
    try:            # a FIFO or device is refused at once, never waited on
        data = json.loads(read_regular(config, MAX_CONFIG_BYTES))
    except (OSError, ValueError, RecursionError):
        return True
    return not isinstance(data, dict) or any(k in data for k in MODEL_KEYS)


def has_checkpoint_above(path: Path) -> bool:
    """Whether `path` or a folder above it is a checkpoint (`is_checkpoint`)."""
    start = path if path.is_dir() else path.parent
    return any(is_checkpoint(folder) for folder in [start, *start.parents])


def find_root(path: Path) -> Path:
    """The checkpoint folder for `path`: the nearest folder at or above it that is a
    checkpoint (`is_checkpoint`), else `path`'s own folder."""
    if not path.exists():
        raise CheckpointNotFound(f"{path}: no such file or folder"
                                 + (" (and not a hub repo id: those are ASCII letters, "
                                    "digits, '-', '_' and '.')" if _looks_like_repo(path)
                                    else ""))
    start = path if path.is_dir() else path.parent
    for folder in [start, *start.parents]:
        if is_checkpoint(folder):
            return folder
    return start


def read_checkpoint(root: Path, display: str | None = None, select=None,
                    family: str | None = None) -> Checkpoint:
    """Read `root` and tell its family (`family`, else detected, once, here).
    `select(family, config, weight_map)` (family.shards_needed) may name the only shards
    whose headers are needed (None: all); it is asked only for sharded checkpoints."""
    if not root.is_dir():
        raise CheckpointNotFound(f"{root}: not a folder")
    ckpt = Checkpoint(root=root, display=display or str(root))
    try:
        ckpt.files = frozenset(os.listdir(root))
    except OSError as exc:
        raise CheckpointNotFound(f"{root}: cannot list folder: {exc.strerror}") from None
    _read_config(ckpt)
    _read_quant(ckpt)
    _read_card(ckpt)
    _read_weights(ckpt, select, family)
    if ckpt.family is None:
        ckpt.family = family or detect(ckpt.config, ckpt.weights)
    escaping = [n for n in TOKENIZER_FILES if n in ckpt.files and not _contained(root, n)]
    for name in escaping:
        ckpt.problems.append(ReadProblem("DL006", name, "", f"{name} is a link that leaves "
                                         f"the checkpoint folder; not opened"))
    if not escaping:
        try:
            ckpt.tokenizer = read_tokenizer(root, "checkpoint")
        except TokenizerError as exc:
            ckpt.problems.append(ReadProblem("DL006", str(exc).split(":")[0], "", str(exc)))
    return ckpt


FAST_PARSE_BYTES = 256 << 10


def read_json_file(path: Path, fast: bool = False,
                   limit: int = MAX_CONFIG_BYTES) -> jsondoc.JsonDocument:
    """Parse one JSON file with positions (computed lazily when `fast`); raises OSError,
    UnicodeError or JsonSyntaxError. A file over `limit` bytes is refused unparsed."""
    raw = read_regular(path, limit)
    if len(raw) > limit:
        raise OSError(0, f"over the {limit // (1024 * 1024)} MiB limit for this file; "
                         f"refused unparsed")
    text = raw.decode("utf-8")
    # large files at C speed, positions on demand: a pure-Python parse of a hostile
    # multi-MB array would take seconds and hundreds of MB
    fast = fast or len(text) > FAST_PARSE_BYTES
    return jsondoc.parse_fast(text) if fast else jsondoc.parse(text)


def _read_config(ckpt: Checkpoint) -> None:
    path = ckpt.root / CONFIG
    if CONFIG not in ckpt.files:
        ckpt.problems.append(ReadProblem("DL001", CONFIG, "", "config.json is missing; every "
                                         "runtime loads the drafter from it"))
        return
    if not _contained(ckpt.root, CONFIG):
        ckpt.problems.append(ReadProblem("DL001", CONFIG, "", "config.json is a link that "
                                         "leaves the checkpoint folder; not opened"))
        return
    try:
        doc = read_json_file(path)
    except jsondoc.JsonSyntaxError as exc:
        ckpt.problems.append(ReadProblem("DL001", CONFIG, "", f"config.json is not valid "
                                         f"JSON: {exc.reason}", (exc.line, exc.column)))
        return
    except UnicodeDecodeError as exc:
        ckpt.problems.append(ReadProblem("DL001", CONFIG, "", f"config.json is not UTF-8 "
                                         f"(byte {exc.start})"))
        return
    except OSError as exc:
        ckpt.problems.append(ReadProblem("DL001", CONFIG, "", f"config.json cannot be read: "
                                         f"{describe(exc)}"))
        return
    ckpt.config_doc = doc
    if isinstance(doc.value, dict):
        ckpt.config = doc.value
    else:
        ckpt.problems.append(ReadProblem("DL002", CONFIG, "", f"config.json holds "
                                         f"{_kind(doc.value)}, not an object"))


def _read_quant(ckpt: Checkpoint) -> None:
    """hf_quant_config.json: vLLM reads it in place of `quantization_config` for ModelOpt
    checkpoints (model_executor/model_loader/weight_utils.py get_quant_config)."""
    if QUANT not in ckpt.files:
        return
    problem = None
    try:
        doc = read_json_file(ckpt.root / QUANT) if _contained(ckpt.root, QUANT) else None
        if doc is None:
            problem = f"{QUANT} is a link that leaves the checkpoint folder; not opened"
        elif not isinstance(doc.value, dict):
            problem = f"{QUANT} holds {_kind(doc.value)}, not an object"
        else:
            ckpt.quant_doc = doc
    except jsondoc.JsonSyntaxError as exc:
        ckpt.problems.append(ReadProblem("DL001", QUANT, "", f"{QUANT} is not valid JSON: "
                                         f"{exc.reason}; vLLM fails to read it",
                                         (exc.line, exc.column)))
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"{QUANT} cannot be read: {describe(exc)}"
    if problem:
        ckpt.problems.append(ReadProblem("DL001", QUANT, "", problem))


def _read_card(ckpt: Checkpoint) -> None:
    """README.md's fenced launch lines (a card that cannot be read has none: the card is
    documentation, its absence or damage stops no runtime)."""
    if CARD not in ckpt.files or not _contained(ckpt.root, CARD):
        return
    try:
        raw = read_regular(ckpt.root / CARD, cards.MAX_CARD_BYTES)
        if len(raw) <= cards.MAX_CARD_BYTES:
            ckpt.card = cards.read(raw.decode("utf-8", errors="replace"))
        else:
            limit = cards.MAX_CARD_BYTES >> 20
            ckpt.card = cards.Card(unread=f"README.md is over the {limit} MiB read for "
                                          f"launch lines")
    except OSError:
        return


def _read_weights(ckpt: Checkpoint, select=None, family: str | None = None) -> None:
    if INDEX in ckpt.files:
        shards = _read_index(ckpt)
        if shards is None:
            return
        weight_map = ckpt.index_doc.value["weight_map"]
        ckpt.family = family or detect(ckpt.config, weight_map)
        needed = select(ckpt.family, ckpt.config, weight_map) if select else None
        if needed is not None:
            ckpt.unread_shards = sorted(set(shards) - needed)
            shards = sorted(set(shards) & needed)
    else:
        shards = sorted(name for name in ckpt.files if name.endswith(".safetensors"))
    if not shards:
        return

    sizes = declared_sizes(ckpt.root)       # header-only files of a hub repo read by range
    weights: dict[str, TensorInfo] = {}
    for shard in shards:
        if not _contained(ckpt.root, shard):
            indexed = ckpt.index_doc is not None
            ckpt.problems.append(ReadProblem(
                "DL004", INDEX if indexed else shard,
                jsondoc.pointer("weight_map") if indexed else "",
                f"{'shard ' if indexed else ''}{shard!r} resolves outside the checkpoint "
                f"folder; not opened"))
            ckpt.unreadable_shards.append(shard)
            continue
        if not (ckpt.root / shard).exists():
            ckpt.problems.append(ReadProblem("DL004", shard, "", f"{shard} is listed in "
                                             f"{INDEX} but does not exist"))
            ckpt.unreadable_shards.append(shard)
            continue
        try:
            header = read_header(ckpt.root / shard, shard, sizes.get(shard))
        except HeaderError as exc:
            ckpt.problems.append(ReadProblem("DL004", shard, "", f"{shard}: {exc}"))
            ckpt.unreadable_shards.append(shard)
            continue
        ckpt.headers[shard] = header
        for name, tensor in header.tensors.items():
            if name in weights:
                ckpt.problems.append(ReadProblem(
                    "DL005", shard, jsondoc.pointer(name),
                    f"tensor {name} is stored in both {weights[name].file} and {shard}; "
                    f"which copy loads depends on the loader"))
            weights[name] = tensor
    ckpt.weights = weights
    _check_index_map(ckpt)


def _read_index(ckpt: Checkpoint) -> list[str] | None:
    try:
        doc = read_json_file(ckpt.root / INDEX, fast=True, limit=MAX_INDEX_BYTES) \
            if _contained(ckpt.root, INDEX) else None
    except jsondoc.JsonSyntaxError as exc:
        ckpt.problems.append(ReadProblem("DL004", INDEX, "", f"{INDEX} is not valid JSON: "
                                         f"{exc.reason}", (exc.line, exc.column)))
        return None
    except (OSError, UnicodeDecodeError) as exc:
        ckpt.problems.append(ReadProblem("DL004", INDEX, "", f"{INDEX} cannot be read: "
                                         f"{describe(exc)}"))
        return None
    if doc is None:
        ckpt.problems.append(ReadProblem("DL004", INDEX, "", f"{INDEX} is a link that leaves "
                                         f"the checkpoint folder; not opened"))
        return None
    weight_map = doc.value.get("weight_map") if isinstance(doc.value, dict) else None
    if not isinstance(weight_map, dict) or not all(
            isinstance(v, str) for v in weight_map.values()):
        ckpt.problems.append(ReadProblem("DL004", INDEX, "/weight_map", f"{INDEX} has no "
                                         f"weight_map object of tensor name -> shard file"))
        return None
    ckpt.index_doc = doc
    return sorted(set(weight_map.values()))


def _check_index_map(ckpt: Checkpoint) -> None:
    """The index must list each tensor in the shard that holds it, and nothing else."""
    if ckpt.index_doc is None or ckpt.weights is None:
        return
    weight_map = ckpt.index_doc.value["weight_map"]
    for name, shard in weight_map.items():
        if shard not in ckpt.headers:
            continue  # already reported, or not read
        held = ckpt.weights.get(name)
        if held is None or held.file != shard:
            where = f"it is in {held.file}" if held else "no shard holds it"
            ckpt.problems.append(ReadProblem(
                "DL005", INDEX, jsondoc.pointer("weight_map", name),
                f"{INDEX} maps {name} to {shard}, but {where}; loaders following the index "
                f"will fail to find it"))
    for name, tensor in ckpt.weights.items():
        if name not in weight_map:
            ckpt.problems.append(ReadProblem(
                "DL005", tensor.file, jsondoc.pointer(name),
                f"tensor {name} is in {tensor.file} but not in {INDEX}; loaders following "
                f"the index never load it"))


def _contained(root: Path, name: str) -> bool:
    """Whether `name` stays inside `root` (or the HF cache repo holding the snapshot)."""
    if not name or "\0" in name or os.path.isabs(name) or ".." in Path(name).parts \
            or "\\" in name:
        return False
    real_root = os.path.realpath(root)
    allowed = [real_root]
    parent = os.path.dirname(real_root)
    if os.path.basename(parent) == "snapshots":      # huggingface_hub cache layout
        allowed.append(os.path.join(os.path.dirname(parent), "blobs"))
    real = os.path.realpath(root / name)
    return any(real == a or real.startswith(a + os.sep) for a in allowed)


def _kind(value: object) -> str:
    """'an array', 'a string', ...: the JSON type of `value` with its article."""
    name = {list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(value), type(value).__name__)
    return ("an " if name[0] in "aeiou" else "a ") + name
