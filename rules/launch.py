"""Rules on a server launch line against the drafter (`drafter-lint gate`)."""

from __future__ import annotations

from drafter_lint.rules.common import architecture_names
from drafter_lint.rules.speculators import speculators_type

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.family import detect, mtp_count, rule_families
from drafter_lint.findings import Finding, Severity
from drafter_lint.jsondoc import dotted
from drafter_lint.registry import rule
from drafter_lint.runtimes.path import refuses_runner_variable


def _block(facts: Facts) -> int | None:
    return facts.int("/block_size") or facts.int("/dflash_config/block_size") or \
        facts.int("/dspark_block_size")


def _is_dspark(facts: Facts) -> bool:
    """A native DSpark drafter, or a speculators file of model type dspark."""
    return facts.family.endswith("dspark") or speculators_type(facts) == "dspark"


def _dspark_layout(facts: Facts, release) -> str | None:
    """"anchor-first" or "bonus-anchor" for a DSpark drafter on `release`, else None
    (not DSpark, or the release's DSpark layout is not recorded)."""
    defaults = runtimes.value("dspark.sample-from-anchor-default", release, {})
    written = facts.get("/sample_from_anchor", None)
    if not isinstance(written, bool):
        written = defaults.get("speculators" if facts.family.startswith("speculators")
                               else "native")
    if not _is_dspark(facts) or written is None:
        return None
    layout = "anchor-first" if written else "bonus-anchor"
    return layout if layout in runtimes.value("dspark.tokens-per-block", release, {}) else None


def _method(release, method, accepted) -> str | None:
    """The launch's method as `release` reads it: SGLang upper-cases it; vLLM from 0.11.0
    takes every `*_mtp` name as an alias of `mtp` (vllm==0.33.0
    config/speculative.py:1246-1250), before it each is a method of its own (vllm==0.10.2
    config/__init__.py:1882-1884)."""
    if not isinstance(method, str):
        return method
    if release.runtime == "sglang":
        return method.upper()
    if method.endswith("_mtp") and method not in accepted and "mtp" in accepted:
        return "mtp"
    return method


def _method_unknown_to(release, method, served: dict):
    """A drafter of no family told: its launch method is judged by name alone. A name
    that some release serves drafters with but this one does not have at all is refused
    whatever the drafter: vLLM 0.10.2's methods are a pydantic Literal without `mtp`
    (config/__init__.py:1897-1899; `qwen3_next_mtp` there), "Input should be ...". Before
    0.9.1 SpeculativeConfig was a plain dataclass that validated no name (vllm==0.9.0
    config.py; 0.9.1 :27 imports pydantic's), so nothing is said there."""
    if not isinstance(method, str) or \
            not runtimes.value("launch.method-names-validated", release, False):
        return
    have = {m for names in served.values() for m in names if m}
    if method in have or not runtimes.ever(
            "launch.methods", lambda value: any(method in names for names in value.values())):
        return
    yield Finding("", f"the launch line asks for method {method!r}: {release.label} has no "
                  f"such method and refuses to start (it has: {', '.join(sorted(have))})")


def _release(facts: Facts):
    """The launch line's runtime release (the one installed behind it, or --runtime's: the
    gate sets it) on the launch's path; None without a launch line."""
    if not facts.launch.runtime or facts.server.release is None:
        return None
    return facts.on_path(facts.server.release)


@rule("LCH101", "launch-method-vs-family", "error", "any", needs=("config", "launch"))
def method_vs_family(facts: Facts):
    """The launch line's speculative method does not serve this drafter's family.

    vLLM's `--speculative-config` `method` and SGLang's `--speculative-algorithm` pick the
    model class: an EAGLE-3 head served as `eagle` (or a DFlash drafter as `eagle3`) loads
    the wrong architecture or fails. The accepted names per family are runtime facts:
    vllm==0.33.0 config/speculative.py:38-82 (Medusa was removed; DFlash2 is `dflash`;
    every `*_mtp` alias is `mtp`), sglang==0.5.23 arg_groups/fields/spec.py:31-34 (names are
    upper-cased; no Medusa, no speculators format).

    Fails: `"method": "eagle"` for an EAGLE-3 head; `"method": "medusa"` on vLLM 0.33;
    `--speculative-algorithm EAGLE3` for a DFlash drafter.
    Passes: `"method": "dflash"` for a DFlash or DFlash2 drafter.
    """
    release = _release(facts)
    method = facts.launch.method
    if release is None:
        return
    fact = runtimes.lookup("launch.methods", release)
    family = "speculators" if facts.family.startswith("speculators") else facts.family
    accepted = fact.value.get(family) if fact else None
    if accepted is None:
        if fact is not None and family == "unknown":
            yield from _method_unknown_to(release, method, fact.value)
        return
    if method is None and release.runtime == "vllm" and accepted:
        return  # vLLM infers the method from the model (see EA318)
    method = _method(release, method, accepted)
    if method not in accepted:
        wanted = ", ".join(sorted(m for m in accepted if m)) or \
            f"none: {release.label} cannot serve it"
        if method is None:
            yield Finding("", f"the launch line names a draft but no speculative method, so "
                          f"no speculation runs; {release.label} serves this "
                          f"{facts.family} checkpoint with: {wanted}")
            return
        yield Finding("", f"the launch line asks for method {method!r} but this is a "
                      f"{facts.family} checkpoint; {release.label} serves it with: {wanted}")


@rule("LCH102", "launch-tokens-vs-block", "error", "dflash", needs=("config", "launch"))
def tokens_vs_block(facts: Facts):
    """The speculative token count does not fit the trained DFlash or DSpark block.

    A DFlash block is one anchor plus B-1 mask slots: vLLM's `num_speculative_tokens` must
    be at most `block_size - 1`, SGLang's `--speculative-num-draft-tokens` (the block
    itself) at most `block_size`; the z-lab README serves block 16 with 15 tokens. A DSpark
    block predicts from slot 0 (anchor-first), so vLLM drafts up to `block_size` (or
    `dspark_block_size`) tokens and defaults to exactly that; only with
    `sample_from_anchor: false` is the anchor the bonus token and the limit B-1 (vllm==0.33.0
    v1/worker/gpu/spec_decode/dspark/speculator.py:49-55). SGLang's DSpark takes
    `--speculative-num-draft-tokens` - 1 as its block and only warns on a mismatch
    (sglang==0.5.23 speculative/dspark_components/dspark_config.py:51-58, 100-117), so its
    limit is B+1. No release refuses a longer DSpark block (a warning): the deep positions
    draft untrained and are mostly rejected, DeepSeek-V4-Flash's `dspark_block_size` 5
    served with 7 tokens accepting 4.4% of drafts instead of 34.7% (vLLM PR #41834), though
    vLLM's own DeepSeek-V4 recipes serve DSpark with 7.

    Fewer tokens than DSpark's `dspark_block_size` are refused at start-up by vLLM
    0.26.0-0.27.1 ("DSpark requires num_speculative_tokens >= dspark_block_size",
    vllm==0.26.0 config/speculative.py:1004-1027); the releases before and after take them.

    Fails: `num_speculative_tokens` 16 with DFlash `block_size` 16 (vLLM); 7 with DSpark
    `dspark_block_size` 5 (a warning); 3 with `dspark_block_size` 5 under vLLM 0.26.0.
    Passes: 15; 7 with DSpark `block_size` 7; 3 with `dspark_block_size` 5 under 0.28.0.
    """
    block = _block(facts)
    if not block:
        return
    ptr = next((p for p in ("/block_size", "/dflash_config/block_size", "/dspark_block_size")
                if facts.has(p)), "/block_size")
    what = {"vllm": "num_speculative_tokens", "sglang": "--speculative-num-draft-tokens"}
    floor = facts.int("/dspark_block_size")
    for release in facts.releases:
        count = facts.launch.count(release.runtime)
        if not count:
            continue
        if floor and count < floor and \
                runtimes.value("dspark.tokens-below-block-refused", release):
            yield Finding("/dspark_block_size", f"{what[release.runtime]} {count} is below "
                          f"dspark_block_size {floor}: "
                          f"{runtimes.agree([release], 'refuses')} it at start-up")
            continue
        layout = _dspark_layout(facts, release)
        if layout:
            limit = block + runtimes.value("dspark.tokens-per-block", release)[layout]
            slots = block if layout == "anchor-first" else block - 1
        elif _is_dspark(facts):
            continue   # DSpark block semantics not recorded for this runtime
        else:
            fact = runtimes.lookup("dflash.tokens-per-block", release)
            limit, slots = block + (fact.value if fact else 0), block - 1
        if count > limit and layout:
            # no release refuses a longer DSpark block: the deep positions draft untrained
            yield Finding(ptr, f"{what[release.runtime]} {count} exceeds the {limit} draft "
                          f"slots of {dotted(ptr)} {block} ({layout}): "
                          f"{runtimes.agree([release], 'drafts')} the positions beyond them "
                          f"untrained, and they are mostly rejected",
                          severity=Severity.WARNING)
        elif count > limit:
            yield Finding(ptr, f"{what[release.runtime]} {count} exceeds {limit}, the most "
                          f"{release.label} can use of {dotted(ptr)} {block}: the "
                          f"drafter was trained for {slots} draft slots")


@rule("LCH105", "launch-omni-dspark-tokens", "error", "dflash", needs=("config", "launch"))
def omni_dspark_tokens(facts: Facts):
    """A Qwen3-Omni DSpark drafter launched with a token count other than its block.

    vLLM serves the standalone Qwen3-Omni DSpark checkpoint (`Qwen3OmniDSparkModel`) only
    with `num_speculative_tokens` equal to the trained `block_size` (or
    `dspark_block_size`), and refuses anything else at start-up ("Qwen3-Omni DSpark
    requires num_speculative_tokens to match the trained block_size", vllm==0.33.0
    config/speculative.py:167-202, called at :1669-1676). Other DSpark drafters take up to
    the block (LCH102).

    Fails: block 16 served with 8 tokens. Passes: 16; a `Qwen3DSparkModel` with 8.
    """
    count = facts.launch.count("vllm")
    names = architecture_names(facts)
    if not isinstance(count, int) or not names:
        return
    exact = runtimes.matching(facts.releases, "dspark.exact-token-architectures",
                              lambda classes: bool(names & classes))
    ptr = next((p for p in ("/block_size", "/dflash_config/block_size", "/dspark_block_size")
                if facts.has(p)), "/block_size")
    block = facts.int(ptr)
    if exact and block and count != block:
        yield Finding(ptr, f"num_speculative_tokens {count} is not {dotted(ptr)} {block}: "
                      f"{runtimes.agree(exact, 'serves')} {sorted(names)[0]} only with "
                      f"exactly the trained block and refuses to start")


@rule("LCH106", "launch-refused-by-runtime", "error", "any", needs=("config", "launch"))
def refused_by_runtime(facts: Facts):
    """The runtime's own start-up code refused the launch line in the gate's dry run.

    `gate` runs the installed vLLM's or SGLang's start-up resolution for the launch's own
    arguments in the interpreter the line will use, before starting it
    (drafter_lint/dryrun/): vLLM's argument parser, `EngineArgs.create_engine_config()`
    and the draft model's `__init__` on the meta device; SGLang's `prepare_server_args`,
    `resolve_once`, the target and draft `ModelConfig` and the registry. Then the draft's
    weights go through the release's own loader (vLLM's `DefaultModelLoader.load_weights`,
    SGLang's `_get_all_weights` and the model's `load_weights`) as meta tensors made from
    the safetensors headers (drafter_lint/dryrun/weights.py). Whatever it raises is what
    the server would raise, quoted with its file:line; a parameter the load leaves at its
    random init (beyond those every published drafter of the class leaves, and those the
    runtime shares from the target: drafter_lint/runtimes/loads.py) is refused too. No
    tensor data is read and no device memory is used.

    Fails: `VLLM_USE_V2_MODEL_RUNNER=0` with a mixed sliding DFlash drafter, vLLM 0.33.0
    installed; a DSpark config over weights with no Markov head. Passes: a launch the
    runtime accepts; no dry run (`--no-dry-run`).
    """
    verdict = facts.dry_run
    if verdict is None or not verdict.refused:
        return
    name = runtimes.LABEL.get(verdict.runtime, "the runtime")
    where = f" ({verdict.where})" if verdict.where else ""
    what = "weight loading" if verdict.stage == "weights" else "start-up"
    yield Finding("", f"{name} {verdict.version}'s own {what} refuses this "
                  f"launch{where}: {verdict.message}")


@rule("LCH107", "launch-flag-removed", "error", "any", needs=("launch",))
def flag_removed(facts: Facts):
    """The launch line uses vLLM's old speculative flags, which this release refuses.

    `--speculative-model` and `--num-speculative-tokens` configured speculative decoding
    up to vllm==0.8.2 (engine/arg_utils.py:779-801); from 0.8.3 only
    `--speculative-config` does (vllm==0.8.3 engine/arg_utils.py:780), and argparse
    stops on the old flags ("unrecognized arguments"). Cards still show them
    (jfan/Qwen3.8-27B-heretic-dflash's vLLM line).

    Fails: `--speculative-model X --num-speculative-tokens 16` for vLLM 0.33.0. Passes:
    `--speculative-config '{"model": "X", "num_speculative_tokens": 15, ...}'`; the old
    flags for vLLM 0.8.2.
    """
    release = _release(facts)
    if release is None or release.runtime != "vllm" or not facts.launch.legacy_flags:
        return
    if runtimes.value("vllm.legacy-speculative-flags", release) is False:
        flags = ", ".join(dict.fromkeys(facts.launch.legacy_flags))
        since = runtimes.held_since("vllm.legacy-speculative-flags", lambda v: v is False)
        yield Finding("", f"{flags}: {release.label} has no such flag (--speculative-config "
                      f"replaced it from vLLM {since}) and refuses the line; write "
                      f"--speculative-config '{{\"method\": ..., \"model\": ..., "
                      f"\"num_speculative_tokens\": ...}}'")


@rule("LCH108", "launch-flag-refused", "error", "any", needs=("launch",))
def flag_refused(facts: Facts):
    """The release's own argument parser refuses a flag of the launch line.

    Each recorded release's `vllm serve` and SGLang server options are data, built by
    executing the release's own parser construction (drafter_lint/runtimes/grammar.py,
    tools/grammar.py). Both parsers are argparse with `allow_abbrev` on (vllm==0.33.0
    utils/argparse_utils.py:156, sglang==0.5.23 server_args.py:679): a unique prefix is the
    option, an ambiguous one stops the parser ("ambiguous option"), an unknown or removed
    flag stops it ("unrecognized arguments"), and so does a value outside an option's
    static choices ("invalid choice"). The message is the parser's own, with the release
    that removed the flag or first has it where the grammars show it. vLLM's old
    `--speculative-model` is LCH107's.

    Fails: `--speculative-draft PATH` on SGLang 0.5.23 (ambiguous: it could match
    --speculative-draft-model-path, --speculative-draft-model-revision, ...); `--dtype
    fp9` on vLLM 0.33.0; `--max-num-partial-prefills` on vLLM 0.27.0, which removed it.
    Passes: `--speculative-conf '{...}'` (a unique prefix of --speculative-config),
    `--speculative-algo DFLASH` on SGLang 0.5.23 (a unique prefix of
    --speculative-algorithm); `--enforce-eager MODEL` (a flag: the model stays positional).
    Each verdict is the real parser's: tests/data/oracle/grammar_verdicts.json.
    """
    release = facts.launch.flags_for
    for problem in facts.launch.flag_problems:
        yield Finding("", f"{release.label if release else 'the release'}'s argument parser "
                          f"refuses the line: {problem}")


@rule("LCH104", "launch-mtp-without-mtp-layers", "error", "any", needs=("config", "launch"))
def mtp_without_layers(facts: Facts):
    """The launch line asks for MTP but the checkpoint declares zero MTP layers.

    vLLM builds `num_nextn_predict_layers` MTP layers and drafts with them (vllm==0.33.0
    config/speculative.py:749-763); with 0 there is no head to draft with, and the token
    check divides by it (:1600-1606). SGLang's NEXTN loads the MTP layer from the same
    checkpoint. Kimi-K2-Instruct ships `"num_nextn_predict_layers": 0`. A count that is
    absent is not judged (Qwen3-Next's config carries none and serves MTP).

    Fails: `"method": "mtp"` with `"num_nextn_predict_layers": 0` and no MTP tensors.
    Passes: a count of 1 or more; MTP tensors in the weights; no count written.
    """
    release, method = _release(facts), facts.launch.method
    if release is None or not isinstance(method, str) or \
            facts.family not in ("mtp", "unknown"):
        return
    accepted = runtimes.value("launch.methods", release, {}).get("mtp", ())
    if _method(release, method, accepted) not in accepted:
        return
    count = mtp_count(facts.config)
    if count is None or count[1] != 0 or detect(facts.config, facts.names) == "mtp":
        return
    yield Finding(count[0], f"the launch line asks for {method!r} but {dotted(count[0])} is "
                  f"0: the checkpoint has no MTP layer to draft with ({release.label})")



@rule("LCH103", "launch-swa-runtime", "error", "any", needs=("config", "launch"))
def swa_runtime(facts: Facts):
    """A mixed sliding/full or DFlash2 drafter is launched on vLLM's V1 model runner, or
    any drafter asks a release without V1 for it.

    The runner is the launch's path (runtimes/path.py): `VLLM_USE_V2_MODEL_RUNNER=0`, on the
    launch line or in the gate's own environment, selects V1 (vllm==0.33.0
    config/vllm.py:748-767, envs.py:2149); without it mixed and DFlash2 drafts are sent to
    V2 (from 0.26.0 and 0.28.0). V1 refuses a sliding/full mix from 0.26.0
    (config/vllm.py:3128-3137), and a DFlash2 draft and method dspark from 0.29.0
    (vllm==0.29.0 config/vllm.py:2632-2636, 2621-2624); on 0.28.0 V1 serves DFlash2 as
    DFlash1, silently. From 0.34.0 there is no V1 (`runner.v2-policy`): the start-up
    refuses `VLLM_USE_V2_MODEL_RUNNER` set to anything but 1, whatever the drafter
    (vllm==0.34.0 platforms/interface.py:1481-1486, "Model Runner V1 has been removed").

    vLLM 0.12.0-0.33.0 read the variable with `bool(int(value))` (vllm==0.33.0
    envs.py:360-363): `true`, `yes` or `on` stop start-up with a ValueError.

    `check --env VLLM_USE_V2_MODEL_RUNNER=0` asks the same of every vLLM release checked.

    Fails: `VLLM_USE_V2_MODEL_RUNNER=0 vllm serve ...` with a 4 sliding + 1 full drafter.
    Fails: `VLLM_USE_V2_MODEL_RUNNER=0 vllm serve ...` with any drafter, on a release
    without V1.
    Passes: the same line without the variable (V2 is the default).
    """
    chosen = [_release(facts)] if facts.launch.runtime else facts.releases   # check --env
    kinds = facts.get("/layer_types", None)
    dflash = "dflash" in rule_families(facts.family)
    mixed = dflash and isinstance(kinds, list) and \
        {"sliding_attention", "full_attention"} <= set(kinds)
    for release in chosen:
        why = release and refuses_runner_variable(release, facts.server.environment)
        if why:
            yield Finding("", f"VLLM_USE_V2_MODEL_RUNNER="
                          f"{facts.server.environment.get('VLLM_USE_V2_MODEL_RUNNER')}: "
                          f"{release.label} {why}")
            continue
        if release is None or release.runner != "v1":
            continue                             # only vLLM has the two runners
        if mixed and runtimes.value("runner.v1-refuses-mixed-swa", release):
            what, where = "mixes sliding and full layers", "/layer_types"
        elif facts.family == "dflash2" and runtimes.value("runner.v1-refuses-dflash2", release):
            what, where = "is a DFlash2 drafter", ""
        elif facts.family == "dspark" and runtimes.value("runner.v1-refuses-dspark", release):
            what, where = "is a DSpark drafter", ""
        else:
            continue
        yield Finding(where, f"the drafter {what}: {release.label} ({release.why}) refuses it "
                      f"at start-up; drop VLLM_USE_V2_MODEL_RUNNER=0")


def _target_architectures(facts: Facts) -> list[str]:
    """The served target's `architectures`: an MTP checkpoint's own, else the target's."""
    if facts.family == "mtp":
        written = facts.get("/architectures", None)
    elif facts.target is not None:
        written = facts.target.architectures
    else:
        return []
    if not isinstance(written, (list, tuple)):
        return []
    return [a for a in written if isinstance(a, str)]


@rule("LCH109", "launch-algorithm-refused-for-target", "error", "any",
      needs=("config", "launch"))
def algorithm_refused_for_target(facts: Facts):
    """SGLang refuses the launch's speculative algorithm for this target at start-up.

    SGLang's DeepSeek-V4 start-up hook admits only EAGLE (the MTP stages as the draft) and,
    from 0.5.16, DSPARK for a `DeepseekV4ForCausalLM` target: NEXTN, the algorithm its
    DeepSeek-V3 MTP is launched with, fails an assertion ("Only EAGLE and DSPARK
    speculative algorithms are supported", sglang==0.5.23
    srt/arg_groups/deepseek_v4_hook.py:148-153; 0.5.12 :36-39 EAGLE alone). Found by the
    oracle lane launching the published DeepSeek-V4-Pro as an MTP checkpoint.

    Fails: `--speculative-algorithm NEXTN` with DeepSeek-V4-Pro under `--runtime
    sglang==0.5.23`. Passes: EAGLE; DSPARK from 0.5.16; NEXTN with DeepSeek-V3.
    """
    algorithm = facts.launch.method if facts.launch.runtime == "sglang" else None
    archs = _target_architectures(facts)
    if not isinstance(algorithm, str) or not archs:
        return
    refusing: dict[frozenset, list] = {}
    for release in facts.releases:
        if release.runtime != "sglang":
            continue
        allowed = (runtimes.value("sglang.algorithms-for-target", release) or {}).get(archs[0])
        if allowed is not None and algorithm.upper() not in allowed:
            refusing.setdefault(frozenset(allowed), []).append(release)
    for allowed, releases in refusing.items():
        yield Finding("/architectures" if facts.family == "mtp" else "",
                      f"--speculative-algorithm {algorithm} with a {archs[0]} target: "
                      f"{runtimes.agree(releases, 'serves')} it only with "
                      f"{' or '.join(sorted(allowed))} and refuses to start")
