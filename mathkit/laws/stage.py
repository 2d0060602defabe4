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

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from .law import WinLaw, merge
from .provenance import Method

__all__ = ["Branch", "CountOf", "Digit", "Drawn", "Entry", "Exit", "HeldCells", "HeldValues", "JointLaw", "Level",
           "LineTable", "Number", "Outcome", "Overlay", "Precision", "Ratios", "RowsOf", "Spin",
           "SpinModel", "SpinPlay", "StageLaw", "Tail", "Uncovered", "builtin_digit", "cell_bits", "lazy_tail", "memo_tail",
           "tail_of", "tail_plus", "visits"]

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
Precision = Literal["exact", "float"]
"""How an analysis counts: exactly (Fractions), or in floating point (the workbench's quick view)."""
Tail = Callable[[float], tuple[float, float]]
"""A bound on the tail of a win ``W`` in credits: ``t ↦ (b, q)`` with ``E[(W − t)⁺] ≤ b`` and ``P(W > t) ≤ q``.

What the cap needs when no bound on the round's win proves it is never reached (:func:`tail_of`,
:func:`tail_plus`)."""


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


def cell_bits(rows: Sequence[int]) -> tuple[int, ...]:
    """The bit offset of each reel's rows in a window mask: cell ``(r, k)`` is bit ``offset[r] + k``.

    Examples
    --------
    >>> cell_bits((3, 3, 3))
    (0, 3, 6)
    """
    out, at = [], 0
    for h in rows:
        out.append(at)
        at += h
    return tuple(out)


@dataclass(frozen=True)
class Overlay:
    """A spin whose forced cells are drawn at random, independently of the stops: a random overlay.

    Placement ``i`` (``(reel, row)`` cells, from 0) shows ``symbol`` on its cells with weight
    ``weights[i]``; the rest of the window is ``model``'s spin.  The exact engine answers for it as
    for a spin model (means from the per-line forced-cell table, observations reel by reel,
    the joint law as a mixture of forced spins).

    Examples
    --------
    >>> o = Overlay(SpinModel("overlay"), "WILD", (((0, 0), (1, 0)), ((0, 1), (1, 1))), (1, 1))
    >>> o.reels, o.total
    ('overlay', 2)
    """

    model: SpinModel
    symbol: str
    placements: tuple[tuple[tuple[int, int], ...], ...]
    weights: tuple[int, ...]

    @property
    def reels(self) -> str:
        return self.model.reels

    @property
    def rows(self) -> int | None:
        """The window height of the spin under the overlay."""
        return self.model.rows

    @property
    def total(self) -> int:
        """The placements' total weight."""
        return sum(self.weights)

    def forced(self, i: int) -> SpinModel:
        """The spin with placement ``i`` forced."""
        return replace(self.model, forced=self.model.forced + tuple((r, k, self.symbol) for r, k in self.placements[i]))


Spin = SpinModel | Overlay
"""What the exact engine answers for: a spin model, or a spin model under a random overlay."""


@dataclass(frozen=True, eq=False)
class LineTable:
    """Every line's win over the cycle when its cells on some reels are forced to one symbol.

    ``credits[l][F]`` is the total line win (credits, the spin's line multiplier applied) of
    line ``l`` over the whole cycle when its cells on the reels in bitmask ``F`` (bit ``r`` for
    reel ``r``) show ``symbol`` and its other cells show what the stops show.  A cell's symbol
    on a reel does not depend on what is forced in the reel's other rows, so a window with any
    set of forced cells pays, on average, ``Σ_l credits[l][F_l] / cycle`` where ``F_l`` are the
    reels where line ``l`` crosses a forced cell.  ``lines[l][r]`` is the row of line ``l`` on
    reel ``r``; ``rows`` the window height per reel (window masks: :func:`cell_bits`).

    Examples
    --------
    >>> t = LineTable("W", ((0, 4, 4, 8),), ((0, 0),), (1, 1), 4)
    >>> t.mean_of([(1, 0)]), t.masks_credits(np.array([0b00, 0b01, 0b11])).tolist()
    (Fraction(1, 1), [0, 4, 8])
    """

    symbol: str
    credits: tuple[tuple[int, ...], ...]
    lines: tuple[tuple[int, ...], ...]
    rows: tuple[int, ...]
    cycle: int

    def _reel_masks(self, masks: IntArray) -> list[IntArray]:
        """``F_l`` of every line for every window mask."""
        bits = cell_bits(self.rows)
        out = []
        for line in self.lines:
            f = np.zeros(len(masks), dtype=np.int64)
            for r, k in enumerate(line):
                f |= ((masks >> (bits[r] + k)) & 1) << r
            out.append(f)
        return out

    def masks_credits(self, masks: IntArray) -> npt.NDArray[np.object_]:
        """Total credits over the cycle of every window mask's forced spin (exact integers)."""
        masks = np.asarray(masks, dtype=np.int64)
        total = np.zeros(len(masks), dtype=object)
        for l, f in enumerate(self._reel_masks(masks)):
            table = np.array(self.credits[l], dtype=object)
            total = total + table[f]
        return total

    def masks_mean(self, masks: IntArray) -> FloatArray:
        """Mean line win (credits) of every window mask's forced spin, in floating point."""
        masks = np.asarray(masks, dtype=np.int64)
        total = np.zeros(len(masks))
        for l, f in enumerate(self._reel_masks(masks)):
            total += np.array(self.credits[l], dtype=np.float64)[f]
        return total / self.cycle

    def mean_of(self, cells: Sequence[tuple[int, int]]) -> Fraction:
        """The exact mean line win (credits) with ``cells`` forced."""
        bits = cell_bits(self.rows)
        mask = sum(1 << (bits[r] + k) for r, k in set(cells))
        return Fraction(int(self.masks_credits(np.array([mask]))[0]), self.cycle)


@dataclass(frozen=True, eq=False)
class HeldCells:
    """Many windows, each told by the cells one symbol holds: masks over the window (:func:`cell_bits`).

    What a stage that ends with held cells (re-spins) hands the feature it leads to, when there
    are too many endings to list as exits one by one (see :class:`Drawn`).

    Examples
    --------
    >>> h = HeldCells("S", (3, 3), np.array([0b000011, 0b100001]))
    >>> h.digits(0), h.cells(1)
    ({'S': 2, 'S@1': 3, 'S@2': 0}, ((0, 0), (1, 2)))
    """

    symbol: str
    rows: tuple[int, ...]
    masks: IntArray

    def cells(self, i: int) -> tuple[tuple[int, int], ...]:
        """The held cells of window ``i``, ``(reel, row)`` in reading order."""
        m = int(self.masks[i])
        bits = cell_bits(self.rows)
        return tuple((r, k) for r, h in enumerate(self.rows) for k in range(h) if m >> (bits[r] + k) & 1)

    def digits(self, i: int) -> dict[str, int]:
        """The built-in observations of window ``i``: the count (``SYMBOL``) and row masks (``SYMBOL@r``)."""
        m = int(self.masks[i])
        bits = cell_bits(self.rows)
        out = {self.symbol: m.bit_count()}
        for r, h in enumerate(self.rows):
            out[f"{self.symbol}@{r + 1}"] = (m >> bits[r]) & ((1 << h) - 1)
        return out


@dataclass(frozen=True, eq=False)
class Ratios:
    """Many exact values over one denominator: ``num[i] / den`` (integers), without a Fraction each.

    Examples
    --------
    >>> r = Ratios(np.array([1, 3], dtype=object), 4)
    >>> r[1], len(r), r.floats().tolist()
    (Fraction(3, 4), 2, [0.25, 0.75])
    """

    num: npt.NDArray[np.object_]
    den: int

    def __len__(self) -> int:
        return len(self.num)

    def __getitem__(self, i: int) -> Fraction:
        return Fraction(int(self.num[i]), self.den)

    def __iter__(self) -> Iterator[Fraction]:
        return (Fraction(int(x), self.den) for x in self.num.tolist())

    def floats(self) -> FloatArray:
        """The values in floating point."""
        return np.array([int(x) / self.den for x in self.num.tolist()], dtype=np.float64)


@dataclass(frozen=True, eq=False)
class HeldValues:
    """A feature's own win from each window of a :class:`HeldCells`: what a :class:`Drawn` entry averages.

    ``mean[i]`` (and ``m2[i]``, at the moments level) is E[W] (E[W²]) of the feature entered from
    window ``i`` (0 where the window does not start it); ``top`` bounds W over every window
    (``None``: unbounded); ``facts[name][i]`` the averages its PAR section reads; ``tail(t)`` the
    per-window tail bounds (``E[(W − t)⁺]``, ``P(W > t)``), as arrays.
    """

    mean: Sequence[Number] | Ratios | FloatArray
    m2: Sequence[Number] | Ratios | FloatArray | None = None
    top: int | None = None
    facts: Mapping[str, Sequence[Number] | Ratios | FloatArray] = field(default_factory=dict)
    tail: Callable[[float], tuple[FloatArray, FloatArray]] | None = None
    method: Method = "exact"


@dataclass(frozen=True)
class Drawn:
    """An entry drawn at random from a law the stage that leads here holds.

    When a stage can end in too many ways to list as exits (the held cells after re-spins), the
    exit names the feature to play next with a ``Drawn`` entry: ``source`` is the feature whose
    stage ends so, ``key`` which of its laws.  The source answers for the feature's law from it
    (:meth:`mathkit.features.Block.drawn_law`), from the feature's values over the source's
    endings (:meth:`mathkit.features.Block.held_values`).
    """

    source: str
    key: Hashable


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

    def play_law(self, select: npt.NDArray[np.bool_] | None = None) -> WinLaw:
        """The law of the win (over the cells ``select``, conditionally), keeping the exact counts."""
        wins = self.wins if select is None else self.wins[select]
        counts = self.counts if select is None else self.counts[select]
        v, c, _ = merge(wins, counts.astype(np.int64))
        total = sum(int(x) for x in c.tolist())
        return WinLaw(v, c.astype(np.float64) / float(total), 0.0, c, total)


@dataclass(frozen=True, eq=False)
class Branch:
    """One way a stage ends: its probability and the stage's own win given this ending.

    ``mean``, ``m2`` (E[W | branch], E[W² | branch], credits) and ``dist`` (the conditional
    law of W) are filled as far as the stage law's level asks; ``top`` bounds W (credits;
    ``None``: no bound known); ``tail`` bounds its tail (:data:`Tail`) where ``top`` is missing
    or large.  ``uncovered`` (at the distribution level) lists the parts of the branch whose law
    is left to the simulator, conditional on the branch (probabilities given it, mean
    contributions to ``mean``); ``dist`` is then the sub-distribution of the rest.
    """

    p: Number
    mean: Number | None = None
    m2: Number | None = None
    dist: WinLaw | None = None
    top: int | None = None
    tail: Tail | None = None
    uncovered: tuple[Uncovered, ...] = ()


@dataclass(frozen=True, eq=False)
class StageLaw:
    """How a stage ends and what it pays: branches by exit, and its mean win by PAR component.

    ``components`` holds E[W] split by component (credits, unconditional within the stage);
    ``method`` says how the weakest figure was obtained; ``facts`` holds averages given the entry
    that the feature's PAR section reads (spins awarded, expected length ...).
    """

    branches: Mapping[Exit, Branch]
    components: Mapping[str, Number]
    method: Method = "exact"
    level: Level = "mean"
    facts: Mapping[str, Number] = field(default_factory=dict)

    @property
    def mean(self) -> Number:
        """The stage's expected own win (credits)."""
        return sum(self.components.values(), Fraction(0))


def visits(laws: Mapping[tuple[str, Entry], StageLaw],
           start: Iterable[tuple[Number, Exit]]) -> dict[tuple[str, Entry], Number]:
    """How often a round plays each stage ``(feature, entry)`` it can reach from ``start``, over every way there.

    ``start`` lists a stage's exits with their probabilities (the base spin's branches); ``laws``
    holds every reachable stage's law.  The stages form no loop (the composer refuses one), so one
    pass in topological order adds, for each exit, its probability times the visits of the stage
    it leaves to every stage it plays: exact in Fractions.

    Examples
    --------
    >>> end = StageLaw({(): Branch(Fraction(1))}, {})
    >>> laws = {("a", 1): StageLaw({(("b", 1),): Branch(Fraction(1, 2)), (): Branch(Fraction(1, 2))}, {}),
    ...         ("b", 1): end}
    >>> v = visits(laws, [(Fraction(1, 3), (("a", 1),)), (Fraction(1, 3), (("a", 1), ("b", 1)))])
    >>> v[("a", 1)], v[("b", 1)]    # b: 1/3 straight from the start, and half of a's 2/3
    (Fraction(2, 3), Fraction(2, 3))
    """
    start = list(start)
    order: list[tuple[str, Entry]] = []
    seen: set[tuple[str, Entry]] = set()

    def visit(node: tuple[str, Entry]) -> None:
        seen.add(node)
        for key in laws[node].branches:
            for child in key:
                if child not in seen:
                    visit(child)
        order.append(node)

    for _, key in start:
        for child in key:
            if child not in seen:
                visit(child)
    out: dict[tuple[str, Entry], Number] = {node: Fraction(0) for node in order}
    for p, key in start:
        for child in key:
            out[child] = out[child] + p
    for node in reversed(order):  # every stage after all the stages that lead to it
        for key, br in laws[node].branches.items():
            for child in key:
                out[child] = out[child] + out[node] * br.p
    return out


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


@dataclass(frozen=True)
class Uncovered:
    """A part of the round whose win distribution the exact engine leaves to the simulator.

    ``route`` names the event the simulator labels rounds with: ``"variant:<label>"`` for a
    base-spin variant (a random overlay type, labelled as in :class:`mathkit.play.vocabulary.Variants`),
    ``"feature:<block name>"`` for a round that enters that feature.  ``probability`` is the
    event's exact probability per round; ``mean`` its exact contribution to the round's mean
    (credits, unconditional).  Uncovered parts of one outcome are disjoint events, and the
    outcome's ``dist`` holds only the rest of the round (its mass is 1 − Σ probabilities).
    """

    route: str
    probability: Fraction
    mean: Number
    why: str
    top: int | None = None
    """A proven bound of the win of the route's rounds (credits, before any cap; ``None``: none known)."""


@dataclass(frozen=True, eq=False)
class Outcome:
    """The win of a stage and everything after it, to the end of the round.

    ``components`` are unconditional means (credits) by PAR component (``methods`` says how
    each was obtained); ``m2`` and ``dist``
    are present when the level asked for them (``dist.lost_mass`` is the probability that
    truncations left out); ``max_win`` is a bound on the win in credits (``None``: unbounded);
    ``tail`` bounds its tail (:data:`Tail`); ``error`` bounds ``|true mean − mean|`` (credits) where
    a part was bounded rather than computed (the cap's effect, from a tail bound); ``uncovered``
    lists the parts of the round ``dist`` leaves out (:class:`Uncovered`: sampled by the caller).
    """

    mean: Number
    components: Mapping[str, Number]
    method: Method
    m2: Number | None = None
    dist: WinLaw | None = None
    max_win: int | None = None
    methods: Mapping[str, Method] = field(default_factory=dict)
    tail: Tail | None = None
    error: float = 0.0
    uncovered: tuple[Uncovered, ...] = ()

    def method_of(self, component: str) -> Method:
        """How component ``component`` was obtained (the outcome's method when not recorded)."""
        return self.methods.get(component, self.method)


def tail_of(top: int | None, tail: Tail | None) -> Tail | None:
    """The tail bound of a win bounded by ``top`` and/or with a tail bound ``tail`` (``None``: nothing known).

    A bound ``top`` alone gives ``E[(W − t)⁺] ≤ (top − t)⁺`` and ``P(W > t) ≤ [t < top]``.

    Examples
    --------
    >>> tail_of(10, None)(4), tail_of(10, None)(12), tail_of(None, None)
    ((6.0, 1.0), (0.0, 0.0), None)
    """
    if tail is not None:
        if top is None:
            return tail
        return lambda t: (0.0, 0.0) if t >= top else tail(t)
    if top is None:
        return None
    return lambda t: (0.0, 0.0) if t >= top else (float(top - t), 1.0)


def tail_plus(parts: Sequence[tuple[int | None, Tail | None]]) -> Tail | None:
    """The tail bound of a sum of wins, each given as ``(top, tail)`` (:func:`tail_of`); ``None`` if one is unknown.

    Pointwise ``(Σ wᵢ − t)⁺ ≤ Σ (wᵢ − tᵢ)⁺`` for any ``tᵢ`` adding up to ``t`` (no independence
    needed): the bounded parts are given their bounds and the rest of ``t`` is shared among the
    unbounded ones (all to one when there is one; when every part is bounded, to the largest).

    Examples
    --------
    >>> tail_plus([(3, None), (10, None)])(5), tail_plus([(3, None), (None, lambda t: (1 / t, 0.5))])(5)
    ((8.0, 1.0), (0.5, 0.5))
    """
    tails = [tail_of(top, tail) for top, tail in parts]
    if any(t is None for t in tails):
        return None
    if not parts:
        return lambda t: (0.0, 0.0)
    bounded = [i for i, (top, _) in enumerate(parts) if top is not None]
    open_ = [i for i in range(len(parts)) if i not in bounded]
    if not open_:
        biggest = max(bounded, key=lambda i: parts[i][0] or 0)
        open_, bounded = [biggest], [i for i in bounded if i != biggest]
    fixed = sum(int(parts[i][0] or 0) for i in bounded)
    known = [t for t in tails if t is not None]

    def tail(t: float) -> tuple[float, float]:
        share = (t - fixed) / len(open_)
        b = q = 0.0
        for i in open_:
            bi, qi = known[i](share)
            b, q = b + bi, q + qi
        return b, min(q, 1.0)

    return memo_tail(tail)


def memo_tail(tail: Tail) -> Tail:
    """``tail`` remembering its answers (a round's tail is asked at a few thresholds, through many paths)."""
    seen: dict[float, tuple[float, float]] = {}

    def memo(t: float) -> tuple[float, float]:
        if t not in seen:
            seen[t] = tail(t)
        return seen[t]

    return memo


def lazy_tail(make: Callable[[], Tail]) -> Tail:
    """A tail bound computed by ``make()`` the first time it is asked for (most rounds never need it).

    Examples
    --------
    >>> calls = []
    >>> t = lazy_tail(lambda: calls.append(1) or (lambda x: (0.0, 0.0)))
    >>> len(calls), t(1.0), t(2.0), len(calls)
    (0, (0.0, 0.0), (0.0, 0.0), 1)
    """
    made: list[Tail] = []

    def tail(t: float) -> tuple[float, float]:
        if not made:
            made.append(make())
        return made[0](t)

    return tail
