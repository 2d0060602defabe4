"""A naive pure-Python full-cycle evaluator: the baseline the compiled engine is measured against.

It visits stop combinations one by one and evaluates every line with plain
loops, exactly as a first implementation would.  Only a random sample of the
cycle is timed; the full-cycle time is extrapolated.
"""

from __future__ import annotations

import time

import numpy as np

from mathkit.model.game import Game


def _line_win(game: Game, symbols: list[str]) -> int:
    best = 0
    for entry in game.line_pays:
        n = 0
        mult = 1
        for s in symbols:
            sym = game.symbol(s)
            if s in entry.symbols or (sym.is_wild and set(entry.symbols) & set(sym.substitutes)):
                n += 1
                if sym.is_wild:
                    mult *= sym.multiplier
            else:
                break
        best = max(best, entry.pay(n) * mult)
    return best


def spin_win(game: Game, stops: list[int]) -> int:
    rs = game.reel_set()
    window = rs.window(stops)
    total = sum(_line_win(game, [window[r][row] for r, row in enumerate(line)])
                for line in game.paylines[: game.bet.lines])
    for sp in game.scatter_pays:
        count = sum(col.count(sp.symbol) for col in window)
        total += sp.pay(count) * game.total_bet()
    return total


def seconds_per_stop(game: Game, sample: int = 3000, seed: int = 1) -> float:
    """Mean time of one stop combination, measured on a random sample."""
    rng = np.random.default_rng(seed)
    rs = game.reel_set()
    stops = [rng.integers(0, len(s), sample).tolist() for s in rs.strips]
    t0 = time.perf_counter()
    for i in range(sample):
        spin_win(game, [stops[r][i] for r in range(rs.n_reels)])
    return (time.perf_counter() - t0) / sample
