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
(none: the feature is over).  Nothing here is code: the driver's semantics of
each kind are written once in :mod:`mathkit.sim.kernels`, and ``docs/simulator.md``
says how to add a kind.

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

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

__all__ = [
    "Action",
    "Add",
    "Bits",
    "CellSum",
    "Cells",
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

Cmp = Literal["==", "!=", "<", "<=", ">", ">="]


# --- values ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Const:
    """A constant integer."""

    value: int


@dataclass(frozen=True)
class Reg:
    """A register: one of the feature's own (``feature=None``) or another feature's."""

    name: str
    feature: str | None = None


@dataclass(frozen=True)
class Count:
    """How many cells of the current window show any of ``symbols`` (forced cells included, before remaps)."""

    symbols: tuple[str, ...]


@dataclass(frozen=True)
class Cells:
    """The cells of the current window showing any of ``symbols``: bit ``reel·H + row`` (at most 64 cells)."""

    symbols: tuple[str, ...]


@dataclass(frozen=True)
class Bits:
    """How many bits of a mask are set (cells held, new scatters ...)."""

    of: Value


@dataclass(frozen=True)
class Lookup:
    """``table[min(of, len(table) − 1)]``: a table keyed by a value (a count, a register ...).

    A count-keyed table of a game (``at_most`` reading) is written out up to its largest
    key; larger values read its last entry.
    """

    table: tuple[int, ...]
    of: Value


@dataclass(frozen=True)
class Law:
    """An integer-weight law: ``values[i]`` with weight ``weights[i]``.

    Examples
    --------
    >>> Law.of({3: 40, 4: 25}).values
    (3, 4)
    """

    values: tuple[int, ...]
    weights: tuple[int, ...]

    @classmethod
    def of(cls, weights: dict[int, int]) -> Law:
        """The law of a ``{value: weight}`` table (values in order)."""
        items = sorted(weights.items())
        return cls(tuple(v for v, _ in items), tuple(w for _, w in items))


@dataclass(frozen=True)
class Random:
    """A draw from ``laws[key]`` (one law: ``key`` may be ``None``), from the round's feature stream."""

    laws: tuple[Law, ...]
    key: Value | None = None


@dataclass(frozen=True)
class Pick:
    """A mask of ``count`` distinct cells of the mask ``cells``, every such set alike (fewer when it holds fewer).

    Drawn from the round's feature stream one cell after another: each is the
    ``u``-th set bit of the cells left, ``u`` a uniform draw below their number.
    """

    cells: Value
    count: Value


@dataclass(frozen=True)
class Sum:
    """The sum of values."""

    terms: tuple[Value, ...]


@dataclass(frozen=True)
class Min:
    """The smaller of two values."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Max:
    """The larger of two values."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Without:
    """The mask ``a`` without the bits of ``b`` (``a & ~b``): new scatters outside the held cells."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Product:
    """The product of two values (activator total × stack positions ...)."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Rows:
    """How many rows the current window shows (on its first reel): a spin's drawn height."""


@dataclass(frozen=True)
class CellSum:
    """The sum, over the current window's cells, of the value ``values`` gives the symbol each shows (0: none).

    Examples
    --------
    >>> CellSum((("ACT1", 1), ("ACT5", 5))).values[1]
    ('ACT5', 5)
    """

    values: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Stacks:
    """The sum of the values a chain rule gives the current window's stacks of ``symbols``.

    A stack is a maximal run of cells showing any of ``symbols`` in one column of the window
    (cells beyond its edge are not part of it).  Read from the bottom of each stack up, each of
    its cells not in ``skipped`` gets the value of the one below it plus ``step`` (the lowest
    gets ``step``); a ``skipped`` cell gets nothing and passes the value below it on, or, with
    ``restart``, starts the chain again above it.
    """

    symbols: tuple[str, ...]
    skipped: tuple[str, ...]
    step: Value
    restart: bool = False


Value = (Const | Reg | Count | Cells | Bits | Lookup | Random | Pick | Sum | Min | Max | Without | Product | Rows | CellSum
         | Stacks)


def children(v: Value) -> tuple[Value, ...]:
    """The values ``v`` is computed from (its operands), in order.

    Examples
    --------
    >>> children(Lookup((0, 5), Count(("S",))))
    (Count(symbols=('S',)),)
    """
    if isinstance(v, Bits):
        return (v.of,)
    if isinstance(v, Lookup):
        return (v.of,)
    if isinstance(v, Random):
        return () if v.key is None else (v.key,)
    if isinstance(v, Pick):
        return (v.cells, v.count)
    if isinstance(v, Sum):
        return v.terms
    if isinstance(v, Min | Max | Without | Product):
        return (v.a, v.b)
    if isinstance(v, Stacks):
        return (v.step,)
    return ()


@dataclass(frozen=True)
class Test:
    """``value op constant``: a guard of an action or an exit (several guards must all hold)."""

    value: Value
    op: Cmp
    constant: int


# --- actions --------------------------------------------------------------------------
@dataclass(frozen=True)
class Action:
    """An action, run when every test of ``when`` holds; ``tally`` names a counter it adds 1 to then."""

    when: tuple[Test, ...] = field(default=(), kw_only=True)
    tally: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Set(Action):
    """``register = value``."""

    register: str
    value: Value
    feature: str | None = None


@dataclass(frozen=True)
class Add(Action):
    """``register += value``."""

    register: str
    value: Value
    feature: str | None = None


@dataclass(frozen=True)
class Or(Action):
    """``register |= value`` (cells held or made sticky)."""

    register: str
    value: Value
    feature: str | None = None


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


# --- spins and stages -----------------------------------------------------------------
@dataclass(frozen=True)
class Force:
    """Cells forced to ``symbol`` before the window is observed: a mask (bit ``reel·H + row``)."""

    cells: Value
    symbol: str


@dataclass(frozen=True)
class Spin:
    """One spin: a reel set's stops drawn, forced cells applied, read through remaps, paid with multipliers.

    ``rows``/``lines``: window height on every reel and lines active (``None``: the reel
    set's rows, the lines played).  ``remap`` pairs ``(symbol, read as)`` apply to the line
    rule only (observations and scatter pays read the symbols shown).  Multipliers are
    values read after the stage's actions (a multiplier register the spin's scatters raise).

    ``as_base``: the spin is played as the base game plays one — the game's :class:`EverySpin`
    modifiers act on it and the other features its window starts are played inside it, their
    entry actions on its window (a feature with stages of its own cannot be); at a set height
    with ``lines=None`` it plays the lines the base variants give that height
    (:attr:`Variants.held`).  Its wins are reported by part under the feature's component
    (``"free games: lines"``, ``"free games: cash stacks"``, ``"free games: jackpots: Mini"``).
    """

    reels: str
    rows: int | None = None
    lines: int | None = None
    forced: tuple[Force, ...] = ()
    remap: tuple[tuple[str, str], ...] = ()
    line_multiplier: Value = Const(1)
    scatter_multiplier: Value = Const(1)
    as_base: bool = False


@dataclass(frozen=True)
class Goto:
    """An exit: to stage ``stage`` of the same feature (``None``: the feature is over) when ``when`` holds."""

    stage: str | None
    when: tuple[Test, ...] = ()


@dataclass(frozen=True)
class Stage:
    """One step of a feature: an optional spin (``pick`` chooses among ``spins``), actions, exits.

    A stage without spins is a decision (a battle, a random prize): its actions read the
    last window shown.
    """

    name: str
    spins: tuple[Spin, ...] = ()
    pick: Value | None = None
    actions: tuple[Action, ...] = ()
    then: tuple[Goto, ...] = ()


@dataclass(frozen=True)
class Sequence:
    """A sequence feature: registers, a trigger on the base spin, entry actions and stages (the first is entered).

    ``trigger`` tests read only symbol counts (constants, :class:`Count`, look-ups and
    arithmetic on them): the simulator tabulates them over every count combination, so a
    base spin that starts nothing costs one look-up.  ``entry`` runs in the base window
    when the trigger holds, then the feature is queued; features a spin starts are played
    one after another, in the order the game declares them.  Registers start at 0 each round.
    ``trigger=None``: the base spin never starts it, only another feature's :class:`Start`.
    ``component``: the RTP component its wins are reported under (``None``: the block's).
    A sequence without stages is played by its entry alone (a jackpot reveal).
    """

    registers: tuple[str, ...]
    trigger: tuple[Test, ...] | None
    stages: tuple[Stage, ...]
    entry: tuple[Action, ...] = ()
    component: str | None = None

    def reads_window(self) -> bool:
        """Whether any stage spins (the feature draws windows of its own)."""
        return any(s.spins for s in self.stages)


@dataclass(frozen=True)
class Variant:
    """One way the base spin is played, with integer ``weight``: fields left ``None`` keep the base spin's.

    ``label`` prefixes the variant's components (``"barbarian: lines"``), as the exact
    engine labels a modifier's spins.
    """

    weight: int
    reels: str | None = None
    rows: int | None = None
    lines: int | None = None
    forced: tuple[Force, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class Variants:
    """A modifier: the base spin as a mixture of :class:`Variant` s, drawn per base spin from the base stream.

    Several modifiers combine as a product (weights multiply, later fields override).
    ``held`` gives ``(rows, lines)``: the lines a spin plays when a feature holds its height
    (an ``as_base`` spin at a set height).
    """

    choices: tuple[Variant, ...]
    held: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class EverySpin:
    """A modifier that pays within every spin the round plays as the base game (the base spin, ``as_base`` spins).

    When every test of ``trigger`` (symbol counts only, as a sequence's) holds, ``actions``
    run on the spin's window; their pays go to the block's component (inside a feature's
    ``as_base`` spin, ``"FEATURE COMPONENT: component"``).
    """

    trigger: tuple[Test, ...]
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class RoundCap:
    """A transform: a round's total win (base spin and every feature) is paid at most ``credits``."""

    credits: Fraction


@dataclass(frozen=True)
class Ladder:
    """The gamble ladder, played on each round's paid win beside the RTP: options ``(name, p, multiplier)``."""

    options: tuple[tuple[str, Fraction, int], ...]
    max_gambles: int
    limit: int


SimTable = Sequence | Variants | RoundCap | Ladder | EverySpin
"""What one block gives the simulator."""


@dataclass(frozen=True)
class Stake:
    """The bet a simulation plays: total bet in credits, lines played, coins per line; ``height``: the bit
    stride of a cell mask (cell ``(reel, row)`` is bit ``reel·height + row``), the tallest window played."""

    total_bet: int
    lines: int
    coins: int
    height: int = 1

    def bit(self, reel: int, row: int) -> int:
        """The mask bit of cell ``(reel, row)`` (from 0).

        Examples
        --------
        >>> Stake(30, 30, 1, 3).bit(1, 2)
        5
        """
        return reel * self.height + row

    def mask(self, cells: Iterable[tuple[int, int]]) -> int:
        """The mask of ``(reel, row)`` cells."""
        return sum(1 << self.bit(r, k) for r, k in set(cells))
