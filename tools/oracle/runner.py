"""What run_vllm.py and run_sglang.py share: each launch in its own environment and under
a deadline, one JSON line per verdict. Runs in the runtime's venv (no drafter_lint)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys

SECONDS_PER_LAUNCH = 120


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout(f"no verdict within {SECONDS_PER_LAUNCH} s")


@contextlib.contextmanager
def launch_conditions(env: dict, forget=lambda key: None):
    """The launch's environment variables set, a deadline armed; both undone after, with
    whatever the runtime itself wrote to the environment (vllm==0.9.2
    engine/arg_utils.py:998 sets VLLM_USE_V1 for the whole process, after which every
    later launch counts as an explicit VLLM_USE_V1=1). `forget(key)` drops whatever the
    runtime cached of a variable."""
    saved = dict(os.environ)
    os.environ.update({k: str(v) for k, v in env.items()})
    for key in env:
        forget(key)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS_PER_LAUNCH)
    try:
        yield
    finally:
        signal.alarm(0)
        changed = {k for k in os.environ.keys() | saved.keys()
                   if os.environ.get(k) != saved.get(k)}
        os.environ.clear()
        os.environ.update(saved)
        for key in changed | set(env):
            forget(key)


def record(runtime: str, version: str, run) -> int:
    """`run(launch)` for this runtime's launches of argv[1], one JSON line each to argv[2]."""
    launches = [x for x in json.loads(open(sys.argv[1]).read()) if x["runtime"] == runtime]
    with open(sys.argv[2], "w") as out:
        out.write(json.dumps({"runtime": runtime, "version": version}) + "\n")
        for launch in launches:
            out.write(json.dumps(run(launch), default=str) + "\n")
            out.flush()
    return 0
