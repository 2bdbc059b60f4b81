"""Lint a collection of hub repos before download: an organization (`--hub-author`), a
search (`--hub-search`), or many `org/name[@rev]` arguments, in one run.

The hub work (resolving each revision to its commit, fetching config, card, index,
tokenizer files and safetensors headers, and the target each card names as `base_model`)
runs in a bounded thread pool (`--jobs`): it is waiting on the network, kilobytes per
repo. Each repo is linted in the calling thread as soon as its files are in, pinned to
the commit it resolved. Everything is cached by commit (drafter_lint/remote.py) and a
target shared by many drafters is read once, so a second run costs one listing and one
HEAD per repo. A repo that cannot be read is a result with a one-line `error`, not an
abort; a stalled one costs at most the hub timeout (HF_HUB_ETAG_TIMEOUT,
HF_HUB_DOWNLOAD_TIMEOUT) of one worker.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Callable, Iterable

from drafter_lint import hub, pipeline, releases_view, remote, runtimes
from drafter_lint.engine import variants
from drafter_lint.errors import DrafterLintError, HubError
from drafter_lint.findings import Result, Severity, Skipped, one_line
from drafter_lint.options import Options
from drafter_lint.progress import Progress
from drafter_lint.registry import NEEDS
from drafter_lint.run import Run

DEFAULT_JOBS = 8


@dataclass
class Fetched:
    repo: str                     # as asked: org/name[@rev]
    folder: object = None         # the materialized folder (pathlib.Path)
    display: str = ""             # org/name@<commit>
    error: str | None = None
    notes: tuple[str, ...] = ()   # what reading its card's target said (printed in order)


def list_repos(run: Run, author: str | None, search: str | None) -> list[str]:
    """The model repos of `author` matching `search`, as the hub lists them (every page),
    their commits and file names kept in `run.listed`. Offline there is no listing to ask:
    a one-line error at once, never a retry."""
    endpoint = hub.settings()["endpoint"]      # its variables checked before the import
    from huggingface_hub import HfApi

    what = " and ".join(filter(None, [author and f"author {author!r}",
                                      search and f"search {search!r}"]))
    if hub.offline_mode(run.offline):
        raise HubError(f"cannot list the hub's models for {what}: offline mode is on "
                       f"(--offline or HF_HUB_OFFLINE); name the repos to lint instead")
    try:    # sha and file names come with the listing: no request per repo for them
        found = _listing(endpoint or HfApi().endpoint, author, search)
    except Exception as exc:  # noqa: BLE001 -- one line, as every hub failure
        raise HubError(hub.scrub(f"cannot list the hub's models for {what}: "
                                 f"{hub.failure(exc)}")) from None
    for repo, sha, files in found:
        if sha and files:
            run.listed[repo] = (sha, files)
    return sorted(dict.fromkeys(repo for repo, _, _ in found))


def _listing(endpoint: str, author: str | None, search: str | None) -> list[tuple]:
    """(repo, commit, file names) of every model the hub lists, page by page (its `Link`
    header names the next), each page one GET through huggingface_hub's session: a
    429/503 is waited out (hub.retrying), nothing else is retried, so a hub that cannot
    be reached is one line at once (HfApi.list_models retries a refused connection for
    about 25 s)."""
    from huggingface_hub.utils import get_session, hf_raise_for_status

    session, timeout = get_session(), hub.settings()["etag_timeout"]
    params = [("expand", "sha"), ("expand", "siblings"),
              *[(k, v) for k, v in (("author", author), ("search", search)) if v]]
    url, out = f"{endpoint}/api/models", []
    while url:
        def page(url=url, first=not out):
            reply = session.get(url, params=params if first else None,
                                headers=hub.build_headers(), timeout=timeout)
            hf_raise_for_status(reply)
            return reply

        reply = hub.retrying(page)
        for item in reply.json():
            files = frozenset(s["rfilename"] for s in item.get("siblings") or ()
                              if isinstance(s, dict) and isinstance(s.get("rfilename"), str))
            out.append((item.get("id") or item.get("modelId"), item.get("sha"), files))
        url = (reply.links or {}).get("next", {}).get("url")
    return [row for row in out if isinstance(row[0], str)]


# the reason of the skipped target checks of a repo whose card's target was not read
UNREAD = "target not read"


def _fetch(run: Run, repo: str) -> Fetched:
    """The hub half of one repo, in a worker thread: its files and its card's target. Any
    failure is this repo's one-line result, never the run's end."""
    notes: list[str] = []
    try:
        folder, display = remote.materialize(repo, run.offline, run.listed.get(repo))
        run.remember(folder, display)
        notes += [f"{why}; linted without it" for why in remote.skipped(folder)]
        card = folder / "README.md"
        bases = hub.base_models(hub.read_card(card)) if card.is_file() else []

        def heard(message: str) -> None:     # said under the target's lock, by its reader
            notes.append(message)
            if bases:
                run.said.setdefault(bases[0], message)

        pipeline.card_target(run, folder, note=heard)     # read once per target, cached
        return Fetched(repo, folder, display, notes=tuple(notes))
    except DrafterLintError as exc:
        return Fetched(repo, error=one_line(str(exc)))
    except Exception as exc:  # noqa: BLE001 -- one repo's internal error, not the run's
        return Fetched(repo, error=one_line(f"internal error: {type(exc).__name__}: {exc}"))


def _fetched(run: Run, repos: list[str], jobs: int):
    """Each repo's Fetched as it completes, `jobs` fetched at once by daemon threads: on
    Ctrl-C the queued repos are dropped, and the run exits without waiting for a fetch in
    flight (its half-built folder is never read: remote.py renames a folder into place
    only when complete)."""
    todo: queue.SimpleQueue = queue.SimpleQueue()
    done: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()
    for repo in repos:
        todo.put(repo)

    def work() -> None:
        while not stop.is_set():
            try:
                repo = todo.get_nowait()
            except queue.Empty:
                return
            done.put(_fetch(run, repo))

    for i in range(max(1, min(jobs, len(repos)))):
        threading.Thread(target=work, daemon=True, name=f"drafter-lint-hub-{i}").start()
    try:
        for _ in repos:
            while True:
                try:
                    yield done.get(timeout=0.2)      # short waits: Ctrl-C is seen at once
                    break
                except queue.Empty:
                    continue
    finally:
        stop.set()


def verdicts(result: Result, checkpoint, options: Options) -> dict[str, str]:
    """Per runtime release checked: "ok", "N errors", or "not served". A release's errors
    are those the error findings' rules still report when linted for it alone."""
    releases = (options.runtime,) if options.runtime else runtimes.default_releases()
    codes = tuple(sorted({f.rule for f in result.findings if f.severity == Severity.ERROR}))
    served = [r for r in releases if runtimes.serves(r, result.family)]
    again = dict(zip(served, variants(
        checkpoint, options, [dict(select=codes, runtime=r, card=False) for r in served],
        settings=True))) if codes else {}
    out = {}
    for release in releases:
        if release not in served:
            out[release.label] = "not served"
            continue
        count = sum(1 for f in again[release].findings if f.severity == Severity.ERROR) \
            if codes else 0
        out[release.label] = f"{count} error{'s' if count != 1 else ''}" if count else "ok"
    return out


def lint_repos(run: Run, repos: Iterable[str], jobs: int = DEFAULT_JOBS,
               progress: Progress | None = None, baseline_arg=None,
               note: Callable[[str], None] = lambda _: None,
               ranges: bool = False) -> list[Result]:
    """One result per repo, in the order given: findings pinned to the resolved commit,
    or a one-line `error` for a repo that could not be read; with `ranges`, the releases
    of each runtime that serve it (drafter_lint/releases_view.py)."""
    repos = list(dict.fromkeys(repos))
    results: dict[str, Result] = {}
    for fetched in _fetched(run, repos, jobs):
        for message in fetched.notes:
            note(message)
        if progress is not None:
            progress.step(fetched.repo)
        results[fetched.repo] = _lint(run, fetched, baseline_arg, ranges)
    return [results[repo] for repo in repos]


def _lint(run: Run, fetched: Fetched, baseline_arg, ranges: bool = False) -> Result:
    if fetched.error is not None:
        name = fetched.repo.split("@", 1)[0]
        return Result(path=name, family="unknown", error=fetched.error)
    try:
        checkpoint, options, _ = pipeline.prepare_folder(run, fetched.folder, baseline_arg)
        result = pipeline.lint_prepared(checkpoint, options)
        result.commit = fetched.display.rsplit("@", 1)[1]
        result.verdicts = verdicts(result, checkpoint, options)
        _mark_unread_target(run, result, checkpoint, options)
        if ranges:
            runs = [options.runtime] if options.runtime else runtimes.default_releases()
            result.ranges = {runtime: releases_view.serving(checkpoint, options, runtime).to_json()
                             for runtime in dict.fromkeys(r.runtime for r in runs)}
    except DrafterLintError as exc:
        return Result(path=fetched.display, family="unknown", error=one_line(str(exc)))
    except Exception as exc:  # noqa: BLE001 -- one repo's internal error, not the run's
        return Result(path=fetched.display, family="unknown",
                      error=one_line(f"internal error: {type(exc).__name__}: {exc}"))
    return result


def _mark_unread_target(run: Run, result: Result, checkpoint, options: Options) -> None:
    """A repo whose card names a target that could not be read (rate limited, an outage;
    not one the hub lacks, which is CRD104) is linted without it: its skipped target
    checks say why, and each verdict says it is not the whole check."""
    bases = checkpoint.card.bases if checkpoint.card else []
    if options.target is not None or not bases or options.card_base_missing:
        return
    said, marker = run.said.get(bases[0], ""), "cannot be read as the target ("
    why = said.split(marker, 1)[1].rsplit("); target checks", 1)[0] if marker in said \
        else "see the note above"
    reason = f"{UNREAD}: the card's base_model {bases[0]} could not be read ({why})"
    found = [s for s in result.skipped if s.reason == NEEDS["target"]]
    for skipped in found:
        skipped.reason = reason
    if not found:
        result.skipped.insert(0, Skipped("target", reason))
    result.verdicts = {k: f"{v} (no target)" for k, v in (result.verdicts or {}).items()}


def unread_target(result: Result) -> str | None:
    """Why a collection repo was linted without its card's target, or None."""
    return next((s.reason for s in result.skipped if s.reason.startswith(UNREAD)), None)


def problems(results: list[Result]) -> list[str]:
    """One line per repo not read, or not fully linted (its target not read): exit 2."""
    return [f"{r.path}: {r.error or unread_target(r)}" for r in results
            if r.error or unread_target(r)]


def table(results: list[Result]) -> str:
    """The summary after the findings: repo, commit, family, each runtime's verdict, errors
    and warnings; a repo that could not be read says why."""
    labels = list(dict.fromkeys(k for r in results for k in (r.verdicts or {})))
    spans = list(dict.fromkeys(k for r in results for k in (r.ranges or {})))
    head = ["repo", "commit", "family", *labels,
            *[f"{runtimes.LABEL[k]} releases" for k in spans], "errors", "warnings"]
    rows = []
    for r in results:
        repo = r.path.rsplit("@", 1)[0] if r.commit else r.path
        if r.error is not None:
            rows.append([repo, "-", "-", *["-" for _ in labels + spans], "-", "-", r.error])
            continue
        count = {s: sum(1 for f in r.findings if f.severity == s) for s in Severity}
        rows.append([repo, (r.commit or "")[:12], r.family,
                     *[(r.verdicts or {}).get(label, "-") for label in labels],
                     *[_spans((r.ranges or {}).get(k)) for k in spans],
                     str(count[Severity.ERROR]), str(count[Severity.WARNING])])
    widths = [max(len(str(row[i])) for row in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
    for row in rows:
        cells = "  ".join(str(c).ljust(w) for c, w in zip(row, widths))
        extra = f"  {row[len(head)]}" if len(row) > len(head) else ""
        lines.append(one_line((cells + extra).rstrip()))
    read = sum(1 for r in results if r.error is None)
    partly = sum(1 for r in results if r.error is None and unread_target(r))
    without = f", {partly} without their target" if partly else ""
    lines.append(f"{len(results)} repo{'s' if len(results) != 1 else ''}: "
                 f"{read - partly} linted{without}, "
                 f"{len(results) - read} not read.")
    return "\n".join(lines) + "\n"


def _spans(found: dict | None) -> str:
    """"0.26.0-0.33.0" (ranges joined by commas), "none", or "-" when not computed."""
    if found is None:
        return "-"
    parts = [r["from"] if r["from"] == r["to"] else f"{r['from']}-{r['to']}"
             for r in found["ranges"]]
    return ", ".join(parts) or "none"
