"""The exact RTP with free spins from per-reel algebra only (no enumeration): the fast mean path.

:func:`rtp_with_features` adds ``E[spins awarded] · E[N per spin awarded] ·
E[free-spin win] / bet`` to the base components; with a spin limit the expected
length comes from :func:`expected_spins_limited`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ..game import Game
from ..markov import geometric_check
from ..rtp import component_rtp, scatter_count_weights
from ..tables import reel_arrays
from .laws import retrigger_rule

__all__ = ["expected_spins_limited", "rtp_with_features"]


def expected_spins_limited(p: Mapping[int, Fraction], n: int, limit: int) -> Fraction:
    """``E[N]`` from ``n`` spins when at most ``limit`` spins are awarded in all (exact, by recursion).

    ``p`` maps spins added by one spin to its probability.

    Examples
    --------
    >>> expected_spins_limited({0: Fraction(1, 2), 5: Fraction(1, 2)}, 1, 6)  # 1 + 1/2·5
    Fraction(7, 2)
    """
    n = min(n, limit)
    memo: dict[tuple[int, int], Fraction] = {}
    # f(left, awarded) = 1 + Σ_a p_a f(left - 1 + a', awarded + a'), a' = min(a, limit - awarded).
    for awarded in range(limit, n - 1, -1):
        for left in range(1, awarded + 1):
            val = Fraction(1)
            for a, pa in p.items():
                a2 = min(a, limit - awarded)
                nxt = (left - 1 + a2, awarded + a2)
                if nxt[0] > 0:
                    val += pa * memo[nxt]
            memo[left, awarded] = val
    return memo[n, n]


def rtp_with_features(game: Game, reels: str | None = None, *, lines: int | None = None,
                      coins: int | None = None) -> dict[str, Fraction]:
    """Exact RTP by component, free spins included, from per-reel algebra only (no enumeration).

    The base components come from :func:`~mathkit.rtp.component_rtp`; the free
    spins add ``E[spins awarded] · E[N per spin awarded] · E[free-spin win] / bet``,
    with the trigger and retrigger laws from the scatter-count convolution over
    reels and the free-spin win from ``component_rtp`` on the free-spin reels (Wald:
    the total win of a feature is its expected length times one spin's mean win).

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> parts = rtp_with_features(load_game("data/games/dynasty.toml"))
    >>> sorted(parts)
    ['free spins', 'lines', 'scatter']
    """
    base = component_rtp(game, reels, lines=lines, coins=coins)
    out = base.breakdown()
    fs = game.free_spins
    if fs is None:
        return out
    sid = game.symbol_names.index(fs.trigger)
    award = scatter_count_weights(reel_arrays(game, reels), sid)
    free = component_rtp(game, fs.reels, lines=lines, coins=coins)
    retrig = scatter_count_weights(reel_arrays(game, fs.reels), sid)
    scat = free.credits("scatter")
    per_spin = Fraction(fs.multiplier * (free.credits() - scat)
                        + (fs.multiplier if fs.multiply_scatter else 1) * scat, free.cycle)
    p: dict[int, Fraction] = {}
    for c, w in enumerate(retrig):
        if w:
            p[fs.retrigger(c)] = p.get(fs.retrigger(c), Fraction(0)) + Fraction(w, free.cycle)
    spins = Fraction(0)
    if fs.max_spins is None:
        m = sum((a * q for a, q in p.items()), Fraction(0))
        factor = geometric_check(m, retrigger_rule(fs, 1 - p.get(0, Fraction(0))))
        spins = sum((Fraction(w, base.cycle) * fs.award(c) for c, w in enumerate(award)), Fraction(0)) * factor
    else:
        for c, w in enumerate(award):
            n = min(fs.award(c), fs.max_spins)
            if w and n:
                spins += Fraction(w, base.cycle) * expected_spins_limited(p, n, fs.max_spins)
    out["free spins"] = spins * per_spin / base.total_bet
    return out
