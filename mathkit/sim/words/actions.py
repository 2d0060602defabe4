"""The words of :mod:`mathkit.play.actions`: registers, grants, pays, starts, tallies.

An action's guards (its ``when``) and its tally are compiled around it by the
:class:`~mathkit.sim.program.Builder`; each compile step here emits the action itself.

Examples
--------
>>> [op.name for op in OPS][:3]
['S_ADDI', 'S_SETI', 'S_SET']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ModelError
from ...play.actions import Add, Grant, Or, Pay, Repeat, Set, Show, Start, Tally, ToRegister
from ...play.tables import Force
from ...play.values import Const
from .base import ActionWord, Op
from .control import GOTO, JFR
from .spin import SHOW

if TYPE_CHECKING:
    from ..program import Builder

__all__ = ["ADDI", "OPS", "SET", "TALLY", "WORDS"]

ADDI = Op("S_ADDI", "R[a] += b", "R[a] += ib")
SETI = Op("S_SETI", "R[a] = b", "R[a] = ib")
SET = Op("S_SET", "R[a] = vals[b]", "R[a] = vals[ib]")
ADD = Op("S_ADD", "R[a] += vals[b]", "R[a] += vals[ib]")
OR = Op("S_OR", "R[a] |= vals[b]", "R[a] |= vals[ib]")
GRANT = Op("S_GRANT", "more = min(vals[b], d - R[c]) (d < 0: vals[b]); more > 0: R[a] += more, R[c] += more, "
           "acc[e] += 1", """
    more = vals[ib] if idd < 0 else min(vals[ib], idd - R[ic])
    if more > 0:
        R[a] += more
        R[ic] += more
        if ie >= 0:
            acc[ie] += 1
""")
PAY = Op("S_PAY", "the feature's win += vals[a] × b (pay part c)", """
    x = vals[a] * ib
    cw[cmap[nctx, ic]] += x
    other += x
""")
START = Op("S_START", "queue feature a", """
    if qn < K.QUEUE:
        queue[qn] = a
        qn += 1
        acc[feat[a, 3]] += 1
        entered |= 1 << a
    else:
        acc[K.A_OVERFLOW] = 3
""")
TALLY = Op("S_TALLY", "acc[a] += 1 (b: only in the round's base spin, not in a spin played as the base game)", """
    if ib == 0 or nctx == 0:
        acc[a] += 1
""")

OPS = (ADDI, SETI, SET, ADD, OR, GRANT, PAY, START, TALLY)
"""The family's instructions."""


def _register(b: Builder, a: ToRegister, scope: str, where: str, tally: int) -> int:
    reg = b.reg(scope, a.feature, a.register, where)
    if isinstance(a, Set | Add) and isinstance(a.value, Const):  # fused: a constant
        b.emit(SETI if isinstance(a, Set) else ADDI, reg, a.value.value)
    else:
        b.emit({Set: SET, Add: ADD, Or: OR}[type(a)], reg, b.value(a.value, scope, where))
    return tally


def _grant(b: Builder, a: Grant, scope: str, where: str, tally: int) -> int:
    x = b.value(a.value, scope, where)
    b.emit(GRANT, b.reg(scope, None, a.register, where), x, b.reg(scope, None, a.total, where),
           -1 if a.limit is None else a.limit, tally)
    return -1  # counted only when it grants


def _pay(b: Builder, a: Pay, scope: str, where: str, tally: int) -> int:
    name = b.features[b.current][1] if b.current >= 0 else scope
    part = b.part(name if a.label is None else f"{name}: {a.label}")
    b.emit(PAY, b.value(a.value, scope, where), b.total_bet if a.unit == "bet" else 1, part)
    return tally


def _repeat(b: Builder, a: Repeat, scope: str, where: str, tally: int) -> int:
    reg = b.hidden(scope, "repeat")  # a hidden register counts down
    b.emit(SET, reg, b.value(a.times, scope, where))
    top, end = b.label(), b.label()
    b.mark(top)
    b.emit(JFR, reg, b.cmp(">"), 0, end)
    b.actions(a.actions, scope, f"{where}.actions")
    b.emit(ADDI, reg, -1)
    b.emit(GOTO, top)
    b.mark(end)
    return tally


def _start(b: Builder, a: Start, scope: str, where: str, tally: int) -> int:
    if a.feature not in b.findex:
        msg = f"{where}: no sequence feature {a.feature!r} to start"
        raise ModelError(msg)
    if a.feature in b.starting:
        msg = f"{where}: feature {a.feature!r} starts itself"
        raise ModelError(msg)
    b.starting.add(a.feature)  # its entry, compiled here: it runs now, in the current window
    b.actions(b.features[b.findex[a.feature]][2].entry, a.feature, f"{where} (entry of {a.feature!r})")
    b.starting.discard(a.feature)
    b.emit(START, b.findex[a.feature])
    return tally


def _show(b: Builder, a: Show, scope: str, where: str, tally: int) -> int:
    b.forces((Force(a.cells, a.symbol),), scope, where)
    b.emit(SHOW)
    return tally


def _tally(b: Builder, a: Tally, scope: str, where: str, tally: int) -> int:
    if tally >= 0:
        b.emit(TALLY, tally, int(a.base_spin_only))
    return -1


WORDS = (
    ActionWord(Set, (SET, SETI), _register),
    ActionWord(Add, (ADD, ADDI), _register),
    ActionWord(Or, (OR,), _register),
    ActionWord(Grant, (GRANT,), _grant),
    ActionWord(Pay, (PAY,), _pay),
    ActionWord(Repeat, (), _repeat),
    ActionWord(Start, (START,), _start),
    ActionWord(Show, (), _show),
    ActionWord(Tally, (TALLY,), _tally),
)
"""The family's words (a tally left to add is added by :data:`TALLY` after the action)."""
