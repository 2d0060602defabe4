"""What a simulator word declares: its instructions (:class:`Op`: name, fields, interpreter snippet) and, for a
node of the vocabulary, how it compiles (:class:`ValueWord`, :class:`ActionWord`).

An instruction is ``code[pc] = op, a, b, c, d, e``; its snippet is the Python the driver runs for it, inside the
round's program loop of :mod:`mathkit.sim.driver` (the frame ``driver.tmpl``), where it reads its fields as ``a``,
``ib``, ``ic``, ``idd``, ``ie`` and the driver's named state (see the frame's comments: ``vals``, ``R``, ``tab``,
``c`` the observation code, ``k`` the spin model, ``W`` the window …).  A snippet ends its instruction by falling
through; ``break`` leaves the program loop to value the spin it drew (``done = True`` first: the round is over).
The fragments below are what several snippets share.

Examples
--------
>>> op = Op("V_ZERO", "vals[a] = 0", "vals[a] = 0")
>>> op.name, op.jump
('V_ZERO', 0)
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ...play.values import Value

if TYPE_CHECKING:
    from ..program import Builder

__all__ = ["REFILL", "WINDOW", "ActionWord", "Op", "StaticCounts", "ValueWord", "holds", "snippet"]

N = TypeVar("N")
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Op:
    """One instruction of the driver.

    ``doc`` says what its fields mean; ``snippet`` is what the driver runs.  ``jump``: the field
    (1 to 5) holding a jump target, written as a label until :meth:`~mathkit.sim.program.Builder.finish`;
    ``digit``: field ``b`` holds a digit of the observation code, which ``finish`` replaces by its radix
    (``b``) and its base (``c``), known once every spin model is.
    """

    name: str
    doc: str
    snippet: str
    jump: int = 0
    digit: bool = False


@dataclass(frozen=True)
class StaticCounts:
    """What a trigger's value is computed from for every observation code at once: ``counts[symbol ids]`` (the
    count of each code), the symbol ids by name, the number of codes."""

    counts: dict[tuple[int, ...], IntArray]
    sid: dict[str, int]
    n: int


@dataclass(frozen=True)
class ValueWord(Generic[N]):
    """A value node and how it compiles: ``compile(builder, node, scope, where)`` emits its operands' ops, then
    its own, and returns the ``vals`` slot it wrote.

    ``static(node, value_of, counts)``: the node for every observation code at once (a trigger's value, looked
    up by the driver instead of computed; ``value_of`` computes an operand), when it reads only symbol counts;
    ``observe(builder, node, where)``: what the base spin's observation code must hold for it (a count's digit).
    """

    node: type[N]
    ops: tuple[Op, ...]
    compile: Callable[[Builder, N, str, str], int]
    static: Callable[[N, Callable[[Value], IntArray], StaticCounts], IntArray] | None = None
    observe: Callable[[Builder, N, str], None] | None = None


@dataclass(frozen=True)
class ActionWord(Generic[N]):
    """An action node and how it compiles: ``compile(builder, node, scope, where, tally)`` emits its ops and
    returns the counter slot still to add 1 to when it ran (``tally``, or ``-1`` when the word counted itself)."""

    node: type[N]
    ops: tuple[Op, ...]
    compile: Callable[[Builder, N, str, str, int], int]


def snippet(*parts: str | tuple[str, int]) -> str:
    """A snippet from text and fragments, each dedented, joined line by line; ``(fragment, n)``: indented ``n`` more.

    Examples
    --------
    >>> print(snippet("while m != 0:", (REFILL, 4)))
    while m != 0:
        if free_n - free_h < need:
            free_h, free_n = _refill(free_buf, free_h, free_n, free_gen, kind)
    """
    out = []
    for part in parts:
        text, n = (part, 0) if isinstance(part, str) else part
        if text.strip():
            out.append(textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n))
    return "\n".join(out)


def holds(y: str) -> str:
    """The expression ``y <ib> ic``: a test of the vocabulary (``ib`` its comparison, :data:`~mathkit.sim.layout.T_EQ` …)."""
    return (f"((ib == K.T_EQ and {y} == ic) or (ib == K.T_NE and {y} != ic) or (ib == K.T_LT and {y} < ic)\n"
            f"        or (ib == K.T_LE and {y} <= ic) or (ib == K.T_GT and {y} > ic) or (ib == K.T_GE and {y} >= ic))")


WINDOW = """
if not w_ready:  # the window the current spin shows, filled when an instruction first reads it
    for r in range(n_reels):
        for q in range(rows[k, r]):
            W[r, q] = ocols[k, r, spins[at, r], q]
    w_ready = True
"""
"""Fill the window ``W`` from the current spin's stops, once per spin."""

REFILL = """
if free_n - free_h < need:
    free_h, free_n = _refill(free_buf, free_h, free_n, free_gen, kind)
"""
"""Make sure the feature stream's buffer holds a spin's worth of draws."""
