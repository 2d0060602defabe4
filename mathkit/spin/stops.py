"""Per-reel stop tables: what the exact engine reads of one kind of spin.

The enumeration (:mod:`mathkit.exact.cycle`) and the per-reel algebra
(:mod:`mathkit.exact.components`) only need, for every stop of every reel,

* the **column** the line rule reads (symbol ids, top to bottom),
* its **weight** (virtual stops),
* its **observations**: non-negative integers that add up over the reels
  (how many of a scatter show, the rows of one reel showing a symbol as a
  bitmask, a cash value ...), the *digits* features branch on, and
* an optional **extra win** in credits (a value the stop pays whatever the
  lines do).

Reels stop independently, so meeting in the middle only needs the digits to
be additive over the reels: each digit is packed into the grouped state with
the radix of the largest total it can reach (the sum over the reels of its
largest value on each), not of the window size.

A :class:`~mathkit.laws.stage.SpinModel` becomes stop tables by four transforms of
the plain strips: the window **height** (``rows``), **overlay** (``forced``
cells showing a symbol whatever the stop), **remap** (a symbol read by the line
rule as another; observations see the symbol shown) and **restrict** (only the
stops whose digit on a reel takes given values: a conditional spin).  Extra
wins come from digits (``extra``: credits per unit of a digit); a *product* of
two digits' totals (``products``) is not additive, so the tables only carry its
factors' values and :meth:`StopTables.select` cuts them into the classes inside
which it is (the engine enumerates each class).

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> from mathkit.laws.stage import SpinModel
>>> g = load_game("data/games/dynasty.toml")
>>> st = stop_tables(g, SpinModel("base"))
>>> st.digits, st.sizes.tolist(), st.cycle == g.reel_set().cycle
(('EMPEROR',), [6], True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..laws.stage import CountOf, Digit, RowsOf, SpinModel, builtin_digit
from ..model.game import Game
from ..model.ordered import line_ids

__all__ = ["StopTables", "observed", "stop_tables"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class StopTables:
    """One spin's reels as stop tables (see the module docstring).

    Attributes
    ----------
    name
        The reel set they come from.
    cols
        ``cols[r][i, k]``: the symbol id the line rule reads in row ``k`` when reel ``r`` stops at ``i``
        (a line id, :func:`mathkit.model.ordered.line_ids`, in a game with reel-ordered entries).
    weights
        ``weights[r][i]``: the weight of that stop.
    digits
        Names of the observation digits, in order.
    obs
        ``obs[r][i, d]``: the value of digit ``d`` at that stop.
    extra
        ``extra[r][i]``: credits the stop pays besides the lines; ``extra_parts`` splits their
        mean by PAR component: ``(component, digit, credits per unit)``.
    stops
        ``stops[r][i]``: the strip stop each row of the table is (restrictions keep a subset).
    rotations
        Every reel's table is its whole strip rotated, one stop each, nothing forced: every row
        of a reel then shows the same symbol counts.
    product_parts
        ``(component, digit a, digit b, credits per unit)``: the spin also pays
        ``credits × total(a) × total(b)`` (both digits are among :attr:`digits`).
    """

    name: str
    cols: tuple[IntArray, ...]
    weights: tuple[IntArray, ...]
    digits: tuple[str, ...]
    obs: tuple[IntArray, ...]
    extra: tuple[IntArray, ...]
    extra_parts: tuple[tuple[str, str, int], ...]
    stops: tuple[IntArray, ...]
    rotations: bool = False
    product_parts: tuple[tuple[str, str, str, int], ...] = ()

    @property
    def n_reels(self) -> int:
        return len(self.cols)

    @property
    def rows(self) -> IntArray:
        return np.array([c.shape[1] for c in self.cols], dtype=np.int64)

    def columns(self, reel: int) -> IntArray:
        """``columns(r)[i, k]``: as :attr:`cols` (the interface of :class:`~mathkit.spin.tables.ReelArrays`)."""
        return self.cols[reel]

    @property
    def cycle(self) -> int:
        out = 1
        for w in self.weights:
            out *= int(w.sum())
        return out

    @cached_property
    def sizes(self) -> IntArray:
        """``sizes[d]``: one more than the largest total digit ``d`` can reach (its radix in a packed code)."""
        out = np.ones(len(self.digits), dtype=np.int64)
        for o in self.obs:
            if o.shape[0]:
                out += o.max(axis=0)
        return out

    @cached_property
    def radix(self) -> IntArray:
        """``radix[d]``: the weight of digit ``d`` in a packed code ``Σ value_d · radix[d]``."""
        out = np.ones(len(self.digits), dtype=np.int64)
        for d in range(1, len(self.digits)):
            out[d] = out[d - 1] * self.sizes[d - 1]
        return out

    @property
    def n_codes(self) -> int:
        """Number of packed codes (the product of the digits' sizes)."""
        out = 1
        for s in self.sizes.tolist():
            out *= int(s)
        return out

    def codes(self, reel: int) -> IntArray:
        """Packed observation code of every stop of ``reel``."""
        return np.asarray(self.obs[reel] @ self.radix, dtype=np.int64) if self.digits else \
            np.zeros(len(self.weights[reel]), dtype=np.int64)

    def index(self, digit: str) -> int:
        """Position of digit ``digit``."""
        return self.digits.index(digit)

    def decode(self, codes: IntArray, digit: str) -> IntArray:
        """Value of ``digit`` in packed ``codes``."""
        d = self.index(digit)
        return np.asarray((codes // self.radix[d]) % self.sizes[d], dtype=np.int64)

    @property
    def has_extra(self) -> bool:
        return any(bool(x.any()) for x in self.extra)

    def only(self, digits: Sequence[str]) -> StopTables:
        """The same tables observing only ``digits`` (all among :attr:`digits`), in that order."""
        idx = [self.index(d) for d in digits]
        return StopTables(self.name, self.cols, self.weights, tuple(digits),
                          tuple(np.ascontiguousarray(o[:, idx]) for o in self.obs), self.extra, self.extra_parts,
                          self.stops, self.rotations, self.product_parts)

    def select(self, keep: Sequence[npt.NDArray[np.bool_]], extra: Sequence[IntArray],
               digits: Sequence[str]) -> StopTables:
        """The tables of the stops ``keep[r]`` of every reel, paying ``extra[r]`` more, observing ``digits``.

        A class of a conditional spin: its cycle is the kept stops' weights; it has no products left
        (the caller turned them into the extra win of the class).

        Examples
        --------
        >>> from mathkit.gamefile.io import load_game
        >>> g = load_game("data/games/classic_3reel.toml")
        >>> st = stop_tables(g, SpinModel("base"))
        >>> keep = [np.arange(len(w)) < 2 for w in st.weights]
        >>> sub = st.select(keep, [np.ones(2, dtype=np.int64)] * 3, ())
        >>> sub.sizes.tolist(), [x.tolist() for x in sub.extra], sub.rotations
        ([], [[1, 1], [1, 1], [1, 1]], False)
        """
        idx = [self.index(d) for d in digits]
        return StopTables(
            self.name,
            tuple(np.ascontiguousarray(c[k]) for c, k in zip(self.cols, keep, strict=True)),
            tuple(w[k] for w, k in zip(self.weights, keep, strict=True)),
            tuple(digits),
            tuple(np.ascontiguousarray(o[k][:, idx]) for o, k in zip(self.obs, keep, strict=True)),
            tuple(x[k] + e for x, k, e in zip(self.extra, keep, extra, strict=True)),
            self.extra_parts,
            tuple(s[k] for s, k in zip(self.stops, keep, strict=True)),
        )


def _digit(name: str, game: Game, names: Sequence[str], defined: Mapping[str, Digit]) -> Digit:
    if name not in defined and name in names and game.symbol(name).is_scatter:
        # a scatter's count: the scatter and the wilds that count as it (Symbol.counts_as_scatter)
        return Digit(name, CountOf(game.scatter_counted(name)))
    d = defined.get(name) or builtin_digit(name, names)
    if d is None:
        msg = (f"{game.name}: no observation digit {name!r} (a symbol name counts it, SYMBOL@r gives "
               "the rows of reel r showing it, and feature blocks declare others)")
        raise ModelError(msg)
    return d


def _values(d: Digit, reel: int, shown: list[tuple[str, ...]], sid: Mapping[str, int], cols: IntArray) -> IntArray:
    fn = d.value
    if isinstance(fn, CountOf):
        if fn.reel is not None and fn.reel != reel:
            return np.zeros(len(cols), dtype=np.int64)
        out = np.zeros(len(cols), dtype=np.int64)
        for s in fn.symbols:
            if s in sid:
                out += (cols == sid[s]).sum(axis=1)
        return out
    if isinstance(fn, RowsOf):
        if fn.reel != reel or fn.symbol not in sid:
            return np.zeros(len(cols), dtype=np.int64)
        bits = np.int64(1) << np.arange(cols.shape[1], dtype=np.int64)
        return np.asarray(((cols == sid[fn.symbol]) * bits).sum(axis=1), dtype=np.int64)
    out = np.array([fn(reel, col) for col in shown], dtype=np.int64)
    if out.size and out.min() < 0:
        msg = f"observation digit {d.name!r} is negative on reel {reel + 1}"
        raise ModelError(msg)
    return out


def observed(game: Game, model: SpinModel, digits: Sequence[str] = ()) -> tuple[str, ...]:
    """The digits the stop tables of ``model`` observing ``digits`` hold, in order: every scatter's count, the
    digits named, then those the model's restrictions, extra wins and products read (each once)."""
    wanted = [s.name for s in game.scatters]
    for d in (*digits, *(r[1] for r in model.restrict), *(x[1] for x in model.extra),
              *(n for p in model.products for n in p[1:3])):
        if d not in wanted:
            wanted.append(d)
    return tuple(wanted)


def stop_tables(game: Game, model: SpinModel, digits: Sequence[str] = (),
                defined: Mapping[str, Digit] | None = None) -> StopTables:
    """The stop tables of spin ``model``, observing every scatter's count and the ``digits`` named.

    ``defined`` holds the digits feature blocks declare, by name.  Scatter counts come first
    (in symbol order), then the other digits named, in order, each once.

    Examples
    --------
    >>> from mathkit.model.game import Bet, ReelSet, Symbol
    >>> g = Game("g", (Symbol("A"), Symbol("W", "wild", ("A",)), Symbol("S", "scatter")),
    ...          (ReelSet("base", (("A", "S", "A"), ("S", "A", "A")), rows=(2, 2)),), (), Bet(1),
    ...          paylines=((0, 0),))
    >>> st = stop_tables(g, SpinModel("base", forced=((1, 0, "W"),)), ("S@2",))
    >>> st.digits, st.obs[1].tolist()   # reel 2 "S A A": the overlay covers row 0, so only stop 2 shows S (row 1)
    (('S', 'S@2'), [[0, 0], [0, 0], [1, 2]])
    >>> [g.symbol_names[i] for i in st.cols[1][:, 0]]
    ['W', 'W', 'W']
    """
    defined = defined or {}
    rs = game.reel_set(model.reels)
    names = tuple(s.name for s in game.symbols)
    sid = {n: i for i, n in enumerate(names)}
    wanted = list(observed(game, model, digits))
    digit_defs = [_digit(n, game, names, defined) for n in wanted]
    remap = np.arange(len(names), dtype=np.int64)
    for a, b in model.remap:
        remap[sid[a]] = sid[b]
    forced: dict[int, list[tuple[int, int]]] = {}
    for reel, row, sym in model.forced:
        forced.setdefault(reel, []).append((row, sid[sym]))
    cols, weights, obs, extra, stops = [], [], [], [], []
    lid = line_ids(game)
    for r, strip in enumerate(rs.strips):
        height = rs.rows[r] if model.rows is None else model.rows
        n = len(strip)
        if height > n:
            msg = f"reel set {rs.name!r}: reel {r + 1} has {n} stops, fewer than a window {height} rows high"
            raise ModelError(msg)
        ids = np.array([sid[s] for s in strip], dtype=np.int64)
        col = ids[(np.arange(n)[:, None] + np.arange(height)[None, :]) % n]
        for row, s in forced.get(r, ()):
            if not 0 <= row < height:
                msg = f"forced cell (reel {r + 1}, row {row}) is outside a window {height} rows high"
                raise ModelError(msg)
            col[:, row] = s
        shown = [tuple(names[i] for i in c) for c in col.tolist()] if any(
            not isinstance(d.value, CountOf | RowsOf) for d in digit_defs) else []
        o = np.zeros((n, len(digit_defs)), dtype=np.int64)
        for j, d in enumerate(digit_defs):  # (a column at a time: np.stack cost 4 µs a reel, a tenth of an RTP call)
            o[:, j] = _values(d, r, shown, sid, col)
        w = np.array(rs.weights[r], dtype=np.int64) if rs.weights is not None else np.ones(n, dtype=np.int64)
        x = np.zeros(n, dtype=np.int64)
        for _label, name, unit in model.extra:
            x += o[:, wanted.index(name)] * unit
        col = remap[col] if model.remap else col
        col = lid[r][col] if lid is not None else col  # reel-ordered entries: the line rule reads (reel, symbol) ids
        here = [(name, values) for reel, name, values in model.restrict if reel == r]
        if not here:
            cols.append(col)
            weights.append(w)
            obs.append(o)
            extra.append(x)
            stops.append(np.arange(n, dtype=np.int64))
            continue
        keep = np.ones(n, dtype=np.bool_)
        for name, values in here:
            keep &= np.isin(o[:, wanted.index(name)], list(values))
        if not keep.any():
            msg = f"spin {model}: the restriction leaves reel {r + 1} no stop"
            raise ModelError(msg)
        cols.append(np.ascontiguousarray(col[keep]))
        weights.append(w[keep])
        obs.append(np.ascontiguousarray(o[keep]))
        extra.append(x[keep])
        stops.append(np.flatnonzero(keep).astype(np.int64))
    rotations = rs.weights is None and not model.forced and not model.restrict
    return StopTables(rs.name, tuple(cols), tuple(weights), tuple(wanted), tuple(obs), tuple(extra),
                      tuple(model.extra), tuple(stops), rotations, tuple(model.products))
