"""Published model cards (fixtures/cards/): each README.md verbatim, with card.json naming its
repo and source, what reading it finds (`lines`) and, where a verbatim config can stand
beside it (`config`: a manifest of fixtures/manifests), what `check` reports at its lines
(`expect`). Used by tests/test_card.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sparse import FIXTURES, load_manifest, write_json

CARDS = FIXTURES / "cards"


def cards() -> list[tuple[str, dict]]:
    return [(d.name, json.loads((d / "card.json").read_text())) for d in sorted(CARDS.iterdir())
            if (d / "card.json").is_file()]


def read_lines(name: str) -> list[list]:
    """[line, runtime or "unread", method, tokens] of each launch the card shows."""
    from drafter_lint import card
    from drafter_lint.command import parse
    from drafter_lint.errors import GateError

    out = []
    for line in card.read((CARDS / name / "README.md").read_text(encoding="utf-8")).lines:
        try:
            if line.problem:
                raise GateError(line.problem)
            launch = parse(list(line.argv), inherited={})
        except GateError:
            out.append([line.line, "unread", None, None])
            continue
        out.append([line.line, launch.runtime, launch.method, launch.tokens])
    return out


def materialize(name: str, meta: dict, dest: Path) -> tuple[Path, Path]:
    """The card beside the verbatim config it is paired with, in a folder named as its
    repo; (drafter folder, target folder)."""
    manifest = load_manifest(meta["config"]["manifest"])
    drafter = dest / meta["repo"].split("/")[1]
    write_json(drafter / "config.json", manifest["drafter"]["config"])
    shutil.copyfile(CARDS / name / "README.md", drafter / "README.md")
    target = dest / "target"
    write_json(target / "config.json", manifest["target"]["config"])
    return drafter, target
