"""`fix`: plan the edits, write config.json atomically under a lock, read it back.

The read-back compares the bytes on disk with the intended bytes, and what transformers
loads from the file on disk with what it loads from the intended text. Any mismatch
restores the original bytes and is refused (exit 2).
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint import fix as fixes
from drafter_lint import jsondoc, loading, write
from drafter_lint.checkpoint import CONFIG, Checkpoint
from drafter_lint.errors import RepairRefused
from drafter_lint.family import detect
from drafter_lint.findings import Result, escape_lines
from drafter_lint.hub import in_hub_cache
from drafter_lint.options import Options


@dataclass
class Outcome:
    lines: list[str] = field(default_factory=list)
    diff: str = ""
    result: Result | None = None
    documents: dict = field(default_factory=dict)


def _show(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def run(checkpoint: Checkpoint, options: Options, unsafe: bool, write: bool,
        output: str | None, backup: bool) -> Outcome:
    outcome = Outcome()
    if checkpoint.config_doc is None or checkpoint.config is None:
        outcome.lines.append(f"{checkpoint.display}/{CONFIG}: cannot be parsed as a JSON "
                             f"object; nothing fixed (see `drafter-lint check`)")
        return outcome
    planned = fixes.plan(checkpoint, options, unsafe)
    outcome.result = planned.result
    outcome.documents = {CONFIG: jsondoc.parse(planned.text)}
    outcome.documents.update({k: v for k, v in checkpoint.documents.items() if k != CONFIG})
    for finding, edit, old in planned.applied:
        change = {"replace": f"{_show(old)} -> {_show(edit.get('value'))}",
                  "add": f"add {_show(edit.get('value'))}",
                  "remove": f"remove {_show(old)}"}[edit["op"]]
        outcome.lines.append(f"{'would fix' if not write else 'fix'} {finding.rule} "
                             f"{edit['path']}: {change}")
    for line in planned.collapsed:
        outcome.lines.append(f"{'would fix' if not write else 'fix'} {line}")
    for finding, reason in planned.not_applied:
        outcome.lines.append(f"not applied {finding.rule} {finding.pointer}: {reason}")
    if planned.refused:
        outcome.lines.append(f"{checkpoint.display}/{CONFIG}: {planned.refused}")
        return outcome
    if planned.changed:
        outcome.diff = escape_lines("".join(difflib.unified_diff(
            planned.original.splitlines(keepends=True), planned.text.splitlines(keepends=True),
            f"a/{CONFIG}", f"b/{CONFIG}")))
    if not planned.changed:
        left = len(planned.not_applied)
        outcome.lines.append(f"{checkpoint.display}/{CONFIG}: " + (
            f"nothing applied; {left} fix{'es' if left > 1 else ''} not applied (listed "
            f"above)" if left else "nothing to fix"))
        return outcome
    if not write:
        return outcome
    if output is None:
        destination = _destination(checkpoint)
        written, saved = _write_verified(destination, planned.original, planned.text,
                                         options, checkpoint, backup)
    else:
        final = _output_folder(checkpoint, Path(output))
        with _staged(final) as staging:
            _fill(checkpoint, staging)
            written, saved = _write_verified(staging / CONFIG, planned.original,
                                             planned.text, options, checkpoint, False)
        destination = final / CONFIG
    outcome.lines.append(f"wrote {destination}" + (f" (backup: {saved})" if saved else "")
                         + f"; read back: {written}")
    return outcome


def _destination(checkpoint: Checkpoint) -> Path:
    if in_hub_cache(checkpoint.root):
        raise RepairRefused(
            f"{checkpoint.display} is inside a Hugging Face cache snapshot, whose files "
            f"are shared content-addressed blobs; not writing through them. Use "
            f"--output DIR to write a fixed copy, or download the repo with "
            f"`hf download REPO --local-dir DIR` and fix that")
    return _in_place(checkpoint)


def _output_folder(checkpoint: Checkpoint, folder: Path) -> Path:
    """The --output folder, refused when writing there could touch the checkpoint or a
    hub cache: it must be a new or empty folder outside both."""
    real, root = Path(os.path.realpath(folder)), Path(os.path.realpath(checkpoint.root))
    if real == root or (folder.exists() and os.path.samefile(folder, root)):
        raise RepairRefused(f"--output {folder} is the checkpoint folder itself; fix in "
                            f"place without --output (a backup is kept), or name a new "
                            f"folder")
    if root in real.parents:
        raise RepairRefused(f"--output {folder} is inside the checkpoint folder; name a "
                            f"folder outside it")
    if in_hub_cache(real) or _under_hub_cache(real):
        raise RepairRefused(f"--output {folder} is inside the Hugging Face cache, whose "
                            f"files are shared content-addressed blobs; name a folder "
                            f"outside it")
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise RepairRefused(f"--output {folder} exists and is not a folder; name a new "
                            f"or empty folder")
    if folder.is_dir():
        config = folder / CONFIG
        if config.exists() and os.path.samefile(config, checkpoint.root / CONFIG):
            raise RepairRefused(f"--output {folder} holds this checkpoint's {CONFIG} (a "
                                f"link to it); name a new or empty folder")
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            if next(entries, None) is not None:
                raise RepairRefused(f"--output {folder} exists and is not empty; name a "
                                    f"new or empty folder (nothing was written)")
    return folder


def _under_hub_cache(real: Path) -> bool:
    from huggingface_hub import constants

    cache = Path(os.path.realpath(constants.HF_HUB_CACHE))
    return real == cache or cache in real.parents


@contextlib.contextmanager
def _staged(final: Path):
    """A hidden folder beside `final` to build the copy in, renamed onto `final` (new or
    empty) only when complete; on any failure it and the folders made for it are gone."""
    made = [p for p in [final.parent, *final.parent.parents] if not p.exists()]
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.",
                                        suffix=".partial"))
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)       # mkdtemp's 0700 would stay on the copy
    except OSError as exc:
        raise RepairRefused(f"cannot prepare --output {final}: "
                            f"{exc.strerror or exc}; nothing written") from None
    try:
        yield staging
        os.rename(staging, final)     # onto a missing or empty folder, atomically
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        for folder in made:           # innermost first
            with contextlib.suppress(OSError):
                folder.rmdir()
        if isinstance(exc, OSError):
            raise RepairRefused(f"cannot write --output {final}: {exc.strerror or exc}; "
                                f"nothing was left behind") from None
        raise


def _fill(checkpoint: Checkpoint, staging: Path) -> None:
    """Every checkpoint file but config.json into the staging folder."""
    for name in sorted(checkpoint.files):
        if name != CONFIG:
            _place(checkpoint.root / name, staging / name)


COPY_LIMIT = 64 << 20   # files up to this size are copied; larger ones (weights) hard-linked


def _place(source: Path, destination: Path) -> None:
    """Put `source` into the --output folder: a copy when small (a card, a tokenizer: an
    edit of the copy must never change the original or a shared hub-cache blob), else a
    hard link (no weights copied; the checkpoint then holds no link leaving its folder,
    so `check` accepts it); across file systems a large file is refused."""
    if destination.exists() or destination.is_symlink():
        return
    real = os.path.realpath(source)       # a hub-cache snapshot file is a link to a blob
    destination.parent.mkdir(parents=True, exist_ok=True)
    if os.path.getsize(real) <= COPY_LIMIT:
        shutil.copyfile(real, destination)
        return
    try:
        os.link(real, destination)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        raise RepairRefused(f"cannot hard-link {source.name} into --output "
                            f"{destination.parent} (another file system) and it is "
                            f"too large to copy; choose DIR on the same file system "
                            f"as the checkpoint") from None


def _in_place(checkpoint: Checkpoint) -> Path:
    """config.json itself, or the file a symlinked config.json names when that stays
    inside the checkpoint folder (written through, so the link keeps working)."""
    path = checkpoint.root / CONFIG
    if not path.is_symlink():
        return path
    real, root = os.path.realpath(path), os.path.realpath(checkpoint.root)
    if os.path.commonpath([real, root]) != root:
        raise RepairRefused(f"{path} is a link to {real}, outside the checkpoint folder; "
                            f"not writing through it (fix that file, or use --output DIR)")
    return Path(real)


def _in_place_or_none(checkpoint: Checkpoint) -> Path | None:
    try:
        return _in_place(checkpoint)
    except RepairRefused:
        return None


def _write_verified(path: Path, original: str, text: str, options: Options,
                    checkpoint: Checkpoint, backup: bool) -> tuple[str, Path | None]:
    """Write `text` to `path` under the folder lock; verify; restore on mismatch."""
    data = text.encode("utf-8")
    in_place = path == _in_place_or_none(checkpoint)
    try:
        with write.file_lock(path):
            write.remove_stale_temps(path)
            previous = write.read_back(path) if path.exists() else None
            if in_place and previous == data:
                return "already fixed (by a concurrent run); " + _summary(), None
            if in_place and previous != original.encode("utf-8"):
                raise RepairRefused(f"{path} changed while it was being fixed; nothing "
                                    f"written, run fix again")
            saved = None
            if backup and previous is not None:
                saved = write.backup_name(path)
                write.atomic_write(saved, previous, os.stat(path).st_mode & 0o7777)
            try:
                write.atomic_write(path, data)
            except write.WriteError:
                if saved is not None:
                    with contextlib.suppress(OSError):
                        saved.unlink()       # a failed fix leaves no trace
                raise
            problem = _verify(path, data, text, checkpoint)
            if problem:
                if previous is not None:
                    write.atomic_write(path, previous)
                else:
                    os.unlink(path)
                raise RepairRefused(f"READ-BACK FAILED for {path}: {problem}; the original "
                                    f"file was restored")
    except write.WriteError as exc:
        raise RepairRefused(str(exc)) from None
    return _summary(), saved


def _summary() -> str:
    version = loading.transformers_version()
    return "bytes identical" + (f", transformers {version} loads the intended values"
                                if version else "")


def _verify(path: Path, data: bytes, text: str, checkpoint: Checkpoint) -> str | None:
    on_disk = write.read_back(path)
    if on_disk != data:
        return (f"{len(on_disk)} bytes on disk differ from the {len(data)} bytes written "
                f"(first difference at byte {_first_difference(on_disk, data)})")

    family = detect(checkpoint.config, checkpoint.weights)
    intended = loading.load(text, family, use_cache=False)
    loaded = loading.load(on_disk.decode("utf-8"), family, use_cache=False)
    if intended is not None and (intended.values, intended.error) != (loaded.values,
                                                                        loaded.error):
        return "what transformers loads from the file differs from the intended config"
    return None


def _first_difference(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
