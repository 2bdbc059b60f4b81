"""A small Hugging Face Hub on 127.0.0.1 that speaks the file routes huggingface_hub uses.

Repos come from a folder laid out as `<org>/<name>/<branch>/<files>`; each branch gets a
stable commit sha derived from its content. Routes:

- `HEAD|GET /<org>/<name>/resolve/<revision>/<path>`: the file, with `X-Repo-Commit`,
  `ETag` and `Content-Length` as the hub sends them; `revision` is a branch or a sha. A
  `Range: bytes=a-b` request gets 206 and `Content-Range`, read from disk: files over
  1 MiB (sparse checkpoints of many GB) are never held in memory. `sent` counts the body
  bytes served per file.
- `GET /api/models/<org>/<name>[/revision/<revision>]`: id, sha, siblings, cardData-less
  model info.
- `GET /api/models?author=ORG&search=TEXT`: the listing, `page_size` repos a page, the
  next page linked in a `Link: <...>; rel="next"` header as the hub paginates.

`latency` (seconds) delays every answer, as a distant hub does; `bytes_out` counts every
body byte sent.

Rate limits: `rate` (requests a second), per-repo "429xN" / "429-always", or
`limit_first` (the first HEAD of each path and first call of each API route), each 429
with `Retry-After: retry_after`; `limited` counts them.

Per-repo behaviour can be switched to the hub's failure answers: "gated" (401 GatedRepo),
"error" (500), "stall" (never answers within the client timeout). Unknown repos get 404
RepoNotFound, unknown files 404 EntryNotFound, unknown revisions 404 RevisionNotFound.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlencode, urlsplit


LAZY = 1 << 20   # files over this stay on disk (a Path) and are read by range


def load_repos(root: Path) -> dict:
    """{repo_id: {"branches": {branch: sha}, "commits": {sha: {path: bytes | Path}}}}."""
    repos: dict = {}
    for org in sorted(p for p in root.iterdir() if p.is_dir()):
        for name in sorted(p for p in org.iterdir() if p.is_dir()):
            repo_id = f"{org.name}/{name.name}"
            repo = repos.setdefault(repo_id, {"branches": {}, "commits": {}})
            for branch in sorted(p for p in name.iterdir() if p.is_dir()):
                files = {str(f.relative_to(branch)): (f if f.stat().st_size > LAZY
                                                      else f.read_bytes())
                         for f in sorted(branch.rglob("*")) if f.is_file()}
                digest = hashlib.sha1(repo_id.encode() + branch.name.encode())
                for path, data in files.items():
                    digest.update(path.encode() + b"\0" + (
                        data if isinstance(data, bytes) else str(data.stat().st_size).encode()))
                repo["branches"][branch.name] = digest.hexdigest()
                repo["commits"][digest.hexdigest()] = files
    return repos


def _read_range(path: Path, offset: int, count: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read(max(0, count))


class _Server(ThreadingHTTPServer):
    """A client that hung up (a timed-out read, a stream closed once its bytes were in)
    is not an error of the hub: no traceback on stderr for it."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class FakeHub:
    def __init__(self, root: Path):
        self.repos = load_repos(root)
        self.behaviour: dict[str, str] = {}
        self.requests: list[tuple[str, str]] = []
        self.sent: dict[str, int] = {}
        self.stall_seconds = 5.0
        self.latency = 0.0
        self.page_size = 50
        self.bytes_out = 0
        self.rate: float | None = None     # requests per second before a 429 (None: no limit)
        self.limited = 0                   # 429s sent
        self.retry_after = "1"             # the Retry-After of each 429
        # True: the first HEAD of each path and the first call of each API route is
        # answered 429 (every request site must retry; file GETs are left alone, as
        # huggingface_hub's own download retries them after Retry-After + 1 s)
        self.limit_first = False
        self.list_sizes = True             # False: file listings carry no sizes (a mirror)
        self._seen: set[tuple[str, str]] = set()
        self._window: list[float] = []
        self._refused: dict[str, int] = {}
        self._lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                hub._serve(self, body=False)

            def do_GET(self):
                hub._serve(self, body=True)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # a short poll: shutdown() waits for it (0.5 s by default, at every test's end)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def commit(self, repo_id: str, branch: str = "main") -> str:
        return self.repos[repo_id]["branches"][branch]

    # -- answering -----------------------------------------------------------------------

    def _send(self, handler, status: int, body: bytes = b"", headers: dict | None = None,
              send_body: bool = True):
        handler.send_response(status)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        if send_body and body:
            with self._lock:          # counted before it is sent: a client never sees
                self.bytes_out += len(body)      # bytes the count does not hold yet
            handler.wfile.write(body)

    def _error(self, handler, status: int, code: str | None, send_body: bool):
        headers = {"X-Error-Code": code} if code else {}
        body = json.dumps({"error": code or "error"}).encode()
        headers["Content-Type"] = "application/json"
        self._send(handler, status, body, headers, send_body)

    def _serve(self, handler, body: bool):
        path = unquote(handler.path.split("?", 1)[0])
        self.requests.append((handler.command, path))
        if self.latency:
            time.sleep(self.latency)
        parts = path.strip("/").split("/")
        if self._rate_limited(handler, parts, body):
            return
        api = parts[:2] == ["api", "models"]
        if api and len(parts) == 2:
            if self.behaviour.get("api/models") == "gated":
                return self._error(handler, 401, None, body)
            return self._listing(handler, handler.path, body)
        if api:
            parts = parts[2:]
        if len(parts) < 2:
            return self._error(handler, 404, None, body)
        repo_id = "/".join(parts[:2])
        behaviour = self.behaviour.get(repo_id)
        if behaviour == "stall":
            time.sleep(self.stall_seconds)
            return self._error(handler, 504, None, body)
        if behaviour == "error":
            return self._error(handler, 500, None, body)
        if behaviour == "gated":
            return self._error(handler, 401, "GatedRepo", body)
        repo = self.repos.get(repo_id)
        if repo is None:
            return self._error(handler, 401 if api else 404, "RepoNotFound", body)
        if api:
            revision = parts[3] if len(parts) > 3 and parts[2] == "revision" else "main"
            return self._model_info(handler, repo_id, repo, revision, body)
        if len(parts) < 5 or parts[2] != "resolve":
            return self._error(handler, 404, None, body)
        revision, filename = parts[3], "/".join(parts[4:])
        commit = repo["branches"].get(revision, revision)
        files = repo["commits"].get(commit)
        if files is None:
            return self._error(handler, 404, "RevisionNotFound", body)
        if filename not in files:
            return self._error(handler, 404, "EntryNotFound", body)
        data = files[filename]
        size = len(data) if isinstance(data, bytes) else data.stat().st_size
        etag = hashlib.sha1(f"{commit}/{filename}/{size}".encode()).hexdigest()
        headers = {"X-Repo-Commit": commit, "ETag": f'"{etag}"',
                   "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"}
        wanted = handler.headers.get("Range") or handler.headers.get("range")
        start, end, status = 0, size - 1, 200
        if wanted and wanted.startswith("bytes="):
            first, _, last = wanted[6:].partition("-")
            start, end = int(first or 0), min(int(last) if last else size - 1, size - 1)
            status = 206
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        if status == 200 and not body:             # HEAD: the size, no data read
            handler.send_response(200)
            for key, value in {**headers, "Content-Length": str(size)}.items():
                handler.send_header(key, value)
            handler.end_headers()
            return
        if status == 200 and not isinstance(data, bytes):
            return self._error(handler, 416, None, body)   # no whole multi-GB download
        chunk = (data[start:end + 1] if isinstance(data, bytes)
                 else _read_range(data, start, end - start + 1))
        with self._lock:
            self.sent[filename] = self.sent.get(filename, 0) + len(chunk)
        self._send(handler, status, chunk, headers, body)

    def _rate_limited(self, handler, parts: list[str], body: bool) -> bool:
        """429 with Retry-After when over `rate` requests in the last second, or when the
        repo's behaviour is `429xN` (its first N requests) or `429-always`, as the hub
        rate-limits API calls."""
        repo = "/".join(parts[2:4] if parts[:2] == ["api", "models"] else parts[:2])
        behaviour = self.behaviour.get(repo, "")
        refuse = behaviour == "429-always"
        with self._lock:
            first = (handler.command, handler.path)
            if self.limit_first and (not body or parts[:1] == ["api"]) and \
                    first not in self._seen:
                self._seen.add(first)
                refuse = True
            if behaviour.startswith("429x"):
                seen = self._refused.get(repo, 0)
                refuse = seen < int(behaviour[4:])
                self._refused[repo] = seen + 1
            if self.rate and not refuse:
                now = time.monotonic()
                self._window = [t for t in self._window if now - t < 1.0]
                refuse = len(self._window) >= self.rate
                if not refuse:
                    self._window.append(now)
            if refuse:
                self.limited += 1
        if refuse:
            self._send(handler, 429, b'{"error": "rate limited"}',
                       {"Retry-After": self.retry_after, "Content-Type": "application/json"},
                       body)
        return refuse

    @staticmethod
    def _size(data) -> int:
        return len(data) if isinstance(data, bytes) else data.stat().st_size

    def _listing(self, handler, raw: str, body: bool):
        query = parse_qs(urlsplit(raw).query)
        author = (query.get("author") or [""])[0]
        search = (query.get("search") or [""])[0].lower()
        offset = int((query.get("offset") or ["0"])[0])
        names = [r for r in sorted(self.repos)
                 if (not author or r.split("/")[0] == author) and search in r.lower()]
        page = names[offset:offset + self.page_size]
        expand = query.get("expand[]") or query.get("expand") or []
        items = [{"id": r, "modelId": r, "private": False,
                  "sha": self.repos[r]["branches"].get("main"),
                  **({"siblings": [{"rfilename": name} for name in sorted(
                      self.repos[r]["commits"][self.repos[r]["branches"]["main"]])]}
                     if "siblings" in expand and "main" in self.repos[r]["branches"] else {})}
                 for r in page]
        headers = {"Content-Type": "application/json"}
        if offset + self.page_size < len(names):
            rest = {k: v for k, v in query.items() if k != "offset"}
            rest["offset"] = [str(offset + self.page_size)]
            headers["Link"] = f'<{self.url}/api/models?{urlencode(rest, doseq=True)}>; ' \
                              f'rel="next"'
        self._send(handler, 200, json.dumps(items).encode(), headers, body)

    def _model_info(self, handler, repo_id, repo, revision, body):
        commit = repo["branches"].get(revision, revision)
        files = repo["commits"].get(commit)
        if files is None:
            return self._error(handler, 404, "RevisionNotFound", body)
        info = {"id": repo_id, "modelId": repo_id, "sha": commit, "private": False,
                "gated": False, "siblings": [
                    {"rfilename": name, **({"size": self._size(files[name])}
                                           if "blobs=true" in handler.path.lower()
                                           and self.list_sizes else {})}
                    for name in sorted(files)]}
        self._send(handler, 200, json.dumps(info).encode(),
                   {"Content-Type": "application/json"}, body)
