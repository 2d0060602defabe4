"""The gamble ladder: what a player's gamble strategy does to a win, exactly.

After a win the player may stake the whole amount on a gamble option (colour
×2 at 1/2, suit ×4 at 1/4 ...): with probability ``p`` the amount is multiplied
by the option's ``multiplier``, otherwise it is lost.  A strategy decides at each
rung whether to gamble again.  The ladder is finite and acyclic (at most
``max_gambles`` rungs), so everything here is exact Fraction arithmetic; the same
ladder as a :class:`~mathkit.chains.markov.RewardChain` is :func:`ladder_chain`.

The limit reading
-----------------
``Gamble.limit`` says "a win above it is not offered the gamble".  The default
reading, ``limit_on="stake"``, offers the gamble while the current amount is at
most ``limit`` (so one gamble may pay up to ``limit × multiplier``); the other
plausible reading, ``limit_on="win"``, offers an option only when the amount it
would pay, ``amount × multiplier``, is at most ``limit``.  Either way the gamble
is offered only on a positive amount and at most ``max_gambles`` times in a row.

Examples
--------
>>> g = Ladder((GambleOption("colour", 2, Fraction(1, 2)),), max_gambles=5, limit=1000)
>>> ladder_distribution(g, Always("colour"), 10)
{0: Fraction(31, 32), 320: Fraction(1, 32)}
>>> return_ratio(g, Always("colour"), 10)
Fraction(1, 1)
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from ..errors import GameError, ModelError
from .markov import ABSORB, RewardChain

__all__ = [
    "Always",
    "FairCheck",
    "Gamble",
    "GambleEffect",
    "GambleOption",
    "GambleRow",
    "Ladder",
    "LimitReading",
    "Never",
    "Strategy",
    "UntilTarget",
    "check_fair",
    "choice",
    "expected_return",
    "gamble_effect",
    "gamble_table",
    "ladder_chain",
    "ladder_distribution",
    "return_ratio",
]

LimitReading = Literal["stake", "win"]


@dataclass(frozen=True)
class GambleOption:
    """One gamble choice: win ``multiplier`` times the stake with probability ``p``."""

    name: str
    multiplier: int
    p: Fraction


class Gamble(Protocol):
    """The rules of a gamble ladder (the game's ``[gamble]`` block, :class:`mathkit.features.gamble.Gamble`)."""

    @property
    def options(self) -> tuple[GambleOption, ...]: ...

    @property
    def max_gambles(self) -> int: ...

    @property
    def limit(self) -> int: ...


@dataclass(frozen=True)
class Ladder:
    """Gamble rules as plain data: the options, most gambles in a row, the amount limit in credits."""

    options: tuple[GambleOption, ...]
    max_gambles: int
    limit: int


@dataclass(frozen=True)
class Never:
    """Always collect the win."""

    @property
    def name(self) -> str:
        return "never"


@dataclass(frozen=True)
class Always:
    """Gamble with ``option`` every time the gamble is offered."""

    option: str

    @property
    def name(self) -> str:
        return f"always {self.option}"


@dataclass(frozen=True)
class UntilTarget:
    """Gamble with ``option`` while the amount is below ``target`` (and the gamble is offered)."""

    option: str
    target: int

    @property
    def name(self) -> str:
        return f"{self.option} until {self.target}"


Strategy = Never | Always | UntilTarget


def _validate(gamble: Gamble) -> None:
    names = [o.name for o in gamble.options]
    for k, o in enumerate(gamble.options):
        where = f"gamble.options[{k}]"
        if names.count(o.name) > 1:
            msg = f"option name {o.name!r} is used twice"
            raise GameError(msg, field=f"{where}.name")
        if not (isinstance(o.p, Fraction | int) and 0 <= o.p <= 1):
            msg = f"probability {o.p} is not valid"
            raise GameError(msg, field=f"{where}.p", fix="an exact Fraction in [0, 1]")
        if not (isinstance(o.multiplier, int) and o.multiplier >= 1):
            msg = f"multiplier {o.multiplier!r} is not valid"
            raise GameError(msg, field=f"{where}.multiplier", fix="an integer >= 1")
    if gamble.max_gambles < 0 or gamble.limit < 0:
        msg = f"max_gambles {gamble.max_gambles}, limit {gamble.limit}"
        raise GameError(msg, field="gamble", fix="both non-negative integers")


def _option(gamble: Gamble, name: str) -> GambleOption:
    for o in gamble.options:
        if o.name == name:
            return o
    msg = f"no gamble option {name!r}: choose one of {', '.join(o.name for o in gamble.options)}"
    raise ModelError(msg)


def choice(
    gamble: Gamble, strategy: Strategy, amount: int, done: int, *, limit_on: LimitReading = "stake"
) -> GambleOption | None:
    """The option ``strategy`` gambles ``amount`` on after ``done`` gambles, or ``None`` to collect.

    The gamble is offered while ``0 < amount``, ``done < max_gambles`` and the
    limit allows it (see the module's note on ``limit_on``).
    """
    if isinstance(strategy, Never):
        return None
    option = _option(gamble, strategy.option)
    stake = amount * option.multiplier if limit_on == "win" else amount
    if not (amount > 0 and done < gamble.max_gambles and stake <= gamble.limit):
        return None
    if isinstance(strategy, UntilTarget) and amount >= strategy.target:
        return None
    return option


def ladder_distribution(
    gamble: Gamble, strategy: Strategy, amount: int, *, limit_on: LimitReading = "stake"
) -> dict[int, Fraction]:
    """Exact distribution of the amount collected when ``strategy`` plays a win of ``amount``."""
    _validate(gamble)
    final: dict[int, Fraction] = {}
    live = {amount: Fraction(1)}
    for done in range(gamble.max_gambles + 1):
        nxt: dict[int, Fraction] = {}
        for a, p in live.items():
            option = choice(gamble, strategy, a, done, limit_on=limit_on)
            if option is None:
                final[a] = final.get(a, Fraction(0)) + p
                continue
            up, win = a * option.multiplier, Fraction(option.p)
            if win:
                nxt[up] = nxt.get(up, Fraction(0)) + p * win
            if win != 1:
                final[0] = final.get(0, Fraction(0)) + p * (1 - win)
        live = nxt
    return dict(sorted(final.items()))


def expected_return(
    gamble: Gamble, strategy: Strategy, amount: int, *, limit_on: LimitReading = "stake"
) -> Fraction:
    """Expected amount collected from a win of ``amount``: ``amount × (p·multiplier)^k`` for k gambles."""
    dist = ladder_distribution(gamble, strategy, amount, limit_on=limit_on)
    return sum((v * p for v, p in dist.items()), Fraction(0))


def return_ratio(
    gamble: Gamble, strategy: Strategy, amount: int, *, limit_on: LimitReading = "stake"
) -> Fraction:
    """Expected amount collected per credit won (exactly 1 for fair options; 1 when ``amount`` is 0)."""
    if amount == 0:
        return Fraction(1)
    return expected_return(gamble, strategy, amount, limit_on=limit_on) / amount


def ladder_chain(
    gamble: Gamble, strategy: Strategy, amount: int, *, limit_on: LimitReading = "stake"
) -> RewardChain:
    """The ladder from ``amount`` as a reward chain on states ``(amount, gambles done)``.

    Collecting pays the amount and ends; gambling pays 0 and moves up a rung or
    ends (lost).  ``expected_reward((amount, 0))`` is :func:`expected_return`.

    Examples
    --------
    >>> g = Ladder((GambleOption("suit", 4, Fraction(1, 4)),), max_gambles=2, limit=100)
    >>> ladder_chain(g, Always("suit"), 5).expected_reward((5, 0))
    Fraction(5, 1)
    """
    _validate(gamble)
    index = {(amount, 0): 0}
    rows: list[list[tuple[int, int, Fraction]]] = []
    todo = deque([(amount, 0)])  # first in, first out: rows are made in index order
    while todo:
        a, done = todo.popleft()
        option = choice(gamble, strategy, a, done, limit_on=limit_on)
        if option is None:
            rows.append([(a, ABSORB, Fraction(1))])
            continue
        win, up = Fraction(option.p), (a * option.multiplier, done + 1)
        if win and up not in index:
            index[up] = len(index)
            todo.append(up)
        rows.append([(0, index[up], win)] if win else [])
        rows[-1].append((0, ABSORB, 1 - win))  # dropped when 0
    return RewardChain.from_outcomes(list(index), rows)


def _win_distribution(values: Iterable[int], probs: Iterable[object]) -> dict[int, Fraction]:
    """Values and probabilities as exact Fractions.

    Integer ``probs`` are weights (hit counts) and are normalised; Fractions must
    sum to exactly 1; floats are taken at their exact binary value, must sum to 1
    within 1e-9, and are normalised.
    """
    vals = [int(v) for v in values]
    raw = [p.item() if isinstance(p, np.generic) else p for p in probs]
    if len(vals) != len(raw) or any(v < 0 for v in vals):
        msg = f"{len(vals)} values and {len(raw)} probabilities: need as many, values >= 0"
        raise ModelError(msg)
    fr = []
    for p in raw:
        if isinstance(p, bool) or not isinstance(p, int | float | Fraction):
            msg = f"probabilities must be integer weights, Fractions or floats, got {p!r}"
            raise ModelError(msg)
        fr.append(Fraction(p))
    total = sum(fr, Fraction(0))
    if any(p < 0 for p in fr) or total <= 0:
        msg = "probabilities must be non-negative with a positive total"
        raise ModelError(msg)
    weights = all(isinstance(p, int) for p in raw)
    floats = any(isinstance(p, float) for p in raw)
    if not weights and ((floats and abs(total - 1) > 1e-9) or (not floats and total != 1)):
        msg = f"probabilities sum to {float(total)!r}, not 1"
        raise ModelError(msg)
    out: dict[int, Fraction] = {}
    for v, p in zip(vals, fr, strict=True):
        if p:
            out[v] = out.get(v, Fraction(0)) + p / total
    return dict(sorted(out.items()))


def _moments(dist: Mapping[int, Fraction]) -> tuple[Fraction, Fraction]:
    mean = sum((v * p for v, p in dist.items()), Fraction(0))
    return mean, sum((v * v * p for v, p in dist.items()), Fraction(0)) - mean * mean


@dataclass(frozen=True, eq=False)
class GambleEffect:
    """A win distribution before and after a gamble strategy (see :func:`gamble_effect`).

    ``p_bust`` is the probability that a game had a win and lost it in the
    gamble: ``after[0] - before[0]``.
    """

    strategy: str
    before: Mapping[int, Fraction]
    after: Mapping[int, Fraction]
    mean_before: Fraction
    var_before: Fraction
    mean_after: Fraction
    var_after: Fraction

    @property
    def return_ratio(self) -> Fraction:
        """``mean_after / mean_before`` (1 when there is no win to gamble)."""
        return self.mean_after / self.mean_before if self.mean_before else Fraction(1)

    @property
    def variance_change(self) -> Fraction:
        return self.var_after - self.var_before

    @property
    def max_exposure(self) -> int:
        """The largest amount one game can pay after gambling."""
        return max(v for v, p in self.after.items() if p > 0)

    @property
    def p_bust(self) -> Fraction:
        return self.after.get(0, Fraction(0)) - self.before.get(0, Fraction(0))


def gamble_effect(
    gamble: Gamble,
    strategy: Strategy,
    values: Sequence[int] | npt.NDArray[np.integer],
    probs: Sequence[Fraction | int | float] | npt.NDArray[np.generic],
    *,
    limit_on: LimitReading = "stake",
) -> GambleEffect:
    """Apply ``strategy`` to every win of a distribution (``probs``: see :func:`gamble_table`)."""
    before = _win_distribution(values, probs)
    after: dict[int, Fraction] = {}
    for v, p in before.items():
        for w, q in ladder_distribution(gamble, strategy, v, limit_on=limit_on).items():
            after[w] = after.get(w, Fraction(0)) + p * q
    after = dict(sorted(after.items()))
    return GambleEffect(strategy.name, before, after, *_moments(before), *_moments(after))


class GambleRow(NamedTuple):
    """One PAR-sheet row: a strategy's effect on the win distribution."""

    strategy: str
    return_ratio: Fraction
    mean_before: Fraction
    mean_after: Fraction
    sd_before: float
    sd_after: float
    max_exposure: int
    p_bust: Fraction


def gamble_table(
    gamble: Gamble,
    values: Sequence[int] | npt.NDArray[np.integer],
    probs: Sequence[Fraction | int | float] | npt.NDArray[np.generic],
    strategies: Iterable[Strategy] | None = None,
    *,
    limit_on: LimitReading = "stake",
) -> list[GambleRow]:
    """Rows for the PAR sheet: each strategy's return ratio, means, σ, exposure and P(bust).

    ``values`` are wins in credits and ``probs`` their probabilities: integer
    weights (hit counts, normalised), Fractions summing to 1, or floats (taken
    exactly, normalised).  ``strategies`` defaults to never, then always each option.

    Examples
    --------
    >>> g = Ladder((GambleOption("colour", 2, Fraction(1, 2)),), max_gambles=1, limit=100)
    >>> row = gamble_table(g, [0, 10], [1, 1], [Always("colour")])[0]
    >>> row.return_ratio, row.mean_after, row.sd_before, row.sd_after, row.max_exposure, row.p_bust
    (Fraction(1, 1), Fraction(5, 1), 5.0, 8.660254037844387, 20, Fraction(1, 4))
    """
    default: list[Strategy] = [Never(), *(Always(o.name) for o in gamble.options)]
    chosen = list(strategies) if strategies is not None else default
    rows = []
    for s in chosen:
        e = gamble_effect(gamble, s, values, probs, limit_on=limit_on)
        sd_b, sd_a = math.sqrt(e.var_before), math.sqrt(e.var_after)
        rows.append(
            GambleRow(e.strategy, e.return_ratio, e.mean_before, e.mean_after, sd_b, sd_a, e.max_exposure, e.p_bust)
        )
    return rows


class FairCheck(NamedTuple):
    """Certification: an option returns exactly 100% when ``p × multiplier == 1``."""

    option: str
    ratio: Fraction
    passed: bool


def check_fair(gamble: Gamble) -> list[FairCheck]:
    """``(option, p × multiplier, passed)`` for every option: each must return exactly 100%.

    Examples
    --------
    >>> g = Ladder((GambleOption("colour", 2, Fraction(1, 2)), GambleOption("suit", 4, Fraction(6, 25))), 5, 100)
    >>> [(c.option, str(c.ratio), c.passed) for c in check_fair(g)]
    [('colour', '1', True), ('suit', '24/25', False)]
    """
    _validate(gamble)
    return [FairCheck(o.name, Fraction(o.p) * o.multiplier, Fraction(o.p) * o.multiplier == 1) for o in gamble.options]
