"""Exact finite differences of a design: how every figure moves per unit of each variable.

:func:`linearize` measures, at a design, the exact change of every mean-level
figure (RTP by component, feature frequency, top award) and of the per-line
statistics of every tracked reel set (their line RTP, diagonal second moment and
hit rate, from :func:`mathkit.exact.components.component_rtp`: :data:`FEATURES`) for one unit
of each variable: one exact evaluation of a game differing in one stop (or one
stack), one weight or one pay.  On unweighted strips the line RTP is linear in
each reel's counts, so these differences predict any change confined to one
reel exactly; across reels they are a first-order model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..exact.components import ComponentRTP, component_rtp
from ..model.edits import bump_pay, with_reel_set
from ..model.game import Game
from .measure import Figures, measure, top_award_of
from .place import _stretch_middle
from .space import FEATURES, FloatArray, IntArray, Space

__all__ = ["FEATURES", "Linearization", "figure_values", "line_stats", "linearize", "phi_of"]

Offset = tuple[dict[str, float], dict[int, float]]
Record = Callable[..., None]


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


def figure_values(figs: Figures) -> dict[str, float]:
    """The mean-level figures the linear model follows, as floats."""
    out = {"rtp": float(figs.rtp), "feature_p": float(figs.feature_p or 0), "top_award": float(figs.top_award or 0)}
    out.update({f"component:{k}": float(v) for k, v in figs.components})
    return out


def _lines(game: Game) -> int:
    return game.bet.lines if game.pay_mode == "lines" else 1


def line_stats(space: Space, game: Game) -> FloatArray:
    """The per-line statistics of ``game`` in ``space.phi_names`` order."""
    return np.array([v for s in space.tracked for v in phi_of(component_rtp(game, s), _lines(game))],
                    dtype=np.float64)


def _probe(space: Space, game: Game, sets: Iterable[str]) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Mean-level figures (exact round analysis) and the per-line statistics of ``sets``."""
    space.evaluations += 1
    return figure_values(measure(game, space.play)), {s: phi_of(component_rtp(game, s), _lines(game)) for s in sets}


def _lines_probe(space: Space, game: Game, name: str) -> tuple[list[float], float | None]:
    """The per-line statistics of set ``name`` and, on the play set, the top award's probability (no round)."""
    space.evaluations += 1
    comp = component_rtp(game, name)
    return phi_of(comp, _lines(game)), (float(top_award_of(game, comp)) if name == space.play else None)


def _line_symbols(space: Space) -> frozenset[str]:
    """Symbols that only ever act through line pays: not scatters, bonus symbols or symbols a feature reads."""
    game = space.original
    read = {s for f in game.features for s in f.symbols()}
    return frozenset(s.name for s in game.symbols if s.kind in ("regular", "wild") and s.name not in read)


def linearize(space: Space, game: Game, x: IntArray) -> Linearization:
    """Exact figures of ``game`` (design ``x``) and their changes per unit of every variable.

    A change of counts on a reel that only moves symbols acting through line pays moves every
    mean-level figure in proportion to the reel set's line RTP when the round is affine in it (free
    spins are: Wald's identity).  That proportion is measured exactly on the two such changes that
    move the line RTP most; when both agree, the other changes need only the set's line statistics.
    """
    figs = measure(game, space.play)
    space.evaluations += 1
    base = figure_values(figs)
    lines = game.bet.lines if game.pay_mode == "lines" else 1
    phi0 = {s: phi_of(component_rtp(game, s), lines) for s in space.tracked}
    names = sorted(base)
    n = len(space.vars)
    grad = {k: np.zeros(n) for k in names}
    dphi = np.zeros((len(space.phi_names), n))
    row = {name: i for i, name in enumerate(space.phi_names)}

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
    for k, v in enumerate(space.vars):
        if v.kind == "pay":
            record(k, *_probe(space, bump_pay(game, v.cell, 1), space.tracked))
        else:
            by_reel.setdefault((v.reels, v.reel), []).append(k)
    for (name, r), ks in by_reel.items():
        rs = game.reel_set(name)
        if rs.weights is None:
            _count_columns(space, game, name, r, ks, record, base, phi0[name], grad, dphi)
            continue
        ws = rs.weights[r]
        ref = max(ks, key=lambda k: (ws[space.vars[k].stop], -k))
        i0 = space.vars[ref].stop
        for k in ks:
            i = space.vars[k].stop
            if i == i0:
                continue
            w = [list(x) for x in rs.weights]
            w[r][i] += 1
            w[r][i0] -= 1
            record(k, *_probe(space, with_reel_set(game, dataclasses.replace(rs, weights=tuple(map(tuple, w)))),
                                   [name]))
    return Linearization(x.copy(), figs, np.array([v for s in space.tracked for v in phi0[s]]), grad, dphi)

def _count_columns(space: Space, game: Game, name: str, r: int, ks: list[int], record: Record,
                   base: dict[str, float], phi0: list[float], grad: dict[str, FloatArray], dphi: FloatArray) -> None:
    """Columns of one reel's count variables: one stop (or one stack) replaced at a reference stretch, or
    inserted there when lengths may change."""
    rules = space.rules[name]
    rs = game.reel_set(name)
    strip = list(rs.strips[r])
    n = len(strip)
    stacked = {space.vars[k].symbol for k in ks if space.vars[k].unit > 1}
    marks = {i for i, s in enumerate(strip) if s in rules.scatters or s in rules.fixed or s in stacked}
    mid = _stretch_middle(strip, marks)
    k_max = max(space.vars[k].unit for k in ks)
    start = (mid - (k_max - 1) // 2) % n
    stretch = [(start + d) % n for d in range(k_max)]
    if any(i in marks for i in stretch):
        msg = f"{name} reel {r + 1}: no {k_max} consecutive movable stops to measure a stack on"
        raise ModelError(msg)
    i0 = stretch[0]
    s0 = strip[i0]

    grow = not space.cons.keep_length

    def changed(symbol: str, stops: Sequence[int]) -> Game:
        g2 = strip.copy()
        if grow:  # lengths may change: the difference of one (or one stack) more stop of the symbol
            g2[i0:i0] = [symbol] * len(stops)
        else:
            for i in stops:
                g2[i] = symbol
        return with_reel_set(game, dataclasses.replace(rs, strips=_swap(rs.strips, r, g2)))

    per_stop = {space.vars[k].symbol: k for k in ks if space.vars[k].unit == 1}
    line_only = _line_symbols(space)
    singles = [k for k in ks if space.vars[k].unit == 1 and (grow or space.vars[k].symbol != s0)]
    fast = [k for k in singles if space.vars[k].symbol in line_only] if s0 in line_only else []
    lines_of = {k: _lines_probe(space, changed(space.vars[k].symbol, [i0]), name) for k in fast}
    ratio = _ratio(space, fast, lines_of, changed, i0, name, base, phi0[0])
    for k in singles:
        if ratio is not None and k in lines_of:
            ph, top = lines_of[k]
            vals = {key: base[key] + q * (ph[0] - phi0[0]) for key, q in ratio.items()}
            if top is not None:
                vals["top_award"] = top
            record(k, vals, {name: ph})
        else:
            record(k, *_probe(space, changed(space.vars[k].symbol, [i0]), [name]))
    for k in ks:
        v = space.vars[k]
        if v.unit == 1:
            continue
        # k·d(t) = Δ(run of t over the stretch) + Σ d(symbols it replaced), every d relative to s0
        vals, stats = _probe(space, changed(v.symbol, stretch[: v.unit]), [name])
        extra_g: dict[str, float] = {}
        extra_p: dict[int, float] = {}
        for i in stretch[: v.unit] if not grow else ():
            j = per_stop.get(strip[i])
            if j is None:
                msg = f"{name} reel {r + 1}: {strip[i]} has no count variable to measure {v.symbol} against"
                raise ModelError(msg)
            for gname, col in grad.items():
                extra_g[gname] = extra_g.get(gname, 0.0) + float(col[j])
            for row_i in range(dphi.shape[0]):
                extra_p[row_i] = extra_p.get(row_i, 0.0) + float(dphi[row_i, j])
        record(k, vals, stats, (extra_g, extra_p))

def _ratio(space: Space, fast: list[int], lines_of: dict[int, tuple[list[float], float | None]],
           changed: Callable[[str, Sequence[int]], Game], i0: int, name: str, base: dict[str, float],
           c0: float) -> dict[str, float] | None:
    """Mean-level figures per unit of line RTP of set ``name``, when two exact probes agree on it."""
    moved = sorted((k for k in fast if abs(lines_of[k][0][0] - c0) > 1e-12),
                   key=lambda k: -abs(lines_of[k][0][0] - c0))
    if len(moved) < 2:
        return None
    ratios = []
    for k in moved[:2]:
        vals, _ = _probe(space, changed(space.vars[k].symbol, [i0]), [])
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
