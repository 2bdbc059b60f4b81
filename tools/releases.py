"""The releases of vLLM and SGLang on the package index that the tool does not record.

    python tools/releases.py                 # both runtimes
    python tools/releases.py --runtime sglang
    python tools/releases.py record vllm==X [--sources DIR] [--venvs DIR] [--transformers DIR]
    python tools/releases.py posts --sources DIR     # unlisted .postN builds: what each changes

Asks the index's JSON API (pypi.org's, or --index URL's) for every released version,
yanked ones aside, and lists those outside runtimes.PUBLISHED: newer than the newest recorded
(a release to record), between recorded ones (a release the table skipped), older than
the oldest (outside the table's range), and `.postN` builds of recorded releases (the
tool answers for them with their base's facts, and says so). Recording one is the
maintenance of CONTRIBUTING.md's "Add a runtime fact" (release_evidence.py, the grammar
and the oracle lane).

`record RUNTIME==X` does that maintenance for one release in one go, each step by the
project's own command: adds X to `PUBLISHED` (drafter_lint/runtimes/releases.py), rewrites
registries.json and release-evidence.json (tools/oracle/release_evidence.py --registries,
from --sources or its download cache, --transformers for `config.model-types`), with
--venvs (the folder tools/oracle/setup.sh filled, holding RUNTIME-X/) the grammar of X's
parser (tools/grammar.py, its files and cache beside --sources) and X's oracle verdicts
(tools/oracle/run.py), then drafter_lint/runtimes/loads.json (tools/oracle/weights_rows.py).
It cannot decide a row whose probe stops holding at X (the fact moved, or changed): it
prints those rows, and exits 1, for the maintainer to fix the probe or close the row
(`until`) and add one for the new value (CONTRIBUTING.md, "Add a runtime fact"); run it
again after, or release_evidence.py alone.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools" / "oracle"))     # release_evidence, release_probes

from packaging.version import InvalidVersion, Version  # noqa: E402

from drafter_lint import runtimes  # noqa: E402


def released(name: str, index: str) -> list[str]:
    """Every version of `name` the index lists with at least one file not yanked."""
    with urllib.request.urlopen(f"{index.rstrip('/')}/{name}/json", timeout=30) as reply:
        data = json.load(reply)
    out = []
    for version, files in data.get("releases", {}).items():
        if files and not all(f.get("yanked") for f in files):
            out.append(version)
    return out


def unrecorded(name: str, versions: list[str]) -> dict[str, list[str]]:
    """The versions outside the table, by kind: newer, skipped, older, post."""
    recorded = runtimes.PUBLISHED[name]
    known = {Version(v) for v in recorded}
    oldest, newest = Version(recorded[0]), Version(recorded[-1])
    kinds: dict[str, list[str]] = {"newer": [], "skipped": [], "older": [], "post": []}
    for text in versions:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if version in known:
            continue
        if version.is_postrelease and Version(version.base_version) in known:
            kinds["post"].append(text)
        elif version > newest:
            kinds["newer"].append(text)
        elif version < oldest:
            kinds["older"].append(text)
        elif not version.is_prerelease:
            kinds["skipped"].append(text)
    return {k: sorted(v, key=Version) for k, v in kinds.items()}


RELEASES = ROOT / "drafter_lint" / "runtimes" / "releases.py"
DISAGREE = re.compile(r"^(\S+) \((\w+), ([^)]*)\): (.*); the row says otherwise$")


def add_published(runtime: str, version: str, path: Path = RELEASES) -> bool:
    """Add `version` to `runtime`'s tuple in PUBLISHED (releases.py), in version order;
    False when it is there already."""
    text = path.read_text(encoding="utf-8")
    start = re.search(rf'^    "{re.escape(runtime)}": \(\n', text, re.M)
    if start is None:
        raise SystemExit(f"{path.name}: no PUBLISHED entry for {runtime}")
    end = text.index(")", start.end())
    body = text[start.end():end]
    versions = re.findall(r'"([^"]+)"', body)
    if version in versions:
        return False
    later = [v for v in versions if Version(v) > Version(version)]
    if later:                                # a skipped release: before the next one
        at = start.end() + body.index(f'"{later[0]}"')
        text = text[:at] + f'"{version}", ' + text[at:]
    else:                                    # the newest: after the last, wrapped at 91
        last_line = text.rfind("\n", 0, end) + 1
        item = f' "{version}"'
        joint = "," + item if end - last_line + len(item) + 2 <= 91 else ",\n       " + item
        text = text[:end] + joint + text[end:]
    path.write_text(text, encoding="utf-8")
    return True


def step(title: str, argv: list[str]) -> subprocess.CompletedProcess:
    """Run one of the project's own commands from the checkout, its output shown."""
    print(f"== {title}: {' '.join(argv)}", flush=True)
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.write(done.stdout)
    return done


def disagreeing(output: str) -> list[str]:
    """The rows whose probes release_evidence.py says disagree with their range."""
    return [line.strip() for line in output.splitlines() if DISAGREE.match(line.strip())]


def record(argv: list[str]) -> int:
    """`record RUNTIME==X`: the steps of recording one release (module docstring)."""
    parser = argparse.ArgumentParser(prog="tools/releases.py record",
                                     description="record one runtime release in one go")
    parser.add_argument("release", help="RUNTIME==VERSION, e.g. vllm==0.34.0")
    parser.add_argument("--sources", type=Path,
                        help="unzipped wheels as DIR/<pkg>-<version>/ (no download)")
    parser.add_argument("--venvs", type=Path,
                        help="the folder tools/oracle/setup.sh filled (DIR/<pkg>-<version>/): "
                             "also the grammar and the oracle verdicts")
    parser.add_argument("--transformers", type=Path,
                        help="transformers releases' models/auto files (release_evidence.py)")
    options = parser.parse_args(argv)
    runtime, _, version = options.release.partition("==")
    if runtime not in runtimes.PUBLISHED or not version:
        parser.error(f"give RUNTIME==VERSION with RUNTIME one of {sorted(runtimes.PUBLISHED)}")
    Version(version)                         # an invalid version stops here
    if options.sources and not (options.sources / f"{runtime}-{version}").is_dir():
        parser.error(f"{options.sources}/{runtime}-{version}/ is missing")
    python = options.venvs / f"{runtime}-{version}" / "bin" / "python" if options.venvs \
        else None
    if python is not None and not python.is_file():
        parser.error(f"{python} is missing (bash tools/oracle/setup.sh DIR {options.release})")
    added = add_published(runtime, version)
    print(f"== {RELEASES.relative_to(ROOT)}: {version} "
          f"{'added to' if added else 'already in'} PUBLISHED[{runtime!r}]")
    evidence = ["tools/oracle/release_evidence.py", "--registries"]
    if options.sources:
        evidence += ["--sources", str(options.sources)]
    if options.transformers:
        evidence += ["--transformers", str(options.transformers)]
    done = step("evidence and registries", evidence)
    rows = disagreeing(done.stdout)
    failed = [] if done.returncode == 0 else ["release_evidence.py"]
    if python is not None:
        grammar = ["tools/grammar.py", "--python", str(python), "--runtime", runtime]
        if options.sources and options.sources.name == "files":
            grammar += ["--cache", str(options.sources.parent)]   # its files/ and raw/
        if step("grammar", grammar).returncode:
            failed.append("grammar.py")
        if step("oracle verdicts", ["tools/oracle/run.py", "--venvs", str(options.venvs),
                                    "--runtime", options.release]).returncode:
            failed.append("run.py")
    else:
        print("== grammar and oracle verdicts: skipped (no --venvs)")
    if step("loads.json", ["tools/oracle/weights_rows.py"]).returncode:
        failed.append("weights_rows.py")
    if rows:
        print(f"\n{len(rows)} row(s) whose probe disagrees with its range now that "
              f"{options.release} is recorded; for each, read {options.release}'s code: the "
              f"fact moved (fix the probe in tools/oracle/release_probes.py) or changed "
              f"(close the row with until=\"{version}\" and add one for the new value), "
              f"citing `{options.release} path:line`; then run release_evidence.py again:")
        for row in rows:
            print(f"  {row}")
    if failed:
        print(f"\nnot done: {', '.join(failed)} (output above)")
    return 1 if rows or failed else 0


def post_changes(runtime: str, version: str, sources: Path) -> list[str]:
    """What the tool reads that `version` (a `.postN` build, unzipped under `sources`)
    changes against the listed release before it: each probe that holds in one and not
    the other, each value read whole from the wheels that differs."""
    import release_evidence as evidence
    from release_probes import PROBES

    before = [v for v in runtimes.PUBLISHED[runtime]
              if Version(v) < Version(version)][-1]
    old = evidence.Release(runtime, before, sources / f"{runtime}-{before}")
    new = evidence.Release(runtime, version, sources / f"{runtime}-{version}")
    out = []
    for probe in PROBES:
        if probe.runtime != runtime or probe.extract:
            continue
        fact = evidence.row_of(probe)
        if bool(evidence.holds(probe, old, fact)) != bool(evidence.holds(probe, new, fact)):
            out.append(f"{probe.key} ({probe.since}..{probe.until or ''})")
    for key, extractors in evidence.EXTRACTED_FACTS.items():
        name = extractors.get(runtime)
        if name and old.extracted(name)[0] != new.extracted(name)[0]:
            out.append(f"{key} (read whole)")
    return out


def posts(argv: list[str]) -> int:
    """`posts --sources DIR [--runtime R]`: each unzipped `.postN` build under DIR that is
    not listed, with what it changes; exit 1 when one changes something (list it in
    PUBLISHED and record it; the others get the listed release before them, and say so)."""
    parser = argparse.ArgumentParser(prog="releases.py posts")
    parser.add_argument("--sources", type=Path, required=True)
    parser.add_argument("--runtime", choices=("vllm", "sglang"), action="append")
    options = parser.parse_args(argv)
    changed = False
    for runtime in options.runtime or ("vllm", "sglang"):
        listed = runtimes.PUBLISHED[runtime]
        found = sorted((p.name.split("-", 1)[1] for p in options.sources.glob(f"{runtime}-*")
                        if ".post" in p.name), key=Version)
        for version in found:
            if version in listed or Version(version) < Version(listed[0]):
                continue
            what = post_changes(runtime, version, options.sources)
            changed = changed or bool(what)
            print(f"{runtime}=={version}: " + ("; ".join(what) if what else
                                               "changes nothing the tool reads"))
    return 1 if changed else 0


def main() -> int:
    if sys.argv[1:2] == ["record"]:
        return record(sys.argv[2:])
    if sys.argv[1:2] == ["posts"]:
        return posts(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", choices=sorted(runtimes.PUBLISHED), action="append")
    parser.add_argument("--index", default="https://pypi.org/pypi",
                        help="a JSON API base (default: %(default)s)")
    options = parser.parse_args()
    missing = False
    for name in options.runtime or sorted(runtimes.PUBLISHED):
        kinds = unrecorded(name, released(name, options.index))
        recorded = runtimes.PUBLISHED[name]
        print(f"{runtimes.LABEL[name]}: {len(recorded)} recorded, "
              f"{recorded[0]} to {recorded[-1]}")
        for kind, versions in kinds.items():
            if versions:
                missing = missing or kind in ("newer", "skipped")
                print(f"  {kind}: {', '.join(versions)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
