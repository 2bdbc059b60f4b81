"""How one vLLM release picks its model runner with VLLM_USE_V2_MODEL_RUNNER unset
(`VllmConfig.use_v2_model_runner`), as read whole from its wheel into registries.json
(`runner.v2-policy`) and parsed once, here; runtimes/path.py applies it to a launch."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class RunnerPolicy:
    # "v1" (no choice), "v2", or "model": the target decides (the fields below)
    default: str
    # drafts that take V2 whatever the target: "dspark", "dflash-mixed", "dflash2"
    forced: frozenset = frozenset()
    # the speculative methods V2 runs (empty: any) and those it refuses (then V1)
    methods: frozenset = frozenset()
    refused_methods: frozenset = frozenset()
    # target kinds never on V2 by default: "is_hybrid", "is_attention_free"
    never: frozenset = frozenset()
    # the target architectures V2 is the default for, unless the target is one of
    # `listed_unless` ("is_moe", "is_quantized")
    architectures: frozenset = frozenset()
    listed_unless: frozenset = frozenset()
    # V2 is also the default for every dense (not MoE) target
    dense: bool = False
    # the release has no Model Runner V1: its start-up refuses VLLM_USE_V2_MODEL_RUNNER set
    # to anything but "1" (vllm==0.34.0 platforms/interface.py:1481-1490)
    v1_removed: bool = False

    @classmethod
    def read(cls, value: dict) -> RunnerPolicy:
        """The policy of one registries.json run (lists as sets); a key it does not know
        is an error, not ignored."""
        names = {f.name for f in fields(cls)}
        unknown = set(value) - names
        if unknown or value.get("default") not in ("v1", "v2", "model"):
            raise ValueError(f"runner.v2-policy: unknown keys {sorted(unknown)} or default "
                             f"{value.get('default')!r}")
        return cls(**{k: v if k in ("default", "dense", "v1_removed") else frozenset(v)
                      for k, v in value.items()})
