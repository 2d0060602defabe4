"""A game's declared features, analysed for the PAR sheet: free spins, the gamble ladder, the cap.

:func:`analyse_features` is what :func:`mathkit.par.build_par` calls when a game
declares ``free_spins``, ``gamble`` or ``cap``.  It returns

* ``components`` — RTP components to add to the base ones (``"free spins"``,
  exact; ``"cap"``, the cap's effect);
* ``sections`` — the feature figures and tables of the PAR sheet;
* ``play`` — the distribution of the win of a whole play (a base spin and the
  feature it triggers, the cap applied), float probabilities with the truncated
  mass reported, or the exact base distribution when there is no free-spin feature.

The gamble is reported **beside** the RTP and σ, never inside them: each
strategy's table row says what it does to the return (exactly 1 for fair
options), σ, the chance of losing a win, and the most one game can pay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .distribution import Method, WinDistribution
from .errors import ModelError
from .exact import SpinMaths, spin
from .freespins import FreeSpinChain, PlayLaw, feature_chain, play_distribution, trigger_law
from .gamble import Always, LimitReading, Never, Strategy, UntilTarget, check_fair
from .game import Gamble, Game
from .par import FeatureSection, Figure

__all__ = [
    "FeatureAnalysis",
    "FreeSpinFigures",
    "GambleLine",
    "analyse_features",
    "free_spin_figures",
    "gamble_lines",
    "ladder_arrays",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
SURVIVAL_AT = (10, 20, 30, 50, 100)
FEATURE_TAILS = (10, 50, 100, 500, 1000)
TOL = 1e-13


@dataclass(frozen=True, eq=False)
class FreeSpinFigures:
    """Exact free-spin figures of one game at one bet (credits; ``bet`` credits per spin)."""

    bet: int
    p_trigger: Fraction
    mean_award: Fraction  # spins awarded, given a trigger
    p_retrigger: Fraction  # per free spin
    m: Fraction  # spins added per free spin
    mean_spins: Fraction | float  # E[length | trigger]
    sd_spins: float
    mean_win: Fraction | float  # E[feature win | trigger], credits
    var_win: Fraction | float
    rtp: Fraction | float
    play_mean: Fraction | float  # E[whole play], credits (no cap)
    play_var: Fraction | float
    survival: tuple[tuple[int, float], ...]
    chain: FreeSpinChain
    feature: PlayLaw  # the feature's total win given a trigger


@dataclass(frozen=True, eq=False)
class FeatureAnalysis:
    """What :func:`mathkit.par.build_par` reads: extra components, sections, the play's distribution."""

    components: dict[str, Figure]
    sections: tuple[FeatureSection, ...]
    play: WinDistribution
    free_spins: FreeSpinFigures | None = None
    gamble: tuple[GambleLine, ...] = ()


# ----------------------------------------------------------------------------- free spins
def free_spin_figures(game: Game, base: SpinMaths, *, parallel: bool = True, tol: float = TOL,
                      distribution: bool = True) -> tuple[FreeSpinFigures, PlayLaw]:
    """Exact free-spin figures and the whole play's distribution (see :mod:`mathkit.freespins`).

    With ``distribution=False`` the distributions are skipped (the base spin's is returned).
    """
    fs = game.free_spins
    if fs is None:
        msg = f"{game.name!r} declares no free spins"
        raise ModelError(msg)
    free = spin(game, fs.reels, lines=base.lines, coins=base.coins, parallel=parallel)
    trig = trigger_law(game, base)
    chain = feature_chain(game, free)
    starts = {a: g for (a, _), g in trig.groups.items()}
    c = trig.cycle
    p_trig = Fraction(sum(g[0] for a, g in starts.items() if a > 0), c)
    # Whole play Y = B + W_n(B): E[Y], E[Y²] from the base law by spins awarded and the feature's moments.
    mean = Fraction(0)
    var: Fraction | float = Fraction(0)
    mean_win: Fraction | float = Fraction(0)
    mean_spins: Fraction | float = Fraction(0)
    e_spins2: Fraction | float = Fraction(0)
    e_win2: Fraction | float = Fraction(0)
    e_y: Fraction | float = Fraction(0)
    e_y2: Fraction | float = Fraction(0)
    for n, (w, s1, s2) in starts.items():
        mo = chain.moments(n)
        p = Fraction(w, c)
        e_y += Fraction(s1, c) + p * mo.mean_win
        e_y2 += Fraction(s2, c) + 2 * Fraction(s1, c) * mo.mean_win + p * (mo.var_win + mo.mean_win**2)
        if n > 0:
            mean_win += p * mo.mean_win
            e_win2 += p * (mo.var_win + mo.mean_win**2)
            mean_spins += p * mo.mean_spins
            e_spins2 += p * (mo.var_spins + mo.mean_spins**2)
            mean += p * n
    if p_trig:
        mean_win, e_win2, mean_spins, e_spins2 = (x / p_trig for x in (mean_win, e_win2, mean_spins, e_spins2))
        mean /= p_trig
        var = e_win2 - mean_win**2
    bet = base.total_bet
    fs_rtp = p_trig * mean_win / bet
    survival: tuple[tuple[int, float], ...] = ()
    if p_trig:
        acc = [0.0] * len(SURVIVAL_AT)
        for n, g in starts.items():
            if n > 0:
                curve = chain.survival(SURVIVAL_AT, n)
                assert isinstance(curve, tuple)
                acc = [a + float(Fraction(g[0], c) / p_trig) * x for a, x in zip(acc, curve, strict=True)]
        survival = tuple(zip(SURVIVAL_AT, acc, strict=True))
    play, feature = play_distribution(trig, chain, tol=tol) if p_trig and distribution else (None, None)
    figs = FreeSpinFigures(
        bet=bet, p_trigger=p_trig, mean_award=mean, p_retrigger=1 - chain.laws[0].p_added(0), m=chain.m,
        mean_spins=mean_spins, sd_spins=math.sqrt(max(e_spins2 - mean_spins**2, 0)), mean_win=mean_win,
        var_win=var, rtp=fs_rtp, play_mean=e_y, play_var=e_y2 - e_y**2, survival=survival, chain=chain,
        feature=feature if feature is not None else PlayLaw(np.zeros(1, np.int64), np.ones(1), 0.0),
    )
    if play is None:
        dist = base.win_distribution
        play = PlayLaw(dist.values, dist.probs(), 0.0)
    return figs, play


def _free_spin_section(game: Game, f: FreeSpinFigures) -> FeatureSection:
    assert game.free_spins is not None
    fs = game.free_spins
    bet = f.bet
    sd_win = math.sqrt(f.var_win) / bet
    method: Method = "exact" if isinstance(f.var_win, Fraction) else "markov"
    figures: list[tuple[str, Figure]] = [
        ("trigger probability", Figure.of(f.p_trigger)),
        ("trigger frequency (1 in N)", Figure.of(1 / f.p_trigger) if f.p_trigger else Figure(math.inf, "exact")),
        ("spins awarded (average)", Figure.of(f.mean_award)),
        ("P(retrigger) per free spin", Figure.of(f.p_retrigger)),
        ("spins added per free spin m", Figure.of(f.m)),
        ("expected length (spins)", Figure.of(f.mean_spins)),
        ("σ of the length (spins)", Figure(f.sd_spins, method)),
        ("average feature win (× bet)", Figure.of(f.mean_win / bet)),
        ("σ of the feature win (× bet)", Figure(sd_win, method)),
        ("free-spin win per spin (× bet)", Figure.of(f.chain.laws[0].mean_win / bet)),
        ("RTP contribution", Figure.of(f.rtp)),
        ("σ of a whole play, from the moments (× bet)", Figure(math.sqrt(f.play_var) / bet, method)),
    ]
    figures += [(f"P(length > {t} spins)", Figure(p, "markov")) for t, p in f.survival]
    feat = WinDistribution.from_probs(f.feature.values, f.feature.probs, unit=bet, lost_mass=f.feature.lost_mass)
    figures += [("feature win distribution: mean (× bet)", Figure(float(feat.rtp()), "markov")),
                ("feature win distribution: truncated mass", Figure(feat.lost_mass, "markov"))]
    table: list[tuple[str, ...]] = [("feature win ≥ (× bet)", "probability given a trigger", "1 in")]
    for x in FEATURE_TAILS:
        p = float(feat.sf_bet(x))
        table.append((f"{x}", f"{p:.6g}", f"{1 / p:,.0f}" if p > 0 else "never"))
    notes: tuple[str, ...] = (
        f"free spins: {', '.join(f'{k}+ {fs.trigger} award {v}' for k, v in fs.awards)}; retriggers: "
        f"{', '.join(f'{k}+ add {v}' for k, v in fs.retriggers) or 'none'}; reel set {fs.reels!r}; "
        f"line wins ×{fs.multiplier}; scatter wins {'×' + str(fs.multiplier) if fs.multiply_scatter else 'not multiplied'}"
        f" (free_spins.multiply_scatter = {str(fs.multiply_scatter).lower()})",
        "exact figures from the chain's closed forms: E[N] = n/(1-m) (Wald), E[W] = n·E[X]/(1-m), "
        "Var from the branching recursion; the distribution from Kemperman's formula and one FFT"
        if f.chain.closed_form else "figures from the chain's linear solves",
    )
    if fs.max_spins is None and fs.retriggers:
        notes += ("retriggers have no limit, so a feature's win has no upper bound: the largest win shown is where "
                  "the computed distribution ends (its truncated mass is reported)",)
    return FeatureSection("Free spins", tuple(figures), tuple(table), notes)


# ----------------------------------------------------------------------------- gamble
def ladder_arrays(gamble: Gamble, strategy: Strategy, values: IntArray, *,
                  limit_on: LimitReading = "stake") -> tuple[IntArray, IntArray, Fraction]:
    """For every win: the amount collected if every gamble taken is won, the gambles taken, and p per gamble.

    A strategy plays one option, so the number of gambles ``k(v)`` a win ``v`` goes
    through is fixed: the ladder pays ``v·M^k`` with probability ``p^k`` and 0
    otherwise.  Offers follow :func:`mathkit.gamble.choice` exactly.
    """
    if isinstance(strategy, Never):
        return values.copy(), np.zeros(len(values), dtype=np.int64), Fraction(1)
    option = next(o for o in gamble.options if o.name == strategy.option)
    amount = values.astype(np.int64).copy()
    k = np.zeros(len(values), dtype=np.int64)
    for _ in range(gamble.max_gambles):
        stake = amount * option.multiplier if limit_on == "win" else amount
        go = (amount > 0) & (stake <= gamble.limit)
        if isinstance(strategy, UntilTarget):
            go &= amount < strategy.target
        if not go.any():
            break
        amount[go] *= option.multiplier
        k[go] += 1
    return amount, k, Fraction(option.p)


@dataclass(frozen=True)
class GambleLine:
    """One strategy's effect on the win of a whole play."""

    strategy: str
    return_exact_base: Fraction  # E[after] / E[before] over the exact base-game distribution
    return_play: float  # the same over the whole play's distribution (features included)
    sd_before: float  # × bet
    sd_after: float
    p_bust: float  # P(a win is gambled away)
    max_gamble_pay: float  # × bet: the most a gamble can pay (0 when never gambled)
    p_win_ge_100: float  # P(paid ≥ 100 × bet) after the strategy


def _strategies(gamble: Gamble, bet: int) -> list[Strategy]:
    out: list[Strategy] = [Never(), *(Always(o.name) for o in gamble.options)]
    out += [UntilTarget(o.name, 20 * bet) for o in gamble.options]
    return out


def gamble_lines(gamble: Gamble, base: WinDistribution, play: WinDistribution,
                 strategies: list[Strategy] | None = None, *,
                 limit_on: LimitReading = "stake") -> tuple[GambleLine, ...]:
    """Each strategy's return, σ, P(bust), exposure on the whole play; exact return on the base game."""
    bet = play.unit
    out = []
    for s in strategies if strategies is not None else _strategies(gamble, bet):
        # exact, on the base game's integer counts: E[after | v] = v·(p·M)^k(v)
        up, k, p = ladder_arrays(gamble, s, base.values, limit_on=limit_on)
        by_k: dict[int, int] = {}
        for u, kk, c in zip(up.tolist(), k.tolist(), base.weights.tolist(), strict=True):
            by_k[kk] = by_k.get(kk, 0) + int(c) * u
        num = sum((p**kk * x for kk, x in by_k.items()), Fraction(0))
        den = sum(int(c) * v for v, c in zip(base.values.tolist(), base.weights.tolist(), strict=True))
        ret_base = num / den if den else Fraction(1)
        # floats, on the whole play
        vals = play.values
        probs = play.probs()
        up, k, p = ladder_arrays(gamble, s, vals, limit_on=limit_on)
        pk = float(p) ** k.astype(np.float64)
        mean_b = float(np.dot(vals, probs))
        mean_a = float(np.dot(up * pk, probs))
        var_b = float(np.dot(vals.astype(np.float64) ** 2, probs)) - mean_b**2
        var_a = float(np.dot(up.astype(np.float64) ** 2 * pk, probs)) - mean_a**2
        bust = float(np.dot(((vals > 0) * (1 - pk)), probs))
        ge = float(np.dot((up >= 100 * bet) * pk, probs))
        top = float(up[(k > 0) & (probs > 0)].max(initial=0)) / bet
        out.append(GambleLine(s.name, ret_base, mean_a / mean_b if mean_b else 1.0, math.sqrt(var_b) / bet,
                              math.sqrt(max(var_a, 0.0)) / bet, bust, top, ge))
    return tuple(out)


def _gamble_section(gamble: Gamble, lines: tuple[GambleLine, ...], bet: int) -> FeatureSection:
    figures: list[tuple[str, Figure]] = []
    for c in check_fair(gamble):
        figures.append((f"return per {c.option} gamble (p × multiplier)", Figure.of(c.ratio)))
    figures += [("most gambles in a row", Figure.of(gamble.max_gambles)),
                ("gamble amount limit (credits)", Figure.of(gamble.limit)),
                ("gamble amount limit (× bet)", Figure.of(Fraction(gamble.limit, bet)))]
    table: list[tuple[str, ...]] = [("strategy", "return (exact, base game)", "return (whole play)", "σ before", "σ after",
              "P(bust)", "largest gamble pay (× bet)", "P(paid ≥ 100× bet)")]
    for g in lines:
        table.append((g.strategy, str(g.return_exact_base), f"{g.return_play:.12f}", f"{g.sd_before:.4f}",
                      f"{g.sd_after:.4f}", f"{g.p_bust:.6g}", f"{g.max_gamble_pay:,.2f}", f"{g.p_win_ge_100:.6g}"))
    notes = ("the gamble is left out of the RTP, σ and distribution above: each row shows what a strategy "
             "does to them",
             "each fair option returns exactly 100% at every rung (p × multiplier = 1), so every strategy returns "
             "exactly 100% of the win it gambles (exact column)",
             f"offered while the amount at stake is at most {gamble.limit} credits, at most "
             f"{gamble.max_gambles} times in a row, so one game's exposure is its win or, gambled, at most "
             f"{gamble.limit} × the largest multiplier; 'until' strategies stop at 20× bet")
    return FeatureSection("Gamble", tuple(figures), tuple(table), notes)


# ----------------------------------------------------------------------------- entry point
def analyse_features(game: Game, base: SpinMaths, *, parallel: bool = True) -> FeatureAnalysis:
    """Free spins, gamble and cap of ``game`` at the bet ``base`` was computed for.

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> from mathkit.exact import spin
    >>> g = load_game("data/games/dynasty.toml")
    >>> fa = analyse_features(g, spin(g))
    >>> sorted(fa.components), fa.play.method, fa.play.lost_mass <= 1e-12
    (['free spins'], 'markov', True)
    """
    bet = base.total_bet
    components: dict[str, Figure] = {}
    sections: list[FeatureSection] = []
    figs = None
    play: WinDistribution = base.win_distribution
    if game.free_spins is not None:
        figs, law = free_spin_figures(game, base, parallel=parallel)
        components["free spins"] = Figure.of(figs.rtp, "exact")
        sections.append(_free_spin_section(game, figs))
        if figs.p_trigger:
            play = WinDistribution.from_probs(law.values, law.probs, unit=bet, method="markov",
                                              lost_mass=law.lost_mass)
    if game.cap is not None:
        cap = game.cap * bet
        capped = play.capped(cap)
        loss = capped.mean() - play.mean()
        components["cap"] = Figure.of(loss / bet) if isinstance(loss, Fraction) else Figure(loss / bet, "markov")
        play = capped
        sections.append(FeatureSection("Cap", (("cap (× bet)", Figure.of(game.cap)),
                                               ("P(play reaches the cap)", Figure.of(play.sf(cap))
                                                if play.exact else Figure(float(play.sf(cap)), "markov")),
                                               ("RTP removed by the cap", components["cap"])),
                                       notes=("the cap applies to the whole play: base spin and feature",)))
    lines: tuple[GambleLine, ...] = ()
    if game.gamble is not None:
        lines = gamble_lines(game.gamble, base.win_distribution, play)
        sections.append(_gamble_section(game.gamble, lines, bet))
    return FeatureAnalysis(components, tuple(sections), play, figs, lines)
