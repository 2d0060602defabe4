"""The PAR sheet's figures of the lines played: the hit frequency per line, and the lines at each window height.

The hit frequency per line (:data:`HIT_FREQUENCY_PER_LINE`) is ``E[lines paid] / E[lines played]`` of
one base spin.  A plain base spin gives it from its per-combination hits (:func:`line_hit_frequency`:
``line hits / (cycle × lines)``, no enumeration).  A base spin the game's modifiers change — a window
height drawn per spin with its own lines, random overlay wilds — is a mixture of spins, and
:func:`modified_line_hit_frequency` runs that mixture exactly on :func:`~mathkit.model.edits.line_hits_game`
(a game whose line win is the number of paying lines): ``Σ_v P(v)·E[lines paid | v] / Σ_v P(v)·lines(v)``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from ..exact.base import SpinMaths
from ..features.base import Context, modified
from ..laws.provenance import Figure
from ..laws.stage import Overlay, Spin, SpinModel
from ..model.edits import line_hits_game
from ..round.engine import Engine

__all__ = ["HIT_FREQUENCY_PER_LINE", "line_hit_frequency", "lines_by_height", "modified_line_hit_frequency"]

HIT_FREQUENCY_PER_LINE = ("hit frequency per line: line hits summed over every pay combination and every line played "
                          "/ (cycle × lines played) of the base spin — P(one line pays), as older PAR sheets print it; "
                          "under the base spin's modifiers (a height drawn per spin, overlay wilds) E[lines paid] / "
                          "E[lines played] over their exact mixture")
"""The definition printed beside the per-line hit frequency (for one line: line hits summed over entries / cycle)."""


def line_hit_frequency(base: SpinMaths) -> Figure | None:
    """:data:`HIT_FREQUENCY_PER_LINE` of a plain base spin: its line hits over ``cycle × lines`` (``None`` for ways).

    The line hits are the components' line rows (each counts (outcome, line) pairs where the
    combination is paid), so the figure is exact without enumerating the cycle.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> e = Engine(load_game("data/games/classic_3reel.toml"))
    >>> line_hit_frequency(e.spin_maths(e.base_model())).method
    'exact'
    """
    n_lines = int(base.tables.lines.shape[0])
    if base.tables.ways or n_lines == 0:
        return None
    hits = sum(e.hits for e in base.components.entries if e.component == "lines")
    return Figure.of(Fraction(hits, base.components.cycle * n_lines))


def _lines_of(ctx: Context, spin: Spin) -> int:
    model = spin.model if isinstance(spin, Overlay) else spin
    return ctx.lines if model.lines is None else model.lines


def _lines_only(spin: Spin) -> Spin:
    """``spin`` paying its line wins alone, unmultiplied (a modifier's extra wins and factors taken off)."""
    model = spin.model if isinstance(spin, Overlay) else spin
    plain: SpinModel = replace(model, extra=(), products=(), line_multiplier=1, scatter_multiplier=1)
    return replace(spin, model=plain) if isinstance(spin, Overlay) else plain


def modified_line_hit_frequency(engine: Engine) -> Figure | None:
    """:data:`HIT_FREQUENCY_PER_LINE` of the base spin under the game's modifiers, exact (``None`` for ways).

    Each spin ``v`` the modifiers make of the base spin (:func:`~mathkit.features.base.modified`: every
    height with its lines, every overlay type with its placements), with probability ``P(v)``, is
    priced on :func:`~mathkit.model.edits.line_hits_game`, where a spin's mean line win in credits is
    its expected number of paying lines; the lines it plays are its active lines.  The figure is
    ``Σ P(v)·E[lines paid | v] / Σ P(v)·lines(v)``, exact in Fractions, with no enumeration (the same
    per-reel walks and forced-cell line tables as the RTP).  Without modifiers it is
    :func:`line_hit_frequency`.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> e = Engine(load_game("data/games/classic_3reel.toml"))
    >>> modified_line_hit_frequency(e) == line_hit_frequency(e.spin_maths(e.base_model()))
    True
    """
    if engine.game.pay_mode != "lines":
        return None
    hits = Engine(line_hits_game(engine.game), engine.reels, lines=engine.lines, coins=engine.coins)
    paid = played = Fraction(0)
    for p, spin, _ in modified(hits, hits.base_model()):
        paid += p * hits.means(_lines_only(spin)).get("lines", Fraction(0))
        played += p * _lines_of(hits, spin)
    return Figure.of(paid / played) if played else None


def lines_by_height(ctx: Context) -> tuple[tuple[int, int], ...]:
    """``(height, lines played)`` of every window height the game's modifiers draw for a base spin, lowest first.

    Empty when no modifier sets the height (the reel set's own window, the lines played).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> lines_by_height(Engine(load_game("data/games/heights_3to7.toml")))
    ((3, 30), (4, 40), (5, 50), (6, 60), (7, 70))
    """
    out = {spin.rows: _lines_of(ctx, spin) for _, spin, _ in modified(ctx, ctx.base_model()) if spin.rows is not None}
    return tuple(sorted(out.items()))
