"""The base spin's own figures, beside the whole play's on the PAR sheet.

A PAR sheet prints σ, the hit frequency and the win distribution twice: of the whole play (the base
spin and every feature it starts, the cap applied) and of the **base spin alone** — the win of the
base spin itself, under the base game's modifiers (overlay wilds, window heights, cash stacks …),
counting nothing a feature it starts pays, before the round's transforms (the cap, the gamble).
:func:`base_spin` reads them from the round analysis' base stage (:attr:`mathkit.round.RoundAnalysis.base`):
its branches by exit (no feature, or the features entered) with their probabilities, conditional
moments and conditional laws, mixed exactly in Fractions.

A figure the analysis cannot give (σ of a sheet analysed to the means; the distribution where a part
of the base spin is left to the simulator) is left out, named in :attr:`BaseSpin.not_computed` with
why and how to get it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..laws.law import WinLaw
from ..laws.provenance import Figure, Method
from ..laws.stage import Number, StageLaw

__all__ = ["BASE_SPIN_DEFINITION", "BaseSpin", "base_spin"]

BASE_SPIN_DEFINITION = ("the base spin alone: the win of the base spin itself (its lines, ways and scatter pays, "
                        "under the base game's modifiers), nothing a feature it starts pays, before the cap and the "
                        "gamble")
"""What the base-spin figures are (printed beside them)."""
TAILS = (10, 100, 1000)
MOMENTS_NEEDED = ("needs the round analysed to its moments: `mathkit par` does so unless a feature block gives its "
                  "means only")
DISTRIBUTION_NEEDED = ("needs the base spin's distribution, which this analysis does not give (a feature block of "
                       "the game gives its means or moments only)")


@dataclass(frozen=True, eq=False)
class BaseSpin:
    """The base spin's own figures (:data:`BASE_SPIN_DEFINITION`), per unit of total bet.

    ``None`` where a figure is left out; :attr:`not_computed` then says why and how to get it.
    ``distribution`` is the base spin's win law (exact integer counts over a common cycle when they
    fit in 64 bits, else exact figures with float probabilities in the law).
    """

    rtp: Figure
    sd: Figure | None = None
    hit_frequency: Figure | None = None
    hit_frequency_bet: Figure | None = None
    max_win: Figure | None = None
    max_win_probability: Figure | None = None
    tails: dict[int, Figure] = field(default_factory=dict)
    distribution: WinLaw | None = None
    not_computed: dict[str, str] = field(default_factory=dict)


def _weakest(methods: set[Method]) -> Method:
    if "sampled" in methods:
        return "sampled"
    return "markov" if "markov" in methods else "exact"


def _mix_exact(parts: list[tuple[Fraction, WinLaw]]) -> dict[int, Fraction]:
    """P(W = v) of the mixture, in Fractions, of exact conditional laws (``p`` each)."""
    out: dict[int, Fraction] = {}
    for p, d in parts:
        assert d.counts is not None
        for v, c in zip(d.values.tolist(), d.counts.tolist(), strict=True):
            out[int(v)] = out.get(int(v), Fraction(0)) + p * Fraction(int(c), d.total)
    return out


def _exact_law(probs: Mapping[int, Fraction], unit: int) -> WinLaw:
    """The law of exact probabilities: integer counts over their common denominator when it fits in int64."""
    values = sorted(probs)
    den = math.lcm(*(probs[v].denominator for v in values)) if values else 1
    if den < 2**62:
        counts = [probs[v].numerator * (den // probs[v].denominator) for v in values]
        return WinLaw.from_counts(values, counts, unit=unit)
    return WinLaw.from_probs(values, [float(probs[v]) for v in values], unit=unit, method="exact")


def base_spin(base: StageLaw, bet: int, plain: WinLaw | None = None) -> BaseSpin:
    """The base spin's own figures from the round's base stage ``base``, per unit of total bet ``bet`` (credits).

    ``plain``: the exact law of the base spin where no modifier changes it (the enumerated spin), for the
    distribution's figures when the base stage holds none (a round analysed to its moments or means).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.round import analyse
    >>> a = analyse(load_game("data/games/classic_3reel.toml"))   # no feature: the base spin is the whole play
    >>> b = base_spin(a.base, a.total_bet)
    >>> b.hit_frequency.exact == a.law.hit_frequency(), b.sd.method
    (True, 'exact')
    """
    branches = list(base.branches.values())
    mean = base.mean
    rtp = Figure.of(mean / bet, base.method) if isinstance(mean, Fraction) else Figure.of(float(mean) / bet,
                                                                                          "markov")
    out: dict[str, object] = {}
    missing: dict[str, str] = {}
    if all(b.m2 is not None and b.mean is not None for b in branches):
        e1 = sum((b.p * b.mean for b in branches if b.mean is not None), Fraction(0))
        e2 = sum((b.p * b.m2 for b in branches if b.m2 is not None), Fraction(0))
        exact = all(isinstance(x, Fraction | int) for b in branches for x in (b.p, b.mean, b.m2))
        var = max(float(e2 - e1 * e1), 0.0)
        out["sd"] = Figure(math.sqrt(var) / bet, base.method if exact else "markov")
    else:
        missing["sd"] = MOMENTS_NEEDED
    dist_keys = ("hit_frequency", "hit_frequency_win_ge_bet", "max_win", "p_win_ge")
    uncovered = sorted({u.route for b in branches for u in b.uncovered})
    if uncovered:
        why = (f"the base spin's distribution leaves out {', '.join(uncovered)} (left to the simulator): "
               "`mathkit simulate` samples the whole play; σ above is exact")
        missing.update(dict.fromkeys(dist_keys, why))
    elif any(b.dist is None for b in branches):
        if plain is not None and plain.counts is not None:
            out.update(_distribution_figures(base, [(Fraction(1), plain.with_(unit=bet))], bet))
        else:
            missing.update(dict.fromkeys(dist_keys, DISTRIBUTION_NEEDED))
    else:
        out.update(_distribution_figures(base, [(b.p, b.dist) for b in branches if b.dist is not None], bet))
    return BaseSpin(rtp, not_computed=missing, **out)  # type: ignore[arg-type]


def _at_least(x: int) -> Callable[[int], bool]:
    return lambda v: v >= x


def _distribution_figures(base: StageLaw, parts: list[tuple[Number, WinLaw]], bet: int) -> dict[str, object]:
    """Hit frequency, P(win ≥ bet), max win and its odds, the tails and the law of the base spin's win."""
    prob: Callable[[Callable[[int], bool]], Figure]
    exact = [(p, d) for p, d in parts if isinstance(p, Fraction) and d.counts is not None]
    if len(exact) == len(parts):
        probs = _mix_exact([(Fraction(p), d) for p, d in exact])
        law = _exact_law(probs, bet)

        def prob(keep: Callable[[int], bool]) -> Figure:
            return Figure.of(sum((p for v, p in probs.items() if keep(v)), Fraction(0)), base.method)
    else:
        law = WinLaw.mixture(parts, unit=bet)
        law = law.with_(method=_weakest({d.method for _, d in parts} | {base.method}))
        values = law.values.tolist()

        def prob(keep: Callable[[int], bool]) -> Figure:
            mask = np.array([keep(int(v)) for v in values], dtype=bool)
            return Figure(float(law.probs[mask].sum()) if values else 0.0, law.method)
    top = law.max_win
    meth: Method = law.method
    return {
        "hit_frequency": prob(lambda v: v > 0),
        "hit_frequency_bet": prob(lambda v: v >= bet),
        "max_win": Figure(top / bet, meth, Fraction(top, bet) if meth == "exact" else None),
        "max_win_probability": prob(lambda v: v == top),
        "tails": {m: prob(_at_least(m * bet)) for m in TAILS},
        "distribution": law,
    }
