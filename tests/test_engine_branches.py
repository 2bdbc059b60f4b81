"""The engine's own decisions, branch by branch: how many findings of one rule a result
lists, and what it says of the rest. Each test names the mutation it kills."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from drafter_lint.checkpoint import read_checkpoint
from drafter_lint.engine import MAX_FINDINGS_PER_RULE, STOP_COUNTING, lint
from drafter_lint.options import Options
from drafter_lint.rules import RULES

TINY = Path(__file__).resolve().parent.parent / "fixtures" / "tiny-qwen3.6" / "drafter"


def _missing_shards(folder: Path, shards: int) -> Path:
    """The tiny drafter's config beside an index naming `shards` shard files, none on disk:
    DL004 reports each."""
    folder.mkdir()
    shutil.copyfile(TINY / "config.json", folder / "config.json")
    weight_map = {f"t{i}.weight": f"model-{i:05d}-of-{shards:05d}.safetensors"
                  for i in range(1, shards + 1)}
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": weight_map}), encoding="utf-8")
    return folder


def _dl004(folder: Path) -> list:
    result = lint(read_checkpoint(folder, "drafter"), Options(rules=RULES, select=("DL004",)))
    return [f for f in result.findings if f.rule == "DL004"]


@pytest.mark.parametrize("shards", [MAX_FINDINGS_PER_RULE, MAX_FINDINGS_PER_RULE + 1])
def test_one_rule_lists_at_most_the_cap_then_says_how_many_more(tmp_path, shards):
    """At the cap every finding is listed; one past it, the cap's worth and a line saying
    1 more is not listed. Mutations caught: `count > MAX` made `>=` (engine.py:108, the
    50th finding dropped), the closing line's count or its condition changed (:119-123)."""
    found = _dl004(_missing_shards(tmp_path / "d", shards))
    listed = [f for f in found if "does not exist" in f.message]
    assert len(listed) == MAX_FINDINGS_PER_RULE
    more = [f.message for f in found if "not listed" in f.message]
    if shards == MAX_FINDINGS_PER_RULE:
        assert more == []
    else:
        assert more == ["1 more DL004 findings in this checkpoint are not listed"]
        assert found[-1].severity == RULES["DL004"].severity and found[-1].name


def test_a_rule_that_floods_is_stopped_and_the_count_marked_as_a_floor(tmp_path):
    """Past STOP_COUNTING findings the engine stops asking the rule and says "N+ more".
    Mutations caught: the stop dropped (engine.py:109-111: it counts every finding, "1150
    more"), the `+` dropped (:120)."""
    found = _dl004(_missing_shards(tmp_path / "d", STOP_COUNTING + 200))
    assert [f.message for f in found if "not listed" in f.message] == [
        f"{STOP_COUNTING - MAX_FINDINGS_PER_RULE}+ more DL004 findings in this checkpoint "
        f"are not listed"]
