"""The search itself: exact evaluations, the linear model of the figures, greedy descent with pairs.

:class:`_Search` holds one tuning run's state — the current game, the caches of
exact evaluations, the model (exact one-unit changes per reel and symbol, per
pay) — and descends on a cost with every candidate verified exactly (see
:mod:`mathkit.tune` for the method).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..game import Game
from ..sensitivity import add_one_stop, allowed_on, bump_pay, exact_rtp, pay_cells, play_reels
from .constraints import Constraints, _Rules
from .moves import Kind, Move, _Mover

__all__ = ["SHAPE_RTP", "Cost", "FloatArray", "Vary"]

#: the scale of the RTP term while hit frequency and σ are shaped (0.25 pp)
SHAPE_RTP = 0.0025
Vary = Literal["strips", "pays", "both"]
FloatArray = npt.NDArray[np.float64]

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
        self.mover = _Mover(reels, self.rules, self.cells, self.rng, target, self.exact)

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
            from ..exact import spin

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
        return self.mover.realise(game, kind)

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
