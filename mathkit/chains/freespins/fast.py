"""The expected length of a feature with a limit on the spins it may award, exactly.

Without a limit the expected length from ``n`` spins is ``n / (1 − m)`` (Wald);
with one, :func:`expected_spins_limited` solves the small acyclic recursion.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ...model.bounds import check_cost

__all__ = ["expected_spins_limited"]


def expected_spins_limited(p: Mapping[int, Fraction], n: int, limit: int) -> Fraction:
    """``E[N]`` from ``n`` spins when at most ``limit`` spins are awarded in all (exact, by recursion).

    ``p`` maps spins added by one spin to its probability.

    Examples
    --------
    >>> expected_spins_limited({0: Fraction(1, 2), 5: Fraction(1, 2)}, 1, 6)  # 1 + 1/2·5
    Fraction(7, 2)
    """
    n = min(n, limit)
    # one state per (spins left, spins awarded): about limit²/2 exact Fractions
    check_cost(f"the expected length of a feature limited to {limit:,} spins",
               states=(limit - n + 1) * (limit + n) // 2, field="max_spins",
               fix="lower max_spins (a limit this far above the typical length changes the RTP little)")
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
