"""`--format github`: GitHub Actions workflow commands (`::error file=...::message`)."""

from __future__ import annotations

import os

from drafter_lint.findings import Result, one_line

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """The message part: %, CR and LF are escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (file, title): also ':' and ','; controls escaped as everywhere."""

    return one_line(escape_data(text)).replace(":", "%3A").replace(",", "%2C")


def render(results: list[Result], options: dict | None = None) -> str:
    lines = []
    for result in results:
        for f in result.findings:
            props = [f"file={escape_property(os.path.join(result.path, f.file))}"]
            if f.line is not None:
                props += [f"line={f.line}", f"col={f.column}"]
            props.append(f"title={escape_property(f'{f.rule} {f.name}')}")
            lines.append(f"::{LEVELS[f.severity.value]} {','.join(props)}::"
                         f"{escape_data(f.message)}")
    return "".join(line + "\n" for line in lines)
