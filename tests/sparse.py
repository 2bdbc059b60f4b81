"""Build checkpoints for tests: real safetensors headers, a hole where the data would be."""

from __future__ import annotations

import json
import math
from pathlib import Path

DTYPE_BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F16": 16, "BF16": 16, "F32": 32, "I32": 32,
              "I64": 64, "F64": 64, "F8_E4M3": 8, "F8_E5M2": 8}

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def write_safetensors(path: Path, tensors, metadata: dict | None = None) -> int:
    """Write a header for `tensors` ([name, dtype, shape] items) and extend the file to its
    full size without writing data (a sparse file). Returns the apparent size."""
    header: dict = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape in tensors:
        nbytes = math.prod(shape) * DTYPE_BITS[dtype] // 8
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(len(raw).to_bytes(8, "little"))
        handle.write(raw)
        handle.truncate(8 + len(raw) + offset)
    return 8 + len(raw) + offset


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def load_manifest(name: str) -> dict:
    return json.loads((FIXTURES / "manifests" / f"{name}.json").read_text())


def materialize(manifest: dict, dest: Path, config: dict | None = None,
                tensors: list | None = None) -> tuple[Path, Path]:
    """Write the manifest's drafter (config, sparse weights) and target (config) under `dest`.

    `config` and `tensors` replace the manifest's drafter config and the tensor list of its
    single weights file. Returns (drafter folder, target folder).
    """
    drafter, target = dest / "drafter", dest / "target"
    write_json(drafter / "config.json", config if config is not None
               else manifest["drafter"]["config"])
    for name, spec in manifest["drafter"]["files"].items():
        write_safetensors(drafter / name, tensors if tensors is not None else spec["tensors"],
                          spec.get("metadata"))
    write_json(target / "config.json", manifest["target"]["config"])
    return drafter, target


def apply_ops(document, ops):
    """Apply (op, pointer[, value]) edits (RFC 6902 add/replace/remove) to a copy."""
    document = json.loads(json.dumps(document))
    for op, ptr, *value in ops:
        *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]
        node = document
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        if isinstance(node, list):
            index = len(node) if last == "-" else int(last)
            if op == "remove":
                del node[index]
            elif op == "add":
                node.insert(index, value[0])
            else:
                node[index] = value[0]
        elif op == "remove":
            del node[last]
        else:
            node[last] = value[0]
    return document
