"""Reading one field of game data: types, ranges and located errors.

Every reader takes the value and its field path (``free_spins.awards.3``) and
either returns a clean Python value or raises a
:class:`~mathkit.errors.GameError` naming the field, what is wrong and what
would be right.  :mod:`mathkit.parse` reads the core tables with them, and each
feature block (:mod:`mathkit.features`) reads its own table with them, so a
new mechanic's fields get the same checks and messages for free.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from .errors import GameError

__all__ = [
    "array",
    "boolean",
    "check_keys",
    "count_key",
    "count_table",
    "fraction",
    "integer",
    "string",
    "suggest",
    "table",
]


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
            msg = f"unknown field {key!r}"
            raise GameError(msg, field=field, fix=suggest(key, allowed))


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
        raise GameError(msg, field=field)
    return value


def integer(value: Any, field: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """A whole number (not a bool, not a float), within ``[minimum, maximum]`` when given.

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
        msg = f"expected an integer, got {value!r}"
        raise GameError(msg, field=field, fix="write a whole number without quotes or decimals")
    if minimum is not None and value < minimum:
        msg = f"must be at least {minimum}, got {value}"
        raise GameError(msg, field=field)
    if maximum is not None and value > maximum:
        msg = f"must be at most {maximum}, got {value}"
        raise GameError(msg, field=field)
    return value


def string(value: Any, field: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        msg = f"expected a non-empty string, got {value!r}"
        raise GameError(msg, field=field)
    return value


def boolean(value: Any, field: str) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        msg = f"expected true or false, got {value!r}"
        raise GameError(msg, field=field)
    return value


def array(value: Any, field: str) -> list[Any]:
    """A TOML array."""
    if not isinstance(value, list):
        msg = f"expected an array, got {value!r}"
        raise GameError(msg, field=field)
    return value


def fraction(value: Any, field: str) -> Fraction:
    """A number: an integer, a decimal, or a fraction written as a string (``"1/4"``).

    Examples
    --------
    >>> fraction("1/4", "p"), fraction(0.5, "p")
    (Fraction(1, 4), Fraction(1, 2))
    """
    if isinstance(value, bool):
        msg = f"expected a number, got {value!r}"
        raise GameError(msg, field=field)
    if isinstance(value, int | float):
        return Fraction(str(value))
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            pass
    msg = f'expected a number or a fraction like "1/4", got {value!r}'
    raise GameError(msg, field=field)


def count_key(key: str, field: str) -> int:
    """A table key that is a symbol count (``3`` in ``{ 3 = 10 }``), at least 1."""
    try:
        count = int(key)
    except ValueError:
        msg = f"count {key!r} is not a whole number"
        raise GameError(msg, field=field, fix="key by the number of symbols, e.g. { 3 = 5, 4 = 20, 5 = 100 }") from None
    if count < 1:
        msg = f"count must be at least 1, got {count}"
        raise GameError(msg, field=field)
    return count


def count_table(value: Any, where: str, *, what: str = "spins") -> tuple[tuple[int, int], ...]:
    """A table ``{ count = value }`` of whole numbers ≥ 0, sorted by count.

    Examples
    --------
    >>> count_table({"4": 15, "3": 10}, "free_spins.awards")
    ((3, 10), (4, 15))
    """
    if not isinstance(value, dict):
        msg = f"expected a table of count = {what}"
        raise GameError(msg, field=where, fix="write e.g. { 3 = 10 }")
    return tuple(sorted((count_key(k, f"{where}.{k}"), integer(v, f"{where}.{k}", minimum=0)) for k, v in value.items()))
