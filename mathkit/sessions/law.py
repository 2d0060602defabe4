"""What one spin of a session pays: the whole play's win law at one bet, and the gamble strategy on it.

A session spin is a whole play — the base spin and every feature it leads to, the
cap applied — so its law is the round composer's (:func:`mathkit.round.analyse`,
``outcome.dist``), or the PAR sheet's distribution, which is the same law.  A
gamble strategy then plays each paid win: with ``k`` gambles at probability ``p``
each (:func:`mathkit.features.gamble.ladder_arrays`), a win ``v`` becomes ``v·Mᵏ`` with
probability ``pᵏ`` and 0 otherwise.

Amounts on the command line and in the API are credits (``2500``) or multiples of the
total bet (``"100x"``): :func:`credits` reads both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..chains.ladder import Always, Never, Strategy, UntilTarget
from ..errors import ModelError
from ..features.gamble import Gamble, ladder_arrays
from ..laws.law import merge
from ..laws.provenance import Method, weakest
from ..model.amounts import AMOUNT, credits
from ..model.game import Game
from ..report.par import ParSheet
from ..round import analyse

__all__ = ["AMOUNT", "SessionPlay", "credits", "from_par", "gamble_options", "play_law", "strategy", "with_strategy"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
@dataclass(frozen=True, eq=False)
class SessionPlay:
    """The law of what one session spin pays (credits), at one bet, under one gamble strategy."""

    game: str
    reels: str
    bet: int
    values: IntArray
    probs: FloatArray
    lost_mass: float
    method: Method
    strategy: str = "never gamble"

    @property
    def rtp(self) -> float:
        """E[W] / bet of this law (the gamble strategy included)."""
        return math.fsum((self.values * self.probs).tolist()) / self.bet


def strategy(game: Game, option: str | None, target: int | None = None) -> Strategy:
    """The gamble strategy "gamble every win on ``option``" (until ``target`` credits), or never."""
    if option is None:
        return Never()
    gamble = _gamble(game)
    names = [o.name for o in gamble.options]
    if option not in names:
        msg = f"no gamble option {option!r} in {game.name}: choose one of {', '.join(names)}"
        raise ModelError(msg)
    return Always(option) if target is None else UntilTarget(option, target)


def gamble_options(game: Game) -> tuple[str, ...]:
    """The names of the game's gamble options (none when it offers no gamble)."""
    return tuple(o.name for f in game.features if isinstance(f, Gamble) for o in f.options)


def _gamble(game: Game) -> Gamble:
    found = [f for f in game.features if isinstance(f, Gamble)]
    if not found:
        msg = f"{game.name} offers no gamble"
        raise ModelError(msg)
    return found[0]


def _gambled(game: Game, values: IntArray, probs: FloatArray, plan: Strategy) -> tuple[IntArray, FloatArray]:
    if isinstance(plan, Never):
        return values, probs
    up, k, p = ladder_arrays(_gamble(game), plan, values)
    win = float(p) ** k.astype(np.float64)
    allv = np.concatenate([up, np.zeros(len(values), dtype=np.int64)])
    allp = np.concatenate([probs * win, probs * (1.0 - win)])
    uniq, out, _ = merge(allv, allp)
    keep = out > 0
    return uniq[keep], out[keep]


def _play(game: Game, reels: str, bet: int, values: IntArray, probs: FloatArray, lost: float, method: Method,
          plan: Strategy) -> SessionPlay:
    v, p = _gambled(game, values.astype(np.int64), probs.astype(np.float64), plan)
    name = "never gamble" if isinstance(plan, Never) else f"gamble: {plan.name}"
    return SessionPlay(game.name, reels, bet, v, p, lost, method if isinstance(plan, Never) else weakest(method, "markov"),
                       name)


def play_law(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
             gamble: Strategy | None = None, parallel: bool = False) -> SessionPlay:
    """The law of one session spin of ``game``: the whole play (cap applied), then the gamble strategy.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> play = play_law(load_game("data/games/classic_3reel.toml"))
    >>> play.bet, round(play.rtp, 6), play.method
    (1, 0.862831, 'exact')
    """
    a = analyse(game, reels, lines=lines, coins=coins, level="distribution", parallel=parallel)
    d = a.outcome.dist
    assert d is not None
    if a.outcome.uncovered:  # a sub-distribution: the session would miss those rounds
        msg = (f"{game.name}: the exact engine leaves parts of the round to the simulator "
               f"({', '.join(u.route for u in a.outcome.uncovered)}), so a session's law is not computed exactly")
        raise ModelError(msg)
    method: Method = "exact" if d.counts is not None else "markov"  # a float law came from convolutions
    return _play(game, a.engine.reels, a.total_bet, d.values, d.probs, d.lost_mass, method, gamble or Never())


def with_strategy(game: Game, play: SessionPlay, gamble: Strategy) -> SessionPlay:
    """``play`` (a law without the gamble) with each win gambled by ``gamble``: no second analysis."""
    if play.strategy != "never gamble":
        msg = f"the law is already played with '{play.strategy}'"
        raise ModelError(msg)
    return _play(game, play.reels, play.bet, play.values, play.probs, play.lost_mass, play.method, gamble)


def from_par(par: ParSheet, gamble: Strategy | None = None) -> SessionPlay:
    """The same law read from a PAR sheet's whole-play distribution (no second analysis)."""
    d = par.distribution
    return _play(par.game, par.reels, par.total_bet, d.values, d.probs, d.lost_mass, d.method, gamble or Never())
