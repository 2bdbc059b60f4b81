"""Lint a hub repo before downloading it.

`materialize("org/name[@rev]")` resolves the revision to a commit, then fetches through
huggingface_hub config.json, the model card, the shard index, tokenizer files up to their
size cap, and *only the header* of each safetensors file the family needs (one ranged GET
of the first 100 kB, a second one only for a longer header; a header length over the
reader's cap is never requested). They land in `<cache>/remote/<org>--<name>/<commit>/`:
each weights file there holds just its header bytes, and `.drafter-lint-remote.json`
records the real sizes, so the ordinary checkpoint reader and every rule run unchanged. A
commit is fetched once; a later check of it only resolves the revision (nothing with a
pinned commit or offline).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import threading
from pathlib import Path

from drafter_lint import hub
from drafter_lint.bounded import read_text
from drafter_lint.cache import cache_dir
from drafter_lint.family import select_shards
from drafter_lint.fix.write import atomic_write
from drafter_lint.safetensors_header import MAX_HEADER_BYTES

MARK = ".drafter-lint-remote.json"
FIRST_READ = 100_000            # bytes of each weights file asked for first
INDEX, MAX_INDEX, MAX_SMALL_FILE = hub.INDEX, hub.MAX_INDEX, hub.MAX_SMALL_FILE


def _root() -> Path:
    return cache_dir() / "remote"


def declared_sizes(folder: Path) -> dict[str, int]:
    """Real sizes of the header-only weights files of a materialized repo; {} for any
    folder outside the remote cache (a checkpoint cannot vouch for itself)."""
    try:
        real, root = os.path.realpath(folder), os.path.realpath(_root())
        if os.path.commonpath([real, root]) != root or not (folder / MARK).is_file():
            return {}

        sizes = json.loads(read_text(folder / MARK)).get("sizes", {})
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in sizes.items() if isinstance(k, str) and type(v) is int}


def skipped(folder: Path) -> list[str]:
    """Why each optional file of a materialized repo was not fetched (over its cap)."""
    try:
        found = json.loads(read_text(Path(folder) / MARK)).get("skipped") or {}
    except (OSError, ValueError, AttributeError):
        return []
    return [str(why) for why in found.values()] if isinstance(found, dict) else []


def materialize(arg: str, offline: bool = False,
                listed: tuple[str, frozenset] | None = None) -> tuple[Path, str]:
    """(local folder, "org/name@<commit>") holding `arg`'s small files and headers.
    `listed`: (commit, file names) of the repo's main branch as a hub listing returned
    them (collections): no request to resolve the revision or list the files, and each
    small file by one GET. Offline, or when the hub cannot be reached, a complete snapshot
    in the hub cache stands in (its files are read as a local checkpoint's)."""

    hub.check_environment()
    parsed = hub.parse_repo_arg(arg)
    if parsed is None:
        raise hub.HubError(f"{arg!r} is neither a local path nor a hub repo id "
                           f"(org/name[@revision])")
    repo_id, revision = parsed
    offline = hub.offline_mode(offline)
    repo_dir = _root() / repo_id.replace("/", "--")
    from_listing = listed is not None and revision == "main" and not offline \
        and hub.SHA.match(listed[0] or "")
    try:
        commit = listed[0] if from_listing else _commit(repo_id, revision, repo_dir, offline)
    except hub.HubUnreachable as exc:
        return _hub_cache(repo_id, revision, exc)
    folder = repo_dir / commit
    display = f"{repo_id}@{commit}"
    if (folder / MARK).is_file():
        return folder, display
    if offline:
        return _hub_cache(repo_id, revision, _not_cached(repo_id, revision))
    with _commit_lock(folder):     # aliases of one commit in one run: one fetch
        if not (folder / MARK).is_file():
            _fetch(repo_id, commit, folder, sorted(listed[1]) if from_listing else None)
    _remember(repo_dir, revision, commit)
    return folder, display


def _hub_cache(repo_id: str, revision: str, error: Exception) -> tuple[Path, str]:
    """The hub cache's complete snapshot of the repo; else `error` is raised."""
    found = hub.cached_snapshot(repo_id, revision)
    if found is None:
        raise error
    return found, f"{repo_id}@{found.name}"


def _not_cached(repo_id: str, revision: str) -> hub.HubUnreachable:
    return hub.HubUnreachable(f"{repo_id}@{revision}: not in the local cache (nor complete in "
                           f"the hub cache) and offline mode is on (check it once online, "
                           f"or drop --offline / HF_HUB_OFFLINE)")


_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def _commit_lock(folder: Path) -> threading.Lock:
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(folder, threading.Lock())


def _commit(repo_id: str, revision: str, repo_dir: Path, offline: bool) -> str:
    if hub.SHA.match(revision):
        return revision
    ref = repo_dir / "refs" / revision.replace("/", "--")
    if offline:
        try:
            commit = read_text(ref).strip()
        except OSError:
            commit = ""
        if hub.SHA.match(commit):
            return commit
        raise _not_cached(repo_id, revision)
    return hub.resolve_commit(repo_id, revision)


def _remember(repo_dir: Path, revision: str, commit: str) -> None:
    if revision != commit:
        ref = repo_dir / "refs" / revision.replace("/", "--")
        ref.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(ref, (commit + "\n").encode(), 0o644, durable=False)


REQUIRED = ("config.json", INDEX)     # the rest are optional: one over its cap is skipped
# the small files read with a repo, and the most of each that is read
SMALL_FILES = {"config.json": MAX_SMALL_FILE, "README.md": MAX_SMALL_FILE,
               "hf_quant_config.json": MAX_SMALL_FILE,
               "tokenizer_config.json": hub.MAX_TOKENIZER_BYTES,
               "tokenizer.json": hub.MAX_TOKENIZER_BYTES}


def _fetch(repo_id: str, commit: str, folder: Path, names: list[str] | None = None) -> None:
    """Fill `folder` atomically: built beside it, renamed into place when complete. With
    `names` (a listing's file names) each small file is one GET into this cache;
    without, the repo's files are listed (one request) and read through the hub cache."""

    _prune()
    partial = folder.with_name(f".{folder.name}.{os.getpid()}.{threading.get_ident()}"
                               f".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    _BUILDING.add(partial)
    try:
        if names is not None:
            listed = dict.fromkeys(names)
            if "config.json" not in listed:
                raise hub.HubError(f"{repo_id}@{commit}: the repo has no config.json")
            skipped = {}
            for name, limit in {**SMALL_FILES, INDEX: MAX_INDEX}.items():
                try:
                    data = hub.get_file(repo_id, commit, name, limit) if name in listed \
                        else None
                except hub.FileTooBig as exc:
                    if name in REQUIRED:
                        raise
                    skipped[name], data = str(exc), None     # optional: lint the rest
                if data is not None:
                    (partial / name).write_bytes(data)
            index = partial / INDEX if (partial / INDEX).is_file() else None
        else:
            listed = _repo_files(repo_id, commit)   # one request: what to ask, and sizes
            snapshot = hub.fetch(f"{repo_id}@{commit}", tokenizer=True, listed=listed)
            skipped = snapshot.skipped
            for name, path in snapshot.files.items():
                shutil.copyfile(path, partial / name)
            index = hub.download(repo_id, commit, INDEX, required=False, preflight=False) \
                if INDEX in listed else None
        config = _json(partial / "config.json")
        if index is not None:
            if index != partial / INDEX:
                shutil.copyfile(index, partial / INDEX)
            weight_map = (_json(partial / INDEX) or {}).get("weight_map")
            weight_map = weight_map if isinstance(weight_map, dict) else {}
            needed = select_shards(config, weight_map)
            shards = sorted({s for s in weight_map.values() if isinstance(s, str)
                             and (needed is None or s in needed)})
        else:
            shards = sorted(n for n in listed if n.endswith(".safetensors"))
        sizes = {}
        for shard in shards:
            if "/" in shard or shard.startswith("."):
                continue                       # the reader reports a shard outside the folder
            head, sizes[shard] = _header(repo_id, commit, shard)
            (partial / shard).write_bytes(head)
        (partial / MARK).write_text(json.dumps({"repo": repo_id, "commit": commit,
                                                "sizes": sizes, "skipped": skipped}),
                                    encoding="utf-8")
        try:
            os.replace(partial, folder)
        except OSError:
            if not (folder / MARK).is_file():  # else a concurrent check finished it first
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        _BUILDING.discard(partial)


# partial folders this process is building; removed at exit, where a Ctrl-C leaves the
# worker threads building them (daemons) no time to
_BUILDING: set[Path] = set()


@atexit.register
def _remove_partials() -> None:
    for partial in list(_BUILDING):
        shutil.rmtree(partial, ignore_errors=True)


_PRUNED: list[bool] = []


def _prune() -> None:
    """Once per process: remove the partial folders of processes that are gone (killed
    mid-fetch), in every repo's folder of the cache."""
    with _LOCKS_LOCK:
        if _PRUNED:
            return
        _PRUNED.append(True)
    try:
        found = [p for repo in _root().iterdir() if repo.is_dir()
                 for p in repo.glob(".*.partial")]
    except OSError:
        return
    for partial in found:
        parts = partial.name.split(".")     # "", commit, pid, [thread,] "partial"
        if len(parts) in (4, 5) and parts[2].isdigit() and not _alive(int(parts[2])):
            shutil.rmtree(partial, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True        # another user's process (or a pid too large to ask about)
    return True


def _header(repo_id: str, commit: str, shard: str) -> tuple[bytes, int]:
    """The first 8 + header-length bytes of a hub weights file, and its size. A length the
    reader refuses (over its cap, or past the end) is not fetched: the 8 bytes suffice
    for the finding."""

    head, size = hub.read_range(repo_id, commit, shard, 0, FIRST_READ - 1)
    if len(head) < 8:
        return head, size
    length = int.from_bytes(head[:8], "little")
    if length > MAX_HEADER_BYTES or 8 + length > size:
        return head[:8], size
    if 8 + length > len(head):
        rest, _ = hub.read_range(repo_id, commit, shard, len(head), 8 + length - 1)
        head += rest
    return head[:8 + length], size


def _repo_files(repo_id: str, commit: str) -> dict[str, int | None]:
    """Every file of the repo at `commit` and its size (None when the hub gives none)."""
    endpoint = hub.settings()["endpoint"]      # its variables checked before the import
    from huggingface_hub import HfApi

    api = HfApi(endpoint=endpoint)
    try:
        info = hub.retrying(lambda: api.model_info(repo_id, revision=commit,
                                                   files_metadata=True))
    except Exception as exc:  # noqa: BLE001 -- one line, as every hub failure
        raise hub.explain(exc, repo_id, commit, "the repo's file list") from None
    return {s.rfilename: s.size for s in sorted(info.siblings or [],
                                                key=lambda s: s.rfilename)}


def _json(path: Path):
    try:
        return json.loads(read_text(path))
    except (OSError, ValueError, RecursionError):     # the check reports it (DL001)
        return None
