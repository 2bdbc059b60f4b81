"""The oracle lane: run vLLM's and SGLang's own start-up on every shipped pair and record
one verdict per launch in tests/data/oracle/<runtime>-<version>.json.

    bash tools/oracle/setup.sh ~/oracle                      # once, ~4-10 min per release
    .venv/bin/python tools/oracle/run.py --venvs ~/oracle [--runtime vllm|vllm==X|sglang]
                                         [--check]

Verdicts: `accepted`, `refused` (the runtime's exception, message and raising file:line),
or `oracle-limit` (a torch.cuda call that needs a device: no verdict either way).
`--check` compares a fresh run with the committed verdicts instead of writing them (what
`DRAFTER_LINT_LANE=oracle pytest tests/test_oracle.py` does). Paths of the temporary pair
folders are replaced by <drafter> / <target> so the file is the same on every machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "oracle"))     # the launches: the test corpus's pairs

from launches import build  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "oracle"
SCRIPTS = {"vllm": "run_vllm.py", "sglang": "run_sglang.py"}
NEWEST = {"vllm": "0.33.0", "sglang": "0.5.23"}     # what `--runtime vllm` runs


def releases(asked: list[str] | None, venvs: Path) -> list[tuple[str, str]]:
    """(runtime, version) for each `--runtime` (`vllm` is its newest recorded release,
    `vllm==0.25.0` that one), default: every venv setup.sh made under `venvs`."""
    if asked:
        return [(a.partition("==")[0], a.partition("==")[2] or NEWEST[a.partition("==")[0]])
                for a in asked]
    found = [tuple(p.name.split("-", 1)) for p in sorted(venvs.iterdir())
             if p.name.split("-", 1)[0] in SCRIPTS and (p / "bin" / "python").exists()]
    return found or [(r, v) for r, v in NEWEST.items()]
# torch.cuda at run time: no verdict here, a CUDA host gets past it
ORACLE_LIMITS = ("Found no NVIDIA driver", "driver version is insufficient",
                 "Torch not compiled with CUDA")
LAUNCH_KEYS = ("mode", "method", "k", "algorithm", "num_steps", "topk", "num_draft_tokens",
               "env", "self_draft")


def _anonymous(value, launch: dict):
    """`value` with this run's folder paths replaced by placeholders."""
    text = json.dumps(value)
    for key in ("drafter", "target"):
        text = text.replace(json.dumps(launch[key])[1:-1], f"<{key}>")
    return json.loads(text)


def run(runtime: str, version: str, venvs: Path, work: Path,
        only: list | None = None) -> dict:
    venv, script = f"{runtime}-{version}", SCRIPTS[runtime]
    launches = [x for x in build(work / "pairs") if x["runtime"] == runtime
                and (not only or any(text in x["id"] for text in only))]
    (work / "launches.json").write_text(json.dumps(launches))
    out = work / f"{runtime}.jsonl"
    started = time.monotonic()
    subprocess.run([str(venvs / venv / "bin" / "python"), str(HERE / script),
                    str(work / "launches.json"), str(out)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    header, *lines = [json.loads(line) for line in out.read_text().splitlines()]
    by_id = {x["id"]: x for x in launches}
    records = []
    for verdict in lines:
        launch = by_id[verdict["id"]]
        record = {"id": verdict["id"], "pair": launch["pair"], "source": launch["source"],
                  "launch": {k: launch[k] for k in LAUNCH_KEYS if k in launch}}
        record.update({k: v for k, v in verdict.items() if k not in ("id",)})
        if verdict["verdict"] == "refused" and \
                any(m in verdict.get("message", "") for m in ORACLE_LIMITS):
            record["verdict"] = "oracle-limit"
        records.append(_anonymous(record, launch))
    return {"runtime": runtime, "version": header["version"],
            "made_by": "tools/oracle/run.py", "seconds": round(seconds),
            "launches": records}


def build_ids() -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="dl-oracle-") as work:
        return [{"id": x["id"]} for x in build(Path(work))]


def partial_cases() -> set[str]:
    """The corpus cases recorded at some releases only (case.json `oracle_partial`)."""
    from corpus import cases

    return {c.id for c in cases() if "oracle_partial" in c.meta}


def verdicts(document: dict) -> dict:
    """id -> (verdict, error type, raising file:line): what --check compares."""
    return {x["id"]: (x["verdict"], x.get("error_type"), x.get("where"))
            for x in document["launches"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venvs", required=True, type=Path,
                        help="the folder tools/oracle/setup.sh filled")
    parser.add_argument("--runtime", action="append", metavar="NAME[==VERSION]",
                        help="vllm, sglang or NAME==VERSION (repeatable) [default: every "
                             "venv under --venvs]")
    parser.add_argument("--only", metavar="TEXT", action="append",
                        help="run the launches whose id contains TEXT (repeatable); merged "
                             "into the recorded file")
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed verdicts; write nothing")
    args = parser.parse_args()
    failed = 0
    for runtime, version in releases(args.runtime, args.venvs):
        with tempfile.TemporaryDirectory(prefix="dl-oracle-") as work:
            document = run(runtime, version, args.venvs, Path(work), args.only)
        path = GOLDEN / f"{runtime}-{document['version']}.json"
        if args.only and path.is_file():
            fresh = {x["id"] for x in document["launches"]}
            kept = [x for x in json.loads(path.read_text())["launches"] if x["id"] not in fresh]
            order = {x["id"]: i for i, x in enumerate(build_ids())}
            document["launches"] = sorted(kept + document["launches"],
                                          key=lambda x: order.get(x["id"], len(order)))
            document["seconds"] = json.loads(path.read_text())["seconds"]
        if args.check:
            old = verdicts(json.loads(path.read_text()))
            new = verdicts(document)
            # a corpus case declared `oracle_partial` is not recorded at every release yet:
            # its launch new to this release's file is pending, not a changed verdict
            pending = {k for k in new.keys() - old.keys() if k.split("@")[0] in partial_cases()}
            changed = sorted(k for k in (old.keys() | new.keys()) - pending
                             if old.get(k) != new.get(k))
            for key in sorted(pending):
                print(f"{runtime}: {key}: not recorded at {document['version']} yet "
                      f"(oracle_partial)")
            for key in changed:
                print(f"{runtime}: {key}: recorded {old.get(key)}, now {new.get(key)}")
            failed += len(changed)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
        refused = sum(x["verdict"] == "refused" for x in document["launches"])
        print(f"{runtime} {document['version']}: {len(document['launches'])} launches, "
              f"{refused} refused, {document['seconds']} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
