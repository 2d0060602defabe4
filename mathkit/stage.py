"""The vocabulary blocks and the round composer share: spin models, spin laws, stage laws, outcomes.

A round is played stage by stage.  The base spin is the first stage; a
sequence feature (free spins, re-spins ...) is a stage entered with an *entry*
state (``10`` spins, ``(type, held cells)`` ...).  Every stage is described the
same way, by a :class:`StageLaw`: the ways it can end (*branches*, keyed by the
*exit* — the features to play next with their entries, ``()`` when the round is
over), each with its probability and the stage's own win given that ending, plus
the stage's mean win split by PAR component.  :mod:`mathkit.round` chains stage
laws into the round's :class:`Outcome`.

A spin is observed through *digits* (:class:`Digit`): a value per stop of
every reel, read from the column it shows and added over the reels — how
many of a scatter show (``"SYMBOL"``), the rows of one reel showing a symbol
(``"SYMBOL@r"``), or a block's own.  The exact engine packs them into its
enumeration; the simulator reads them off each window it plays.

Everything here is plain data (no engine code): blocks build these objects and
the engine fills them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from .figures import Method

__all__ = ["Branch", "CountOf", "Digit", "Entry", "Exit", "JointLaw", "Level", "Number", "Outcome", "PlayLaw", "RowsOf",
           "SpinModel", "SpinPlay", "StageLaw", "builtin_digit"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Number = Fraction | float
Entry = Hashable
"""The state a sequence feature starts from (spins awarded, a held pattern ...): any hashable value."""
Exit = tuple[tuple[str, Entry], ...]
"""The features a stage leads to, played in this order: ``(feature name, entry)`` pairs; ``()`` ends the round."""
Level = Literal["mean", "moments", "distribution"]
"""How much a stage law holds: means only; means and second moments; and conditional distributions."""
ColumnValue = Callable[[int, tuple[str, ...]], int]
"""An observation's value at one stop: ``value(reel from 0, the column shown top to bottom)``."""


@dataclass(frozen=True)
class CountOf:
    """How many of ``symbols`` a reel's column shows (on every reel, or only on reel ``reel``, from 0)."""

    symbols: tuple[str, ...]
    reel: int | None = None

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        if self.reel is not None and reel != self.reel:
            return 0
        return sum(1 for s in column if s in self.symbols)


@dataclass(frozen=True)
class RowsOf:
    """The rows of reel ``reel`` (from 0) showing ``symbol``, as a bitmask (bit ``k`` for row ``k``)."""

    symbol: str
    reel: int

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        if reel != self.reel:
            return 0
        return sum(1 << k for k, s in enumerate(column) if s == self.symbol)


@dataclass(frozen=True)
class Digit:
    """An observation of a spin: ``value(reel, column)`` per stop (≥ 0), added over the reels.

    ``column`` is what the stop shows, top to bottom, after overlays and before remaps.
    Built-in digits are named ``"SYMBOL"`` (a count) and ``"SYMBOL@r"`` (reel ``r`` from 1, a row
    mask); a feature block declares others (:meth:`mathkit.features.Block.digits`).

    Examples
    --------
    >>> d = builtin_digit("S@2", ("S", "A"))
    >>> d.value(1, ("S", "A", "S")), d.value(0, ("S", "S", "S"))
    (5, 0)
    """

    name: str
    value: ColumnValue


def builtin_digit(name: str, symbols: Sequence[str]) -> Digit | None:
    """The built-in digit ``name`` (``"SYMBOL"`` or ``"SYMBOL@r"``), or ``None`` if it is not one."""
    if name in symbols:
        return Digit(name, CountOf((name,)))
    sym, at, reel = name.rpartition("@")
    if at and sym in symbols and reel.isdigit() and int(reel) >= 1:
        return Digit(name, RowsOf(sym, int(reel) - 1))
    return None


@dataclass(frozen=True)
class SpinModel:
    """One kind of spin, as the exact engine and the simulator read it.

    Parameters
    ----------
    reels
        The reel set the spin draws from.
    rows
        Window height on every reel (``None``: the reel set's own rows).
    lines
        Lines active (the first ``lines`` paylines; ``None``: the lines played).
    forced
        ``(reel, row, symbol)`` cells shown as ``symbol`` whatever the stop (overlay or sticky wilds;
        reels and rows from 0).
    remap
        ``(symbol, read as)`` pairs: the line rule reads ``symbol`` as ``read as`` (observations are
        taken before the remap).
    restrict
        ``(reel, digit, values)``: only the stops of ``reel`` (from 0) where observation ``digit``
        takes one of ``values`` (a conditional spin: its cycle is the kept stops' weights).
    extra
        ``(component, digit, credits)``: the spin also pays ``credits`` per unit of observation
        ``digit`` (a cash value ...), reported under PAR component ``component``; multipliers do
        not apply to it.
    products
        ``(component, digit a, digit b, credits)``: the spin also pays ``credits × A × B``, where
        ``A`` and ``B`` are the two observations' totals over the reels (a collector count times
        the cash on screen, the activator total times the prize steps ...); reported under
        ``component``, never multiplied.  The engine conditions on the per-reel values of the
        factor that takes fewer of them, so inside each class the product is an extra win.
    line_multiplier, scatter_multiplier
        Factors applied to the spin's line (or ways) wins and scatter wins.

    Examples
    --------
    >>> SpinModel("free", line_multiplier=2).forced
    ()
    """

    reels: str
    rows: int | None = None
    lines: int | None = None
    forced: tuple[tuple[int, int, str], ...] = ()
    remap: tuple[tuple[str, str], ...] = ()
    restrict: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
    extra: tuple[tuple[str, str, int], ...] = ()
    products: tuple[tuple[str, str, str, int], ...] = ()
    line_multiplier: int = 1
    scatter_multiplier: int = 1


@dataclass(frozen=True, eq=False)
class JointLaw:
    """The exact joint law of one spin's win and its observations, over the whole cycle.

    ``wins[i]`` (credits, the model's multipliers applied), ``digits[name][i]`` (the value of
    each observation digit — a scatter's count, by symbol name) and ``counts[i]`` (integer
    weight; the weights sum to ``cycle``) for every distinct cell ``i``.
    """

    wins: IntArray
    digits: Mapping[str, IntArray]
    counts: IntArray
    cycle: int
    total_bet: int

    def play_law(self, select: npt.NDArray[np.bool_] | None = None) -> PlayLaw:
        """The law of the win (over the cells ``select``, conditionally), keeping the exact counts."""
        wins = self.wins if select is None else self.wins[select]
        counts = self.counts if select is None else self.counts[select]
        v, inv = np.unique(wins, return_inverse=True)
        c = np.zeros(len(v), dtype=np.int64)
        np.add.at(c, inv.reshape(-1), counts)
        total = sum(int(x) for x in c.tolist())
        return PlayLaw(v, c.astype(np.float64) / float(total), 0.0, c, total)


@dataclass(frozen=True, eq=False)
class PlayLaw:
    """A float distribution of a win in credits: values, probabilities, and the mass a truncation left out.

    When the law comes straight from integer counts over a cycle (a spin's exact law), ``counts``
    holds them (summing to ``total``), so what acts on it (the cap) can stay exact.
    """

    values: IntArray
    probs: FloatArray
    lost_mass: float = 0.0
    counts: IntArray | None = None
    total: int = 0

    @classmethod
    def point(cls, value: int = 0) -> PlayLaw:
        """The law of a win that is always ``value``."""
        return cls(np.array([value], dtype=np.int64), np.ones(1))


@dataclass(frozen=True, eq=False)
class Branch:
    """One way a stage ends: its probability and the stage's own win given this ending.

    ``mean``, ``m2`` (E[W | branch], E[W² | branch], credits) and ``dist`` (the conditional
    law of W) are filled as far as the stage law's level asks; ``top`` bounds W (credits;
    ``None``: no bound known).
    """

    p: Number
    mean: Number | None = None
    m2: Number | None = None
    dist: PlayLaw | None = None
    top: int | None = None


@dataclass(frozen=True, eq=False)
class StageLaw:
    """How a stage ends and what it pays: branches by exit, and its mean win by PAR component.

    ``components`` holds E[W] split by component (credits, unconditional within the stage);
    ``method`` says how the weakest figure was obtained.
    """

    branches: Mapping[Exit, Branch]
    components: Mapping[str, Number]
    method: Method = "exact"
    level: Level = "mean"

    @property
    def mean(self) -> Number:
        """The stage's expected own win (credits)."""
        return sum(self.components.values(), Fraction(0))


@dataclass(frozen=True, eq=False)
class SpinPlay:
    """One spin played as the round plays it — its modifiers applied, the features it starts played after it.

    ``groups`` maps each value of what the caller observes of the spin (its *group*: the free
    games it adds ...) to a :class:`Branch`: the group's probability and the win of the spin and
    of everything it started, given the group (as far as ``level`` asks).  ``components`` is
    the mean of that win by PAR component (credits, unconditional); ``methods`` says how each
    was obtained.
    """

    groups: Mapping[Hashable, Branch]
    components: Mapping[str, Number]
    method: Method
    level: Level
    methods: Mapping[str, Method] = field(default_factory=dict)

    @property
    def mean(self) -> Number:
        """The mean win of the spin and what it started (credits)."""
        return sum(self.components.values(), Fraction(0))


@dataclass(frozen=True, eq=False)
class Outcome:
    """The win of a stage and everything after it, to the end of the round.

    ``components`` are unconditional means (credits) by PAR component (``methods`` says how
    each was obtained); ``m2`` and ``dist``
    are present when the level asked for them (``dist.lost_mass`` is the probability that
    truncations left out); ``max_win`` is a bound on the win in credits (``None``: unbounded).
    """

    mean: Number
    components: Mapping[str, Number]
    method: Method
    m2: Number | None = None
    dist: PlayLaw | None = None
    max_win: int | None = None
    methods: Mapping[str, Method] = field(default_factory=dict)

    def method_of(self, component: str) -> Method:
        """How component ``component`` was obtained (the outcome's method when not recorded)."""
        return self.methods.get(component, self.method)
