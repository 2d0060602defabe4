"""The PAR sheet (Probability Accounting Report) of a game.

:func:`build_par` gathers every figure a mathematician or a test lab reads —
symbol counts, per-combination hits and RTP, cycle, RTP by component, hit
frequencies, σ, volatility index, RTP range after N spins, max win and its
odds, tail probabilities, features — each as a :class:`Figure` that says how
it was obtained (``exact``, ``markov`` or ``sampled``) — and, when asked
(``sessions=True``; ``mathkit par`` asks), a player's session from a default
bankroll (:data:`SESSION_BANKROLL` × bet, :data:`SESSION_SPINS` spins) solved
exactly on the sheet's whole-play distribution (:mod:`mathkit.chains.markov.session`).
Rendering to text, JSON and CSV lives in :mod:`mathkit.report.text`.

A game whose feature blocks cannot (yet) give the whole round's distribution
(:meth:`mathkit.features.Block.supported_level`) gets a :class:`RoundSheet`
from :func:`build_sheet`: every figure that needs no distribution (RTP by
component, paytable, features), and nothing that would need one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from ..errors import LimitError, ModelError
from ..exact.base import SpinMaths
from ..laws.law import WinLaw
from ..laws.mixture import MixedLaw, RoundPart, RouteSample, mix
from ..laws.provenance import FeatureSection, Figure, Method
from ..laws.stage import Level
from ..model.game import Game
from ..round import RoundAnalysis, analyse
from ..round.compose import as_block
from .basespin import BaseSpin, base_spin
from .lines import HIT_FREQUENCY_PER_LINE, line_hit_frequency, lines_by_height, modified_line_hit_frequency
from .simfigures import entry_figures, with_any_type

__all__ = ["HIT_FREQUENCY_PER_LINE", "HIT_FREQUENCY_PER_SPIN", "SESSION_BANKROLL", "SESSION_SPINS",
           "BaseSpin", "EntryRow", "FeatureSection", "Figure", "ParSheet", "RoundSheet", "Sampler", "Z",
           "build_par", "build_sheet", "decimal_digits", "line_hit_frequency", "modified_line_hit_frequency",
           "session_section", "sheet_level"]

#: z for the volatility index at 90/95/99% (two-sided normal quantiles, as PAR sheets print them)
Z = {"90%": 1.645, "95%": 1.960, "99%": 2.576}
RANGE_SPINS = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8)
TAILS = (10, 100, 1000)
SESSION_BANKROLL = 100
"""The PAR sheet's session: a bankroll of this many total bets ..."""
SESSION_SPINS = 1000
"""... played for at most this many spins."""
HIT_FREQUENCY_PER_SPIN = ("hit frequency per spin: plays that pay anything / plays "
                          "(a whole play: the base spin and every feature it starts)")
"""The definition printed beside the per-spin hit frequency."""
Sampler = Callable[[Sequence[str]], Mapping[str, RouteSample]]
"""Samples the conditional law of the round's win for each route (:func:`mathkit.sim.routes.sample_routes`,
its game, rounds and seed bound by the caller: the sheet sits below the simulator)."""
ROUND = "round"
"""The route of every round: the whole round sampled, for a sheet whose blocks give no exact distribution."""


@dataclass(frozen=True)
class EntryRow:
    """One pay combination in the PAR table.

    ``hits`` counts what pays it over the cycle: (outcome, line) pairs for a line
    combination, outcomes for a scatter or ways one.  ``probability`` is a
    probability, per line played for a line combination (``hits / (cycle × lines)``:
    P(a line pays it), as line-game PAR sheets print it) and per spin for the others
    (``hits / cycle``); ``per`` says which.  :attr:`hits_per_spin` is ``hits / cycle``:
    how many times a spin pays it on average, above 1 where many lines pay it.
    """

    component: str
    entry: str
    count: int
    pay: int
    hits: int
    probability: Figure
    rtp: Figure
    combination: str = ""
    """A reel-ordered combination's reels in order (``RWB: R7 – W7 – B7``); empty for others (``count × entry``)."""
    per: Literal["line", "spin"] = "spin"
    lines: int = 1
    """The lines the probability is per (the lines played for a line combination; 1 for the others)."""

    @property
    def one_in(self) -> float:
        """1 in N lines (a line combination) or spins (the others): ``1 / probability``."""
        return math.inf if self.probability.value == 0 else 1 / self.probability.value

    @property
    def hits_per_spin(self) -> Figure:
        """The combination's hits per spin (``hits / cycle``): not a probability, above 1 when many lines pay it."""
        p = self.probability
        return Figure.of(p.exact * self.lines) if p.exact is not None else Figure(p.value * self.lines, p.method)


@dataclass(frozen=True, eq=False, kw_only=True)
class RoundSheet:
    """The figures of a game's PAR sheet that need no whole-round distribution, for one reel set and bet.

    ``level`` is how far the round was analysed (``"mean"``: RTP by component and the
    features' sections; a :class:`ParSheet` has every figure).
    """

    game: Game
    reels: str
    lines: int
    coins: int
    total_bet: int
    cycle: int
    symbol_counts: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]
    entries: tuple[EntryRow, ...]
    components: dict[str, Figure]
    rtp: Figure
    base: SpinMaths
    features: tuple[FeatureSection, ...] = ()
    cap: Figure | None = None
    cap_probability: Figure | None = None
    cap_probability_bound: bool = False
    max_win_bounded: bool = True
    trigger_probability: Figure | None = None
    """P(a base spin starts any feature) (:func:`mathkit.report.simfigures.entry_figures`)."""
    p_enter: dict[str, Figure] = field(default_factory=dict)
    """Each feature's entries per round, by name (the round analysis itself stays off the sheet: it does not pickle)."""
    sessions: FeatureSection | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    level: Level = "distribution"
    sd_moments: Figure | None = None
    """σ per unit of total bet of a sheet analysed to the round's moments (a :class:`ParSheet` has :attr:`sd`)."""
    sd_note: str = ""
    not_computed: dict[str, str] = field(default_factory=dict)
    """Figures a sheet of the round's moments leaves out, each with why and where to get it."""
    refused: str = ""
    """The resource limit's refusal that left figures out (:func:`build_sheet`: the sheet is then analysed as deep
    as the limits let it, and :attr:`not_computed` names each figure left out); empty when none did."""
    hit_frequency_per_line: Figure | None = None
    """:data:`HIT_FREQUENCY_PER_LINE` (exact, under the base spin's modifiers too); ``None`` for a ways game."""
    lines_by_height: tuple[tuple[int, int], ...] = ()
    """``(height, lines played)`` of each window height a base spin is drawn at; empty when the height is fixed."""
    base_spin: BaseSpin | None = None
    """The base spin's own figures beside the whole play's (:mod:`mathkit.report.basespin`: σ, hit frequency,
    max win, tails and distribution of the base spin alone, features excluded)."""
    mixed: MixedLaw | None = None
    """The round's win law where a part of it is sampled (:mod:`mathkit.laws.mixture`): its figures, tagged
    ``exact+sampled`` or ``sampled`` with 99% intervals; ``None`` when nothing was sampled."""

    @property
    def declared_rtp(self) -> Fraction | None:
        return self.game.declared_for(self.reels)


@dataclass(frozen=True, eq=False, kw_only=True)
class ParSheet(RoundSheet):
    """Every figure of a game's PAR sheet, for one reel set and bet."""

    hit_frequency: Figure
    hit_frequency_bet: Figure
    sd: Figure
    volatility_index: dict[str, Figure]
    rtp_range: dict[str, tuple[tuple[int, float, float], ...]]
    max_win: Figure
    max_win_probability: Figure
    tails: dict[int, Figure]
    distribution: WinLaw


def symbol_counts(game: Game) -> dict[str, tuple[tuple[str, tuple[int, ...]], ...]]:
    """Per reel set, per symbol: its (weighted) count on each reel."""
    out = {}
    for rs in game.reel_sets:
        rows = []
        for name in game.symbol_names:
            per_reel = tuple(sum(w for s, w in zip(strip, rs.stop_weights(r), strict=True) if s == name)
                             for r, strip in enumerate(rs.strips))
            rows.append((name, per_reel))
        out[rs.name] = tuple(rows)
    return out


def _entry_rows(base: SpinMaths, game: Game) -> tuple[EntryRow, ...]:
    rows = []
    cycle = base.components.cycle
    bet = base.total_bet
    pays = {e.name: e for e in game.line_pays}
    scat = {s.symbol: s for s in game.scatter_pays}
    n_lines = max(int(base.tables.lines.shape[0]), 1)
    for e in base.components.entries:
        if e.component == "scatter":
            pay = scat[e.entry].pay(e.count) * base.tables.scatter_credits
            named = ""
        else:
            pay = pays[e.entry].pay(e.count, base.coins, game.bet.coins.index(base.coins)
                                    if base.coins in game.bet.coins else None)
            named = pays[e.entry].combination(e.count) if pays[e.entry].ordered else ""
        lines = n_lines if e.component == "lines" else 1
        rows.append(EntryRow(e.component, e.entry, e.count, pay, e.hits, Figure.of(Fraction(e.hits, cycle * lines)),
                             Figure.of(Fraction(e.credits, cycle * bet)), named, "line" if lines > 1 else "spin",
                             lines))
    return tuple(rows)


def _figure(x: Fraction | float, method: Method) -> Figure:
    return Figure.of(x, method)


def session_section(play: WinLaw, bankroll: int = SESSION_BANKROLL, spins: int = SESSION_SPINS) -> FeatureSection:
    """The sessions section: ``spins`` spins from ``bankroll`` × bet on the whole-play law ``play`` (gamble not played)."""
    from ..chains.markov.session import solve_session  # here: a sheet without sessions needs none of its kernels

    law = solve_session(play.values, play.probs, bet=play.unit, bankroll=bankroll * play.unit, spins=spins,
                        lost_mass=play.lost_mass, method=play.method)
    return law.section(f"Sessions (bankroll {bankroll:,}× bet, up to {spins:,} spins)",
                       "each spin pays a whole play (features and cap included); the gamble is not played")


def sheet_level(game: Game) -> Level:
    """The deepest level every feature block of ``game`` answers (``"distribution"`` for a full PAR sheet)."""
    levels: tuple[Level, ...] = ("mean", "moments", "distribution")
    return min((as_block(f).supported_level(game) for f in game.features), key=levels.index, default="distribution")


def decimal_digits(x: Fraction, error: float, digits: int = 20) -> str:
    """``x`` truncated to the decimals an error of at most ``error`` leaves meaningful (at most ``digits``).

    The true value lies within ``error`` of ``x``, so it differs from the decimal shown by less than
    ``error`` plus one unit of the last decimal.

    Examples
    --------
    >>> decimal_digits(Fraction(1, 3), 1e-12)
    '0.333333333333'
    """
    keep = digits if error <= 0 else max(0, min(digits, int(-math.log10(error))))
    scaled = x.numerator * 10**keep // x.denominator
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10**keep)
    return f"{sign}{whole}." + f"{frac:0{keep}d}" if keep else f"{sign}{whole}"


def _rtp_figures(analysis: RoundAnalysis) -> tuple[dict[str, Figure], Figure]:
    """The RTP of a round by component and in total, per unit of total bet."""
    bet = analysis.total_bet
    out = analysis.outcome
    components = {k: Figure.of(v / bet, out.method_of(k)) for k, v in out.components.items()}
    method: Method = out.method
    total: Fraction | float
    if all(f.exact is not None for f in components.values()):
        total = sum((f.exact for f in components.values() if f.exact is not None), Fraction(0))
        return components, _figure(total, method)
    if all(isinstance(v, Fraction) for v in out.components.values()):
        # exact parts and a bounded one (the cap's effect): the decimals the bound leaves certain
        exact = sum((Fraction(v) for v in out.components.values()), Fraction(0)) / bet
        return components, Figure(float(exact), method, None, decimal_digits(exact, out.error / bet))
    return components, _figure(math.fsum(f.value for f in components.values()), method)


def play_rtp(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None) -> Figure:
    """The RTP of a whole play (base spin and every feature, the cap applied), as the PAR sheet states it.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> game = load_game("data/games/classic_3reel.toml")
    >>> play_rtp(game) == build_sheet(game).rtp
    True
    """
    analysis = analyse(game, reels, lines=lines, coins=coins, level="mean", sections=False)
    return _rtp_figures(analysis)[1]


def _common(analysis: RoundAnalysis, game: Game) -> dict[str, Any]:
    """The figures every sheet has: RTP by component, the base spin's paytable, the features, the cap."""
    engine = analysis.engine
    base = engine.spin_paytable(engine.base_model())  # the paytable needs no enumeration where a limit refuses one
    bet = analysis.total_bet
    components, rtp = _rtp_figures(analysis)
    cap_fig = None if analysis.limit is None else Figure.of(analysis.limit.credits / bet)
    return {"game": game, "reels": engine.reels, "lines": engine.lines, "coins": engine.coins, "total_bet": bet,
            "cycle": base.cycle, "symbol_counts": symbol_counts(game), "entries": _entry_rows(base, game),
            "components": components, "rtp": rtp, "base": base, "features": with_any_type(analysis), "cap": cap_fig,
            "max_win_bounded": analysis.outcome.max_win is not None, **entry_figures(analysis), "level": analysis.level,
            "hit_frequency_per_line": modified_line_hit_frequency(engine) if game.features_of("modifier")
            else line_hit_frequency(base), "lines_by_height": lines_by_height(engine),
            "base_spin": base_spin(analysis.base, bet, None if game.features_of("modifier") or base.joint is None
                                   else base.win_distribution)}


def build_sheet(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
                parallel: bool = False, sessions: bool = False, sampler: Sampler | None = None,
                deepest: Level = "distribution") -> RoundSheet:
    """The PAR sheet of ``game`` as far as its blocks answer: a :class:`ParSheet`, or a :class:`RoundSheet` of the means.

    ``sessions`` asks a :class:`ParSheet` for its sessions section (a sheet of the means has none: a session
    needs the whole play's distribution).  ``sampler`` (:data:`Sampler`) samples what the exact analysis
    leaves out — its uncovered routes, or the whole round of a sheet analysed to the moments — for the
    distribution's figures (:attr:`RoundSheet.mixed`); without it those figures are left out, and say why.
    ``deepest`` analyses the round no deeper than that level (``"mean"``: the RTP by component and the
    features' sections only, a second where the whole sheet of Warlords takes twenty).

    A resource limit (:class:`~mathkit.errors.LimitError`) refusing a figure the RTP does not need leaves the
    sheet at the deepest level that fits (moments, else means): every figure that fits, and each one left
    out in :attr:`RoundSheet.not_computed` with the refusal, its fix and ``mathkit simulate``
    (:attr:`RoundSheet.refused` holds the message); only a refused RTP raises.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> type(build_sheet(load_game("data/games/classic_3reel.toml"))).__name__
    'ParSheet'
    """
    try:
        return _build_sheet(game, reels, lines=lines, coins=coins, parallel=parallel, sessions=sessions,
                            sampler=sampler, deepest=deepest)
    except LimitError as refused:
        first = refused
    # an optional figure does not fit: every figure that does, and each one left out named with why and how
    levels: tuple[Level, ...] = ("mean", "moments", "distribution")
    for level in levels[:levels.index(min(sheet_level(game), deepest, key=levels.index))][::-1]:
        try:
            analysis = analyse(game, reels, lines=lines, coins=coins, level=level, parallel=parallel)
        except LimitError as again:
            first = again if level == "mean" else first
            continue
        return _refused_sheet(analysis, game, first, sessions=sessions)
    raise first


LEFT_OUT = ("hit_frequency", "hit_frequency_win_ge_bet", "max_win", "max_win_probability", "p_win_ge", "win_distribution")
"""The figures a sheet below the distribution level leaves out (beside σ below the moments)."""


def left_out_reason(refused: LimitError) -> str:
    """Why a figure is left out and how to get it: the refusal's message and its fix, then sampling."""
    where = f"{refused.field}: " if refused.field else ""
    fix = refused.fix
    return (f"left out: {where}{refused.message.rstrip('.')}" + (f"; to get it: {fix}" if fix else "")
            + "; sampled estimates of the whole play: mathkit simulate")


def _refused_sheet(analysis: RoundAnalysis, game: Game, refused: LimitError, *, sessions: bool = False) -> RoundSheet:
    """The sheet of a round a resource limit let be analysed only to ``analysis.level``: the figures that fit, and
    every figure left out with the refusal's reason and how to get it (:attr:`RoundSheet.not_computed`)."""
    why = left_out_reason(refused)
    more: dict[str, Any] = {}
    missing = dict.fromkeys(LEFT_OUT, why)
    if analysis.level == "moments":
        more = _moment_figures(analysis)
        missing = {k: why for k in (*more.pop("not_computed"), *missing)}
    else:
        missing = {"sd": why, **missing}
    if sessions:  # a session is played on the whole play's distribution
        missing["sessions"] = why
    limit = analysis.limit
    common = _common(analysis, game)
    b = common["base_spin"]
    if b is not None:
        common["base_spin"] = replace(b, not_computed={k: why for k in b.not_computed})
    return RoundSheet(**common, cap_probability=limit.p if limit else None,
                      cap_probability_bound=bool(limit and limit.p_is_bound), **more, not_computed=missing,
                      refused=str(refused))


def _build_sheet(game: Game, reels: str | None, *, lines: int | None, coins: int | None, parallel: bool,
                 sessions: bool, sampler: Sampler | None, deepest: Level) -> RoundSheet:
    levels: tuple[Level, ...] = ("mean", "moments", "distribution")
    level = min(sheet_level(game), deepest, key=levels.index)
    analysis = None
    if level == "distribution" or (level == "moments" and sampler is not None):
        # with a sampler, a block that gives its moments only is left to it (an uncovered part of the round)
        try:
            analysis = analyse(game, reels, lines=lines, coins=coins, level="distribution", parallel=parallel)
        except ModelError:
            if level == "distribution":
                raise
        if analysis is not None and not analysis.uncapped.uncovered:
            return _build_par(analysis, sessions=sessions)
        if analysis is not None and (analysis.uncapped.dist is None or analysis.uncapped.m2 is None):
            analysis = None  # no exact part to mix: the round's moments, and the whole round sampled
        level = "moments"  # an exact part and uncovered parts: σ from the moments, the distribution mixed
    if analysis is None:
        analysis = analyse(game, reels, lines=lines, coins=coins, level=level, parallel=parallel)
    more: dict[str, Any] = {}
    if level == "moments":
        more = _moment_figures(analysis)
        if analysis.uncapped.uncovered and sampler is None:
            more["not_computed"] = {k: NOT_SAMPLED for k in more["not_computed"]}
        if sampler is not None:
            more["mixed"] = mixed_law(analysis, sampler)
            more["not_computed"] = {}
    limit = analysis.limit
    return RoundSheet(**_common(analysis, game), cap_probability=limit.p if limit else None,
                      cap_probability_bound=bool(limit and limit.p_is_bound), **more)


def mixed_law(analysis: RoundAnalysis, sampler: Sampler) -> MixedLaw:
    """The round's win law: the analysis' exact sub-distribution mixed with the sampled uncovered routes.

    A round analysed to its moments only has no exact part: the whole round is then sampled (route
    :data:`ROUND`, tagged ``sampled``).  The cap applies to both parts (the simulator ends a round at
    the cap); P(cap) and the RTP it removes are bounded by the round's proven tail bound where that is
    tighter than the sample.
    """
    before = analysis.uncapped
    bet = analysis.total_bet
    limit = analysis.limit
    cap = None if limit is None else int(limit.credits)
    d = analysis.outcome.dist if analysis.level == "distribution" else None  # the covered part, capped
    if d is None:
        exact = RoundPart((), ())
        routes: list[tuple[str, Fraction]] = [(ROUND, Fraction(1))]
    else:
        exact = RoundPart(tuple(d.values.tolist()), tuple(d.probs.tolist()), lost_mass=float(d.lost_mass))
        routes = [(u.route, Fraction(u.probability)) for u in before.uncovered]
    samples = _samples(analysis, sampler, [r for r, _ in routes])
    reachable = limit is not None and limit.reachable
    bound = None if limit is None else limit.tail_bound()
    seeds = {s.seed for s in samples.values()}
    law = mix(exact, routes, samples, bet=bet, cap=cap, cap_bound=bound, cap_reachable=reachable,
              seed=seeds.pop() if len(seeds) == 1 else None, tail=before.tail)
    why = [f"{u.route}: {u.why}" for u in before.uncovered]
    return replace(law, notes=(*law.notes, *why)) if why else law


RARE_SHARE = 4
"""An importance-sampled route (:mod:`mathkit.round.rare`) draws ``rounds // RARE_SHARE`` of the sampler's rounds: a
draw plays only the route's free spins (its start is drawn from its exact law)."""


def _samples(analysis: RoundAnalysis, sampler: Sampler, routes: Sequence[str]) -> dict[str, RouteSample]:
    """Each route's sample: by importance sampling where :func:`mathkit.round.rare.rare_route` models the route,
    else by ``sampler``; each with the route's proven top (no event above it can happen)."""
    from ..laws.mixture import DEFAULT_ROUNDS, DEFAULT_SEED
    from ..round import rare

    rounds = int(getattr(sampler, "rounds", DEFAULT_ROUNDS))
    seed = int(getattr(sampler, "seed", DEFAULT_SEED))
    out: dict[str, RouteSample] = {}
    for r in routes:
        rr = rare.rare_route(analysis, r)
        if rr is not None:
            out[r] = rare.sample_rare(analysis.game, rr, max(rounds // RARE_SHARE, 1), seed,
                                      lines=analysis.engine.lines, coins=analysis.engine.coins)
    rest = [r for r in routes if r not in out]
    if rest:
        out.update(sampler(rest))
    tops = {u.route: u.top for u in analysis.uncapped.uncovered}
    return {r: replace(s, top=tops.get(r)) for r, s in out.items()}


NOT_COMPUTED = ("not computed exactly: `mathkit par` mixes in sampled parts (--sample-rounds, --seed); "
                "see also mathkit simulate")
NOT_SAMPLED = "needs its uncovered parts sampled: `mathkit par` samples them (--sample-rounds, --seed)"


def _moment_figures(analysis: RoundAnalysis) -> dict[str, Any]:
    """σ of a round analysed to its second moments, and what such a sheet leaves out.

    σ is that of the round before the cap when a tail bound (not the distribution) settles the
    cap: the cap then changes the round's win only with the tiny probability shown as P(cap).
    """
    sd, gap = analysis.sd
    note = ("σ of the whole round from its exact second moment (every feature's moment recursion; line pairs "
            "for spins with fixed wild cells)")
    if gap is not None and math.isfinite(gap):
        note += (f"; with the cap it is the same within {gap:.2g} × bet (a bound on E[Y² − min(Y, c)²] from the "
                 "round's Chernoff tail bounds)")
    elif gap is not None:
        note += "; before the cap, which a tail bound shows is reached with probability below P(cap) shown"
    missing = {k: NOT_COMPUTED for k in ("hit_frequency", "hit_frequency_win_ge_bet", "max_win", "max_win_probability",
                                         "p_win_ge")}
    return {"sd_moments": sd, "sd_note": note, "not_computed": missing}


def build_par(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
              parallel: bool = False, sessions: bool = False) -> ParSheet:
    """Build the PAR sheet of ``game`` on reel set ``reels`` (default set when ``None``).

    The round is composed from the game's blocks (:func:`mathkit.round.analyse`):
    features appear as components, sections and in the distribution of a whole
    round; σ comes from the round's second moment (exact where every part is).
    A game whose blocks cannot give the round's distribution is refused: see
    :func:`build_sheet`.
    ``sessions``: add the sessions section (:func:`session_section`; from 0.05 s for a
    5-credit bet to about 2 s of CPU for a 1-credit lattice under a 30-credit bet).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> par = build_par(load_game("data/games/classic_3reel.toml"))
    >>> par.rtp.method, sum(c.exact for c in par.components.values()) == par.rtp.exact
    ('exact', True)
    """
    if sheet_level(game) != "distribution":
        msg = (f"{game.name}: a feature block gives the round's means only, not its distribution; "
               "build_sheet gives the PAR sheet's mean figures")
        raise ModelError(msg)
    analysis = analyse(game, reels, lines=lines, coins=coins, level="distribution", parallel=parallel)
    if analysis.uncapped.uncovered:
        msg = (f"{game.name}: the exact distribution leaves out {', '.join(u.route for u in analysis.uncapped.uncovered)}; "
               "build_sheet(..., sampler=...) mixes in their sampled laws")
        raise ModelError(msg)
    return _build_par(analysis, sessions=sessions)


def _build_par(analysis: RoundAnalysis, *, sessions: bool = False) -> ParSheet:
    """The :class:`ParSheet` of a round analysed to its whole exact distribution."""
    game = analysis.game
    common = _common(analysis, game)
    bet = analysis.total_bet
    total = common["rtp"].exact if common["rtp"].exact is not None else common["rtp"].value
    play = analysis.law
    if play is None:
        msg = f"{game.name}: the PAR sheet needs the round analysed to its distribution"
        raise ModelError(msg)
    pmeth: Method = play.method
    sd_fig, _ = analysis.sd
    sd, smeth = sd_fig.value, sd_fig.method
    return ParSheet(
        **common,
        cap_probability=analysis.limit.p if analysis.limit is not None else None,
        hit_frequency=_figure(play.hit_frequency(), pmeth),
        hit_frequency_bet=_figure(play.sf(bet), pmeth),
        sd=Figure(sd, smeth),
        volatility_index={k: Figure(z * sd, smeth) for k, z in Z.items()},
        rtp_range={k: tuple((n, float(total) - z * sd / math.sqrt(n), float(total) + z * sd / math.sqrt(n))
                            for n in RANGE_SPINS) for k, z in Z.items()},
        max_win=Figure(play.max_win / bet, pmeth, Fraction(play.max_win, bet) if pmeth == "exact" else None),
        max_win_probability=_figure(play.p_max(), pmeth),
        tails={m: _figure(play.sf_bet(m), pmeth) for m in TAILS},
        distribution=play,
        sessions=session_section(play) if sessions else None,
    )
