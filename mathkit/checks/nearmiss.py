"""The near-miss check: no reel weights its stops so that a prize symbol lands just off the window more often.

For one reel (a circular strip of ``n`` stops, stop ``i`` showing cells ``i … i + h − 1``
of an ``h``-row window) and one symbol ``S``:

* a stop shows ``S`` **inside** when one of its ``h`` cells is ``S``;
* it shows ``S`` **just outside** (a near miss) when none of its cells is ``S`` but the
  cell just above (``i − 1``) or just below (``i + h``) the window is.

With stop weights ``w`` (virtual stops), ``W_in`` and ``W_near`` are the weights of the
two sets of stops, and ``N_in``, ``N_near`` their sizes (the same strip unweighted).
The **near-miss factor** is

    F = (W_near / W_in) / (N_near / N_in),

how much more often the weighting puts ``S`` just off the window, relative to the
window, than the strip itself does: exactly 1 on an unweighted strip, above 1 when the
stops around ``S`` are made heavier than the stops showing it.  The check fails when
``F`` exceeds the profile's ``near_miss_limit`` for any reel, reel set, window height
(each height a :class:`~mathkit.features.heights.VariableHeights` block can draw) and
symbol that matters to the player: the top award's symbols, and every scatter, bonus
(cash, activator, jackpot) and feature symbol.  A symbol whose inside weight is 0 but
which shows just outside is an infinite factor (it is only ever seen missing).

Examples
--------
>>> f = near_miss(("J", "A", "B", "C"), (1, 2, 1, 2), 1, "J")   # J on stop 0; stops 1 and 3 show it just outside
>>> (f.inside, f.near, f.inside_stops, f.near_stops, f.factor)
(1, 4, 1, 2, Fraction(2, 1))
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from ..model.game import Game
from .profiles import Check, _Ctx

__all__ = ["NearMiss", "check_near_miss", "near_miss", "near_miss_symbols"]


@dataclass(frozen=True)
class NearMiss:
    """One reel's near-miss figures for one symbol at one window height (see the module).

    ``inside``/``near``: the weights of the stops showing the symbol in the window / just outside it;
    ``inside_stops``/``near_stops``: how many stops do (the strip unweighted).
    """

    symbol: str
    rows: int
    inside: int
    near: int
    inside_stops: int
    near_stops: int

    @property
    def factor(self) -> Fraction | None:
        """``F = (W_near / W_in) / (N_near / N_in)``; ``None`` when the strip has no near stop (``F`` undefined).

        An inside weight of 0 with near stops that weigh something is an infinite factor: it is
        reported as ``Fraction(near, 0)`` would be, by :attr:`infinite`, and ``factor`` is ``None``.
        """
        if self.near_stops == 0 or self.inside == 0:
            return None
        return Fraction(self.near * self.inside_stops, self.inside * self.near_stops)

    @property
    def infinite(self) -> bool:
        """The symbol weighs nothing in the window but something just outside it."""
        return self.inside == 0 and self.near > 0


def near_miss(strip: tuple[str, ...], weights: tuple[int, ...], rows: int, symbol: str) -> NearMiss:
    """The near-miss figures of ``symbol`` on one circular ``strip`` with stop ``weights`` and ``rows`` rows.

    Examples
    --------
    >>> # a 6-stop strip, J on stop 0, 1 row: stops 1 and 5 show J just above / just below the window.
    >>> # weights 1 on J, 5 on its neighbours: W_in = 1, W_near = 10, N_in = 1, N_near = 2, F = (10/1)/(2/1) = 5
    >>> near_miss(("J", "A", "B", "C", "D", "E"), (1, 5, 1, 1, 1, 5), 1, "J").factor
    Fraction(5, 1)
    >>> near_miss(("J", "A", "B", "C", "D", "E"), (1,) * 6, 1, "J").factor   # unweighted: always 1
    Fraction(1, 1)
    """
    n = len(strip)
    cells = [c == symbol for c in strip]
    w_in = w_near = n_in = n_near = 0
    for i in range(n):
        if any(cells[(i + k) % n] for k in range(rows)):
            w_in += weights[i]
            n_in += 1
        elif rows < n and (cells[(i - 1) % n] or cells[(i + rows) % n]):
            w_near += weights[i]
            n_near += 1
    return NearMiss(symbol, rows, w_in, w_near, n_in, n_near)


def near_miss_symbols(game: Game) -> tuple[str, ...]:
    """The symbols the check looks at: the top award's, every scatter and bonus symbol, every feature's symbols.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> near_miss_symbols(load_game("data/games/dynasty.toml"))
    ('DRAGON', 'EMPEROR')
    """
    top = max((v for e in game.line_pays for _, vs in e.pays for v in vs), default=0)
    names = [s for e in game.line_pays if any(v == top for _, vs in e.pays for v in vs) for s in e.symbols]
    names += [s.name for s in game.symbols if s.kind in ("scatter", "bonus") or s.mark]
    for f in game.features:
        names += list(f.symbols())
    known = set(game.symbol_names)
    return tuple(s for s in dict.fromkeys(names) if s in known)


def _heights(game: Game, rows: int) -> tuple[int, ...]:
    """The window heights a reel of ``rows`` rows shows: those a heights block draws (weight > 0), else ``rows``."""
    drawn = sorted({h for f in game.features if hasattr(f, "window_heights") for h in f.window_heights() if h <= rows})
    return tuple(drawn) or (rows,)


def _figures(game: Game) -> Iterator[tuple[str, int, NearMiss]]:
    symbols = near_miss_symbols(game)
    for rs in game.reel_sets:
        for r, strip in enumerate(rs.strips):
            present = [s for s in symbols if s in strip]
            for h in _heights(game, rs.rows[r]):
                for s in present:
                    yield rs.name, r, near_miss(strip, rs.stop_weights(r), h, s)


def check_near_miss(ctx: _Ctx) -> Check:
    """Fails when a reel's weighting shows a prize symbol just off the window more than the strip does (see module)."""
    limit = ctx.profile.near_miss_limit
    worst: tuple[Fraction, str] | None = None
    bad: list[str] = []
    looked = 0
    for rs, r, f in _figures(ctx.game):
        looked += 1
        where = f"{rs} reel {r + 1}, {f.symbol} at {f.rows} rows"
        if f.infinite:
            bad.append(f"{where}: weight 0 in the window but {f.near} just outside")
            continue
        factor = f.factor
        if factor is None:
            continue
        text = (f"{where}: F = ({f.near}/{f.inside}) / ({f.near_stops}/{f.inside_stops}) = {float(factor):.3f}")
        if worst is None or factor > worst[0]:
            worst = (factor, text)
        if factor > limit:
            bad.append(text)
    rule = (f"F = (weight of the stops showing a symbol just outside the window / weight showing it inside) ÷ the "
            f"same ratio on the strip unweighted; {ctx.profile.name} limit {float(limit):g}")
    if bad:
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        return Check("near_miss", False, f"{rule}: " + "; ".join(bad[:3]) + more)
    if worst is None:
        return Check("near_miss", True, f"{rule}: no top-award, scatter, bonus or feature symbol on any reel")
    return Check("near_miss", True, f"{rule}: {looked} reel × height × symbol figures, largest {worst[1]}")
