"""The tests and actions of the simulator's vocabulary: guards, registers, grants, pays, starts, tallies.

An action runs when every test of its ``when`` holds; each kind is one simulator word (its entry in
:mod:`mathkit.sim.words`).

Examples
--------
>>> from mathkit.play.values import Const, Reg
>>> Add("left", Const(-1), when=(Test(Reg("left"), ">", 0),)).when[0].op
'>'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .values import Value

__all__ = ["Action", "Add", "Cmp", "Grant", "Or", "Pay", "Repeat", "Set", "Show", "Start", "Tally", "Test", "ToRegister"]

Cmp = Literal["==", "!=", "<", "<=", ">", ">="]


@dataclass(frozen=True)
class Test:
    """``value op constant``: a guard of an action or an exit (several guards must all hold)."""

    value: Value
    op: Cmp
    constant: int



@dataclass(frozen=True)
class Action:
    """An action, run when every test of ``when`` holds; ``tally`` names a counter it adds 1 to then."""

    when: tuple[Test, ...] = field(default=(), kw_only=True)
    tally: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class ToRegister(Action):
    """What :class:`Set`, :class:`Add` and :class:`Or` share: ``value`` written into ``register`` (of
    ``feature``, or the playing one's)."""

    register: str
    value: Value
    feature: str | None = None


@dataclass(frozen=True)
class Set(ToRegister):
    """``register = value``."""


@dataclass(frozen=True)
class Add(ToRegister):
    """``register += value``."""


@dataclass(frozen=True)
class Or(ToRegister):
    """``register |= value`` (cells held or made sticky)."""


@dataclass(frozen=True)
class Grant(Action):
    """Spins granted up to a limit: ``more = min(value, limit − total)``; when ``more > 0`` it is added to
    ``register`` and ``total`` (and counted in ``tally``).  ``limit=None``: no limit."""

    register: str
    value: Value
    total: str
    limit: int | None = None


@dataclass(frozen=True)
class Pay(Action):
    """A win of ``value`` × the total bet (``unit="bet"``) or credits, to the feature's component.

    ``label`` reports it apart, as the component ``"COMPONENT: label"`` (``"jackpots: Grand"``).
    """

    value: Value
    unit: Literal["bet", "credits"] = "bet"
    label: str | None = None


@dataclass(frozen=True)
class Repeat(Action):
    """Run ``actions`` ``times`` times (the count read once, before the first): one draw per marked cell ..."""

    times: Value
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Start(Action):
    """Play feature ``feature`` after the current one: its entry actions run now, in the current window
    (as when a base spin starts it), then it is queued."""

    feature: str


@dataclass(frozen=True)
class Show(Action):
    """The current window shows ``symbol`` on the cells of mask ``cells`` from now on (no new spin, no pay):
    a symbol placed on the reels, observed by what follows."""

    cells: Value
    symbol: str


@dataclass(frozen=True)
class Tally(Action):
    """Only count (``tally``) when the tests hold; ``base_spin_only``: only in the round's base spin, not when a
    spin played as the base game (``Spin(as_base=True)``, free games) runs the same entry."""

    base_spin_only: bool = False
