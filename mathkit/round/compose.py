"""Composing a round from its blocks: the base spin, the features it leads to, the transforms.

1. **The base spin.**  The game's default spin is turned by each modifier block
   into a mixture of spins (heights, overlays ...).  Each spin's law says, for
   every way the spin can end — which sequence features it starts, with which
   entry (their :meth:`~mathkit.features.Block.entry` reads the spin's
   observation digits) — its probability and the spin's win given it.
2. **Sequence features.**  A feature's own law from an entry has the same shape:
   its win given each exit, exits naming the features played next.  Given the
   exit, what follows is independent of what came before, so the round's
   outcome is built backwards: means add; second moments add with the cross
   term ``2·E[W | b]·E[F | b]``; distributions convolve (:mod:`mathkit.laws.convolve`);
   everything is mixed over the exits' probabilities.  A feature reached with
   the same entry twice is solved once.
3. **Transforms** act on the round's outcome in order (the cap), or stand beside
   it (the gamble).

Every figure keeps its provenance: the outcome is as exact as its least exact
part.  Three levels: ``"mean"`` needs no enumeration (the fast path the
workbench and the tuner use), ``"moments"`` adds exact second moments,
``"distribution"`` the whole-round win distribution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TypeVar, cast

import numpy as np

from ..errors import ModelError, UsageError, located
from ..features.base import Block, FeatureStats, Limit, modified
from ..laws.convolve import Mixing, convolve, mix
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure, Method, weakest
from ..laws.stage import (
    Branch,
    Drawn,
    Entry,
    Exit,
    JointLaw,
    Level,
    Number,
    Outcome,
    Overlay,
    Precision,
    Spin,
    SpinModel,
    SpinPlay,
    StageLaw,
    Tail,
    Uncovered,
    memo_tail,
    tail_of,
    tail_plus,
    visits,
)
from ..model.bounds import check_cost
from ..model.game import Feature, Game
from .engine import Engine

__all__ = ["RoundAnalysis", "analyse", "as_block", "p_any", "rtp_breakdown", "transforms"]

Node = tuple[str, Entry]
BASE: Node = ("", None)
LEVELS: tuple[Level, ...] = ("mean", "moments", "distribution")
OVERLAY_ENUMERATIONS = 64
"""At the distribution level, an overlay with more placements than this (one enumeration of the spin each)
is left to the simulator (an :class:`~mathkit.laws.stage.Uncovered` variant) when its moments come without them."""
NOTHING = WinLaw(np.zeros(0, np.int64), np.zeros(0))
"""The empty sub-distribution: every round of the part is uncovered."""


def _exact(x: Number) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


def _gather(parts: Sequence[Uncovered]) -> tuple[Uncovered, ...]:
    """Uncovered parts with the same route as one (their probabilities and means add)."""
    out: dict[str, Uncovered] = {}
    for u in parts:
        if u.route in out:
            v = out[u.route]
            top = None if u.top is None or v.top is None else max(u.top, v.top)
            out[u.route] = Uncovered(u.route, v.probability + u.probability, v.mean + u.mean, v.why, top)
        else:
            out[u.route] = u
    return tuple(u for u in out.values() if u.probability)


def _scaled(parts: Sequence[Uncovered], q: Number) -> list[Uncovered]:
    """Uncovered parts of an event of probability ``q`` (given it), as parts of the whole."""
    return [Uncovered(u.route, _exact(q) * u.probability, q * u.mean, u.why, u.top) for u in parts]


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _chained(first_mean: Number, first: Sequence[Uncovered], after_mean: Number,
             after: Sequence[Uncovered], first_top: int | None = None,
             after_top: int | None = None) -> tuple[Uncovered, ...]:
    """The uncovered parts of a win followed by an independent one: a round uncovered in either part is uncovered.

    An uncovered first part keeps its route, with the whole of what follows: ``E[(A + B)·1_u] = E[A·1_u] + P(u)·E[B]``.
    A covered first part (probability ``1 − Σ P(u)``, mean ``E[A] − Σ E[A·1_u]``) followed by an uncovered
    part ``v`` of the second: ``E[(A + B)·1{A covered, v}] = E[A·1{covered}]·P(v) + P(covered)·E[B·1_v]``.
    A route's top (its proven largest win) adds the other part's (``first_top``, ``after_top``; ``None``: unknown).
    """
    if not first and not after:
        return ()
    out = [Uncovered(u.route, u.probability, u.mean + u.probability * after_mean, u.why, _plus(u.top, after_top))
           for u in first]
    pc = 1 - sum((u.probability for u in first), Fraction(0))
    mc = first_mean - sum((u.mean for u in first), Fraction(0))
    out += [Uncovered(v.route, pc * v.probability, mc * v.probability + pc * v.mean, v.why, _plus(first_top, v.top))
            for v in after]
    return _gather(out)


def as_block(f: Feature) -> Block:
    if not isinstance(f, Block):
        msg = f"feature {f.name!r} ({type(f).__name__}) is not a feature block"
        raise ModelError(msg)
    return f


def _at(game: Game, block: Feature) -> AbstractContextManager[None]:
    """Errors raised while a block answers name the block's field path (``free_spins``, ``cap``)."""
    return located(field=game.feature_path(block))


def transforms(game: Game) -> list[Block]:
    """The game's transforms in the order they act: by phase, then as declared."""
    blocks = [as_block(f) for f in game.features_of("transform")]
    return sorted(blocks, key=lambda b: b.phase)


def _stage(engine: Engine, model: Spin, seqs: Sequence[Block], level: Level, label: str,
           observe: tuple[str, ...] = (), group: Callable[[Mapping[str, int]], Hashable] | None = None) -> StageLaw:
    """The law of one spin: branches by the features it starts, its mean by component.

    With ``group``, branches are keyed ``(group(observations), exit)`` instead of by exit alone
    (``observe`` names the digits it reads).
    """
    names = tuple(sorted({*observe, *(d for f in seqs for d in f.trigger_digits(engine.game))}))

    def key_of(values: Sequence[int]) -> Hashable:
        digits = dict(zip(names, (int(v) for v in values), strict=True))
        out = []
        for f in seqs:
            e = f.entry(digits)
            if e is not None:
                out.append((f.name, e))
        return tuple(out) if group is None else (group(digits), tuple(out))

    comps = {(f"{label}: {k}" if label else k): v for k, v in engine.means(model).items()}
    bound = engine.win_bound(model)
    if level == "mean":
        weights, cycle = engine.digit_law(model, names)
        acc: dict[Hashable, int] = {}
        for values, w in weights.items():
            key = key_of(values)
            acc[key] = acc.get(key, 0) + w
        return StageLaw({k: Branch(Fraction(w, cycle), top=bound) for k, w in acc.items()},  # type: ignore[misc]
                        comps, "exact", level)
    if level == "moments" and isinstance(model, Overlay):
        weights, cycle = engine.digit_law(model, names)
        m2 = engine.overlay_m2(model)
        if len(weights) == 1 and m2 is not None:  # one ending: its moments from the line-pair tables
            key = key_of(next(iter(weights)))
            return StageLaw({key: Branch(Fraction(1), sum(comps.values(), Fraction(0)), m2, top=bound)},  # type: ignore[dict-item]
                            comps, "exact", level)
    if level == "distribution" and isinstance(model, Overlay) and len(model.placements) > OVERLAY_ENUMERATIONS:
        weights, cycle = engine.digit_law(model, names)
        m2 = engine.overlay_m2(model)
        if len(weights) == 1 and m2 is not None:  # its moments without the enumerations; its law is sampled
            key = key_of(next(iter(weights)))
            mean = sum(comps.values(), Fraction(0))
            why = (f"{len(model.placements):,} overlay placements, one enumeration of the spin each "
                   f"(more than {OVERLAY_ENUMERATIONS})")
            gone = (Uncovered(f"variant:{label}", Fraction(1), mean, why, bound),)
            return StageLaw({key: Branch(Fraction(1), mean, m2, NOTHING, top=bound, uncovered=gone)},  # type: ignore[dict-item]
                            comps, "exact", level)
    joint = engine.joint(model, names)
    return StageLaw(_branches(joint, names, key_of, level), comps, "exact", level)  # type: ignore[arg-type]


def _branches(joint: JointLaw, names: tuple[str, ...], key_of: Callable[[Sequence[int]], Hashable],
              level: Level) -> dict[Hashable, Branch]:
    """A spin's exact joint law cut into branches by ``key_of`` of its observation digits."""
    ids: dict[Hashable, int] = {}
    if names:
        keys = np.stack([joint.digits[n] for n in names], axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        row_key = np.array([ids.setdefault(key_of(row), len(ids)) for row in uniq.tolist()], dtype=np.int64)
        cell_key = row_key[inv.reshape(-1)]
    else:
        ids[key_of(())] = 0
        cell_key = np.zeros(len(joint.counts), dtype=np.int64)
    branches: dict[Hashable, Branch] = {}
    for key, h in ids.items():
        sel = cell_key == h
        wins, counts = joint.wins[sel].tolist(), joint.counts[sel].tolist()
        w = sum(counts)
        s1 = sum(x * c for x, c in zip(wins, counts, strict=True))
        s2 = sum(x * x * c for x, c in zip(wins, counts, strict=True))
        dist = joint.play_law(sel) if level == "distribution" else None
        branches[key] = Branch(Fraction(w, joint.cycle), Fraction(s1, w), Fraction(s2, w), dist,
                               int(joint.wins[sel].max()))
    return branches


def _merge(branches: Sequence[Branch], level: Level) -> Branch:
    """Several branches as one (their probabilities add, their wins mix)."""
    if len(branches) == 1:
        return branches[0]
    p: Number = sum((b.p for b in branches), Fraction(0))
    top: int | None = 0
    for b in branches:
        top = None if top is None or b.top is None else max(top, b.top)
    tail = None if p == 0 or all(b.tail is None for b in branches) else _mixed_tail(
        [(b.p, b.top, b.tail) for b in branches], p)
    if level == "mean" or p == 0:
        return Branch(p, top=top, tail=tail)
    mean = sum((b.p * b.mean for b in branches if b.mean is not None), Fraction(0)) / p
    m2 = sum((b.p * b.m2 for b in branches if b.m2 is not None), Fraction(0)) / p
    dist = None
    gone: tuple[Uncovered, ...] = ()
    if level == "distribution":
        d = mix([(float(b.p / p), b.dist) for b in branches if b.dist is not None])
        dist = WinLaw(d.values, d.probs, d.lost_mass)
        gone = _gather([u for b in branches for u in _scaled(b.uncovered, b.p / p)])
    return Branch(p, mean, m2, dist, top, tail, gone)


def _then(br: Branch, after: Outcome, level: Level) -> Branch:
    """A branch's win followed by the outcome of what it leads to (independent given the branch)."""
    top = None if br.top is None or after.max_win is None else br.top + after.max_win
    tail = None if top is not None else tail_plus([(br.top, br.tail), (after.max_win, after.tail)])
    if level == "mean":
        return Branch(br.p, top=top, tail=tail)
    assert br.mean is not None and br.m2 is not None and after.m2 is not None
    m2 = br.m2 + 2 * br.mean * after.mean + after.m2
    dist = None
    gone: tuple[Uncovered, ...] = ()
    if level == "distribution":
        assert br.dist is not None and after.dist is not None
        dist = convolve(br.dist, after.dist)
        gone = _chained(br.mean, br.uncovered, after.mean, after.uncovered, br.top, after.max_win)
    return Branch(br.p, br.mean + after.mean, m2, dist, top, tail, gone)


def _mix(parts: Sequence[tuple[Fraction, StageLaw]], level: Level) -> StageLaw:
    """A mixture of stage laws (the base spin under modifiers)."""
    if len(parts) == 1 and parts[0][0] == 1:
        return parts[0][1]
    comps: dict[str, Number] = {}
    by_key: dict[Hashable, list[Branch]] = {}
    method: Method = "exact"
    for q, law in parts:
        method = weakest(method, law.method)
        for k, v in law.components.items():
            comps[k] = comps.get(k, Fraction(0)) + q * v
        for key, br in law.branches.items():
            if q * br.p:
                by_key.setdefault(key, []).append(Branch(q * br.p, br.mean, br.m2, br.dist, br.top, br.tail,
                                                         br.uncovered))
    branches = {key: _merge(bs, level) for key, bs in by_key.items()}
    return StageLaw(branches, comps, method, level)  # type: ignore[arg-type]


def _mixed_tail(parts: Sequence[tuple[Number, int | None, Tail | None]], total: Number) -> Tail | None:
    """The tail bound of a mixture: parts ``(probability, top, tail)``, conditional on the mixture (weight ``total``)."""
    tails = [(float(p) / float(total), tail_of(top, tail)) for p, top, tail in parts if p]
    if any(t is None for _, t in tails):
        return None
    known = [(q, t) for q, t in tails if t is not None]

    def tail(t: float) -> tuple[float, float]:
        b = q = 0.0
        for w, fn in known:
            bi, qi = fn(t)
            b, q = b + w * bi, q + w * qi
        return b, min(q, 1.0)

    return memo_tail(tail)


def _node_tail(parts: Sequence[tuple[float, int | None, Tail | None, Outcome]]) -> Tail:
    """The tail bound of a stage and what follows: its branches ``(p, own top, own tail, after)`` mixed.

    Built when first asked (most rounds never are); a branch whose bounds add up below the threshold
    costs nothing; ``(inf, 1)`` where a part has no bound at all.
    """
    total = math.fsum(p for p, _, _, _ in parts)

    def tail(t: float) -> tuple[float, float]:
        b = q = 0.0
        for p, top, own, after in parts:
            if top is not None and after.max_win is not None and top + after.max_win <= t:
                continue
            fn = tail_plus([(top, own), (after.max_win, after.tail)])
            if fn is None:
                return math.inf, 1.0
            bi, qi = fn(t)
            b, q = b + p * bi, q + p * qi
        return b / total, min(q / total, 1.0)

    return memo_tail(tail)


def _sum(outcomes: Sequence[Outcome], level: Level) -> Outcome:
    """The outcome of independent parts played one after another."""
    mean: Number = sum((o.mean for o in outcomes), Fraction(0))
    comps: dict[str, Number] = {}
    methods: dict[str, Method] = {}
    for o in outcomes:
        for k, v in o.components.items():
            comps[k] = comps.get(k, Fraction(0)) + v
            methods[k] = weakest(methods.get(k, "exact"), o.method_of(k))
    method = weakest(*(o.method for o in outcomes)) if outcomes else "exact"
    m2: Number | None = None
    if level != "mean":
        m2 = Fraction(0)
        run: Number = Fraction(0)
        for o in outcomes:
            assert o.m2 is not None
            m2 = m2 + o.m2 + 2 * run * o.mean
            run = run + o.mean
    dist: WinLaw | None = None
    gone: tuple[Uncovered, ...] = ()
    if level == "distribution":
        dist = WinLaw.point(0)
        done: Number = Fraction(0)
        done_top: int | None = 0
        for o in outcomes:
            assert o.dist is not None
            dist = convolve(dist, o.dist)
            gone = _chained(done, gone, o.mean, o.uncovered, done_top, o.max_win)
            done = done + o.mean
            done_top = _plus(done_top, o.max_win)
    top: int | None = 0
    for o in outcomes:
        top = None if top is None or o.max_win is None else top + o.max_win
    parts = [(o.max_win, o.tail) for o in outcomes]
    if len(parts) == 1:
        return Outcome(mean, comps, method, m2, dist, top, methods, parts[0][1], uncovered=gone)

    def tail(t: float) -> tuple[float, float]:
        fn = tail_plus(parts)
        return (math.inf, 1.0) if fn is None else fn(t)

    return Outcome(mean, comps, method, m2, dist, top, methods, memo_tail(tail), uncovered=gone)


L = TypeVar("L", StageLaw, Outcome)

class _Composer:
    """Solves every stage of one round once, and remembers how the round reaches each."""

    def __init__(self, engine: Engine, level: Level) -> None:
        self.engine = engine
        self.level = level
        game = engine.game
        self.blocks = {f.name: as_block(f) for f in game.features}
        self.seqs = [b for b in self.blocks.values() if b.role == "sequence" and b.trigger_digits(game)]
        self.laws: dict[Node, StageLaw] = {}
        self.outcomes: dict[Node, Outcome] = {}
        self._held = 0
        """Bytes of the win laws :attr:`laws` and :attr:`outcomes` hold (:meth:`_keep`, bounded by the memory limit)."""
        self._active: set[Node] = set()
        self._plays: dict[Hashable, SpinPlay] = {}
        self.base_parts: tuple[tuple[Fraction, Spin, StageLaw], ...] = ()
        """The base spin's law under each spin its modifiers make of it, with its probability (set by :meth:`base_law`)."""
        self.ctx = engine
        engine.hand(self.play_spin)

    def base_law(self) -> StageLaw:
        # what the engine cannot do for this spin is down to the blocks that shape it
        game = self.engine.game
        shaping = [game.feature_path(b) for b in self.blocks.values() if b.role == "modifier"]
        shaping += [game.feature_path(b) for b in self.seqs]
        with located(field=", ".join(shaping) or f"reels.{self.engine.reels}"):
            models = modified(self.ctx, self.engine.base_model())
            self.base_parts = tuple((p, m, _stage(self.engine, m, self.seqs, self.level, label)) for p, m, label in models)
        return _mix([(p, law) for p, _, law in self.base_parts], self.level)

    def short(self, node: Node) -> bool:
        """Whether the stage ``node`` is left to the simulator: at the distribution level, its block answers less."""
        if self.level != "distribution" or node == BASE or node[0] not in self.blocks:
            return False
        return self.blocks[node[0]].supported_level(self.engine.game) != "distribution"

    def law(self, node: Node) -> StageLaw:
        level = "moments" if self.short(node) else self.level
        if node not in self.laws:
            if node == BASE:
                self.laws[node] = self._keep(self.base_law(), node)
            else:
                name, entry = node
                if name not in self.blocks or self.blocks[name].role != "sequence":
                    msg = f"a stage leads to {name!r}, which is not a sequence feature of the game"
                    raise ModelError(msg)
                with _at(self.engine.game, self.blocks[name]):
                    if isinstance(entry, Drawn):  # the stage that draws the entry averages the feature over it
                        if entry.source not in self.blocks:
                            msg = (f"a drawn entry of {name!r} comes from {entry.source!r}, which is not a feature "
                                   "of the game")
                            raise ModelError(msg)
                        law = self.blocks[entry.source].drawn_law(self.ctx, entry.key, self.blocks[name], level)
                        self.laws[node] = self._keep(law, node)
                    else:
                        self.laws[node] = self._keep(self.blocks[name].law(self.ctx, entry, level), node)
        return self.laws[node]

    def _keep(self, law: L, node: Node) -> L:
        """``law`` (a stage's law or an outcome), its distributions counted against ``MATHKIT_MAX_MEMORY``: the round's
        stages are kept until the round is composed, so their laws add up (a game whose pays spread every law over
        millions of values is refused by name here, not after taking the machine's memory)."""
        dists = [b.dist for b in law.branches.values()] if isinstance(law, StageLaw) else [law.dist]
        self._held += sum(d.values.nbytes + d.probs.nbytes for d in dists if d is not None)
        check_cost("the round's win distribution (the laws of its stages, kept until the round is composed)",
                   memory=self._held, field=f"features.{node[0]}" if node != BASE else f"reels.{self.engine.reels}",
                   fix="lower the largest pays (every law spreads over the wins they make), or let `mathkit par` "
                       "sample the distribution (the RTP and σ do not need it)")
        return law

    def after(self, key: Exit) -> Outcome:
        """The outcome of the features an exit plays, one after another."""
        return _sum([self.outcome(child) for child in key], self.level)

    def outcome(self, node: Node) -> Outcome:
        if node in self.outcomes:
            return self.outcomes[node]
        if node in self._active:
            msg = f"feature {node[0]!r} with entry {node[1]!r} leads back to itself: the round would never end"
            raise ModelError(msg)
        self._active.add(node)
        law = self.law(node)
        short = self.short(node)
        level: Level = "moments" if short else self.level
        gone: list[Uncovered] = []
        comps: dict[str, Number] = dict(law.components)
        methods: dict[str, Method] = dict.fromkeys(law.components, law.method)
        mean: Number = law.mean
        m2: Number = Fraction(0)
        method: Method = law.method
        dists = Mixing()  # each branch's law added as it comes (not every one held until the end)
        top: int | None = 0
        parts: list[tuple[float, int | None, Tail | None, Outcome]] = []
        for key, br in law.branches.items():
            after = self.after(key)
            if br.p:
                parts.append((float(br.p), br.top, br.tail, after))
            method = weakest(method, after.method)
            mean = mean + br.p * after.mean
            for k, v in after.components.items():
                comps[k] = comps.get(k, Fraction(0)) + br.p * v
                methods[k] = weakest(methods.get(k, "exact"), after.method_of(k))
            both = _then(br, after, level)
            if self.level != "mean":
                assert both.m2 is not None
                m2 = m2 + br.p * both.m2
            if both.dist is not None:
                dists.add(float(br.p), both.dist)
                gone += _scaled(both.uncovered, br.p)
            top = None if top is None or both.top is None else max(top, both.top)
        self._active.discard(node)
        if short:  # the whole stage and what follows it: its moments, its law sampled
            why = (f"{node[0]!r} answers its mean and second moment only, not its win distribution "
                   f"(see its block, {type(self.blocks[node[0]]).__name__})")
            dists, gone = Mixing(), [Uncovered(f"feature:{node[0]}", Fraction(1), mean, why, top)]
            dists.add(1.0, NOTHING)
        out = Outcome(mean, comps, method, m2 if self.level != "mean" else None,
                      dists.law() if self.level == "distribution" else None, top, methods,
                      _node_tail(parts), uncovered=_gather(gone))
        self.outcomes[node] = self._keep(out, node)
        return out

    def play_spin(self, model: SpinModel, observe: tuple[str, ...], group: Callable[[Mapping[str, int]], Hashable],
                  exclude: tuple[str, ...], level: Level | None = None) -> SpinPlay:
        """One spin as the round plays it (see :meth:`mathkit.features.RoundContext.play_spin`)."""
        level = self.level if level is None or LEVELS.index(level) > LEVELS.index(self.level) else level
        cache = (model, observe, group, exclude, level)
        if cache in self._plays:
            return self._plays[cache]
        seqs = [b for b in self.seqs if b.name not in exclude]
        parts = [(p, _stage(self.engine, m, seqs, level, label, observe, group))
                 for p, m, label in modified(self.ctx, model)]
        law = _mix(parts, level)
        comps: dict[str, Number] = dict(law.components)
        methods: dict[str, Method] = dict.fromkeys(law.components, law.method)
        method: Method = law.method
        by_group: dict[Hashable, list[Branch]] = {}
        for gk, br in law.branches.items():
            g, key = cast(tuple[Hashable, Exit], gk)
            after = self.after(key)
            method = weakest(method, after.method)
            for k, v in after.components.items():
                comps[k] = comps.get(k, Fraction(0)) + br.p * v
                methods[k] = weakest(methods.get(k, "exact"), after.method_of(k))
            by_group.setdefault(g, []).append(_then(br, after, level))
        out = SpinPlay({g: _merge(bs, level) for g, bs in by_group.items()}, comps, method, level, methods)
        self._plays[cache] = out
        return out

    def reach(self) -> dict[Node, Number]:
        """P(a round plays each stage with each entry), over every way of getting there (:func:`~mathkit.laws.stage.visits`)."""
        base = self.laws[BASE]
        return {BASE: Fraction(1), **visits(self.laws, [(br.p, key) for key, br in base.branches.items()])}


def p_any(laws: Mapping[Node, StageLaw], names: Iterable[str], start: StageLaw | None = None) -> Number:
    """P(a round enters at least one of the features ``names``): the probability of the union of their entry events.

    ``laws`` are the round's stage laws by node (:attr:`RoundAnalysis.laws`); ``start`` the stage the
    round starts from (default the base spin, ``laws[BASE]``).  A stage's branches are exclusive
    events; the features an exit plays one after another are independent given it, so from a stage
    ``q = Σ_b P(b)·(1 − Π_{c ∈ exit(b)} (1 − q_c))``, with ``q = 1`` at a feature of ``names`` — exact in
    Fractions.  It is the sum of the features' entries only when no round enters two of them
    (nor one twice).

    Examples
    --------
    >>> a, end = Branch(Fraction(1, 4)), StageLaw({(): Branch(Fraction(1))}, {})   # x alone, x and y: 1/4 each
    >>> laws = {BASE: StageLaw({(("x", None),): a, (("x", None), ("y", None)): a, (): Branch(Fraction(1, 2))}, {}),
    ...         ("x", None): end, ("y", None): end}
    >>> p_any(laws, ["x", "y"]), p_any(laws, ["y"])
    (Fraction(1, 2), Fraction(1, 4))
    """
    wanted = frozenset(names)
    memo: dict[Node, Number] = {}

    def from_law(law: StageLaw) -> Number:
        total: Number = Fraction(0)
        for key, br in law.branches.items():
            none: Number = Fraction(1)
            for child in key:
                none = none * (1 - enters(child))
            total = total + br.p * (1 - none)
        return total

    def enters(node: Node) -> Number:
        if node[0] in wanted:
            return Fraction(1)
        if node not in memo:
            memo[node] = from_law(laws[node])
        return memo[node]

    return from_law(laws[BASE] if start is None else start)


@dataclass(frozen=True, eq=False)
class RoundAnalysis:
    """A round composed from its blocks: the outcome, the base spin's law, each feature's statistics.

    ``outcome`` is the round after every transform (the cap applied, the gamble beside it),
    ``uncapped`` before them; ``sections`` are the blocks' PAR sections in the game's order.
    ``law`` is the round's win law after the transforms (per unit of total bet: exact counts when
    the base spin alone makes the round, else float probabilities; a sub-distribution when parts of
    the round are left to the simulator; ``None`` below the distribution level) and ``law_before``
    the same before them; ``limit`` what the round limit (the cap) comes to (:class:`~mathkit.features.Limit`:
    its credits, P(limit) with its bound flag, its tail bounds), ``None`` without one.  :attr:`sd` is σ
    under the cap with its bound.  The PAR sheet, the checks, sessions and the mixture read these.
    ``laws`` holds every stage's law by node (``("", None)`` the base spin, ``(feature, entry)`` the others):
    :meth:`enter_any` reads them.
    """

    game: Game
    engine: Engine
    level: Level
    outcome: Outcome
    uncapped: Outcome
    base: StageLaw
    stats: Mapping[str, FeatureStats]
    sections: tuple[FeatureSection, ...]
    law: WinLaw | None = None
    law_before: WinLaw | None = None
    limit: Limit | None = None
    laws: Mapping[Node, StageLaw] = field(default_factory=dict)

    def enter_any(self, names: Iterable[str]) -> Number:
        """P(a round enters at least one of the sequence features ``names``), exact (:func:`p_any`).

        Each feature's :attr:`~mathkit.features.FeatureStats.p_enter` counts its own entries; this is
        their union, where a round that enters two of them counts once.

        Examples
        --------
        >>> from mathkit.gamefile.io import load_game
        >>> a = analyse(load_game("data/games/dynasty.toml"), level="mean")
        >>> a.enter_any(["free_spins"]) == a.stats["free_spins"].p_enter
        True
        """
        wanted = tuple(names)
        unknown = [n for n in wanted if n not in self.stats or as_block(self.game.feature(n)).role != "sequence"]
        if unknown:
            msg = f"not a sequence feature of {self.game.name}: {', '.join(unknown)}"
            raise UsageError(msg)
        return p_any(self.laws, wanted)

    @property
    def whole(self) -> bool:
        """Whether the analysis holds the whole round's law (the distribution level, no part left to the simulator)."""
        return self.law is not None and self.level == "distribution" and not self.uncapped.uncovered

    @cached_property
    def sd(self) -> tuple[Figure, float | None]:
        """σ of a round's win per unit of total bet, and how far it may be from σ under the cap.

        The second value is ``None`` when σ is that of the round after the transforms (the cap
        applied), else a bound on ``|σ − σ capped|`` per bet (``inf``: none): σ is then the round's
        before the cap, which a tail bound (not the distribution) settles.
        """
        bet = self.total_bet
        after, before = self.outcome, self.uncapped
        if self.whole and self.law is not None:
            if after.m2 is not None:
                var = after.m2 - after.mean * after.mean
                return Figure(math.sqrt(max(float(var), 0.0)) / bet, after.method), None
            return Figure(self.law.sd_per_bet(), self.law.method), None
        src = after if after.m2 is not None and after.method != "markov" else before
        if src.m2 is None:
            msg = "σ needs the round analysed to its moments"
            raise ModelError(msg)
        var = src.m2 - src.mean * src.mean
        sd = Figure(math.sqrt(max(float(var), 0.0)) / bet, src.method)
        if src is not before or not transforms(self.game):
            return sd, None
        gap = self.limit.m2_gap() if self.limit is not None else math.inf
        if not math.isfinite(gap) or self.limit is None:
            return sd, math.inf
        # |Var − Var_capped| ≤ max(E[Y²] − E[min(Y, c)²], 2·E[Y]·E[(Y − c)⁺]) ≤ max(gap, 2·E[Y]·gap/(2c))
        dvar = max(gap, float(src.mean) * gap / float(self.limit.credits))
        root = math.sqrt(max(float(var), 0.0))
        return sd, (dvar / (root + math.sqrt(max(float(var) - dvar, 0.0))) / bet if root else math.inf)

    @property
    def total_bet(self) -> int:
        return self.engine.total_bet

    def rtp(self) -> Number:
        """The round's RTP (transforms applied)."""
        return self.outcome.mean / self.total_bet

    def breakdown(self) -> dict[str, Number]:
        """RTP by component (per unit of total bet), summing to :meth:`rtp`."""
        return {k: v / self.total_bet for k, v in self.outcome.components.items()}

    @property
    def triggered(self) -> bool:
        """Whether any base-spin outcome starts a feature."""
        return any(key for key in self.base.branches)


def _compose(engine: Engine, level: Level) -> tuple[_Composer, Outcome]:
    comp = _Composer(engine, level)
    return comp, comp.outcome(BASE)


def analyse(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
            level: Level = "distribution", parallel: bool = False, precision: Precision = "exact",
            sections: bool = True) -> RoundAnalysis:
    """Compose the round of ``game`` at one bet to ``level``, raising it where a transform needs more.

    A cap whose effect no max-win bound proves to be zero (nor a tail bound
    proves negligible) needs the round's distribution, so a ``"mean"`` or
    ``"moments"`` analysis of such a game is raised to ``"distribution"``.
    ``precision="float"`` lets the blocks solve their chains in floating point
    (the workbench's quick view); the figures are then tagged ``markov``.
    ``sections=False`` leaves the blocks' PAR sections out (the RTP alone).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> a = analyse(load_game("data/games/dynasty.toml"), level="mean")
    >>> sorted(a.breakdown()), a.outcome.method
    (['free spins', 'lines', 'scatter'], 'exact')
    """
    with located(path=game.source):
        return _analyse(Engine(game, reels, lines=lines, coins=coins, parallel=parallel, precision=precision), level,
                        sections)


def _analyse(engine: Engine, level: Level, sections: bool) -> RoundAnalysis:
    game = engine.game
    comp, outcome = _compose(engine, level)
    needed = 0
    for b in transforms(game):
        with _at(game, b):
            needed = max(needed, LEVELS.index(b.level_needed(engine, outcome)))
    if needed > LEVELS.index(level):
        level = LEVELS[needed]
        comp, outcome = _compose(engine, level)
    reach = comp.reach()
    stats: dict[str, FeatureStats] = {}
    for name, block in comp.blocks.items():
        if block.role == "sequence":
            entries = {node[1]: p for node, p in reach.items() if node[0] == name}
            stats[name] = FeatureStats(entries, {e: comp.laws[(name, e)] for e in entries},
                                       {e: comp.outcomes[(name, e)] for e in entries}, level, {"round": outcome})
        elif block.role == "modifier":
            stats[name] = FeatureStats({}, {}, {}, level, {"base": comp.laws[BASE], "parts": comp.base_parts,
                                                           "laws": comp.laws})
    uncapped = outcome
    for block in transforms(game):
        before = outcome
        with _at(game, block):
            outcome = block.transform(engine, outcome)
        stats[block.name] = FeatureStats({(): Fraction(1)}, {}, {}, level, {"before": before, "after": outcome})
    law = _law(game, comp, outcome.dist, engine.total_bet)
    before_law = _law(game, comp, uncapped.dist, engine.total_bet)
    limit = None
    whole = law is not None and level == "distribution" and not uncapped.uncovered
    for block in transforms(game):
        with _at(game, block):
            limit = block.limit_effect(engine, stats[block.name].extra["before"], law if whole else None) or limit
    shown = []
    for f in game.features if sections else ():
        with _at(game, f):
            section = comp.blocks[f.name].section(comp.ctx, stats[f.name])
        if section is not None:
            shown.append(section)
    return RoundAnalysis(game, engine, level, outcome, uncapped, comp.laws[BASE], stats, tuple(shown), law, before_law,
                         limit, comp.laws)


def _law(game: Game, comp: _Composer, dist: WinLaw | None, bet: int) -> WinLaw | None:
    """A round's law per unit of ``bet``: exact counts when the base spin alone makes the round, else floats."""
    if dist is None:
        return None
    alone = not any(key for key in comp.laws[BASE].branches) and not game.features_of("modifier")
    if alone and dist.counts is not None:
        return dist.with_(unit=bet, method="exact")
    return WinLaw.from_probs(dist.values, dist.probs, unit=bet, method="markov", lost_mass=dist.lost_mass)


def rtp_breakdown(game: Game, reels: str | None = None, *, lines: int | None = None,
                  coins: int | None = None, precision: Precision = "exact") -> dict[str, Number]:
    """Exact RTP of a whole round by component, from per-reel algebra (no enumeration where it can be avoided).

    ``precision="float"``: the blocks solve their chains in floating point (the quick view of an edit).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> parts = rtp_breakdown(load_game("data/games/dynasty.toml"))
    >>> sorted(parts), float(sum(parts.values())) > 0.9
    (['free spins', 'lines', 'scatter'], True)
    """
    return analyse(game, reels, lines=lines, coins=coins, level="mean", precision=precision, sections=False).breakdown()
