"""The simulator's words: each node of :mod:`mathkit.play.vocabulary`, how it compiles, its instructions and their
interpreter snippets, declared once in the entry of its family's module.

:data:`OPS` is every instruction in the order the driver tests them (the commonest first); an instruction's
code is its place there (:data:`CODE`).  :mod:`mathkit.sim.driver` writes the driver's dispatch from their
snippets, and :class:`~mathkit.sim.program.Builder` compiles a node through its word (:data:`VALUES`,
:data:`ACTIONS`).

Examples
--------
>>> CODE["V_CONST"], OPS[CODE["C_JFR"]].name
(0, 'C_JFR')
"""

from __future__ import annotations

from typing import Any

from . import actions, control, spin, values, window
from .base import ActionWord, Op, ValueWord

__all__ = ["ACTIONS", "CODE", "OPS", "VALUES"]

_FAMILIES = (values, window, control, actions, spin)
_HOT = ("V_CONST", "V_REG", "V_DIGIT", "V_CELLS", "V_BITS", "V_LOOKUP", "V_RANDOM", "V_SUM", "V_MIN", "V_MAX",
        "V_WITHOUT", "V_OPT", "V_LOOKCOUNT", "C_JFR", "S_ADDI", "S_SETI", "X_PAYSPINK", "C_JF", "C_STAGE", "C_GOTO",
        "C_JTR", "C_SWITCH", "C_END", "S_SET", "S_ADD", "S_OR", "S_GRANT", "S_PAY", "S_START", "S_TALLY", "X_FORCE",
        "X_SPIN")
"""The instructions a feature spin runs most, tested first (measured: ``make bench``); the others follow by family."""

_ALL = {op.name: op for family in _FAMILIES for op in family.OPS}
OPS: tuple[Op, ...] = tuple(_ALL[n] for n in _HOT) + tuple(op for n, op in _ALL.items() if n not in _HOT)
"""Every instruction, in the order the driver tests them."""
CODE = {op.name: i for i, op in enumerate(OPS)}
"""An instruction's code: its place in :data:`OPS`."""
VALUES: dict[type, ValueWord[Any]] = {w.node: w for family in (values, window) for w in family.WORDS}
"""The value words by node class."""
ACTIONS: dict[type, ActionWord[Any]] = {w.node: w for w in actions.WORDS}
"""The action words by node class."""
