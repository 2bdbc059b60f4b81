"""The model card's launch lines (drafter_lint/card.py, rules/card.py, engine.card_findings):
read as a shell or Python would, linted against the checkpoint the card belongs to, with
findings at README.md:line:col."""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest
from sparse import FIXTURES

from drafter_lint import card

SPEC = '{"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash", "num_speculative_tokens": %d}'
CARD = textwrap.dedent("""\
    ---
    base_model: Qwen/Qwen3.6-27B
    ---
    # Qwen3.6-27B-DFlash

    ```bash
    pip install vllm==0.25.0
    vllm serve Qwen/Qwen3.6-27B \\
      --speculative-config '%s'
    ```

    ```shell
    $ vllm serve Qwen/Qwen3.6-27B --speculative-config '%s'
    vllm serve Qwen/Qwen3-8B --speculative-config '{"method": "eagle3", "model": "z-lab/Qwen3-8B-DFlash-b16", "num_speculative_tokens": 7}'
    python -m sglang.launch_server --model-path $MODEL --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3.6-27B-DFlash
    vllm serve Qwen/Qwen3.6-27B --speculative-config '{"method": "dflash"
    ```

    ```python
    from vllm import LLM
    llm = LLM(model="Qwen/Qwen3.6-27B", speculative_config={"method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash", "num_speculative_tokens": 15})
    other = LLM(model="Qwen/Qwen3.6-27B", speculative_config=spec)
    ```
    """) % (SPEC % 15, SPEC % 20)


def test_a_card_is_read_as_a_shell_and_python_would():
    """Mutations caught: a `\\` continuation not joined (the JSON on the next line lost), a
    `$ ` prompt kept as a word, a pin or base_model not read, a Python call's literal not
    turned into the flag, an unreadable line guessed at instead of kept with its reason."""
    found = card.read(CARD)
    assert found.bases == ("Qwen/Qwen3.6-27B",) and found.pins == {"vllm": "0.25.0"}
    assert found.pin_at == {"vllm": (7, 13)}
    assert card.read("pip install 'sglang[all]>=0.5.21'\n").pins == {"sglang": "0.5.21"}
    lines = {(c.line, c.column): c for c in found.lines}
    first = lines[(8, 1)]
    assert first.argv[:3] == ("vllm", "serve", "Qwen/Qwen3.6-27B")
    assert json.loads(first.argv[4])["num_speculative_tokens"] == 15
    assert lines[(13, 3)].argv[0] == "vllm"                     # after the prompt
    assert "$MODEL" in lines[(15, 1)].argv                      # a placeholder, as written
    assert "No closing quotation" in lines[(16, 1)].problem and not lines[(16, 1)].argv
    python = lines[(21, 7)]
    assert python.argv[:3] == ("vllm", "serve", "Qwen/Qwen3.6-27B")
    assert json.loads(python.argv[4])["num_speculative_tokens"] == 15
    assert "variable `spec`" in lines[(22, 9)].problem
    assert len(found.lines) == 7


def test_the_first_pin_of_a_runtime_is_the_one_the_card_is_read_for():
    """A card that names a runtime's release twice (its install line, then a note of
    another release it mentions) is read for the first, at the first's place. Mutation
    caught (round 2026-12-05e, M16): each later pin replaced the one before, so the card
    was linted for the release of a trailing remark, its findings placed there."""
    text = "```bash\npip install vllm==0.25.0\n```\n\nUpgrading from vllm==0.20.0? " \
           "Also see sglang>=0.5.21 and sglang==0.5.23.\n"
    found = card.read(text)
    assert found.pins == {"vllm": "0.25.0", "sglang": "0.5.21"}, found.pins
    assert found.pin_at == {"vllm": (2, 13), "sglang": (5, 39)}, found.pin_at
    assert found.pin_op == {"vllm": "==", "sglang": ">="}, found.pin_op


def test_a_pin_at_the_end_of_a_sentence_is_read_without_its_full_stop():
    """A card's prose pin (`Tested with vllm==0.25.0.`) names release 0.25.0: the full stop
    ends the sentence, not the version. Found in mutation round 2026-12-05e (writing M16's
    test): the stop was read into the version, which no release matches, so the card's
    pin was dropped silently and its lines were judged for the newest release."""
    assert card.read("Tested with vllm==0.25.0.\n").pins == {"vllm": "0.25.0"}
    assert card.read("Needs sglang>=0.5.21.\n").pins == {"sglang": "0.5.21"}
    assert card.read("pip install vllm==0.33.0+cu128\n").pins == {"vllm": "0.33.0+cu128"}
    assert card.read("pip install vllm==0.5.0rc1 && run\n").pins == {"vllm": "0.5.0rc1"}


def test_blocks_without_launches_and_other_fences_are_left_alone():
    text = "~~~sh\necho vllm serve is a phrase here\nls -la\n~~~\n```\nvllm serve a \\\n" \
           "  --speculative-config '{\"method\": \"mtp\"}' && echo done\n```\n"
    found = card.read(text)
    assert [c.argv[:3] for c in found.lines] == [("vllm", "serve", "a")]
    assert "echo" not in found.lines[0].argv                     # `&&` ends the command


@pytest.fixture
def carded(tiny):
    folder = tiny / "Qwen3.6-27B-DFlash"
    shutil.move(tiny / "drafter", folder)
    (folder / "README.md").write_text(CARD)
    return folder


def test_check_lints_each_card_line_at_its_place(cli, carded, tiny):
    """A token count above the trained block (LCH102), a method the family does not serve
    (LCH101), another repo's drafter (CRD102), a target other than base_model (CRD103),
    the lines that cannot be read and the template with `$MODEL` (CRD101), each at
    README.md:line:col; the pinned
    release is the one spoken for. Mutations caught: card findings left at config.json,
    the card's pin ignored, a good line flagged, card lines not linted at all."""
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    result = run.json()["results"][0]
    at = sorted((f["rule"], f["line"], f["column"]) for f in result["findings"]
                if f["file"] == "README.md")
    assert at == [("CRD101", 15, 1), ("CRD101", 16, 1), ("CRD101", 22, 9), ("CRD102", 14, 1),
                  ("CRD103", 14, 1), ("DF125", 7, 13), ("LCH101", 14, 1),
                  ("LCH102", 13, 3)], at
    tokens = next(f for f in result["findings"] if f["rule"] == "LCH102")
    assert "vLLM 0.25.0" in tokens["message"] and tokens["fix"] is None
    # the card installs vLLM 0.25.0, whose V1 runner refuses this mixed-window drafter
    pinned = next(f for f in result["findings"] if f["file"] == "README.md"
                  and f["rule"] == "DF125")
    assert pinned["severity"] == "error" and pinned["message"].startswith(
        "with vLLM 0.25.0, which the card installs: ")
    # the newest (0.34.0, V2 alone) serves it: no DF125 at config.json
    assert not [f for f in result["findings"] if f["rule"] == "DF125" and
                f["file"] == "config.json"]
    assert not any(s["rule"].startswith(("LCH", "CRD")) for s in result["skipped"])


def test_runtime_asked_for_wins_over_the_cards_pin(cli, carded, tiny):
    run = cli("check", carded, "--target", tiny / "target", "--runtime", "vllm==0.33.0",
              "--format", "json")
    tokens = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "LCH102"]
    assert tokens and "vLLM 0.33.0" in tokens[0]["message"]


def test_a_good_card_draws_nothing_and_fix_leaves_it_as_written(cli, carded, tiny):
    """Mutations caught: a card rule that fires on the published form; `fix` editing the
    card or failing on its findings."""
    good = "---\nbase_model: Qwen/Qwen3.6-27B\n---\n```bash\nvllm serve Qwen/Qwen3.6-27B " \
           f"--speculative-config '{SPEC % 15}'\n```\n"
    (carded / "README.md").write_text(good)
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    assert [f for f in run.json()["results"][0]["findings"] if f["file"] == "README.md"] == []
    (carded / "README.md").write_text(CARD)
    before = (carded / "README.md").read_bytes()
    cli("fix", carded, "--target", tiny / "target")
    assert (carded / "README.md").read_bytes() == before


def test_the_gate_lints_its_own_line_not_the_card(carded, tiny):
    """The gate speaks for the line it starts; the card's lines are check's."""
    from drafter_lint import pipeline
    from drafter_lint.command import parse

    run = pipeline.prepare(target_arg=str(tiny / "target"))
    launch = parse(["vllm", "serve", "Qwen/Qwen3.6-27B", "--speculative-config", SPEC % 15])
    checkpoint, folder, _ = pipeline.prepare_folder(run, carded,
                                                    options=run.options.but(launch=launch))
    result = pipeline.lint_prepared(checkpoint, folder)
    assert not [f for f in result.findings if f.file == "README.md" and f.rule != "CRD101"]


def test_a_hub_repo_is_linted_with_its_card(cli, tmp_path, monkeypatch):
    """`check org/name` reads the card it fetched (the drafter named is this repo)."""
    from fakehub import FakeHub

    root = tmp_path / "hub"
    shutil.copytree(FIXTURES / "hub", root)
    repo = root / "z-lab" / "Qwen3.6-27B-DFlash" / "main"
    (repo / "README.md").write_text(CARD)
    with FakeHub(root) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        run = cli("check", "z-lab/Qwen3.6-27B-DFlash", "--format", "json")
    found = {(f["rule"], f["line"]) for f in run.json()["results"][0]["findings"]
             if f["file"] == "README.md"}
    assert {("LCH102", 13), ("CRD102", 14), ("LCH101", 14)} <= found, found
    assert ("CRD102", 8) not in found                   # z-lab/Qwen3.6-27B-DFlash is this repo


def _line(spec: str, target: str = "Qwen/Qwen3.6-27B") -> str:
    return f"---\nbase_model: Qwen/Qwen3.6-27B\n---\n```sh\nvllm serve {target} " \
           f"--speculative-config '{spec}'\n```\n"


OTHER = SPEC.replace("Qwen3.6-27B-DFlash", "Qwen3-8B-DFlash-b16") % 15
def test_a_card_is_read_as_the_hub_shows_it(cli, carded, tiny):
    """U5-19: a block inside an HTML comment is not shown on the hub, so not linted;
    `sudo vllm serve` and `docker run ... vllm/vllm-openai ARGS` are launches; a quoted
    --speculative-config spanning lines is read whole (issue 39). Mutations caught: the
    commented block linted (LCH102 at line 6), sudo/docker lines skipped, the multi-line
    JSON reported as "not shell syntax"."""
    bad = SPEC % 16
    (carded / "README.md").write_text(
        "---\nbase_model: Qwen/Qwen3.6-27B\n---\n<!--\n```sh\n"
        f"vllm serve Qwen/Qwen3.6-27B --speculative-config '{bad}'\n```\n-->\n```sh\n"
        f"sudo -E vllm serve Qwen/Qwen3.6-27B --speculative-config '{bad}'\n"
        f"docker run --gpus all -p 8000:8000 vllm/vllm-openai:latest --model "
        f"Qwen/Qwen3.6-27B --speculative-config '{bad}'\n"
        "vllm serve Qwen/Qwen3.6-27B --speculative-config '{\n"
        '  "method": "dflash", "model": "z-lab/Qwen3.6-27B-DFlash",\n'
        '  "num_speculative_tokens": 16\n}\' --port 8000\n```\n')
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    found = [(f["rule"], f["line"]) for f in run.json()["results"][0]["findings"]
             if f["file"] == "README.md"]
    assert sorted(found) == [("LCH102", 10), ("LCH102", 11), ("LCH102", 12)], found


def test_card_findings_keep_the_per_rule_cap_and_a_giant_card_is_said(cli, carded, tiny):
    """U5-18: 5,000 identical bad lines gave 5,000 LCH102; the cap of 50 per rule holds
    for card lines, with one line saying how many more. U5-19: a card over 1 MiB is not
    read for lines, and the skipped check says so. Mutations caught: the cap applied to
    the checkpoint's rules only; a giant card skipped without a word."""
    line = f"vllm serve Qwen/Qwen3.6-27B --speculative-config '{SPEC % 41}'\n"
    (carded / "README.md").write_text("```sh\n" + line * 300 + "```\n")
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    found = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "LCH102"]
    assert len(found) == 51 and any("250 more LCH102" in f["message"] for f in found)
    (carded / "README.md").write_text("```sh\n" + line + "```\n" + "x" * (1 << 20))
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    result = run.json()["results"][0]
    assert not [f for f in result["findings"] if f["file"] == "README.md"]
    assert any("over the 1 MiB" in s["reason"] for s in result["skipped"]), result["skipped"]


# --- published cards, verbatim (fixtures/cards/) --------------------------------------------

def _published():
    from cards import cards

    return cards()


@pytest.mark.parametrize("name,meta", _published(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_published_card_is_verbatim_and_read_as_recorded(name, meta):
    """Mutations caught: a card edited after it was taken; a change in how a real card's
    blocks are read (a continuation, a prompt, a launcher) that no synthetic card shows."""
    import hashlib

    from cards import CARDS, read_lines

    raw = (CARDS / name / "README.md").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == meta["source"]["sha256"]
    assert meta["source"]["url"].startswith("https://huggingface.co/" + meta["repo"] + "/")
    assert read_lines(name) == meta["lines"]


@pytest.mark.parametrize("name,meta", _published(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_published_card_draws_its_recorded_findings_at_its_lines(cli, tmp_path, name, meta):
    """Each card, beside the verbatim config it is paired with (or alone), draws exactly
    the findings recorded at its lines; a good card none at warning or above. Mutations
    caught: a card rule stricter than the published cards (a false warning on a good
    one), a bad card's line no longer caught."""
    from cards import CARDS, materialize

    if meta.get("config"):
        drafter, target = materialize(name, meta, tmp_path)
        run = cli("check", drafter, "--target", target, "--format", "json")
    else:
        drafter = tmp_path / meta["repo"].split("/")[1]
        drafter.mkdir()
        shutil.copyfile(CARDS / name / "README.md", drafter / "README.md")
        run = cli("check", drafter, "--format", "json")
    found = run.json()["results"][0]["findings"]
    at = sorted([f["rule"], f["line"]] for f in found if f["file"] == "README.md")
    assert at == sorted(meta["expect"]), at
    if meta["verdict"] == "good":
        assert not [f for f in found if f["file"] == "README.md" and f["severity"] != "info"]


def test_a_hub_cards_base_model_the_hub_does_not_have_is_a_finding(cli, tmp_path, monkeypatch):
    """CRD104 at the card's base_model line when the hub has no such repo; an unreachable
    hub is a note only. Mutations caught: a missing base_model only noted on stderr; a
    network failure reported as a missing repo."""
    from fakehub import FakeHub

    root = tmp_path / "hub"
    shutil.copytree(FIXTURES / "hub", root)
    repo = root / "z-lab" / "Qwen3.6-27B-DFlash" / "main"
    (repo / "README.md").write_text("---\nlibrary_name: transformers\n"
                                    "base_model: Qwen/Qwen3.6-27B-Typo\n---\n# card\n")
    with FakeHub(root) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        run = cli("check", "z-lab/Qwen3.6-27B-DFlash", "--format", "json")
    found = [f for f in run.json()["results"][0]["findings"] if f["rule"] == "CRD104"]
    assert [(f["file"], f["line"], f["severity"]) for f in found] == [("README.md", 3, "warning")]
    assert "Qwen/Qwen3.6-27B-Typo" in found[0]["message"]
    good = cli("check", "z-lab/Qwen3.6-27B-DFlash", "--format", "json", "--offline")
    assert not [f for f in good.json()["results"][0]["findings"] if f["rule"] == "CRD104"]


MUTATIONS = [   # (card, text replaced once, by, rule expected at that line)
    ("zlab-Qwen3.6-27B-DFlash", '"num_speculative_tokens": 15', '"num_speculative_tokens": 16',
     "LCH102"),
    ("zlab-Qwen3.6-27B-DFlash", '"method": "dflash"', '"method": "eagle3"', "LCH101"),
    ("zlab-Qwen3.6-27B-DFlash", '"model": "z-lab/Qwen3.6-27B-DFlash"',
     '"model": "z-lab/Qwen3.5-27B-DFlash"', "CRD102"),
    ("jfan-Qwen3.8-27B-heretic-dflash",
     "--model-path trohrbaugh/Qwen3.8-27B-heretic-ara", "--model-path Qwen/Qwen3.8-27B",
     "CRD103"),
]


@pytest.mark.parametrize("name,old,new,rule", MUTATIONS, ids=[m[3] for m in MUTATIONS])
def test_one_mistake_in_a_published_card_is_found_at_its_line(cli, tmp_path, name, old, new,
                                                               rule):
    """Each kind of mistake the issue names (tokens above the trained block, a method the
    family does not serve, another repo's drafter, a target other than base_model), made
    once in a verbatim card, is found at the line of the command it is in, and nothing
    else changes. Mutation caught: a card rule that misses its mistake in a real card's
    layout (continuations, comments, launchers)."""
    from cards import CARDS, cards, materialize

    meta = dict(cards())[name]
    text = (CARDS / name / "README.md").read_text(encoding="utf-8")
    assert text.count(old) == 1
    at = text[:text.index(old)].count("\n") + 1
    drafter, target = materialize(name, meta, tmp_path)
    (drafter / "README.md").write_text(text.replace(old, new), encoding="utf-8")
    run = cli("check", drafter, "--target", target, "--format", "json")
    found = sorted([f["rule"], f["line"]] for f in run.json()["results"][0]["findings"]
                   if f["file"] == "README.md")
    starts = max(c.line for c in card.read(text).lines if c.line <= at)
    assert sorted(meta["expect"] + [[rule, starts]]) == found, found


def test_a_pin_repeats_no_error_the_check_already_reports(cli, carded, tiny):
    """An error of the checkpoint itself (here no mask id) is reported once, at
    config.json, not again at the card's pin. Mutation caught: every error of the pinned
    release repeated at the pin."""
    config = json.loads((carded / "config.json").read_text())
    del config["dflash_config"]["mask_token_id"]
    (carded / "config.json").write_text(json.dumps(config))
    (carded / "README.md").write_text("```sh\npip install vllm==0.33.0\n```\n")
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    found = run.json()["results"][0]["findings"]
    assert [f for f in found if f["severity"] == "error" and f["file"] == "config.json"]
    assert not [f for f in found if f["file"] == "README.md"], found


def test_releases_judge_the_checkpoint_not_its_card(carded, tiny):
    """The card's pin and lines do not move the ranges `releases` computes (they speak for
    one release each). Mutation caught: the pinned release's error counted for every
    release."""
    from drafter_lint import pipeline
    from drafter_lint.releases_view import serving

    run = pipeline.prepare(target_arg=str(tiny / "target"))
    with_card = serving(*pipeline.prepare_folder(run, carded)[:2], "vllm").ranges
    (carded / "README.md").unlink()
    without = serving(*pipeline.prepare_folder(run, carded)[:2], "vllm").ranges
    assert with_card == without and with_card


def test_a_local_cards_base_model_is_the_target_when_the_hub_cache_holds_it(
        cli, tmp_path, monkeypatch, tiny):
    """A local folder with no --target is held to its card's base_model when the hub cache
    holds it, with no request; otherwise a note says the target checks are skipped.
    Mutations caught: a local check reaching the network for its card's target; the
    cached target ignored."""
    from fakehub import FakeHub

    folder = tiny / "Qwen3.6-27B-DFlash"
    shutil.move(tiny / "drafter", folder)
    (folder / "README.md").write_text("---\nbase_model: Qwen/Qwen3.6-27B\n---\n# card\n")
    before = cli("check", folder, "--format", "json")
    assert before.json()["results"][0]["target"] is None
    assert "not in the hub cache" in before.err
    with FakeHub(FIXTURES / "hub") as server:          # fill the cache once, as a hub check
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        cli("check", "z-lab/Qwen3.6-27B-DFlash", "--format", "json")
        asked = len(server.requests)
        after = cli("check", folder, "--format", "json")
        assert len(server.requests) == asked           # the local check asked nothing
    assert "Qwen/Qwen3.6-27B" in after.json()["results"][0]["target"]
    assert "from the hub cache" in after.err


def test_a_build_of_the_base_model_is_its_target(cli, tmp_path, carded, tiny):
    """Issue 39 item 4: an FP8 line in a card whose base_model names the NVFP4 build of
    the same model drew a false CRD103. Mutation caught: only `<base>-<quant>` names
    taken as the base's builds, not two builds of one model."""
    (carded / "README.md").write_text(
        "---\nbase_model: Qwen/Qwen3.6-27B-NVFP4\n---\n```sh\nvllm serve Qwen/Qwen3.6-27B-FP8 "
        f"--speculative-config '{SPEC % 15}'\n```\n")
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    assert not [f for f in run.json()["results"][0]["findings"] if f["rule"] == "CRD103"]


def test_a_quantized_repos_mtp_line_serving_itself_is_neither_other_drafter_nor_target(
        cli, tmp_path):
    """Issue 39 item 4: a `base_model_relation: quantized` repo whose MTP line serves the
    repo itself as `/model` drew CRD103, and CRD102 called its own MTP head "another
    drafter". Mutations caught: the MTP draft (the served model) compared with the repo's
    name; the quantized copy's own line held to base_model's name."""
    import shutil

    repo = tmp_path / "GLM-5-FP8-MTP-quantized"
    shutil.copytree(FIXTURES / "published" / "glm-5-fp8-mtp", repo)
    (repo / "README.md").write_text(
        "---\nbase_model: zai-org/GLM-5\nbase_model_relation: quantized\n---\n```sh\n"
        "vllm serve /model --speculative-config '{\"method\": \"mtp\", "
        "\"num_speculative_tokens\": 1}'\n```\n")
    run = cli("check", repo, "--format", "json")
    found = [f["rule"] for f in run.json()["results"][0]["findings"]
             if f["rule"] in ("CRD102", "CRD103")]
    assert found == [], found
    (repo / "README.md").write_text((repo / "README.md").read_text().replace(
        "base_model_relation: quantized\n", ""))           # a finetune serving itself
    run = cli("check", repo, "--format", "json")
    assert [f["rule"] for f in run.json()["results"][0]["findings"]
            if f["rule"] in ("CRD102", "CRD103")] == ["CRD103"]


@pytest.mark.parametrize("front", [
    "---\nbase_model: Qwen/Qwen3-8B\n---\n",
    "---\r\nbase_model:\r\n- Qwen/Qwen3-8B\r\n- Qwen/Qwen3-8B-FP8\r\n---\r\n",
    "---\nbase_model: 'Qwen/Qwen3-8B'\nlicense: apache-2.0\n---\n",
    "---\nbase_model: [unclosed\n---\n",
])
def test_the_target_and_the_card_rules_read_one_front_matter(tmp_path, front):
    """Issue 40 item 3: the target came from huggingface_hub's ModelCard parser and the
    card rules from drafter_lint.card's, which can disagree (CRLF, a broken header).
    Mutation caught: a second parser back in hub.read_card."""
    from drafter_lint import card, hub

    (tmp_path / "README.md").write_bytes((front + "# card\n").encode())
    assert tuple(hub.base_models(hub.read_card(tmp_path / "README.md"))) == \
        card.read(front + "# card\n").bases


def test_a_template_placeholder_is_named_once_and_the_line_read(cli, carded, tiny):
    """Issue 39 item 3: `<TP_SIZE>` and `......` in a card's line were not named, and an
    ellipsis standing for the arguments left out was read as a second model. Mutations
    caught: a placeholder line without its CRD101 note; the ellipsis read as an argument
    (the line then refused, its 16-token count never checked)."""
    bad = SPEC % 16
    (carded / "README.md").write_text(
        "```sh\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size <TP_SIZE> "
        f"--speculative-config '{bad}'\nvllm serve --model Qwen/Qwen3.6-27B "
        f"--speculative-config '{bad}' ......\n```\n")
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    found = sorted((f["rule"], f["line"]) for f in run.json()["results"][0]["findings"]
                   if f["file"] == "README.md")
    assert found == [("CRD101", 2), ("CRD101", 3), ("LCH102", 2), ("LCH102", 3)], found


def test_another_drafter_is_a_warning_on_the_hub_and_an_info_locally(cli, carded, tiny,
                                                                      tmp_path, monkeypatch):
    """CRD102's severity follows what the name can prove (review 2026-12-04 M05 survived):
    a hub repo's card naming another repo's drafter is a warning; a local folder, whose name
    may not be its repo's, an info. Mutation caught: the two severities swapped."""
    from fakehub import FakeHub

    (carded / "README.md").write_text(_line(OTHER))
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    local = [f["severity"] for f in run.json()["results"][0]["findings"]
             if f["rule"] == "CRD102"]
    root = tmp_path / "hub"
    shutil.copytree(FIXTURES / "hub", root)
    (root / "z-lab" / "Qwen3.6-27B-DFlash" / "main" / "README.md").write_text(_line(OTHER))
    with FakeHub(root) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        run = cli("check", "z-lab/Qwen3.6-27B-DFlash", "--format", "json")
    on_hub = [f["severity"] for f in run.json()["results"][0]["findings"]
              if f["rule"] == "CRD102"]
    assert (local, on_hub) == (["info"], ["warning"])


def test_a_card_pin_judges_the_model_type_of_a_drafter_of_no_known_family(cli, tmp_path):
    """A drafter no family tells (DL007) with a `model_type` the newest releases load
    (transformers 5 knows `cohere2_moe`) and the card's vLLM 0.15.0 does not (its pin
    admits transformers 4 only, and its registry has no such class): DL014 at the card's
    pin, naming that release, and nothing at config.json. Mutations caught: the card's
    release not asked for config.model-types; the newest release's set used for every
    release; a known type refused."""
    folder = tmp_path / "drafter"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(
        {"model_type": "cohere2_moe", "architectures": ["Cohere2MoeForCausalLM"]}))
    (folder / "README.md").write_text("# drafter\n\n```sh\npip install vllm==0.15.0\n```\n")
    found = cli("check", folder, "--format", "json").json()["results"][0]["findings"]
    assert any(f["rule"] == "DL007" for f in found)
    at = [(f["file"], f["line"], f["severity"]) for f in found if f["rule"] == "DL014"]
    assert at == [("README.md", 4, "error")], found
    message = next(f["message"] for f in found if f["rule"] == "DL014")
    assert "vLLM 0.15.0 refuses to load the config" in message and "0.33" not in message
    (folder / "README.md").write_text("# drafter\n\n```sh\npip install vllm==0.20.0\n```\n")
    found = cli("check", folder, "--format", "json").json()["results"][0]["findings"]
    assert not [f for f in found if f["rule"] == "DL014"], found


@pytest.mark.parametrize("pin,named", [("0.15", "with vLLM 0.15.0, "),
                                       ("0.15.0.post1", "with vLLM 0.15.0.post1, which the "
                                        "card installs (its facts are 0.15.0's)")])
def test_a_card_pin_written_short_or_as_a_post_build_is_judged(cli, tmp_path, pin, named):
    """`vllm==0.15` is 0.15.0 to pip, and a `.post1` build answers with its base's facts;
    both pins are judged like `vllm==0.15.0`, the post build named as written. Mutation
    caught: the pin compared as text with the recorded version (both were skipped: the
    mutation round of 2026-12-05b found it)."""
    folder = tmp_path / "drafter"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(
        {"model_type": "cohere2_moe", "architectures": ["Cohere2MoeForCausalLM"]}))
    (folder / "README.md").write_text(f"# drafter\n\n```sh\npip install vllm=={pin}\n```\n")
    found = cli("check", folder, "--format", "json").json()["results"][0]["findings"]
    hits = [f for f in found if f["rule"] == "DL014"]
    assert [(f["file"], f["line"]) for f in hits] == [("README.md", 4)], found
    assert named in hits[0]["message"], hits[0]["message"]


def test_an_ignored_rule_is_not_reported_for_a_card_line_the_gate_cannot_read(cli, carded,
                                                                             tiny):
    """A card line the shell reads but the gate's reader refuses (`num_speculative_tokens`
    0) is CRD101, unless the command line leaves CRD101 out (`--ignore CRD101`, or a
    `--select` without it). Mutation caught (round 2026-12-05b, M03): that line's
    finding, linted as a variant with CRD101 selected, kept whatever the command line
    asked."""
    line = SPEC.replace("%d", "0")
    (carded / "README.md").write_text(f"# d\n\n```sh\nvllm serve Qwen/Qwen3.6-27B "
                                      f"--speculative-config '{line}'\n```\n")
    for option, shown in (((), True), (("--ignore", "CRD101"), False),
                          (("--select", "DF"), False)):
        run = cli("check", carded, "--target", tiny / "target", *option, "--format", "json")
        found = [(f["rule"], f["file"], f["line"])
                 for f in run.json()["results"][0]["findings"] if f["rule"] == "CRD101"]
        assert found == ([("CRD101", "README.md", 4)] if shown else []), (option, found)


def test_the_folders_settings_apply_once_not_in_each_card_line(cli, carded, tiny):
    """The card's lines are variants of the folder's lint; the folder's settings (its
    ignores, the unused-ignore check DL009) apply once, to the whole result. Mutation
    caught (round 2026-12-05, M02): `engine.variants` suppressing without `settings=True`,
    so each card line also reports the settings file's unused ignore, at README.md."""
    (tiny / ".drafter-lint.toml").write_text(
        '[[per-path-ignores]]\npath = "Qwen3.6*"\nrules = ["DF114"]\nreason = "none"\n')
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    found = run.json()["results"][0]["findings"]
    unused = [(f["file"], f["pointer"]) for f in found if f["rule"] == "DL009"]
    assert unused == [("../.drafter-lint.toml", "/per-path-ignores/0")], unused
    assert [f for f in found if f["file"] == "README.md"]     # the card's lines were linted


def test_launch_checks_the_card_lines_cannot_run_stay_listed_as_skipped(cli, carded):
    """With config.json unreadable, the card's launch lines are still read (CRD101-CRD103
    need no config), but the launch rules that need the config cannot run on them: the
    report lists them as skipped, not as checked. Mutation caught (round 2026-12-05c,
    M02): the card stage counting every launch rule as run on a line (`linted |=
    set(codes)`, the line's own skipped checks not taken away), so LCH101-LCH106 vanished
    from `skipped` and a card nobody could check read as checked."""
    (carded / "config.json").write_text('{"architectures": [')
    result = cli("check", carded, "--format", "json").json()["results"][0]
    assert any(f["rule"] == "CRD102" and f["file"] == "README.md"
               for f in result["findings"])                       # the card was read
    skipped = {s["rule"]: s["reason"] for s in result["skipped"]}
    for code in ("LCH101", "LCH102", "LCH103"):
        assert "config.json" in skipped.get(code, ""), skipped


def test_config_findings_come_first_in_the_report(cli, carded, tiny):
    """A report lists config.json's findings first, then each other file's (the card's
    README.md, whose name sorts before `config.json`, comes after it), each file's by
    line: the file the checks are about leads. Mutation caught (round 2026-12-05d, M18):
    the findings sorted by file name alone, so the card's lines came before the config's
    and the config's errors were buried at the end of a long card report."""
    config = json.loads((carded / "config.json").read_text())
    config["hidden_size"] = str(config["hidden_size"])            # DL008 at config.json
    (carded / "config.json").write_text(json.dumps(config, indent=2))
    run = cli("check", carded, "--target", tiny / "target", "--format", "json")
    files = [f["file"] for f in run.json()["results"][0]["findings"]]
    assert "config.json" in files and "README.md" in files, files
    first = files.count("config.json")
    assert files[:first] == ["config.json"] * first, files
    concise = cli("check", carded, "--target", tiny / "target", "--format", "concise")
    lines = [line for line in concise.out.splitlines() if line.strip()]
    assert "config.json:" in lines[0], lines[:3]


@pytest.mark.parametrize("fence", ["Python", "PY", "python3"])
def test_a_python_block_is_read_as_python_whatever_the_case_of_its_fence(fence):
    """Markdown fences name their language in any case. Mutation caught (round
    2026-12-06g, M15): the fence's info compared without `.lower()` (card.py), so a
    ```Python block was read as shell and its `LLM(...)` call gave no launch line."""
    text = (f"```{fence}\n"
            'llm = LLM(model="Qwen/Qwen3.6-27B", speculative_config={"method": "dflash", '
            '"model": "z-lab/Qwen3.6-27B-DFlash", "num_speculative_tokens": 15})\n```\n')
    lines = card.read(text).lines
    assert len(lines) == 1 and lines[0].argv[:3] == ("vllm", "serve", "Qwen/Qwen3.6-27B"), \
        [(c.argv, c.problem) for c in lines]
