"""Where each runtime fact row holds, read from every released wheel.

    python tools/oracle/release_evidence.py                # writes tests/data/release-evidence.json
    python tools/oracle/release_evidence.py --suggest      # prints the range each probe finds
    python tools/oracle/release_evidence.py --sources DIR  # wheels unzipped as DIR/<pkg>-<ver>/
    python tools/oracle/release_evidence.py --registries   # and rewrites runtimes/registries.json

Every vLLM and SGLang row of drafter_lint/runtimes/table.py has one probe in
tools/oracle/release_probes.py: files in the wheel, a pattern that must match there (and
patterns that must not), or an extractor whose value must equal the row's. The tool
reads each probe in every release of `runtimes.PUBLISHED`, oldest first, and checks that
it holds in exactly the row's `since`/`until` range: at `since` and every release up to
the last one before `until` (or the newest), and not in the release before `since`
(unless `since` is the oldest recorded) nor at `until`. It records `path:line` at both
ends. Without --sources it downloads each release (`pip download --no-deps`, about 8 s per
vLLM wheel, 2 s per SGLang wheel), keeps only the files the probes name (in --cache, about
0.65 GB in all), and deletes the wheel. Adding a release: add it to PUBLISHED, run this
with --registries, review the diff.

--registries also writes what the extractors read whole from every release (registered
model classes, what `method: mtp` maps, EAGLE-3 target lists and classes, transformers
pins, the model types a config loads for), as runs of releases with the same value, to
drafter_lint/runtimes/registries.json, which those rows are made of; it then re-runs itself
to judge the probes against them. With --only KEY it rewrites only KEY's runs.

The model types a release loads a config for are its own config registry united with the
CONFIG_MAPPING_NAMES keys of every transformers release its pin admits on the index
today (`pip index versions transformers`; each release's models/auto files are kept in
--transformers, default --cache, as transformers-<version>/):

    python tools/oracle/release_evidence.py --sources /work/grammar-cache/files \
        --transformers /work/oracle/tf --registries --only config.model-types
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "tests" / "data" / "release-evidence.json"
REGISTRIES = ROOT / "drafter_lint" / "runtimes" / "registries.json"
sys.path.insert(0, str(HERE))

from release_probes import (EXTRACTORS, PROBES, Probe,  # noqa: E402
                            transformers_model_types)

from drafter_lint import runtimes  # noqa: E402


class Release:
    """One release's files: from an unzipped wheel (--sources) or the probe cache."""

    def __init__(self, runtime: str, version: str, root: Path):
        self.runtime, self.version, self.root = runtime, version, root
        self._names: list[str] | None = None
        self._text: dict[str, str] = {}
        self._extracted: dict[str, tuple] = {}
        self.transformers = None        # pin -> (model types, where read): Transformers
        self.notes: dict[str, dict] = {}   # extractor -> more of where it read, for its runs

    @property
    def spec(self) -> str:
        return f"{self.runtime}=={self.version}"

    def names(self, pattern: str) -> list[str]:
        if self._names is None:
            self._names = sorted(str(p.relative_to(self.root)).replace(os.sep, "/")
                                 for p in self.root.rglob("*") if p.is_file()
                                 and not p.name.startswith("."))
        matches = glob_regex(pattern).fullmatch
        return [n for n in self._names if matches(n)]

    def text(self, name: str) -> str:
        if name not in self._text:
            self._text[name] = (self.root / name).read_text(encoding="utf-8", errors="replace")
        return self._text[name]

    def extracted(self, name: str):
        """(value, "path:line") of an extractor, read once per release."""
        if name not in self._extracted:
            self._extracted[name] = EXTRACTORS[name](self)
        return self._extracted[name]

    def find(self, files: str, pattern: str) -> str | None:
        """`path:line` of the first match of `pattern` in the files matching `files`."""
        for name in self.names(files):
            text = self.text(name)
            found = re.search(pattern, text, re.M)
            if found:
                return f"{name}:{text.count(chr(10), 0, found.start()) + 1}"
        return None


@functools.lru_cache(maxsize=None)
def glob_regex(pattern: str) -> re.Pattern:
    """A glob as `glob.glob(recursive=True)` reads it: `**/` is any folders (or none),
    `*` and `?` stay inside one path segment."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def fetch(runtime: str, version: str, cache: Path, globs: set[str]) -> Path:
    """The cached files of `runtime==version` matching `globs` (downloaded when missing)."""
    folder = cache / f"{runtime}-{version}"
    kept = folder / ".globs"
    if kept.is_file() and globs <= set(kept.read_text().split("\n")):
        return folder
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        f"{runtime}=={version}", "-d", work], check=True)
        wheel = next(Path(work).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if any(glob_regex(g).fullmatch(name) for g in globs):
                    archive.extract(name, folder)
    kept.write_text("\n".join(sorted(globs)))
    return folder


def holds(probe: Probe, release: Release, fact) -> str | None:
    """`path:line` where the probe holds in `release`, or None."""
    if probe.extract:
        value, at = release.extracted(probe.extract)
        return at if value is not None and \
            runtimes.keys.decode(fact.key, value) == fact.value else None
    at = release.find(probe.files, probe.pattern)
    if at is None:
        return None
    if any(release.find(files, pattern) for files, pattern in probe.also_not):
        return None
    if not all(release.find(files, pattern) for files, pattern in probe.also):
        return None
    return at


def row_of(probe: Probe):
    rows = [f for f in runtimes.FACTS if (f.key, f.runtime, f.since, f.until, f.path) ==
            (probe.key, probe.runtime, probe.since, probe.until, probe.path)]
    if len(rows) != 1:
        raise SystemExit(f"probe {probe.key} ({probe.runtime}, {probe.since}..{probe.until})"
                         f" names {len(rows)} rows of the table")
    return rows[0]


def judge(probe: Probe, releases: list[Release]) -> tuple[dict | None, str]:
    """(record, complaint): the evidence when the probe holds exactly in the row's range."""
    fact = row_of(probe)
    versions = [r.version for r in releases]
    found = {r.version: holds(probe, r, fact) for r in releases}
    seen = [v for v in versions if found[v]]
    summary = f"holds in {seen[0]}..{seen[-1]}" if seen else "holds nowhere"
    gaps = [v for v in versions if seen and runtimes.version_key(seen[0]) <=
            runtimes.version_key(v) <= runtimes.version_key(seen[-1]) and not found[v]]
    if gaps:
        summary += f" except {', '.join(gaps)}"
    inside = [v for v in versions if runtimes.holds(fact, runtimes.Release(probe.runtime, v,
                                                                          runner=fact.path))]
    if probe.since not in versions or (probe.until and probe.until not in versions):
        return None, f"{summary}; since/until must be releases of {probe.runtime}"
    # a value read whole may come back (a post build pins another transformers, the next
    # one the earlier again): releases inside another row of the key with the same value
    twins = {v for other in runtimes.FACTS if other is not fact and
             (other.key, other.runtime, other.path) == (fact.key, fact.runtime, fact.path)
             and other.value == fact.value for v in versions
             if runtimes.holds(other, runtimes.Release(probe.runtime, v, runner=other.path))}
    wrong = [v for v in versions if bool(found[v]) != (v in inside) and v not in twins]
    if wrong:
        return None, summary
    before = versions[versions.index(probe.since) - 1] if versions[0] != probe.since else None
    last = inside[-1]
    record = {
        "key": probe.key, "runtime": probe.runtime, "since": probe.since,
        "until": probe.until, **({"path": probe.path} if probe.path else {}),
        "probe": ({"extract": probe.extract} if probe.extract else
                  {"files": probe.files, "pattern": probe.pattern,
                   **({"also": [list(p) for p in probe.also]} if probe.also else {}),
                   **({"also_not": [list(p) for p in probe.also_not]}
                      if probe.also_not else {})}),
        "lower": {"release": probe.since,
                  "at": f"{probe.runtime}=={probe.since} {found[probe.since]}",
                  "absent_in": f"{probe.runtime}=={before}" if before else None},
        "upper": {"release": last, "at": f"{probe.runtime}=={last} {found[last]}",
                  "absent_in": f"{probe.runtime}=={probe.until}" if probe.until else None},
    }
    return record, summary


TRANSFORMERS_FILES = {"transformers/models/auto/configuration_auto.py",
                      "transformers/models/auto/auto_mappings.py"}


class Transformers:
    """The model types of every transformers release a pin admits, read from each
    release's models/auto files (downloaded once into `cache`): the releases on the index
    today that the specifier admits (no pre-releases), their CONFIG_MAPPING_NAMES keys
    united."""

    def __init__(self, cache: Path):
        self.cache = cache
        self._index: list[str] | None = None

    def index(self) -> list[str]:
        if self._index is None:
            out = subprocess.run([sys.executable, "-m", "pip", "index", "versions",
                                  "transformers"], check=True, capture_output=True,
                                 text=True).stdout
            listed = re.search(r"^Available versions: (.*)$", out, re.M).group(1)
            self._index = sorted(listed.split(", "), key=runtimes.version_key)
        return self._index

    @functools.lru_cache(maxsize=None)
    def types(self, version: str):
        folder = fetch("transformers", version, self.cache, TRANSFORMERS_FILES)
        files = {name.removeprefix("transformers/"): (folder / name).read_text(encoding="utf-8")
                 for name in TRANSFORMERS_FILES if (folder / name).is_file()}
        return transformers_model_types(files)

    @functools.lru_cache(maxsize=None)
    def __call__(self, pin: str):
        from packaging.specifiers import SpecifierSet
        # a release pinned exactly installs even when yanked (left off the index's list)
        exact = [s.version for s in SpecifierSet(pin) if s.operator in ("==", "===")]
        candidates = sorted({*self.index(), *exact}, key=runtimes.version_key)
        admitted = list(SpecifierSet(pin).filter(candidates))
        if not admitted:
            raise SystemExit(f"no transformers release on the index admits {pin!r}")
        known = frozenset().union(*(self.types(v)[0] for v in admitted))
        _, at = self.types(admitted[-1])
        span = admitted[0] if len(admitted) == 1 else f"{admitted[0]}..{admitted[-1]}"
        count = f"{len(admitted)} release" + ("s" if len(admitted) > 1 else "")
        return known, f"transformers=={span} ({count}) transformers/{at}"


# extracted values written to drafter_lint/runtimes/registries.json: fact key -> runtime ->
# extractor
EXTRACTED_FACTS = {"registry.architectures": {"vllm": "vllm-registry",
                                              "sglang": "sglang-registry"},
                   "mtp.mapped-targets": {"vllm": "vllm-mtp-targets"},
                   "aux.target-model-types": {"vllm": "vllm-aux-targets"},
                   "transformers.pin": {"vllm": "transformers-pin", "sglang": "transformers-pin"},
                   "eagle3.target-architectures": {"vllm": "vllm-eagle3-classes"},
                   "runner.v2-policy": {"vllm": "vllm-runner-policy"},
                   "config.model-types": {"vllm": "config-model-types",
                                          "sglang": "config-model-types"}}


def _plain(value):
    """JSON for an extracted value: sets as sorted lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value)
    return value


def extracted_history(releases: dict[str, list[Release]], only=()) -> dict:
    """{key: {runtime: [run, ...]}}: each run of releases with the same extracted value
    (of the keys in `only`, when given). Class-name sets are stored as the change from the
    run before (`added`, `removed`); other values whole (`value`)."""
    out: dict = {}
    for key, extractors in EXTRACTED_FACTS.items():
        if only and key not in only:
            continue
        for runtime, extractor in extractors.items():
            runs, before = [], None
            for release in releases[runtime]:
                value, at = release.extracted(extractor)
                if value is None and runs and not runs[-1]["until"]:
                    runs[-1]["until"] = release.version      # the check is gone
                if value is None or (runs and value == before and not runs[-1]["until"]):
                    before = value
                    continue
                if runs and not runs[-1]["until"]:
                    runs[-1]["until"] = release.version
                run = {"since": release.version, "until": "", "at": f"{release.spec} {at}"}
                run.update(release.notes.get(extractor, {}))
                if isinstance(value, frozenset):
                    old = before if isinstance(before, frozenset) else frozenset()
                    run.update(added=sorted(value - old), removed=sorted(old - value))
                else:
                    run["value"] = _plain(value)
                runs.append(run)
                before = value
            out.setdefault(key, {})[runtime] = runs
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path,
                        default=Path(os.path.expanduser("~/.cache/drafter-lint/release-files")))
    parser.add_argument("--sources", type=Path,
                        help="unzipped wheels as DIR/<pkg>-<version>/ (no download)")
    parser.add_argument("--suggest", action="store_true",
                        help="print where each probe holds; write nothing")
    parser.add_argument("--registries", action="store_true",
                        help="also rewrite drafter_lint/runtimes/registries.json")
    parser.add_argument("--transformers", type=Path,
                        help="transformers releases' models/auto files as "
                             "DIR/transformers-<version>/ (downloaded when missing; "
                             "default: --cache)")
    parser.add_argument("--only", action="append", default=[], metavar="KEY",
                        help="probe only the rows of KEY (repeatable)")
    args = parser.parse_args()
    probes = [p for p in PROBES if not args.only or p.key in args.only]
    releases: dict[str, list[Release]] = {}
    needed = {"vllm", "sglang"} if args.registries else {p.runtime for p in probes}
    for runtime in sorted(needed):
        globs = {g for p in PROBES if p.runtime == runtime for g in p.globs()}
        releases[runtime] = [
            Release(runtime, v, args.sources / f"{runtime}-{v}" if args.sources
                    else fetch(runtime, v, args.cache, globs))
            for v in runtimes.PUBLISHED[runtime]]
    transformers = Transformers(args.transformers or args.cache)
    for release in (r for found in releases.values() for r in found):
        release.transformers = transformers
    if args.registries:
        history = extracted_history(releases, args.only)
        # with --only, the other keys stay as they were read
        kept = {k: v for k, v in json.loads(REGISTRIES.read_text(encoding="utf-8")).items()
                if k != "made_by"} if args.only else {}
        text = json.dumps({"made_by": "tools/oracle/release_evidence.py --registries",
                           **{k: history.get(k, v) for k, v in kept.items()},
                           **{k: v for k, v in history.items() if k not in kept}},
                          indent=0) + "\n"
        print(f"{REGISTRIES.relative_to(ROOT)}: " + ", ".join(
            f"{key} {rt}: {len(runs)} runs" for key, by in history.items()
            for rt, runs in by.items()))
        if text != REGISTRIES.read_text(encoding="utf-8"):
            REGISTRIES.write_text(text, encoding="utf-8")
            # the rows made of it changed: judge the probes in a process that reads them
            os.execv(sys.executable, [sys.executable, __file__,
                                      *(a for a in sys.argv[1:] if a != "--registries")])
    records, failed = [], 0
    for probe in probes:
        record, summary = judge(probe, releases[probe.runtime])
        label = f"{probe.key} ({probe.runtime}, {probe.since or '-'}..{probe.until or ''})"
        if record is None:
            failed += 1
            print(f"{label}: {summary}; the row says otherwise", file=sys.stderr)
            continue
        records.append(record)
        if args.suggest:
            print(f"{label}: {summary}")
    if args.suggest:
        return 1 if failed else 0
    if failed:
        print(f"{failed} probe(s) disagree with their rows: fix the probe or the range",
              file=sys.stderr)
        return 1
    if args.only:
        keep = [r for r in json.loads(OUT.read_text())["records"] if r["key"] not in args.only]
        records = keep + records
    order = {(p.key, p.runtime, p.since, p.until, p.path): i for i, p in enumerate(PROBES)}
    records.sort(key=lambda r: order.get((r["key"], r["runtime"], r["since"], r["until"],
                                          r.get("path", "")), len(order)))
    OUT.write_text(json.dumps({"made_by": "tools/oracle/release_evidence.py",
                               "records": records}, indent=1) + "\n")
    print(f"{len(records)} rows: evidence at both ends written to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
