"""Every Hugging Face Hub access, through huggingface_hub: files, model card, revisions.

`HF_ENDPOINT`, `HF_HUB_CACHE`/`HF_HOME`, `HF_HUB_OFFLINE` and the timeouts are read when a
call is made (not when huggingface_hub is imported), so a process can be pointed at
another hub. Errors become `HubError` with one line naming the repo and what to do;
tokens never appear in them.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from drafter_lint.bounded import read_text
from drafter_lint.card import front_matter
from drafter_lint.errors import FileTooBig, HubError, HubUnreachable, UsageError
from drafter_lint.progress import waiting
from drafter_lint.tokenizer import MAX_TOKENIZER_BYTES  # one cap, local or downloaded

# huggingface_hub's repo id characters (ASCII letters, digits, '-', '_', '.'): anything
# else is a local path that does not exist, never a hub request
REPO_ARG = re.compile(r"^(?P<repo>[A-Za-z0-9][A-Za-z0-9_.\-]*/[A-Za-z0-9_.\-]+)"
                      r"(?:@(?P<rev>[^\s@]+))?$", re.ASCII)
SHA = re.compile(r"^[0-9a-f]{40}$")
# the caps on what is read whole, here and from a local folder (checkpoint.py, remote.py)
MAX_SMALL_FILE = 4 * 1024 * 1024       # config.json and the model card: a few KB when real
MAX_INDEX = 256 * 1024 * 1024          # the shard index: ~10 MB for 100k tensors
INDEX = "model.safetensors.index.json"
T = TypeVar("T")


@dataclass
class Snapshot:
    """Files of one repo revision in the local hub cache."""

    repo_id: str
    revision: str            # as asked ("main", a tag, a sha)
    commit: str              # resolved commit sha
    folder: Path             # the snapshot folder in the cache
    files: dict[str, Path] = field(default_factory=dict)
    card: dict = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)   # file -> why it was not read

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
    """Where and how huggingface_hub is asked (endpoint, cache, timeout); its variables
    checked and its own logging and progress bars quietened first (every hub access starts
    here)."""
    check_environment()
    _quiet()
    _offline_now()
    cache = os.environ.get("HF_HUB_CACHE")
    if not cache and os.environ.get("HF_HOME"):
        cache = os.path.join(os.environ["HF_HOME"], "hub")
    timeout = float(os.environ.get("HF_HUB_ETAG_TIMEOUT") or 10)
    return {"endpoint": os.environ.get("HF_ENDPOINT") or None, "cache_dir": cache,
            "etag_timeout": timeout}


TIMEOUTS = ("HF_HUB_ETAG_TIMEOUT", "HF_HUB_DOWNLOAD_TIMEOUT")


def check_environment() -> None:
    """Refuse, before huggingface_hub is imported, a value of its variables that its
    import would fail on (it parses them then, prints to stdout and raises ValueError):
    UsageError naming the variable."""
    for name in TIMEOUTS:
        value = os.environ.get(name)
        try:
            bad = bool(value) and int(value) < 0
        except ValueError:
            bad = True
        if bad:
            raise UsageError(f"{name}={value!r}: expected a whole number of seconds "
                             f"(huggingface_hub reads it)")
    endpoint = os.environ.get("HF_ENDPOINT")
    if endpoint:
        try:
            parts = urlsplit(endpoint)
            host = parts.hostname
        except ValueError:
            parts, host = None, None
        if parts is None or parts.scheme not in ("http", "https") or not host:
            raise UsageError(f"HF_ENDPOINT={endpoint!r}: expected an http(s) URL such as "
                             f"https://huggingface.co")


def scrub(text: str) -> str:
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        token = os.environ.get(name)
        if token:
            text = text.replace(token, "***")
    return re.sub(r"hf_[A-Za-z0-9]{20,}", "hf_***", text)


def explain(exc: Exception, repo_id: str, revision: str, what: str) -> HubError:
    """The one-line HubError for a failed request about `what` of a repo
    (HubUnreachable when the hub gave no answer about it)."""
    kind = HubError if _answered(exc) else HubUnreachable
    return kind(scrub(_explain(exc, repo_id, revision, what, False)))


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
                f"{filename} is not cached (check the network, or use --offline with a filled "
                f"cache)")
    if isinstance(exc, _remote_missing(errors)):
        return f"{where} has no {filename}"
    if isinstance(exc, _RateLimited):
        return f"{where}: {filename}: {exc}"
    if isinstance(exc, errors.HfHubHTTPError):
        status = _status(exc)[0] or "?"
        if status == 429:
            return f"{where}: rate limited (HTTP 429) for {filename}; try again later"
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
                f"or use --offline with a filled cache)")
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


def _offline_now() -> None:
    """huggingface_hub reads HF_HUB_OFFLINE once, at its import, and refuses every request
    after while it was set then: make its constant say what the environment says now (a
    gate that resolved a server's offline cache must not leave this process offline)."""
    from huggingface_hub import constants

    constants.HF_HUB_OFFLINE = offline_mode()


def _preflight(repo_id: str, revision: str, filename: str) -> int | None:
    """Ask for the file's metadata once, with no retries, so an unreachable or failing hub
    is reported at once (hf_hub_download retries for ~25 s); raises what it raises. The
    file's size, when the hub says it."""
    import huggingface_hub
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    conf = settings()
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=conf["endpoint"])
    if not huggingface_hub.__version__.startswith("0."):
        return retrying(lambda: get_hf_file_metadata(url, timeout=conf["etag_timeout"])).size
    headers = _head(url, conf["etag_timeout"])
    size = headers.get("X-Linked-Size") or headers.get("Content-Length")
    return int(size) if size and size.isdigit() else None


def _head(url: str, timeout: float) -> dict:
    """The headers of one HEAD through huggingface_hub 0.x's session (which would retry
    get_hf_file_metadata with its own backoff, ~25 s on an outage), its error classes
    raised; 429/503 waited out by `retrying`."""
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    def once():
        response = get_session().head(url, headers=build_hf_headers(), timeout=timeout,
                                      allow_redirects=False)
        if not 300 <= response.status_code < 400:
            hf_raise_for_status(response)
        return response.headers

    return retrying(once)


def resolve_commit(repo_id: str, revision: str) -> str:
    """The commit `revision` names, from one HEAD of config.json (429/503 waited out).
    HubUnreachable when the hub could not be asked (a cached copy may stand in)."""
    if SHA.match(revision):
        return revision
    check_environment()
    import huggingface_hub
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    conf = settings()
    url = hf_hub_url(repo_id, "config.json", revision=revision, endpoint=conf["endpoint"])
    try:
        if not huggingface_hub.__version__.startswith("0."):
            commit = retrying(lambda: get_hf_file_metadata(
                url, timeout=conf["etag_timeout"])).commit_hash
        else:
            commit = _head(url, conf["etag_timeout"]).get("X-Repo-Commit")
    except Exception as exc:  # noqa: BLE001 -- one line, as every hub failure
        raise explain(exc, repo_id, revision, "config.json") from None
    if not commit or not SHA.match(commit):
        raise HubError(f"{repo_id}@{revision}: the hub named no commit for it")
    return commit


def _answered(exc: Exception) -> bool:
    """Whether `exc` is the hub's answer about the repo (no such repo, revision or file,
    gated, another 4xx) rather than a failure to get one."""
    status = _status(exc)[0]
    return status is not None and 400 <= status < 500 and status != 429 \
        and not isinstance(exc, _RateLimited)


# Rate limits: every hub request goes through `retrying`. A 429 or 503 is retried after
# the hub's Retry-After (seconds or an HTTP date), each wait at most MAX_WAIT and all waits
# for one request at most WAIT_BUDGET; then the request fails with one line saying so.
# Without Retry-After the wait doubles from 1 s.
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
    """The hub kept answering 429/503 past the retries or the wait budget."""

    def __init__(self, status: int, tries: int, waited: float):
        what = "rate limited (HTTP 429)" if status == 429 else f"busy (HTTP {status})"
        super().__init__(f"{what} {tries} times; gave up after waiting {waited:.0f} s in "
                         f"all; try again later")


def failure(exc: Exception) -> str:
    """One line for a failed request: a rate limit's as it is, else "Type: first line"."""
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return detail if isinstance(exc, _RateLimited) else f"{type(exc).__name__}: {detail}"


def _status(exc: BaseException) -> tuple[int | None, str | None]:
    """(HTTP status, Retry-After) of a huggingface_hub HTTP error, else (None, None).
    huggingface_hub 0.x's hf_hub_download raises LocalEntryNotFoundError from the HTTP
    error of its metadata request: the reply is then on the cause."""
    seen = 0
    while exc is not None and seen < 4:
        reply = getattr(exc, "response", None)
        status = getattr(reply, "status_code", None)
        if isinstance(status, int):
            headers = getattr(reply, "headers", None) or {}
            return status, headers.get("Retry-After")
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None, None


def retrying(call: Callable[[], T]) -> T:
    """`call()`, called again after each 429/503 it raises (an error carrying the reply,
    as huggingface_hub's HfHubHTTPError does) as `next_wait` allows; _RateLimited when
    the retries or the wait budget are spent. Any other error is raised as it is."""
    waited = 0.0
    for attempt in range(MAX_RETRIES + 1):
        try:
            return call()
        except Exception as exc:
            status, header = _status(exc)
            if status not in RETRIED:
                raise
            pause = next_wait(status, header, attempt, waited)
            if pause is None:
                raise _RateLimited(status, attempt + 1, waited) from None
            time.sleep(pause)
            waited += pause
    raise AssertionError("unreachable")


def _get_bytes(url: str, headers: dict, limit: int) -> tuple[bytes, object]:
    """(the first `limit` bytes of a GET, the response), streamed through huggingface_hub's
    session (its token, endpoint and redirects), 429/503 waited out by `retrying`."""
    from huggingface_hub.utils import get_session, hf_raise_for_status

    session = get_session()
    settings()
    timeout = float(os.environ.get("HF_HUB_DOWNLOAD_TIMEOUT") or 10)   # as huggingface_hub's

    def once():
        if "httpx" in type(session).__module__:
            with session.stream("GET", url, headers=headers, timeout=timeout,
                                follow_redirects=True) as reply:
                hf_raise_for_status(reply)
                return _first_bytes(reply.iter_bytes(), limit), reply
        reply = session.get(url, headers=headers, timeout=timeout, stream=True,
                            allow_redirects=True)
        try:
            hf_raise_for_status(reply)
            return _first_bytes(reply.iter_content(1 << 16), limit), reply
        finally:
            reply.close()

    return retrying(once)


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
    check_environment()
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
        return Path(retrying(lambda: hf_hub_download(repo_id, filename, revision=revision,
                                                     local_files_only=offline, **conf)))
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
    url = hf_hub_url(repo_id, filename, revision=commit, endpoint=conf["endpoint"])
    try:
        return retrying(lambda: get_hf_file_metadata(url, timeout=conf["etag_timeout"])).size
    except _RateLimited as exc:       # not "unknown": the hub is refusing this run's reads
        raise HubError(scrub(f"{repo_id}@{commit}: {filename}: {exc}")) from None
    except Exception:  # noqa: BLE001 -- size unknown: the caller skips the file
        return None


def fetch(arg: str, offline: bool = False, tokenizer: bool = False,
          listed: dict[str, int | None] | None = None) -> Snapshot:
    """config.json (required) and the model card (optional) of `org/name[@rev]`; with
    `tokenizer`, also tokenizer files up to MAX_TOKENIZER_BYTES. `listed`: the files the
    hub just listed for this pinned commit; absent ones are not asked for, present ones
    without a fail-fast preflight (a collection's repo costs fewer round trips)."""
    check_environment()
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
    # a listing without a size: the preflight asks it, so an oversized file is refused
    # before it is downloaded (U4-14)
    config = download(repo_id, revision, "config.json", offline,
                      preflight=not known or listed["config.json"] is None,
                      limit=MAX_SMALL_FILE)
    snapshot = Snapshot(repo_id, revision, config.parent.name, config.parent,
                        {"config.json": config})
    readme = None
    if not known or "README.md" in listed:
        try:      # the card is optional: one too big to read is skipped, and said so
            too_big(repo_id, snapshot.commit, "README.md", listed.get("README.md")
                    if known else None, MAX_SMALL_FILE)
            readme = download(repo_id, snapshot.commit, "README.md", offline,
                              required=False, limit=MAX_SMALL_FILE,
                              preflight=not known or listed["README.md"] is None)
        except FileTooBig as exc:
            snapshot.skipped["README.md"] = str(exc)
    if readme is not None:
        snapshot.files["README.md"] = readme
        snapshot.card = read_card(readme)
    if known and "hf_quant_config.json" in listed and \
            (listed["hf_quant_config.json"] or 0) <= MAX_SMALL_FILE:
        quant = download(repo_id, snapshot.commit, "hf_quant_config.json", offline,
                         required=False, limit=MAX_SMALL_FILE,
                         preflight=listed["hf_quant_config.json"] is None)
        if quant is not None:        # ModelOpt's quantization description, read with config
            snapshot.files["hf_quant_config.json"] = quant
    if tokenizer:
        for name in ("tokenizer_config.json", "tokenizer.json"):
            if known and name not in listed:
                continue
            if not offline:
                size = listed[name] if known and listed[name] is not None else \
                    file_size(repo_id, snapshot.commit, name)
                if size is None:
                    continue
                try:
                    too_big(repo_id, snapshot.commit, name, size, MAX_TOKENIZER_BYTES)
                except FileTooBig as exc:
                    snapshot.skipped[name] = str(exc)
                    continue
            path = download(repo_id, snapshot.commit, name, offline, required=False)
            if path is not None:
                snapshot.files[name] = path
    return snapshot


def read_card(path: Path) -> dict:
    """The model card's YAML front matter as a dict ({} when absent or unreadable), read
    by the one front-matter parser the card's launch lines are read with."""
    try:
        return front_matter(read_text(path, MAX_SMALL_FILE))
    except (OSError, UnicodeDecodeError):   # a broken card only loses its metadata
        return {}


def base_models(card: dict) -> list[str]:
    value = card.get("base_model")
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str) and parse_repo_arg(v)]


def cached_snapshot(repo_id: str, revision: str) -> Path | None:
    """The hub cache's snapshot of `repo_id` at `revision` (a branch or tag it recorded, or
    a commit) when it is complete enough to lint: config.json and every safetensors file
    its index names (or a model.safetensors); else None. No request is made."""
    check_environment()
    from huggingface_hub import snapshot_download

    try:
        folder = Path(snapshot_download(repo_id, revision=revision, local_files_only=True,
                                        cache_dir=settings()["cache_dir"]))
    except Exception:  # noqa: BLE001 -- not cached (or not all of it)
        return None
    index = folder / INDEX
    try:
        shards = set(json.loads(read_text(index, MAX_INDEX))["weight_map"].values()) \
            if index.is_file() else {"model.safetensors"}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    wanted = {"config.json", *(s for s in shards if isinstance(s, str))}
    if not all((folder / name).is_file() for name in wanted) or not SHA.match(folder.name):
        return None
    return folder


def in_hub_cache(folder: Path) -> bool:
    """Whether `folder` is (inside) a huggingface_hub cache snapshot."""
    real = Path(os.path.realpath(folder))
    for parent in [real, *real.parents]:
        if parent.parent.name == "snapshots" and (parent.parent.parent / "blobs").is_dir():
            return True
    return False
