"""`fix`: plan the edits, write config.json atomically under a lock, read it back.

The read-back compares the bytes on disk with the intended bytes, then what transformers
loads from those bytes with the value each planned edit wrote (through the renames
transformers makes): a value it normalizes away fails. Any mismatch restores the
original bytes and is refused (exit 2).
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

from drafter_lint import hub, jsondoc, loading
from drafter_lint.cache import cache_dir
from drafter_lint.checkpoint import CONFIG, Checkpoint
from drafter_lint.checkpoint import _contained as contained  # check's own link test
from drafter_lint.errors import HubError, RepairRefused
from drafter_lint.family import detect
from drafter_lint.findings import Result, escape_lines
from drafter_lint.fix import plan, write
from drafter_lint.hub import in_hub_cache
from drafter_lint.options import Options
from drafter_lint.remote import MARK
from drafter_lint.rules.loaded import BOOKKEEPING


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
        outcome.lines.append(_unreadable(checkpoint))
        return outcome
    planned = plan.plan(checkpoint, options, unsafe)
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
        written, saved = _write_verified(destination, planned, options, checkpoint, backup)
    else:
        final = _output_folder(checkpoint, Path(output))
        with _staged(final) as staging:
            outcome.lines.extend(_fill(checkpoint, staging))
            written, saved = _write_verified(staging / CONFIG, planned, options, checkpoint,
                                             False)
        destination = final / CONFIG
    if written is None:
        outcome.lines.append(f"{destination}: nothing written: already fixed (by a "
                             f"concurrent run)")
    else:
        outcome.lines.append(f"wrote {destination}" + (f" (backup: {saved})" if saved
                                                       else "") + f"; read back: {written}")
    return outcome


def _unreadable(checkpoint: Checkpoint) -> str:
    """Why there is no config.json to fix, as the read said it; a link into a hub cache
    is refused outright (never written through in place)."""
    path = checkpoint.root / CONFIG
    real = Path(os.path.realpath(path))
    blob = real.parent.name == "blobs" and (real.parent.parent / "snapshots").is_dir()
    if path.is_symlink() and (blob or in_hub_cache(real.parent) or _under_hub_cache(real)):
        named = Path(os.path.abspath(path.parent / os.readlink(path))).parent
        snapshot = named if in_hub_cache(named) else "the snapshot folder"
        raise RepairRefused(
            f"{checkpoint.display}/{CONFIG} is a link into a Hugging Face cache ({real}), "
            f"outside the checkpoint folder: not opened, and a hub cache's shared blobs "
            f"are never written in place; fix {snapshot} with --output DIR, or download "
            f"the repo with `hf download REPO --local-dir DIR` and fix that")
    why = next((p.message for p in checkpoint.problems if p.file == CONFIG), None)
    return (f"{checkpoint.display}: {why}" if why else
            f"{checkpoint.display}/{CONFIG}: cannot be parsed as a JSON object") + \
        "; nothing fixed (see `drafter-lint check`)"


def _destination(checkpoint: Checkpoint) -> Path:
    if in_hub_cache(checkpoint.root):
        raise RepairRefused(
            f"{checkpoint.display} is inside a Hugging Face cache snapshot, whose files "
            f"are shared content-addressed blobs; not writing through them. Use "
            f"--output DIR to write a fixed copy, or download the repo with "
            f"`hf download REPO --local-dir DIR` and fix that")
    if _in_tool_cache(checkpoint.root):
        raise RepairRefused(_TOOL_CACHE.format(what=checkpoint.display, cache=cache_dir()))
    return _in_place(checkpoint)


# U5-1: check and gate trust <cache>/remote/ as the hub's files; only the cache code
# writes it
_TOOL_CACHE = ("{what} is inside drafter-lint's own cache ({cache}), which check and gate "
               "trust as the hub's files and whose weights are headers only; not writing "
               "there. Fix the repo by its id with --output DIR (its real files are "
               "downloaded), or download it with `hf download REPO --local-dir DIR` and "
               "fix DIR")


def _in_tool_cache(folder: Path) -> bool:
    real, cache = Path(os.path.realpath(folder)), Path(os.path.realpath(cache_dir()))
    return real == cache or cache in real.parents


def _output_folder(checkpoint: Checkpoint, folder: Path) -> Path:
    """The --output folder, refused when writing there could touch the checkpoint, a hub
    cache or drafter-lint's cache: it must be a new or empty folder outside them (a link
    to an empty folder is that folder). Refused too from drafter-lint's header-only copy
    of a hub repo."""
    real, root = Path(os.path.realpath(folder)), Path(os.path.realpath(checkpoint.root))
    if _in_tool_cache(root):
        raise RepairRefused(_TOOL_CACHE.format(what=checkpoint.display,
                                               cache=cache_dir()))
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
    if _in_tool_cache(real):
        raise RepairRefused(f"--output {folder} is inside drafter-lint's own cache "
                            f"({cache_dir()}); name a folder outside it")
    if folder.is_symlink() and not folder.exists():
        raise RepairRefused(f"--output {folder} is a link to {os.readlink(folder)}, which "
                            f"does not exist; create that folder or name a new one")
    if folder.exists() and not folder.is_dir():
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
    return real if folder.is_symlink() else folder   # the copy is renamed onto the folder


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


# folders of the source that do not travel to --output, and why
NOT_COPIED = {
    ".cache/huggingface": "huggingface_hub's download records of the source folder (which "
                          "commit and etag each file came from), untrue of the fixed copy",
    ".git": "the source folder's version control, not part of the checkpoint",
}


def _fill(checkpoint: Checkpoint, staging: Path) -> list[str]:
    """Copy the checkpoint's files but config.json into the staging folder, sub-folders
    too: only regular files inside the checkpoint (a hub snapshot's links into its own
    blobs/ are its files); a link that leaves it is not opened. The note lines of what
    was left out."""
    root, notes = checkpoint.root, []
    for top, dirs, files in os.walk(root):          # never enters a linked folder
        here = os.path.relpath(top, root)
        for name in sorted(dirs):
            rel = os.path.normpath(os.path.join(here, name))
            if rel in NOT_COPIED:
                dirs.remove(name)
                notes.append(f"not copied {rel}/: {NOT_COPIED[rel]}")
            elif os.path.islink(os.path.join(top, name)):
                files.append(name)                   # reported below, never entered
        for name in sorted(files):
            rel = os.path.normpath(os.path.join(here, name))
            if rel in (CONFIG, MARK):
                continue
            source = root / rel
            if not contained(root, rel):
                notes.append(f"not copied {rel}: a link that leaves the checkpoint "
                             f"folder; not opened (as `check` reports it)")
            elif os.path.isdir(source):
                notes.append(f"not copied {rel}: a link to a folder; not followed")
            elif not os.path.isfile(source):
                notes.append(f"not copied {rel}: not a regular file")
            else:
                try:
                    _place(source, staging / rel)
                except OSError as exc:             # name the file that failed
                    raise OSError(exc.errno, f"{rel}: {exc.strerror or exc}") from None
    return notes


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


def _write_verified(path: Path, planned: plan.Plan, options: Options,
                    checkpoint: Checkpoint, backup: bool) -> tuple[str | None, Path | None]:
    """Write the plan's text to `path` under the folder lock; verify; restore on mismatch.
    (what the read-back verified, or None when a concurrent run had written it; the
    backup)."""
    data = planned.text.encode("utf-8")
    in_place = path == _in_place_or_none(checkpoint)
    try:
        with write.file_lock(path):
            write.remove_stale_temps(path)
            previous = write.read_back(path) if path.exists() else None
            if in_place and previous == data:
                return None, None
            if in_place and previous != planned.original.encode("utf-8"):
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
            problem, verified = _verify(path, data, planned, checkpoint, options)
            if problem:
                if previous is not None:
                    write.atomic_write(path, previous)
                else:
                    os.unlink(path)
                raise RepairRefused(f"READ-BACK FAILED for {path}: {problem}; the original "
                                    f"file was restored")
    except write.WriteError as exc:
        raise RepairRefused(str(exc)) from None
    return verified, saved


def _verify(path: Path, data: bytes, planned: plan.Plan, checkpoint: Checkpoint,
            options: Options) -> tuple[str | None, str]:
    """(the mismatch or None, what was verified). The bytes on disk must be the bytes
    written; then transformers' load of them must hold the value of each add/replace
    the plan made (a remove leaves the class default: nothing to compare)."""
    on_disk = write.read_back(path)
    if on_disk != data:
        return (f"{len(on_disk)} bytes on disk differ from the {len(data)} bytes written "
                f"(first difference at byte {_first_difference(on_disk, data)})"), ""
    family = options.family or detect(planned.value, checkpoint.weights)
    if not loading.loads_through_transformers(family, planned.value):
        return None, "bytes identical (runtimes read this config without transformers)"
    # the plan's last lint loaded these very bytes: the cache, keyed by their content,
    # holds that load unless --no-cache
    loaded = loading.load(on_disk.decode("utf-8"), family, use_cache=options.use_cache)
    if loaded is None:
        return None, "bytes identical (transformers is not installed: values not compared)"
    if loaded.values is None:
        if loaded.config_class is None:
            return None, f"bytes identical ({loaded.label}: {loaded.error}; not compared)"
        before = loading.load(planned.original, family, use_cache=options.use_cache)
        if before is not None and before.values is not None:
            return f"{loaded.label} cannot load the written file ({loaded.error}), " \
                   f"though it loads the original", ""
        return None, f"bytes identical ({loaded.label} refuses this config as it refused " \
                     f"the original; values not compared)"
    intended = _intended(planned)
    for ptr, value in intended:
        try:
            got = _loaded_at(loaded.values, ptr)
        except KeyError:
            return f"{loaded.label} drops {ptr} (intended {_show(value)})", ""
        if not _same(value, got):
            return f"{loaded.label} loads {ptr} as {_show(got)}, not {_show(value)} as " \
                   f"intended", ""
    return None, (f"bytes identical, {loaded.label} loads the {len(intended)} intended "
                  f"value{'s' if len(intended) != 1 else ''}")


def _intended(planned: plan.Plan) -> list[tuple[str, object]]:
    """(pointer, value) the plan's adds and replaces leave in the fixed document, once
    each; bookkeeping keys transformers rewrites by design are not compared."""
    out: dict[str, object] = {}
    for _, edit, _ in planned.applied:
        ptr = edit["path"]
        if edit["op"] == "remove" or ptr.split("/")[1] in BOOKKEEPING:
            continue
        with contextlib.suppress(KeyError):
            out[ptr] = jsondoc.resolve(planned.value, ptr)
    return list(out.items())


# where transformers keeps a field it renames or moves (measured on 4.57.6 and 5.24.0:
# v5 moves RoPE fields into rope_parameters, both majors rename torch_dtype)
MOVED = {"torch_dtype": "dtype", "rope_theta": "rope_parameters/rope_theta",
         "rope_scaling": "rope_parameters"}


def _loaded_at(values: dict, ptr: str):
    try:
        return jsondoc.resolve(values, ptr)
    except KeyError:
        head, _, rest = ptr[1:].partition("/")
        if head not in MOVED:
            raise
        return jsondoc.resolve(values, "/" + MOVED[head] + (f"/{rest}" if rest else ""))


def _same(mine, theirs) -> bool:
    """`theirs` holds `mine`: equal numbers (5 and 5.0), lists item by item, objects with
    every key of `mine` (transformers adds defaults), bools and strings exactly."""
    if isinstance(mine, dict):
        return isinstance(theirs, dict) and all(k in theirs and _same(v, theirs[k])
                                                for k, v in mine.items())
    if isinstance(mine, list):
        return isinstance(theirs, list) and len(mine) == len(theirs) and all(
            _same(a, b) for a, b in zip(mine, theirs))
    number = (int, float)
    if isinstance(mine, number) and not isinstance(mine, bool):
        return isinstance(theirs, number) and not isinstance(theirs, bool) \
            and mine == theirs
    return type(mine) is type(theirs) and mine == theirs


def _first_difference(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def download_repo(arg: str, offline: bool) -> Path:
    """The Hugging Face cache snapshot of hub repo `arg` with every file, for `fix --output`
    to copy from (drafter-lint's own copy holds weights headers only). huggingface_hub
    downloads it as it reads HF_ENDPOINT, the cache and offline mode."""
    repo_id, revision = hub.parse_repo_arg(arg)
    offline = hub.offline_mode(offline)
    commit = hub.download(repo_id, revision, CONFIG, offline).parent.name   # fails fast
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id, revision=commit, local_files_only=offline,
                                      **hub.settings()))
    except Exception as exc:  # noqa: BLE001 -- any hub failure is one line, exit 2
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise HubError(hub.scrub(f"{repo_id}@{commit}: cannot download the repo's files "
                                 f"for --output: {type(exc).__name__}: {first}")) from None
