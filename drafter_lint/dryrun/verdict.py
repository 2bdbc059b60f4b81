"""The verdict file the dry-run scripts (and the oracle lane's runners) write: shared by
vllm_startup.py and sglang_startup.py, which import it from their own folder."""

from __future__ import annotations

import json


def refusal(stage: str, exc: BaseException, message: str, where: str) -> dict:
    """The fields of a refused verdict: the stage, the exception, its message, file:line."""
    if isinstance(exc, SystemExit):       # the runtime's argument parser refused the line
        message, where = f"the argument parser exited ({exc.code})", ""
    return {"verdict": "refused", "stage": stage, "error_type": type(exc).__name__,
            "message": message[:500], "where": where}


def write(request: dict, out: dict) -> int:
    """`out` to the file the gate named (stdout carries the runtime's own logs)."""
    with open(request["out"], "w") as handle:
        json.dump(out, handle, default=str)
    return 0
