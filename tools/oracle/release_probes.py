"""One probe per vLLM / SGLang row of drafter_lint/runtimes/table.py: how
release_evidence.py tells, in a release's wheel, whether the row holds there.

A probe is files (a glob under the wheel root, `**/` for any folders) with a
pattern (Python `re`, multi-line) that must match, optional `also` pairs that must match
too and `also_not` pairs that must not; or an extractor that reads a value from the wheel,
which must equal the row's value. Patterns name the code the row's cite points to.

A probe names its row's key, runtime and runner, not its range: the probes of one key,
runtime and runner are listed in the order of their rows in table.py, and take `since` and
`until` from them (`_ranged`), so a range is written once, in the table. A row may carry
its probe itself (`seen=Seen(files, pattern, ...)` in table.py): then it has none here.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, replace

from packaging.version import Version

from drafter_lint.runtimes import FACTS, registries


@dataclass(frozen=True)
class Probe:
    key: str
    runtime: str
    files: str = ""
    pattern: str = ""
    also: tuple = ()
    also_not: tuple = ()
    extract: str = ""
    path: str = ""             # the row's runner ("v1", "v2"), when it names one
    since: str = ""            # the row's range, taken from table.py (`_ranged`)
    until: str = ""

    def globs(self) -> set[str]:
        if self.extract:
            return set(EXTRACTED[self.extract])
        return {self.files, *(f for f, _ in self.also), *(f for f, _ in self.also_not)}


# -- extractors: (value, "path:line") from a release, or (None, None) ---------------------

def _vllm_registry(release):
    """The keys of `_VLLM_MODELS` in vLLM's model registry, with the `_*_MODELS` dicts it
    merges (what `architectures` must name: "Model architectures [...] are not supported
    for now")."""
    name = "vllm/model_executor/models/registry.py"
    if not release.names(name):
        return None, None
    dicts, line = {}, None
    for node in ast.parse(release.text(name)).body:
        targets = [t.id for t in getattr(node, "targets", [getattr(node, "target", None)])
                   if isinstance(t, ast.Name)]
        if targets and isinstance(getattr(node, "value", None), ast.Dict):
            dicts[targets[0]] = node.value
            if targets[0] == "_VLLM_MODELS":
                line = node.lineno
    if "_VLLM_MODELS" not in dicts:
        return None, None
    keys = set()
    for key, value in zip(dicts["_VLLM_MODELS"].keys, dicts["_VLLM_MODELS"].values):
        if key is None and isinstance(value, ast.Name) and value.id in dicts:
            keys |= {k.value for k in dicts[value.id].keys if isinstance(k, ast.Constant)}
        elif isinstance(key, ast.Constant):
            keys.add(key.value)
    return frozenset(keys), f"{name}:{line}"


def _sglang_registry(release):
    """The class names of every `EntryClass` under sglang/srt/models (SGLang registers
    each by its name)."""
    keys, first = set(), None
    for name in release.names("sglang/srt/models/*.py"):
        try:
            tree = ast.parse(release.text(name))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
                items = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) \
                    else [node.value]
                keys |= {i.id for i in items if isinstance(i, ast.Name)}
                first = first or f"{name}:{node.lineno}"
    return (frozenset(keys), first) if keys else (None, None)


def _transformers_pin(release):
    """The `Requires-Dist: transformers` specifier of the wheel's METADATA."""
    for name in release.names("*.dist-info/METADATA"):
        text = release.text(name)
        found = re.search(r"^Requires-Dist: transformers\s*\(?([^;\n)]*)\)?\s*(;.*)?$",
                          text, re.M)
        marker = (found.group(2) or "") if found else ""
        if found and ("extra" not in marker or re.search(r'"(srt|runtime-common)"', marker)):
            parts = [s.strip() for s in found.group(1).split(",") if s.strip()]
            spec = ",".join(sorted(parts, key=lambda s: "=~><!".find(s[0])))
            return spec, f"{name}:{text.count(chr(10), 0, found.start()) + 1}"
    return None, None


# where each runtime keeps the config classes it loads by `model_type` (its own registry
# and the modules that AutoConfig.register more), by release
V_CONFIG_REGISTRY = ("vllm/transformers_utils/config.py",)
V_CONFIGS = "vllm/transformers_utils/configs/**/*.py"
S_CONFIG_REGISTRY = ("sglang/srt/utils/hf_transformers/common.py",
                     "sglang/srt/utils/hf_transformers_utils.py",
                     "sglang/srt/hf_transformers_utils.py")
S_CONFIGS = "sglang/srt/configs/**/*.py"


def _trees(release, folders: str, registry: str) -> list:
    """The parsed config modules of a release and its registry's file (those that parse)."""
    out = []
    for name in (*release.names(folders), registry):
        try:
            out.append(ast.parse(release.text(name)))
        except SyntaxError:
            continue
    return out


def _model_type_tables(release, folders: str, registry: str):
    """{class name: {model_type, ...}} of every class in the config modules (and the
    registry's own file) that sets `model_type = "..."`, and {name: [class names]} of the
    module-level lists of classes there."""
    types: dict[str, set] = {}
    lists: dict[str, list] = {}
    for tree in _trees(release, folders, registry):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if not isinstance(item, (ast.Assign, ast.AnnAssign)):
                        continue
                    targets = [t.id for t in getattr(item, "targets", [getattr(item, "target",
                               None)]) if isinstance(t, ast.Name)]
                    if "model_type" in targets and isinstance(item.value, ast.Constant) and \
                            isinstance(item.value.value, str):
                        types.setdefault(node.name, set()).add(item.value.value)
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and \
                    isinstance(node.value, (ast.List, ast.Tuple)):
                for target in getattr(node, "targets", [getattr(node, "target", None)]):
                    if isinstance(target, ast.Name):
                        lists[target.id] = [e.id for e in node.value.elts
                                            if isinstance(e, ast.Name)]
    return types, lists


def _config_keys(node, dicts: dict, types: dict, lists: dict) -> set:
    """The model_type keys a registry expression holds: a dict literal (constant keys or
    `X.model_type`, `**other`), `LazyConfigDict(key="Class", **{...})`, or
    `{cls.model_type: cls for cls in [...]}`."""
    keys: set = set()

    def key_of(key) -> set:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return {key.value}
        if isinstance(key, ast.Attribute) and key.attr == "model_type" and \
                isinstance(key.value, ast.Name):
            return types.get(key.value.id, set())
        return set()
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if key is None:
                keys |= _config_keys(value, dicts, types, lists)
            else:
                keys |= key_of(key)
    elif isinstance(node, ast.Name) and node.id in dicts:
        keys |= _config_keys(dicts[node.id], dicts, types, lists)
    elif isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg is None:
                keys |= _config_keys(keyword.value, dicts, types, lists)
            else:
                keys.add(keyword.arg)
    elif isinstance(node, ast.DictComp) and len(node.generators) == 1:
        source = node.generators[0].iter
        names = [e.id for e in source.elts if isinstance(e, ast.Name)] \
            if isinstance(source, (ast.List, ast.Tuple)) else \
            lists.get(source.id, []) if isinstance(source, ast.Name) else []
        for name in names:
            keys |= types.get(name, set())
    return keys


def _config_types(release, registries: tuple, folders: str):
    """The model types a runtime release loads a config for by itself: the keys of its
    `_CONFIG_REGISTRY` (with the dicts it merges, `_CONFIG_REGISTRY[key] = ...` and
    `.update(...)`) and the string or `X.model_type` keys of every `AutoConfig.register`
    in its config modules."""
    registry = next((n for n in registries if release.names(n)), None)
    if registry is None:
        return None, None
    types, lists = _model_type_tables(release, folders, registry)
    tree = ast.parse(release.text(registry))
    dicts, line, keys = {}, None, set()
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        for target in getattr(node, "targets", [getattr(node, "target", None)]):
            if isinstance(target, ast.Name) and node.value is not None:
                dicts[target.id] = node.value
                if target.id == "_CONFIG_REGISTRY" and line is None:
                    line = node.lineno
    if line is None:
        return None, None
    keys |= _config_keys(dicts["_CONFIG_REGISTRY"], dicts, types, lists)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and \
                getattr(node.value, "id", "") == "_CONFIG_REGISTRY" and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "update" and \
                getattr(node.func.value, "id", "") == "_CONFIG_REGISTRY" and node.args:
            keys |= _config_keys(node.args[0], dicts, types, lists)
    for found in _trees(release, folders, registry):
        for node in ast.walk(found):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "register" and \
                    getattr(node.func.value, "id", "") == "AutoConfig" and node.args:
                keys |= _config_keys(ast.Dict(keys=[node.args[0]], values=[None]), dicts,
                                     types, lists)
    return frozenset(keys), f"{registry}:{line}"


def transformers_model_types(files) -> tuple[frozenset, str] | tuple[None, None]:
    """The keys of CONFIG_MAPPING_NAMES (what AutoConfig loads by `model_type`, else "...
    Transformers does not recognize this architecture") from a transformers release's
    models/auto/configuration_auto.py, or auto_mappings.py where newer releases keep it.
    `files` maps those names to their text (None when absent)."""
    keys, at = set(), None
    for name in ("models/auto/auto_mappings.py", "models/auto/configuration_auto.py"):
        text = files.get(name)
        if text is None:
            continue
        for node in ast.parse(text).body:
            call = node.value if isinstance(node, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                    call.func.attr == "update" and \
                    getattr(call.func.value, "id", "") == "CONFIG_MAPPING_NAMES":
                pass                                # CONFIG_MAPPING_NAMES.update({...})
            elif not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            elif "CONFIG_MAPPING_NAMES" not in [t.id for t in getattr(
                    node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)] \
                    or node.value is None:
                continue
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Tuple) and len(sub.elts) == 2 and \
                        all(isinstance(e, ast.Constant) for e in sub.elts):
                    keys.add(sub.elts[0].value)
                elif isinstance(sub, ast.Dict):
                    keys |= {k.value for k in sub.keys if isinstance(k, ast.Constant)}
            at = at or f"{name}:{node.lineno}"
    return (frozenset(keys), at) if keys else (None, None)


def _config_model_types(release):
    """The model types the release loads a config for: its own registry and what every
    transformers its pin admits knows (`release.transformers(pin)`, the union over the
    admitted releases on the index: a type is refused only when none of them knows it)."""
    own, at = _config_types(release, *((V_CONFIG_REGISTRY, V_CONFIGS)
                                        if release.runtime == "vllm" else
                                        (S_CONFIG_REGISTRY, S_CONFIGS)))
    pin, _ = _transformers_pin(release)
    if pin is None:             # sources without the wheel's METADATA: the pin read from it
        pin = next((value for runtime, since, until, value, _ in
                    registries.runs("transformers.pin") if runtime == release.runtime and
                    Version(since) <= Version(release.version) and
                    (not until or Version(release.version) < Version(until))), None)
    if own is None or pin is None or getattr(release, "transformers", None) is None:
        return None, None
    known, where = release.transformers(pin)
    release.notes["config-model-types"] = {"transformers": where}   # beside the run's `at`
    return own | known, at


_SPECULATIVE = ("vllm/config/speculative.py", "vllm/config/__init__.py", "vllm/config.py")
# hf_config_override compares these too, but not to map an MTP target: deepseek_v41 is
# refused for "mtp" (vllm==0.33.0 config/speculative.py:1474-1485), muse_glimmer_assistant
# is a DFlash draft
_NOT_MTP = {"deepseek_v41", "muse_glimmer_assistant"}


def _strings(node) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)
                and isinstance(e.value, str)]
    return []


def _names_architecture(node) -> bool:
    """`hf_config.architectures[0]`, `initial_architecture`, `getattr(x, "architectures")`."""
    if isinstance(node, ast.NamedExpr):
        return _names_architecture(node.value)
    if isinstance(node, ast.Subscript):
        return _names_architecture(node.value)
    if isinstance(node, ast.Name):
        return node.id in ("initial_architecture", "architectures", "arch")
    if isinstance(node, ast.Attribute):
        return node.attr == "architectures"
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr":
        return len(node.args) > 1 and _strings(node.args[1]) == ["architectures"]
    if isinstance(node, ast.BoolOp):
        return any(_names_architecture(v) for v in node.values)
    return False


def _vllm_mtp_targets(release):
    """What `method: mtp` accepts: the target model types, model-type substrings and first
    architectures `SpeculativeConfig.hf_config_override` maps to an MTP draft, plus the
    draft-side MTP model types (`MTPModelTypes`, or the `*_mtp` names the method check
    lists in releases before it)."""
    for name in _SPECULATIVE:
        if release.names(name) and "def hf_config_override" in release.text(name):
            break
    else:
        return None, None
    tree = ast.parse(release.text(name))
    override = next(n for n in ast.walk(tree)
                    if isinstance(n, ast.FunctionDef) and n.name == "hf_config_override")
    types, substrings, architectures = set(), set(), set()
    for node in ast.walk(override):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, op, right = node.left, node.ops[0], node.comparators[0]
            if isinstance(left, ast.Attribute) and left.attr == "model_type" and \
                    isinstance(op, (ast.Eq, ast.In)):
                types.update(_strings(right))      # `in "pangu_ultra_moe"`: a substring test
            elif isinstance(op, ast.In) and isinstance(right, ast.Attribute) and \
                    right.attr == "model_type":
                substrings.update(_strings(left))
            elif _names_architecture(left) and isinstance(op, (ast.Eq, ast.In)):
                architectures.update(_strings(right))
            elif isinstance(op, ast.In) and _names_architecture(right):
                architectures.update(_strings(left))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "intersection" \
                and isinstance(node.func.value, ast.Set):
            architectures.update(_strings(node.func.value))
    drafts = {s for n in ast.walk(tree) if isinstance(n, ast.Assign) and any(
        getattr(t, "id", "") == "MTPModelTypes" for t in n.targets)
        for e in ast.walk(n.value) for s in _strings(e)}
    if not drafts:
        drafts = {s for n in ast.walk(tree) if isinstance(n, ast.Compare)
                  for side in (n.left, *n.comparators) for s in _strings(side)
                  if re.fullmatch(r"[a-z0-9_]+_mtp", s)}
    value = {"model_types": frozenset((types | drafts) - _NOT_MTP),
             "substrings": tuple(sorted(substrings)),
             "architectures": frozenset(architectures)}
    return value, f"{name}:{override.lineno}"


def _vllm_aux_targets(release):
    """The start-up check on the target of an EAGLE-3 (later also DFlash) draft: the
    methods it applies to and the substrings one of which the target's text model_type
    must contain ("Eagle3 is only supported for ... models"); None where there is none."""
    for name in _SPECULATIVE:
        if release.names(name) and "only supported for" in release.text(name):
            break
    else:
        return None, None
    tree = ast.parse(release.text(name))
    lists = {t.id: _strings(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name) and _strings(n.value)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or "hf_text_config" not in ast.unparse(node.test):
            continue
        methods, substrings = set(), set()
        for part in ast.walk(node.test):
            if isinstance(part, ast.Compare) and getattr(part.left, "attr", "") == "method":
                methods.update(s for c in part.comparators for s in _strings(c))
            elif isinstance(part, ast.Compare) and isinstance(part.ops[0], ast.NotIn):
                substrings.update(_strings(part.left))           # "llama" not in model_type
            elif isinstance(part, ast.comprehension) and isinstance(part.iter, ast.Name):
                substrings.update(lists.get(part.iter.id, ()))   # any(s in ... for s in LIST)
        if methods and substrings:
            return ({"methods": frozenset(methods), "model_types": frozenset(substrings)},
                    f"{name}:{node.lineno}")
    return None, None


V_EAGLE3_REFUSERS = ("vllm/v1/worker/gpu_model_runner.py",
                     "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py")


def _vllm_eagle3_classes(release):
    """The registered architectures whose model class implements SupportsEagle3 (in its
    bases, or defining its `set_aux_hidden_state_layers`, followed through the classes and
    imports of vllm/model_executor/models): the others refuse an EAGLE-3 draft at start-up,
    "Model does not support EAGLE3 interface but aux_hidden_state_outputs was requested"."""
    # V1's model runner raises it; from 0.34.0 (no V1) V2's eagle3_utils.py alone
    runners = [r for r in V_EAGLE3_REFUSERS if release.names(r) and
               "does not support EAGLE3 interface" in release.text(r)]
    registry = "vllm/model_executor/models/registry.py"
    if not (runners and release.names(registry)):
        return None, None
    runner = runners[0]
    modules: dict[str, dict] = {}             # module -> {class: [base names]}, {name: module}

    def module(name):
        """A registry module: a name under vllm/model_executor/models/ ("qwen3"), or from
        0.34.0 a package of vllm/models/ ("vllm.models.qwen3_5"), whose __init__ imports
        the platform's variant under an `if`."""
        if name not in modules:
            # (only from 0.34.0: older releases' vllm.models.* entries stay unresolved, as
            # they were read before; resolving them changes their rows, a change of its own)
            package = name.startswith("vllm.") and runner == V_EAGLE3_REFUSERS[1]
            path = (f"{name.replace('.', '/')}/__init__.py"
                    if package and release.names(f"{name.replace('.', '/')}/__init__.py")
                    else f"{name.replace('.', '/')}.py" if package
                    else f"vllm/model_executor/models/{name}.py")
            classes, imported = {}, {}
            if release.names(path):
                tree = ast.parse(release.text(path))
                here = path[:-3].replace("/", ".").removesuffix(".__init__")
                here = here if path.endswith("__init__.py") else here.rsplit(".", 1)[0]
                nodes = list(tree.body)
                if package:
                    nodes += [n for t in tree.body if isinstance(t, ast.If)
                              for n in (*t.body, *t.orelse)]
                for node in nodes:
                    if isinstance(node, ast.ClassDef):
                        # structural support counts too (the check is an isinstance of
                        # a runtime-checkable Protocol): a class that defines the hook
                        hook = any(isinstance(n, ast.FunctionDef) and
                                   n.name == "set_aux_hidden_state_layers" for n in node.body)
                        classes[node.name] = [ast.unparse(b).split(".")[-1] for b in node.bases] \
                            + (["SupportsEagle3"] if hook else [])
                    elif isinstance(node, ast.ImportFrom) and node.module and not package:
                        source = node.module.rsplit(".", 1)[-1]
                        for alias in node.names:
                            imported[alias.asname or alias.name] = (source, alias.name)
                    elif isinstance(node, ast.ImportFrom) and package:
                        source = node.module or ""
                        if node.level:
                            up = here.split(".")[:len(here.split(".")) - node.level + 1]
                            source = ".".join(up + ([source] if source else []))
                        if not source.startswith("vllm.models."):
                            source = source.rsplit(".", 1)[-1]     # a model_executor module
                        for alias in node.names:
                            imported.setdefault(alias.asname or alias.name,
                                                (source, alias.name))
            modules[name] = {"classes": classes, "imported": imported}
        return modules[name]

    def supports(name, cls, seen=()):
        if (name, cls) in seen or cls is None:
            return False
        found = module(name)
        if cls not in found["classes"]:
            source = found["imported"].get(cls)
            return bool(source) and supports(source[0], source[1], (*seen, (name, cls)))
        bases = found["classes"][cls]
        return "SupportsEagle3" in bases or any(
            supports(name, base, (*seen, (name, cls))) for base in bases)

    tree = ast.parse(release.text(registry))
    archs = set()
    for node in tree.body:
        value = getattr(node, "value", None)
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and isinstance(item, ast.Tuple) and \
                        len(item.elts) >= 2 and \
                        all(isinstance(e, ast.Constant) for e in item.elts[:2]):
                    if supports(item.elts[0].value, item.elts[1].value):
                        archs.add(key.value)
    at = release.find(runner, r"does not support EAGLE3 interface")
    return frozenset(archs), at


V_RUNNER = ("vllm/config/vllm.py", "vllm/envs.py", "vllm/platforms/interface.py")


def _vllm_runner_policy(release):
    """How the release picks its model runner when VLLM_USE_V2_MODEL_RUNNER is unset
    (`VllmConfig.use_v2_model_runner`): "default" is "v1" (no choice: V1 unless the
    variable says 1), "model" (V2 for the listed `DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`,
    with the exclusions `_is_default_v2_model_runner_model` makes, and for every dense
    target where it says `or not model_config.is_moe`) or "v2"; "forced" the drafts that
    take V2 whatever the target; "methods" the speculative methods V2 runs and
    "refused_methods" those it does not (the others fall back to V1,
    `_get_v2_model_runner_unsupported_features`); "v1_removed" a release without Model Runner
    V1, whose start-up refuses VLLM_USE_V2_MODEL_RUNNER set to anything but 1
    (vllm==0.34.0 platforms/interface.py:1481-1490)."""
    config, envs, platform = V_RUNNER
    removed = release.names(platform) and release.find(
        platform, r"Model Runner V1 has been removed")
    if removed and "def use_v2_model_runner" not in release.text(config):
        return {"default": "v2", "v1_removed": True}, removed
    if not release.names(config) or "def use_v2_model_runner" not in release.text(config):
        at = release.find(envs, r'"VLLM_USE_V2_MODEL_RUNNER"') or release.find(*V_ANY)
        return {"default": "v1"}, at
    tree = ast.parse(release.text(config))
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    use = funcs["use_v2_model_runner"]
    body = ast.unparse(use)
    value: dict = {"default": "model" if "_is_default_v2_model_runner_model" in body
                   else "v2"}
    if value["default"] == "model":
        listed = [n for n in tree.body if isinstance(n, ast.Assign) and any(
            getattr(t, "id", "") == "DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES" for t in n.targets)]
        value["architectures"] = frozenset(         # frozenset({...}): the set inside
            s for n in listed for part in ast.walk(n.value) for s in _strings(part))
        model = ast.unparse(funcs["_is_default_v2_model_runner_model"])
        value["dense"] = "or not model_config.is_moe" in model
        value["never"] = frozenset(x for x in ("is_hybrid", "is_attention_free")
                                   if x in model)
        value["listed_unless"] = frozenset(x for x in ("is_moe", "is_quantized")
                                           if f"not model_config.{x}" in model
                                           and f"or not model_config.{x}" not in model)
    forced = set()
    if 'speculative_config.method == "dspark"' in body.replace("'", '"'):
        forced.add("dspark")
    if "_dflash_needs_multi_kv_group()" in body:
        forced.add("dflash-mixed")
    if "_is_dflash2_draft()" in body:
        forced.add("dflash2")
    value["forced"] = frozenset(forced)
    # the methods V2 runs: an allow-list (`method not in (...)`: "speculative method ..."
    # unsupported, 0.22-0.29) and a deny-list (`method in (...)`, from 0.25 on)
    unsupported = funcs.get("_get_v2_model_runner_unsupported_features")
    methods, refused = set(), set()
    for node in ast.walk(unsupported) if unsupported else ():
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or \
                getattr(node.test.left, "attr", "") != "method":
            continue
        names = {s for c in node.test.comparators for s in _strings(c)}
        if isinstance(node.test.ops[0], ast.NotIn):
            methods |= names
        elif isinstance(node.test.ops[0], ast.In):
            refused |= names
    value["methods"] = frozenset(methods)
    value["refused_methods"] = frozenset(refused)
    return value, f"{config}:{use.lineno}"


EXTRACTORS = {"vllm-registry": _vllm_registry, "vllm-runner-policy": _vllm_runner_policy,
              "vllm-aux-targets": _vllm_aux_targets,
              "vllm-eagle3-classes": _vllm_eagle3_classes, "sglang-registry": _sglang_registry,
              "transformers-pin": _transformers_pin, "vllm-mtp-targets": _vllm_mtp_targets,
              "config-model-types": _config_model_types}
EXTRACTED = {"vllm-registry": ("vllm/model_executor/models/registry.py",),
             "vllm-runner-policy": V_RUNNER + ("vllm/model_executor/models/registry.py",),
             "sglang-registry": ("sglang/srt/models/*.py",),
             "transformers-pin": ("*.dist-info/METADATA",),
             "config-model-types": (*V_CONFIG_REGISTRY, V_CONFIGS, *S_CONFIG_REGISTRY, S_CONFIGS,
                                    "*.dist-info/METADATA"),
             "vllm-mtp-targets": _SPECULATIVE, "vllm-aux-targets": _SPECULATIVE,
             "vllm-eagle3-classes": (*V_EAGLE3_REFUSERS, "vllm/model_executor/models/*.py",
                                     "vllm/models/**.py")}

V, S = "vllm", "sglang"

# shared pieces
# the V2 DFlash speculator's mask reader with the top-level fallbacks (vllm 0.25.0 on)
V2_MASK = ("vllm/v1/worker/gpu/spec_decode/utils.py",
           r'getattr\(\s*hf_config,\s*"mask_token_id",\s*None\s*\)\s+is\s+not\s+None'
           r'[\s\S]{0,200}?"dspark_noise_token_id"')
# the V1 proposer's mask reader without them (vllm 0.20.0 to 0.27.1)
V1_SHORT_MASK = ("vllm/v1/spec_decode/*.py",
                 r'dflash_config\s+and\s+"mask_token_id"\s+in\s+dflash_config\s*:\s*\n\s*'
                 r'self\.parallel_drafting_token_id\s*=\s*dflash_config\["mask_token_id"\]\s*'
                 r'\n\s*elif\s+hasattr\(\s*model_hf_config,\s*"pard_token"\s*\)')
V_DFLASH = "vllm/model_executor/models/qwen3_dflash.py"
V_DFLASH_V1 = "vllm/v1/spec_decode/dflash.py"
V_REGISTRY = "vllm/model_executor/models/registry.py"
V_CONFIG = "vllm/config**.py"              # vllm/config.py, later vllm/config/*.py
V_EAGLE3 = "vllm/model_executor/models/llama_eagle3.py"
V_EAGLE3_V2 = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
V_EAGLE3_V2_ALL = "vllm/v1/worker/gpu/spec_decode/eagle/*.py"     # config.py from 0.34.0
V_ALGOS = "vllm/transformers_utils/configs/speculators/algos.py"
V_EAGLE_CONFIG = "vllm/transformers_utils/configs/eagle.py"
V_NEXT_MTP = "vllm/model_executor/models/qwen3_next_mtp.py"
V_QWEN35_MTP = "vllm/model_executor/models/qwen3_5_mtp.py"
V_MODELOPT = "vllm/model_executor/layers/quantization/modelopt.py"
V_ARGS = "vllm/engine/arg_utils.py"
MODELOPT_FP4 = r'get_name\(\) == "modelopt_fp4"'     # mtp.fc built unquantized under NVFP4
DYNAMIC_MTP = r'k\.startswith\("-:"\) and "mtp" in k'   # MTP layers unquantized by dynamic
S_DFLASH = "sglang/srt/models/dflash.py"
S_QWEN35_MTP = "sglang/srt/models/qwen3_5_mtp.py"
S_MTP_PACKED = r"packed_modules_mapping = Qwen3_5ForCausalLM\.packed_modules_mapping"
S_UTILS = "sglang/srt/**/dflash_utils.py"
S_EAGLE3 = "sglang/srt/models/llama_eagle3.py"
S_SPEC = "sglang/srt/speculative/spec_info.py"
S_DSPARK = "sglang/srt/speculative/dspark_components/dspark_config.py"
# every MTP layer's shared_head.head set to the target's lm_head: V1's proposer, or V2's
# eagle/utils.py (0.34.0: draft_head is share_target_lm_head's, the target's head)
MTP_HEAD = ("vllm/v1/**/spec_decode/**.py",
            r"sh\.head\s*=\s*target_language_model\.lm_head|"
            r"draft_head\s*=\s*share_target_lm_head\([\s\S]{0,900}?sh\.head\s*=\s*draft_head")
V_ANY = (V_REGISTRY, r"\A")               # a file every release has (for "absent" rows)
S_ANY = ("sglang/srt/server_args.py", r"\A")
DFLASH_V = (V_REGISTRY, r'"DFlashDraftModel"\s*:')     # vLLM serves DFlash
DFLASH_S = (S_DFLASH, r"EntryClass\s*=[\s\S]{0,80}?DFlashDraftModel")
# DFlash models that read no window / no layer_types (every layer full, non-causal)
V_NO_WINDOW = (V_DFLASH, r"\A(?![\s\S]*sliding_window)")
S_NO_LAYER_TYPES = (S_DFLASH, r"\A(?![\s\S]*layer_types)[\s\S]*attn_type\s*=\s*"
                              r"AttentionType\.ENCODER_ONLY")


def _absent(key, runtime, *, where, what, also=(), path=""):
    """A row that holds where `what` (a (files, pattern) pair) is absent."""
    files, pattern = where
    return Probe(key, runtime, files, pattern, also=also, also_not=(what,),
                 path=path)


def _ranged(probes) -> tuple[Probe, ...]:
    """Each probe with the range of its row: the n-th probe of a key, runtime and runner
    takes the n-th such row of table.py. A row without a probe, or a probe without a row,
    is an error."""
    rows = defaultdict(list)
    out = []
    for fact in FACTS:
        if fact.runtime == "reference":
            continue
        if fact.seen is not None:        # written with its row
            seen = fact.seen
            out.append(Probe(fact.key, fact.runtime, seen.files, seen.pattern, also=seen.also,
                             also_not=seen.also_not, path=fact.path, since=fact.since,
                             until=fact.until))
        else:
            rows[(fact.key, fact.runtime, fact.path)].append(fact)
    for probe in probes:
        group = rows[(probe.key, probe.runtime, probe.path)]
        if not group:
            raise ValueError(f"probe {probe.key} ({probe.runtime}, {probe.path or 'any'} "
                             f"runner): more probes than table.py has rows")
        row = group.pop(0)
        out.append(replace(probe, since=row.since, until=row.until))
    left = [(f.key, f.runtime, f.since, f.until, f.path) for g in rows.values() for f in g]
    if left:
        raise ValueError(f"rows of table.py without a probe: {left}")
    return tuple(out)


PROBES: tuple[Probe, ...] = _ranged((
    # runner
    *(Probe("runner.v2-policy", V, extract="vllm-runner-policy")
      for _ in registries.runs("runner.v2-policy")),
    Probe("dflash.refuses-mixed-swa", V, V_DFLASH,
          r"DFlash does not yet support mixed sliding/full attention via"),
    Probe("runner.v1-refuses-dflash2", V, "vllm/config/vllm.py",
          r'unsupported\.append\(\s*"(?:dflash2 drafts|DFlash candidate-head drafts)"',
          path="v1"),
    Probe("runner.v1-refuses-dflash2", V, "vllm/config/vllm.py",
          r"def _is_dflash2_draft",
          also_not=(("vllm/config/vllm.py", r'unsupported\.append\(\s*"dflash2 drafts"'),),
          path="v1"),
    Probe("runner.v1-refuses-mixed-swa", V, V_DFLASH, path="v1", pattern=
          r"0\s*<\s*num_sliding\s*<\s*len\(layer_types\)\s*and\s+not\s+"
          r"get_current_vllm_config\(\)\.use_v2_model_runner"),
    # mask
    Probe("dflash.mask-sources", V, "vllm/v1/worker/gpu/spec_decode/utils.py",
          r'"mask_token_id"\s+in\s+dflash_config[\s\S]*?getattr\(\s*hf_config,\s*"mask_token_id"'
          r'[\s\S]*?"dspark_noise_token_id"[\s\S]*?"pard_token"[\s\S]*?"ptd_token_id"',
          also_not=(V1_SHORT_MASK,)),    # V1 reads the long list too, or is gone (0.34.0)
    Probe("dflash.mask-sources", V, V2_MASK[0], V2_MASK[1],
          also=(V1_SHORT_MASK,), path="v2"),
    Probe("dflash.mask-sources", V, *V1_SHORT_MASK, also=(V2_MASK,),
          path="v1"),
    Probe("dflash.mask-sources", V, *V1_SHORT_MASK, also_not=(V2_MASK,)),
    Probe("speculators.dflash-mask-mapped", V, V_ALGOS,
          r'"dflash_config"\]\s*=\s*\{\s*\n\s*"mask_token_id":\s*config_dict\["mask_token_id"\]'),
    Probe("dflash.mask-sources", S, S_UTILS,
          r'mask_token_id"\s*,\s*_cfg_get\(\s*draft_hf_config\s*,\s*"mask_token_id"'),
    Probe("dflash.mask-sources", S, S_UTILS,
          r'dflash_cfg\.get\(\s*"mask_token_id"\s*,\s*None\s*\)'),
    # taps
    Probe("dflash.tap-sources", V,
          "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
          r'getattr\(\s*hf_config,\s*"eagle_aux_hidden_state_layer_ids",\s*None\s*\)[\s\S]*?'
          r'\[\s*i\s*\+\s*1\s+for\s+i\s+in\s+\(\s*dflash_config\.get\(\s*"target_layer_ids"\s*\)'
          r'\s+or\s+\[\]\s*\)\s*\][\s\S]*?"dspark_target_layer_ids"', path="v2"),
    Probe("dflash.tap-sources", V,
          "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
          r'dflash_config\.get\(\s*"target_layer_ids"',
          also_not=(("vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
                     r'"dspark_target_layer_ids"'),), path="v2"),
    Probe("dflash.tap-sources", V, "vllm/v1/worker/gpu_model_runner.py",
          r'layer_ids\s*=\s*\[\s*i\s*\+\s*1\s+for\s+i\s+in\s+\(\s*dflash_config\.get\(\s*'
          r'"target_layer_ids"\s*\)', path="v1"),
    Probe("dflash.tap-sources", V, "vllm/v1/worker/gpu_model_runner.py",
          r'layer_ids\s*=\s*dflash_config\.get\(\s*"target_layer_ids"\s*\)', path="v1"),
    Probe("dflash.tap-sources", V, V_DFLASH_V1, r"\A",
          also=(("vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
                 r"def get_eagle3_aux_layers_from_config"),),
          also_not=(("vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
                     r"dflash_config"),), path="v2"),
    Probe("dflash.tap-sources", S, S_UTILS,
          r'dflash_cfg\.get\(\s*"target_layer_ids"\s*,\s*_cfg_get\(\s*draft_hf_config\s*,\s*'
          r'"target_layer_ids"',
          also=(("sglang/srt/models/qwen3.py", r"def\s+set_dflash_layers_to_capture[\s\S]{0,600}?"
                 r"layers_to_capture\s*=\s*\[\s*val\s*\+\s*1"),)),
    Probe("dflash.depth-without-num-target-layers", S, S_DFLASH,
          r"target_num_layers\s*=\s*max\(\s*draft_config\.target_layer_ids\s*\)\s*\+\s*1"),
    Probe("dflash.depth-without-num-target-layers", S, S_DFLASH,
          r"if\s+draft_config\.num_target_layers\s+is\s+not\s+None\s*\n\s*else\s+num_layers"),
    Probe("dflash.derives-missing-taps", S, S_UTILS,
          r"if\s+self\.target_layer_ids\s+is\s+None:[\s\S]{0,200}?build_target_layer_ids\(\s*"
          r"target_num_layers"),
    Probe("dflash.captures-last-layer", V, "vllm/model_executor/models/llama.py",
          r"_maybe_add_hidden_state\(\s*aux_hidden_states,\s*idx\s*\+\s*1,", also=(DFLASH_V,)),
    Probe("dflash.captures-last-layer", S, "sglang/srt/models/qwen2.py",
          r"for\s+i\s+in\s+range\(\s*self\.start_layer\s*,\s*self\.end_layer\s*\):[\s\S]{0,300}?"
          r"\bi\s+in\s+self\.layers_to_capture", also=(DFLASH_S,)),
    Probe("dflash.checks-num-target-layers", V, V_DFLASH,
          r"\A(?![\s\S]*num_target_layers)"),
    Probe("dflash.checks-num-target-layers", S, S_UTILS,
          r"val\s*<\s*0\s+or\s+val\s*>=\s*target_num_layers"),
    # windows
    Probe("dflash.null-window-with-sliding-layers", V, V_DFLASH,
          r'if\s+sliding_window\s+is\s+None:\s*raise\s+ValueError\(\s*"DFlash sliding attention '
          r'requires a window size'),
    Probe("dflash.null-window-with-sliding-layers", V, *V_NO_WINDOW),
    Probe("dflash.null-window-with-sliding-layers", S, S_UTILS,
          r"DFLASH sliding_attention layers require config\.sliding_window"),
    Probe("dflash.null-window-with-sliding-layers", S, *S_NO_LAYER_TYPES),
    Probe("dflash.window-sources", V, V_DFLASH,
          r'sliding_window\s*=\s*dflash_config\.get\(\s*"swa_window_size",\s*getattr\(\s*config,'
          r'\s*"sliding_window",\s*None\s*\)\s*\)'),
    Probe("dflash.window-sources", V, *V_NO_WINDOW),
    Probe("dflash.window-sources", S, S_UTILS,
          r'def\s+get_dflash_attention_sliding_window_size[\s\S]{0,500}?"sliding_window"'
          r'[\s\S]{0,400}?require config\.sliding_window'),
    Probe("dflash.window-sources", S, *S_NO_LAYER_TYPES),
    Probe("dflash.reads-use-swa", V, V_DFLASH,
          r'use_swa\s*=\s*dflash_config\.get\(\s*"use_swa",\s*False\s*\)'),
    Probe("dflash.reads-use-swa", V, V_DFLASH, r"\A(?![\s\S]*use_swa)"),
    Probe("dflash.reads-use-swa", S, S_DFLASH,
          r"\A(?![\s\S]*use_swa)[\s\S]*class\s+DFlashDraftModel"),
    # causality
    Probe("dflash.causal-sources", V, V_DFLASH,
          r'def _dflash_layer_causal[\s\S]{0,300}?getattr\(\s*config,\s*"is_causal",\s*None\s*\)'
          r'[\s\S]{0,300}?\.get\(\s*"causal"\s*\)[\s\S]{0,300}?layer_types\[layer_idx\]\s*==\s*'
          r'_SLIDING_ATTENTION'),
    Probe("dflash.causal-sources", V, V_DFLASH,
          r'def _dflash_layer_causal[\s\S]{0,300}?\.get\(\s*"causal"\s*\)[\s\S]{0,300}?'
          r'layer_types\[layer_idx\]\s*==\s*_SLIDING_ATTENTION',
          also_not=((V_DFLASH, r'def _dflash_layer_causal[\s\S]{0,300}?"is_causal"'),)),
    Probe("dflash.causal-sources", V, "vllm/v1/spec_decode/dflash.py",
          r'self\.dflash_causal\s*=\s*self\.dflash_config\.get\(\s*"causal",\s*False\s*\)'),
    Probe("dflash.causal-sources", V, "vllm/v1/spec_decode/dflash.py",
          r"causal=False,\s*#\s*Non-causal attention is required for DFlash"),
    Probe("dflash.causal-sources", S, S_DFLASH,
          r'if\s+layer_type\s*==\s*"sliding_attention":[\s\S]{0,300}?_get_dflash_attention_type'
          r'\(\s*config\s*,\s*default\s*=\s*AttentionType\.DECODER'),
    Probe("dflash.causal-sources", S, S_DFLASH,
          r'if\s+layer_type\s*==\s*"full_attention":\s*\n\s*return\s+-1\s*,\s*'
          r'AttentionType\.ENCODER_ONLY[\s\S]{0,300}?return\s+sliding_window_size\s*,\s*'
          r'AttentionType\.DECODER'),
    Probe("dflash.causal-sources", S, *S_NO_LAYER_TYPES),
    Probe("speculators.non-causal-flag-global", V, V_ALGOS,
          r'\["causal"\]\s*=\s*not\s+config_dict\.get\(\s*"sliding_window_non_causal",'
          r'\s*True\s*\)'),
    # block sizes and draft tokens
    Probe("dflash.block-size-sources", V, V_DFLASH, r"\A(?![\s\S]*block_size)",
          also_not=(("vllm/v1/spec_decode/dflash.py",
                     r'(dflash_config|hf_config)(\.get\(\s*|,\s*)"block_size"'),)),
    Probe("dflash.block-size-sources", S, S_UTILS,
          r'dflash_cfg\.get\(\s*"block_size"\s*,\s*_cfg_get\(\s*draft_hf_config\s*,\s*"block_size"',
          also=((S_DFLASH, r"resolve_block_size\(\s*default\s*=\s*16\s*\)"),)),
    Probe("dflash.tokens-per-block", V, "vllm/v1/**/dflash**.py",
          r"num_query_per_req\s*=\s*1\s*\+\s*self\.num_speculative_tokens|"
          r"bonus query plus one query per draft token\.\s*\n\s*return\s+self\."
          r"num_speculative_tokens\s*\+\s*1"),
    Probe("dflash.tokens-per-block", S, "sglang/srt/**/s*.py",
          r"speculative_num_draft_tokens\s*=\s*inferred_block_size"),
    Probe("dspark.tokens-per-block", V,
          "vllm/v1/worker/gpu/spec_decode/dspark/speculator.py",
          r"if\s+self\.sample_from_anchor:\s*self\.num_query_per_req\s*=\s*"
          r"self\.num_speculative_steps\s*else:\s*self\.num_query_per_req\s*=\s*1\s*\+\s*"
          r"self\.num_speculative_steps",
          also=(("vllm/v1/worker/gpu/spec_decode/dspark/speculator.py",
                 r'getattr\(\s*self\.draft_model_config\.hf_config,\s*"sample_from_anchor"'),)),
    Probe("dspark.tokens-per-block", S, S_DSPARK,
          r"gamma\s*=\s*int\(\s*num_draft_tokens\s*\)\s*-\s*1"),
    Probe("dspark.sample-from-anchor-default", S, "sglang/srt/speculative/"
          "dspark_components/*.py", r'def\s+get_dspark_sample_from_anchor[\s\S]{0,200}?'
          r'"sample_from_anchor"\s*,\s*True'),
    Probe("dspark.sample-from-anchor-default", V,
          "vllm/v1/worker/gpu/spec_decode/dspark/speculator.py",
          r'self\.sample_from_anchor\s*=\s*getattr\(\s*self\.draft_model_config\.hf_config,\s*'
          r'"sample_from_anchor",\s*True\s*\)',
          also=((V_ALGOS, r'def update_dspark[\s\S]*?config_dict\.get\(\s*"sample_from_anchor",'
                          r'\s*False\s*\)'),)),
    Probe("speculators.verifier-must-be-a-repo", V,
          "vllm/transformers_utils/config.py", r"Speculators verifier must name a remote model"),
    Probe("speculators.verifier-must-be-a-repo", V,
          "vllm/transformers_utils/config.py", r'\["verifier"\]\["name_or_path"\]',
          also_not=(("vllm/transformers_utils/config.py",
                     r"Speculators verifier must name a remote model"),)),
    Probe("dflash.sample-from-anchor-refused", V,
          "vllm/v1/worker/gpu/spec_decode/dflash/speculator.py",
          r'if\s+dflash_config\.get\(\s*"sample_from_anchor",\s*False\s*\):\s*raise\s+ValueError',
          path="v2"),
    Probe("dflash.sample-from-anchor-refused", V, V_DFLASH_V1, path="v1",
          pattern=r"\A(?![\s\S]*sample_from_anchor)",
          also=(("vllm/v1/worker/gpu/spec_decode/dflash/speculator.py",
                 r'dflash_config\.get\(\s*"sample_from_anchor"'),)),
    Probe("dflash.sample-from-anchor-refused", V, *V_ANY,
          also=(DFLASH_V,), also_not=(("vllm/v1/worker/gpu/spec_decode/dflash/speculator.py",
                                       r'dflash_config\.get\(\s*"sample_from_anchor"'),)),
    Probe("dspark.exact-token-architectures", V, "vllm/config/speculative.py",
          r"if\s+num_speculative_tokens\s*!=\s*block_size:\s*raise\s+ValueError\(\s*"
          r'"Qwen3-Omni DSpark requires num_speculative_tokens to match'),
    Probe("dspark.exact-token-architectures", V, V_REGISTRY,
          r'"Qwen3DSparkModel"\s*:',
          also_not=(("vllm/config/speculative.py", r"Qwen3-Omni DSpark requires"),)),
    Probe("dspark.self-contained-model-types", V, _SPECULATIVE[0],
          r"# DeepSeek-V4 DSpark reuses the full",
          also_not=((_SPECULATIVE[0], r'model_type == "qwen3"'),)),
    Probe("dspark.self-contained-model-types", V, _SPECULATIVE[0],
          r'"DSparkDraftModel" in self\.draft_model_config\.architectures\s*and '
          r'self\.draft_model_config\.hf_config\.model_type == "qwen3"|'
          r'initial_architecture == "DSparkDraftModel"\s*and hf_config\.model_type == "qwen3"'),
    Probe("sglang.hybrid-spec-refuses-radix", S, "sglang/srt/server_args.py",
          r"is not compatible with radix cache when using --mamba-scheduler-strategy "
          r"no_buffer"),
    Probe("eagle3.v0-unless-v1-asked", V, "vllm/engine/arg_utils.py",
          r'if is_eagle_enabled and _warn_or_fallback\("Eagle"\)'),
    Probe("eagle3.embedding-always-shared", V, "vllm/v1/spec_decode/eagle.py",
          r"if get_pp_group\(\)\.world_size == 1:\s*logger\.info\(\s*"
          r"\"The EAGLE head shares the same vocab embedding\"",
          also=(("vllm/model_executor/models/llama_eagle3.py",
                 r"if get_pp_group\(\)\.world_size > 1:\s*self\.embed_tokens ="),)),
    Probe("eagle3.embedding-always-shared", V, "vllm/model_executor/models/llama_eagle3.py",
          r"includes_embed_tokens = False[\s\S]*?if not includes_embed_tokens:"),
    Probe("eagle3.draft-extend-logits-copied-whole", S, "sglang/srt/layers/logits_processor.py",
          r"logits_buffer\.copy_\(logits\[:, : self\.(?:config\.)?vocab_size\]\)",
          also=(("sglang/srt/speculative/eagle_draft_extend_cuda_graph_runner.py",
                 r"vocab_size = self\.model_runner\.model_config\.hf_config\.draft_vocab_size"),)),
    Probe("eagle3.draft-extend-logits-copied-whole", S, "sglang/srt/layers/logits_processor.py",
          r"if logits_buffer is not None and tuple\(logits_buffer\.shape\) == tuple\("),
    Probe("dspark.d2t-required-when", V, "vllm/model_executor/models/qwen3_dspark.py",
          r"uses_reduced_vocab\s*=\s*self\.config\.draft_vocab_size\s*!=\s*"
          r"self\.target_vocab_size[\s\S]*?must include a \"\s*\"d2t mapping"),
    Probe("dspark.d2t-required-when", V, "vllm/model_executor/models/qwen3_dspark.py",
          r"uses_reduced_vocab\s*=\s*self\.config\.draft_vocab_size\s*<\s*"
          r"self\.target_vocab_size[\s\S]*?must include a \"\s*\"d2t mapping"),
    Probe("dspark.d2t-required-when", V, "vllm/model_executor/models/qwen3_dspark.py",
          r"if self\.config\.draft_vocab_size < self\.target_vocab_size:\s*"
          r"self\.draft_id_to_target_id = nn\.Parameter",
          also_not=(("vllm/model_executor/models/qwen3_dspark.py", r"d2t mapping\b(?! to)"),)),
    Probe("dspark.markov-rank-sources", V,
          "vllm/model_executor/models/qwen3_dspark.py", r"config\.markov_rank\b"),
    Probe("dspark.markov-rank-sources", S, "sglang/srt/models/dspark.py",
          r'def\s+build_markov_head[\s\S]{0,200}?getattr\(\s*config\s*,\s*"markov_rank"\s*,\s*0\s*'
          r'\)[\s\S]{0,100}?if\s+markov_rank\s*<=\s*0:\s*\n\s*raise'),
    # which families each runtime serves
    Probe("serves.dflash", V, V_REGISTRY, r'"DFlashDraftModel"\s*:'),
    Probe("serves.dflash", S, S_DFLASH,
          r"EntryClass\s*=[\s\S]{0,80}?DFlashDraftModel", also=((S_SPEC, r"\bDFLASH\b"),)),
    Probe("serves.eagle3", V, V_EAGLE3, r"class Eagle3LlamaForCausalLM",
          also=((V_REGISTRY, r'"Eagle3LlamaForCausalLM"'),)),
    Probe("serves.eagle3", S, S_EAGLE3, r"class\s+LlamaForCausalLMEagle3",
          also=((S_SPEC, r"\bEAGLE3\b"),)),
    Probe("serves.eagle", V, V_REGISTRY, r'"(EAGLEModel|EagleLlamaForCausalLM)"\s*:'),
    Probe("serves.eagle", S, "sglang/srt/models/llama_eagle.py",
          r"class\s+LlamaForCausalLMEagle\b"),
    Probe("serves.mtp", V, V_REGISTRY, r'"DeepSeekMTPModel"\s*:'),
    Probe("serves.mtp", S, "sglang/srt/models/deepseek_nextn.py",
          r"class\s+DeepseekV3ForCausalLMNextN"),
    Probe("serves.dflash2", V, V_REGISTRY, r'"DFlash2DraftModel"\s*:\s*\(',
          also=(("vllm/v1/worker/gpu/spec_decode/**.py", r"DFlash2Speculator"),)),
    Probe("serves.dflash2", S, S_DFLASH, r"^class DFlash2DraftModel\("),
    Probe("serves.medusa", V, *V_ANY, also_not=((V_REGISTRY, r'"MedusaModel"'),)),
    Probe("serves.medusa", V, V_REGISTRY, r'"MedusaModel"'),
    Probe("serves.medusa", S, *S_ANY,
          also_not=((S_SPEC, r"\bMEDUSA\b"), ("sglang/srt/server_args.py", r'"MEDUSA"'))),
    Probe("serves.dspark", V, V_REGISTRY,
          r'"(DSparkDraftModel|Qwen3DSparkModel)"\s*:',
          also=(("vllm/v1/worker/gpu/spec_decode/dspark/speculator.py",
                 r"class DSparkSpeculator"),)),
    Probe("serves.dspark", S, "sglang/srt/models/dspark.py",
          r"^EntryClass = \[Qwen3DSparkModel"),
    Probe("serves.speculators", V, V_ALGOS, r'@register_speculator\("dflash2"\)'),
    Probe("serves.speculators", V, V_ALGOS, r'@register_speculator\("dspark"\)',
          also_not=((V_ALGOS, r'@register_speculator\("dflash2"\)'),)),
    Probe("serves.speculators", V, V_ALGOS, r'@register_speculator\("peagle"\)',
          also_not=((V_ALGOS, r'@register_speculator\("dspark"\)'),)),
    Probe("serves.speculators", V, V_ALGOS, r'@register_speculator\("dflash"\)',
          also_not=((V_ALGOS, r'@register_speculator\("peagle"\)'),)),
    Probe("serves.speculators", V, V_ALGOS, r'@register_speculator\("eagle3"\)',
          also_not=((V_ALGOS, r'@register_speculator\("dflash"\)'),)),
    _absent("serves.speculators", V, where=V_ANY, what=(V_ALGOS, r"\A")),
    _absent("serves.speculators", S, where=S_ANY,
            what=("sglang/srt/configs/**/*.py", r"speculators_config")),
    # launch methods
    Probe("launch.method-names-validated", V, V_CONFIG,
          r"^from pydantic\.dataclasses import"),
    Probe("launch.methods", V, "vllm/config/speculative.py",
          r'^DSparkModelTypes\s*=\s*Literal\[\s*"dspark"',
          also=((V_REGISTRY, r'"DFlash2DraftModel"\s*:'),),
          also_not=(("vllm/config/speculative.py", r'^\s*"medusa",'),)),
    Probe("launch.methods", V, "vllm/config/speculative.py", r'^\s*"medusa",',
          also=((V_REGISTRY, r'"DFlash2DraftModel"\s*:'),)),
    Probe("launch.methods", V, "vllm/config/speculative.py",
          r'^DSparkModelTypes\s*=\s*Literal\[\s*"dspark"',
          also_not=((V_REGISTRY, r'"DFlash2DraftModel"\s*:'),)),
    Probe("launch.methods", V, "vllm/config/speculative.py",
          r'^DFlashModelTypes\s*=\s*Literal\[\s*"dflash"',
          also_not=(("vllm/config/speculative.py", r"^DSparkModelTypes"),)),
    Probe("launch.methods", V, "vllm/config/speculative.py",
          r'"mtp"\]|^\s*"mtp",', also_not=(("vllm/config/speculative.py", r"^DFlashModelTypes"),)),
    Probe("launch.methods", V, V_CONFIG,
          r'self\.method\s*=\s*"qwen3_next_mtp"'),
    Probe("launch.methods", V, V_CONFIG, r'self\.method\s*=\s*"deepseek_mtp"',
          also=((V_ALGOS, r'@register_speculator\("eagle3"\)'),),
          also_not=((V_CONFIG, r'self\.method\s*=\s*"qwen3_next_mtp"'),)),
    Probe("launch.methods", V, V_CONFIG, r'self\.method\s*=\s*"deepseek_mtp"',
          also_not=((V_ALGOS, r"\A"),)),
    Probe("launch.methods", V, "vllm/config.py", r'method\s*==\s*"eagle3"',
          also_not=((V_CONFIG, r'self\.method\s*=\s*"deepseek_mtp"'),)),
    Probe("launch.methods", S, S_SPEC, r"\bDSPARK\b",
          also=((S_SPEC, r"\bDFLASH\b"),)),
    Probe("launch.methods", S, S_SPEC, r"\bDFLASH\b",
          also_not=((S_SPEC, r"\bDSPARK\b"),)),
    Probe("launch.methods", S, "sglang/srt/server_args.py",
          r'"EAGLE3"', also_not=((S_SPEC, r"\bDFLASH\b"),)),
    # EAGLE-3
    Probe("eagle3.aux-sources", V,
          "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
          r"eagle_aux_hidden_state_layer_ids", path="v2"),
    Probe("eagle3.aux-sources", V, "vllm/v1/worker/gpu_model_runner.py",
          r'eagle_config\.get\(\s*"eagle_aux_hidden_state_layer_ids"', path="v1"),
    Probe("eagle3.aux-sources", V, "vllm/v1/worker/gpu_model_runner.py",
          r'"eagle_aux_hidden_state_layer_ids"',
          also_not=(("vllm/v1/worker/gpu_model_runner.py",
                     r'eagle_config\.get\(\s*"eagle_aux_hidden_state_layer_ids"'),), path="v1"),
    Probe("eagle3.aux-sources", V, V_EAGLE3, r"\A",
          also=(("vllm/v1/worker/gpu_model_runner.py", r"\A"),),     # V1, gone in 0.34.0
          also_not=(("vllm/v1/worker/gpu_model_runner.py", r"eagle_aux_hidden_state_layer_ids"),)),
    Probe("eagle3.aux-sources", S, "sglang/srt/model_executor/**/*.py",
          r'eagle_config\s*=\s*getattr\(\s*[\w.]+hf_config\s*,\s*"eagle_config"\s*,\s*None\s*\)'
          r'[\s\S]{0,400}?eagle_config\[\s*"eagle_aux_hidden_state_layer_ids"\s*\]'),
    Probe("eagle3.aux-convention", V, "vllm/model_executor/models/llama.py",
          r"(if idx in self\.aux_hidden_state_layers:\s*\n\s*aux_hidden_states\.append\("
          r"hidden_states \+ residual\)\s*\n\s*hidden_states, residual = layer\(|"
          r"_maybe_add_hidden_state\(\s*aux_hidden_states,\s*idx \+ 1,)"),
    Probe("eagle3.aux-convention", S, "sglang/srt/models/llama.py",
          r"def\s+set_eagle3_layers_to_capture[\s\S]{0,600}?layers_to_capture\s*=\s*\[\s*val\s*"
          r"\+\s*1\s+for\s+val\s+in\s+layer_ids\s*\]"),
    Probe("eagle3.aux-shift-if-first-is-one", S, "sglang/srt/models/deepseek_v2.py",
          r"if\s+layer_ids\s+and\s+layer_ids\[0\]\s*==\s*1:"),
    _absent("eagle3.aux-shift-if-first-is-one", S, where=S_ANY,
            what=("sglang/srt/models/deepseek_v2.py",
                  r"if\s+layer_ids\s+and\s+layer_ids\[0\]\s*==\s*1:")),
    Probe("eagle3.one-layer-architectures", S, "sglang/srt/models/*.py",
          r"EntryClass\s*=[\s\S]{0,80}?Eagle3DeepseekV2ForCausalLM",
          also=(("sglang/srt/models/*.py", r"EAGLE3 currently only supports 1 layer"),),
          also_not=((S_EAGLE3, r"EAGLE3 currently only supports 1 layer"),)),
    Probe("eagle3.one-layer-architectures", S, S_EAGLE3,
          r"EAGLE3 currently only supports 1 layer"),
    Probe("eagle3.tied-head-is-embedding", S, "sglang/srt/models/kimi_k25_eagle3.py",
          r"if\s+(self\.)?config\.tie_word_embeddings:\s*\n\s*self\.lm_head\s*=\s*"
          r"self\.model\.embed_tokens",
          also=((S_EAGLE3, r"if\s+self\.config\.tie_word_embeddings:\s*\n\s*self\.lm_head\s*=\s*"
                           r"self\.model\.embed_tokens"),)),
    Probe("eagle3.tied-head-is-embedding", S, S_EAGLE3,
          r"if\s+self\.config\.tie_word_embeddings:\s*\n\s*self\.lm_head\s*=\s*"
          r"self\.model\.embed_tokens",
          also_not=(("sglang/srt/models/kimi_k25_eagle3.py", r"\A"),)),
    Probe("eagle3.requires-architectures", V, V_EAGLE_CONFIG,
          r"for\s+arch\s+in\s+self\.model\.architectures"),
    Probe("eagle3.requires-draft-vocab-size", S, S_EAGLE3,
          r"config_\.vocab_size\s*=\s*\(\s*config_\.draft_vocab_size"),
    Probe("eagle3.requires-draft-vocab-size", V, V_EAGLE3,
          r"org_num_embeddings=self\.config\.draft_vocab_size",
          also_not=((V_EAGLE3, r"getattr\(self\.config,\s*.draft_vocab_size.,\s*None\)"),)),
    Probe("eagle3.requires-draft-vocab-size-untied", S, S_EAGLE3,
          r"ParallelLMHead\(\s*config\.draft_vocab_size",
          also_not=((S_EAGLE3, r"config_\.vocab_size\s*=\s*\(\s*config_\.draft_vocab_size"),)),
    Probe("draft.short-context-raised", S, "sglang/srt/configs/model_config.py",
          r"Overriding the draft model's max_position_embeddings"),
    Probe("draft.short-context-raised", S,
          "sglang/srt/configs/model_config.py", r"is greater than the derived context_length",
          also_not=(("sglang/srt/configs/model_config.py",
                     r"Overriding the draft model's max_position_embeddings"),)),
    # draft context
    Probe("draft.raises-max-position-for", V, "vllm/config/speculative.py",
          r"_CACHE_ONLY_ROPE_TYPES = frozenset"),
    Probe("draft.raises-max-position-for", V, "vllm/config/speculative.py",
          r"def _maybe_override_draft_max_position_embeddings",
          also_not=(("vllm/config/speculative.py", r"_CACHE_ONLY_ROPE_TYPES = frozenset"),)),
    Probe("draft.raises-max-position-for", V, V_CONFIG,
          r"class SpeculativeConfig",
          also_not=((V_CONFIG, r"def _maybe_override_draft_max_position_embeddings"),)),
    Probe("draft.raises-max-position-methods", V, "vllm/**/spec**.py",
          r'if self\.method != "draft_model":\s*#[^\n]*\n(\s*#[^\n]*\n)*\s*SpeculativeConfig\.'
          r"_maybe_override_draft_max_position_embeddings|"
          r'base_method\s*=\s*"draft_model"[\s\S]{0,300}?shares_target_positions\s*=\s*False'),
    Probe("draft.raises-max-position-methods", V,
          "vllm/config/speculative.py",
          r'if self\.method in \("eagle", "eagle3"\):\s*#[^\n]*\n(\s*#[^\n]*\n)*\s*'
          r"SpeculativeConfig\._maybe_override_draft_max_position_embeddings"),
    Probe("draft.raises-max-position-methods", V, V_CONFIG,
          r"class SpeculativeConfig",
          also_not=((V_CONFIG, r"def _maybe_override_draft_max_position_embeddings"),)),
    Probe("eagle3.fc-count-sources", V, V_EAGLE3,
          r'getattr\(\s*self\.config,\s*"num_aux_hidden_states"'),
    Probe("eagle3.fc-count-sources", V, V_EAGLE3,
          r"target_hidden_size\s*\*\s*3|hidden_size\s*\*\s*3",
          also_not=((V_EAGLE3, r'"num_aux_hidden_states"'),)),
    Probe("eagle3.fc-count-sources", S, S_EAGLE3, r"num_aux_hidden_states",
          also=((S_EAGLE3, r'eagle_config\.get\(\s*"eagle_aux_hidden_state_layer_ids"'),)),
    Probe("eagle3.fc-count-sources", S, S_EAGLE3,
          r"(self\.hidden_size_in|config\.hidden_size)\s*\*\s*3\b",
          also_not=((S_EAGLE3, r"num_aux_hidden_states"),)),
    Probe("eagle3.reads-3.1-flags", V, V_EAGLE3,
          r'getattr\(\s*self\.config,\s*"fc_norm"',
          also=((V_EAGLE3, r'getattr\(\s*self\.config,\s*"norm_output"'),
                (V_EAGLE3, r'eagle_config\.get\(\s*"norm_before_fc"'),)),
    Probe("eagle3.reads-3.1-flags", V, V_EAGLE3,
          r'getattr\(\s*self\.config,\s*"norm_before_fc"',
          also_not=((V_EAGLE3, r'"fc_norm"'),)),
    Probe("eagle3.reads-3.1-flags", V, V_EAGLE3, r"\A",
          also_not=((V_EAGLE3, r'"(fc_norm|norm_output|norm_before_fc)"'),)),
    Probe("eagle3.reads-3.1-flags", S, S_EAGLE3, r'"norm_before_fc"',
          also=((S_EAGLE3, r'"fc_norm"'), (S_EAGLE3, r'"use_aux_norm"'),
                (S_EAGLE3, r'"norm_output"'))),
    Probe("eagle3.reads-3.1-flags", S, S_EAGLE3, r'"fc_norm"',
          also=((S_EAGLE3, r'"use_aux_norm"'), (S_EAGLE3, r'"norm_output"')),
          also_not=((S_EAGLE3, r'"norm_before_fc"'),)),
    Probe("eagle3.reads-3.1-flags", S, S_EAGLE3, r"\A",
          also_not=((S_EAGLE3, r'"(fc_norm|use_aux_norm|norm_output|norm_before_fc)"'),)),
    Probe("eagle3.reads-norm-before-residual", V, V_EAGLE3,
          r'if getattr\(\s*config,\s*"norm_before_residual",\s*False\s*\):'),
    Probe("eagle3.reads-norm-before-residual", V, V_EAGLE3, r"\A",
          also_not=((V_EAGLE3, r"norm_before_residual"),)),
    _absent("eagle3.reads-norm-before-residual", S, where=(S_EAGLE3, r"\A"),
            what=("sglang/srt/models/*eagle*.py", r"norm_before_residual")),
    # eagle_config.use_aux_hidden_state: false
    Probe("eagle3.reads-use-aux-hidden-state", V, "vllm/v1/spec_decode/*.py",
          r'eagle_config\.get\(\s*"use_aux_hidden_state"', path="v1"),
    _absent("eagle3.reads-use-aux-hidden-state", V, where=(V_EAGLE3, r"\A"),
            what=("vllm/v1/spec_decode/*.py", r'"use_aux_hidden_state"'),
            also=(("vllm/v1/spec_decode/eagle.py", r"\A"),), path="v1"),   # V1, gone in 0.34.0
    Probe("eagle3.reads-use-aux-hidden-state", V, V_EAGLE3_V2,
          r"\A(?![\s\S]*use_aux_hidden_state)", path="v2",
          also_not=((V_EAGLE3_V2_ALL, r'eagle_config\.get\(\s*"use_aux_hidden_state"'),)),
    Probe("eagle3.reads-use-aux-hidden-state", V, V_EAGLE3_V2_ALL,
          r'eagle_config\.get\(\s*"use_aux_hidden_state"', path="v2"),
    Probe("eagle3.reads-use-aux-hidden-state", S, "sglang/srt/model_executor/**/*.py",
          r'\.get\(\s*"use_aux_hidden_state"'),
    _absent("eagle3.reads-use-aux-hidden-state", S, where=(S_EAGLE3, r"\A"),
            what=("sglang/srt/model_executor/**/*.py", r'"use_aux_hidden_state"')),
    # RoPE
    Probe("rope.partial-rotary-applied", V, "vllm/model_executor/**/*.py",
          r"rotary_dim\s*=\s*int\(\s*head_size\s*\*\s*partial_rotary_factor\s*\)|"
          r'self\.partial_rotary_factor\s*=\s*getattr\(\s*config,\s*"partial_rotary_factor"|'
          r"self\.rotary_dim\s*=\s*int\(\s*partial_rotary_factor\s*\*\s*self\.head_dim\)"),
    Probe("rope.partial-rotary-applied", S, S_DFLASH,
          r'getattr\(\s*config\s*,\s*"partial_rotary_factor"\s*,\s*1\.0\s*\)'),
    Probe("rope.partial-rotary-applied", S, S_DFLASH,
          r"EntryClass", also_not=((S_DFLASH, r"partial_rotary_factor"),)),
    # MTP
    Probe("mtp.shares-target-lm-head", V, *MTP_HEAD),
    Probe("mtp.shares-target-lm-head", V, *V_ANY, also_not=(MTP_HEAD,)),
    Probe("vllm.legacy-speculative-flags", V, V_ARGS, r"speculative[-_]config",
          also_not=((V_ARGS, r"""['"]--speculative-model['"]"""),)),
    Probe("vllm.legacy-speculative-flags", V, V_ARGS,
          r"""['"]--speculative-model['"]"""),
    Probe("eagle3.head-from-target-only-without-draft-vocab", S, S_EAGLE3,
          r"draft_vocab_size is None:\s+self\.load_lm_head_from_target = True"),
    Probe("eagle3.head-from-target-only-without-draft-vocab", S,
          S_EAGLE3, r"class\s+LlamaForCausalLMEagle3",
          also_not=((S_EAGLE3, r"load_lm_head_from_target"),)),
    Probe("quant.moe-exclusions-read", V, V_MODELOPT,
          r"if self\.is_layer_excluded\(prefix\):\s+if isinstance\(layer, [^\n]*\n\s+"
          r"return UnquantizedLinearMethod\(\)\s+return None"),
    Probe("quant.moe-exclusions-read", V, V_MODELOPT,
          r"if skip_layer:\s+return None\s+return ModelOptNvFp4FusedMoE"),
    Probe("quant.moe-exclusions-read", V, V_MODELOPT,
          r"elif isinstance\(layer, FusedMoE\):\s+return ModelOptNvFp4FusedMoE\(self"),
    Probe("mtp.quark-unquantized-when", S, S_QWEN35_MTP,
          r'if mtp_excludes and any\("mlp\.experts" in layer'),
    Probe("mtp.quark-unquantized-when", S, S_QWEN35_MTP,
          r'layer\.startswith\("mtp\."\)', also_not=((S_QWEN35_MTP, r"mtp_excludes"),)),
    Probe("mtp.quark-unquantized-when", S, S_QWEN35_MTP,
          r"class Qwen3_5ForCausalLMMTP",
          also_not=((S_QWEN35_MTP, r'layer\.startswith\("mtp\."\)'),)),
    Probe("mtp.fused-names-expanded", S, S_QWEN35_MTP, S_MTP_PACKED),
    Probe("mtp.fused-names-expanded", S, S_QWEN35_MTP,
          r"class Qwen3_5ForCausalLMMTP", also_not=((S_QWEN35_MTP, S_MTP_PACKED),)),
    Probe("mtp.unquantized-layers-under-dynamic-mtp", V, V_QWEN35_MTP,
          DYNAMIC_MTP),
    Probe("mtp.unquantized-layers-under-dynamic-mtp", V, V_QWEN35_MTP,
          r"class Qwen3_5MultiTokenPredictor", also_not=((V_QWEN35_MTP, DYNAMIC_MTP),)),
    Probe("mtp.unquantized-fc-under", V, V_NEXT_MTP, MODELOPT_FP4),
    Probe("mtp.unquantized-fc-under", V, V_QWEN35_MTP, MODELOPT_FP4,
          also_not=((V_NEXT_MTP, MODELOPT_FP4),)),
    Probe("mtp.unquantized-fc-under", V, V_NEXT_MTP, r"class Qwen3NextMTP",
          also_not=(("vllm/model_executor/models/qwen3_*_mtp.py", MODELOPT_FP4),)),
    # draft class renames
    Probe("registry.draft-rewrite", V, V_EAGLE_CONFIG,
          r'arch\s*==\s*"LiLiCorrDraftModel"'),
    Probe("registry.draft-rewrite", V, V_EAGLE_CONFIG,
          r'arch\.startswith\("DFlash"\)\s*or\s+arch\.endswith\("DFlash"\)',
          also_not=((V_EAGLE_CONFIG, r'"LiLiCorrDraftModel"'),)),
    Probe("registry.draft-rewrite", V, V_EAGLE_CONFIG,
          r'arch\.startswith\("Eagle3"\)\s*or\s+arch\.endswith\("Eagle3"\)',
          also_not=((V_EAGLE_CONFIG, r'"DFlash"'),)),
    Probe("registry.draft-rewrite", V, V_EAGLE_CONFIG,
          r'f"Eagle3\{arch\}"\s*if\s+not\s+arch\.startswith\("Eagle3"\)',
          also_not=((V_EAGLE_CONFIG, r'arch\.endswith\("Eagle3"\)'),)),
    _absent("registry.draft-rewrite", S, where=S_ANY,
            what=("sglang/srt/configs/model_config.py",
                  r'architectures(\[0\])?\s*=\s*\[?\s*"[A-Za-z0-9_]*(Eagle|DFlash)')),
    Probe("draft.short-context-refused", S, "sglang/srt/configs/model_config.py",
          r'SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN("\s*\)|\.get\(\))\s*or\s+is_in_ci\(\)'),
    Probe("draft.short-context-refused", S,
          "sglang/srt/configs/model_config.py",
          r'"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"\s*,\s*default\s*=\s*"True"'),
    _absent("config.unknown-model-types", V, where=("vllm-*.dist-info/METADATA",
            r"^Requires-Dist: transformers"),
            what=("vllm/transformers_utils/config.py", r'^\s*"(dflash|dspark)"\s*:')),
    _absent("config.unknown-model-types", S, where=S_ANY,
            what=("sglang/srt/configs/**/*.py", r'AutoConfig\.register\(\s*"(dflash|dspark)"|'
                  r'^\s*"(dflash|dspark)"\s*:\s*\w+Config')),
    # extracted: every run of releases with one value is a row of its own
    *(Probe("registry.architectures", runtime, extract=f"{runtime}-registry")
      for runtime, *_ in registries.runs("registry.architectures")),
    *(Probe("mtp.mapped-targets", runtime, extract="vllm-mtp-targets")
      for runtime, *_ in registries.runs("mtp.mapped-targets")),
    *(Probe("aux.target-model-types", runtime, extract="vllm-aux-targets")
      for runtime, *_ in registries.runs("aux.target-model-types")),
    *(Probe("transformers.pin", runtime, extract="transformers-pin")
      for runtime, *_ in registries.runs("transformers.pin")),
    *(Probe("eagle3.target-architectures", runtime, extract="vllm-eagle3-classes")
      for runtime, *_ in registries.runs("eagle3.target-architectures")),
    *(Probe("config.model-types", runtime, extract="config-model-types")
      for runtime, *_ in registries.runs("config.model-types")),
))
