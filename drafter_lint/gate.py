"""`drafter-lint gate -- <launch command>`: read a vLLM or SGLang launch line the way the
server does, lint its drafter against its target and the launch settings, ask the installed
runtime's own start-up (the dry run), and decide (`decide`): the CLI then execs the command
or exits 1 without starting anything."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import re
import signal
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from drafter_lint import pipeline, runtimes
from drafter_lint.bounded import read_text
from drafter_lint.checkpoint import CheckpointNotFound, find_root
from drafter_lint.errors import GateError, UsageError
from drafter_lint.findings import Finding, Result, Severity, describe
from drafter_lint.command import locate, parse, read  # noqa: F401 - parse: tests
from drafter_lint.hub import HubError, fetch, offline_mode, parse_repo_arg, settings
from drafter_lint.launch import DryRunVerdict, LaunchLine, ServerContext
from drafter_lint.readonly import writable
from drafter_lint.progress import waiting
from drafter_lint.remote import materialize
from drafter_lint.run import Run
from drafter_lint.runtimes import LABEL, Release
from drafter_lint.target import TargetError, overridden, resolve_target


# what huggingface_hub reads from the environment to find a repo: the server's own values
# decide which copy it loads (its cache, offline mode, endpoint, token)
HUB_VARIABLES = ("HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE",
                 "TRANSFORMERS_OFFLINE", "HF_ENDPOINT", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
                 "HF_TOKEN_PATH", "HF_HUB_ETAG_TIMEOUT", "HF_HUB_DOWNLOAD_TIMEOUT")


def server_cache(env: dict[str, str]) -> str:
    """The huggingface_hub cache the server's process uses (huggingface_hub constants:
    HF_HUB_CACHE, else HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub)."""
    cache = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if cache:
        return os.path.expanduser(cache)
    home = env.get("HF_HOME") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"),
                                                  ".cache"), "huggingface")
    return os.path.join(os.path.expanduser(home), "hub")


@contextmanager
def server_hub(server: ServerContext):
    """Hub look-ups made with the environment the server will see (the line's variables,
    `env -i`/`-u` applied), not the gate's own: they resolve the copy the server loads."""
    env = server.environment
    saved = {name: os.environ.get(name) for name in HUB_VARIABLES}
    try:
        for name in HUB_VARIABLES:
            if env.get(name) is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = env[name]
        os.environ["HF_HUB_CACHE"] = server_cache(env)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def resolve_models(run: Run, launch: LaunchLine, server: ServerContext, target_arg):
    """(drafter checkpoint folder, Target, the line) named by the launch line (or
    --target), failing closed: a line whose target or drafter cannot be resolved is
    refused, never linted with less. `vllm serve SPECULATOR`'s line names its verifier as
    the target."""

    if not (target_arg or launch.target):
        raise GateError("the launch line names no target model (vLLM: the model after "
                        "`serve` or --model; SGLang: --model-path)")
    if not launch.draft:
        raise GateError("the launch line names no draft model (vLLM: --speculative-config "
                        "model; SGLang: --speculative-draft-model-path)")
    draft = resolve(run, server.path(launch.draft), "draft model", headers=True,
                    revision=launch.draft_revision)
    if launch.speculators_direct and not target_arg:
        verifier = _verifier(draft)
        if verifier is None:
            raise GateError(f"{launch.draft} names no verifier (speculators_config.verifier."
                            f"name_or_path), which `vllm serve SPECULATOR` serves")
        launch = replace(launch, target=verifier)
    try:
        target = resolve_target(str(target_arg or resolve(
            run, server.path(launch.target), "target model",
            revision=launch.target_revision)), run.offline)
    except TargetError as exc:
        raise GateError(str(exc)) from None
    if launch.hf_overrides:
        target = overridden(target, writable(launch.hf_overrides))
    try:
        return find_root(draft), target, launch
    except CheckpointNotFound as exc:
        raise GateError(f"draft model: {exc}") from None


def _verifier(folder: Path) -> str | None:
    """`speculators_config.verifier.name_or_path` of the speculators checkpoint `folder`."""
    try:
        config = json.loads(read_text(Path(folder) / "config.json"))
        name = config["speculators_config"]["verifier"]["name_or_path"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return name if isinstance(name, str) and name else None


def speculation(run: Run, launch: LaunchLine, server: ServerContext) -> str:
    """What a vLLM line without a speculative config serves: "speculators" when its model
    is a speculators checkpoint (vLLM then serves the verifier it names with it as the
    draft, vllm==0.33.0 transformers_utils/config.py:837-873), else "none"."""
    if launch.runtime != "vllm" or launch.draft or launch.method or not launch.target:
        return "configured"
    why = f"cannot tell whether {launch.target} is a speculators checkpoint, which vLLM " \
          f"serves with its verifier"
    try:
        folder = Path(resolve(run, server.path(launch.target), "model", headers=True,
                              revision=launch.target_revision))
        if not (folder / "config.json").exists():
            return "none"            # a GGUF file, a folder without config.json
        config = json.loads(read_text(folder / "config.json"))
    except GateError as exc:
        raise GateError(f"{why}: {exc}") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise GateError(f"{why}: its config.json cannot be read ({describe(exc)})") from None
    return "speculators" if isinstance(config, dict) and \
        isinstance(config.get("speculators_config"), dict) else "none"


def resolve(run: Run, model: str, what: str, headers: bool = False,
            revision: str | None = None) -> Path:
    """A local folder for `model`: a path, or a hub id (at the `revision` the launch line
    names, else main) from the cache; else, from the hub, its config (a target) or its
    small files and weight headers (a drafter, `headers`: drafter_lint/remote.py), never
    its weights. A revision the hub does not have is refused."""
    offline = run.offline
    path = Path(model).expanduser()
    if path.exists():
        return path

    if parse_repo_arg(model) is None or model.startswith((".", "/", "~")):
        raise GateError(f"{what} {model!r} does not exist")
    pinned = f"{model}@{revision}" if revision else model
    cache = settings()["cache_dir"]        # checks the hub variables before the import
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, revision=revision or "main",
                                      local_files_only=True, cache_dir=cache))
    except Exception:  # noqa: BLE001 -- not cached: read it from the hub
        pass
    if offline_mode() and not offline:
        raise GateError(f"{what} {model} is not in the server's hub cache ({cache}) and the "
                        f"server runs offline (HF_HUB_OFFLINE): it would not start")
    try:
        if headers:
            folder, display = materialize(pinned, offline)
            run.remember(folder, display)       # findings name the repo
            return folder
        # a target's tokenizer too: the mask-token check (DF104) reads it, as check's does
        return fetch(pinned, offline=offline, tokenizer=True).folder
    except HubError as exc:
        raise GateError(f"{what}: {exc}") from None


# --- the runtime behind the launch line ---------------------------------------------------

DRYRUN = Path(__file__).resolve().parent / "dryrun"
# what a Python interpreter's file is called: python, python3, python3.11, pypy3, python3-dbg
PYTHON_NAME = re.compile(r"(python|pypy)(\d+(\.\d+)*)?(-dbg)?")


def interpreter(server: ServerContext) -> str | None:
    """The Python that will run the server: `python -m ...` itself, or the interpreter on
    the `#!` line of the `vllm` / `sglang` console script found on the launch's PATH. None
    when that is not a Python (a shell script, a binary): nothing is then run through it."""

    command = server.command or server.argv
    program = command[0]
    path = server.environment.get("PATH")
    # `uv run` uses its project's venv (--project, else where it runs)
    local = Path(server.uv_project or server.cwd or ".") / ".venv" / "bin" / program
    uv = bool(server.argv) and os.path.basename(server.argv[0]) == "uv"   # as command.py reads it
    found = str(local.resolve()) if uv and local.is_file() else \
        shutil.which(program, path=path)
    if found is None:
        return None
    if PYTHON_NAME.fullmatch(os.path.basename(program)):
        return found
    try:
        with open(found, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]   # `env -S python3 -u`
        python = shutil.which(words[0], path=path) if words else None
    else:
        python = words[0] if words else None
    return python if python and PYTHON_NAME.fullmatch(os.path.basename(python)) else None


def _run_group(argv: list[str], env: dict[str, str], timeout: float,
               capture: bool = False, cwd: str | None = None) -> tuple[int, str] | None:
    """(exit code, stdout) of `argv` run in a session (process group) of its own, which is
    killed as a whole when it ends, times out or the gate is interrupted: nothing it
    started outlives it. None on timeout."""
    process = subprocess.Popen(argv, env=env, cwd=cwd or os.getcwd(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _kill_group(process)
    return process.returncode, out or ""


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def installed_version(python: str, server: ServerContext, timeout: float = 30.0
                      ) -> str | None:
    """The version of the runtime's distribution as `python` sees it (its metadata only:
    the runtime is not imported), with the launch line's environment."""

    query = "import importlib.metadata as m, sys; sys.stdout.write(m.version(sys.argv[1]))"
    try:
        done = _run_group([python, "-c", query, server.runtime], server.environment,
                          timeout, capture=True, cwd=server.cwd)
    except OSError:
        return None
    if done is None:
        return None
    version = done[1].strip()
    return version if done[0] == 0 and version else None


def dry_run(python: str, server: ServerContext, timeout: float) -> DryRunVerdict:
    """The runtime's own start-up resolution of the launch's arguments, in `python`
    (drafter_lint/dryrun/<runtime>_startup.py), typed once: accepted, refused (with the
    message and file:line that raised) or unavailable (why). The weights go through the
    release's own loader as meta tensors made from the safetensors headers: no tensor
    data is read and no device memory is used."""

    script = DRYRUN / f"{server.runtime}_startup.py"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="drafter-lint-dryrun-") as work:
        out = Path(work) / "verdict.json"
        request = json.dumps({"argv": list(server.server_args), "init": True,
                              "weights": True, "out": str(out)})
        try:
            with waiting(f"{server.runtime}'s own start-up (at most {timeout:g} s)",
                         what="the dry run"):
                done = _run_group([python, str(script), request], server.environment,
                                  timeout, cwd=server.cwd)
        except OSError as exc:
            return DryRunVerdict("unavailable", message=str(exc))
        if done is None:
            return DryRunVerdict("unavailable", message=f"no verdict within {timeout:g} s",
                                 seconds=round(time.monotonic() - started, 1))
        try:
            data = json.loads(out.read_text())
        except (OSError, ValueError):
            data = None
    return DryRunVerdict.of(data, round(time.monotonic() - started, 1))


def dry_run_note(verdict: DryRunVerdict, runtime: str) -> str:
    name = f"{runtime}=={verdict.version or '?'}"
    what = "start-up and weight loading" if verdict.stage == "weights" else "start-up"
    loaded = (f", {verdict.load_seconds:g} s of it loading {verdict.tensors} tensors from "
              f"the headers on the meta device") if verdict.tensors else ""
    if verdict.verdict == "accepted":
        unexplained = (f"; it left {', '.join(verdict.unexplained)} unfilled, which no "
                       f"recorded load of this draft class explains (not blocking)") \
            if verdict.unexplained else ""
        return (f"dry run: {name}'s own {what} accepted the launch ({verdict.seconds:g} s"
                f"{loaded}){unexplained}")
    if verdict.refused:
        return f"dry run: {name}'s own {what} refused the launch ({verdict.seconds:g} s)"
    return (f"dry run: not judged ({verdict.message or 'no verdict'}; "
            f"{verdict.seconds:g} s); skip it with --no-dry-run")


# --- the policy ----------------------------------------------------------------------------

@dataclass
class Decision:
    """What the gate decided: start the launch, or refuse it (and why)."""
    server: ServerContext | None = None  # what to exec (the whole line, its prefix)
    start: bool = False
    result: Result | None = None         # the lint (and dry-run) findings
    blocking: list[Finding] = field(default_factory=list)
    fail_on: str = "error"
    refused: str = ""                    # one line, when the line itself is refused


def decide(argv: list[str], run: Run, target_arg: str | None, fail_on: str | None,
           require_speculative: bool, timeout: float | None,
           note: Callable[[str], None]) -> Decision:
    """The gate's policy, in order. Read the line as the server does; a line that cannot
    be read, or names a model that cannot be resolved, is refused. Lint the drafter for the
    release installed behind the line (or --runtime's). Only if nothing blocks, ask that
    runtime's own start-up (the dry run, unless `timeout` is None). Block on either. The
    checkpoint is read once and each rule runs once."""
    options = run.options
    try:
        server = locate(argv)
        python = interpreter(server)
        installed = installed_version(python, server) if python else None
        # its flags as that release's own parser reads them (LCH108 says what it refuses)
        launch = read(server, _release(server, options.runtime, python, installed,
                                       lambda _: None))
    except GateError as exc:
        return Decision(refused=str(exc))
    with server_hub(server):
        return _decide(run, launch, server, target_arg, fail_on, require_speculative,
                       timeout, note, python, installed)


def _decide(run: Run, launch: LaunchLine, server: ServerContext, target_arg: str | None,
            fail_on: str | None, require_speculative: bool, timeout: float | None,
            note: Callable[[str], None], python: str | None,
            installed: str | None) -> Decision:
    options = run.options
    try:
        served = speculation(run, launch, server)
        if served == "speculators":
            launch = replace(launch, draft=launch.target, speculators_direct=True)
            note(f"{launch.target} is a speculators checkpoint: vLLM serves the verifier it "
                 f"names with it as the draft; linting both")
        elif served == "none" and not launch.draft and not launch.method and \
                launch.flag_problems:      # an ambiguous `--speculative` reads as none
            raise GateError(f"{launch.flags_for.label}'s argument parser refuses the line: "
                            + "; ".join(launch.flag_problems) + " (LCH108)")
        elif served == "none" and not launch.draft and not launch.method:
            if require_speculative:
                raise GateError("the launch line uses no speculative decoding "
                                "(--require-speculative)")
            note(f"the launch line uses no speculative decoding: nothing to lint; "
                 f"starting {server.label}")
            return Decision(server, start=True)
        if launch.draftless:
            note(f"method {launch.method or 'ngram'} has no draft checkpoint to lint; "
                 f"starting {server.label}")
            return Decision(server, start=True)
        if options.runtime is not None and options.runtime.runtime != launch.runtime:
            raise UsageError(f"--runtime {options.runtime.runtime} does not match the "
                             f"launch line, which starts {LABEL[launch.runtime]}")
        root, target, launch = resolve_models(run, launch, server, target_arg)
    except GateError as exc:
        return Decision(refused=str(exc))
    server = replace(server, release=_release(server, options.runtime, python, installed,
                                              note))
    checkpoint, folder, found = pipeline.prepare_folder(
        run, root, options=options.but(target=target, runtime=server.release, launch=launch,
                                       server=server))
    result = pipeline.lint_prepared(checkpoint, folder)
    level = Severity(fail_on or found.fail_on)
    blocking = [f for f in result.findings if f.severity.rank >= level.rank]
    if not blocking and installed and timeout is not None:     # the runtime's own word
        verdict = dry_run(python, server, timeout)
        note(dry_run_note(verdict, server.runtime))
        if verdict.refused:     # LCH106 reads the verdict, given to it explicitly
            refusal = pipeline.lint_prepared(checkpoint, folder.but(select=(REFUSED,),
                                                                    dry_run=verdict))
            result.findings += refusal.findings
            blocking = [f for f in refusal.findings if f.severity.rank >= level.rank]
    return Decision(server, not blocking, result, blocking, level.value)


REFUSED = "LCH106"      # the rule that reports the dry run's refusal (rules/launch.py)


def _release(server: ServerContext, asked: Release | None, python: str | None,
             installed: str | None, note: Callable[[str], None]) -> Release:
    """The release the lint speaks for: --runtime's, else the one installed behind the
    line (its distribution metadata), else the newest recorded; a note says which."""
    name = LABEL[server.runtime]
    if asked is not None:
        note(f"linting for {asked.label}, as --runtime asks"
             + (f" (the dry run asks the installed {name} {installed})"
                if installed and installed != asked.version else "")
             + ("" if installed else f"; no dry run: no {name} installed behind "
                                     f"`{server.command[0]}` was found"))
        return asked
    newest = runtimes.parse(server.runtime)
    if installed is None:
        why = (f"no {server.runtime} installed for {python}" if python else
               f"`{server.command[0]}` is not run by a Python found on the line's PATH")
        note(f"cannot tell which {name} release `{server.command[0]}` runs ({why}); "
             f"linting for the newest recorded, {newest.label}; no dry run")
        return newest
    try:
        release = runtimes.parse(f"{server.runtime}=={installed}")
    except runtimes.UnknownRuntime:       # a source or dev build: no release number
        note(f"{name} {installed}, installed for {python}, is not a release; linting for "
             f"the newest recorded, {newest.label}")
        return newest
    note(f"linting for {name} {installed}, installed for {python}"
         + (f" ({release.note})" if release.note else ""))
    return release
