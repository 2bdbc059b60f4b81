"""The runtime facts table (rules/runtimes.py): cited, versioned, and every row used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drafter_lint.rules import runtimes

ROOT = Path(__file__).resolve().parent.parent


def test_every_fact_cites_released_code():
    """Mutation caught: a runtime claim added without saying where it was read."""
    for fact in runtimes.FACTS:
        assert fact.runtime in runtimes.KNOWN, fact
        assert re.match(r"(V|S|ZL|SP) |vllm==|sglang==|vLLM before", fact.cite), fact
        assert fact.effect in ("start-up", "silent", "ignored"), fact


def test_every_fact_is_read_by_code():
    """A row nothing reads is a claim nothing enforces. Mutation caught: a rule that goes
    back to hard-coding a runtime behaviour, leaving its row unused."""
    source = "\n".join(p.read_text() for p in [*(ROOT / "rules").glob("*.py"),
                                              *(ROOT / "drafter_lint").glob("*.py")]
                       if p.name != "runtimes.py")
    for key in {f.key for f in runtimes.FACTS}:
        if key.startswith("serves."):
            continue                      # read through runtimes.serves(release, family)
        assert f'"{key}"' in source, key


@pytest.mark.parametrize("spec,version,exact", [("vllm", "0.33.0", True),
                                                ("vllm==0.33", "0.33.0", True),
                                                ("vllm==0.32.1", "0.32.1", False),
                                                ("SGLang==0.5.23", "0.5.23", True),
                                                ("reference", "44947fb", True)])
def test_runtime_specs_parse(spec, version, exact):
    release = runtimes.parse(spec)
    assert (release.version, release.exact) == (version, exact)


def test_rows_follow_their_release_range():
    """Medusa: served before vLLM 0.33, not from it. Mutation caught: since/until ignored."""
    assert runtimes.serves(runtimes.parse("vllm==0.32.0"), "medusa")
    assert not runtimes.serves(runtimes.parse("vllm==0.33"), "medusa")
    assert not runtimes.serves(runtimes.parse("sglang"), "speculators/dflash")
    assert runtimes.serves(runtimes.parse("vllm"), "speculators/dflash")
