"""Options for a test's lint, from the plain values the case tables write: a runtime spec
(`"vllm==0.25.0"`) and a launch as a dict of the settings a line carries."""

from __future__ import annotations

from drafter_lint import runtimes
from drafter_lint.launch import DryRunVerdict, LaunchLine, ServerContext
from drafter_lint.options import Options
from drafter_lint.readonly import readonly

LAUNCH_KEYS = {"runtime", "method", "draft", "env", "env_cleared", "speculators_direct",
               "max_model_len", "num_speculative_tokens", "num_draft_tokens", "release",
               "dry_run", "legacy_flags", "radix_cache_disabled", "mamba_strategy"}


def launch_of(settings: dict | None, release: runtimes.Release | None = None) -> dict:
    """The Options keywords (`launch`, `server`, `dry_run`) of `{"runtime": "vllm", "method":
    "mtp", "num_speculative_tokens": 1}`; the launch's release is `release` when that is
    the launch's runtime, else the newest recorded. {} without settings."""
    if not settings:
        return {}
    unknown = set(settings) - LAUNCH_KEYS
    assert not unknown, f"unknown launch settings {unknown}"
    runtime = settings.get("runtime")
    tokens = settings.get("num_speculative_tokens") or settings.get("num_draft_tokens")
    if runtime and "release" in settings:
        release = runtimes.parse(settings["release"])
    elif runtime and (release is None or release.runtime != runtime):
        release = runtimes.parse(runtime)
    dry_run = settings.get("dry_run")
    return dict(
        launch=LaunchLine(runtime=runtime, method=settings.get("method"),
                          draft=settings.get("draft"), tokens=tokens,
                          speculators_direct=bool(settings.get("speculators_direct")),
                          max_model_len=settings.get("max_model_len"),
                          radix_cache_disabled=bool(settings.get("radix_cache_disabled")),
                          mamba_strategy=settings.get("mamba_strategy"),
                          legacy_flags=tuple(settings.get("legacy_flags") or ())),
        server=ServerContext(runtime=runtime, env=readonly(settings.get("env") or {}),
                             env_cleared=bool(settings.get("env_cleared")),
                             release=release if runtime else None),
        dry_run=DryRunVerdict.of(dry_run, 0.0) if dry_run is not None else None)


def options(runtime: str | None = None, launch: dict | None = None, **rest) -> Options:
    release = runtimes.parse(runtime) if runtime else None
    return Options(runtime=release, **launch_of(launch, release), **rest)
