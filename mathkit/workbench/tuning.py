"""The workbench's one call into the tuner: a proposed game for a target, and what it changes.

The tuner (:mod:`mathkit.tuner`) is called here and nowhere else in the
workbench, so a new tuner needs a change in this module only.  A proposal is
shown as a diff (:func:`mathkit.export.diff.diff_games`) and applied by the
designer, as one undoable edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..export.diff import Change, diff_games
from ..model.game import Game
from ..tuner import tune

__all__ = ["Proposal", "propose"]


@dataclass(frozen=True)
class Proposal:
    """A tuned game proposed for ``target``: its exact RTP, whether the target was reached, the changes."""

    base: Game
    game: Game
    target: Fraction
    rtp: Fraction
    reached: bool
    changes: tuple[Change, ...]
    notes: tuple[str, ...]
    seconds: float


def propose(game: Game, reels: str, target: Fraction, vary: str = "strips") -> Proposal:
    """Ask the tuner for ``game`` with its exact RTP at ``target`` (changing ``vary`` on reel set ``reels``).

    The tuner keeps the game's ``[targets]`` σ and hit-frequency bands and its ``[tuning]`` constraints.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> p = propose(load_game("data/games/classic_3reel.toml"), "base", Fraction("0.85"))
    >>> p.reached, abs(p.rtp - Fraction("0.85")) <= Fraction(5, 100_000), bool(p.changes)
    (True, True, True)
    """
    res = tune(game, target, vary=vary, reels=reels)
    changes = diff_games(game, res.game, figures=False).changes
    return Proposal(game, res.game, res.targets.rtp.value, res.rtp, res.reached, changes, res.notes, res.seconds)
