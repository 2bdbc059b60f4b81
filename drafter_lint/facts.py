"""What rules see: the checkpoint and target as read, with typed look-ups. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drafter_lint import jsondoc, quantization, runtimes
from drafter_lint.checkpoint import Checkpoint
from drafter_lint.family import method as family_method
from drafter_lint.family import rule_families
from drafter_lint.findings import Finding
from drafter_lint.launch import DryRunVerdict, LaunchLine, ServerContext
from drafter_lint.loading import Pending
from drafter_lint.options import Options
from drafter_lint.reference import Reference
from drafter_lint.safetensors_header import TensorInfo
from drafter_lint.target import Target, layer_count
from drafter_lint.tokenizer import TokenizerFacts

if TYPE_CHECKING:
    from drafter_lint.loading import Loaded

MISSING = object()
NO_LAUNCH = LaunchLine()
NO_SERVER = ServerContext()


@dataclass
class Facts:
    checkpoint: Checkpoint
    options: Options = field(default_factory=Options)
    family: str = "unknown"
    schemas: list = field(default_factory=list)   # JSON Schemas of the family's config
    pending_load: object = None               # loading.start() result, resolved on use
    # what the suppression phase found (DL009, DL010 read these)
    unused_ignores: list = field(default_factory=list)
    stale_baseline: list = field(default_factory=list)
    _computed: dict = field(default_factory=dict, repr=False)

    @property
    def target(self) -> Target | None:
        return self.options.target

    @property
    def reference(self) -> Reference | None:
        return self.options.reference

    @property
    def runtime(self) -> runtimes.Release | None:
        """The release asked for (--runtime, the settings', or the launch line's), or None:
        every serving runtime's newest."""
        return self.options.runtime

    @property
    def launch(self) -> LaunchLine:
        """The launch line (`gate`'s, a card's, or check's --num-speculative-tokens); an
        empty one without (rules that need it are skipped then, see engine.NEEDS)."""
        return self.options.launch or NO_LAUNCH

    @property
    def server(self) -> ServerContext:
        """Where the launch's server runs: its environment and the release behind it (an
        empty context without)."""
        return self.options.server or NO_SERVER

    @property
    def dry_run(self) -> DryRunVerdict | None:
        """The runtime's own start-up verdict on the launch (`gate`), or None."""
        return self.options.dry_run

    @property
    def use_cache(self) -> bool:
        return self.options.use_cache

    @property
    def baseline_path(self):
        return self.options.baseline_path

    @property
    def loaded(self) -> "Loaded | None":
        """What transformers loads (waits for the loader process on first use)."""

        if isinstance(self.pending_load, Pending):
            self.pending_load = self.pending_load.result()
        return self.pending_load

    def once(self, name: str, compute):
        """`compute(self)`, run once per checkpoint for every rule that asks for `name`."""
        if name not in self._computed:
            self._computed[name] = compute(self)
        return self._computed[name]

    @property
    def releases(self) -> tuple:
        """The runtime releases findings are checked for: the one asked for (--runtime, or
        the launch line's), else the newest release of every serving runtime; only those
        that serve this drafter's family."""
        if "releases" not in self._computed:
            chosen = (self.runtime,) if self.runtime is not None else \
                runtimes.default_releases()
            self._computed["releases"] = tuple(self.on_path(r) for r in chosen
                                               if runtimes.serves(r, self.family))
        return self._computed["releases"]

    def on_path(self, release: runtimes.Release) -> runtimes.Release:
        """`release` with the model runner this launch takes on it (runtimes/path.py): the
        target, the method, the draft and the server's environment decide."""
        method = self.launch.method if self.launch.runtime == release.runtime else None
        if isinstance(method, str):
            method = "mtp" if method.lower().endswith("_mtp") else method.lower()
        else:
            method = family_method(self.family, "vllm")
        target = None
        if self.target is not None:
            target = dict(self.target.config, architectures=self.target.architectures)
            target["quantization_config"] = {} if self.target.quantized else None
        context = runtimes.Context(target=target, method=method, draft=self.config,
                          env=self.server.environment)
        return runtimes.on_path(release, context)

    @property
    def runtime_name(self) -> str | None:
        """The runtime asked for by name, or None when checking every serving runtime."""
        return self.runtime.runtime if self.runtime is not None else None

    @property
    def families(self) -> frozenset[str]:
        return rule_families(self.family)

    @property
    def config(self) -> dict:
        """config.json as rules read it. For a speculators checkpoint, the wrapped
        `transformer_layer_config` fields are visible at the top level (see `where`)."""
        config = self.checkpoint.config or {}
        inner = config.get("transformer_layer_config")
        if self.family.startswith("speculators/") and isinstance(inner, dict):
            return {**inner, **config}
        return config

    def where(self, pointer: str) -> str:
        """The real pointer in config.json of a pointer into `config`."""
        config = self.checkpoint.config or {}
        inner = config.get("transformer_layer_config")
        key = pointer[1:].split("/", 1)[0]
        if (self.family.startswith("speculators/") and isinstance(inner, dict)
                and key and key not in config and key in inner):
            return "/transformer_layer_config" + pointer
        return pointer

    @property
    def weights(self) -> dict[str, TensorInfo] | None:
        return self.checkpoint.weights

    @property
    def quantization(self) -> "quantization.Scheme | None":
        """The quantization description the runtime reads (config.json, else
        hf_quant_config.json)."""
        quant = self.checkpoint.quant_doc
        return quantization.read(self.checkpoint.config, quant.value if quant else None)

    @property
    def tokenizer(self) -> TokenizerFacts | None:
        """The target's tokenizer, else the one shipped beside the drafter."""
        if self.target and self.target.tokenizer:
            return self.target.tokenizer
        return self.checkpoint.tokenizer

    @property
    def names(self):
        """Every tensor name: from the shard index when there is one (its shards may not
        all have been read), else from the headers."""
        if self.checkpoint.index_doc is not None:
            return self.checkpoint.index_doc.value["weight_map"].keys()
        return (self.weights or {}).keys()

    def get(self, pointer: str, default=MISSING):
        """The config value at `pointer`, or `default` when absent."""
        try:
            return jsondoc.resolve(self.config, pointer)
        except KeyError:
            return default

    def has(self, pointer: str) -> bool:
        return self.get(pointer) is not MISSING

    def int(self, pointer: str) -> int | None:
        """The value at `pointer` if it is a JSON integer (not a bool, not 2.0), else None."""
        value = self.get(pointer, None)
        return value if type(value) is int else None

    def layers(self, pointer: str) -> int | None:
        """A layer count at `pointer` (`target.layer_count`), else None. Rules
        that walk layers use this, so a hostile count cannot make them allocate without
        bound; the schemas report such a value."""
        return layer_count(self.get(pointer, None))

    def int_list(self, pointer: str) -> list[int] | None:
        value = self.get(pointer, None)
        if isinstance(value, list) and all(type(v) is int for v in value):
            return value
        return None

    def tensor_file(self, tensor: str) -> str:
        """The weights file holding `tensor`, else the first one (for a missing tensor)."""
        info = (self.weights or {}).get(tensor)
        return info.file if info else (sorted(self.checkpoint.headers) or ["model.safetensors"])[0]

    def tensor_finding(self, tensor: str, message: str, **kw):
        """A finding about `tensor`, addressed in the weights file that holds it."""

        return Finding(jsondoc.pointer(tensor), message, file=self.tensor_file(tensor), **kw)

    def shape(self, tensor: str) -> tuple[int, ...] | None:
        info = (self.weights or {}).get(tensor)
        return info.shape if info else None
