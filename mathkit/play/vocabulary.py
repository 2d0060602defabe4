"""How a feature block says it is played: the simulator's table vocabulary, as plain data.

The simulator (:mod:`mathkit.sim`) plays a round literally with one compiled
driver.  Each block tells it what to play with one :data:`SimTable`, built by
its ``sim_table(game, stake)`` method from the block's own data:

* a **sequence** feature is a :class:`Sequence`: its registers, a trigger (tests
  on the base spin's symbol counts), entry actions that set its registers from
  the base window, and its :class:`Stage` s — each an optional spin, actions keyed
  by what the spin shows, and exits (:class:`Goto`) to another stage or the end;
* a **modifier** of the base spin is a :class:`Variants`: the base spin as a
  weighted mixture of spins (window heights, another reel set, forced cells);
* a modifier that pays within **every spin** played as the base game (cash stacks) is an
  :class:`EverySpin`: count tests and actions run on the spin's window;
* a **transform** is a :class:`RoundCap` (the round's win is paid at most the cap)
  or a :class:`Ladder` (the gamble, played beside the RTP and never in it).

What an action reads is a *value*: a constant, a register, an observation of
the current window (:class:`Count` of symbols, :class:`Cells` showing them as a
bit mask, bit ``reel·H + row`` with ``H`` the game's tallest window), the whole
window (its :class:`Rows`, a :class:`CellSum` of symbol values, the chain values
of its :class:`Stacks`), a table look-up keyed by another value, a draw from an
integer-weight :class:`Law`, or a little arithmetic on values.  A stage plays, in this order: its spin (``pick``
chooses one of its spins; forced cells are applied, then the window is
observed), its actions, the spin's pay (line and scatter wins times the spin's
multipliers, read after the actions), then its first exit whose tests pass
(none: the feature is over).  Nothing here is code: each kind of node is a simulator
*word*, whose meaning in the driver is declared once, in its entry of :mod:`mathkit.sim.words`
(``docs/simulator.md`` says how to add one).

The nodes live in one module per family — :mod:`~mathkit.play.values`, :mod:`~mathkit.play.window`,
:mod:`~mathkit.play.actions`, :mod:`~mathkit.play.tables` — and this module gathers them: the one
import a block needs.

Examples
--------
Three free spins that add one spin per scatter shown, at most ten in all:

>>> spins = Count(("SCATTER",))
>>> seq = Sequence(
...     registers=("left", "total"),
...     trigger=(Test(spins, ">=", 3),),
...     entry=(Set("left", Const(3)), Set("total", Const(3))),
...     stages=(Stage("spin", spins=(Spin("free"),),
...                   actions=(Add("left", Const(-1)), Grant("left", spins, total="total", limit=10)),
...                   then=(Goto("spin", when=(Test(Reg("left"), ">", 0),)),)),))
>>> seq.stages[0].name, seq.reads_window()
('spin', True)
"""

from __future__ import annotations

from .actions import Action, Add, Cmp, Grant, Or, Pay, Repeat, Set, Show, Start, Tally, Test
from .tables import EverySpin, Force, Goto, Ladder, RoundCap, Sequence, SimTable, Spin, Stage, Stake, Variant, Variants
from .values import Bits, Const, Law, Lookup, Max, Min, Pick, Product, Random, Reg, Sum, Value, Without, children
from .window import Cells, CellSum, Count, Rows, Stacks

__all__ = [
    "Action",
    "Add",
    "Bits",
    "CellSum",
    "Cells",
    "Cmp",
    "Const",
    "Count",
    "EverySpin",
    "Force",
    "Goto",
    "Grant",
    "Ladder",
    "Law",
    "Lookup",
    "Max",
    "Min",
    "Or",
    "Pay",
    "Pick",
    "Product",
    "Random",
    "Reg",
    "Repeat",
    "RoundCap",
    "Rows",
    "Sequence",
    "Set",
    "Show",
    "SimTable",
    "Spin",
    "Stacks",
    "Stage",
    "Stake",
    "Start",
    "Sum",
    "Tally",
    "Test",
    "Value",
    "Variant",
    "Variants",
    "Without",
    "children",
]
