"""The design space of a tuning: integer variables, the games they make, and their exact finite differences.

A design is an integer vector ``x``, one entry per :class:`Var`, measured from
the original game:

* ``count`` — how many more stops of one symbol a reel of an unweighted set
  has (in whole stacks for a stacked symbol); the strips are then laid out by
  :func:`~mathkit.tune.place.place` with the fewest edits from the start strips;
* ``weight`` — how much more weight one stop of a weighted (virtual-stop) reel has;
* ``pay`` — how many more credits per coin one pay gets (a per-coin list moves
  by ``coins[i]`` at option ``i``, as :func:`mathkit.sensitivity.bump_pay`).

:meth:`Space.linearize` measures, at a design, the exact change of every
mean-level figure (RTP by component, feature frequency, top award) and of the
per-line statistics of every tracked reel set (their mean, diagonal second
moment and hit rate, from :func:`mathkit.rtp.component_rtp`) for one unit of each
variable: one exact evaluation of a game differing in one stop, one weight or
one pay.  On unweighted strips the line RTP is linear in each reel's counts, so
these differences predict any change confined to one reel exactly.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..game import Game
from ..rtp import ComponentRTP, component_rtp
from ..sensitivity import PayCell, allowed_on, bump_pay, pay_cells, pay_values, play_reels, with_reel_set
from .constraints import Constraints, SetRules, count_bounds, set_rules
from .measure import Figures, measure, top_award_of, top_cell
from .place import PlacementError, _stretch_middle, place

__all__ = ["FEATURES", "Kind", "Linearization", "ReelLayoutError", "Space", "Var", "phi_of"]

Kind = Literal["count", "weight", "pay"]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Offset = tuple[dict[str, float], dict[int, float]]
Record = Callable[..., None]
#: per-line statistics of a reel set: line RTP, diagonal second moment (per bet²), P(a line pays), P(a scatter pays)
FEATURES = ("C", "Q", "H", "S")


@dataclass(frozen=True)
class Var:
    """One integer design variable (see the module notes); ``lo``/``hi`` bound it, ``n0`` is the original value."""

    kind: Kind
    reels: str
    reel: int
    symbol: str
    stop: int = -1
    count: int = 0
    scatter_pay: bool = False
    unit: int = 1
    n0: int = 0
    lo: int = 0
    hi: int = 0

    @property
    def cell(self) -> PayCell:
        return PayCell("scatter" if self.scatter_pay else "lines", self.symbol, self.count)

    @property
    def label(self) -> str:
        if self.kind == "pay":
            return self.cell.label()
        where = f"{self.reels} reel {self.reel + 1}"
        return f"{where} {self.symbol}" + (f" (stop {self.stop})" if self.kind == "weight" else "")


@dataclass(frozen=True, eq=False)
class Linearization:
    """Exact figures at design ``x`` and their changes per unit of each variable.

    ``grad[name]`` is d(figure)/d(x) for ``rtp``, ``component:NAME``,
    ``feature_p`` and ``top_award``; ``phi`` the per-line statistics
    (:data:`FEATURES` of every tracked reel set, in ``Space.phi_names`` order) and
    ``dphi`` their changes (one row per statistic).
    """

    x: IntArray
    figures: Figures
    phi: FloatArray
    grad: dict[str, FloatArray]
    dphi: FloatArray


def phi_of(comp: ComponentRTP, lines: int) -> list[float]:
    """The per-line statistics of one reel set from its exact component RTP (see :data:`FEATURES`)."""
    tb, cyc = comp.total_bet, comp.cycle
    ent = [e for e in comp.entries if e.component != "scatter" and e.hits]
    c = sum(e.credits for e in ent) / (cyc * tb)
    q = sum(e.credits * e.credits / e.hits for e in ent) / (cyc * tb * tb)
    h = sum(e.hits for e in ent) / (cyc * max(lines, 1))
    s = sum(e.hits for e in comp.entries if e.component == "scatter") / cyc
    return [c, q, h, s]


class ReelLayoutError(PlacementError):
    """The counts of one reel (``reels``, ``reel``) of a design cannot be laid out."""

    def __init__(self, msg: str, reels: str, reel: int) -> None:
        super().__init__(f"{reels} reel {reel + 1}: {msg}")
        self.reels = reels
        self.reel = reel


class Space:
    """The variables of one tuning of ``original``, starting from ``start`` (the original or an RTP variant of it).

    Parameters
    ----------
    original
        The game whose counts, weights and pays the bounds refer to.
    start
        The game edits are counted from (and strips laid out from).
    reels
        The reel sets whose strips (or weights) may change.
    vary
        ``"strips"``, ``"pays"`` or ``"both"``.
    constraints
        What must be kept.
    """

    def __init__(self, original: Game, start: Game, reels: Sequence[str], vary: str, constraints: Constraints) -> None:
        self.original = original
        self.start = start
        self.cons = constraints
        self.reels = tuple(reels)
        self.play = play_reels(original, self.reels[0] if self.reels else None)
        self.rules: dict[str, SetRules] = {}
        out: list[Var] = []
        if vary in ("strips", "both"):
            for name in self.reels:
                rs = original.reel_set(name)
                rules = set_rules(original, name, constraints)
                self.rules[name] = rules
                out += self._weight_vars(name, rules) if rs.weights is not None else self._count_vars(name, rules)
        if vary in ("pays", "both"):
            out += self._pay_vars()
        if not out:
            msg = "nothing may change: every symbol is fixed and no pay may move"
            raise ModelError(msg)
        self.vars: tuple[Var, ...] = tuple(out)
        sets = [self.play, *self.reels]
        for f in original.features:
            sets += list(f.reel_sets())
        self.tracked: tuple[str, ...] = tuple(dict.fromkeys(sets))
        self.phi_names = tuple((s, f) for s in self.tracked for f in FEATURES)
        self._placed: dict[tuple[str, int, tuple[tuple[str, int], ...]], tuple[str, ...]] = {}
        self.x_start = self.design(start)
        self.evaluations = 0

    # ------------------------------------------------------------------ variables
    def _count_vars(self, name: str, rules: SetRules) -> list[Var]:
        out = []
        for rr in rules.reels:
            for s, (lo, hi) in rr.bounds.items():
                n0 = rr.counts.get(s, 0)
                if (n0 == 0 and hi == 0) or not allowed_on(self.original, s, rr.reel):
                    continue
                k = rr.stack.get(s, 1)
                out.append(Var("count", name, rr.reel, s, unit=k, n0=n0, lo=-((n0 - lo) // k), hi=(hi - n0) // k))
        return out

    def _weight_vars(self, name: str, rules: SetRules) -> list[Var]:
        rs = self.original.reel_set(name)
        assert rs.weights is not None
        out = []
        for r, (strip, ws) in enumerate(zip(rs.strips, rs.weights, strict=True)):
            for i, (s, w) in enumerate(zip(strip, ws, strict=True)):
                if s in rules.fixed:
                    continue
                lo, hi = count_bounds(w, self.cons.count_tolerance)
                out.append(Var("weight", name, r, s, stop=i, n0=w, lo=lo - w, hi=hi - w))
        return out

    def _pay_vars(self) -> list[Var]:
        out = []
        for cell in pay_cells(self.original):
            v0 = pay_values(self.original, cell)[0]
            if v0 <= 0:
                continue
            lo, hi = count_bounds(v0, self.cons.count_tolerance)
            out.append(Var("pay", "", -1, cell.entry, count=cell.count, scatter_pay=cell.kind == "scatter", n0=v0,
                           lo=lo - v0, hi=hi - v0))
        return out

    def lower(self) -> IntArray:
        return np.array([v.lo for v in self.vars], dtype=np.int64)

    def upper(self) -> IntArray:
        return np.array([v.hi for v in self.vars], dtype=np.int64)

    # ------------------------------------------------------------------ designs and games
    def design(self, game: Game) -> IntArray:
        """The design ``x`` of ``game`` (a tuned version of the original)."""
        x = np.zeros(len(self.vars), dtype=np.int64)
        counts: dict[tuple[str, int], Counter[str]] = {}
        for k, v in enumerate(self.vars):
            if v.kind == "count":
                c = counts.setdefault((v.reels, v.reel), Counter(game.reel_set(v.reels).strips[v.reel]))
                x[k] = (c[v.symbol] - v.n0) // v.unit
            elif v.kind == "weight":
                ws = game.reel_set(v.reels).weights
                assert ws is not None
                x[k] = ws[v.reel][v.stop] - v.n0
            else:
                x[k] = pay_values(game, v.cell)[0] - v.n0
        return x

    def stop_counts(self, x: IntArray) -> dict[tuple[str, int], dict[str, int]]:
        """Target counts per (reel set, reel) of design ``x`` (count variables only)."""
        out: dict[tuple[str, int], dict[str, int]] = {}
        for v, xv in zip(self.vars, x.tolist(), strict=True):
            if v.kind == "count":
                key = (v.reels, v.reel)
                if key not in out:
                    out[key] = dict(Counter(self.start.reel_set(v.reels).strips[v.reel]))
                out[key][v.symbol] = v.n0 + v.unit * xv
        return out

    def realise(self, x: IntArray) -> Game:
        """The game of design ``x``: strips laid out from the start game's, weights and pays set.

        Raises
        ------
        ModelError
            When a reel's counts cannot be laid out under the stack, run and spacing rules.
        """
        game = self.start
        for (name, r), target in self.stop_counts(x).items():
            rs = game.reel_set(name)
            try:
                strip = self._place(name, r, target)
            except PlacementError as exc:
                raise ReelLayoutError(str(exc), name, r) from None
            if strip != rs.strips[r]:
                strips = list(rs.strips)
                strips[r] = strip
                game = with_reel_set(game, dataclasses.replace(rs, strips=tuple(strips)))
        weights: dict[str, list[list[int]]] = {}
        for v, xv in zip(self.vars, x.tolist(), strict=True):
            if v.kind == "weight":
                ws = weights.setdefault(v.reels, [list(w) for w in game.reel_set(v.reels).weights or ()])
                ws[v.reel][v.stop] = v.n0 + xv
        for name, ws in weights.items():
            game = with_reel_set(game, dataclasses.replace(game.reel_set(name), weights=tuple(map(tuple, ws))))
        for v, xv in zip(self.vars, x.tolist(), strict=True):
            if v.kind == "pay":
                now = pay_values(game, v.cell)[0]
                if now != v.n0 + xv:
                    game = bump_pay(game, v.cell, v.n0 + xv - now)
        return game

    def _place(self, name: str, r: int, target: dict[str, int]) -> tuple[str, ...]:
        key = (name, r, tuple(sorted(target.items())))
        if key not in self._placed:
            rules = self.rules[name]
            rr = rules.reels[r]
            start = self.start.reel_set(name).strips[r]
            want = {s: c for s, c in target.items() if c > 0}
            if Counter(start) == Counter(want):
                self._placed[key] = start
            else:
                self._placed[key] = place(start, want, fixed=rules.fixed, stack=rr.stack, max_run=rr.max_run,
                                          scatters=rules.scatters, spacing=rules.spacing)
        return self._placed[key]

    # ------------------------------------------------------------------ exact finite differences
    def _probe(self, game: Game, sets: Iterable[str]) -> tuple[dict[str, float], dict[str, list[float]]]:
        """Mean-level figures (exact round analysis) and the per-line statistics of ``sets``."""
        self.evaluations += 1
        lines = game.bet.lines if game.pay_mode == "lines" else 1
        return self.values(measure(game, self.play)), {s: phi_of(component_rtp(game, s), lines) for s in sets}

    def _lines_probe(self, game: Game, name: str) -> tuple[list[float], float | None]:
        """The per-line statistics of set ``name`` and, on the play set, the top award's probability (no round)."""
        self.evaluations += 1
        comp = component_rtp(game, name)
        lines = game.bet.lines if game.pay_mode == "lines" else 1
        return phi_of(comp, lines), (float(top_award_of(game, comp)) if name == self.play else None)

    def values(self, figs: Figures) -> dict[str, float]:
        """The mean-level figures the linear model follows, as floats."""
        out = {"rtp": float(figs.rtp), "feature_p": float(figs.feature_p or 0), "top_award": float(figs.top_award or 0)}
        out.update({f"component:{k}": float(v) for k, v in figs.components})
        return out

    def phi(self, game: Game) -> FloatArray:
        """The per-line statistics of ``game`` (``phi_names`` order)."""
        lines = game.bet.lines if game.pay_mode == "lines" else 1
        return np.array([v for s in self.tracked for v in phi_of(component_rtp(game, s), lines)], dtype=np.float64)

    def _line_symbols(self) -> frozenset[str]:
        """Symbols that only ever act through line pays: not scatters, bonus symbols or symbols a feature reads."""
        read = {s for f in self.original.features for s in f.symbols()}
        return frozenset(s.name for s in self.original.symbols if s.kind in ("regular", "wild") and s.name not in read)

    def linearize(self, game: Game, x: IntArray) -> Linearization:
        """Exact figures of ``game`` (design ``x``) and their changes per unit of every variable.

        A change of counts on a reel that only moves symbols acting through line pays moves every
        mean-level figure in proportion to the reel set's line RTP when the round is affine in it (free
        spins are: Wald's identity).  That proportion is measured exactly on the two such changes that
        move the line RTP most; when both agree, the other changes need only the set's line statistics.
        """
        figs = measure(game, self.play)
        self.evaluations += 1
        base = self.values(figs)
        lines = game.bet.lines if game.pay_mode == "lines" else 1
        phi0 = {s: phi_of(component_rtp(game, s), lines) for s in self.tracked}
        names = sorted(base)
        n = len(self.vars)
        grad = {k: np.zeros(n) for k in names}
        dphi = np.zeros((len(self.phi_names), n))
        row = {name: i for i, name in enumerate(self.phi_names)}

        def record(k: int, vals: dict[str, float], ph: dict[str, list[float]], extra: Offset | None = None) -> None:
            for name in names:
                grad[name][k] = vals.get(name, 0.0) - base[name] + (extra[0].get(name, 0.0) if extra else 0.0)
            for s, values in ph.items():
                for j, feat in enumerate(FEATURES):
                    dphi[row[(s, feat)], k] = values[j] - phi0[s][j]
            if extra is not None:
                for i, d in extra[1].items():
                    dphi[i, k] += d

        by_reel: dict[tuple[str, int], list[int]] = {}
        for k, v in enumerate(self.vars):
            if v.kind == "pay":
                record(k, *self._probe(bump_pay(game, v.cell, 1), self.tracked))
            else:
                by_reel.setdefault((v.reels, v.reel), []).append(k)
        for (name, r), ks in by_reel.items():
            rs = game.reel_set(name)
            if rs.weights is None:
                self._count_columns(game, name, r, ks, record, base, phi0[name], grad, dphi)
                continue
            ws = rs.weights[r]
            ref = max(ks, key=lambda k: (ws[self.vars[k].stop], -k))
            i0 = self.vars[ref].stop
            for k in ks:
                i = self.vars[k].stop
                if i == i0:
                    continue
                w = [list(x) for x in rs.weights]
                w[r][i] += 1
                w[r][i0] -= 1
                record(k, *self._probe(with_reel_set(game, dataclasses.replace(rs, weights=tuple(map(tuple, w)))),
                                       [name]))
        return Linearization(x.copy(), figs, np.array([v for s in self.tracked for v in phi0[s]]), grad, dphi)

    def _count_columns(self, game: Game, name: str, r: int, ks: list[int], record: Record, base: dict[str, float],
                       phi0: list[float], grad: dict[str, FloatArray], dphi: FloatArray) -> None:
        """Columns of one reel's count variables: one stop (or one stack) replaced at a reference stretch."""
        rules = self.rules[name]
        rs = game.reel_set(name)
        strip = list(rs.strips[r])
        n = len(strip)
        stacked = {self.vars[k].symbol for k in ks if self.vars[k].unit > 1}
        marks = {i for i, s in enumerate(strip) if s in rules.scatters or s in rules.fixed or s in stacked}
        mid = _stretch_middle(strip, marks)
        k_max = max(self.vars[k].unit for k in ks)
        start = (mid - (k_max - 1) // 2) % n
        stretch = [(start + d) % n for d in range(k_max)]
        if any(i in marks for i in stretch):
            msg = f"{name} reel {r + 1}: no {k_max} consecutive movable stops to measure a stack on"
            raise ModelError(msg)
        i0 = stretch[0]
        s0 = strip[i0]

        def changed(symbol: str, stops: Sequence[int]) -> Game:
            g2 = strip.copy()
            for i in stops:
                g2[i] = symbol
            return with_reel_set(game, dataclasses.replace(rs, strips=_swap(rs.strips, r, g2)))

        per_stop = {self.vars[k].symbol: k for k in ks if self.vars[k].unit == 1}
        line_only = self._line_symbols()
        singles = [k for k in ks if self.vars[k].unit == 1 and self.vars[k].symbol != s0]
        fast = [k for k in singles if self.vars[k].symbol in line_only] if s0 in line_only else []
        lines_of = {k: self._lines_probe(changed(self.vars[k].symbol, [i0]), name) for k in fast}
        ratio = self._ratio(fast, lines_of, changed, i0, name, base, phi0[0])
        for k in singles:
            if ratio is not None and k in lines_of:
                ph, top = lines_of[k]
                vals = {key: base[key] + q * (ph[0] - phi0[0]) for key, q in ratio.items()}
                if top is not None:
                    vals["top_award"] = top
                record(k, vals, {name: ph})
            else:
                record(k, *self._probe(changed(self.vars[k].symbol, [i0]), [name]))
        for k in ks:
            v = self.vars[k]
            if v.unit == 1:
                continue
            # k·d(t) = Δ(run of t over the stretch) + Σ d(symbols it replaced), every d relative to s0
            vals, stats = self._probe(changed(v.symbol, stretch[: v.unit]), [name])
            extra_g: dict[str, float] = {}
            extra_p: dict[int, float] = {}
            for i in stretch[: v.unit]:
                j = per_stop.get(strip[i])
                if j is None:
                    msg = f"{name} reel {r + 1}: {strip[i]} has no count variable to measure {v.symbol} against"
                    raise ModelError(msg)
                for gname, col in grad.items():
                    extra_g[gname] = extra_g.get(gname, 0.0) + float(col[j])
                for row_i in range(dphi.shape[0]):
                    extra_p[row_i] = extra_p.get(row_i, 0.0) + float(dphi[row_i, j])
            record(k, vals, stats, (extra_g, extra_p))

    def _ratio(self, fast: list[int], lines_of: dict[int, tuple[list[float], float | None]],
               changed: Callable[[str, Sequence[int]], Game], i0: int, name: str, base: dict[str, float],
               c0: float) -> dict[str, float] | None:
        """Mean-level figures per unit of line RTP of set ``name``, when two exact probes agree on it."""
        moved = sorted((k for k in fast if abs(lines_of[k][0][0] - c0) > 1e-12),
                       key=lambda k: -abs(lines_of[k][0][0] - c0))
        if len(moved) < 2:
            return None
        ratios = []
        for k in moved[:2]:
            vals, _ = self._probe(changed(self.vars[k].symbol, [i0]), [])
            dc = lines_of[k][0][0] - c0
            ratios.append({key: (vals[key] - base[key]) / dc for key in base if key != "top_award"})
        a, b = ratios
        if all(abs(a[key] - b[key]) <= 1e-9 * max(1.0, abs(a[key])) for key in a):
            return a
        return None


def _swap(strips: tuple[tuple[str, ...], ...], r: int, strip: list[str]) -> tuple[tuple[str, ...], ...]:
    out = list(strips)
    out[r] = tuple(strip)
    return tuple(out)


def exact_rtp_of(figs: Figures) -> Fraction:
    """The figures' RTP as a Fraction (the tuner's games are exact at the mean level)."""
    if not isinstance(figs.rtp, Fraction):
        msg = f"the RTP is not exact ({figs.method}): the tuner needs an exact RTP"
        raise ModelError(msg)
    return figs.rtp


__all__ += ["exact_rtp_of", "top_cell"]
