"""Every error drafter-lint reports to its user, and the exit code each ends a run with.

A `DrafterLintError` is a one-line message; the CLI prints it as `drafter-lint: error: ...`
and exits with `exit_code` (2 for anything that stops a run before a verdict, 1 for a
refused launch).
The built-in base each class keeps (ValueError, OSError) is what callers catch it as.
"""

from __future__ import annotations

REFUSED = 1     # the gate refused the launch (findings at or above --fail-on)
USAGE = 2       # a path, a setting, an option, the hub or a write stopped the run


class DrafterLintError(Exception):
    """A clear one-line error; `exit_code` ends the run."""

    exit_code = USAGE


class UsageError(DrafterLintError):
    """The command line, or what it names, cannot be used."""


class UnknownRuntime(DrafterLintError, ValueError):
    """A --runtime value naming no known runtime or release."""


class SettingsError(DrafterLintError, ValueError):
    """A settings file or baseline that cannot be used."""


class TargetError(DrafterLintError, ValueError):
    """A target (--target, a card's base_model) that cannot be read."""


class ReferenceUnusable(DrafterLintError, ValueError):
    """A reference (--reference, --from-hub) that cannot be read."""


class HubError(DrafterLintError):
    """The hub, or its cache in offline mode, cannot give what was asked."""


class HubUnreachable(HubError):
    """The hub gave no answer (no connection, a timeout, 5xx, rate limited past the wait
    budget): a copy in the hub cache may stand in."""


class FileTooBig(HubError):
    """A hub file is larger than this tool reads; it was not downloaded."""


class CheckpointNotFound(DrafterLintError, OSError):
    """No checkpoint folder at or above a path."""


class GateError(DrafterLintError, ValueError):
    """A launch line the gate cannot read or resolve: the launch is refused."""

    exit_code = REFUSED


class RepairRefused(DrafterLintError):
    """A fix that would leave a changed or half-written file; nothing is written."""


class WriteError(DrafterLintError, OSError):
    """A write that failed or did not read back; the file is unchanged."""


class JsonSyntaxError(DrafterLintError, ValueError):
    """Not JSON. `line` and `column` are 1-based."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"{message} (line {line}, column {column})")
        self.reason, self.line, self.column = message, line, column


class HeaderError(DrafterLintError, ValueError):
    """A safetensors header that cannot be trusted (truncated, oversized, hostile)."""


class TokenizerError(DrafterLintError, ValueError):
    """A tokenizer file that cannot be read."""


class PatchError(DrafterLintError, ValueError):
    """A fix's RFC 6902 edit that does not apply to the document."""


class WouldNotServe(AssertionError):
    """`drafter_lint.assert_serves`: the drafter draws errors (a runtime refuses it or
    serves it other than trained); `report` is the api.Report, the text lists each error."""

    def __init__(self, report):
        self.report = report
        lines = [f"{r.path}/{f}" for r in report.results for f in r.findings
                 if f.severity == "error"]
        super().__init__(f"{len(lines)} error(s): the drafter would not serve as trained\n"
                         + "\n".join(lines))
