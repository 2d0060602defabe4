"""The tables of the simulator's vocabulary: spins, stages, sequences, variants, and the transforms.

A block's ``sim_table(game, stake)`` returns one :data:`SimTable` built from these (see
:mod:`mathkit.play.vocabulary`).

Examples
--------
>>> Stage("spin", spins=(Spin("free"),)).spins[0].line_multiplier
Const(value=1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from .actions import Action, Test
from .values import Const, Value

__all__ = ["EverySpin", "Force", "Goto", "Ladder", "RoundCap", "Sequence", "SimTable", "Spin", "Stage", "Stake",
           "Variant", "Variants"]


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
    line_multiplier: Value = Const(1)  # noqa: RUF009 (a frozen dataclass)
    scatter_multiplier: Value = Const(1)  # noqa: RUF009 (a frozen dataclass)
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
