"""The game model: immutable dataclasses describing a slot game.

A :class:`Game` is pure data.  It is built by :mod:`mathkit.io` from a TOML
file (which validates it) or directly in code; every object is frozen so a
game can be shared between the exact engine, the simulator and the widgets
without anyone changing it behind another's back.  Edits make new games
(:func:`dataclasses.replace`).

Conventions
-----------
* Reels are numbered from 1 in the file (``reels = [2, 3, 4]``); rows from 0
  at the top of the window.
* Line pays are integer credits per line at one coin (or one value per coin
  count, for top awards that are not proportional); scatter pays are integer
  multiples of the total bet.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

__all__ = [
    "Bet",
    "FreeSpins",
    "Gamble",
    "GambleOption",
    "Game",
    "PayEntry",
    "Reading",
    "ReelSet",
    "ScatterPay",
    "Symbol",
]

SymbolKind = Literal["regular", "wild", "scatter"]


def at_most(table: tuple[tuple[int, Any], ...], count: int) -> tuple[int, Any] | None:
    """The entry of ``table`` (``(count, value)`` pairs) for the largest count not above ``count``.

    Every count-keyed table in a game reads this way: pays, scatter pays, spins awarded.

    Examples
    --------
    >>> at_most(((3, "three"), (5, "five")), 4), at_most(((3, "three"),), 2)
    ((3, 'three'), None)
    """
    best = None
    for k, v in table:
        if k <= count and (best is None or k > best[0]):
            best = (k, v)
    return best
PayMode = Literal["lines", "ways"]


@dataclass(frozen=True)
class Symbol:
    """A reel symbol.

    Parameters
    ----------
    name
        Unique name, as written on the strips.
    kind
        ``"regular"``, ``"wild"`` or ``"scatter"``.
    substitutes
        For a wild: the regular symbols it stands in for.
    reels
        For a wild: the reels (numbered from 1) it may appear on; empty means all.
    pays
        For a wild: whether it has pays of its own (a line then pays the better
        of the wild combination and the substituted one).
    multiplier
        For a wild: the factor it applies to a combination it completes by
        substitution; several on one line multiply.
    """

    name: str
    kind: SymbolKind = "regular"
    substitutes: tuple[str, ...] = ()
    reels: tuple[int, ...] = ()
    pays: bool = False
    multiplier: int = 1

    @property
    def is_wild(self) -> bool:
        return self.kind == "wild"

    @property
    def is_scatter(self) -> bool:
        return self.kind == "scatter"


@dataclass(frozen=True)
class ReelSet:
    """A named set of circular reel strips.

    Parameters
    ----------
    name
        The set's name (``base``, ``free``, ``rtp95`` ...).
    strips
        One tuple of symbol names per reel, in stop order; the window shows
        ``rows[r]`` consecutive stops from the stop drawn (wrapping round).
    rows
        Window height per reel.
    weights
        Optional integer weight per stop (virtual stops); ``None`` means every
        stop has weight 1.
    declared_rtp
        The RTP this set (an RTP variant) advertises, when it has its own.

    Examples
    --------
    >>> rs = ReelSet("base", (("A", "B", "C"), ("A", "A", "B")), rows=(1, 1))
    >>> rs.n_reels, rs.cycle
    (2, 9)
    """

    name: str
    strips: tuple[tuple[str, ...], ...]
    rows: tuple[int, ...]
    weights: tuple[tuple[int, ...], ...] | None = None
    declared_rtp: Fraction | None = None

    @property
    def n_reels(self) -> int:
        return len(self.strips)

    def stop_weights(self, reel: int) -> tuple[int, ...]:
        """Weights of the stops of ``reel`` (0-based), 1 each if unweighted."""
        if self.weights is None:
            return (1,) * len(self.strips[reel])
        return self.weights[reel]

    @property
    def cycle(self) -> int:
        """Number of equally likely outcomes: product of the reels' total weights."""
        out = 1
        for r in range(self.n_reels):
            out *= sum(self.stop_weights(r))
        return out

    def window(self, stops: tuple[int, ...] | list[int]) -> tuple[tuple[str, ...], ...]:
        """Symbols shown per reel (top to bottom) for the given stop indices."""
        return tuple(
            tuple(strip[(stop + k) % len(strip)] for k in range(self.rows[r]))
            for r, (strip, stop) in enumerate(zip(self.strips, stops, strict=True))
        )


@dataclass(frozen=True)
class PayEntry:
    """A line (or ways) paytable entry: a symbol, or a mixed group ("any bar").

    Parameters
    ----------
    name
        The entry's name (the symbol's name for a single-symbol entry).
    symbols
        Symbols that count towards the combination.
    pays
        ``(count, per_coin)`` pairs: ``per_coin`` holds one credit value per
        coin option, or a single value paid per coin.
    """

    name: str
    symbols: tuple[str, ...]
    pays: tuple[tuple[int, tuple[int, ...]], ...]

    def pay(self, count: int, coins: int = 1, coin_index: int | None = None) -> int:
        """Credits for exactly ``count`` matching symbols at ``coins`` coins per line.

        The value for the largest declared count not above ``count``
        (0 when there is none).

        Examples
        --------
        >>> e = PayEntry("SEVEN", ("SEVEN",), ((3, (100, 200, 500)), (2, (5,))))
        >>> e.pay(3, coins=3, coin_index=2), e.pay(2, coins=3, coin_index=2), e.pay(1)
        (500, 15, 0)
        """
        best = at_most(self.pays, count)
        if best is None:
            return 0
        values: tuple[int, ...] = best[1]
        if len(values) == 1:
            return values[0] * coins
        idx = coins - 1 if coin_index is None else coin_index
        return values[idx]

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(sorted(k for k, _ in self.pays))


@dataclass(frozen=True)
class ScatterPay:
    """Scatter pays: ``count -> multiple of the total bet`` for the largest count reached."""

    symbol: str
    pays: tuple[tuple[int, int], ...]

    def pay(self, count: int) -> int:
        best = at_most(self.pays, count)
        return 0 if best is None else int(best[1])


@dataclass(frozen=True)
class Bet:
    """The bet model.

    Parameters
    ----------
    lines
        Lines played by default (all paylines unless the player may choose).
    line_options
        Line counts the player may choose.
    coins
        Coins-per-line options; the first is the default.
    coin_value
        Value of one coin in currency (display only; all maths is in credits).
    """

    lines: int
    line_options: tuple[int, ...] = ()
    coins: tuple[int, ...] = (1,)
    coin_value: Fraction = Fraction(1)

    def total_bet(self, lines: int | None = None, coins: int | None = None) -> int:
        """Total bet in credits: lines played times coins per line."""
        return (self.lines if lines is None else lines) * (self.coins[0] if coins is None else coins)


@dataclass(frozen=True)
class FreeSpins:
    """A free-spin feature triggered by scatters.

    Parameters
    ----------
    trigger
        The scatter symbol that triggers it.
    awards
        ``(count, spins)``: spins awarded by ``count`` or more triggers in the base game.
    retriggers
        ``(count, spins)`` added during the feature (empty: no retrigger).
    reels
        The reel set the free spins use.
    multiplier
        Factor applied to line wins during free spins.
    multiply_scatter
        Whether the multiplier applies to scatter wins too.
    max_spins
        Optional limit on the total number of free spins in one feature.
    """

    trigger: str
    awards: tuple[tuple[int, int], ...]
    reels: str
    retriggers: tuple[tuple[int, int], ...] = ()
    multiplier: int = 1
    multiply_scatter: bool = False
    max_spins: int | None = None

    def award(self, count: int) -> int:
        """Spins awarded by ``count`` triggers in the base game."""
        best = at_most(self.awards, count)
        return 0 if best is None else int(best[1])

    def retrigger(self, count: int) -> int:
        """Spins added by ``count`` triggers during the feature."""
        best = at_most(self.retriggers, count)
        return 0 if best is None else int(best[1])


@dataclass(frozen=True)
class GambleOption:
    """One gamble choice: win ``multiplier`` times the stake with probability ``p``."""

    name: str
    multiplier: int
    p: Fraction


@dataclass(frozen=True)
class Gamble:
    """The gamble ladder offered after a win.

    Parameters
    ----------
    options
        The choices (colour ×2 at 1/2, suit ×4 at 1/4 ...).
    max_gambles
        Most gambles in a row in one game.
    limit
        Gamble amount limit in credits: a win above it is not offered the gamble.
    """

    options: tuple[GambleOption, ...]
    max_gambles: int
    limit: int


@dataclass(frozen=True)
class Reading:
    """A rule reading chosen where the rules are ambiguous, with its reason."""

    rule: str
    reading: str
    reason: str


@dataclass(frozen=True)
class Game:
    """A slot game: symbols, reel sets, pays, bet model and features.

    Build one with :func:`mathkit.io.load_game` (validated) or directly.
    """

    name: str
    symbols: tuple[Symbol, ...]
    reel_sets: tuple[ReelSet, ...]
    line_pays: tuple[PayEntry, ...]
    bet: Bet
    pay_mode: PayMode = "lines"
    paylines: tuple[tuple[int, ...], ...] = ()
    scatter_pays: tuple[ScatterPay, ...] = ()
    default_reels: str = "base"
    declared_rtp: Fraction | None = None
    free_spins: FreeSpins | None = None
    gamble: Gamble | None = None
    cap: int | None = None
    readings: tuple[Reading, ...] = ()
    description: str = ""

    # --- look-ups -----------------------------------------------------------------
    def symbol(self, name: str) -> Symbol:
        for s in self.symbols:
            if s.name == name:
                return s
        msg = f"unknown symbol {name!r}"
        raise KeyError(msg)

    @property
    def symbol_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.symbols)

    def reel_set(self, name: str | None = None) -> ReelSet:
        """The reel set called ``name`` (the default one when ``None``)."""
        wanted = self.default_reels if name is None else name
        for rs in self.reel_sets:
            if rs.name == wanted:
                return rs
        from .errors import GameError

        names = ", ".join(rs.name for rs in self.reel_sets)
        msg = f"no reel set {wanted!r}"
        raise GameError(msg, field="reels", fix=f"choose one of: {names}")

    @property
    def n_reels(self) -> int:
        return self.reel_sets[0].n_reels

    def declared_for(self, reels: str | None = None) -> Fraction | None:
        """Declared RTP of reel set ``reels``: its own, else the game's for the default set."""
        rs = self.reel_set(reels)
        if rs.declared_rtp is not None:
            return rs.declared_rtp
        return self.declared_rtp if rs.name == self.default_reels else None

    @property
    def wilds(self) -> tuple[Symbol, ...]:
        return tuple(s for s in self.symbols if s.is_wild)

    @property
    def scatters(self) -> tuple[Symbol, ...]:
        return tuple(s for s in self.symbols if s.is_scatter)

    def total_bet(self, lines: int | None = None, coins: int | None = None) -> int:
        """Total bet in credits (ways games bet ``bet.lines`` credits per coin)."""
        return self.bet.total_bet(lines, coins)
