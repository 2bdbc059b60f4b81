"""Each recorded release's server command line, as its own parser builds it.

    python tools/grammar.py --python VENV/bin/python [--tf5 DIR] [--cache DIR]
    python tools/grammar.py --check-static [--cache DIR]     # maintenance, after a build

For every release of `runtimes.PUBLISHED` (vLLM's `vllm serve` parser: the OpenAI
server's `make_arg_parser`, which adds the frontend options and `EngineArgs.add_cli_args`;
SGLang's `ServerArgs.add_cli_args`), this downloads the wheel's Python files (the download
and cache of tools/oracle/release_evidence.py), runs tools/grammar_probe.py on them in
--python (a venv with torch and pydantic; transformers 4 there, transformers 5 in --tf5
for the releases that pin it: the probe tries both) and writes, per runtime,
drafter_lint/runtimes/grammar-<runtime>.json: each option's spellings, whether it takes a
value, its static choices, as runs of releases with the same definition, with the file:line
that added it at both ends of each run. A release whose parser cannot be executed is
recorded as not read (the gate keeps its own lists for it). Keep the cache and the venv
outside the repository. The venv needs dill (SGLang's configs serialize a logit processor
with it at import).

--check-static reads each SGLang release's options from its source with `ast` (literal
`add_argument` calls in server_args.py and arg_groups/, and the `A[T, Arg(...)]` fields
arg_groups/arg_utils.py turns into options) and compares them with the executed ones: a
stub that made the parser skip an option shows there. All 26 releases: the same sets.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tools" / "oracle"))
sys.path.insert(0, str(ROOT))

from release_evidence import fetch  # noqa: E402

from drafter_lint import runtimes  # noqa: E402

OUT = ROOT / "drafter_lint" / "runtimes"
PROBE = HERE / "grammar_probe.py"
TF5 = {"vllm": "0.24.0", "sglang": "0.5.10"}    # the first release that pins transformers 5


def probe(runtime: str, version: str, folder: Path, python: str, tf5: str | None,
          raw: Path, tf_old: str | None = None) -> dict | None:
    """The probe's output for one release (cached in `raw`), or None when it fails."""
    cached = raw / f"{runtime}-{version}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    newer = runtimes.version_key(version) >= runtimes.version_key(TF5[runtime])
    paths = [tf5, None] if newer else [None, tf5]
    if tf_old:
        paths.append(tf_old)
    errors = []
    for path in paths:
        if path is None and tf5 is None and errors:
            continue
        # a fixed hash seed: choices a release builds from a set keep one order
        env = {**os.environ, "PYTHONPATH": path or "", "PYTHONHASHSEED": "0"}
        done = subprocess.run([python, str(PROBE), runtime, str(folder)], env=env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode == 0:
            out = json.loads(done.stdout)
            out["transformers"] = 5 if path and path == tf5 else 4
            cached.write_text(json.dumps(out))
            return out
        errors.append(done.stderr.strip().splitlines()[-1:] or ["?"])
    print(f"{runtime}=={version}: not executed ({errors})", file=sys.stderr)
    return None


def _definition(action: dict) -> tuple:
    return (tuple(action["options"]), action["takes"],
            tuple(action["choices"]) if action["choices"] is not None else None,
            action.get("type") if action["choices"] is not None else None)


def history(runtime: str, found: dict[str, dict | None]) -> dict:
    """The grammar of every release as runs: {release: how}, [option runs]."""
    versions = list(runtimes.PUBLISHED[runtime])
    releases, options = {}, {}
    for version in versions:
        out = found.get(version)
        if out is None:
            releases[version] = {"how": "not read"}
            continue
        releases[version] = {"how": "executed", "module": out["module"],
                             "allow_abbrev": out["allow_abbrev"],
                             "transformers": out["transformers"]}
        if "speculative_keys" in out:
            releases[version]["speculative_keys"] = out["speculative_keys"]
        for action in out["actions"]:
            if action["options"][0] in ("-h", "--help"):
                continue
            if action["action"] in ("BooleanOptionalAction", "EnableDisableAction"):
                # argparse registers `--no-X` for each `--X`; vLLM's EnableDisableAction
                # keeps them registered but out of option_strings (help)
                action["options"] = list(dict.fromkeys(action["options"] + [
                    "--no-" + s[2:] for s in action["options"]
                    if s.startswith("--") and not s.startswith("--no-")]))
            key = action["dest"] + " " + action["options"][0]
            options.setdefault(key, {})[version] = action
    runs_of = []
    read = [v for v in versions if releases[v]["how"] == "executed"]
    for key, by in options.items():
        runs: list[dict] = []
        for version in read:
            action = by.get(version)
            if action is None:
                if runs and not runs[-1]["until"]:
                    runs[-1]["until"] = version
                continue
            if runs and not runs[-1]["until"] and runs[-1]["_def"] == _definition(action):
                runs[-1]["last"] = f"{version} {action['at']}"
                continue
            if runs and not runs[-1]["until"]:
                runs[-1]["until"] = version
            run = {"since": version, "until": "", "options": action["options"],
                   "takes": action["takes"], "at": f"{version} {action['at']}",
                   "last": f"{version} {action['at']}", "_def": _definition(action)}
            if action["choices"] is not None:
                run["choices"] = action["choices"]
                if action.get("type") not in (None, "str", "int", "float"):
                    run["type"] = action["type"]    # the value is converted before the check
            runs.append(run)
        for run in runs:
            del run["_def"]
        runs_of.append({"dest": key.split(" ")[0], "runs": runs})
    return {"releases": releases, "options": runs_of}


def compact(data: dict) -> dict:
    """Speculative keys as runs too; the choices lists shared by index."""
    table: list = []
    index: dict = {}
    for option in data["options"]:
        for run in option["runs"]:
            if "choices" in run:
                key = json.dumps(run["choices"])
                if key not in index:
                    index[key] = len(table)
                    table.append(run["choices"])
                run["choices"] = index[key]
    keys, before = [], None
    for version, how in data["releases"].items():
        found = how.pop("speculative_keys", None)
        if found is None:
            continue
        if found != before:
            keys.append({"since": version, "keys": found})
            before = found
    data["choices"] = table
    data["speculative_keys"] = keys
    return data


# ---------------------------------------------------------------------------------------
# Maintenance: the SGLang option set read statically from the release's source, compared
# with the executed one (python tools/grammar.py --check-static). Not in the quick lane.

def _literal_names(call) -> list[str] | None:
    """The option strings of `parser.add_argument("--a", "-b", ...)`, None when one of them
    is not a literal (a name built at run time)."""
    import ast
    names = []
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            names.append(arg.value)
        else:
            return None
    return names


def _no_value(call) -> bool:
    import ast
    for kw in call.keywords:
        if kw.arg == "action":
            value = kw.value
            name = value.attr if isinstance(value, ast.Attribute) else \
                value.value if isinstance(value, ast.Constant) else \
                value.id if isinstance(value, ast.Name) else None
            return name in ("BooleanOptionalAction",)
    return False


def static_options(folder: Path) -> tuple[dict[str, str], list[str]]:
    """{option string: "path:line"} of the SGLang release in `folder`, read from the AST:
    each literal `add_argument` call under sglang/srt/server_args.py and arg_groups/, and
    each `A[T, Arg(...)]` / `A[T, "help"]` field of the dataclasses arg_groups/arg_utils.py
    turns into options (`--field-name` or Arg's cli_name, its aliases; no_cli skipped).
    Also what could not be read: calls whose option strings are not literals."""
    import ast
    srt = folder / "sglang" / "srt"
    paths = [srt / "server_args.py"] + sorted((srt / "arg_groups").rglob("*.py"))
    found: dict[str, str] = {}
    unread: list[str] = []
    for path in paths:
        if not path.is_file():
            continue
        rel = path.relative_to(folder).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        generic = path.name == "arg_utils.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "add_argument" and not generic:
                names = _literal_names(node)
                if names is None:
                    unread.append(f"{rel}:{node.lineno}")
                    continue
                for name in names:
                    found.setdefault(name, f"{rel}:{node.lineno}")
                if _no_value(node):
                    for name in names:
                        if name.startswith("--"):
                            found.setdefault("--no-" + name[2:], f"{rel}:{node.lineno}")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and isinstance(node.annotation, ast.Subscript) \
                    and isinstance(node.annotation.value, ast.Name) \
                    and node.annotation.value.id == "A" \
                    and isinstance(node.annotation.slice, ast.Tuple) \
                    and len(node.annotation.slice.elts) >= 2:
                meta = node.annotation.slice.elts[1]
                cli, aliases = "--" + node.target.id.replace("_", "-"), []
                if isinstance(meta, ast.Call) and getattr(meta.func, "id", "") == "Arg":
                    kws = {kw.arg: kw.value for kw in meta.keywords}
                    if "no_cli" in kws and isinstance(kws["no_cli"], ast.Constant) \
                            and kws["no_cli"].value:
                        continue
                    if "cli_name" in kws:
                        cli = ast.literal_eval(kws["cli_name"])
                    if "aliases" in kws:
                        aliases = list(ast.literal_eval(kws["aliases"]))
                    if _no_value(meta):
                        aliases.append("--no-" + cli[2:])
                elif not (isinstance(meta, ast.Constant) and isinstance(meta.value, str)):
                    continue
                for name in [cli] + aliases:
                    found.setdefault(name, f"{rel}:{node.lineno}")
    return found, unread


def check_static(files: Path, raw: Path) -> int:
    """For each SGLang release executed (its probe output cached in `raw`), the statically
    read option set against the executed one; prints the differences."""
    bad = 0
    for version in runtimes.PUBLISHED["sglang"]:
        cached = raw / f"sglang-{version}.json"
        if not cached.is_file():
            print(f"sglang=={version}: not executed, nothing to compare")
            continue
        out = json.loads(cached.read_text())
        executed = set()
        for action in out["actions"]:
            executed.update(action["options"])
            if action["action"] == "BooleanOptionalAction":
                executed.update("--no-" + s[2:] for s in action["options"]
                                if s.startswith("--") and not s.startswith("--no-"))
        executed -= {"-h", "--help"}
        read, unread = static_options(fetch("sglang", version, files, {"sglang/**/*.py"}))
        only_static = sorted(set(read) - executed)
        only_executed = sorted(executed - set(read))
        same = not only_static and not only_executed
        bad += not same
        print(f"sglang=={version}: {len(executed)} executed, {len(read)} read statically: "
              f"{'same' if same else 'differ'}"
              + (f"; only read: {only_static} ({[read[s] for s in only_static]})"
                 if only_static else "")
              + (f"; only executed: {only_executed}" if only_executed else "")
              + (f"; calls not literal: {unread}" if unread and not same else ""))
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check-static", action="store_true",
                        help="maintenance: compare each executed SGLang release's options "
                             "with those read statically from its source, and stop")
    parser.add_argument("--python",
                        help="a Python with torch, pydantic and transformers 4")
    parser.add_argument("--tf5", help="a folder with transformers 5 (pip install --target)")
    parser.add_argument("--tf-old", help="a folder with an older transformers 4, tried last "
                                         "(SGLang 0.4.4 imports image_utils.VideoInput, "
                                         "gone in later 4.x: transformers==4.48.3)")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.path.expanduser("~/.cache/drafter-lint/grammar")))
    parser.add_argument("--runtime", action="append", choices=("vllm", "sglang"))
    args = parser.parse_args()
    files, raw = args.cache / "files", args.cache / "raw"
    if args.check_static:
        return check_static(files, raw)
    if not args.python:
        parser.error("--python is required")
    raw.mkdir(parents=True, exist_ok=True)
    for runtime in args.runtime or ("vllm", "sglang"):
        found = {}
        for version in runtimes.PUBLISHED[runtime]:
            folder = fetch(runtime, version, files, {f"{runtime}/**/*.py"})
            found[version] = probe(runtime, version, folder, args.python, args.tf5, raw,
                                   args.tf_old)
            print(f"{runtime}=={version}: "
                  f"{'executed' if found[version] else 'not read'}", flush=True)
        data = compact(history(runtime, found))
        text = json.dumps({"made_by": "python tools/grammar.py", "runtime": runtime, **data},
                          separators=(",", ":"), sort_keys=False)
        path = OUT / f"grammar-{runtime}.json"
        path.write_text(text + "\n", encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(data['options'])} options, "
              f"{len(text) // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
