"""Route-labelled sampling: the conditional law of a whole round's win given how the round went.

A *route* names an event of the round (the keys of :class:`mathkit.laws.stage.Uncovered`):

- ``"variant:<label>"`` — the base spin drew the base variant(s) labelled ``<label>`` (a random overlay
  type: ``"variant:overlay wilds: Priestess Arrow"``).  Sampled by **forcing** the variant: the
  base stream draws among the labelled variants only, by their weights (the other weights set to 0),
  and the round plays on literally.  Given the variant, the rest of the round draws independently of
  that choice, so this is exactly the conditional law, and every played round is a draw.
- ``"feature:<block name>"`` — the round entered that sequence feature (at least once).  Sampled by
  **rejection** on literal rounds: the driver records the features each round entered
  (``P_ROUTES``, bits from :data:`~mathkit.sim.layout.ROUTE_SHIFT` of each recorded win) and the
  rounds that entered it are kept — the conditional law, with no assumption about how it is entered.
- ``"round"`` — every round (the whole round's law, for a sheet with no exact distribution).

The blocks of every pass are played on threads (the compiled driver releases the GIL); each block draws from
its own streams, so the threads change nothing in the counts.

Reproducible: each route draws from its own ``SeedSequence((seed, crc32(route pass)))`` cut into blocks
of :data:`~mathkit.sim.run.BLOCK` rounds with the simulator's streams (:func:`mathkit.sim.cluster.block_streams`),
so the same seed gives the same counts bit for bit, whatever other routes are asked for.  The feature routes
and ``"round"`` share one pass of literal rounds.  Nothing here imports the exact engine.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> game = load_game("data/games/classic_3reel.toml")
>>> s = sample_routes(game, ["round"], 20_000, seed=3)["round"]
>>> s.draws, s.how, sum(s.counts) == s.draws
(80000, 'literal rounds', True)
"""

from __future__ import annotations

import dataclasses
import os
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import ModelError, UsageError
from ..laws.mixture import DEFAULT_ROUNDS, DEFAULT_SEED, RouteSample
from ..model.game import Game
from . import layout as K
from .cluster import block_wins
from .run import BLOCK, _compiled
from .spec import SimSpec

__all__ = ["DEFAULT_ROUNDS", "DEFAULT_SEED", "LITERAL", "sample_routes"]

LITERAL = 4
"""The literal pass's rounds per forced route's: a literal round costs about a third of a forced overlay round
(most rounds are one plain spin), and rejection keeps only the rounds of its route."""
_WIN_MASK = (1 << K.ROUTE_SHIFT) - 1


def _with_routes(spec: SimSpec, labels: str | None = None) -> SimSpec:
    """``spec`` recording each round's features entered; with ``labels``, its base spin forced to those variants."""
    par = spec.par.copy()
    par[K.P_ROUTES] = 1
    program = spec.program
    if labels is not None:
        keep = np.array([lab == labels for lab in spec.variant_labels], dtype=bool)
        weights = np.diff(np.concatenate([[0], program[6]]))
        forced = np.where(keep, weights, 0)
        if forced.sum() == 0:
            known = ", ".join(repr(x) for x in sorted(set(spec.variant_labels)) if x) or "none"
            msg = f"{spec.name}: no base variant is labelled {labels!r} (labelled variants: {known})"
            raise ModelError(msg)
        par[K.P_VTOTAL] = int(forced.sum())
        program = (*program[:6], np.cumsum(forced).astype(np.int64), *program[7:])
    return dataclasses.replace(spec, par=par, program=program)


def _root(seed: int, name: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, zlib.crc32(name.encode())])


def _counts(wins: np.ndarray, tally: dict[int, int]) -> None:
    values, counts = np.unique(wins, return_counts=True)
    for v, c in zip(values.tolist(), counts.tolist(), strict=True):
        tally[v] = tally.get(v, 0) + c


def _play(passes: list[tuple[SimSpec, np.random.SeedSequence, int]], threads: int) -> list[list[np.ndarray]]:
    """Every block of every pass ``(spec, root, rounds)``, on ``threads`` threads (the driver releases the GIL).

    Each block draws from its own streams, so the wins are the same whatever the threads.
    """
    jobs = [(i, spec, root, b, min(BLOCK, rounds - b * BLOCK))
            for i, (spec, root, rounds) in enumerate(passes) for b in range(-(-rounds // BLOCK))]
    out: list[list[np.ndarray]] = [[] for _ in passes]
    if threads <= 1 or len(jobs) <= 1:
        results = [block_wins(spec, root, b, n) for _, spec, root, b, n in jobs]
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(lambda job: block_wins(job[1], job[2], job[3], job[4]), jobs))
    for (i, *_), wins in zip(jobs, results, strict=True):
        out[i].append(wins)
    return out


def _sample(route: str, tally: dict[int, int], played: int, seed: int, how: str) -> RouteSample:
    values = tuple(sorted(tally))
    counts = tuple(tally[v] for v in values)
    return RouteSample(route, values, counts, sum(counts), played, seed, how)


def sample_routes(game: Game, routes: Sequence[str], rounds: int = DEFAULT_ROUNDS, *, seed: int = DEFAULT_SEED,
                  reels: str | None = None, lines: int | None = None, coins: int | None = None,
                  literal_rounds: int | None = None, threads: int | None = None) -> dict[str, RouteSample]:
    """The sampled conditional law of the round's win (credits, the cap applied) for each route of ``routes``.

    One pass of ``rounds`` rounds per variant route (every round a draw); one pass of ``literal_rounds``
    literal rounds (default :data:`LITERAL` × ``rounds``) shared by the feature routes (a round is a draw
    of each feature it entered) and ``"round"``.  ``threads`` (default: the CPUs) play the blocks; the
    result does not depend on them.  A route naming no variant or feature of the game is refused, as is
    a feature route that no round of the pass entered (no law to report).
    """
    if rounds < 1:
        msg = f"sample rounds must be at least 1, not {rounds}"
        raise UsageError(msg)
    n_literal = LITERAL * rounds if literal_rounds is None else literal_rounds
    spec = _compiled(game, reels=reels, lines=lines, coins=coins)
    out: dict[str, RouteSample] = {}
    literal: dict[str, int] = {}
    forced: list[str] = []
    for route in dict.fromkeys(routes):
        kind, _, name = route.partition(":")
        if route == "round":
            literal[route] = -1
        elif kind == "variant" and name:
            forced.append(route)
        elif kind == "feature" and name in spec.sequences:
            literal[route] = spec.sequences.index(name)
        else:
            msg = (f"{game.name}: unknown route {route!r}: give 'round', 'variant:<label>' or 'feature:<name>' "
                   f"(features: {', '.join(spec.sequences) or 'none'})")
            raise ModelError(msg)
    passes = [(_with_routes(spec, r.partition(":")[2]), _root(seed, r), rounds) for r in forced]
    if literal:
        passes.append((_with_routes(spec), _root(seed, "literal rounds"), n_literal))
    played = _play(passes, (os.cpu_count() or 1) if threads is None else threads)
    for route, blocks in zip(forced, played, strict=False):
        tally: dict[int, int] = {}
        for wins in blocks:
            _counts(wins & _WIN_MASK, tally)
        out[route] = _sample(route, tally, rounds, seed, "forced variant")
    if literal:
        tallies: dict[str, dict[int, int]] = {r: {} for r in literal}
        for wins in played[-1]:
            flags = wins >> K.ROUTE_SHIFT
            win = wins & _WIN_MASK
            for route, bit in literal.items():
                _counts(win if bit < 0 else win[(flags >> bit) & 1 == 1], tallies[route])
        for route, bit in literal.items():
            how = "literal rounds" if bit < 0 else "rejection on literal rounds"
            out[route] = _sample(route, tallies[route], n_literal, seed, how)
            if out[route].draws == 0:
                msg = (f"{game.name}: no round of {n_literal:,} entered {route!r}: sample more rounds "
                       "(--sample-rounds) to measure its law")
                raise ModelError(msg)
    return {r: out[r] for r in dict.fromkeys(routes)}
