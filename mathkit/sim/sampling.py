"""The PAR sheet's sampler, as the command lines give it: ``--sample-rounds`` and ``--seed`` bound to a game.

``mathkit par`` and ``mathkit export --xlsx`` hand it to :func:`mathkit.report.par.build_sheet`, which
calls it with the routes its exact analysis leaves out (a sheet needing none never calls it).
Importing this module loads nothing of the simulator (not even the :mod:`mathkit.sim` package: a one-shot
``mathkit par`` of a game with nothing to sample never loads it): the sampler imports
:mod:`mathkit.sim.routes` on its first call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..laws.mixture import RouteSample
    from ..model.game import Game

__all__ = ["RouteSampler", "route_sampler"]


def route_sampler(game: Game, rounds: int | None, seed: int | None, *, reels: str | None = None,
                  lines: int | None = None, coins: int | None = None,
                  ) -> Callable[[Sequence[str]], Mapping[str, RouteSample]] | None:
    """:func:`~mathkit.sim.routes.sample_routes` of ``game`` with its settings bound (``None``: ``rounds`` is 0).

    ``rounds`` and ``seed`` default (``None``) to :data:`~mathkit.laws.mixture.DEFAULT_ROUNDS` and
    :data:`~mathkit.laws.mixture.DEFAULT_SEED`, so a sheet is the same every run.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> route_sampler(load_game("data/games/dynasty.toml"), 0, None) is None
    True
    """
    if rounds == 0:
        return None
    from ..laws.mixture import DEFAULT_ROUNDS, DEFAULT_SEED

    n = DEFAULT_ROUNDS if rounds is None else rounds
    s = DEFAULT_SEED if seed is None else seed
    return RouteSampler(game, n, s, reels, lines, coins)


@dataclass(frozen=True, eq=False)
class RouteSampler:
    """:func:`~mathkit.sim.routes.sample_routes` of ``game`` with its settings bound; ``rounds`` and ``seed`` are
    read by samplers of their own (the PAR sheet's importance sampling of a rare route draws ``rounds // 4``)."""

    game: Game
    rounds: int
    seed: int
    reels: str | None = None
    lines: int | None = None
    coins: int | None = None

    def __call__(self, routes: Sequence[str]) -> Mapping[str, RouteSample]:
        from .routes import sample_routes  # only a sheet with parts to sample loads the simulator

        return sample_routes(self.game, routes, self.rounds, seed=self.seed, reels=self.reels, lines=self.lines,
                             coins=self.coins)
