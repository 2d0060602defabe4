"""Tuning one game: :func:`tune` (its outcome is a :class:`~mathkit.tuner.result.TuneResult`).

The search is a sequence of integer programs on the design (per-reel symbol
counts, stop weights or pays), each verified exactly:

1. **Global step** — the fewest edits whose modelled figures fall inside every
   band (:mod:`mathkit.tuner.milp`), the models taken at the best design so far
   (:mod:`mathkit.tuner.model`); from the second step on, within a trust region
   around it.  Across reels the model is first-order, so the RTP it lands may
   miss its band by a little; the next stage lands it exactly.
2. **Exact polish** — the design is laid out on the strips
   (:mod:`mathkit.tuner.place`) and measured exactly; while the RTP (or another
   mean-level band) is missed, one reel at a time is re-solved from fresh exact
   differences.  On unweighted strips a change on one reel moves the line RTP
   exactly linearly, so this step lands inside ±0.005 pp whenever one reel can.
3. **Verification** — σ and hit frequency are measured exactly (the whole
   play's moments); their surrogate is refitted, and the loop goes on from the
   best design until every band is met, no step improves, or the step budget ends.

Designs are compared by how far they miss the bands (RTP and the kept
feature frequency first), then by their stop edits.  Several candidates
(``candidates=K``) are found by steering σ into K sub-bands across its target
band (or across ±10% of the first solution's σ when σ is not a target).  Every
figure of a result is exact; a target out of reach is reported with the closest
figures found.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import ModelError
from ..model.fields import suggest
from ..model.game import Game
from ..model.validate import validate_game
from ..round import RoundAnalysis
from .changes import diff
from .constraints import Constraints
from .differences import Linearization, line_stats, linearize
from .measure import Figures, measure_analysis
from .milp import solve_step
from .model import Row, Surrogate, rows_for
from .result import Candidate, TuneResult, declared_after, rank
from .space import IntArray, ReelLayoutError, Space
from .targets import Target, TargetSet

__all__ = ["tune"]

#: approximate figures (σ, hit frequency, 1 in N) aim this share of their half-band inside the band
MARGIN = 0.3
#: branch-and-bound nodes of one integer program (HiGHS returns the best design found by then): a work limit,
#: not a clock, so a tuning is reproducible on a busy machine
STEP_NODES = 1000
POLISH_NODES = 300
#: weight of a band's miss when comparing designs
PRIORITY = {"rtp": 1000.0, "kept:feature_frequency": 1000.0}


@dataclass(frozen=True, eq=False)
class _Point:
    x: IntArray
    game: Game
    figs: Figures
    analysis: RoundAnalysis
    edits: int


class _Solver:
    def __init__(self, space: Space, goals: tuple[Target, ...], moments: bool, deadline: float,
                 before: tuple[Figures, RoundAnalysis]) -> None:
        self.space = space
        self.goals = goals
        self.moments = moments
        self.deadline = deadline
        self.evaluations = 0
        self.forbid: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        self.cache: dict[bytes, _Point] = {}
        self.start = self.point(space.x_start, space.start, before)
        self.lin = {space.x_start.tobytes(): linearize(space, space.start, space.x_start)}
        lin0 = self.lin[space.x_start.tobytes()]
        self.sur = Surrogate(space, lin0, self.start.figs, self.start.analysis) if moments else None

    def point(self, x: IntArray, game: Game | None = None, measured: tuple[Figures, RoundAnalysis] | None = None) -> _Point:
        key = x.tobytes()
        if key not in self.cache:
            g = self.space.realise(x) if game is None else game
            if measured is None:
                measured = measure_analysis(g, self.space.play, "moments" if self.moments else "mean")
                self.evaluations += 1
            figs, an = measured
            edits = diff(self.space.start, g).count
            self.cache[key] = _Point(x.copy(), g, figs, an, edits)
            if self.moments and getattr(self, "sur", None) is not None:
                assert self.sur is not None
                self.sur.add(line_stats(self.space, g), figs)
        return self.cache[key]

    def merit(self, pt: _Point, goals: tuple[Target, ...]) -> tuple[float, int]:
        """How a design ranks for ``goals``: its weighted misses, then its edits."""
        return self.miss(pt.figs, goals), pt.edits

    def miss(self, figs: Figures, goals: Iterable[Target] | None = None) -> float:
        total = 0.0
        for t in self.goals if goals is None else goals:
            v = figs.value(t.figure.removeprefix("kept:"))
            if v is None:
                continue
            total += PRIORITY.get(t.figure, 1.0 if t.figure in ("sd", "vi", "hit_frequency") else 100.0) * t.miss(v)
        return round(total, 9)

    def linearization(self, pt: _Point) -> Linearization:
        key = pt.x.tobytes()
        if key not in self.lin:
            self.lin[key] = linearize(self.space, pt.game, pt.x)
        return self.lin[key]

    def rows(self, pt: _Point, goals: tuple[Target, ...]) -> list[Row]:
        """The model rows of ``goals`` around design ``pt``."""
        plain = [dataclasses.replace(t, figure=t.figure.removeprefix("kept:")) for t in goals]
        return rows_for(tuple(plain), self.linearization(pt), self.sur, pt.figs if self.moments else None, MARGIN)

    def mean_ok(self, figs: Figures, goals: tuple[Target, ...]) -> bool:
        mean_level = [t for t in goals if t.figure.removeprefix("kept:") not in ("sd", "vi", "hit_frequency")]
        return self.miss(figs, mean_level) == 0

    def realise_point(self, x: IntArray) -> _Point | None:
        """The exact point of design ``x``; ``None`` (and that reel's counts forbidden) when a reel cannot be laid out."""
        try:
            return self.point(x)
        except ReelLayoutError as exc:
            ks = tuple(k for k, v in enumerate(self.space.vars) if (v.reels, v.reel) == (exc.reels, exc.reel))
            self.forbid.append((ks, tuple(int(x[k]) for k in ks)))
            return None

    def polish(self, pt: _Point, goals: tuple[Target, ...]) -> _Point:
        """Re-solve one reel at a time from exact differences while a mean-level band is missed."""
        groups: dict[tuple[str, int], list[int]] = {}
        for k, v in enumerate(self.space.vars):
            groups.setdefault((v.reels, v.reel), []).append(k)
        for _ in range(4):
            if self.mean_ok(pt.figs, goals) or time.perf_counter() > self.deadline:
                return pt
            rows = self.rows(pt, goals)
            best: tuple[tuple[float, float], IntArray] | None = None
            for ks in groups.values():
                st = solve_step(self.space, rows, pt.x, self.space.x_start, only=ks, forbid=self.forbid,
                                nodes=POLISH_NODES)
                if st is None:
                    continue
                weights = {r.name: r.weight for r in rows}
                score = (round(sum(weights[n] * m for n, m in st.misses.items()), 6), st.edits)
                if best is None or score < best[0]:
                    best = (score, st.x)
            if best is None or np.array_equal(best[1], pt.x):
                return pt
            new = self.realise_point(best[1])
            if new is None or self.merit(new, goals) >= self.merit(pt, goals):
                return pt if new is None or self.merit(new, goals) > self.merit(pt, goals) else new
            pt = new
        return pt

    def solve(self, goals: tuple[Target, ...], steps: int = 6) -> _Point:
        """The best design found for ``goals`` (see the module notes)."""
        best = self.start
        radius: float | None = None
        tried: set[bytes] = set()
        failures = 0
        for _ in range(steps):
            if time.perf_counter() > self.deadline:
                break
            rows = self.rows(best, goals)
            st = solve_step(self.space, rows, best.x, self.space.x_start, forbid=self.forbid,
                            centre=None if radius is None else best.x, radius=radius, nodes=STEP_NODES)
            if st is None or st.x.tobytes() in tried:
                if radius is None or radius <= 2:
                    break
                radius = max(2.0, radius / 2)
                continue
            tried.add(st.x.tobytes())
            pt = self.realise_point(st.x)
            while pt is None and failures < 20:  # a reel's counts cannot be laid out: forbidden, solve again
                failures += 1
                st = solve_step(self.space, rows, best.x, self.space.x_start, forbid=self.forbid,
                                centre=None if radius is None else best.x, radius=radius, nodes=STEP_NODES)
                pt = None if st is None else self.realise_point(st.x)
            if pt is None:
                break
            pt = self.polish(pt, goals)
            if self.merit(pt, goals) < self.merit(best, goals):
                best = pt
                radius = float(max(4, best.edits))
            else:
                radius = max(2.0, (radius or float(max(4, pt.edits))) / 2)
            if self.miss(best.figs, goals) == 0:
                break
        return best


def _as_targets(game: Game, targets: TargetSet | Iterable[Target] | Fraction | float | str | None,
                reels: str) -> TargetSet:
    if isinstance(targets, TargetSet):
        return targets
    if targets is None:
        return TargetSet.build(game, reels=reels)
    if isinstance(targets, str | float | int | Fraction):
        value = Fraction(str(targets)) if isinstance(targets, float) else Fraction(targets)
        return TargetSet.build(game, [Target.of("rtp", value)], reels)
    return TargetSet.build(game, list(targets), reels)


def _kept(game: Game, targets: TargetSet, cons: Constraints, before: Figures) -> tuple[Target, ...]:
    tol = cons.feature_frequency_tolerance
    if tol is None or not before.feature_p or targets.get("feature_frequency") is not None:
        return ()
    n = 1 / before.feature_p
    return (Target("kept:feature_frequency", n * (1 - tol), n * (1 + tol), n),)


def _candidate(solver: _Solver, pt: _Point, goals: tuple[Target, ...], play: str, rtp_target: Target) -> Candidate:
    figs = pt.figs
    if figs.variance is None:
        figs = measure_analysis(pt.game, play, "moments")[0]
    met = []
    for t in goals:
        v = figs.value(t.figure.removeprefix("kept:"))
        met.append((t.figure, v is not None and t.contains(v)))
    game = declared_after(pt.game, play, Fraction(figs.rtp), rtp_target, dict(met).get("rtp", False))
    validate_game(game)
    return Candidate(game, figs, diff(solver.space.start, game), tuple(met))


def _sd_bands(targets: TargetSet, first: Figures, k: int) -> list[Target]:
    """K σ sub-bands across the σ (or VI) target, or across ±10% of ``first``'s σ."""
    t = targets.get("sd") or targets.get("vi")
    if t is not None:
        lo, hi, figure = t.low, t.high, t.figure
    else:
        s = Fraction(first.sd).limit_denominator(10**6)
        lo, hi, figure = s * Fraction(9, 10), s * Fraction(11, 10), "sd"
    width = (hi - lo) / k
    return [Target(figure, lo + i * width, lo + (i + 1) * width, lo + (i + Fraction(1, 2)) * width) for i in range(k)]


def tune(game: Game, targets: TargetSet | Iterable[Target] | Fraction | float | str | None = None,
         constraints: Constraints | None = None, *, reels: Sequence[str] | str | None = None,
         vary: str | None = None, candidates: int = 1, start: Game | None = None,
         time_limit: float = 120.0) -> TuneResult:
    """Tune ``game`` to ``targets`` under ``constraints`` with the fewest edits; every figure exact.

    Parameters
    ----------
    game
        The original game: count bounds refer to it.
    targets
        A :class:`TargetSet` (exactly these), some :class:`Target` bands (added to,
        or replacing, the game's ``[targets]``: RTP, σ and hit-frequency bands), or
        just the RTP (``0.94``, ``"47/50"``; the game's σ and hit-frequency bands
        still apply).  Without an RTP target the game's target RTP is kept.
    constraints
        What must be kept (default: the game's ``[tuning]`` table, else the defaults of
        :mod:`mathkit.tuner.constraints`).
    reels
        The reel set(s) whose strips may change (default: ``[tuning] reels``, else the
        default set).  Edits of a feature's set are judged by the play from the default set.
    vary
        ``"strips"`` (default), ``"pays"`` or ``"both"``.
    candidates
        Up to this many distinct solutions, across σ from low to high.
    start
        Where edits are counted from (an RTP variant of ``game``); default ``game``.
    time_limit
        Seconds after which no new step starts.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> res = tune(load_game("data/games/dynasty.toml"), "0.94")
    >>> res.reached, res.targets.rtp.contains(res.rtp), res.game.declared_rtp
    (True, True, Fraction(47, 50))
    >>> res.best.edits.count <= 3
    True
    """
    t0, c0 = time.perf_counter(), time.process_time()
    tuning = game.tuning
    if isinstance(reels, str):
        reels = (reels,)
    names = tuple(reels) if reels else (tuning.reels if tuning is not None and tuning.reels else (game.default_reels,))
    how = vary or (tuning.vary if tuning is not None and tuning.vary else "strips")
    cons = constraints if constraints is not None else Constraints.build(game)
    space = Space(game, start or game, names, how, cons)
    goal = _as_targets(game, targets, space.play)
    moments = bool(goal.secondary) or candidates > 1
    measured = measure_analysis(space.start, space.play, "moments")
    before = measured[0]
    components = [k for k, _ in before.components]
    for t in goal.items:
        name = t.figure.partition(":")[2]
        if t.figure.startswith("component:") and name not in components:
            msg = f"{game.name}: no RTP component {name!r} to target"
            raise ModelError(msg, field="--component", fix=suggest(name, components))
        if before.value(t.figure) is None:
            why = {"feature_frequency": "the game has no feature", "top_award": "the game has no line pays",
                   "hit_frequency": "its base spin is a mixture of spin models (a modifier block)"}
            msg = f"{game.name}: a {t.label} target cannot be measured: {why.get(t.figure, 'not measured')}"
            raise ModelError(msg)
    kept = _kept(game, goal, cons, before)
    goals = (*goal.items, *kept)
    solver = _Solver(space, goals, moments, t0 + time_limit, measured)
    main = solver.solve(goals)
    found = [main]
    if candidates > 1:
        for band in _sd_bands(goal, main.figs, candidates):
            if band.contains(main.figs.sd):
                continue
            steer = (*(t for t in goals if t.figure not in ("sd", "vi")), band)
            pt = solver.solve(steer, steps=4)
            if all(not np.array_equal(pt.x, q.x) for q in found) and solver.miss(pt.figs) <= solver.miss(main.figs):
                found.append(pt)
        found.sort(key=lambda p: p.figs.sd)
    cands = [_candidate(solver, p, goals, space.play, goal.rtp) for p in found]
    notes = _notes(min(cands, key=rank), goals)
    return TuneResult(game, space.start, names, how, goal, cons, kept, before, tuple(cands), tuple(notes),
                      1 + solver.evaluations + space.evaluations, time.perf_counter() - t0, time.process_time() - c0)


def _notes(c: Candidate, goals: tuple[Target, ...]) -> list[str]:
    out = []
    for t, (_, ok) in zip(goals, c.met, strict=True):
        if ok:
            continue
        v = c.figures.value(t.figure.removeprefix("kept:"))
        what = t.figure.removeprefix("kept:")
        out.append(f"{what} out of reach under the constraints: closest {float(v or 0):.6g} "
                   f"(band {float(t.low):.6g} … {float(t.high):.6g})")
    return out

