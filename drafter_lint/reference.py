"""The published config to hold a local one against: a local folder or a hub repo."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint.checkpoint import CARD, CONFIG, read_json_file
from drafter_lint.errors import ReferenceUnusable
from drafter_lint.findings import describe
from drafter_lint.hub import HubError, fetch, parse_repo_arg, read_card
from drafter_lint.readonly import readonly


@dataclass(frozen=True)
class Reference:
    """Read once, then read-only all the way down (a run's options hold it)."""

    display: str          # "org/name@<commit>" or the folder as given
    config: dict
    pinned: bool          # a commit sha or a local file: fixes from it are safe
    card: dict = field(default_factory=dict)
    repo_id: str | None = None
    revision: str | None = None   # as asked ("main", a tag); display holds the commit

    def __post_init__(self):
        object.__setattr__(self, "config", readonly(self.config))
        object.__setattr__(self, "card", readonly(self.card))


def read_reference(arg: str, offline: bool = False, card: bool = False) -> Reference:
    """A local folder (or config.json) when `arg` exists on disk, else a hub repo."""
    path = Path(arg)
    if path.exists():
        config_path = path / CONFIG if path.is_dir() else path
        card_data = {}
        if card and (config_path.parent / CARD).is_file():
            card_data = read_card(config_path.parent / CARD)
        return Reference(arg, _load(config_path, arg), True, card_data)

    if parse_repo_arg(arg) is None:
        raise ReferenceUnusable(f"reference {arg}: no such folder, and not a hub repo id")
    try:
        snapshot = fetch(arg, offline=offline)
    except HubError as exc:
        raise ReferenceUnusable(str(exc)) from None
    config = _load(snapshot.files[CONFIG], snapshot.display)
    return Reference(snapshot.display, config, snapshot.pinned,
                     snapshot.card if card else {}, snapshot.repo_id, snapshot.revision)


def _load(path: Path, display: str) -> dict:
    try:     # a file over the cap is refused unparsed, as the checkpoint's own config
        value = read_json_file(path, fast=True).value
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ReferenceUnusable(f"reference {display}: config.json unreadable: "
                                f"{describe(exc)}") from None
    if not isinstance(value, dict):
        raise ReferenceUnusable(f"reference {display}: config.json is not a JSON object")
    return value
