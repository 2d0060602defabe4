"""Strict JSON: no ``NaN`` or ``Infinity`` (which strict parsers refuse), a ``null`` with the reason beside it.

Python's :func:`json.dumps` writes a non-finite float as the bare words ``NaN``,
``Infinity`` or ``-Infinity``, which are not JSON.  Where a renderer knows why a
figure has no finite value (odds "1 in N" of an event that never happens) it
writes ``null`` and its own reason (:func:`mathkit.report.text.par_to_dict`);
:func:`strict` is the net under every ``--json`` output and JSON file: any
non-finite float left becomes ``null``, and in a mapping ``KEY_reason`` says
what it was.  :func:`dumps` then refuses (``allow_nan=False``) anything that
would still not be JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps", "reason", "strict"]


def reason(x: float) -> str:
    """Why a non-finite float is written ``null``.

    Examples
    --------
    >>> reason(math.inf), reason(float("nan"))
    ('infinite', 'undefined (not a number)')
    """
    if math.isnan(x):
        return "undefined (not a number)"
    return "infinite" if x > 0 else "minus infinity"


def _bad(x: Any) -> bool:
    return isinstance(x, float) and not math.isfinite(x)


def strict(data: Any) -> Any:
    """``data`` (mappings, lists, tuples, scalars) with every non-finite float ``null``, its reason beside it.

    Examples
    --------
    >>> strict({"odds": math.inf, "rows": [1.0, math.nan]})
    {'odds': None, 'odds_reason': 'infinite', 'rows': [1.0, None]}
    >>> strict({"odds": math.inf, "odds_reason": "never"})
    {'odds': None, 'odds_reason': 'never'}
    """
    if isinstance(data, Mapping):
        out: dict[Any, Any] = {}
        for k, v in data.items():
            if _bad(v):
                out[k] = None
                key = f"{k}_reason"
                out[key] = data.get(key, reason(v))
            elif k not in out:
                out[k] = strict(v)
        return out
    if isinstance(data, list | tuple):
        return [None if _bad(v) else strict(v) for v in data]
    return data


def dumps(data: Any, **kwargs: Any) -> str:
    """:func:`json.dumps` of :func:`strict` ``(data)``, refusing any ``NaN`` or ``Infinity`` left.

    Examples
    --------
    >>> dumps({"sd": float("nan")})
    '{"sd": null, "sd_reason": "undefined (not a number)"}'
    """
    return json.dumps(strict(data), allow_nan=False, **kwargs)
