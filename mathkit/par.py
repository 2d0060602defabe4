"""The PAR sheet (Probability Accounting Report) of a game.

:func:`build_par` gathers every figure a mathematician or a test lab reads —
symbol counts, per-combination hits and RTP, cycle, RTP by component, hit
frequencies, σ, volatility index, RTP range after N spins, max win and its
odds, tail probabilities, features — each as a :class:`Figure` that says how
it was obtained (``exact``, ``markov`` or ``sampled``).  Rendering to text,
JSON and CSV lives in :mod:`mathkit.report`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .distribution import Method, WinDistribution
from .exact import SpinMaths, spin
from .game import Game

__all__ = ["EntryRow", "FeatureSection", "Figure", "ParSheet", "Z", "build_par"]

#: z for the volatility index at 90/95/99% (two-sided normal quantiles, as PAR sheets print them)
Z = {"90%": 1.645, "95%": 1.960, "99%": 2.576}
RANGE_SPINS = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8)
TAILS = (10, 100, 1000)


@dataclass(frozen=True)
class Figure:
    """A figure and how it was obtained.

    Examples
    --------
    >>> Figure.of(Fraction(1, 3)).value
    0.3333333333333333
    >>> Figure.of(Fraction(1, 3)).method
    'exact'
    """

    value: float
    method: Method
    exact: Fraction | None = None

    @classmethod
    def of(cls, x: Fraction | float | int, method: Method | None = None) -> Figure:
        if isinstance(x, Fraction | int):
            return cls(float(x), method or "exact", Fraction(x))
        return cls(float(x), method or "markov", None)

    def exact_str(self) -> str | None:
        return None if self.exact is None else f"{self.exact.numerator}/{self.exact.denominator}"


@dataclass(frozen=True)
class EntryRow:
    """One pay combination in the PAR table."""

    component: str
    entry: str
    count: int
    pay: int
    hits: int
    probability: Figure
    rtp: Figure

    @property
    def one_in(self) -> float:
        return math.inf if self.probability.value == 0 else 1 / self.probability.value


@dataclass(frozen=True)
class FeatureSection:
    """A feature's figures (free spins, gamble ...), in display order."""

    name: str
    figures: tuple[tuple[str, Figure], ...]
    table: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class ParSheet:
    """Every figure of a game's PAR sheet, for one reel set and bet."""

    game: Game
    reels: str
    lines: int
    coins: int
    total_bet: int
    cycle: int
    symbol_counts: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]
    entries: tuple[EntryRow, ...]
    components: dict[str, Figure]
    rtp: Figure
    hit_frequency: Figure
    hit_frequency_bet: Figure
    sd: Figure
    volatility_index: dict[str, Figure]
    rtp_range: dict[str, tuple[tuple[int, float, float], ...]]
    max_win: Figure
    max_win_probability: Figure
    tails: dict[int, Figure]
    distribution: WinDistribution
    base: SpinMaths
    features: tuple[FeatureSection, ...] = ()
    cap_probability: Figure | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def max_win_bounded(self) -> bool:
        """False when retriggers without a limit or cap make a play's win unbounded.

        ``max_win`` is then the largest win of the computed (truncated) distribution.
        """
        fs = self.game.free_spins
        unbounded = (fs is not None and any(v > 0 for _, v in fs.retriggers) and fs.max_spins is None
                     and self.game.cap is None)
        return not unbounded

    @property
    def declared_rtp(self) -> Fraction | None:
        return self.game.declared_for(self.reels)


def symbol_counts(game: Game) -> dict[str, tuple[tuple[str, tuple[int, ...]], ...]]:
    """Per reel set, per symbol: its (weighted) count on each reel."""
    out = {}
    for rs in game.reel_sets:
        rows = []
        for name in game.symbol_names:
            per_reel = tuple(sum(w for s, w in zip(strip, rs.stop_weights(r), strict=True) if s == name)
                             for r, strip in enumerate(rs.strips))
            rows.append((name, per_reel))
        out[rs.name] = tuple(rows)
    return out


def _entry_rows(base: SpinMaths, game: Game) -> tuple[EntryRow, ...]:
    rows = []
    cycle = base.components.cycle
    bet = base.total_bet
    pays = {e.name: e for e in game.line_pays}
    scat = {s.symbol: s for s in game.scatter_pays}
    for e in base.components.entries:
        if e.component == "scatter":
            pay = scat[e.entry].pay(e.count) * bet
        else:
            pay = pays[e.entry].pay(e.count, base.coins, game.bet.coins.index(base.coins)
                                    if base.coins in game.bet.coins else None)
        rows.append(EntryRow(e.component, e.entry, e.count, pay, e.hits,
                             Figure.of(Fraction(e.hits, cycle)), Figure.of(Fraction(e.credits, cycle * bet))))
    return tuple(rows)


def _figure(x: Fraction | float, method: Method) -> Figure:
    return Figure.of(x, method) if isinstance(x, Fraction) else Figure(float(x), method)


def build_par(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
              parallel: bool = False) -> ParSheet:
    """Build the PAR sheet of ``game`` on reel set ``reels`` (default set when ``None``).

    Features declared by the game (free spins, gamble ...) are analysed by
    :mod:`mathkit.features` and appear as components, sections and in the
    distribution of a whole play.

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> par = build_par(load_game("data/games/classic_3reel.toml"))
    >>> par.rtp.method, sum(c.exact for c in par.components.values()) == par.rtp.exact
    ('exact', True)
    """
    base = spin(game, reels, lines=lines, coins=coins, parallel=parallel)
    components: dict[str, Figure] = {k: Figure.of(v) for k, v in base.components.breakdown().items()}
    sections: tuple[FeatureSection, ...] = ()
    play = base.win_distribution
    if game.free_spins is not None or game.gamble is not None or game.cap is not None:
        from .features import analyse_features

        feat = analyse_features(game, base)
        components.update(feat.components)
        sections = feat.sections
        play = feat.play
    method: Method = "exact" if all(f.method == "exact" for f in components.values()) else "markov"
    total: Fraction | float
    if all(f.exact is not None for f in components.values()):
        total = sum((f.exact for f in components.values() if f.exact is not None), Fraction(0))
    else:
        total = math.fsum(f.value for f in components.values())
    sd = play.sd_per_bet()
    pmeth: Method = play.method
    cap_p = None
    if game.cap is not None:
        cap_p = _figure(play.sf(game.cap * base.total_bet), pmeth)
    return ParSheet(
        game=game,
        reels=base.reels,
        lines=base.lines,
        coins=base.coins,
        total_bet=base.total_bet,
        cycle=base.cycle,
        symbol_counts=symbol_counts(game),
        entries=_entry_rows(base, game),
        components=components,
        rtp=_figure(total, method),
        hit_frequency=_figure(play.hit_frequency(), pmeth),
        hit_frequency_bet=_figure(play.sf(base.total_bet), pmeth),
        sd=Figure(sd, pmeth),
        volatility_index={k: Figure(z * sd, pmeth) for k, z in Z.items()},
        rtp_range={k: tuple((n, float(total) - z * sd / math.sqrt(n), float(total) + z * sd / math.sqrt(n))
                            for n in RANGE_SPINS) for k, z in Z.items()},
        max_win=Figure(play.max_win / base.total_bet, pmeth,
                       Fraction(play.max_win, base.total_bet) if pmeth == "exact" else None),
        max_win_probability=_figure(play.p_max(), pmeth),
        tails={m: _figure(play.sf_bet(m), pmeth) for m in TAILS},
        distribution=play,
        base=base,
        features=sections,
        cap_probability=cap_p,
    )
