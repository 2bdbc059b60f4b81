"""The constructed launch lines of tests/data/grammar_lines.json, each read by the real
parser of the release it names: accepted, or refused with argparse's own message.

    python tools/grammar_oracle.py --python VENV/bin/python [--tf5 DIR] [--extras DIR]
        [--cache DIR]

For each release named, this runs itself (`--child`) in --python (the grammar venv of
tools/grammar.py: torch, pydantic, transformers 4; --tf5 for the releases whose probe
needed transformers 5, as recorded in the probe's cache) on that release's unpacked wheel,
with the modules the venv lacks stood in by tools/grammar_probe.py's stubs, and calls the
release's own parsing:

- vLLM `vllm serve ...`: the CLI's top parser as vllm/entrypoints/cli/main.py builds it
  (a FlexibleArgumentParser with subparsers) with the release's own
  `ServeSubcommand.subparser_init`, and `parse_args(["serve", *args])`; a line through
  `python -m vllm.entrypoints.openai.api_server` gets `make_arg_parser` alone.
- SGLang: `argparse.ArgumentParser()` with `ServerArgs.add_cli_args` and `parse_args`, as
  `prepare_server_args` does before `ServerArgs.__post_init__`.

Only the argument parser is judged (not vLLM's `validate` nor SGLang's post-init). Writes
tests/data/oracle/grammar_verdicts.json: {id: {"release", "verdict": "accepted" |
"refused", "message"}}.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LINES = ROOT / "tests" / "data" / "grammar_lines.json"
OUT = ROOT / "tests" / "data" / "oracle" / "grammar_verdicts.json"


def lines() -> list[dict]:
    return json.loads(LINES.read_text(encoding="utf-8"))["lines"]


def server_args(line: str) -> tuple[str, list[str]]:
    """(how the release's parser is entered, the words it parses) of a launch line, as
    the gate locates the server command (command.locate)."""
    sys.path.insert(0, str(ROOT))
    from drafter_lint.command import locate
    server = locate(shlex.split(line), inherited={})
    args = list(server.server_args)
    if server.runtime == "vllm":
        if args[:1] == ["serve"]:
            return "serve", args[1:]
        return "api_server", args
    return "sglang", args


# --------------------------------------------------------------------------------------
# the child: runs in the grammar venv, imports the release's own code


def _built(runtime: str, root: str) -> dict:
    """The release's parsers, built inside grammar_probe.main (its environment: the stubs,
    the distribution metadata, the tolerant registries), its dispatch pointed here."""
    sys.path.insert(0, str(HERE))
    import grammar_probe as probe
    built: dict = {}

    def build(folder: str) -> dict:
        built.update((_vllm_parsers if runtime == "vllm" else _sglang_parsers)(folder))
        return {}

    setattr(probe, runtime, build)
    sys.argv = [str(HERE / "grammar_probe.py"), runtime, root]
    with contextlib.redirect_stdout(io.StringIO()):
        probe.main()
    return built


def _vllm_parsers(root: str) -> dict:
    import importlib
    sys.path.insert(0, str(HERE))
    import grammar_probe as probe
    serve = importlib.import_module("vllm.entrypoints.cli.serve")
    flexible = getattr(serve, "FlexibleArgumentParser", None)
    if flexible is None:
        flexible = importlib.import_module("vllm.utils").FlexibleArgumentParser
    top = flexible(description="vLLM CLI")          # vllm/entrypoints/cli/main.py
    subparsers = top.add_subparsers(required=False, dest="subparser")
    for cmd in serve.cmd_init():
        if cmd.name == "serve":
            cmd.subparser_init(subparsers)
    cli = importlib.import_module(probe._find(root, "vllm/entrypoints", "def make_arg_parser(",
                                              ("openai.cli_args", "common.cli_args")))
    alone = cli.make_arg_parser(flexible(prog="api_server"))
    return {"serve": (top, ["serve"]), "api_server": (alone, [])}


def _sglang_parsers(root: str) -> dict:
    import importlib
    module = importlib.import_module("sglang.srt.server_args")
    parser = argparse.ArgumentParser(prog="sglang serve")
    module.ServerArgs.add_cli_args(parser)
    return {"sglang": (parser, [])}


def _judge(parser, words: list[str]) -> dict:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(words)
    except SystemExit as exc:
        text = err.getvalue().strip().splitlines()
        last = text[-1] if text else f"exit {exc.code}"
        return {"verdict": "refused", "message": last.split(": error: ", 1)[-1]}
    except Exception as exc:        # noqa: BLE001 - a raise in a type function, recorded
        return {"verdict": "refused", "message": f"{type(exc).__name__}: {exc}"[:400]}
    return {"verdict": "accepted", "message": ""}


def child(runtime: str, root: str) -> None:
    todo = json.loads(sys.stdin.read())
    parsers = _built(runtime, root)
    out = {}
    for entry in todo:
        parser, head = parsers[entry["how"]]
        out[entry["id"]] = _judge(parser, head + entry["words"])
    sys.stdout.write("\n" + json.dumps(out))


# --------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("RUNTIME", "FOLDER"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--python", help="the grammar venv's Python (tools/grammar.py)")
    parser.add_argument("--tf5", help="a folder with transformers 5 (pip install --target)")
    parser.add_argument("--extras", help="a folder with what the releases' CLI modules "
                        "import beyond the parser (python-multipart, which fastapi needs "
                        "when vLLM <= 0.8.x's serve module defines its routes)")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.path.expanduser("~/.cache/drafter-lint/grammar")))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    if not args.python:
        parser.error("--python is required")
    sys.path.insert(0, str(ROOT / "tools" / "oracle"))
    from release_evidence import fetch
    by_release: dict[str, list[dict]] = {}
    for entry in lines():
        how, words = server_args(entry["line"])
        by_release.setdefault(entry["release"], []).append(
            {"id": entry["id"], "how": how, "words": words})
    verdicts: dict[str, dict] = {}
    for release, todo in by_release.items():
        runtime, version = release.split("==")
        folder = fetch(runtime, version, args.cache / "files", {f"{runtime}/**/*.py"})
        raw = args.cache / "raw" / f"{runtime}-{version}.json"
        tf = json.loads(raw.read_text()).get("transformers", 4) if raw.is_file() else 4
        env = {**os.environ, "PYTHONHASHSEED": "0",
               "PYTHONPATH": os.pathsep.join(p for p in (args.tf5 if tf == 5 else None,
                                                        args.extras) if p)}
        done = subprocess.run([args.python, str(Path(__file__).resolve()), "--child",
                               runtime, str(folder)], input=json.dumps(todo), env=env,
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            print(f"{release}: not executed: {done.stderr.strip().splitlines()[-1:]}",
                  file=sys.stderr)
            return 1
        found = json.loads(done.stdout.strip().splitlines()[-1])
        for entry in todo:
            verdicts[entry["id"]] = {"release": release, **found[entry["id"]]}
            print(f"{release} {entry['id']}: {found[entry['id']]['verdict']} "
                  f"{found[entry['id']]['message'][:100]}", flush=True)
    order = [e["id"] for e in lines()]
    text = json.dumps({"made_by": "python tools/grammar_oracle.py",
                       "verdicts": {i: verdicts[i] for i in order}}, indent=1)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"{args.out}: {len(order)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
