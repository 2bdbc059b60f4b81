"""Tell the drafter family from config.json and tensor names."""

from __future__ import annotations


def detect(config: dict | None, tensor_names) -> str:
    """"dflash" or "unknown" (more families arrive with their rule modules)."""
    config = config or {}
    architectures = config.get("architectures")
    names = architectures if isinstance(architectures, list) else []
    if "dflash_config" in config or any("DFlash" in str(n) for n in names):
        return "dflash"
    tensors = set(tensor_names or ())
    if "fc.weight" in tensors and "hidden_norm.weight" in tensors:
        return "dflash"
    return "unknown"
