"""`fix`: edits from findings, written atomically, verified by reading back."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sparse import FIXTURES, apply_ops, load_manifest

from drafter_lint.fix.write import backups_of

TAPS = "/dflash_config/target_layer_ids"
MASK = "/dflash_config/mask_token_id"


def snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_unsafe_fixes_repair_what_the_rules_know(cli, tiny):
    guessed = tiny / "drafter-guessed"
    run = cli("fix", guessed, "--target", tiny / "target", "--unsafe-fixes")
    fixed = json.loads((guessed / "config.json").read_text())
    assert fixed["dflash_config"] == {"mask_token_id": 248070,
                                      "target_layer_ids": [1, 6, 11, 16, 21]}
    assert fixed["use_sliding_window"] is True
    # no rule can know the window: it stays an error, so fix exits 1 and says so
    assert run.code == 1 and "DF122" in run.out
    assert "fix DF114 /dflash_config/target_layer_ids: [2, 7, 12, 17, 22] -> [1, 6, 11, 16, " \
           "21]" in run.out


def test_safe_only_by_default(cli, tiny):
    guessed = tiny / "drafter-guessed"
    before = snapshot(guessed)
    run = cli("fix", guessed, "--target", tiny / "target")
    assert run.code == 1 and "unsafe fix: pass --unsafe-fixes" in run.out
    assert "nothing to fix" not in run.out and "not applied (listed above)" in run.out
    assert snapshot(guessed) == before


def test_fix_from_reference_folder(cli, tiny):
    guessed = tiny / "drafter-guessed"
    original = (guessed / "config.json").read_bytes()
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert run.code == 0, run.out
    assert json.loads((guessed / "config.json").read_text()) == \
        json.loads((tiny / "drafter" / "config.json").read_text())
    backups = backups_of(guessed / "config.json")
    assert len(backups) == 1 and backups[0].read_bytes() == original
    # nothing new in the model folder: backups and the lock live in the cache dir
    assert sorted(p.name for p in guessed.iterdir()) == ["config.json", "model.safetensors"]
    assert (backups[0].parent / "source").read_text().strip() == \
        os.path.realpath(guessed / "config.json")
    assert oct(backups[0].stat().st_mode & 0o777) == oct((guessed / "config.json").stat().st_mode
                                                          & 0o777)
    assert "read back: bytes identical" in run.out
    again = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert again.code == 0 and "nothing to fix" in again.out
    assert len(backups_of(guessed / "config.json")) == 1
    assert not list(guessed.glob(".config.json.*.tmp"))


def test_a_reference_value_is_copied_into_a_checkpoint_without_errors(cli, tiny, tmp_path):
    """A checkpoint with no error whose `bos_token_id` differs from the reference's
    (REF102, a safe fix) takes the reference's value: copying it leaves no more errors
    (0 = 0), so the reference does not contradict the checkpoint. Mutation caught (round
    2026-12-05b, M15): "no more errors" read as "fewer errors", so with none to begin
    with every reference value was refused as contradicting the checkpoint."""
    import shutil

    drafter, reference = tiny / "drafter", tmp_path / "reference"
    shutil.copytree(drafter, reference)
    for folder, bos in ((drafter, 1), (reference, 248044)):
        config = json.loads((folder / "config.json").read_text())
        config["bos_token_id"] = bos
        (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    run = cli("fix", drafter, "--reference", reference, "--target", tiny / "target")
    assert run.code == 0, run.out
    assert "fix REF102 /bos_token_id: 1 -> 248044" in run.out, run.out
    assert json.loads((drafter / "config.json").read_text())["bos_token_id"] == 248044


def test_a_reference_transformers_version_is_copied_and_read_back(cli, tiny, tmp_path):
    """`transformers_version` is bookkeeping: a reference's (REF103, a safe fix) is copied
    as written, and the read-back does not hold it to the loaded value, which transformers
    sets to its own release whatever the file says. Mutation caught (round 2026-12-05e,
    M13): the bookkeeping keys compared like any edit, so every such fix was refused as
    READ-BACK FAILED (exit 2) and the file restored."""
    import shutil

    drafter, reference = tiny / "drafter", tmp_path / "reference"
    shutil.copytree(drafter, reference)
    for folder, version in ((drafter, "4.57.1"), (reference, "5.15.0")):
        config = json.loads((folder / "config.json").read_text())
        config["transformers_version"] = version
        (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    run = cli("fix", drafter, "--reference", reference, "--target", tiny / "target")
    assert run.code == 0, run.out + run.err
    assert 'fix REF103 /transformers_version: "4.57.1" -> "5.15.0"' in run.out, run.out
    assert json.loads((drafter / "config.json").read_text())["transformers_version"] == \
        "5.15.0"


def test_the_reference_value_is_copied_before_a_rules_own_fix_of_the_same_field(cli, tiny):
    """The reference is the authority: where a rule's safe fix and the reference's touch
    one field, the reference's value is copied, and the rule's fix (worked out from a tap
    list the reference also replaces) is never applied. Here the guessed drafter's
    `eagle_aux_hidden_state_layer_ids` is stale (DF117 would write its own taps + 1) and
    the reference holds the trained list. Mutation caught (round 2026-12-05e, M14): the
    "reference first" sort key dropped, so DF117 wrote [3, 8, ...] from the guessed taps
    and the log showed two DF117 fixes and no copy from the reference."""
    guessed, drafter = tiny / "drafter-guessed", tiny / "drafter"
    for folder, aux in ((guessed, [1, 6, 11, 16, 21]), (drafter, [2, 7, 12, 17, 22])):
        config = json.loads((folder / "config.json").read_text())
        config["eagle_aux_hidden_state_layer_ids"] = aux
        (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    run = cli("fix", guessed, "--reference", drafter, "--target", tiny / "target")
    assert run.code == 0, run.out + run.err
    assert "fix REF101 /eagle_aux_hidden_state_layer_ids: [1, 6, 11, 16, 21] -> [2, 7, 12, " \
           "17, 22]" in run.out, run.out
    assert "DF117" not in run.out, run.out
    assert json.loads((guessed / "config.json").read_text()) == \
        json.loads((drafter / "config.json").read_text())


def test_diff_and_dry_run_write_nothing(cli, tiny):
    guessed = tiny / "drafter-guessed"
    before = snapshot(guessed)
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--diff")
    assert run.code == 1          # edits pending: shown, not written (as ruff --diff)
    assert "--- a/config.json" in run.out and '-    "mask_token_id": 151669,' in run.out
    assert '+    "mask_token_id": 248070,' in run.out
    dry = cli("fix", guessed, "--reference", tiny / "drafter", "--dry-run")
    assert "would fix REF101 /dflash_config/mask_token_id: 151669 -> 248070" in dry.out
    assert snapshot(guessed) == before


def test_style_is_kept(cli, tiny):
    guessed = tiny / "drafter-guessed"
    config = json.loads((guessed / "config.json").read_text())
    (guessed / "config.json").write_text(json.dumps(config, indent=4))   # no final newline
    cli("fix", guessed, "--reference", tiny / "drafter")
    text = (guessed / "config.json").read_text()
    assert text == json.dumps(json.loads(text), indent=4)
    assert list(json.loads(text)) == list(config)                         # key order


def idempotence_cases():
    tiny = FIXTURES / "tiny-qwen3.6"
    for name in ("drafter", "drafter-guessed"):
        yield f"tiny-{name}", json.loads((tiny / name / "config.json").read_text())
    for manifest in ("qwen3.6-27b-dflash", "qwen3-4b-dflash-b16"):
        config = load_manifest(manifest)["drafter"]["config"]
        yield manifest, config
        yield f"{manifest}-broken", apply_ops(config, [
            ("add", "/eagle_aux_hidden_state_layer_ids", [0, 1]), ("remove", "/num_target_layers"),
            ("add", "/use_sliding_window", False), ("add", "/mask_token_id", 7)])


@pytest.mark.parametrize("case", list(idempotence_cases()), ids=lambda c: c[0])
def test_fix_is_idempotent(cli, tmp_path, case):
    """fix(fix(x)) == fix(x), with every fix allowed, for every fixture config."""
    _, config = case
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    cli("fix", folder, "--unsafe-fixes", "--no-backup")
    once = (folder / "config.json").read_bytes()
    second = cli("fix", folder, "--unsafe-fixes", "--no-backup")
    assert (folder / "config.json").read_bytes() == once
    assert "nothing to fix" in second.out


# --- refusals leave the original byte-identical -------------------------------------------


@contextlib.contextmanager
def mounted(kind: str, source: Path, target: Path):
    """A real read-only bind mount or a tiny tmpfs, when this machine allows mounting."""
    target.mkdir()
    commands = {"ro": [["mount", "--bind", str(source), str(target)],
                       ["mount", "-o", "remount,bind,ro", str(target)]],
                "tiny": [["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(target)]]}
    mounted_ok = False
    try:
        for command in commands[kind]:
            if subprocess.run(command, capture_output=True).returncode != 0:
                pytest.skip(f"mounting is not permitted here ({' '.join(command[:2])})")
            mounted_ok = True
        yield target
    finally:
        if mounted_ok:
            subprocess.run(["umount", str(target)], capture_output=True)


def test_read_only_folder_real_mount(cli, tiny, tmp_path):
    with mounted("ro", tiny / "drafter-guessed", tmp_path / "ro") as folder:
        before = snapshot(folder)
        run = cli("fix", folder, "--reference", tiny / "drafter")
        assert run.code == 2 and "read-only file system" in run.err
        assert run.err.count("\n") == 1 and snapshot(folder) == before


def test_full_disk_real_tmpfs(cli, tiny, tmp_path):
    with mounted("tiny", tiny, tmp_path / "full") as folder:
        (folder / "config.json").write_bytes((tiny / "drafter-guessed" / "config.json")
                                             .read_bytes())
        fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)   # fill the 64 KiB
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 512):
                pass
        os.close(fd)
        before = (folder / "config.json").read_bytes()
        run = cli("fix", folder, "--reference", tiny / "drafter", "--no-backup")
        assert run.code == 2 and "no space left on device" in run.err, run.err
        assert (folder / "config.json").read_bytes() == before
        assert not list(folder.glob(".config.json.*"))


@pytest.mark.parametrize("code,text", [(errno.EROFS, "read-only file system"),
                                       (errno.ENOSPC, "no space left on device"),
                                       (errno.EIO, "I/O error")])
def test_write_errors_simulated(cli, tiny, monkeypatch, code, text):
    """The same refusals without mount privileges: the failing call is the data fsync."""
    from drafter_lint.fix import write

    real_fsync = os.fsync

    def failing_fsync(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".config.json."):
            raise OSError(code, os.strerror(code))
        return real_fsync(fd)

    monkeypatch.setattr(write.os, "fsync", failing_fsync)
    guessed = tiny / "drafter-guessed"
    before = snapshot(guessed)
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 2 and text in run.err and run.err.count("\n") == 1
    after = snapshot(guessed)
    assert after.pop("config.json") == before.pop("config.json")
    assert not list(guessed.glob(".config.json.*.tmp"))
    assert after == before and backups_of(guessed / "config.json") == []   # no trace


def test_read_back_mismatch_restores_the_original(cli, tiny, monkeypatch):
    from drafter_lint.fix import write

    real = write.read_back
    calls = []

    def corrupted(path):
        data = real(path)
        calls.append(path)
        return data[:-2] + b"}" if len(calls) == 2 else data   # the read after the write

    monkeypatch.setattr(write, "read_back", corrupted)
    guessed = tiny / "drafter-guessed"
    original = (guessed / "config.json").read_bytes()
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 2 and "READ-BACK FAILED" in run.err
    assert (guessed / "config.json").read_bytes() == original


def test_read_back_compares_transformers_load_with_the_plan(cli, tiny):
    """Issue 42 item 5: the read-back compared two transformers loads of the same bytes,
    so it could not fail. Now each value the plan wrote must be what transformers loads.
    A reference with `use_sliding_window: false` makes the plan copy `sliding_window`
    2048, which Qwen3Config loads as null. Mutation caught: comparing load with load, or
    nothing (exit 0, the null window written)."""
    guessed = tiny / "drafter-guessed"
    reference = tiny / "reference"
    reference.mkdir()
    config = json.loads((tiny / "drafter" / "config.json").read_text())
    (reference / "config.json").write_text(json.dumps(config | {"use_sliding_window": False}))
    original = (guessed / "config.json").read_bytes()
    run = cli("fix", guessed, "--reference", reference)
    assert run.code == 2 and run.err.count("\n") == 1, run.out + run.err
    assert "READ-BACK FAILED" in run.err and "loads /sliding_window as null, not 2048" in \
        run.err
    assert (guessed / "config.json").read_bytes() == original
    good = cli("fix", guessed, "--reference", tiny / "drafter")
    assert good.code == 0 and "Qwen3Config loads the 4 intended values" in good.out, good.out


def test_fix_does_not_advertise_itself(cli, tiny):
    """U5-24 (u09c, u11): a fix that refused its edits (here: a duplicated key with
    different values, without --unsafe-fixes) ended with "[*] N fixable with
    `drafter-lint fix`". Mutation caught: the check report's footer or [*] marks in fix."""
    guessed = tiny / "drafter-guessed"
    text = (guessed / "config.json").read_text()
    (guessed / "config.json").write_text(text.replace("{\n", '{\n  "block_size": 8,\n', 1))
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert run.code == 1 and "not written: config.json has /block_size" in run.out, run.out
    assert "fixable with" not in run.out and "[*]" not in run.out


def test_concurrent_edit_is_not_overwritten(cli, tiny, monkeypatch):
    """A file changed between reading and the locked write is left alone."""
    from drafter_lint.fix import plan as fix

    real_plan = fix.plan
    guessed = tiny / "drafter-guessed"

    def plan_then_edit(*args, **kwargs):
        result = real_plan(*args, **kwargs)
        (guessed / "config.json").write_text('{"edited": "by someone else"}\n')
        return result

    monkeypatch.setattr(fix, "plan", plan_then_edit)
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 2 and "changed while it was being fixed" in run.err
    assert json.loads((guessed / "config.json").read_text()) == {"edited": "by someone else"}


def _target(fd: Path) -> str:
    """Where another process's open descriptor points ("" once it has closed it)."""
    try:
        return os.readlink(fd)
    except OSError:
        return ""


def test_lock_serializes_two_fixes(tiny, tmp_path):
    from drafter_lint.fix import write
    from drafter_lint.cache import cache_dir

    guessed = tiny / "drafter-guessed"
    with write.file_lock(guessed / "config.json"):   # the lock the fix will ask for
        pass
    lock = next((cache_dir() / "locks").glob("*.lock"))
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    before = (guessed / "config.json").read_bytes()
    process = subprocess.Popen([sys.executable, "-m", "drafter_lint", "fix", str(guessed),
                                "--reference", str(tiny / "drafter")], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # wait (no fixed sleep) until the fix has opened the lock file: from then on it
        # retries the lock we hold, so it must not have written anything
        def holds_lock_open() -> bool:
            try:
                fds = list(Path(f"/proc/{process.pid}/fd").iterdir())
            except OSError:
                return False
            return any(_target(fd) == str(lock.resolve()) for fd in fds)

        deadline = time.monotonic() + 60
        while not holds_lock_open():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the fix never waited for the lock"
            time.sleep(0.05)
        time.sleep(0.3)                                # a few of its retries
        assert process.poll() is None                  # waiting for the lock
        assert (guessed / "config.json").read_bytes() == before
    finally:
        os.close(fd)                                   # release: the fix goes ahead
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert (guessed / "config.json").read_bytes() != before


# --- crash safety: the kill loop is tests/test_trust.py::test_200_sigkills_... (slow lane)




def test_a_write_that_fails_after_the_backup_leaves_no_backup(cli, tiny, monkeypatch):
    """The backup is written first; when the config's own write then fails (its data
    fsync, here), the fix is refused with the file unchanged and the backup just made is
    removed: a failed fix leaves no trace, and `backups_of` lists no backup of a fix that
    never happened. Mutation caught (round 2026-12-05c, M15): the backup not removed on
    that failure (the earlier write-error tests fail on the backup's own write, before
    there is one)."""
    from drafter_lint.fix import write

    guessed = tiny / "drafter-guessed"
    real_fsync = os.fsync

    def failing_fsync(fd):
        written = os.readlink(f"/proc/self/fd/{fd}")
        if os.path.dirname(written) == os.path.realpath(guessed) and \
                os.path.basename(written).startswith(".config.json."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    monkeypatch.setattr(write.os, "fsync", failing_fsync)
    before = snapshot(guessed)
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 2 and "no space left on device" in run.err, run.err
    assert snapshot(guessed) == before
    assert backups_of(guessed / "config.json") == []


def test_second_concurrent_fix_with_the_same_result_succeeds(cli, tiny, monkeypatch):
    """Two fixes planned from the same bytes: the second finds the file already holding
    its result and reports success. Mutation caught: exit 2 'changed while it was being
    fixed' although the file ends fixed."""
    from drafter_lint.fix import plan as fix

    guessed = tiny / "drafter-guessed"
    real_plan = fix.plan

    def plan_then_race(checkpoint, options, unsafe):
        result = real_plan(checkpoint, options, unsafe)
        (guessed / "config.json").write_text(result.text, encoding="utf-8")  # the other fix
        return result

    monkeypatch.setattr(fix, "plan", plan_then_race)
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 0, run.out + run.err
    # U5-24 (x35): "wrote ...; read back: already fixed" from runs that wrote nothing
    assert "nothing written: already fixed (by a concurrent run)" in run.out
    assert "wrote" not in run.out and backups_of(guessed / "config.json") == []
    assert json.loads((guessed / "config.json").read_text()) == \
        json.loads((tiny / "drafter" / "config.json").read_text())


def test_symlinked_config_is_written_through_inside_the_folder(cli, tiny):
    """Mutation caught: replacing the link by a regular file (the target keeps the bad
    config), or writing through a link that leaves the folder."""
    guessed = tiny / "drafter-guessed"
    real = guessed / "configs" / "v2.json"
    real.parent.mkdir()
    (guessed / "config.json").rename(real)
    (guessed / "config.json").symlink_to("configs/v2.json")
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 0, run.out + run.err
    assert (guessed / "config.json").is_symlink()
    assert json.loads(real.read_text()) == json.loads((tiny / "drafter" / "config.json")
                                                      .read_text())
    outside = tiny / "elsewhere.json"
    outside.write_text((tiny / "drafter-guessed" / "configs" / "v2.json").read_text()
                       .replace("248070", "151669"))
    (guessed / "config.json").unlink()
    (guessed / "config.json").symlink_to(outside)
    before = outside.read_bytes()
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code in (1, 2) and outside.read_bytes() == before


@pytest.mark.parametrize("style", ["crlf", "compact", "spellings"])
def test_fix_keeps_the_files_own_style(cli, tiny, style):
    """Only changed values are re-serialized. Mutation caught: a whole-file json.dumps
    (CRLF -> LF, `"a":1` -> `"a": 1`, `2.0e-2` -> `0.02`, `\\u00e9` decoded)."""
    guessed = tiny / "drafter-guessed"
    document = json.loads((guessed / "config.json").read_text())
    if style == "crlf":
        text = json.dumps(document, indent=2).replace("\n", "\r\n") + "\r\n"
    elif style == "compact":
        text = json.dumps(document, separators=(",", ":"))
    else:
        text = json.dumps(document, indent=2).replace(
            '"initializer_range": 0.02', '"initializer_range": 2.0e-2').replace(
            '"dtype": "bfloat16"', '"dtype": "bfloat16", "description": "caf\\u00e9"') + "\n"
    (guessed / "config.json").write_bytes(text.encode())
    run = cli("fix", guessed, "--reference", tiny / "drafter")
    assert run.code == 0, run.out + run.err
    after = (guessed / "config.json").read_bytes().decode()
    changed = [(a, b) for a, b in zip(text.splitlines(), after.splitlines()) if a != b]
    assert json.loads(after)["dflash_config"]["mask_token_id"] == 248070
    if style == "crlf":
        assert "\n" not in after.replace("\r\n", "")
        assert len(changed) <= 8                       # the few fixed values, not the file
    elif style == "compact":
        assert '": ' not in after and ", " not in after
    else:
        assert "2.0e-2" in after and "caf\\u00e9" in after


# --- --output never harms the source ------------------------------------------------------


def _hub_cache_snapshot(root: Path) -> Path:
    """A huggingface_hub cache layout: models--org--name/{blobs,snapshots/<commit>}."""
    repo = root / "hub" / "models--org--name"
    (repo / "blobs").mkdir(parents=True)
    snap = repo / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    return snap


@pytest.mark.parametrize("where", ["itself", "trailing-slash", "symlink", "linked-config",
                                   "inside", "hub-snapshot", "not-empty"])
def test_fix_output_that_could_touch_the_source_is_refused(cli, tiny, tmp_path, where):
    """Catches: --output SRC (or any path to it) rewriting config.json in place with no
    backup, --output into a hub cache snapshot, and merging into a folder that already
    holds files (one of them possibly SRC's config.json by hard link)."""
    guessed = tiny / "drafter-guessed"
    before = snapshot(guessed)
    output = {"itself": lambda: guessed, "trailing-slash": lambda: f"{guessed}/",
              "inside": lambda: guessed / "fixed",
              "hub-snapshot": lambda: _hub_cache_snapshot(tmp_path).parent / ("b" * 40)}
    if where == "symlink":
        (tmp_path / "alias").symlink_to(guessed)
        out = tmp_path / "alias"
    elif where in ("linked-config", "not-empty"):
        out = tmp_path / "holder"
        out.mkdir()
        if where == "linked-config":
            os.link(guessed / "config.json", out / "config.json")
        else:
            (out / "notes.txt").write_text("mine\n")
    else:
        out = output[where]()
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--output", out)
    assert run.code == 2 and run.err.count("\n") == 1 and "--output" in run.err, run.err
    assert snapshot(guessed) == before and backups_of(guessed / "config.json") == []
    assert not (guessed / "fixed").exists()
    if where == "not-empty":
        assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_fix_output_into_an_empty_folder_is_a_complete_copy(cli, tiny, tmp_path):
    """Catches: the staged copy not renamed onto an existing empty folder, or left with
    mkdtemp's 0700 mode."""
    guessed = tiny / "drafter-guessed"
    out = tmp_path / "empty"
    out.mkdir()
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--output", out)
    assert run.code == 0, run.out + run.err
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    assert json.loads((out / "config.json").read_text()) == \
        json.loads((tiny / "drafter" / "config.json").read_text())
    assert os.stat(out).st_mode & 0o777 == 0o777 & ~_umask()
    assert not list(tmp_path.glob(".empty.*"))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_fix_output_failing_midway_leaves_nothing(cli, tiny, tmp_path, monkeypatch):
    """Catches: a half-copied --output folder or a 0-byte weights file after ENOSPC.
    The copy across file systems (os.link refused with EXDEV) writes half the file, then
    the disk is full."""
    import shutil

    from drafter_lint.fix import apply as repair

    def no_link(src, dst):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    def half_copy(src, dst):
        with open(src, "rb") as a, open(dst, "wb") as b:
            b.write(a.read()[:100])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(repair.os, "link", no_link)
    monkeypatch.setattr(shutil, "copyfile", half_copy)
    guessed = tiny / "drafter-guessed"
    before = snapshot(guessed)
    out = tmp_path / "new" / "deeper" / "fixed"
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--output", out)
    # U5-15: the failing file is named
    assert run.code == 2 and "model.safetensors: No space left on device" in run.err, run.err
    assert run.err.count("\n") == 1
    assert not (tmp_path / "new").exists()          # nor the parents made for it
    assert snapshot(guessed) == before


def test_fix_output_on_a_real_full_tmpfs_leaves_nothing(cli, tiny, tmp_path):
    """The same on a real 64 KiB tmpfs (another file system, so model.safetensors is
    copied, and 31 kB of weights plus the filler does not fit)."""
    with mounted("tiny", tiny, tmp_path / "full") as disk:
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):
            os.write(fd, b"\0" * (48 << 10))
        os.close(fd)
        run = cli("fix", tiny / "drafter-guessed", "--reference", tiny / "drafter",
                  "--output", disk / "fixed")
        assert run.code == 2 and run.err.count("\n") == 1, run.err
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]


def test_fix_diff_prints_only_the_patch_on_stdout(cli, tiny):
    """Mutation caught: the "would fix" log mixed into the patch (`fix --diff | git apply`
    then fails)."""
    run = cli("fix", tiny / "drafter-guessed", "--reference", tiny / "drafter", "--diff")
    assert run.out.startswith("--- a/config.json\n+++ b/config.json\n"), run.out
    assert all(line[:1] in "+- @" for line in run.out.splitlines()), run.out
    assert "would fix" in run.err


def test_fix_json_reports_what_is_left(cli, tiny):
    """`fix --format json`: the findings left after fixing, as `check --format json`
    prints them, with the fix log on stderr. Mutation caught: text on stdout, or the
    fixed findings still reported."""
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("drafter_lint.schemas")
                        .joinpath("report.schema.json").read_text())
    run = cli("fix", tiny / "drafter-guessed", "--target", tiny / "target", "--unsafe-fixes",
              "--format", "json")
    report = json.loads(run.out)
    jsonschema.validate(report, schema)
    left = {f["rule"] for f in report["results"][0]["findings"]}
    assert "DF122" in left and "DF114" not in left and run.code == 1   # the window stays
    assert "fix DF114" in run.err


def test_family_dspark_is_accepted(cli, tiny):
    run = cli("check", tiny / "drafter", "--family", "dspark", "--format", "json")
    assert run.code in (0, 1) and json.loads(run.out)["results"][0]["family"] == "dspark"


@pytest.mark.parametrize("mode", [0o644, 0o640])
def test_fix_keeps_the_configs_mode(cli, tiny, mode):
    """A fixed config.json keeps its permission bits (review 2026-12-04 M10 survived: with
    atomic_write's chmod dropped, a 0644 config came back 0600, unreadable to the server's
    other user). Mutation caught: the temporary file's 0600 kept by the rename."""
    guessed = tiny / "drafter-guessed"
    os.chmod(guessed / "config.json", mode)
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert run.code == 0, run.out
    assert (guessed / "config.json").stat().st_mode & 0o777 == mode


def test_a_parent_and_a_child_edit_are_not_applied_in_one_round(tiny, monkeypatch):
    """An edit at /a and one at /a/b overlap: the first (by the planner's order) applies,
    the second waits for the next round's re-lint. Mutation caught: M13 (`fix._overlaps`
    comparing equal pointers only, so both apply in one round)."""
    from drafter_lint import findings

    parent = findings.Finding("/a", "add a", fix=findings.add("/a", {"b": 1}, findings.SAFE),
                              rule="X001", severity=findings.Severity.ERROR)
    child = findings.Finding("/a/b", "set a.b", fix=findings.replace("/a/b", 2, findings.SAFE),
                             rule="X002", severity=findings.Severity.ERROR)
    plan = _planned_after(tiny / "drafter", [parent, child], monkeypatch)
    assert [f.rule for f, _, _ in plan.applied] == ["X001"]
    assert plan.value["a"] == {"b": 1}


def _planned_after(folder: Path, found: list, monkeypatch):
    """The plan for `folder` when its first lint finds `found` (safe fixes) and every
    re-lint finds nothing."""
    from drafter_lint import findings, pipeline
    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.fix import plan as fix

    rounds = [found]

    def lint(checkpoint, options):
        return findings.Result("tiny", "dflash", findings=rounds.pop(0) if rounds else [])

    monkeypatch.setattr(fix, "lint_with_settings", lint)
    plan, _ = fix._plan(read_checkpoint(folder), pipeline.prepare(resolve=False),
                        unsafe=False, trust_reference=True)
    return plan


def test_a_child_edit_and_then_its_parents_are_not_applied_in_one_round(tiny, monkeypatch):
    """The overlap test goes both ways: when the planner's order puts the edit of
    /dflash_config/mask_token_id (X001) before the one replacing /dflash_config whole
    (X002), the first applies and the second waits for the re-lint (which here finds
    nothing left), so the child's value is kept. Mutation caught (round 2026-12-05f, M13):
    `_overlaps` tested only "a below b", so the parent edit applied in the same round and
    silently undid the child's."""
    from drafter_lint import findings

    child = findings.Finding("/dflash_config/mask_token_id", "set the mask",
                             fix=findings.replace("/dflash_config/mask_token_id", 248070,
                                                  findings.SAFE),
                             rule="X001", severity=findings.Severity.ERROR)
    parent = findings.Finding("/dflash_config", "replace dflash_config",
                              fix=findings.replace("/dflash_config", {"mask_token_id": 1},
                                                   findings.SAFE),
                              rule="X002", severity=findings.Severity.ERROR)
    plan = _planned_after(tiny / "drafter-guessed", [child, parent], monkeypatch)
    assert [f.rule for f, _, _ in plan.applied] == ["X001"]
    assert plan.value["dflash_config"]["mask_token_id"] == 248070
    assert plan.value["dflash_config"]["target_layer_ids"] == [2, 7, 12, 17, 22]


def test_a_key_written_twice_alike_is_collapsed_and_the_fix_written(cli, tiny):
    """A key duplicated with the same value both times (`"block_size": 16` twice) is no
    guess: the rewrite keeps one copy, says so as a DL003 line, and the fix is written
    without --unsafe-fixes. Mutation caught (round 2026-12-05f, M14): every duplicated key
    taken for one whose copies differ, so the fix was refused ("... 2 times with different
    values (16, 16) ...") and nothing written."""
    guessed = tiny / "drafter-guessed"
    text = (guessed / "config.json").read_text()
    (guessed / "config.json").write_text(text.replace("{\n", '{\n  "block_size": 16,\n', 1))
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert run.code == 0 and "fix DL003 /block_size: keep 16" in run.out, run.out
    assert "different values" not in run.out and "wrote" in run.out, run.out
    written = (guessed / "config.json").read_text()
    assert written.count('"block_size"') == 1 and json.loads(written)["block_size"] == 16


def test_fix_of_several_folders_exits_with_the_worst_outcome(cli, tiny):
    """`fix A B` exits as the worst of its folders: drafter-guessed keeps errors no safe
    fix removes (exit 1), the good drafter after it has nothing to fix (0): the run exits
    1, as `check A B` does. Mutation caught (round 2026-12-05f, M18): the exit code of the
    last folder only, so a CI step fixing several checkpoints passed with errors left."""
    guessed, good = tiny / "drafter-guessed", tiny / "drafter"
    run = cli("fix", guessed, good, "--target", tiny / "target")
    assert "drafter/config.json: nothing to fix" in run.out, run.out
    assert "DF104 error" in run.out and run.code == 1, run.out
    assert cli("fix", good, "--target", tiny / "target").code == 0


def test_three_backups_in_one_second_keep_three_files(tmp_path, monkeypatch):
    """Each backup name is one not taken yet, however many fixes run in the same second.
    Mutation caught (round 2026-12-05, M15): `backup_name` trying one numbered name
    (`if` for `while`), so a third fix within a second overwrites the second's backup."""
    from drafter_lint.fix import write

    monkeypatch.setenv("DRAFTER_LINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(write.time, "strftime", lambda *_: "20261205T000000Z")
    config = tmp_path / "config.json"
    config.write_text("{}\n")
    names = []
    for n in range(3):
        name = write.backup_name(config)
        assert not name.exists(), name
        name.write_text(f"{n}\n")
        names.append(name.name)
    assert names == ["config.json.20261205T000000Z.bak", "config.json.20261205T000000Z.1.bak",
                     "config.json.20261205T000000Z.2.bak"]
    # oldest first, as backups_of says (a plain name sort put `.bak` after `.1.bak`)
    assert [p.read_text() for p in write.backups_of(config)] == ["0\n", "1\n", "2\n"]


def test_an_edit_past_a_lists_end_is_refused_as_a_patch_error():
    """An RFC 6902 `replace` or `remove` needs an existing index; `add` may append at
    len(list). Mutation caught (round 2026-12-05, M14): the range check allowing a
    `replace` at len(list), which then raises IndexError (an internal error) instead of
    the PatchError that makes the plan skip the fix."""
    from drafter_lint.errors import PatchError
    from drafter_lint.fix.plan import apply_edit

    assert apply_edit({"a": [1]}, {"op": "add", "path": "/a/1", "value": 2}) == {"a": [1, 2]}
    assert apply_edit({"a": [1]}, {"op": "replace", "path": "/a/0", "value": 3}) == {"a": [3]}
    for op in ("replace", "remove"):
        with pytest.raises(PatchError, match="out of range"):
            apply_edit({"a": [1]}, {"op": op, "path": "/a/1", "value": 2})


def test_a_fix_whose_later_edit_fails_is_not_reported_applied(tiny):
    """A fix applies whole or not at all: when its second edit cannot apply, the first is
    dropped with it, and the plan neither lists it as applied nor writes anything.
    Mutation caught (a latent flaw the 2026-12-05c round found): each edit recorded as
    applied before the fix's later edits were tried, so a fix thrown away still showed
    its first edit in `fix`'s log."""
    from dataclasses import replace

    from drafter_lint.checkpoint import read_checkpoint
    from drafter_lint.findings import SAFE, Finding, Fix
    from drafter_lint.fix.plan import _plan
    from drafter_lint.options import Options
    from drafter_lint.rules import RULES

    def half_applicable(facts):
        yield Finding("/vocab_size", "two edits, the second past the document", fix=Fix(
            SAFE, ({"op": "replace", "path": "/vocab_size", "value": 7},
                   {"op": "replace", "path": "/no/such/key", "value": 8})))

    rule = replace(RULES["DF114"], code="TST001", check=half_applicable)
    checkpoint = read_checkpoint(tiny / "drafter")
    plan, _ = _plan(checkpoint, Options(rules={"TST001": rule}), unsafe=False,
                    trust_reference=False)
    assert plan.applied == [] and plan.text == checkpoint.config_doc.text


def test_a_killed_writers_temp_file_is_removed_by_the_next_fix(cli, tiny):
    """A fix killed between its temp file and the rename leaves `.config.json.*.tmp` in the
    model folder; the next fix, holding the lock, removes it, so the folder holds only the
    checkpoint's own files again. Mutation caught (round 2026-12-05d, M13): the stale temps
    not removed (`remove_stale_temps` not called), so the dead writer's half-written file
    stayed beside config.json for good."""
    guessed = tiny / "drafter-guessed"
    stale = guessed / ".config.json.x1y2z3.tmp"
    stale.write_text('{"half": ')
    run = cli("fix", guessed, "--reference", tiny / "drafter", "--target", tiny / "target")
    assert run.code == 0, run.out
    assert json.loads((guessed / "config.json").read_text()) == \
        json.loads((tiny / "drafter" / "config.json").read_text())
    assert sorted(p.name for p in guessed.iterdir()) == ["config.json", "model.safetensors"]


def test_removing_the_last_member_keeps_the_rest_of_the_file_as_written():
    """A fix that removes an object's last member takes the comma before it and nothing
    else: every other byte stays as written (here `2.50`, `1e-06`, the two-space indent),
    as for any other edit. Mutation caught (round 2026-12-05d, M14): the comma left in place,
    the edit no longer valid JSON, so the fix fell back to serializing the whole file and
    rewrote values it did not change (`2.50` as `2.5`, `1E-6` as `1e-06`)."""
    from drafter_lint import jsondoc
    from drafter_lint.fix.plan import serialize

    text = '{\n  "scale": 2.50,\n  "eps": 1E-6,\n  "stale": true\n}\n'
    doc = jsondoc.parse(text)
    assert serialize({"scale": 2.5, "eps": 1e-06}, doc) == \
        '{\n  "scale": 2.50,\n  "eps": 1E-6\n}\n'
    # the same for a middle member: its own comma goes with it
    assert serialize({"scale": 2.5, "stale": True}, doc) == \
        '{\n  "scale": 2.50,\n  "stale": true\n}\n'
