"""Each recorded release's server command line, as its own parser builds it.

    python tools/grammar.py --python VENV/bin/python [--tf5 DIR] [--cache DIR]

For every release of `runtimes.PUBLISHED` (vLLM's `vllm serve` parser: the OpenAI
server's `make_arg_parser`, which adds the frontend options and `EngineArgs.add_cli_args`;
SGLang's `ServerArgs.add_cli_args`), this downloads the wheel's Python files (the download
and cache of tests/oracle/release_evidence.py), runs tools/grammar_probe.py on them in
--python (a venv with torch and pydantic; transformers 4 there, transformers 5 in --tf5
for the releases that pin it: the probe tries both) and writes, per runtime,
drafter_lint/runtimes/grammar-<runtime>.json: each option's spellings, whether it takes a
value, its static choices, as runs of releases with the same definition, with the file:line
that added it at both ends of each run. A release whose parser cannot be executed is
recorded as not read (the gate keeps its own lists for it). Keep the cache and the venv
outside the repository.
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
sys.path.insert(0, str(ROOT / "tests" / "oracle"))
sys.path.insert(0, str(ROOT))

from release_evidence import fetch  # noqa: E402

from drafter_lint import runtimes  # noqa: E402

OUT = ROOT / "drafter_lint" / "runtimes"
PROBE = HERE / "grammar_probe.py"
TF5 = {"vllm": "0.24.0", "sglang": "0.5.10"}    # the first release that pins transformers 5


def probe(runtime: str, version: str, folder: Path, python: str, tf5: str | None,
          raw: Path) -> dict | None:
    """The probe's output for one release (cached in `raw`), or None when it fails."""
    cached = raw / f"{runtime}-{version}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    newer = runtimes.version_key(version) >= runtimes.version_key(TF5[runtime])
    paths = [tf5, None] if newer else [None, tf5]
    errors = []
    for path in paths:
        if path is None and tf5 is None and errors:
            continue
        env = {**os.environ, "PYTHONPATH": path or ""}
        done = subprocess.run([python, str(PROBE), runtime, str(folder)], env=env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode == 0:
            out = json.loads(done.stdout)
            out["transformers"] = 5 if path else 4
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True,
                        help="a Python with torch, pydantic and transformers 4")
    parser.add_argument("--tf5", help="a folder with transformers 5 (pip install --target)")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.path.expanduser("~/.cache/drafter-lint/grammar")))
    parser.add_argument("--runtime", action="append", choices=("vllm", "sglang"))
    args = parser.parse_args()
    files, raw = args.cache / "files", args.cache / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for runtime in args.runtime or ("vllm", "sglang"):
        found = {}
        for version in runtimes.PUBLISHED[runtime]:
            folder = fetch(runtime, version, files, {f"{runtime}/**/*.py"})
            found[version] = probe(runtime, version, folder, args.python, args.tf5, raw)
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
