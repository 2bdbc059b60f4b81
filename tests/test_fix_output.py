"""`fix` writes only the checkpoint or --output: never drafter-lint's own cache, never a
file behind a link that leaves the checkpoint (issue 42: U5-1, U5-10, U5-15, U5-24)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from sparse import FIXTURES

from drafter_lint.cache import cache_dir

TINY = FIXTURES / "tiny-qwen3.6"


def tree(folder: Path) -> dict:
    """{relative path: sha256 of its bytes, or '-> target' for a link} of every file."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _tree_hub(root: Path):
    """tests/fakehub.py's hub with the file listing snapshot_download asks for
    (`GET /api/models/<org>/<name>/tree/<commit>`), oids as its resolve route's ETags."""
    from fakehub import FakeHub

    class TreeHub(FakeHub):
        def _serve(self, handler, body):
            parts = handler.path.split("?", 1)[0].strip("/").split("/")
            if parts[:2] != ["api", "models"] or len(parts) < 6 or parts[4] != "tree":
                return super()._serve(handler, body)
            repo = self.repos["/".join(parts[2:4])]
            commit = repo["branches"].get(parts[5], parts[5])
            listing = []
            for name, data in sorted(repo["commits"][commit].items()):
                size = self._size(data)
                oid = hashlib.sha1(f"{commit}/{name}/{size}".encode()).hexdigest()
                listing.append({"type": "file", "path": name, "size": size, "oid": oid})
            self._send(handler, 200, json.dumps(listing).encode(),
                       {"Content-Type": "application/json"}, body)

    return TreeHub(root)


@pytest.fixture
def guessed_hub(tmp_path, monkeypatch):
    """A fake hub serving `one/guessed`: the guessed tiny drafter (4 errors)."""
    shutil.copytree(TINY / "drafter-guessed", tmp_path / "hub" / "one" / "guessed" / "main")
    with _tree_hub(tmp_path / "hub") as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "2")
        yield server


FIX = ("--reference", TINY / "drafter", "--target", TINY / "target")


def test_fix_of_a_hub_id_never_rewrites_the_tool_cache(cli, guessed_hub):
    """U5-1 (x44, x46): `fix org/name` rewrote drafter-lint's commit-keyed copy of the repo
    in <cache>/remote/, so later checks passed what the hub still serves broken. Mutation
    caught: any write into <cache>/remote/ by fix, by its id or by the folder's path."""
    first = cli("check", "one/guessed", "--target", TINY / "target")
    assert first.code == 1 and "DF114" in first.out
    remote = cache_dir() / "remote"
    before = tree(remote)
    run = cli("fix", "one/guessed", *FIX)
    assert run.code == 2 and run.err.count("\n") == 1, run.out + run.err
    assert "hf download one/guessed --local-dir DIR" in run.err and "--output" in run.err
    folder = next(p for p in (remote / "one--guessed").iterdir() if p.name != "refs")
    by_path = cli("fix", folder, *FIX)
    assert by_path.code == 2 and "drafter-lint's own cache" in by_path.err, by_path.err
    assert tree(remote) == before
    again = cli("check", "one/guessed", "--target", TINY / "target")
    assert again.code == 1 and "DF114" in again.out


def test_fix_of_a_hub_id_into_output_copies_the_real_files(cli, guessed_hub, tmp_path):
    """U5-1 (x49): --output from a hub id got the cache's header-only model.safetensors
    (5,408 of 31,552 bytes) and .drafter-lint-remote.json. Mutation caught: copying from
    drafter-lint's cache instead of a real download."""
    out = tmp_path / "fixed"
    run = cli("fix", "one/guessed", *FIX, "--output", out)
    assert run.code == 0, run.out + run.err
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    assert (out / "model.safetensors").read_bytes() == \
        (TINY / "drafter-guessed" / "model.safetensors").read_bytes()
    assert json.loads((out / "config.json").read_text()) == \
        json.loads((TINY / "drafter" / "config.json").read_text())
    check = cli("check", out, "--target", TINY / "target")
    assert "DL004" not in check.out, check.out


def test_fix_output_does_not_follow_a_link_that_leaves_the_checkpoint(cli, tmp_path):
    """U5-10 (x67): tokenizer_config.json -> a secret token file outside; `check` says it
    is not opened, `fix --output` copied the secret into DIR. Mutation caught: following
    any link that leaves the folder (also a weights link, x62/x66)."""
    secret = tmp_path / "secret-token"
    secret.write_text("hf_THIS_IS_A_SECRET_TOKEN_0123456789\n")
    source = tmp_path / "o8"
    shutil.copytree(TINY / "drafter-guessed", source)
    (source / "tokenizer_config.json").symlink_to(secret)
    out = tmp_path / "o8-out"
    run = cli("fix", source, *FIX, "--output", out)
    assert run.code == 0, run.out + run.err
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    assert not any(b"SECRET" in p.read_bytes() for p in out.rglob("*") if p.is_file())
    notes = [line for line in run.out.splitlines() if line.startswith("not copied")]
    assert notes == ["not copied tokenizer_config.json: a link that leaves the checkpoint "
                     "folder; not opened (as `check` reports it)"], run.out


def _snapshot_with_links(root: Path) -> Path:
    """A huggingface_hub cache repo whose snapshot files (one in a sub-folder) link to
    its blobs/, as hf download leaves them."""
    repo = root / "hub" / "models--one--guessed"
    snap = repo / "snapshots" / ("c" * 40)
    (snap / "original").mkdir(parents=True)
    (repo / "blobs").mkdir()
    files = {"config.json": TINY / "drafter-guessed" / "config.json",
             "model.safetensors": TINY / "drafter-guessed" / "model.safetensors",
             "original/notes.txt": None}
    for rel, src in files.items():
        data = src.read_bytes() if src else b"the trained run's notes\n"
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snap / rel).symlink_to(os.path.relpath(blob, (snap / rel).parent))
    return snap


def test_fix_output_copies_sub_folders_and_a_snapshots_own_blobs(cli, tmp_path):
    """U5-15 (x61, x64, x65): any sub-folder failed --output with "Is a directory".
    Sub-folders are copied (from a hub snapshot too, whose links into its own blobs/ are
    its files); hf download --local-dir's .cache/huggingface/ is left out with a note.
    Mutation caught: a sub-folder copied as a file, a snapshot's blob links refused as
    leaving the folder, or the download records travelling with the fixed copy."""
    snap = _snapshot_with_links(tmp_path)
    out = tmp_path / "from-snapshot"
    run = cli("fix", snap, *FIX, "--output", out)
    assert run.code == 0, run.out + run.err
    assert (out / "original" / "notes.txt").read_text() == "the trained run's notes\n"
    assert not any(p.is_symlink() for p in out.rglob("*"))
    source = tmp_path / "o5"
    shutil.copytree(TINY / "drafter-guessed", source)
    records = source / ".cache" / "huggingface" / "download"
    records.mkdir(parents=True)
    (records / "config.json.metadata").write_text("{}")
    (source / "original").mkdir()
    (source / "original" / "params.json").write_text('{"dim": 16}\n')
    out = tmp_path / "o5-out"
    run = cli("fix", source, *FIX, "--output", out)
    assert run.code == 0, run.out + run.err
    assert sorted(tree(out)) == ["config.json", "model.safetensors", "original/params.json"]
    assert "not copied .cache/huggingface/: huggingface_hub's download records" in run.out


def test_fix_output_may_be_a_link_to_an_empty_folder(cli, tmp_path):
    """U5-24 (x63): --output DIR, a link to an empty folder, was refused as "exists and is
    not a folder". Mutation caught: refusing it, or replacing the link by the copy."""
    empty = tmp_path / "o4-empty"
    empty.mkdir()
    link = tmp_path / "o4-link"
    link.symlink_to(empty)
    source = tmp_path / "o4"
    shutil.copytree(TINY / "drafter-guessed", source)
    run = cli("fix", source, *FIX, "--output", link)
    assert run.code == 0, run.out + run.err
    assert link.is_symlink() and sorted(p.name for p in empty.iterdir()) == \
        ["config.json", "model.safetensors"]
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    run = cli("fix", source, *FIX, "--output", dangling)
    assert run.code == 2 and "which does not exist" in run.err, run.err


def test_fix_on_links_into_a_hub_cache_says_why(cli, tmp_path):
    """U5-24 / U4-26 (u26e): a folder of links into an HF cache got "cannot be parsed as a
    JSON object". Mutation caught: that message, or writing through the link."""
    snap = _snapshot_with_links(tmp_path)
    folder = tmp_path / "lnk"
    folder.mkdir()
    for name in ("config.json", "model.safetensors"):
        (folder / name).symlink_to(snap / name)
    before = tree(tmp_path / "hub")
    run = cli("fix", folder, *FIX)
    assert run.code == 2 and run.err.count("\n") == 1, run.out + run.err
    assert "is a link into a Hugging Face cache" in run.err and "--output DIR" in run.err
    assert "cannot be parsed" not in run.out + run.err
    assert tree(tmp_path / "hub") == before
