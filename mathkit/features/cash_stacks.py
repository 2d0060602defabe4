"""Cash Activate Stacks: activators on some reels give every PRIZE stack a chain of values.

TOML::

    [cash_stacks]
    activators = { ACT1 = 1, ACT2 = 2, ACT3 = 3, ACT4 = 4, ACT5 = 5 }   # bonus symbols and their values (× total bet)
    reels = [1, 5]                                          # the only reels activators may appear on
    prizes = ["PRIZE", "PRIZE_J"]                           # bonus symbols that form stacks
    skip = "jackpot"                                        # a PRIZE carrying this mark gets no value
    chain = "pass"                                          # over a skipped PRIZE: "pass" or "restart"

The rule, read on the window only (a stack is a maximal run of PRIZE cells on one
reel as the window shows it; cells beyond the window edge are not on screen and
do not count).  ``A`` is the sum of the values of every activator showing.  In
each stack, from the bottom up, the lowest eligible PRIZE gets ``A`` and every
eligible PRIZE above it the value of the eligible PRIZE below it plus ``A``; a
PRIZE carrying the ``skip`` mark gets no value and, with ``chain = "pass"``, the
value passes over it to the next eligible PRIZE (the k-th eligible PRIZE of a
stack is worth ``k·A``); with ``chain = "restart"`` the PRIZE above it starts a
new chain at ``A``.  Nothing is paid unless an activator and a PRIZE show.

The maths: with ``S`` the sum, over the window's stacks, of the chain positions
of their eligible PRIZEs, the cash paid is ``A · S`` × the total bet — the product
of two observations that add up over the reels (``A`` from the activator reels,
``S`` from every reel).  The exact engine conditions on the activators' values on
their reels (a few dozen classes), inside which the cash is an additive per-stop
win; the mean needs no enumeration (``E[A·S] = Σ_r E[a_r s_r] + Σ_{r≠t} E[a_r]E[s_t]``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar, Literal, Self

from ..errors import GameError, ModelError
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import CountOf, Digit, SpinModel
from ..model.fields import check_keys, fraction, string
from ..model.game import Game, Role
from ..play.vocabulary import CellSum, Const, Count, EverySpin, Pay, Product, Stacks, Stake, Tally, Test
from .base import Block, Context, FeatureStats, MaxWin, modified

__all__ = ["ActivatorTotal", "CashStacks", "PrizeSteps", "chain_positions"]

Chain = Literal["pass", "restart"]
CHAINS: tuple[Chain, ...] = ("pass", "restart")


def chain_positions(column: Sequence[str], prizes: frozenset[str], skipped: frozenset[str],
                    chain: Chain) -> list[int]:
    """Each cell's chain position in its PRIZE stack (0: no value), the column read top to bottom.

    The rule said once: stacks are maximal runs of PRIZE cells in the column shown; counting
    from the bottom of each, every eligible PRIZE is one more than the eligible PRIZE below it;
    a skipped PRIZE is 0 and either passes the count on (``"pass"``) or starts it again (``"restart"``).

    Examples
    --------
    Top to bottom: P, J, P, A, P, P (J a jackpot PRIZE, A anything else).

    >>> P, J = frozenset({"P", "J"}), frozenset({"J"})
    >>> chain_positions(["P", "J", "P", "A", "P", "P"], P, J, "pass")
    [2, 0, 1, 0, 2, 1]
    >>> chain_positions(["P", "J", "P", "A", "P", "P"], P, J, "restart")
    [1, 0, 1, 0, 2, 1]
    """
    out = [0] * len(column)
    k = 0
    for i in range(len(column) - 1, -1, -1):
        s = column[i]
        if s not in prizes:
            k = 0
        elif s in skipped:
            if chain == "restart":
                k = 0
        else:
            k += 1
            out[i] = k
    return out


@dataclass(frozen=True)
class PrizeSteps:
    """Digit: the sum of the chain positions of a column's eligible PRIZEs (``S`` on one reel)."""

    prizes: frozenset[str]
    skipped: frozenset[str]
    chain: Chain

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        return sum(chain_positions(column, self.prizes, self.skipped, self.chain))


@dataclass(frozen=True)
class ActivatorTotal:
    """Digit: the values of the activators a column shows, in units of ``1/scale`` of the total bet."""

    values: tuple[tuple[str, int], ...]

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        table = dict(self.values)
        return sum(table.get(s, 0) for s in column)


@dataclass(frozen=True, kw_only=True)
class CashStacks(Block):
    """Activators on ``reels`` give every PRIZE stack the chain ``A, 2A, 3A …`` (see the module docstring).

    Examples
    --------
    >>> c = CashStacks(name="cash_stacks", activators=(("ACT", Fraction(5, 2)),), reels=(1, 3), prizes=("P", "J"))
    >>> c.digit_names, c.value("ACT"), c.scale()
    (('cash_stacks:activators', 'cash_stacks:steps'), Fraction(5, 2), 2)
    """

    kind: ClassVar[str] = "cash_stacks"
    role: ClassVar[Role] = "modifier"
    title: ClassVar[str] = "Cash stacks"

    activators: tuple[tuple[str, Fraction], ...]
    reels: tuple[int, ...]
    prizes: tuple[str, ...]
    skip: str = "jackpot"
    chain: Chain = "pass"

    # --- data ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "activators", "reels", "prizes", "skip", "chain"), where)
        chain = string(data.get("chain", "pass"), f"{where}.chain")
        if chain not in CHAINS:
            msg = f"unknown chain rule {chain!r}"
            raise GameError(msg, field=f"{where}.chain", fix='write "pass" (a skipped PRIZE passes the value on) '
                                                              'or "restart" (the chain starts again above it)')
        reels = data.get("reels")
        if not isinstance(reels, list) or not reels or not all(isinstance(r, int) and r >= 1 for r in reels):
            msg = "expected a list of reel numbers"
            raise GameError(msg, field=f"{where}.reels", fix="write e.g. [1, 5] (reels from 1)")
        raw = data.get("activators")
        if not isinstance(raw, dict) or not raw:
            msg = "expected a table of activator symbol = value (× total bet)"
            raise GameError(msg, field=f"{where}.activators", fix="write e.g. { ACT1 = 1, ACT2 = 2, ACT3 = 3 }")
        values = []
        for k, v in raw.items():
            x = fraction(v, f"{where}.activators.{k}")
            if x <= 0:
                msg = f"value {x} is not positive"
                raise GameError(msg, field=f"{where}.activators.{k}", fix="give a positive multiple of the total bet")
            values.append((str(k), x))
        return cls(name=name, activators=tuple(values),
                   reels=tuple(reels), prizes=_names(data.get("prizes"), f"{where}.prizes"),
                   skip=string(data.get("skip", "jackpot"), f"{where}.skip"),
                   chain="pass" if chain == "pass" else "restart")

    def table(self) -> dict[str, Any]:
        return {"activators": {s: int(v) if v.denominator == 1 else str(v) for s, v in self.activators},
                "reels": list(self.reels), "prizes": list(self.prizes),
                "skip": self.skip, "chain": self.chain}

    @property
    def names(self) -> tuple[str, ...]:
        """The activator symbols."""
        return tuple(s for s, _ in self.activators)

    def symbols(self) -> tuple[str, ...]:
        return (*self.names, *self.prizes)

    def validate(self, game: Game, where: str) -> None:
        for field, names in (("activators", self.names), ("prizes", self.prizes)):
            for i, s in enumerate(names):
                if s not in game.symbol_names or not game.symbol(s).is_bonus:
                    at = f"{where}.activators.{s}" if field == "activators" else f"{where}.prizes[{i}]"
                    msg = f"{s!r} is not a bonus symbol"
                    raise GameError(msg, field=at, fix=f'declare symbols.{s} with kind = "bonus"')
        for s in self.names:
            if game.symbol(s).value is not None:
                msg = f"activator {s!r} carries a value of its own"
                raise GameError(msg, field=f"symbols.{s}.value",
                                fix=f"give its value in {where}.activators only (one place for it)")
        both = set(self.names) & set(self.prizes)
        if both:
            msg = f"{sorted(both)} are both activators and prizes"
            raise GameError(msg, field=f"{where}.prizes", fix="a symbol is an activator or a PRIZE, not both")
        for r in self.reels:
            if not 1 <= r <= game.n_reels:
                msg = f"reel {r} does not exist"
                raise GameError(msg, field=f"{where}.reels", fix=f"reels are numbered 1 to {game.n_reels}")
        for rs in game.reel_sets:
            for r, strip in enumerate(rs.strips):
                if r + 1 in self.reels:
                    continue
                for i, s in enumerate(strip):
                    if s in self.names:
                        msg = f"activator {s!r} on reel {r + 1}, where it may not appear"
                        raise GameError(msg, field=f"reels.{rs.name}.strips[{r}][{i}]",
                                        fix=f"activators appear on reels {', '.join(map(str, self.reels))} only")
        bet = game.total_bet()
        for s, v in self.activators:
            if (v * bet).denominator != 1:
                msg = f"activator {s!r} is worth {v} × the total bet of {bet} credits: not whole credits"
                raise GameError(msg, field=f"{where}.activators.{s}", fix="choose a value that comes to whole credits")

    # --- the rule -----------------------------------------------------------------------
    def value(self, symbol: str) -> Fraction:
        """The value an activator carries (× total bet)."""
        return dict(self.activators)[symbol]

    def scale(self) -> int:
        """Activator values are counted in units of ``1/scale`` of the total bet (the values' common denominator)."""
        return math.lcm(*(v.denominator for _, v in self.activators)) if self.activators else 1

    def skipped(self, game: Game) -> frozenset[str]:
        """The PRIZEs that carry the ``skip`` mark."""
        return frozenset(s for s in self.prizes if game.symbol(s).mark == self.skip)

    @property
    def digit_names(self) -> tuple[str, str]:
        """The observations ``A`` (activator total, in units of 1/scale × bet) and ``S`` (chain positions)."""
        return f"{self.name}:activators", f"{self.name}:steps"

    def digits(self, game: Game) -> tuple[Digit, ...]:
        scale = self.scale()
        a, s = self.digit_names
        values = tuple((n, int(v * scale)) for n, v in self.activators)
        return (Digit(a, ActivatorTotal(values)),
                Digit(s, PrizeSteps(frozenset(self.prizes), self.skipped(game), self.chain)),
                Digit(f"{self.name}:prizes", CountOf(self.prizes)))

    def window_values(self, game: Game, window: Sequence[Sequence[str]]) -> tuple[Fraction, list[list[Fraction]]]:
        """``A`` and every cell's cash value (× total bet) in a window (reels of columns, top to bottom).

        Examples
        --------
        >>> from mathkit.gamefile.io import load_game
        >>> g = load_game("data/games/prince_of_riches.toml")
        >>> c = g.feature("cash_stacks")
        >>> a, cells = c.window_values(g, [["ACT2", "L1", "L2"], ["PRIZE", "PRIZE", "L3"], ["L1", "L2", "L3"],
        ...                                ["L1", "L2", "L3"], ["ACT3", "L4", "L5"]])
        >>> a, [str(x) for x in cells[1]]
        (Fraction(5, 1), ['10', '5', '0'])
        """
        shown = [s for column in window for s in column]
        a = sum((self.value(s) for s in shown if s in self.names), Fraction(0))
        prizes, skipped = frozenset(self.prizes), self.skipped(game)
        if a == 0 or not any(s in prizes for s in shown):
            return a, [[Fraction(0)] * len(column) for column in window]
        return a, [[k * a for k in chain_positions(list(column), prizes, skipped, self.chain)] for column in window]

    # --- the spin -----------------------------------------------------------------------
    def credits(self, ctx: Context) -> int:
        """Credits per unit of ``A × S`` at the bet analysed."""
        scale = self.scale()
        if ctx.total_bet % scale:
            msg = (f"{self.name}: activator values in units of 1/{scale} of a total bet of {ctx.total_bet} credits "
                   "are not whole credits")
            raise ModelError(msg)
        return ctx.total_bet // scale

    def spin_models(self, ctx: Context, model: SpinModel) -> tuple[tuple[Fraction, SpinModel, str], ...]:
        a, s = self.digit_names
        return ((Fraction(1), replace(model, products=(*model.products, (self.component, a, s, self.credits(ctx)))),
                 ""),)

    def max_win(self, ctx: Context) -> MaxWin:
        return MaxWin(True, 0, f"{self.name}: paid within the spin (its bound includes the cash)")

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("activators", "reels", "prizes", "skip", "chain"))

    def sim_table(self, game: Game, stake: Stake) -> EverySpin:
        """In every spin showing an activator and a PRIZE: the stacks' chain values, stepping by the activators' sum.

        The rule played cell by cell (:class:`~mathkit.play.vocabulary.Stacks`): from the bottom of each
        stack, every eligible PRIZE gets the value of the one below plus ``A`` (in units of
        ``1/scale`` of the bet); the ``skip``-marked ones get nothing and pass it on or restart it.
        (``reels`` is the strips' rule, checked when the game loads: activators show nowhere else.)
        """
        scale = self.scale()
        if stake.total_bet % scale:
            msg = (f"{self.name}: activator values in units of 1/{scale} of a total bet of {stake.total_bet} credits "
                   "are not whole credits")
            raise ModelError(msg)
        a = CellSum(tuple((s, int(v * scale)) for s, v in self.activators))
        cash = Stacks(self.prizes, tuple(sorted(self.skipped(game))), a, restart=self.chain == "restart")
        return EverySpin(trigger=(Test(Count(self.names), ">", 0), Test(Count(self.prizes), ">", 0)),
                         actions=(Pay(Product(cash, Const(stake.total_bet // scale)), unit="credits"),
                                  Tally(tally="plays", base_spin_only=True)))

    def sim_checks(self, game: Game) -> dict[str, str]:
        """How often the stacks play in a base spin (the free games' spins not counted), as the simulator counts it."""
        return {"P(cash stacks play) per base spin": f"per_round:{self.name}:plays"}

    # --- the PAR sheet ------------------------------------------------------------------
    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        a, _ = self.digit_names
        rows: list[tuple[str, ...]] = [("spin", "probability", "P(cash stacks play)", "1 in", "cash RTP",
                                        "average cash when played (× bet)")]
        figures: list[tuple[str, Figure]] = []
        p_play = Fraction(0)
        total = Fraction(0)
        for p, m, _ in modified(ctx, ctx.base_model()):
            weights, cycle = ctx.digit_law(m, (a, f"{self.name}:prizes"))
            q = Fraction(sum(w for (act, pr), w in weights.items() if act and pr), cycle)
            mean = ctx.means(m).get(self.component, Fraction(0))
            p_play += p * q
            total += p * mean
            label = "base spin" if m.rows is None else f"height {m.rows}"
            rows.append((label, str(p), f"{float(q):.6g}", f"{float(1 / q):,.1f}" if q else "never",
                         f"{float(mean / bet):.6%}", f"{float(mean / bet / q):.4f}" if q else "-"))
        figures += [("P(cash stacks play) per base spin", Figure.of(p_play)),
                    ("cash stacks frequency (1 in N)", Figure.odds(p_play)),
                    ("cash stacks RTP (base spins)", Figure.of(total / bet)),
                    ("average cash when played (× bet)", Figure.of(total / bet / p_play) if p_play else Figure.of(0))]
        values = ", ".join(f"{s} = {v}×" for s, v in self.activators)
        notes = (f"activators {values} (× total bet) on reels {', '.join(map(str, self.reels))}; "
                 f"A = the sum of the activators showing; PRIZE stacks: {', '.join(self.prizes)}",
                 "a stack is a maximal run of PRIZE cells on one reel as the window shows it; from its bottom, "
                 "the k-th eligible PRIZE is worth k·A" if self.chain == "pass" else
                 "a stack is a maximal run of PRIZE cells on one reel as the window shows it; from its bottom, "
                 "each eligible PRIZE is worth the one below plus A, and a skipped PRIZE starts the chain again",
                 f"PRIZEs marked {self.skip!r} get no value (they reveal their own award); nothing is paid unless an "
                 "activator and a PRIZE show",
                 "exact: cash = A·S × bet, a product of two per-reel sums; the distribution conditions on the "
                 "activator values of every activator reel (each class an additive per-stop win), the mean is "
                 "per-reel algebra")
        return FeatureSection(self.title, tuple(figures), tuple(rows), notes)


def _names(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        msg = "expected a list of symbol names"
        raise GameError(msg, field=field, fix='write e.g. ["PRIZE", "PRIZE_J"]')
    return tuple(value)
