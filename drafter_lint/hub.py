"""Every Hugging Face Hub access, through huggingface_hub: files, model card, revisions.

`HF_ENDPOINT`, `HF_HUB_CACHE`/`HF_HOME`, `HF_HUB_OFFLINE` and the timeouts are read when a
call is made (not when huggingface_hub is imported), so a process can be pointed at
another hub. Errors become `HubError` with one line naming the repo and what to do;
tokens never appear in them.
"""

from __future__ import annotations

import email.utils
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint.errors import FileTooBig, HubError
from drafter_lint.progress import waiting

# huggingface_hub's repo id characters (ASCII letters, digits, '-', '_', '.'): anything
# else is a local path that does not exist, never a hub request
REPO_ARG = re.compile(r"^(?P<repo>[A-Za-z0-9][A-Za-z0-9_.\-]*/[A-Za-z0-9_.\-]+)"
                      r"(?:@(?P<rev>[^\s@]+))?$", re.ASCII)
SHA = re.compile(r"^[0-9a-f]{40}$")
MAX_TOKENIZER_BYTES = 32 * 1024 * 1024
MAX_SMALL_FILE = 4 * 1024 * 1024       # config.json and the model card (checkpoint.py's cap)


@dataclass
class Snapshot:
    """Files of one repo revision in the local hub cache."""

    repo_id: str
    revision: str            # as asked ("main", a tag, a sha)
    commit: str              # resolved commit sha
    folder: Path             # the snapshot folder in the cache
    files: dict[str, Path] = field(default_factory=dict)
    card: dict = field(default_factory=dict)

    @property
    def pinned(self) -> bool:
        """Whether the user named the exact commit (a moving branch is not pinned)."""
        return bool(SHA.match(self.revision))

    @property
    def display(self) -> str:
        return f"{self.repo_id}@{self.commit}"


def parse_repo_arg(arg: str) -> tuple[str, str] | None:
    """("org/name", revision) for `org/name[@rev]`, or None when `arg` is not one."""
    match = REPO_ARG.match(arg)
    if not match:
        return None
    return match["repo"], match["rev"] or "main"


def offline_mode(flag: bool = False) -> bool:
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return flag or value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def settings() -> dict:
    """Where and how huggingface_hub is asked (endpoint, cache, timeout); its own logging
    and progress bars quietened first (every hub access starts here)."""
    _quiet()
    cache = os.environ.get("HF_HUB_CACHE")
    if not cache and os.environ.get("HF_HOME"):
        cache = os.path.join(os.environ["HF_HOME"], "hub")
    timeout = float(os.environ.get("HF_HUB_ETAG_TIMEOUT") or 10)
    return {"endpoint": os.environ.get("HF_ENDPOINT") or None, "cache_dir": cache,
            "etag_timeout": timeout}


def scrub(text: str) -> str:
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        token = os.environ.get(name)
        if token:
            text = text.replace(token, "***")
    return re.sub(r"hf_[A-Za-z0-9]{20,}", "hf_***", text)


def _remote_missing(errors) -> type:
    """The "no such file in the repo" error: RemoteEntryNotFoundError from huggingface_hub
    1.0, EntryNotFoundError before (where LocalEntryNotFoundError subclasses it, so callers
    test for the local one first)."""
    return getattr(errors, "RemoteEntryNotFoundError", errors.EntryNotFoundError)


def _explain(exc: Exception, repo_id: str, revision: str, filename: str, offline: bool) -> str:
    from huggingface_hub import errors

    where = f"{repo_id}@{revision}"
    if isinstance(exc, errors.GatedRepoError):
        return (f"{where} is gated: accept its terms on the hub and log in "
                f"(`hf auth login` or HF_TOKEN)")
    if isinstance(exc, errors.RepositoryNotFoundError):
        return (f"{where}: no such repo on {os.environ.get('HF_ENDPOINT') or 'the hub'} "
                f"(check the id; private repos need a token)")
    if isinstance(exc, errors.RevisionNotFoundError):
        return f"{where}: no such revision (check the branch, tag or commit)"
    if isinstance(exc, (errors.LocalEntryNotFoundError, errors.OfflineModeIsEnabled)):
        if offline:
            return (f"{where}: {filename} is not in the local hub cache and offline mode is on "
                    f"(download it once online, or drop --offline / HF_HUB_OFFLINE)")
        return (f"{where}: cannot reach {os.environ.get('HF_ENDPOINT') or 'the hub'} and "
                f"{filename} is not cached (check the network, or use a local --reference)")
    if isinstance(exc, _remote_missing(errors)):
        return f"{where} has no {filename}"
    if isinstance(exc, errors.HfHubHTTPError):
        status = getattr(getattr(exc, "response", None), "status_code", "?")
        return f"{where}: the hub answered HTTP {status} for {filename}; try again later"
    if "Timeout" in type(exc).__name__ or isinstance(exc, TimeoutError):
        waited = settings()["etag_timeout"]
        return (f"{where}: {os.environ.get('HF_ENDPOINT') or 'the hub'} did not answer for "
                f"{filename} within {waited:g} s and it is not cached; cannot reach it this "
                f"time (raise HF_HUB_ETAG_TIMEOUT, and HF_HUB_DOWNLOAD_TIMEOUT for file "
                f"downloads, or use --offline with a filled cache)")
    if isinstance(exc, (ConnectionError, OSError)) or "Connect" in type(exc).__name__:
        return (f"{where}: cannot reach {os.environ.get('HF_ENDPOINT') or 'the hub'} "
                f"({type(exc).__name__}) and {filename} is not cached (check the network, "
                f"or use --offline with a filled cache, or a local --reference)")
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{where}: cannot download {filename}: {type(exc).__name__}: {first}"


def _quiet() -> None:
    """Download progress bars only on a terminal; no retry chatter (our errors say it)."""

    from huggingface_hub.utils import (
        disable_progress_bars,
        enable_progress_bars,
        logging,
    )

    enable_progress_bars() if sys.stderr.isatty() else disable_progress_bars()
    logging.set_verbosity_error()


def _preflight(repo_id: str, revision: str, filename: str) -> int | None:
    """Ask for the file's metadata once, with no retries, so an unreachable or failing hub
    is reported at once (hf_hub_download retries for ~25 s); raises what it raises. The
    file's size, when the hub says it."""
    import huggingface_hub
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    conf = settings()
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=conf["endpoint"])
    if not huggingface_hub.__version__.startswith("0."):
        return get_hf_file_metadata(url, timeout=conf["etag_timeout"]).size
    # huggingface_hub 0.x retries get_hf_file_metadata with backoff (~25 s on an outage):
    # one HEAD through its own session instead, raising its own error classes.
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    response = get_session().head(url, headers=build_hf_headers(),
                                  timeout=conf["etag_timeout"], allow_redirects=False)
    if not 300 <= response.status_code < 400:
        hf_raise_for_status(response)
    size = response.headers.get("X-Linked-Size") or response.headers.get("Content-Length")
    return int(size) if size and size.isdigit() else None


def _session_kwargs(session) -> dict:
    """Follow redirects (the hub sends large files to a CDN) in requests and httpx alike."""
    return ({"follow_redirects": True} if "httpx" in type(session).__module__
            else {"allow_redirects": True})


def resolve_commit(repo_id: str, revision: str) -> str:
    """The commit `revision` names, from one HEAD of config.json (no retries)."""
    if SHA.match(revision):
        return revision
    import huggingface_hub
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    conf = settings()
    url = hf_hub_url(repo_id, "config.json", revision=revision, endpoint=conf["endpoint"])
    try:
        if not huggingface_hub.__version__.startswith("0."):
            commit = get_hf_file_metadata(url, timeout=conf["etag_timeout"]).commit_hash
        else:
            from huggingface_hub.utils import (
                build_hf_headers,
                get_session,
                hf_raise_for_status,
            )

            response = get_session().head(url, headers=build_hf_headers(),
                                          timeout=conf["etag_timeout"],
                                          allow_redirects=False)
            if not 300 <= response.status_code < 400:
                hf_raise_for_status(response)
            commit = response.headers.get("X-Repo-Commit")
    except Exception as exc:  # noqa: BLE001 -- one line, as every hub failure
        raise HubError(scrub(_explain(exc, repo_id, revision, "config.json", False))) \
            from None
    if not commit or not SHA.match(commit):
        raise HubError(f"{repo_id}@{revision}: the hub named no commit for it")
    return commit


# Rate limits: a 429 or 503 is retried after the hub's Retry-After (seconds or an HTTP
# date), each wait at most MAX_WAIT and all waits for one request at most WAIT_BUDGET; then
# the request fails with one line. Without Retry-After the wait doubles from 1 s.
RETRIED = (429, 503)
MAX_RETRIES, MAX_WAIT, WAIT_BUDGET = 6, 30.0, 90.0


def retry_after(value: str | None, attempt: int) -> float:
    """Seconds to wait before retrying: the Retry-After header's, else 1, 2, 4 ... s."""
    if value:
        value = value.strip()
        if value.isdigit():
            return min(float(value), MAX_WAIT)
        try:
            when = email.utils.parsedate_to_datetime(value)
            return min(max(0.0, when.timestamp() - time.time()), MAX_WAIT)
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    return min(float(2 ** attempt), MAX_WAIT)


def next_wait(status: int | None, header: str | None, attempt: int, waited: float
              ) -> float | None:
    """Seconds to wait before retrying an answer of `status`, or None: not a rate limit,
    or the retries (MAX_RETRIES) or the wait budget (WAIT_BUDGET) are spent."""
    if status not in RETRIED or attempt >= MAX_RETRIES:
        return None
    pause = retry_after(header, attempt)
    return pause if waited + pause <= WAIT_BUDGET else None


class _RateLimited(Exception):
    """The hub kept answering 429/503 past the wait budget."""

    def __init__(self, status: int, tries: int, waited: float):
        super().__init__(f"the hub answered HTTP {status} (rate limit) {tries} times; "
                         f"gave up after waiting {waited:.0f} s")


def _get_bytes(url: str, headers: dict, limit: int) -> tuple[bytes, object]:
    """(the first `limit` bytes of a GET, the response), streamed through huggingface_hub's
    session (its token, endpoint and redirects), waiting out 429/503 as the hub asks."""
    from huggingface_hub.utils import get_session, hf_raise_for_status

    session, waited = get_session(), 0.0
    settings()
    timeout = float(os.environ.get("HF_HUB_DOWNLOAD_TIMEOUT") or 10)   # as huggingface_hub's
    for attempt in range(MAX_RETRIES + 1):
        if "httpx" in type(session).__module__:
            with session.stream("GET", url, headers=headers, timeout=timeout,
                                follow_redirects=True) as reply:
                if reply.status_code not in RETRIED:
                    hf_raise_for_status(reply)
                    return _first_bytes(reply.iter_bytes(), limit), reply
        else:
            reply = session.get(url, headers=headers, timeout=timeout, stream=True,
                                allow_redirects=True)
            if reply.status_code not in RETRIED:
                hf_raise_for_status(reply)
                content = _first_bytes(reply.iter_content(1 << 16), limit)
                reply.close()
                return content, reply
            reply.close()
        pause = next_wait(reply.status_code, reply.headers.get("Retry-After"), attempt, waited)
        if pause is None:
            raise _RateLimited(reply.status_code, attempt + 1, waited)
        time.sleep(pause)
        waited += pause
    raise AssertionError("unreachable")


def get_file(repo_id: str, commit: str, filename: str, limit: int) -> bytes | None:
    """A small hub file at a pinned commit (None when the repo has no such file): one
    ranged GET of its first FIRST_BYTES, whose answer gives the size, and a second only
    for the rest of a larger one; a file over `limit` is refused (FileTooBig) with its
    size, the rest never sent."""
    from huggingface_hub import errors

    first = min(limit, FIRST_BYTES) - 1
    try:       # the first range tells the size: a file over `limit` costs these bytes only
        content, size = read_range(repo_id, commit, filename, 0, first, missing=errors)
    except _Missing:
        return None
    too_big(repo_id, commit, filename, size, limit)
    if size > len(content):
        rest, _ = read_range(repo_id, commit, filename, len(content), size - 1)
        content += rest
    return content


FIRST_BYTES = 256 * 1024      # one request holds a card, a config or a small index


class _Missing(Exception):
    """The repo has no such file (get_file's None)."""


def build_headers() -> dict:
    from huggingface_hub.utils import build_hf_headers

    return build_hf_headers()


def read_range(repo_id: str, commit: str, filename: str, start: int, end: int,
               missing=None) -> tuple[bytes, int]:
    """Bytes start..end (inclusive) of a hub file and its total size, by one ranged GET
    through huggingface_hub's session (its token, endpoint and redirects). With `missing`
    (huggingface_hub.errors), a file the repo does not have raises _Missing."""
    from huggingface_hub import hf_hub_url

    url = hf_hub_url(repo_id, filename, revision=commit, endpoint=settings()["endpoint"])
    headers = {**build_headers(), "Range": f"bytes={start}-{end}"}
    wanted = end - start + 1
    try:   # streamed: a server that ignores the range must not send gigabytes into memory
        content, reply = _get_bytes(url, headers, start + wanted)
    except _RateLimited as exc:
        raise HubError(scrub(f"{repo_id}@{commit}: {filename}: {exc}")) from None
    except Exception as exc:  # noqa: BLE001 -- one line, as every hub failure
        if missing is not None and isinstance(exc, _remote_missing(missing)):
            raise _Missing() from None
        raise HubError(scrub(_explain(exc, repo_id, commit, filename, False))) from None
    span = reply.headers.get("Content-Range", "")
    tail = span.rsplit("/", 1)[-1]
    if reply.status_code == 206:
        return content[:wanted], int(tail) if tail.isdigit() else start + len(content)
    length = reply.headers.get("Content-Length", "")          # the range was ignored
    return content[start:start + wanted], int(length) if length.isdigit() else len(content)


def _first_bytes(chunks, limit: int) -> bytes:
    out = bytearray()
    for chunk in chunks:
        out += chunk
        if len(out) >= limit:
            break
    return bytes(out[:limit])


def download(repo_id: str, revision: str, filename: str, offline: bool = False,
             required: bool = True, preflight: bool = True,
             limit: int | None = None) -> Path | None:
    """The cached path of one file (downloading it unless offline); None if optional and
    absent. When the hub cannot be reached, a copy already in the cache is used. A slow
    answer shows one spinner line on a terminal. `preflight=False` skips the fail-fast
    metadata request, for a file the hub has just listed at a pinned commit. A file the
    preflight says is over `limit` bytes is refused before it is downloaded."""
    with waiting(f"{repo_id} {filename}"):
        return _download(repo_id, revision, filename, offline, required, preflight, limit)


def too_big(repo_id: str, revision: str, filename: str, size: int | None,
            limit: int | None) -> None:
    """Refuse a hub file whose size is over `limit`, before downloading it."""
    if size is not None and limit is not None and size > limit:
        raise FileTooBig(f"{repo_id}@{revision}: {filename} is {size / (1 << 20):.1f} MiB, over "
                       f"the {limit / (1 << 20):g} MiB this tool reads; not downloaded")


def _download(repo_id: str, revision: str, filename: str, offline: bool,
              required: bool, preflight: bool = True,
              limit: int | None = None) -> Path | None:
    from huggingface_hub import errors, hf_hub_download, try_to_load_from_cache

    _quiet()
    conf = settings()
    definite = (_remote_missing(errors), errors.RepositoryNotFoundError,
                errors.RevisionNotFoundError)  # answers, not outages: no cache fallback
    try:
        if not offline and preflight:
            try:
                size = _preflight(repo_id, revision, filename)
            except Exception as exc:  # noqa: BLE001 -- unreachable, 5xx, timeout
                if isinstance(exc, definite) and not isinstance(
                        exc, errors.LocalEntryNotFoundError):
                    raise
                cached = try_to_load_from_cache(repo_id, filename, conf["cache_dir"],
                                                revision)
                if isinstance(cached, str):
                    return Path(cached)
                raise HubError(scrub(_explain(exc, repo_id, revision, filename, False))) \
                    from None
            too_big(repo_id, revision, filename, size, limit)
        return Path(hf_hub_download(repo_id, filename, revision=revision,
                                    local_files_only=offline, **conf))
    except HubError:
        raise
    except errors.LocalEntryNotFoundError as exc:   # before the remote one: on 0.x a subclass
        if not required and offline:
            return None
        raise HubError(scrub(_explain(exc, repo_id, revision, filename, offline))) from None
    except _remote_missing(errors) as exc:
        if required:
            raise HubError(scrub(_explain(exc, repo_id, revision, filename, offline))) from None
        return None
    except Exception as exc:  # noqa: BLE001 -- any hub failure is one line, exit 2
        raise HubError(scrub(_explain(exc, repo_id, revision, filename, offline))) from None


def file_size(repo_id: str, commit: str, filename: str) -> int | None:
    """Size of a file of the hub repo without downloading it (None when unknown/absent)."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    conf = settings()
    try:
        url = hf_hub_url(repo_id, filename, revision=commit, endpoint=conf["endpoint"])
        return get_hf_file_metadata(url, timeout=conf["etag_timeout"]).size
    except Exception:  # noqa: BLE001 -- size unknown: the caller skips the file
        return None


def fetch(arg: str, offline: bool = False, tokenizer: bool = False,
          listed: dict[str, int | None] | None = None) -> Snapshot:
    """config.json (required) and the model card (optional) of `org/name[@rev]`; with
    `tokenizer`, also tokenizer files up to MAX_TOKENIZER_BYTES. `listed`: the files the
    hub just listed for this pinned commit; absent ones are not asked for, present ones
    without a fail-fast preflight (a collection's repo costs fewer round trips)."""
    parsed = parse_repo_arg(arg)
    if parsed is None:
        raise HubError(f"{arg!r} is not a hub repo id (expected org/name or org/name@revision)")
    repo_id, revision = parsed
    offline = offline_mode(offline)
    known = listed is not None and not offline
    if known and "config.json" not in listed:
        raise HubError(f"{repo_id}@{revision}: the repo has no config.json")
    if known:
        too_big(repo_id, revision, "config.json", listed["config.json"], MAX_SMALL_FILE)
    config = download(repo_id, revision, "config.json", offline, preflight=not known,
                      limit=MAX_SMALL_FILE)
    snapshot = Snapshot(repo_id, revision, config.parent.name, config.parent,
                        {"config.json": config})
    card_size = listed.get("README.md") if known else None
    readme = None if known and ("README.md" not in listed or (card_size or 0) > MAX_SMALL_FILE) \
        else _card(repo_id, snapshot.commit, offline, preflight=not known)
    if readme is not None:
        snapshot.files["README.md"] = readme
        snapshot.card = read_card(readme)
    if known and "hf_quant_config.json" in listed and \
            (listed["hf_quant_config.json"] or 0) <= MAX_SMALL_FILE:
        quant = download(repo_id, snapshot.commit, "hf_quant_config.json", offline,
                         required=False, preflight=False, limit=MAX_SMALL_FILE)
        if quant is not None:        # ModelOpt's quantization description, read with config
            snapshot.files["hf_quant_config.json"] = quant
    if tokenizer:
        for name in ("tokenizer_config.json", "tokenizer.json"):
            if known and name not in listed:
                continue
            if not offline:
                size = listed[name] if known and listed[name] is not None else \
                    file_size(repo_id, snapshot.commit, name)
                if size is None or size > MAX_TOKENIZER_BYTES:
                    continue
            path = download(repo_id, snapshot.commit, name, offline, required=False)
            if path is not None:
                snapshot.files[name] = path
    return snapshot


def _card(repo_id: str, commit: str, offline: bool, preflight: bool) -> Path | None:
    """The model card, or None when it is absent or over MAX_SMALL_FILE (the card is
    optional: a card too big to read is one that is not there)."""
    try:
        return download(repo_id, commit, "README.md", offline, required=False,
                        preflight=preflight, limit=MAX_SMALL_FILE)
    except FileTooBig:
        return None


def read_card(path: Path) -> dict:
    """The model card's YAML front matter as a dict ({} when absent or unreadable)."""
    from huggingface_hub import ModelCard

    try:
        return ModelCard.load(path, ignore_metadata_errors=True).data.to_dict()
    except Exception:  # noqa: BLE001 -- a broken card only loses its metadata
        return {}


def base_models(card: dict) -> list[str]:
    value = card.get("base_model")
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str) and parse_repo_arg(v)]


def in_hub_cache(folder: Path) -> bool:
    """Whether `folder` is (inside) a huggingface_hub cache snapshot."""
    real = Path(os.path.realpath(folder))
    for parent in [real, *real.parents]:
        if parent.parent.name == "snapshots" and (parent.parent.parent / "blobs").is_dir():
            return True
    return False
