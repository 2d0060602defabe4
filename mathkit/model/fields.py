"""Reading one field of game data: types, ranges and located errors.

Every reader takes the value and its field path (``free_spins.awards.3``) and
either returns a clean Python value or raises a
:class:`~mathkit.errors.GameError` naming the field, what is wrong and what
would be right.  :mod:`mathkit.gamefile.parse` reads the core tables with them, and each
feature block (:mod:`mathkit.features`) reads its own table with them, so a
new mechanic's fields get the same checks and messages for free.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
import reprlib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..errors import GameError
from .bounds import MAX_COUNT, MAX_INT

__all__ = [
    "UnknownField",
    "array",
    "boolean",
    "check_keys",
    "count_key",
    "count_table",
    "fraction",
    "integer",
    "show",
    "string",
    "suggest",
    "table",
]

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 2, 40, 40, 6, 4
_NUMBER = re.compile(r"[+-]?(?:\d{1,40}(?:\.\d{0,40})?|\.\d{1,40})(?:[eE][+-]?\d{1,3})?")
_RATIO = re.compile(r"[+-]?\d{1,40}\s*/\s*\d{1,40}")


def show(value: Any) -> str:
    """A value as an error message shows it: short, and safe for anything a file can hold.

    Examples
    --------
    >>> show(10**40), show([[[[1]]]]), show(float("nan"))
    ('an integer of 41 digits', '[[[...]]]', 'nan')
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return f"an integer of {len(str(abs(value)))} digits"
    return _REPR.repr(value)


class UnknownField(GameError):
    """A key a table does not know (``key`` is the key itself)."""

    def __init__(self, key: str, message: str, *, field: str = "", fix: str = "") -> None:
        self.key = key
        super().__init__(message, field=field, fix=fix)


def suggest(word: str, options: Sequence[str]) -> str:
    """A fix for an unknown name: the closest option, and the list.

    Examples
    --------
    >>> suggest("trigerr", ["trigger", "awards"])
    "did you mean 'trigger'? (one of: trigger, awards)"
    """
    close = difflib.get_close_matches(word, list(options), n=1)
    listed = ", ".join(options)
    if close:
        return f"did you mean {close[0]!r}? (one of: {listed})"
    return f"use one of: {listed}"


def check_keys(data: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    """Refuse any key of ``data`` not in ``allowed``, suggesting the closest one."""
    for key in data:
        if key not in allowed:
            field = f"{where}.{key}" if where else key
            msg = f"unknown field {show(key)}"
            raise UnknownField(key, msg, field=field, fix=suggest(key, allowed))


def table(data: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> dict[str, Any]:
    """The sub-table ``data[key]`` (empty when absent and not required)."""
    value = data.get(key)
    field = f"{where}.{key}" if where else key
    if value is None:
        if required:
            msg = "missing table"
            raise GameError(msg, field=field, fix=f"add a [{field}] table")
        return {}
    if not isinstance(value, dict):
        msg = f"expected a table, got {type(value).__name__}"
        raise GameError(msg, field=field, fix=f"write [{field}] with its keys" if where == "" else "")
    return value


def integer(value: Any, field: str, *, minimum: int | None = None, maximum: int = MAX_INT) -> int:
    """A whole number (not a bool, not a float), within ``[minimum, maximum]`` (:data:`~mathkit.model.bounds.MAX_INT` at most).

    Examples
    --------
    >>> integer(3, "x", minimum=1)
    3
    >>> integer(0, "free_spins.multiplier", minimum=1)
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: free_spins.multiplier: must be at least 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"expected an integer, got {show(value)}"
        raise GameError(msg, field=field, fix="write a whole number without quotes or decimals")
    if minimum is not None and value < minimum:
        msg = f"must be at least {minimum}, got {show(value)}"
        raise GameError(msg, field=field)
    if value > maximum:
        msg = f"must be at most {maximum:,}, got {show(value)}"
        raise GameError(msg, field=field, fix=f"use a whole number from {minimum if minimum is not None else 0} to {maximum:,}")
    return value


def string(value: Any, field: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        msg = f"expected a non-empty string, got {show(value)}"
        raise GameError(msg, field=field)
    return value


def boolean(value: Any, field: str) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        msg = f"expected true or false, got {show(value)}"
        raise GameError(msg, field=field)
    return value


def array(value: Any, field: str) -> list[Any]:
    """A TOML array."""
    if not isinstance(value, list):
        msg = f"expected an array, got {show(value)}"
        raise GameError(msg, field=field)
    return value


def _parse_number(text: str) -> Fraction | None:
    """A decimal (``"0.95"``, ``"1e-3"``) or a ratio (``"1/4"``) of at most 40 digits a part, else ``None``."""
    t = text.strip()
    if _RATIO.fullmatch(t):
        num, den = (int(x) for x in t.split("/"))
        return Fraction(num, den) if den else None
    if _NUMBER.fullmatch(t):
        return Fraction(t)
    return None


def fraction(value: Any, field: str) -> Fraction:
    """A finite number: an integer, a decimal, or a fraction written as a string (``"1/4"``).

    Its size and its precision are at most :data:`~mathkit.model.bounds.MAX_INT` (numerator
    and denominator), so every number a file holds is exact and quick to compute with.

    Examples
    --------
    >>> fraction("1/4", "p"), fraction(0.5, "p")
    (Fraction(1, 4), Fraction(1, 2))
    >>> fraction(float("nan"), "declared_rtp")
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: declared_rtp: expected a finite number, got nan (fix: write e.g. 0.95 or "19/20")
    """
    out: Fraction | None = None
    if isinstance(value, bool):
        out = None
    elif isinstance(value, float):
        if not math.isfinite(value):
            msg = f"expected a finite number, got {show(value)}"
            raise GameError(msg, field=field, fix='write e.g. 0.95 or "19/20"')
        out = Fraction(str(value))
    elif isinstance(value, int):
        out = Fraction(value)
    elif isinstance(value, str):
        out = _parse_number(value)
    if out is None:
        msg = f'expected a number or a fraction like "1/4", got {show(value)}'
        raise GameError(msg, field=field)
    if abs(out.numerator) > MAX_INT * out.denominator or out.denominator > MAX_INT:
        msg = f"{show(value)} is too large or too precise (numerator and denominator at most {MAX_INT:,})"
        raise GameError(msg, field=field, fix="write a number of ordinary size, e.g. 0.95")
    return out


def count_key(key: str, field: str) -> int:
    """A table key that is a symbol count (``3`` in ``{ 3 = 10 }``), from 1 to :data:`~mathkit.model.bounds.MAX_COUNT`."""
    text = key.strip()
    if not (text.isascii() and text.lstrip("+-").isdigit() and len(text) <= 12):
        msg = f"count {show(key)} is not a whole number"
        raise GameError(msg, field=field, fix="key by the number of symbols, e.g. { 3 = 5, 4 = 20, 5 = 100 }")
    count = int(text)
    if not 1 <= count <= MAX_COUNT:
        msg = f"count must be from 1 to {MAX_COUNT:,}, got {count}"
        raise GameError(msg, field=field)
    return count


def count_table(value: Any, where: str, *, what: str = "spins", maximum: int = MAX_INT) -> tuple[tuple[int, int], ...]:
    """A table ``{ count = value }`` of whole numbers from 0 to ``maximum``, sorted by count.

    Examples
    --------
    >>> count_table({"4": 15, "3": 10}, "free_spins.awards")
    ((3, 10), (4, 15))
    """
    if not isinstance(value, dict):
        msg = f"expected a table of count = {what}"
        raise GameError(msg, field=where, fix="write e.g. { 3 = 10 }")
    out = sorted((count_key(k, f"{where}.{k}"), integer(v, f"{where}.{k}", minimum=0, maximum=maximum))
                 for k, v in value.items())
    for (a, _), (b, _) in itertools.pairwise(out):
        if a == b:
            msg = f"count {a} is written twice"
            raise GameError(msg, field=f"{where}.{a}", fix="keep one value per count")
    return tuple(out)
