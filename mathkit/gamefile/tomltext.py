"""Game text to data: TOML parsed with ``tomllib``, every failure a located :class:`~mathkit.errors.GameError`.

``tomllib`` says *what* is wrong and usually the line and column, but not the
key, sometimes not even the line (a duplicate key at the end of the file is
reported "at end of document"), and a few inputs escape its own error type
(an integer of thousands of digits, arrays nested thousands deep).  Here every
one of them becomes a :class:`~mathkit.errors.GameError` whose field is the
key being read (``paytable.A``), or the line when no key can be named, and
whose message keeps the line and column.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import GameError

__all__ = ["parse_toml"]

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)")
_BARE = r"(?:[A-Za-z0-9_-]+|\"(?:[^\"\\]|\\.)*\"|'[^']*')"
_DOTTED = rf"{_BARE}(?:\s*\.\s*{_BARE})*"
_HEADER = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_KEY = re.compile(rf"^\s*({_DOTTED})\s*=")
_PART = re.compile(_BARE)
_FIX = "check quotes, brackets, commas and '=' near the position given"
MAX_DEPTH = 32
"""Deepest nesting of arrays and inline tables a game file may use."""


def _dotted(text: str) -> str:
    """``a . "b c"`` → ``a.b c``."""
    return ".".join(p.strip("\"'") for p in _PART.findall(text))


def code_chars(line: str) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of a TOML line outside its strings (their quotes left out), up to its comment's ``#``."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        else:
            yield i, ch
            if ch == "#":
                return


def comment_start(line: str) -> int | None:
    """Where the comment of a TOML line starts (a ``#`` outside strings), or ``None``.

    Examples
    --------
    >>> comment_start('name = "A # B"  # a comment'), comment_start("x = 1")
    (16, None)
    """
    return next((i for i, ch in code_chars(line) if ch == "#"), None)


def _depth(line: str, depth: int) -> tuple[int, int]:
    """The bracket depth after ``line``, and the deepest reached in it (strings and comments skipped, roughly)."""
    deepest = depth
    for _, ch in code_chars(line):
        if ch == "#":
            break
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)
    return depth, deepest


def _statements(text: str) -> list[tuple[int, str, str]]:
    """``(line, table, key)`` of every header (key ``""``) and top-of-line assignment, in order."""
    out = []
    table = ""
    depth = 0
    for n, line in enumerate(text.splitlines(), start=1):
        if depth == 0:
            header = _HEADER.match(line)
            key = _KEY.match(line)
            if key:
                out.append((n, table, _dotted(key.group(1))))
            elif header:
                table = _dotted(header.group(1))
                out.append((n, table, ""))
        depth = _depth(line, depth)[0] if depth or "[" in line or "{" in line else 0
        if _HEADER.match(line) and not _KEY.match(line):
            depth = 0
    return out


def _key_at(text: str, line: int) -> str:
    """The full key of the statement that holds ``line`` (the table itself for a header)."""
    found = ""
    for n, table, key in _statements(text):
        if n > line:
            break
        found = f"{table}.{key}" if table and key else (key or table)
    return found


def _duplicate(text: str) -> tuple[int, str, int] | None:
    """The first key or table declared twice: its line, its full name and the line of the first one."""
    seen: dict[str, int] = {}
    lines = text.splitlines()
    for n, table, key in _statements(text):
        full = f"{table}.{key}" if table and key else (key or table)
        if key == "" and lines[n - 1].lstrip().startswith("[["):  # a new element of an array of tables
            seen = {s: m for s, m in seen.items() if not s.startswith(f"{table}.")}
            seen[full] = n
            continue
        if full in seen:
            return n, full, seen[full]
        seen[full] = n
    return None


def _deepest(text: str) -> int:
    """The line where the nesting first passes :data:`MAX_DEPTH`."""
    depth = 0
    for n, line in enumerate(text.splitlines(), start=1):
        depth, deepest = _depth(line, depth)
        if deepest > MAX_DEPTH:
            return n
    return 1


def parse_toml(text: str, path: str | Path | None = None) -> dict[str, Any]:
    """The TOML mapping of ``text``, or a :class:`GameError` naming the line, the column and the key.

    Examples
    --------
    >>> parse_toml('name = "g"\\n[bet]\\nlines = 1\\nlines = 2\\n')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: bet.lines: not valid TOML at line 4: the key is written twice (fix: ... at line 3)
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = str(exc)
        dup = _duplicate(text) if ("overwrite" in reason or "declare" in reason or "Duplicate" in reason) else None
        if dup is not None:
            line, key, first = dup
            msg = f"not valid TOML at line {line}: the {'table' if line in _headers(text) else 'key'} is written twice"
            raise GameError(msg, field=key, fix=f"keep one {key}; the first is at line {first}", path=path) from None
        at = _AT.search(reason)
        what = _AT.sub("", reason).replace(" (at end of document)", "")
        if at is None:
            lines = text.count("\n") + 1
            msg = f"not valid TOML at the end of the file (line {lines}): {what}"
            raise GameError(msg, field=_key_at(text, lines) or f"line {lines}", fix=_FIX, path=path) from None
        line, col = int(at.group(1)), int(at.group(2))
        msg = f"not valid TOML at line {line}, column {col}: {what}"
        raise GameError(msg, field=_key_at(text, line) or f"line {line}", fix=_FIX, path=path) from None
    except RecursionError:
        line = _deepest(text)
        msg = f"arrays or tables nested too deeply (more than {MAX_DEPTH} levels) near line {line}"
        raise GameError(msg, field=_key_at(text, line) or f"line {line}", fix="a game file nests at most a few levels",
                        path=path) from None
    except ValueError as exc:  # an integer too long to convert, say
        line = next((n for n, s in enumerate(text.splitlines(), start=1) if re.search(r"\d{4000}", s)), 1)
        what = "an integer of more than 4,300 digits" if "digits" in str(exc) else str(exc)
        msg = f"not valid TOML near line {line}: {what}"
        raise GameError(msg, field=_key_at(text, line) or f"line {line}", fix="write numbers of ordinary size",
                        path=path) from None


def _headers(text: str) -> set[int]:
    return {n for n, _, key in _statements(text) if not key}
