"""DSpark drafters: what the runtimes require beyond the DFlash layout they extend."""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.facts import Facts
from drafter_lint.findings import Finding
from drafter_lint.registry import collect, rule


@rule("DF143", "dspark-markov-rank-missing", "error", "dspark")
def markov_rank_missing(facts: Facts):
    """A DSpark drafter with no positive `markov_rank` where the runtime reads it.

    The Markov head (a rank-r token-transition bias) is part of every DSpark draft model,
    and both runtimes size it from the top-level `config.markov_rank` when they build the
    draft: vLLM with no default (vllm==0.33.0 model_executor/models/qwen3_dspark.py:212,
    gemma4_dspark.py:190: AttributeError), SGLang defaulting to 0 and refusing it
    (sglang==0.5.23 models/dspark.py:385-390). SGLang's config parser also accepts
    `dflash_config.markov_rank` (dspark_components/dspark_config.py:239-251), but its
    model does not read it there. The oracle lane records both refusals, for a missing rank
    and for one only under `dflash_config` (SpecForge's training templates).

    Fails: `"architectures": ["DSparkDraftModel"]` with no `markov_rank`, or with it only
    under `dflash_config`. Passes: a top-level `"markov_rank": 256`.
    """
    refusing = []
    for release in facts.releases:
        sources = runtimes.value("dspark.markov-rank-sources", release)
        if sources is None:
            continue
        found = next((facts.get(p) for p in sources if facts.has(p)), None)
        if not (isinstance(found, int) and not isinstance(found, bool) and found > 0):
            refusing.append(release)
    if refusing:
        written = facts.get("/markov_rank", None)
        what = "missing" if written is None else f"{written!r}"
        nested = facts.get("/dflash_config/markov_rank", None)
        hint = (f"; dflash_config.markov_rank {nested!r} is not where the draft model reads "
                f"it, copy it to the top level") if nested is not None else \
            " (write the rank the drafter was trained with)"
        yield Finding("/markov_rank", f"markov_rank is {what} at the top level: "
                      f"{runtimes.agree(refusing, 'builds')} the Markov head from it and "
                      f"refuses to start{hint}")


RULES = collect(markov_rank_missing)
