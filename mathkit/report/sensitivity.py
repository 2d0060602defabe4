"""The exact RTP of a design, and how it moves: ∂RTP/∂(symbol on a reel) and ∂RTP/∂(pay).

Every figure here is an exact :class:`~fractions.Fraction` obtained by
re-running the fast exact path (:func:`mathkit.exact.components.component_rtp`, plus the
free-spin feature when the game declares one) on a modified game: a
sensitivity is a finite difference of one whole unit, so it is exact and needs
no step size.

Semantics
---------
* **One more symbol** ``s`` on reel ``r`` (:func:`symbol_sensitivity`) is
  *add-one-stop*: the strip gets one extra stop showing ``s`` (it grows by one,
  the other stops keep their order).  The stop is inserted in the middle of the
  longest run of stops without a scatter (appended at the end when the strip has
  no scatter), so it never moves two scatters closer together.  On a weighted
  (virtual-stop) reel it is one more unit of weight on the first stop showing
  ``s``, or a new stop of weight 1 placed as above when ``s`` is not on the reel.
  A symbol that may not appear on a reel (a wild limited to reels 2–4) has no
  value there (``None``).  On unweighted strips the line RTP is linear in each
  reel's symbol counts, so replacing one stop ``s`` by ``t`` changes it by
  exactly ``(L + 1) / L · (Δ_t − Δ_s)`` (``L`` the strip length): the tuner's
  model.
  A game whose RTP is not exact (a feature's chain solved in floating point: Prince of
  Riches' free games) gets the same one-stop differences in floating point, tagged
  ``markov`` (:attr:`SymbolSensitivity.method`): still a whole-unit difference, no step size.
* **One more credit** on a pay entry (:func:`pay_sensitivity`): the pay of
  ``count`` × ``entry`` goes up by one credit per coin (a per-coin list gets
  ``coins[i]`` more at option ``i``); a scatter pay goes up by one unit (a total bet, or a line bet).
  The exact difference can differ from the marginal figure ``hits × multiplier /
  (cycle × bet)`` only when the extra credit changes which combination a line
  pays (ties and "highest win only"); both are returned.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> g = load_game("data/games/classic_3reel.toml")
>>> s = symbol_sensitivity(g)
>>> s.delta[0][s.symbols.index("CHERRY")] > 0 > s.delta[0][s.symbols.index("BLANK")]
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..errors import GameError, LimitError, ModelError
from ..exact.base import spin
from ..exact.components import component_rtp
from ..laws.provenance import Method
from ..model.edits import PayCell, add_one_stop, allowed_on, bump_pay, pay_cells, pay_values, play_reels
from ..model.game import Game
from ..round import rtp_breakdown as round_breakdown
from .par import build_par

__all__ = [
    "PaySensitivity",
    "PlayFigures",
    "SymbolSensitivity",
    "base_figures",
    "exact_rtp",
    "float_rtp",
    "pay_sensitivity",
    "play_figures",
    "rtp_breakdown",
    "sensitivity_text",
    "symbol_sensitivity",
]

FloatArray = npt.NDArray[np.float64]


# --------------------------------------------------------------------------- the exact RTP of a design
def rtp_breakdown(game: Game, reels: str | None = None) -> dict[str, Fraction]:
    """Exact RTP by component of a whole play from reel set ``reels`` (default bet, mean only).

    The round is composed from the game's blocks at the mean level
    (:func:`mathkit.round.rtp_breakdown`); the gamble is left out, as on the PAR
    sheet.  A component that is not a Fraction (a cap whose effect needs the
    win distribution) is refused: the figures here are exact or nothing.
    """
    parts = round_breakdown(game, reels)
    inexact = [k for k, v in parts.items() if not isinstance(v, Fraction)]
    if inexact:
        msg = f"{game.name}: {', '.join(inexact)} is not exact (it needs the win distribution)"
        raise ModelError(msg)
    return {k: Fraction(v) for k, v in parts.items()}


def exact_rtp(game: Game, reels: str | None = None) -> Fraction:
    """Exact RTP of a whole play (base spin and free spins) at the default bet, without enumeration.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.exact import rtp
    >>> g = load_game("data/games/benchmark_5x3.toml")
    >>> exact_rtp(g) == rtp(g)
    True
    """
    parts = rtp_breakdown(game, reels)
    if "total" in parts:
        return parts["total"]
    return sum(parts.values(), Fraction(0))


@dataclass(frozen=True)
class PlayFigures:
    """RTP, σ per total bet and hit frequency of a game, and what they cover.

    ``scope`` is ``"base spin"`` (exact cycle enumeration of one base spin; the
    RTP still includes features) or ``"whole play"`` (the PAR sheet's figures
    with features).
    """

    rtp: Fraction
    sd: float
    hit_frequency: float
    scope: str


def base_figures(game: Game, reels: str | None = None) -> PlayFigures:
    """Exact σ and hit frequency of one base spin (cycle enumeration), with the whole-play RTP."""
    d = spin(game, reels).win_distribution
    return PlayFigures(exact_rtp(game, reels), d.sd_per_bet(), float(d.hit_frequency()), "base spin")


def play_figures(game: Game, reels: str | None = None) -> PlayFigures:
    """The PAR sheet's RTP, σ and hit frequency (whole play with features when the feature model exists)."""
    if not game.features:
        return base_figures(game, reels)
    par = build_par(game, reels)
    total = par.rtp.exact if par.rtp.exact is not None else exact_rtp(game, reels)
    return PlayFigures(total, par.sd.value, par.hit_frequency.value, "whole play")


# --------------------------------------------------------------------------- one more symbol
@dataclass(frozen=True)
class SymbolSensitivity:
    """∂RTP/∂(one more symbol on a reel) as a reels × symbols table, exact where the RTP is.

    ``delta[r][k]`` is the change of the RTP when reel ``r + 1`` of reel
    set ``reels`` gets one more ``symbols[k]`` (``None`` where the symbol may
    not appear): a Fraction when ``method`` is ``"exact"``, a float difference of
    two RTPs solved in floating point when it is ``"markov"``.  :meth:`heatmap` gives
    the arrays a plot needs.
    """

    reels: str
    symbols: tuple[str, ...]
    rtp: Fraction | float
    delta: tuple[tuple[Fraction | float | None, ...], ...]
    method: Method = "exact"
    undefined: tuple[tuple[int, str, str], ...] = ()
    """``(reel, symbol, why)`` of the cells left ``None`` because one more stop gives a game the rules do not
    cover (Warlords: a fourth scatter type in view, with no battle odds for it)."""

    def as_array(self) -> FloatArray:
        """The table as floats, in RTP units (``nan`` where not allowed)."""
        return np.array([[np.nan if d is None else float(d) for d in row] for row in self.delta], dtype=np.float64)

    def heatmap(self) -> dict[str, object]:
        """Heatmap data (JSON-ready): ``z`` in percentage points (``None`` where not allowed, a gap in a plot),
        ``x`` symbols, ``y`` reels, ``text`` the exact fractions."""
        return {
            "z": [[None if d is None else 100 * float(d) for d in row] for row in self.delta],
            "x": list(self.symbols),
            "y": [f"reel {r + 1}" for r in range(len(self.delta))],
            "text": [["" if d is None else f"{d.numerator}/{d.denominator}" if isinstance(d, Fraction) else f"{d:.6g}"
                      for d in row] for row in self.delta],
            "title": f"ΔRTP (pp) for one more symbol on a reel — reel set {self.reels}",
        }

    def plot_args(self) -> tuple[list[str], list[str], list[list[Fraction | float]]]:
        """``(symbols, reels, values)`` with ``values[symbol][reel]`` (``nan`` where not allowed), the argument
        order of :func:`mathkit.plots.sensitivity_heatmap`."""
        values: list[list[Fraction | float]] = [
            [math.nan if row[k] is None else row[k] or Fraction(0) for row in self.delta]
            for k in range(len(self.symbols))
        ]
        return list(self.symbols), [f"reel {r + 1}" for r in range(len(self.delta))], values

    def rows(self) -> list[dict[str, object]]:
        """One row per (reel, symbol): ``reel`` (from 1), ``symbol``, ``delta`` (Fraction), ``delta_pp`` (float)."""
        return [
            {"reel": r + 1, "symbol": s, "delta": d, "delta_pp": None if d is None else 100 * float(d)}
            for r, row in enumerate(self.delta) for s, d in zip(self.symbols, row, strict=True)
        ]


def symbol_sensitivity(game: Game, reels: str | None = None) -> SymbolSensitivity:
    """Exact ∂RTP/∂(one more symbol ``s`` on reel ``r``) for every reel and symbol of reel set ``reels``.

    The RTP is that of a whole play (:func:`exact_rtp`) from :func:`play_reels`.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/benchmark_5x3.toml")
    >>> s = symbol_sensitivity(g)
    >>> s.delta[0][s.symbols.index("WILD")] is None and s.delta[1][s.symbols.index("WILD")] > 0
    True
    """
    name = game.reel_set(reels).name
    base = play_reels(game, name)
    rtp: Callable[[Game, str], Fraction | float] = exact_rtp
    method: Method = "exact"
    try:
        rtp0: Fraction | float = exact_rtp(game, base)
    except ModelError:  # a part solved in floating point: the same differences, in floats
        rtp, method = float_rtp, "markov"
        rtp0 = float_rtp(game, base)
    rows = []
    undefined: list[tuple[int, str, str]] = []
    for r in range(game.reel_set(name).n_reels):
        row: list[Fraction | float | None] = []
        for s in game.symbol_names:
            if not allowed_on(game, s, r):
                row.append(None)
                continue
            try:
                row.append(rtp(add_one_stop(game, name, r, s), base) - rtp0)
            except (GameError, ModelError) as exc:  # the edited game is outside the rules: no value, and why
                if isinstance(exc, LimitError):
                    raise
                row.append(None)
                undefined.append((r, s, exc.message))
        rows.append(tuple(row))
    return SymbolSensitivity(name, game.symbol_names, rtp0, tuple(rows), method, tuple(undefined))


def float_rtp(game: Game, reels: str | None = None) -> float:
    """The RTP of a whole play in floating point (every chain solved in floats), for a game whose RTP is not exact."""
    parts = round_breakdown(game, reels, precision="float")
    if "total" in parts:
        return float(parts["total"])
    return math.fsum(float(v) for v in parts.values())


# --------------------------------------------------------------------------- one more credit
@dataclass(frozen=True)
class PaySensitivity:
    """∂RTP/∂(one more credit per coin) of one pay.

    ``delta`` is the exact finite difference (whole play); ``marginal`` is
    ``hits × multiplier / (cycle × bet)`` per credit per coin from the base
    spin's combination hits (``None`` for a zero pay, which records no hits).
    """

    cell: PayCell
    pay: tuple[int, ...]
    hits: int
    delta: Fraction
    marginal: Fraction | None


def pay_sensitivity(game: Game, reels: str | None = None) -> tuple[PaySensitivity, ...]:
    """Exact ∂RTP/∂(pay) for every declared pay of the game, at the default bet.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> rows = pay_sensitivity(load_game("data/games/benchmark_5x3.toml"))
    >>> all(r.delta == r.marginal for r in rows if r.cell.entry == "H1")
    True
    """
    base = play_reels(game, reels)
    rtp0 = exact_rtp(game, base)
    comp = component_rtp(game, base)
    coins = game.bet.coins[0]
    per_cell: dict[tuple[str, str, int], tuple[int, int]] = {}
    for e in comp.entries:
        kind = "scatter" if e.component == "scatter" else "lines"
        per_cell[(kind, e.entry, e.count)] = (e.hits, e.credits)
    out = []
    for cell in pay_cells(game):
        values = pay_values(game, cell)
        hits, credits = per_cell.get((cell.kind, cell.entry, cell.count), (0, 0))
        marginal: Fraction | None = None
        if cell.kind == "scatter":  # one more unit: the total bet, or the line bet (scatter_unit)
            marginal = Fraction(hits * game.scatter_credits(coins=coins), comp.cycle * comp.total_bet)
        elif values[0] > 0 and credits:
            pay_now = values[0] * coins if len(values) == 1 else values[0]
            marginal = Fraction(credits * coins, pay_now * comp.cycle * comp.total_bet)
        delta = exact_rtp(bump_pay(game, cell, 1), base) - rtp0
        out.append(PaySensitivity(cell, values, hits, delta, marginal))
    return tuple(out)


def sensitivity_text(sym: SymbolSensitivity, pays: Sequence[PaySensitivity] = ()) -> str:
    """The two tables as text: ΔRTP in pp per (reel, symbol), then per pay (exact and marginal)."""
    w = [f"ΔRTP (percentage points) for one more symbol on a reel — reel set {sym.reels}, "
         f"RTP {100 * float(sym.rtp):.6f}% (add-one-stop) [{sym.method}]"]
    w.append(f"  {'symbol':<12}" + "".join(f"{f'reel {r + 1}':>12}" for r in range(len(sym.delta))))
    for k, name in enumerate(sym.symbols):
        cells = [sym.delta[r][k] for r in range(len(sym.delta))]
        w.append(f"  {name:<12}" + "".join(f"{'—':>12}" if d is None else f"{100 * float(d):>+12.5f}" for d in cells))
    if pays:
        w.append("")
        w.append("ΔRTP (percentage points) for one more credit per coin on a pay")
        w.append(f"  {'pay':<28} {'now':>10} {'hits':>14} {'exact Δ':>12} {'marginal':>12}")
        for p in pays:
            now = str(p.pay[0]) if len(p.pay) == 1 else "/".join(map(str, p.pay))
            marg = "—" if p.marginal is None else f"{100 * float(p.marginal):+.6f}"
            w.append(f"  {p.cell.label():<28} {now:>10} {p.hits:>14,} {100 * float(p.delta):>+12.6f} {marg:>12}")
    return "\n".join(w) + "\n"
