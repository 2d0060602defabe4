"""Editing a TOML document in place: only the values that changed, the rest of the text as it was.

A game file is a reviewed, versioned document: its comments, key order, blank
lines, inline tables and arrays, and one-string-per-reel strips are the
designer's.  :func:`update_text` takes the document's text and two plain
mappings — what the document meant before and what it should mean now (both in
the same canonical form, e.g. :func:`mathkit.gamefile.io.game_to_dict`) — and changes,
through tomlkit, only the values that differ:

* a changed leaf is replaced where it stands (its trailing comment kept);
* tables and arrays of equal length are descended into, so one new pay in an
  inline table or one new weight in a nested array changes that number only,
  and one new strip replaces that strip's string only;
* a key the new mapping adds is appended to its table, a key it drops is removed;
* anything else (an array whose length changed, a value whose type changed) is
  replaced whole, still on its own line.

The caller checks that the text it gets back means the new mapping (see
:func:`mathkit.gamefile.io.dumps_like`); this module knows nothing about games.

Examples
--------
>>> text = '''# prices
... [paytable]
... A = { 3 = 5, 4 = 20 }  # the top symbol
... B = { 3 = 2 }
... '''
>>> before = {"paytable": {"A": {"3": 5, "4": 20}, "B": {"3": 2}}}
>>> after = {"paytable": {"A": {"3": 5, "4": 25}, "B": {"3": 2}}}
>>> print(update_text(text, before, after), end="")
# prices
[paytable]
A = { 3 = 5, 4 = 25 }  # the top symbol
B = { 3 = 2 }
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, MutableSequence
from typing import Any

import tomlkit

__all__ = ["changed_paths", "update_text"]

_MISSING = object()


def update_text(text: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """``text`` (a TOML document meaning ``before``) edited to mean ``after``, changing only what differs."""
    doc = tomlkit.parse(text)
    _merge(doc, before, after)
    return tomlkit.dumps(doc)


def changed_paths(before: Any, after: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The paths of the leaves (or whole values, when their shape changed) that differ from ``before`` to ``after``.

    Examples
    --------
    >>> changed_paths({"a": {"b": [1, 2], "c": 3}}, {"a": {"b": [1, 5], "c": 3, "d": 4}})
    [('a', 'b', 1), ('a', 'd')]
    """
    if before == after:
        return []
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        out: list[tuple[str | int, ...]] = []
        for k in [*before, *(k for k in after if k not in before)]:
            out += changed_paths(before.get(k, _MISSING), after.get(k, _MISSING), (*path, k))
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [p for i, (x, y) in enumerate(zip(before, after, strict=True)) for p in changed_paths(x, y, (*path, i))]
    return [path]


def _merge(node: MutableMapping[str, Any], before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    for key in [k for k in before if k not in after]:
        if key in node:
            del node[key]
    for key, new in after.items():
        old = before.get(key, _MISSING)
        if old != new:
            _set(node, key, old, new)


def _set(node: Any, key: str | int, old: Any, new: Any) -> None:
    present = key in node if isinstance(key, str) else key < len(node)
    if not present:
        if isinstance(key, str):
            node[key] = new
        else:
            node.append(new)
        return
    current = node[key]
    if isinstance(new, Mapping) and isinstance(old, Mapping) and isinstance(current, MutableMapping):
        _merge(current, old, new)
    elif (isinstance(new, list) and isinstance(old, list) and isinstance(current, MutableSequence)
          and not isinstance(current, str) and len(new) == len(old) == len(current)):
        for i, (x, y) in enumerate(zip(old, new, strict=True)):
            if x != y:
                _set(current, i, x, y)
    else:
        node[key] = new
