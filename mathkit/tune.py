"""Solving strips or pays for a target RTP, exactly: ``mathkit tune``.

The search is an integer local search on the design itself — which symbol sits
on which stop, stop weights, integer pays — with the exact RTP of every
candidate from the fast path (:func:`mathkit.sensitivity.exact_rtp`, free
spins included).  No float ever decides whether the target is met: the result
is within ``tolerance`` (default ±0.005 pp) of the target in exact arithmetic,
or the nearest design found is returned with ``reached=False``.

How it searches
---------------
1. A linear model of the RTP in the design: for each reel ``r`` and symbol
   ``u`` the exact RTP given one more ``u`` on ``r`` (add-one-stop, see
   :mod:`mathkit.sensitivity`); for each pay, the exact change of one credit.
   On unweighted strips the line RTP is linear in one reel's symbol counts, so
   the model predicts any one-stop replacement exactly (scatters too, while they
   stay ``rows`` apart); free spins make it approximate.
2. Steepest descent: the single moves whose predicted RTP is closest to the
   target are made on a copy and evaluated exactly; the best one that gets
   closer is kept.  The model is rebuilt after every move when an exact
   evaluation is cheap (under 5 ms), every third move otherwise, and always
   before giving up on single moves.
3. When no single move gets closer, pairs of moves (sums of predictions, all
   pairs ranked with numpy) are tried the same way; no improving pair ends the
   search at a local optimum (reported as not reached).
4. Hit-frequency and σ targets are secondary: first a descent on
   ``((RTP − T)/0.25 pp)² + ((hf − H)/tol_hf)² + ((σ − S)/tol_σ)²`` with the same
   kind of model built from exact cycle enumerations, until hf and σ are within
   half their tolerances, then the RTP descent that only accepts moves keeping
   them within tolerance (or, if they never got there, no further away).  Both
   refer to one base spin (exact enumeration; free spins add to the RTP but not
   to these two).  ``scipy.optimize`` is not used: the design space is integer
   and the exact evaluations are cheap enough for a direct local search.

Moves and constraints
---------------------
* **strips** (unweighted reels): replace the symbol on one stop (length kept);
  with ``keep_length=False`` also insert or delete a stop.  **weighted** reels:
  move one unit of weight between two stops (total kept), or ±1 weight.
* A move never: touches a ``fixed`` symbol (its stops and count stay as they
  are); puts a symbol on a reel where it was not (so wilds stay on their
  reels); removes the last stop of a paying symbol (in a pay entry, a paying
  scatter, the free-spin trigger) from a reel, so every award stays reachable;
  brings two scatters closer than ``min_scatter_spacing`` stops (default: the
  window height, or the original's closest pair if closer);
  makes a run of one symbol longer than ``max_stack`` (default: that symbol's
  longest run in the original reel set, and at least 2).
* **pays**: one credit per coin more or less on one pay (a per-coin list moves
  by ``coins[i]`` at option ``i``), or all pays scaled by the same factor and
  rounded (only as a first, coarse step).  Positive pays stay ≥ 1, zero pays
  stay zero, pays never fall as the count grows, and a pay larger than another
  at the same count stays at least as large.

The result's declared RTP is the target when it is reached, otherwise the
achieved RTP rounded to 0.0001 pp.

``mathkit tune`` exits with 0 when every target is reached, 1 when a target is
not reachable under the constraints (the nearest design is still written and
the miss is printed), 2 on a bad game file or bad arguments.  Variants
(``--variants 0.92,0.94``) change strips only and write ``STEM_rtp92.toml``,
``STEM_rtp94.toml`` … beside ``--out`` (a target of 0.945 gives ``rtp94_5``),
plus the comparison table ``STEM_variants.csv``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .errors import MathkitError, ModelError
from .game import Game, ReelSet
from .sensitivity import (
    PayCell,
    add_one_stop,
    allowed_on,
    bump_pay,
    exact_rtp,
    pay_cells,
    pay_values,
    play_figures,
    play_reels,
    with_reel_set,
)
from .validate import validate_game

__all__ = ["TOLERANCE", "Constraints", "Move", "TuneResult", "cli", "tune", "tune_variants", "variant_path",
           "variants_table", "write_result"]

#: ±0.005 percentage points
TOLERANCE = Fraction(5, 100_000)
#: the scale of the RTP term while hit frequency and σ are shaped (0.25 pp)
SHAPE_RTP = 0.0025
Vary = Literal["strips", "pays", "both"]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Constraints:
    """What a strip move must respect (see the module notes for the defaults)."""

    keep_length: bool = True
    min_scatter_spacing: int | None = None
    max_stack: int | None = None
    fixed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Move:
    """One accepted change, in words (``reel 3 stop 17: L5 → H1``)."""

    kind: str
    text: str


@dataclass(frozen=True)
class TuneResult:
    """The outcome of :func:`tune`.

    ``game`` is the tuned game with its declared RTP set (see the module notes);
    ``rtp`` its exact RTP; ``hit_frequency`` and ``sd`` are the base spin's when
    secondary targets were asked for (otherwise ``None``).
    """

    game: Game
    original: Game
    reels: str
    target: Fraction
    tolerance: Fraction
    rtp_before: Fraction
    rtp: Fraction
    reached: bool
    moves: tuple[Move, ...]
    evaluations: int
    seconds: float
    hit_frequency: float | None = None
    sd: float | None = None
    secondary_ok: bool | None = None
    notes: tuple[str, ...] = ()

    @property
    def error_pp(self) -> float:
        """Achieved minus target, in percentage points."""
        return 100 * float(self.rtp - self.target)


# --------------------------------------------------------------------------- strip helpers
def _runs(strip: Sequence[str]) -> dict[str, int]:
    """Longest circular run of each symbol."""
    n = len(strip)
    out: dict[str, int] = {}
    if len(set(strip)) == 1:
        return {strip[0]: n}
    start = next(i for i in range(n) if strip[i] != strip[i - 1])
    i = 0
    while i < n:
        s = strip[(start + i) % n]
        j = i
        while j < n and strip[(start + j) % n] == s:
            j += 1
        out[s] = max(out.get(s, 0), j - i)
        i = j
    return out


def _min_gap(strip: Sequence[str], scatters: frozenset[str]) -> int:
    """Smallest circular distance between two scatter stops (``len(strip)`` when fewer than two)."""
    marks = [i for i, s in enumerate(strip) if s in scatters]
    n = len(strip)
    if len(marks) < 2:
        return n
    return min(min((b - a) % n, (a - b) % n) for k, a in enumerate(marks) for b in marks[k + 1:])


def _award_symbols(game: Game) -> frozenset[str]:
    """Symbols an award needs: those in a pay entry, paying scatters, the free-spin trigger, paying wilds."""
    out = {s for e in game.line_pays for s in e.symbols}
    out |= {sp.symbol for sp in game.scatter_pays}
    if game.free_spins is not None:
        out.add(game.free_spins.trigger)
    return frozenset(out)


@dataclass(frozen=True)
class _Rules:
    """Feasibility of strip and pay moves, fixed from the original game."""

    reels: str
    rows: tuple[int, ...]
    weighted: bool
    present: tuple[frozenset[str], ...]
    needed: frozenset[str]
    fixed: frozenset[str]
    scatters: frozenset[str]
    spacing: tuple[int, ...]
    stack: dict[str, int]
    keep_length: bool
    pay_floor: dict[PayCell, int]
    pay_order: tuple[tuple[PayCell, PayCell], ...]

    @classmethod
    def of(cls, game: Game, reels: str, c: Constraints) -> _Rules:
        rs = game.reel_set(reels)
        scatters = frozenset(s.name for s in game.scatters)
        unknown = sorted(c.fixed - set(game.symbol_names))
        if unknown:
            msg = f"--fixed names unknown symbols {', '.join(unknown)}; the symbols are {', '.join(game.symbol_names)}"
            raise ModelError(msg)
        stack: dict[str, int] = {}
        for strip in rs.strips:
            for s, k in _runs(strip).items():
                stack[s] = max(stack.get(s, 1), k)
        stack = {s: max(stack.get(s, 1), 2) for s in game.symbol_names}
        if c.max_stack is not None:
            stack = {s: c.max_stack for s in game.symbol_names}
        spacing = []
        for r, strip in enumerate(rs.strips):
            default = min(rs.rows[r], _min_gap(strip, scatters))
            spacing.append(default if c.min_scatter_spacing is None else c.min_scatter_spacing)
        cells = pay_cells(game)
        floor = {cell: (1 if pay_values(game, cell)[0] > 0 else 0) for cell in cells}
        order = []
        for a in cells:
            for b in cells:
                if a == b or a.kind != b.kind or floor[a] == 0:
                    continue
                same_entry = a.entry == b.entry and a.count > b.count
                same_count = a.entry != b.entry and a.count == b.count and pay_values(game, a)[0] > pay_values(game, b)[0]
                if same_entry or same_count:
                    order.append((a, b))  # a must stay >= b
        return cls(
            reels=rs.name, rows=rs.rows, weighted=rs.weights is not None,
            present=tuple(frozenset(strip) for strip in rs.strips), needed=_award_symbols(game), fixed=c.fixed, scatters=scatters,
            spacing=tuple(spacing), stack=stack, keep_length=c.keep_length, pay_floor=floor, pay_order=tuple(order),
        )

    def strip_ok(self, old: Sequence[str], new: Sequence[str], r: int) -> bool:
        """Scatter spacing and stack heights of a changed strip (existing violations may stay, not grow)."""
        if self.scatters & (set(old) | set(new)):
            gap_new = _min_gap(new, self.scatters)
            if gap_new < self.spacing[r] and gap_new < _min_gap(old, self.scatters):
                return False
        runs_old, runs_new = _runs(old), _runs(new)
        return all(k <= max(self.stack.get(s, 1), runs_old.get(s, 0)) for s, k in runs_new.items())

    def pays_ok(self, game: Game) -> bool:
        for cell, lo in self.pay_floor.items():
            v = pay_values(game, cell)
            if (lo and min(v) < lo) or (not lo and max(v) != 0):
                return False
        return all(pay_values(game, a)[0] >= pay_values(game, b)[0] for a, b in self.pay_order)


# --------------------------------------------------------------------------- moves on a game
def _set_strip(game: Game, rs: ReelSet, r: int, strip: tuple[str, ...], weights: tuple[int, ...] | None) -> Game:
    strips = list(rs.strips)
    strips[r] = strip
    ws = None
    if rs.weights is not None:
        wl = list(rs.weights)
        assert weights is not None
        wl[r] = weights
        ws = tuple(wl)
    return with_reel_set(game, dataclasses.replace(rs, strips=tuple(strips), weights=ws))


# A candidate kind of move: ("replace", r, s, t) · ("insert", r, "", t) · ("delete", r, s, "") ·
# ("pay", cell index, "", "") with a signed credit step in the last slot · ("scale", 0, "", "")
Kind = tuple[str, int, str, str, int]
Cost = Callable[[FloatArray], FloatArray]


class _Search:
    """State of one tuning run: current game, exact evaluations, the linear model."""

    def __init__(self, game: Game, target: Fraction, *, reels: str, vary: Vary, constraints: Constraints,
                 tolerance: Fraction, hit_frequency: float | None, sd: float | None, hf_tol: float,
                 sd_tol: float | None, seed: int, max_evals: int, progress: Any) -> None:
        self.original = game
        self.target = target
        self.tol = tolerance
        self.reels = reels
        self.base = play_reels(game, reels)
        self.vary = vary
        self.rules = _Rules.of(game, reels, constraints)
        self.cells = pay_cells(game) if vary in ("pays", "both") else ()
        self.hf_target, self.sd_target = hit_frequency, sd
        self.hf_tol = hf_tol
        self.sd_tol = sd_tol if sd_tol is not None else (0.05 * sd if sd is not None else 0.0)
        self.secondary = hit_frequency is not None or sd is not None
        self.rng = np.random.default_rng(seed)
        self.max_evals = max_evals
        self.bar = progress
        self.cache: dict[int, tuple[Game, Fraction]] = {}
        self.full_cache: dict[int, tuple[Game, FloatArray]] = {}
        self.evaluations = 0
        self.eval_seconds = 0.0
        self.moves: list[Move] = []
        self.game = game
        self.rtp = self.exact(game)
        self.model: dict[Kind, FloatArray] = {}
        self.model_age = 10**9
        self.notes: list[str] = []
        self.scaled = False

    # ---------------------------------------------------------------- exact figures
    def exact(self, game: Game) -> Fraction:
        key = hash((game.reel_sets, game.line_pays, game.scatter_pays))
        hit = self.cache.get(key)
        if hit is not None and hit[0] == game:
            return hit[1]
        self.evaluations += 1
        t0 = time.perf_counter()
        value = exact_rtp(game, self.base)
        self.eval_seconds += time.perf_counter() - t0
        self.cache[key] = (game, value)
        return value

    def figures(self, game: Game) -> FloatArray:
        """``[rtp, hit frequency, mean/bet, E[win²]/bet²]`` (the last three of one base spin)."""
        rtp = float(self.exact(game))
        if not self.secondary:
            return np.array([rtp], dtype=np.float64)
        key = hash((game.reel_sets, game.line_pays, game.scatter_pays))
        hit = self.full_cache.get(key)
        if hit is not None and hit[0] == game:
            got = hit[1]
        else:
            from .exact import spin

            d = spin(game, self.base).win_distribution
            self.evaluations += 1
            m = float(d.mean()) / d.unit
            q = float(d.second_moment()) / d.unit**2
            got = np.array([float(d.hit_frequency()), m, q], dtype=np.float64)
            self.full_cache[key] = (game, got)
        return np.concatenate([[rtp], got])

    @staticmethod
    def sd_of(f: FloatArray) -> float:
        return math.sqrt(max(f[3] - f[2] ** 2, 0.0))

    def rtp_cost(self, f: FloatArray) -> FloatArray:
        """``|RTP − target|`` of figure vectors (any leading shape)."""
        out: FloatArray = np.abs(f[..., 0] - float(self.target))
        return out

    def secondary_ok(self, f: FloatArray) -> bool:
        ok = True
        if self.hf_target is not None:
            ok &= abs(f[1] - self.hf_target) <= self.hf_tol
        if self.sd_target is not None:
            ok &= abs(self.sd_of(f) - self.sd_target) <= self.sd_tol
        return bool(ok)

    def secondary_cost(self, f: FloatArray) -> FloatArray:
        """Squared distances of hit frequency and σ to their targets, in tolerances (any leading shape)."""
        cost: FloatArray = np.zeros(f.shape[:-1], dtype=np.float64)
        if self.hf_target is not None:
            cost += ((f[..., 1] - self.hf_target) / self.hf_tol) ** 2
        if self.sd_target is not None:
            sd = np.sqrt(np.maximum(f[..., 3] - f[..., 2] ** 2, 0.0))
            cost += ((sd - self.sd_target) / self.sd_tol) ** 2
        return cost

    def shape_cost(self, f: FloatArray) -> FloatArray:
        """The first phase's cost: RTP within about :data:`SHAPE_RTP` of the target, secondaries on target."""
        out: FloatArray = ((f[..., 0] - float(self.target)) / SHAPE_RTP) ** 2 + self.secondary_cost(f)
        return out

    # ---------------------------------------------------------------- candidate kinds and the model
    def kinds(self) -> list[Kind]:
        out: list[Kind] = []
        rules = self.rules
        if self.vary in ("strips", "both"):
            rs = self.game.reel_set(self.reels)
            for r in range(rs.n_reels):
                movable = sorted(rules.present[r] - rules.fixed)
                movable = [u for u in movable if allowed_on(self.game, u, r)]
                for s in movable:
                    for t in movable:
                        if s != t:
                            out.append(("replace", r, s, t, 0))
                if not rules.keep_length:
                    out += [("insert", r, "", t, 0) for t in movable]
                    out += [("delete", r, s, "", 0) for s in movable]
        for i in range(len(self.cells)):
            out += [("pay", i, "", "", 1), ("pay", i, "", "", -1)]
        return out

    def refresh(self) -> None:
        """Exact one-unit changes: per (reel, symbol) for strips, per pay for pays."""
        f0 = self.figures(self.game)
        self.model = {}
        rs = self.game.reel_set(self.reels)
        if self.vary in ("strips", "both"):
            for r in range(rs.n_reels):
                for u in sorted(self.rules.present[r] - self.rules.fixed):
                    if allowed_on(self.game, u, r):
                        f1 = self.figures(add_one_stop(self.game, self.reels, r, u))
                        self.model[("add", r, "", u, 0)] = f1 - f0
        for i, cell in enumerate(self.cells):
            try:
                self.model[("pay", i, "", "", 1)] = self.figures(bump_pay(self.game, cell, 1)) - f0
            except ModelError:
                continue
        self.model_age = 0

    def predict(self, kinds: list[Kind], f0: FloatArray) -> FloatArray:
        """Predicted figure vectors after each kind of move, from the model."""
        rs = self.game.reel_set(self.reels)
        out = np.zeros((len(kinds), len(f0)), dtype=np.float64)
        zero = np.zeros(len(f0), dtype=np.float64)
        for k, (kind, r, s, t, d) in enumerate(kinds):
            if kind == "pay":
                out[k] = self.model.get(("pay", r, "", "", 1), zero) * d
                continue
            if kind == "scale":
                continue
            n = sum(rs.stop_weights(r))
            add_t = self.model.get(("add", r, "", t, 0), zero) if t else zero
            add_s = self.model.get(("add", r, "", s, 0), zero) if s else zero
            if kind == "replace":
                out[k] = (n + 1) / n * (add_t - add_s)
            elif kind == "insert":
                out[k] = add_t
            else:  # delete: the inverse of adding one to a strip one shorter
                out[k] = -(n + 1) / (n - 1) * add_s
        return f0 + out

    # ---------------------------------------------------------------- making a move concrete
    def realise(self, game: Game, kind: Kind) -> tuple[Game, Move] | None:
        """The game after one move of ``kind`` at a feasible position (``None`` if there is none)."""
        name, r, s, t, d = kind
        if name == "pay":
            return self._pay(game, r, d)
        if name == "scale":
            return self._scale(game)
        rs = game.reel_set(self.reels)
        if rs.weights is not None:
            return self._weight(game, rs, kind)
        strip = rs.strips[r]
        rules = self.rules
        if s and s in rules.needed and strip.count(s) < 2:
            return None  # keep every paying symbol on the reels it was on
        if name == "replace":
            stops = [i for i, x in enumerate(strip) if x == s]
            best: tuple[tuple[int, int, float], int] | None = None
            for i in stops:
                new = (*strip[:i], t, *strip[i + 1:])
                if not rules.strip_ok(strip, new, r):
                    continue
                score = (_runs_at(strip, i), _neighbours(new, i, t), float(self.rng.random()))
                if best is None or score < best[0]:
                    best = (score, i)
            if best is None:
                return None
            i = best[1]
            new = (*strip[:i], t, *strip[i + 1:])
            return _set_strip(game, rs, r, new, None), Move("strip", f"reel {r + 1} stop {i}: {s} → {t}")
        if name == "insert":
            if len(strip) + 1 > 10_000:
                return None
            best_p: tuple[tuple[int, float], int] | None = None
            for p in range(len(strip)):
                new = (*strip[:p], t, *strip[p:])
                if rules.strip_ok(strip, new, r):
                    score_p = (_neighbours(new, p, t), float(self.rng.random()))
                    if best_p is None or score_p < best_p[0]:
                        best_p = (score_p, p)
            if best_p is None:
                return None
            p = best_p[1]
            new = (*strip[:p], t, *strip[p:])
            return _set_strip(game, rs, r, new, None), Move("strip", f"reel {r + 1}: insert {t} before stop {p}")
        # delete
        if len(strip) - 1 < rs.rows[r]:
            return None
        cands = [i for i, x in enumerate(strip) if x == s]
        self.rng.shuffle(cands)
        for i in sorted(cands, key=lambda i: -_runs_at(strip, i)):
            new = (*strip[:i], *strip[i + 1:])
            if rules.strip_ok(strip, new, r):
                return _set_strip(game, rs, r, new, None), Move("strip", f"reel {r + 1}: delete stop {i} ({s})")
        return None

    def _weight(self, game: Game, rs: ReelSet, kind: Kind) -> tuple[Game, Move] | None:
        name, r, s, t, _ = kind
        strip = rs.strips[r]
        w = list(rs.stop_weights(r))
        if s:  # take one unit from the heaviest stop of s that keeps a weight >= 1
            from_stops = [i for i, x in enumerate(strip) if x == s and w[i] > 1]
            if not from_stops:
                return None
            j = max(from_stops, key=lambda i: w[i])
            w[j] -= 1
        if t:  # give it to the lightest stop of t
            i = min((i for i, x in enumerate(strip) if x == t), key=lambda i: w[i])
            w[i] += 1
        text = {"replace": f"reel {r + 1}: one weight unit {s} → {t}", "insert": f"reel {r + 1}: {t} weight +1",
                "delete": f"reel {r + 1}: {s} weight −1"}[name]
        return _set_strip(game, rs, r, strip, tuple(w)), Move("weight", text)

    def _pay(self, game: Game, i: int, d: int) -> tuple[Game, Move] | None:
        cell = self.cells[i]
        try:
            new = bump_pay(game, cell, d)
        except ModelError:
            return None
        if not self.rules.pays_ok(new):
            return None
        return new, Move("pay", f"pay {cell.label()}: {_show(pay_values(game, cell))} → {_show(pay_values(new, cell))}")

    def _scale(self, game: Game) -> tuple[Game, Move] | None:
        rtp = self.exact(game)
        if rtp == 0:
            return None
        lam = self.target / rtp
        new = game
        for cell in self.cells:
            old = pay_values(new, cell)
            want = tuple(max(self.rules.pay_floor[cell], round(v * lam)) if v else 0 for v in old)
            delta = want[0] - old[0] if len(old) == 1 else None
            if delta is not None and delta:
                new = bump_pay(new, cell, delta)
            elif delta is None and want != old:
                new = _set_values(new, cell, want)
        if not self.rules.pays_ok(new):
            return None
        return new, Move("pay", f"all pays × {float(lam):.4f}, rounded")

    # ---------------------------------------------------------------- the descent
    def accept(self, game: Game, moves: list[Move]) -> None:
        self.game = game
        self.rtp = self.exact(game)
        self.moves += moves
        self.model_age += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"RTP {100 * float(self.rtp):.4f}%", refresh=False)
            self.bar.update(len(moves))

    def descend(self, cost: Cost, guard: Callable[[FloatArray], bool] | None,
                done: Callable[[], bool], max_steps: int, *, singles: int = 4, pairs: int = 30) -> None:
        """Greedy descent on ``cost`` with exact verification; pairs when no single move helps."""
        steps = 0
        while not done() and steps < max_steps and self.evaluations < self.max_evals:
            if self.model_age >= (1 if self.cheap else 3) or not self.model:
                self.refresh()
            f0 = self.figures(self.game)
            c0 = float(cost(f0))
            kinds = self.kinds()
            if not self.scaled and self.cells and abs(self.rtp - self.target) > Fraction(1, 1000):
                kinds.append(("scale", 0, "", "", 0))
                self.scaled = True
            pred = self.predict(kinds, f0)
            pc = cost(pred)
            for k, kind in enumerate(kinds):
                if kind[0] == "scale":
                    pc[k] = -1.0  # always worth an exact look
            best = self._verify([[kinds[k]] for k in np.argsort(pc, kind="stable") if pc[k] < c0][: singles * 3],
                                cost, guard, c0, limit=singles)
            if best is None and self.model_age > 0:
                self.refresh()
                continue
            if best is None:
                order = np.argsort(pc, kind="stable")[:1000]
                delta = pred[order] - f0
                total = f0 + delta[:, None, :] + delta[None, :, :]
                pair_cost = cost(total)
                pair_cost[np.tril_indices(len(order), -1)] = np.inf
                flat = np.argsort(pair_cost, axis=None, kind="stable")[:200]
                combos = [(int(order[i]), int(order[j])) for i, j in zip(*np.unravel_index(flat, pair_cost.shape),
                                                                         strict=True) if pair_cost[i, j] < c0]
                best = self._verify([[kinds[a], kinds[b]] for a, b in combos], cost, guard, c0, limit=pairs)
            if best is None:
                break  # a local optimum of single moves and pairs, with a fresh model
            self.accept(best[0], best[1])
            steps += 1

    def _verify(self, plans: list[list[Kind]], cost: Cost,
                guard: Callable[[FloatArray], bool] | None, c0: float,
                *, limit: int) -> tuple[Game, list[Move], FloatArray] | None:
        best: tuple[float, Game, list[Move], FloatArray] | None = None
        tried = 0
        for plan in plans:
            game, moves = self.game, []
            for kind in plan:
                step = self.realise(game, kind)
                if step is None:
                    break
                game, mv = step
                moves.append(mv)
            else:
                tried += 1
                # the exact RTP first (cheap): the guard's enumeration only for moves that help the RTP
                if self.secondary and guard is not None and \
                        abs(self.exact(game) - self.target) >= abs(self.rtp - self.target):
                    continue
                f = self.figures(game)
                c = float(cost(f))
                if c < c0 and (guard is None or guard(f)) and (best is None or c < best[0]):
                    best = (c, game, moves, f)
                    if not self.secondary and abs(self.exact(game) - self.target) <= self.tol:
                        break
            if tried >= limit or self.evaluations >= self.max_evals:
                break
        return None if best is None else (best[1], best[2], best[3])

    @property
    def cheap(self) -> bool:
        """Whether refreshing the model after every move costs little (exact RTP under 5 ms, no enumeration)."""
        return not self.secondary and self.eval_seconds <= 0.005 * max(self.evaluations, 1)


def _show(values: tuple[int, ...]) -> str:
    return str(values[0]) if len(values) == 1 else str(list(values))


def _runs_at(strip: Sequence[str], i: int) -> int:
    """Length of the run of identical symbols through stop ``i`` (circular)."""
    n, s = len(strip), strip[i]
    k = 1
    while k < n and strip[(i - k) % n] == s:
        k += 1
    left = k - 1
    k = 1
    while k < n and strip[(i + k) % n] == s:
        k += 1
    return min(n, left + k)


def _neighbours(strip: Sequence[str], i: int, s: str) -> int:
    n = len(strip)
    return int(strip[(i - 1) % n] == s) + int(strip[(i + 1) % n] == s)


def _set_values(game: Game, cell: PayCell, values: tuple[int, ...]) -> Game:
    from .game import PayEntry

    lps = tuple(
        PayEntry(e.name, e.symbols, tuple((k, values if k == cell.count else v) for k, v in e.pays))
        if e.name == cell.entry else e
        for e in game.line_pays
    )
    return dataclasses.replace(game, line_pays=lps)


# --------------------------------------------------------------------------- public API
def _declared(rtp: Fraction, target: Fraction, reached: bool) -> Fraction:
    return target if reached else Fraction(round(rtp * 1_000_000), 1_000_000)


def tune(
    game: Game,
    target: Fraction | float | str,
    *,
    vary: Vary = "strips",
    reels: str | None = None,
    constraints: Constraints | None = None,
    tolerance: Fraction = TOLERANCE,
    hit_frequency: float | None = None,
    sd: float | None = None,
    hf_tol: float = 0.005,
    sd_tol: float | None = None,
    seed: int = 0,
    max_steps: int = 500,
    max_evals: int = 50_000,
    progress: bool | None = False,
) -> TuneResult:
    """Change strips and/or pays of ``game`` until its exact RTP is ``target`` ± ``tolerance``.

    Parameters
    ----------
    target
        The RTP as a fraction of the bet (``0.92``, ``"23/25"``).
    vary
        ``"strips"``, ``"pays"`` or ``"both"``.
    reels
        The reel set to change (default: the game's default set).  Editing the
        free-spin set is judged by the RTP of a play from the default set.
    hit_frequency, sd, hf_tol, sd_tol
        Secondary targets (base spin) with their tolerances; ``sd_tol`` defaults
        to 5% of ``sd``.
    progress
        A tqdm progress bar on stderr: ``True``, ``False``, or ``None`` for "when
        stderr is a terminal".

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> res = tune(load_game("data/games/classic_3reel.toml"), "0.80")
    >>> res.reached, abs(res.rtp - Fraction("0.80")) <= TOLERANCE, res.game.declared_rtp
    (True, True, Fraction(4, 5))
    """
    t0 = time.perf_counter()
    goal = Fraction(str(target)) if isinstance(target, float) else Fraction(target)
    name = game.reel_set(reels).name
    bar = None
    if progress is not False:
        from tqdm import tqdm

        bar = tqdm(desc=f"tune → {100 * float(goal):.3f}%", unit="move", file=sys.stderr,
                   disable=None if progress is None else False, leave=False)
    try:
        s = _Search(game, goal, reels=name, vary=vary, constraints=constraints or Constraints(), tolerance=tolerance,
                    hit_frequency=hit_frequency, sd=sd, hf_tol=hf_tol, sd_tol=sd_tol, seed=seed,
                    max_evals=max_evals, progress=bar)
        rtp0 = s.rtp

        def rtp_done() -> bool:
            return abs(s.rtp - goal) <= tolerance

        if s.secondary:
            def shape_done() -> bool:
                f = s.figures(s.game)
                # aim inside half the tolerances, so the RTP phase has room to move
                return float(s.secondary_cost(f)) <= 0.25 and abs(f[0] - float(goal)) < SHAPE_RTP

            s.descend(s.shape_cost, None, shape_done, max_steps)
            f_start = s.figures(s.game)
            keep = s.secondary_ok(f_start)
            worst = float(s.secondary_cost(f_start))

            def guard(f: FloatArray) -> bool:
                return s.secondary_ok(f) if keep else float(s.secondary_cost(f)) <= worst + 1e-9

            s.descend(s.rtp_cost, guard, rtp_done, max_steps, pairs=40)
        else:
            s.descend(s.rtp_cost, None, rtp_done, max_steps)
    finally:
        if bar is not None:
            bar.close()
    reached = rtp_done()
    hf = sd_v = None
    sec_ok = None
    notes = list(s.notes)
    if s.secondary:
        f = s.figures(s.game)
        hf, sd_v, sec_ok = float(f[1]), s.sd_of(f), s.secondary_ok(f)
        if not sec_ok:
            notes.append("secondary targets (hit frequency / σ) not met within their tolerances")
    if not reached:
        notes.append(f"target {100 * float(goal):.4f}% not reached within ±{100 * float(tolerance):g} pp under the "
                     f"constraints: nearest {100 * float(s.rtp):.6f}%")
    out = dataclasses.replace(s.game, declared_rtp=_declared(s.rtp, goal, reached))
    validate_game(out)
    return TuneResult(out, game, name, goal, tolerance, rtp0, s.rtp, reached, tuple(s.moves), s.evaluations,
                      time.perf_counter() - t0, hf, sd_v, sec_ok, tuple(notes))


def tune_variants(game: Game, targets: Sequence[Fraction | float | str], **kwargs: Any) -> list[TuneResult]:
    """One :func:`tune` per target, each from the original game, strips only."""
    kwargs = {k: v for k, v in kwargs.items() if k != "vary"}
    return [tune(game, t, vary="strips", **kwargs) for t in targets]


def variant_path(out: str | Path, target: Fraction) -> Path:
    """``d.toml`` and 0.92 → ``d_rtp92.toml``; 0.945 → ``d_rtp94_5.toml``.

    Examples
    --------
    >>> variant_path("out/d.toml", Fraction("0.945")).name
    'd_rtp94_5.toml'
    """
    p = Path(out)
    pct = f"{float(100 * target):.6f}".rstrip("0").rstrip(".").replace(".", "_")
    return p.with_name(f"{p.stem}_rtp{pct}{p.suffix or '.toml'}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.exists() and a.samefile(b))
    except OSError:
        return False


def write_result(result: TuneResult, out: str | Path, *, force: bool = False, source: str | Path | None = None) -> Path:
    """Save the tuned game atomically; never over ``source``; an existing file only with ``force``."""
    target = Path(out)
    if source is not None and _same_file(Path(source), target):
        msg = f"{target} is the input game: write the tuned game to another file"
        raise FileExistsError(msg)
    from .io import save_game

    return save_game(result.game, target, overwrite=force)


# --------------------------------------------------------------------------- command line
def _parse_rtp(text: str) -> Fraction:
    t = text.strip()
    try:
        value = Fraction(t[:-1]) / 100 if t.endswith("%") else Fraction(t)
    except (ValueError, ZeroDivisionError):
        msg = f"not an RTP: {text!r} (write 0.92, 92% or 23/25)"
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 < value < 2:
        msg = f"RTP {text} is not a fraction of the bet (write 0.92 or 92%)"
        raise argparse.ArgumentTypeError(msg)
    return value


def _parse_list(text: str) -> list[Fraction]:
    return [_parse_rtp(x) for x in text.split(",") if x.strip()]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit tune", description="Solve strips or pays for a target RTP, exactly.",
                                epilog="Exit status: 0 target(s) reached, 1 not reachable (nearest written), "
                                       "2 bad game or arguments.")
    p.add_argument("game", type=Path, help="game file (TOML); never overwritten")
    p.add_argument("--target-rtp", type=_parse_rtp, help="target RTP: 0.92, 92%% or 23/25")
    p.add_argument("--variants", type=_parse_list, help="comma-separated targets (strips only), one file each")
    p.add_argument("--out", type=Path, help="output game file (variants: the name pattern's base)")
    p.add_argument("--sensitivity", action="store_true",
                   help="print the exact ∂RTP/∂(symbol on reel) and ∂RTP/∂(pay) tables instead of tuning")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.add_argument("--vary", choices=("strips", "pays", "both"), default="strips")
    p.add_argument("--reels", help="reel set to change (default: the game's default set)")
    p.add_argument("--hit-frequency", type=float, help="secondary target: base-spin hit frequency (0.25)")
    p.add_argument("--hf-tol", type=float, default=0.005, help="tolerance on the hit frequency (default 0.005)")
    p.add_argument("--sd", type=float, help="secondary target: base-spin σ per total bet")
    p.add_argument("--sd-tol", type=float, help="tolerance on σ (default 5%% of --sd)")
    p.add_argument("--keep-length", action=argparse.BooleanOptionalAction, default=True,
                   help="keep strip lengths (default); --no-keep-length allows inserting and deleting stops")
    p.add_argument("--min-scatter-spacing", type=int, help="stops between two scatters at least (default: rows)")
    p.add_argument("--max-stack", type=int, help="longest run of one symbol (default: the original's per symbol)")
    p.add_argument("--fixed", default="", help="comma-separated symbols whose stops must not change")
    p.add_argument("--tolerance-pp", type=float, default=0.005, help="RTP tolerance in pp (default 0.005)")
    p.add_argument("--seed", type=int, default=0, help="seed for the choice between equivalent stops")
    p.add_argument("--max-steps", type=int, default=500)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def _summary(res: TuneResult, path: Path) -> dict[str, Any]:
    return {
        "file": str(path), "target": float(res.target), "rtp": float(res.rtp),
        "rtp_exact": f"{res.rtp.numerator}/{res.rtp.denominator}", "rtp_before": float(res.rtp_before),
        "error_pp": res.error_pp, "reached": res.reached, "declared_rtp": float(res.game.declared_rtp or 0),
        "moves": [m.text for m in res.moves], "evaluations": res.evaluations, "seconds": res.seconds,
        "hit_frequency": res.hit_frequency, "sd": res.sd, "secondary_ok": res.secondary_ok, "notes": list(res.notes),
    }


def _print_result(res: TuneResult, path: Path) -> None:
    print(f"{path}: RTP {100 * float(res.rtp_before):.4f}% → {100 * float(res.rtp):.6f}% "
          f"(target {100 * float(res.target):.4f}%, Δ {res.error_pp:+.6f} pp) — "
          f"{'reached' if res.reached else 'NOT reached'}; {len(res.moves)} moves, {res.evaluations} exact "
          f"evaluations, {res.seconds:.1f} s")
    for m in res.moves:
        print(f"  {m.text}")
    if res.hit_frequency is not None:
        print(f"  base spin: hit frequency {100 * res.hit_frequency:.4f}%, σ {res.sd:.4f}")
    for n in res.notes:
        print(f"  note: {n}")


def variants_table(results: Sequence[TuneResult], paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Comparison rows: target, exact RTP, σ and hit frequency (PAR-sheet scope) per variant."""
    rows = []
    for res, path in zip(results, paths, strict=True):
        fig = play_figures(res.game, play_reels(res.game, res.reels))
        rows.append({"file": str(path), "target": float(res.target), "rtp": float(res.rtp),
                     "rtp_exact": f"{res.rtp.numerator}/{res.rtp.denominator}", "error_pp": res.error_pp,
                     "reached": res.reached, "sd": fig.sd, "hit_frequency": fig.hit_frequency, "scope": fig.scope,
                     "moves": len(res.moves)})
    return rows


def _table_text(rows: list[dict[str, Any]]) -> str:
    head = f"{'variant':<28} {'target':>8} {'RTP':>11} {'Δ pp':>10} {'σ':>8} {'hit freq':>9}  reached"
    lines = [head]
    for r in rows:
        lines.append(f"{Path(r['file']).name:<28} {100 * r['target']:>7.3f}% {100 * r['rtp']:>10.5f}% "
                     f"{r['error_pp']:>+10.6f} {r['sd']:>8.4f} {100 * r['hit_frequency']:>8.4f}%  "
                     f"{'yes' if r['reached'] else 'NO'}")
    return "\n".join(lines)


def _table_csv(rows: list[dict[str, Any]]) -> str:
    import csv
    import io

    buf = io.StringIO()
    keys = ["file", "target", "rtp", "rtp_exact", "error_pp", "reached", "sd", "hit_frequency", "scope", "moves"]
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def _sensitivity_cli(args: argparse.Namespace) -> int:
    from .io import load_game
    from .sensitivity import pay_sensitivity, sensitivity_text, symbol_sensitivity

    game = load_game(args.game)
    sym = symbol_sensitivity(game, args.reels)
    pays = pay_sensitivity(game, play_reels(game, sym.reels))
    if args.json:
        print(json.dumps({
            "reels": sym.reels, "rtp": float(sym.rtp), "heatmap": sym.heatmap(),
            "symbols": [{**r, "delta": None if r["delta"] is None else str(r["delta"])} for r in sym.rows()],
            "pays": [{"pay": p.cell.label(), "kind": p.cell.kind, "entry": p.cell.entry, "count": p.cell.count,
                      "value": list(p.pay), "hits": p.hits, "delta": str(p.delta), "delta_pp": 100 * float(p.delta),
                      "marginal": None if p.marginal is None else str(p.marginal)} for p in pays],
        }, indent=2, ensure_ascii=False))
    else:
        print(sensitivity_text(sym, pays), end="")
    return 0


def cli(argv: list[str]) -> int:
    """``mathkit tune``: see the module notes; returns the exit status."""
    args = _parser().parse_args(argv)
    from .io import load_game

    try:
        if args.sensitivity:
            return _sensitivity_cli(args)
        if args.out is None:
            print("mathkit tune: give --out FILE", file=sys.stderr)
            return 2
        if args.target_rtp is None and not args.variants:
            print("mathkit tune: give --target-rtp R or --variants R1,R2,...", file=sys.stderr)
            return 2
        game = load_game(args.game)
        targets = args.variants or [args.target_rtp]
        outs = [variant_path(args.out, t) for t in targets] if args.variants else [args.out]
        for o in [*outs, *([variant_path(args.out, Fraction(0)).with_name(f"{args.out.stem}_variants.csv")]
                           if args.variants else [])]:
            if _same_file(args.game, o):
                print(f"error: {o} is the input game: the original is never overwritten; choose another --out",
                      file=sys.stderr)
                return 2
            if o.exists() and not args.force:
                print(f"error: {o} exists; pass --force to replace it", file=sys.stderr)
                return 2
        fixed = frozenset(x.strip() for x in args.fixed.split(",") if x.strip())
        cons = Constraints(args.keep_length, args.min_scatter_spacing, args.max_stack, fixed)
        kw: dict[str, Any] = {
            "reels": args.reels, "constraints": cons, "tolerance": Fraction(str(args.tolerance_pp)) / 100,
            "hit_frequency": args.hit_frequency, "sd": args.sd, "hf_tol": args.hf_tol, "sd_tol": args.sd_tol,
            "seed": args.seed, "max_steps": args.max_steps, "progress": None,
        }
        if args.variants:
            results = tune_variants(game, targets, **kw)
        else:
            results = [tune(game, targets[0], vary=args.vary, **kw)]
        for res, o in zip(results, outs, strict=True):
            write_result(res, o, force=args.force, source=args.game)
        summaries = [_summary(r, o) for r, o in zip(results, outs, strict=True)]
        table: list[dict[str, Any]] = []
        if args.variants:
            from .report import write_atomic

            table = variants_table(results, outs)
            write_atomic(args.out.with_name(f"{args.out.stem}_variants.csv"), _table_csv(table))
        if args.json:
            print(json.dumps({"results": summaries, "variants": table} if args.variants else summaries[0], indent=2,
                             ensure_ascii=False))
        else:
            for r, o in zip(results, outs, strict=True):
                _print_result(r, o)
            if table:
                print()
                print(_table_text(table))
                print(f"table written to {args.out.with_name(f'{args.out.stem}_variants.csv')}")
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except FileExistsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if all(r.reached for r in results) else 1

