"""Lint a whole collection of hub repos before download (drafter_lint/collection.py),
against the local fake hub: a listing route with pagination, many repos with multi-GB
sparse weights, and repos that are gated, missing, failing or stalled."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from sparse import FIXTURES, load_manifest, materialize, write_safetensors

ORG, TARGET, COUNT = "zoo", "Qwen/Qwen3.6-27B", 12
GATED, FAILING, STALLED = f"{ORG}/gated-drafter", f"{ORG}/failing-drafter", \
    f"{ORG}/stalled-drafter"


def make_collection(root: Path, count: int = COUNT, org: str = ORG,
                    names: list[str] | None = None) -> list[str]:
    """fixtures/hub (the target) plus `count` copies of the published Qwen3.6-27B-DFlash
    layout (or one per name of `names`), each with its own sparse 3.4 GB weights file
    (written as a header and a hole: never copied, which would fill the disk) and the
    published card."""
    if not (root / "Qwen").exists():
        shutil.copytree(FIXTURES / "hub", root, dirs_exist_ok=True)
    source = root / "z-lab" / "Qwen3.6-27B-DFlash" / "main"
    tensors = load_manifest("qwen3.6-27b-dflash")["drafter"]["files"]["model.safetensors"][
        "tensors"]
    names = names or [f"{org}/drafter-{i:03d}" for i in range(count)]
    for i, repo in enumerate(names):
        folder = root / repo / "main"
        folder.mkdir(parents=True)
        for name in ("config.json", "README.md"):
            shutil.copyfile(source / name, folder / name)
        write_safetensors(folder / "model.safetensors", tensors, {"format": "pt", "i": str(i)})
    return names


@pytest.fixture
def collection_hub(tmp_path, monkeypatch):
    from fakehub import FakeHub

    root = tmp_path / "hub"
    repos = make_collection(root)
    make_collection(root, names=[GATED, FAILING, STALLED])   # listed, but cannot be read
    with FakeHub(root) as server:
        server.page_size = 5                       # 15 repos: three pages
        server.behaviour.update({GATED: "gated", FAILING: "error", STALLED: "stall"})
        server.stall_seconds = 8
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "1")
        monkeypatch.setenv("HF_HUB_DOWNLOAD_TIMEOUT", "1")
        monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        server.drafters = repos
        yield server


def _patient(monkeypatch) -> None:
    """The fixture's 1 s hub timeouts are for its stalled repo; a test that removes it and
    counts every repo as read waits as long as a user would, so a loaded machine does not
    turn a slow answer into a repo "not read" (it did, in CI beside other jobs)."""
    monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "10")
    monkeypatch.setenv("HF_HUB_DOWNLOAD_TIMEOUT", "10")


def drop_mask(hub, repo: str) -> str:
    """Serve `repo` with its config's mask id removed (vLLM refuses it, SGLang warns)."""
    files = hub.repos[repo]["commits"][hub.commit(repo)]
    config = json.loads(files["config.json"])
    del config["dflash_config"]["mask_token_id"]
    files["config.json"] = json.dumps(config, indent=2).encode()
    return repo


def results(run) -> dict[str, dict]:
    return {r["path"].split("@")[0]: r for r in run.json()["results"]}


def test_an_organization_is_linted_repo_by_repo_pinned_and_reported(cli, collection_hub):
    """Every listed repo (three pages) has one result, pinned to the commit it resolved;
    the readable ones are linted against the card's target, read once; each unreadable one
    is a one-line result; the run is not held up by the stalled repo beyond its timeout.
    Mutations caught: the listing's first page only, an abort on the first bad repo, a
    target fetched per drafter, results out of order."""
    hub = collection_hub
    started = time.monotonic()
    run = cli("check", "--hub-author", ORG, "--format", "json", "--ignore", "TF",
              "--jobs", "4")
    elapsed = time.monotonic() - started
    assert run.code == 2, run.err                      # the worst result: unreadable repos
    got = results(run)
    assert sorted(got) == sorted(hub.drafters + [GATED, FAILING, STALLED])
    assert [r["path"].split("@")[0] for r in run.json()["results"]] == sorted(got)
    listing = [p for m, p in hub.requests if p == "/api/models"]
    assert len(listing) == 3
    for repo in hub.drafters:
        r = got[repo]
        assert r["commit"] == hub.commit(repo) and r["path"] == f"{repo}@{r['commit']}"
        assert r["family"] == "dflash" and r["target"] and TARGET in r["target"]
        assert r["verdicts"] == {"vLLM 0.34.0": "ok", "SGLang 0.5.23": "ok"}, r
        assert not [f for f in r["findings"] if f["severity"] != "info"], r["findings"]
    for repo, needle in ((GATED, "gated"), (FAILING, "500"), (STALLED, "")):
        assert "\n" not in got[repo]["error"] and needle.lower() in got[repo]["error"].lower()
        assert got[repo]["findings"] == []
    target_reads = [p for m, p in hub.requests if p.startswith(f"/{TARGET}/resolve/")
                    and p.endswith("config.json") and m == "GET"]
    assert len(target_reads) == 1, target_reads        # shared by 12 drafters, read once
    assert elapsed < hub.stall_seconds, elapsed        # the stall cost its 1 s timeout
    assert run.err.count("error:") == 3 and "Traceback" not in run.err


def test_a_repo_costs_three_requests_cold_and_a_second_run_only_the_listing(cli,
                                                                          collection_hub):
    """The listing gives each repo's commit and file names, so a repo costs one GET per
    small file it has (config.json, README.md) and one ranged GET of its weights header;
    a warm run is the listing alone, everything else cached by commit. Mutations caught:
    a revision resolved or a file list asked per repo, a HEAD before each GET, a warm run
    fetching anything again."""
    hub = collection_hub
    hub.behaviour.clear()
    for bad in (GATED, FAILING, STALLED):
        hub.repos.pop(bad)
    first = cli("check", "--hub-author", ORG, "--format", "json", "--ignore", "TF")
    assert first.code == 0, first.err
    for repo in hub.drafters:
        mine = [(m, p) for m, p in hub.requests if p.startswith(f"/{repo}/")
                or p.startswith(f"/api/models/{repo}")]
        assert sorted(p.rsplit("/", 1)[1] for m, p in mine) == \
            ["README.md", "config.json", "model.safetensors"], mine
        assert {m for m, _ in mine} == {"GET"}
    before = len(hub.requests)
    sent = hub.bytes_out
    second = cli("check", "--hub-author", ORG, "--format", "json", "--ignore", "TF")
    assert second.code == 0 and second.json()["results"] == first.json()["results"]
    assert hub.requests[before:] == [("GET", "/api/models")] * 3          # the pages
    assert hub.bytes_out - sent < 10_000


def test_rate_limits_are_waited_out_then_one_line(cli, collection_hub, monkeypatch):
    """429 with Retry-After is retried after the wait the hub asks for; a repo still
    refused past the bounded retries is a one-line result, the others are linted.
    Mutations caught: a 429 taken as a failure at once, retries without a bound."""
    from drafter_lint import hub as hubs

    hub = collection_hub
    hub.behaviour.clear()
    for bad in (FAILING, STALLED):
        hub.repos.pop(bad)
    slow, refused = hub.drafters[0], GATED
    hub.behaviour.update({slow: "429x2", refused: "429-always"})
    monkeypatch.setattr(hubs, "MAX_RETRIES", 2)
    started = time.monotonic()
    run = cli("check", "--hub-author", ORG, "--format", "json", "--ignore", "TF")
    got = results(run)
    assert got[slow].get("error") is None and got[slow]["family"] == "dflash"
    assert "429" in got[refused]["error"] and "\n" not in got[refused]["error"]
    assert all(got[r].get("error") is None for r in hub.drafters)
    assert hub.limited >= 5 and time.monotonic() - started < 30


def test_many_repo_arguments_are_a_collection_with_a_summary_table(cli, collection_hub):
    """Repos named on the command line, one missing: the table lists each, with its
    verdict per runtime, and the missing one says why. `--runtime` applies to all."""
    hub = collection_hub
    named = hub.drafters[:3] + ["nobody/no-such-drafter"]
    run = cli("check", *named, "--ignore", "TF", "--runtime", "vllm", "--color", "never")
    assert run.code == 2
    table = run.out[run.out.index("repo  "):].splitlines()
    assert table[0].split() == ["repo", "commit", "family", "vLLM", "0.34.0", "errors",
                                "warnings"]
    rows = {line.split()[0]: line for line in table[1:-1]}
    for repo in hub.drafters[:3]:
        assert hub.commit(repo)[:12] in rows[repo] and " ok " in rows[repo]
    assert "not found" in rows["nobody/no-such-drafter"].lower() or \
        "no-such-drafter" in rows["nobody/no-such-drafter"]
    assert table[-1] == "4 repos: 3 linted, 1 not read."


def test_json_and_sarif_carry_one_result_per_repo(cli, collection_hub, tmp_path):
    import jsonschema

    hub = collection_hub
    hub.behaviour.pop(STALLED)
    run = cli("check", "--hub-author", ORG, "--hub-search", "drafter-00", "--format", "json",
              "--ignore", "TF")
    schema = json.loads((Path(__file__).parent.parent / "schemas" /
                         "report.schema.json").read_text())
    jsonschema.validate(run.json(), schema)
    assert sorted(results(run)) == [r for r in hub.drafters if "drafter-00" in r]
    sarif = cli("check", *hub.drafters[:2], GATED, "--format", "sarif", "--ignore", "TF")
    from test_formats_config import sarif_schema

    jsonschema.Draft4Validator(sarif_schema()).validate(sarif.json())   # OASIS 2.1.0
    artifacts = sarif.json()["runs"][0]["artifacts"]       # one per repo, clean ones too
    assert [a["location"]["uri"].split("@")[0] for a in artifacts] == \
        sorted(hub.drafters[:2] + [GATED])
    assert all("verdicts" in a["properties"] or "error" in a["properties"] for a in artifacts)
    notes = sarif.json()["runs"][0]["invocations"][0]
    assert notes["executionSuccessful"] is False
    assert [n["message"]["text"].split(":")[0] for n in notes["toolExecutionNotifications"]] \
        == [GATED]


def test_a_refused_listing_is_one_line_exit_2(cli, collection_hub):
    collection_hub.behaviour["api/models"] = "gated"      # the listing route answers 401
    run = cli("check", "--hub-author", ORG)
    assert run.code == 2 and run.err.count("\n") == 1, run.err
    assert "cannot list the hub's models for author 'zoo'" in run.err


def test_check_needs_something_to_lint(cli):
    run = cli("check")
    assert run.code == 2 and "--hub-author" in run.err


def test_a_verdict_per_runtime_release(cli, collection_hub):
    """A drafter whose config lost its mask id: vLLM refuses to start without it, SGLang
    falls back to `<|MASK|>` (a warning). The verdicts say so per runtime, and
    `--runtime sglang` judges every repo for SGLang alone. Mutation caught: verdicts
    taken from the combined findings (both runtimes "1 error")."""
    hub = collection_hub
    broken = drop_mask(hub, hub.drafters[0])
    run = cli("check", broken, hub.drafters[1], "--format", "json", "--ignore", "TF")
    got = results(run)
    assert got[broken]["verdicts"] == {"vLLM 0.34.0": "1 error", "SGLang 0.5.23": "ok"}, \
        got[broken]
    assert got[hub.drafters[1]]["verdicts"] == {"vLLM 0.34.0": "ok", "SGLang 0.5.23": "ok"}
    assert run.code == 1
    alone = results(cli("check", broken, hub.drafters[1], "--format", "json", "--ignore",
                        "TF", "--runtime", "sglang"))
    assert alone[broken]["verdicts"] == {"SGLang 0.5.23": "ok"}


# --- one repo never ends the run; offline; baselines; Ctrl-C (issue 32) -----------------------

def test_an_unreadable_repo_is_its_own_result_never_the_runs_end(cli, collection_hub, tmp_path):
    """A 10,000-deep config.json is that repo's DL001 and a 50 MB one is refused from the
    listing's size before any download; the other repos are linted; nothing of
    huggingface_hub's own logging reaches stderr. Mutations caught: RecursionError ending
    the whole run as an internal error, the 50 MB file downloaded before the 4 MiB limit
    refused it, the hub's retry lines leaking."""
    hub = collection_hub
    for bad in (GATED, STALLED):
        hub.repos.pop(bad)
    deep, big = hub.drafters[0], hub.drafters[1]
    files = hub.repos[deep]["commits"][hub.commit(deep)]
    files["config.json"] = b"[" * 10_000 + b"]" * 10_000
    big_file = tmp_path / "big-config.json"
    with open(big_file, "wb") as handle:                 # sparse: a hole, then valid JSON
        handle.truncate(50 << 20)
    hub.repos[big]["commits"][hub.commit(big)]["config.json"] = big_file
    sent = hub.bytes_out
    run = cli("check", "--hub-author", ORG, "--format", "json", "--ignore", "TF")
    got = results(run)
    assert "internal error" not in run.err and "Traceback" not in run.err, run.err
    assert [f["rule"] for f in got[deep]["findings"]] == ["DL001"], got[deep]
    assert "50.0 MiB, over the 4 MiB" in got[big]["error"], got[big]
    assert all(got[r]["verdicts"] for r in hub.drafters[2:]), run.err
    assert hub.bytes_out - sent < (4 << 20)
    assert all(line.startswith("drafter-lint") for line in run.err.splitlines()), run.err


def test_offline_a_listing_is_refused_at_once(cli, collection_hub):
    """Mutation caught: --offline ignored for the listing (23 s of retries on a down hub)."""
    hub = collection_hub
    before = len(hub.requests)
    started = time.monotonic()
    run = cli("check", "--hub-author", ORG, "--offline")
    assert run.code == 2 and "offline mode is on" in run.err and run.err.count("\n") == 1
    assert len(hub.requests) == before and time.monotonic() - started < 5


def test_an_organization_with_no_repos_lints_nothing_and_says_so(cli, collection_hub):
    """Mutation caught: "All checks passed (0 checkpoints)" and exit 0 for a typo'd org."""
    run = cli("check", "--hub-author", "nobody-at-all")
    assert run.code == 2 and "nothing to lint" in run.err and "passed" not in run.out


def test_a_collection_baseline_is_written_keyed_by_repo_and_travels(cli, collection_hub,
                                                                      tmp_path, monkeypatch):
    """--write-baseline records a collection's findings keyed `hf://org/name/FILE` (no cache
    path, no commit), so another machine's run is suppressed by it. Mutations caught: 0
    entries written for a collection, keys on the local cache path."""
    hub = collection_hub
    broken = drop_mask(hub, hub.drafters[0])
    baseline = tmp_path / "baseline.json"
    wrote = cli("check", broken, hub.drafters[1], "--ignore", "TF",
                "--write-baseline", baseline)
    assert wrote.code == 0, wrote.err
    entries = json.loads(baseline.read_text())["entries"]
    assert entries and all(e["path"].startswith(f"hf://{ORG}/") for e in entries), entries
    assert {"rule": "DF101", "path": f"hf://{broken}/config.json",
            "pointer": "/dflash_config/mask_token_id"} in entries or \
        any(e["path"] == f"hf://{broken}/config.json" for e in entries)
    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / "another-machine"))
    again = cli("check", broken, hub.drafters[1], "--ignore", "TF", "--format", "json",
                "--baseline", baseline)
    assert again.code == 0, again.err
    assert all(r["findings"] == [] for r in again.json()["results"]), again.out


def test_fail_on_applies_to_a_collection(cli, collection_hub):
    """SGLang serves a drafter without a mask id with a warning: exit 0 by default, 1 with
    --fail-on warning; the summary counts only the repos that were read. Mutation caught:
    the collection's exit code ignoring --fail-on (review M15), repos not read counted."""
    hub = collection_hub
    broken = drop_mask(hub, hub.drafters[0])
    named = [broken, hub.drafters[1], "nobody/no-such-drafter"]
    plain = cli("check", *named[:2], "--ignore", "TF", "--runtime", "sglang")
    strict = cli("check", *named[:2], "--ignore", "TF", "--runtime", "sglang",
                 "--fail-on", "warning")
    assert (plain.code, strict.code) == (0, 1), (plain.out, strict.out)
    counted = cli("check", *named, "--ignore", "TF", "--runtime", "sglang", "--color",
                  "never")
    assert "in 2 checkpoints." in counted.out, counted.out


def test_ctrl_c_ends_a_collection_at_once(collection_hub, tmp_path):
    """SIGINT while repos stall: queued repos are dropped and the run exits 130 within a
    second or two, not after every queued fetch (237 s measured), leaving no partial
    folder. Mutation caught: the pool drained on interrupt, or its threads joined at
    exit."""
    import os
    import signal
    import subprocess
    import sys

    hub = collection_hub
    hub.stall_seconds = 30
    hub.behaviour.update({r: "stall" for r in hub.drafters})
    exe = os.path.join(os.path.dirname(sys.executable), "drafter-lint")
    env = dict(os.environ, HF_HUB_ETAG_TIMEOUT="30", HF_HUB_DOWNLOAD_TIMEOUT="30")
    # a suite started in the background (`cmd &`) inherits SIGINT ignored, and Python then
    # installs no Ctrl-C handler: give the child the default a terminal has
    process = subprocess.Popen([exe, "check", "--hub-author", ORG, "--jobs", "2"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any("/resolve/" in p for _, p in hub.requests):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    try:
        _, err = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 130 and "interrupted" in err, err
    assert time.monotonic() - started < 5
    # U5-17: the fetches in flight built `.partial` folders; none is left behind.
    # Mutation caught: no removal at exit (the daemon workers never reach their finally)
    cache = Path(os.environ["DRAFTER_LINT_CACHE_DIR"])
    assert list(cache.rglob(".*.partial")) == []


def test_ranges_give_each_repo_the_releases_that_serve_it(cli, collection_hub):
    """`--ranges`: per repo and runtime, the releases with no error, as `releases` computes
    them, in JSON and as table columns. Mutations caught: ranges computed once for the
    collection, or for the newest release only."""
    hub = collection_hub
    hub.behaviour.clear()
    for bad in (GATED, FAILING, STALLED):
        hub.repos.pop(bad)
    broken = drop_mask(hub, hub.drafters[0])
    run = cli("check", broken, hub.drafters[1], "--ranges", "--format", "json",
              "--ignore", "TF")
    got = results(run)
    good = got[hub.drafters[1]]["ranges"]
    assert set(good) == {"vllm", "sglang"}
    assert good["vllm"]["ranges"] and good["vllm"]["ranges"][-1]["to"] == "0.34.0"
    assert got[broken]["ranges"]["vllm"]["ranges"] != good["vllm"]["ranges"]
    text = cli("check", broken, hub.drafters[1], "--ranges", "--ignore", "TF")
    assert "vLLM releases" in text.out and "SGLang releases" in text.out
    assert f"{good['sglang']['ranges'][0]['from']}-" in text.out


# --- the hub's limits and caps (issue 42) ----------------------------------------------------

def test_a_target_the_hub_will_not_give_marks_each_repo_not_fully_linted(cli, collection_hub,
                                                                          monkeypatch):
    """U5-8: the card's target is rate limited past the retries. Each repo says in its
    own result that it was linted without its target (verdicts, the summary line, one
    error line each) and the run exits 2 (design.md: the hub could not be read), never
    "12 linted" and 0. Mutation caught: the target silently dropped for the run."""
    from drafter_lint import hub as hubs

    hub = collection_hub
    hub.behaviour.clear()
    for bad in (GATED, FAILING, STALLED):
        hub.repos.pop(bad)
    _patient(monkeypatch)
    hub.behaviour[TARGET], hub.retry_after = "429-always", "0"
    monkeypatch.setattr(hubs, "MAX_RETRIES", 1)
    run = cli("check", "--hub-author", ORG, "--ignore", "TF", "--color", "never")
    assert run.code == 2, run.err
    assert f"{COUNT} repos: 0 linted, {COUNT} without their target, 0 not read." in run.out
    lines = run.out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("repo "))
    rows = lines[head + 1:head + 1 + COUNT]
    assert len(rows) == COUNT and all("ok (no target)" in row for row in rows), rows
    errors = [line for line in run.err.splitlines() if "error:" in line]
    assert len(errors) == COUNT, run.err
    assert all("target not read" in e and "rate limited (HTTP 429)" in e for e in errors)


def test_a_listed_repo_with_an_over_cap_tokenizer_or_card_is_linted_without_it(
        cli, collection_hub, tmp_path):
    """U5-13: through the listing, an 80 MiB tokenizer.json or a 5 MiB model card is skipped
    with a note and the rest linted, as for a repo named alone. Mutation caught: the
    optional file's FileTooBig making the whole repo "not read"."""
    hub = collection_hub
    hub.behaviour.clear()
    for bad in (GATED, FAILING, STALLED):
        hub.repos.pop(bad)
    for repo, name, size in ((hub.drafters[0], "tokenizer.json", 80 << 20),
                             (hub.drafters[1], "README.md", 5 << 20)):
        big = tmp_path / f"big-{name}"
        with open(big, "wb") as handle:                     # sparse: never held in memory
            handle.truncate(size)
        hub.repos[repo]["commits"][hub.commit(repo)][name] = big
    run = cli("check", "--hub-author", ORG, "--format", "json", "--ignore", "TF")
    got = results(run)
    assert run.code == 0, run.err
    assert all(got[r].get("error") is None and got[r]["family"] == "dflash"
               for r in hub.drafters)
    assert "tokenizer.json is 80.0 MiB, over the 64 MiB" in run.err
    assert "README.md is 5.0 MiB, over the 4 MiB" in run.err
    assert run.err.count("linted without it") == 2, run.err


def test_a_listing_against_an_unreachable_hub_is_one_line_at_once(cli):
    """U4-23: `check --hub-author X` with the hub refusing connections took 23.6 s (the
    listing's own retries) before its one line. Mutation caught: the listing through
    HfApi.list_models, whose pagination retries a refused connection for about 25 s."""
    started = time.monotonic()
    run = cli("check", "--hub-author", "one")          # conftest: HF_ENDPOINT refuses
    assert run.code == 2 and "cannot list the hub's models" in run.err, run.err
    assert time.monotonic() - started < 5


def test_a_repo_named_and_also_listed_is_linted_once(cli, collection_hub):
    """A repo named on the command line that the hub's listing (`--hub-author`,
    `--hub-search`) also returns is one repo of the collection: one result, one row, one
    count in the summary. Mutation caught (round 2026-12-05d, M02): `lint_repos` without
    its de-duplication, so the named repo was fetched and reported twice."""
    hub = collection_hub
    listed = sorted(r for r in hub.drafters if "drafter-00" in r)
    run = cli("check", hub.drafters[0], "--hub-author", ORG, "--hub-search", "drafter-00",
              "--format", "json", "--ignore", "TF")
    paths = [r["path"].split("@")[0] for r in run.json()["results"]]
    assert sorted(paths) == listed, paths


def test_a_baselined_error_is_not_counted_in_a_repos_verdicts(cli, collection_hub, tmp_path):
    """A repo's verdicts judge what the run reports: an error its baseline records is left
    out of the findings and out of each release's count alike. Two fields written as
    strings draw two DL008 errors; the baseline records one. Mutation caught (round
    2026-12-05e, M02): the verdicts' own lint ran without the folder's settings
    (`settings=False`), so the baselined error came back and each release said "2 errors"
    beside the one finding listed."""
    hub = collection_hub
    repo = hub.drafters[0]
    files = hub.repos[repo]["commits"][hub.commit(repo)]
    config = json.loads(files["config.json"])
    config["rms_norm_eps"], config["attention_dropout"] = "1e-06", "0.0"
    files["config.json"] = json.dumps(config, indent=2).encode()
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"version": 1, "tool": "drafter-lint", "entries": [
        {"rule": "DL008", "path": f"hf://{repo}/config.json", "pointer": "/rms_norm_eps"}]}))
    run = cli("check", repo, hub.drafters[1], "--select", "DL008", "--format", "json",
              "--baseline", baseline)
    got = results(run)[repo]
    assert [(f["rule"], f["pointer"]) for f in got["findings"]] == \
        [("DL008", "/attention_dropout")], got["findings"]
    assert got["verdicts"] == {"vLLM 0.34.0": "1 error", "SGLang 0.5.23": "1 error"}, got


def test_a_release_that_does_not_serve_the_drafter_is_not_served_in_the_verdicts(
        cli, collection_hub, tmp_path):
    """A repo of a family a checked release does not serve says so in its verdicts: a
    Medusa head beside a DFlash drafter, neither vLLM 0.34.0 (Medusa dropped in 0.33.0)
    nor SGLang 0.5.23 serves it, so both columns say "not served" (its MED103 error is
    listed as a finding), while the DFlash drafter's columns count its errors. Mutation
    caught (round 2026-12-05f, M02): every release counted as serving (`runtimes.serves`
    not asked), so the Medusa repo's columns said "1 error", as if a fix would make it
    start there."""
    from fakehub import load_repos

    hub = collection_hub
    made, _ = materialize(load_manifest("medusa-vicuna-7b"), tmp_path / "made")
    shutil.copytree(made, tmp_path / "extra" / ORG / "medusa-vicuna-7b" / "main")
    hub.repos.update(load_repos(tmp_path / "extra"))
    medusa = f"{ORG}/medusa-vicuna-7b"
    run = cli("check", medusa, hub.drafters[0], "--format", "json")
    got = results(run)
    assert "MED103" in {f["rule"] for f in got[medusa]["findings"]}, got[medusa]
    assert got[medusa]["verdicts"] == {"vLLM 0.34.0": "not served",
                                       "SGLang 0.5.23": "not served"}, got[medusa]
    assert "not served" not in got[hub.drafters[0]]["verdicts"].values()


@pytest.mark.parametrize("value", ["true", "On"])
def test_hf_hub_offline_is_read_as_huggingface_hub_reads_it(cli, value):
    """HF_HUB_OFFLINE turns offline mode on for any spelling huggingface_hub takes as true
    (`1`, `ON`, `YES`, `TRUE`, in any case): a listing is then refused at once, in one
    line, as with --offline. Mutation caught (round 2026-12-05f, M16): the value compared
    without `.upper()`, so `HF_HUB_OFFLINE=true` was not offline to drafter-lint: the
    listing was asked of the hub (here a closed port: a connection error, not the offline
    refusal)."""
    run = cli("check", "--hub-author", ORG, env={"HF_HUB_OFFLINE": value})
    assert run.code == 2 and run.err.count("\n") == 1, run.err
    assert "offline mode is on (--offline or HF_HUB_OFFLINE)" in run.err, run.err


def test_a_target_the_hub_lacks_is_crd104s_and_not_an_unread_target(cli, collection_hub,
                                                                    monkeypatch):
    """The card's target is not on the hub at all (a 404, not an outage): that is CRD104's
    finding on each card, and the repos are linted as usual, not marked "without their
    target" with exit 2 as for a rate-limited target. Mutation caught (round 2026-12-06g,
    M03): `or options.card_base_missing` dropped from `_mark_unread_target`'s early return
    (collection.py), which marked every repo "ok (no target)" and the run 2."""
    hub = collection_hub
    hub.behaviour.clear()
    for bad in (GATED, FAILING, STALLED):
        hub.repos.pop(bad)
    hub.repos.pop(TARGET)
    _patient(monkeypatch)
    run = cli("check", "--hub-author", ORG, "--ignore", "TF", "--color", "never")
    assert run.code != 2, run.err
    assert f"{COUNT} repos: {COUNT} linted, 0 not read." in run.out
    assert "(no target)" not in run.out and "target not read" not in run.err
    assert run.out.count("CRD104") >= COUNT, run.out
