"""The questions every feature block answers, and the engine services a block may call.

A block is a frozen dataclass (a :class:`~mathkit.model.game.Feature`) that reads its
own TOML table, validates itself against the game, and answers, by role:

* a **modifier** changes the spin (forced or held cells, the window height,
  symbol values): :meth:`Block.spin_models` turns one spin into a mixture of
  spins;
* a **sequence** is a chain of spins with state (free spins, re-spins, free
  games): :meth:`Block.entry` says which base-spin observations start it and
  with what state, :meth:`Block.law` gives its own win and its exits from an
  entry;
* a **transform** acts on the whole round (the cap, the gamble):
  :meth:`Block.transform`.

Every block also gives its PAR section, whether it terminates (with the
reason), its max win (or "unbounded" with the reason) and, for the simulator,
the table the generic driver plays.  Blocks never import the exact engine: the
maths that needs the enumeration comes through the :class:`Context` the round
composer passes in (:mod:`mathkit.round`), so the simulator, which reads the
same blocks, stays independent of it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..errors import GameError, ModelError
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure, Method, weakest
from ..laws.stage import (
    Digit,
    Entry,
    HeldCells,
    HeldValues,
    JointLaw,
    Level,
    LineTable,
    Number,
    Outcome,
    Overlay,
    Precision,
    Spin,
    SpinModel,
    SpinPlay,
    StageLaw,
    tail_of,
)
from ..model.game import Feature, Game

if TYPE_CHECKING:  # the tables come through the Context: blocks never build them
    from ..exact.pairs import PairTables, SplitTables
    from ..play.vocabulary import SimTable, Stake  # the simulator's vocabulary: only blocks that are played import it

__all__ = ["Block", "Context", "FeatureStats", "Finding", "Limit", "MaxWin", "RoundContext", "Termination", "check_reels", "modified"]

T = TypeVar("T")


@dataclass(frozen=True)
class Termination:
    """Whether a feature ends with probability 1 (and in finite expected time), and why."""

    ok: bool
    reason: str


@dataclass(frozen=True)
class MaxWin:
    """The most a feature can pay in one round (credits), or why it has no bound.

    ``likely`` bounds an unbounded feature's win except with probability below 2⁻⁶⁴
    (what a 64-bit overflow check needs).
    """

    bounded: bool
    credits: int | None
    reason: str
    likely: int | None = None


@dataclass(frozen=True)
class Finding:
    """One certification finding a block reports about itself (gamble fairness, the cap disclosed ...)."""

    name: str
    ok: bool
    detail: str


class Context(Protocol):
    """The exact engine as a block sees it (implemented by :class:`mathkit.round.Engine`)."""

    @property
    def game(self) -> Game: ...

    @property
    def total_bet(self) -> int: ...

    @property
    def lines(self) -> int: ...

    @property
    def coins(self) -> int: ...

    @property
    def precision(self) -> Precision:
        """``"exact"``: blocks answer in Fractions; ``"float"``: they may solve in floating point (a quick view)."""
        ...

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``key`` is asked for in this analysis, the remembered value after."""
        ...

    def shared(self, key: Hashable, reels: tuple[str, ...], compute: Callable[[], T]) -> T:
        """:meth:`once`, kept across analyses: for a value that depends only on the pay rules, the bet, the precision,
        the reel sets ``reels`` and what ``key`` holds — put the blocks it reads in the key (by value)."""
        ...

    def base_model(self) -> SpinModel:
        """The base game's spin at the bet analysed."""
        ...

    def joint(self, model: Spin, digits: tuple[str, ...] = ()) -> JointLaw:
        """The exact joint law of (win, observation digits) of one spin (full-cycle enumeration).

        ``digits`` names the observations wanted (see :meth:`Block.trigger_digits` and
        :meth:`Block.digits`); every scatter's count is observed in any case.  ``wins`` hold the
        line wins (× the model's line multiplier), scatter wins (× its scatter multiplier) and
        extra wins (not multiplied).
        """
        ...

    def means(self, model: Spin) -> Mapping[str, Fraction]:
        """Exact mean win of one spin by component (credits, multipliers applied), without enumeration."""
        ...

    def digit_law(self, model: Spin, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], int]:
        """Exact weights of the joint values of observation digits ``names``, and the cycle (no enumeration)."""
        ...

    def reel_laws(self, model: SpinModel, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], ...]:
        """Per reel, the exact weights of the values the observation digits ``names`` take on that reel."""
        ...

    def line_table(self, model: SpinModel, symbol: str) -> LineTable:
        """Each line's credits over the cycle with its cells on any set of reels forced to ``symbol`` (no enumeration)."""
        ...

    def win_bound(self, model: Spin) -> int:
        """An upper bound of one spin's win in credits (no enumeration)."""
        ...

    def pair_table(self, model: SpinModel, symbol: str) -> PairTables:
        """Every pair of lines' Σ of ``w·w'`` over the cycle with any of their cells forced to ``symbol`` (no enumeration)."""
        ...

    def split_table(self, model: SpinModel, symbol: str, digits: tuple[str, ...]) -> SplitTables:
        """Every line's credits with cells forced to ``symbol``, split by what reel ``r`` shows of ``digits[r]``."""
        ...


@runtime_checkable
class RoundContext(Context, Protocol):
    """The context the round composer hands a block: the exact engine (:class:`mathkit.round.Engine`) with the
    composer's ``play_spin`` (spins played as the round plays them) handed to it."""

    def play_spin(self, model: SpinModel, observe: tuple[str, ...], group: Callable[[Mapping[str, int]], Hashable],
                  exclude: tuple[str, ...] = (), level: Level | None = None) -> SpinPlay:
        """One spin of ``model`` as the round plays it, grouped by ``group(observations)``.

        The game's modifiers act on it (:func:`modified`; a spin whose height is set keeps it),
        and every sequence feature it starts but those named in ``exclude`` (the caller, who
        plays its own retriggers) is played after it; ``observe`` names the digits ``group``
        reads.  ``group`` must be hashable (a block's bound method, a module's function): the
        answer is cached.  ``level`` (default: the analysis's) may ask for less.
        """
        ...


def modified(ctx: Context, model: SpinModel) -> list[tuple[Fraction, Spin, str]]:
    """``model`` under every modifier of the game, in declared order: ``(probability, spin, component label)``.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.round import Engine
    >>> eng = Engine(load_game("data/games/heights_3to7.toml"))
    >>> [(str(p), m.rows, m.lines) for p, m, _ in modified(eng, eng.base_model())][:2]
    [('2/5', 3, 30), ('1/4', 4, 40)]
    """
    models: list[tuple[Fraction, Spin, str]] = [(Fraction(1), model, "")]
    for f in ctx.game.features_of("modifier"):
        if not isinstance(f, Block):
            msg = f"feature {f.name!r} ({type(f).__name__}) is not a feature block"
            raise ModelError(msg)
        nxt: list[tuple[Fraction, Spin, str]] = []
        for p, m, label in models:
            if isinstance(m, Overlay):
                msg = (f"modifier {f.name!r} cannot change a spin under a random overlay: declare it before "
                       "the overlay feature")
                raise ModelError(msg)
            nxt += [(p * q, m2, label2 or label) for q, m2, label2 in f.spin_models(ctx, m)]
        models = nxt
    return models


@dataclass(frozen=True, eq=False)
class FeatureStats:
    """What the composer learnt about one feature in a round: how it is entered and what it did.

    ``entries`` maps each entry to the probability that a round enters the feature with it
    (summed over the ways of getting there); ``laws`` holds the feature's own stage law per entry.
    ``extra`` holds what a role adds: a modifier's ``"base"`` stage law, ``"parts"`` (the base spin's law
    under each spin the modifiers make of it: ``(probability, spin, stage law)``) and ``"laws"`` (every
    stage's law by ``(feature, entry)``: :func:`~mathkit.laws.stage.visits` reads them), a transform's
    ``"before"`` and ``"after"`` outcomes, a sequence feature's ``"round"`` (the whole round's
    outcome before the transforms, where a block finds its components played inside others).
    """

    entries: Mapping[Entry, Number]
    laws: Mapping[Entry, StageLaw]
    outcomes: Mapping[Entry, Outcome]
    level: Level
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def p_enter(self) -> Number:
        """P(a round plays this feature)."""
        return sum(self.entries.values(), Fraction(0))


@dataclass(frozen=True, eq=False)
class Limit:
    """What a transform's limit on a round's win (the cap) comes to in one analysis.

    ``credits`` is the limit; ``p`` P(a round reaches it) before the transform (``None`` where the
    analysis cannot tell), an upper bound only when ``p_is_bound``; ``reachable`` whether any
    round may reach it (no bound on the round's win keeps it below).  ``tail_bound()`` gives
    ``(P(Y ≥ limit) bound, E[(Y − limit)⁺] bound)`` from the round's proven tail bound (``None``
    without one), ``m2_gap()`` a bound on ``E[Y²] − E[min(Y, limit)²]`` (``inf`` without one): both
    computed when asked (they evaluate the tail at new thresholds).
    """

    credits: Fraction
    p: Figure | None
    p_is_bound: bool
    reachable: bool
    tail_bound: Callable[[], tuple[float, float] | None]
    m2_gap: Callable[[], float]


@dataclass(frozen=True, kw_only=True)
class Block(Feature):
    """A feature block: :class:`~mathkit.model.game.Feature` data plus the answers its role gives.

    Subclasses are frozen, keyword-only dataclasses declaring ``kind``, ``role`` and ``title``.
    Transforms act in ``phase`` order (then in the order the game declares them): the cap
    (phase 0) limits a round's win before the gamble (phase 1) is offered on it.
    """

    phase: ClassVar[int] = 0
    scalar: ClassVar[bool] = False
    """Whether the block may be written as a single value (``cap = 5000``) instead of a table."""

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        """Read the block from its TOML table (``where`` is the table's field path)."""
        raise NotImplementedError

    # --- sequence features --------------------------------------------------------------
    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        """The base spin's observation digits that can start this feature (none: entered from another feature).

        A digit is named ``"SYMBOL"`` (how many show in the window) or ``"SYMBOL@r"`` (the rows of
        reel ``r``, from 1, showing it, as a bitmask: bit ``k`` for row ``k``).
        """
        return ()

    def digits(self, game: Game) -> tuple[Digit, ...]:
        """Observation digits of the block's own (a cash value, a compressed scatter position ...).

        A digit gives each stop of each reel a value from the column it shows (added over the
        reels); the built-in ones, ``"SYMBOL"`` and ``"SYMBOL@r"``, need no declaring.
        """
        return ()

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        """The entry a base spin showing ``digits`` starts this feature with (``None``: not started)."""
        return None

    def law(self, ctx: RoundContext, entry: Entry, level: Level) -> StageLaw:
        """The feature's own win and exits from ``entry``."""
        msg = f"the {self.kind} block {self.name!r} has no law"
        raise ModelError(msg)

    def held_values(self, ctx: RoundContext, held: HeldCells, level: Level) -> HeldValues:
        """The feature's own win entered from each window of ``held`` (what a :class:`~mathkit.laws.stage.Drawn` entry averages).

        The default reads each window's observations (:meth:`entry`) and solves the law of every
        distinct entry once; the feature must end the round (its only exit ``()``).  Blocks with
        many entries answer for all windows at once.
        """
        laws: dict[Entry, StageLaw] = {}
        keys: list[Entry | None] = []
        for i in range(len(held.masks)):
            e = self.entry(held.digits(i))
            keys.append(e)
            if e is not None and e not in laws:
                laws[e] = self.law(ctx, e, level)
                if set(laws[e].branches) != {()}:
                    msg = f"{self.name}: a feature entered from held cells must end the round"
                    raise ModelError(msg)
        zero: Number = Fraction(0) if ctx.precision == "exact" else 0.0
        mean = [zero if e is None else laws[e].mean for e in keys]
        m2 = None
        if level != "mean":
            m2 = [zero if e is None else (laws[e].branches[()].m2 or zero) for e in keys]
        tops = [laws[e].branches[()].top for e in keys if e is not None]
        top = None if any(t is None for t in tops) else max((int(t) for t in tops if t is not None), default=0)
        names = {k for law in laws.values() for k in law.facts}
        facts = {k: [zero if e is None else laws[e].facts.get(k, zero) for e in keys] for k in names}

        def tail(t: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
            b = np.zeros(len(keys))
            q = np.zeros(len(keys))
            for i, e in enumerate(keys):
                if e is None:
                    continue
                br = laws[e].branches[()]
                fn = tail_of(br.top, br.tail)
                if fn is None:
                    b[i] = q[i] = np.inf
                else:
                    b[i], q[i] = fn(t)
            return b, q

        method = weakest(*(law.method for law in laws.values()))
        return HeldValues(mean, m2, top, facts, tail, method)

    def drawn_law(self, ctx: RoundContext, key: Hashable, target: Block, level: Level) -> StageLaw:
        """The law of ``target`` entered with ``Drawn(self.name, key)``: its values averaged over this block's endings."""
        msg = f"the {self.kind} block {self.name!r} hands no drawn entries to {target.name!r}"
        raise ModelError(msg)

    # --- modifiers ----------------------------------------------------------------------
    def spin_models(self, ctx: Context, model: SpinModel) -> tuple[tuple[Fraction, Spin, str], ...]:
        """``model`` as a mixture ``(probability, spin, component label)`` of modified spins."""
        return ((Fraction(1), model, ""),)

    # --- transforms ---------------------------------------------------------------------
    def transform(self, ctx: Context, outcome: Outcome) -> Outcome:
        """The round's outcome after this transform (the gamble leaves it as it is)."""
        return outcome

    def round_limit(self, ctx: Context) -> Fraction | None:
        """The most a round pays after this transform, in credits (a cap); ``None`` when it sets none."""
        return None

    def limit_effect(self, ctx: Context, before: Outcome, law: WinLaw | None) -> Limit | None:
        """What :meth:`round_limit` comes to for the round ``before`` this transform (``law``: the whole
        round's law after every transform, when the analysis has it); ``None`` when the block sets no limit."""
        return None

    def level_needed(self, ctx: Context, outcome: Outcome) -> Level:
        """The analysis level the transform needs to act on ``outcome`` (the cap may need the distribution)."""
        return "mean"

    # --- every block --------------------------------------------------------------------
    @property
    def component(self) -> str:
        """The PAR component the feature's own win is reported under."""
        return self.title.lower() if self.name == self.kind else f"{self.title.lower()}: {self.name}"

    @property
    def heading(self) -> str:
        """The title of the block's PAR section: its title, with its name when the game names it."""
        return self.title if self.name == self.kind else f"{self.title}: {self.name}"

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection | None:
        """The block's section of the PAR sheet."""
        return None

    def terminates(self, ctx: Context) -> Termination:
        """Whether the feature ends (with the reason)."""
        return Termination(True, f"{self.title} has no loop")

    def max_win(self, ctx: Context) -> MaxWin:
        """The most the feature adds to one round's win (credits), or why it is unbounded."""
        return MaxWin(True, 0, f"{self.title} pays nothing itself")

    def findings(self, ctx: Context, stats: FeatureStats, limits: Mapping[str, int]) -> tuple[Finding, ...]:
        """Certification findings about the block itself (``limits``: the jurisdiction's numbers)."""
        return ()

    def supported_level(self, game: Game) -> Level:
        """The deepest analysis level the block answers (``"distribution"`` unless its laws stop short)."""
        return "distribution"

    def method(self) -> Method:
        """How the block's figures are obtained at best (``exact`` unless it needs a numerical solve)."""
        return "exact"

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = None
    """The fields :meth:`sim_table` plays (``None``: no check).  A block with any other field set
    away from its default is refused by the simulator, so a field added to a block later is never
    silently left out of a simulation."""

    def sim_table(self, game: Game, stake: Stake) -> SimTable | None:
        """How the simulator plays the block, in the vocabulary of :mod:`mathkit.play.vocabulary` (``None``: it cannot)."""
        return None

    def sim_checks(self, game: Game) -> Mapping[str, str]:
        """Figures of the block's PAR section the simulator estimates, by the simulation's figure names.

        ``{section figure: simulated figure}``: ``mean_length:FEATURE`` (spins per entry),
        ``per_round:FEATURE:TALLY`` (a counter of :meth:`sim_table` per play) or
        ``per_entry:FEATURE:TALLY`` (per entry of a sequence feature); see
        :meth:`mathkit.sim.results.SimResult.figures`.
        """
        return {}


def check_reels(reels: tuple[int, ...], game: Game, where: str) -> None:
    """Every (1-based) reel number of ``reels``, given at ``where``, is a reel of ``game``."""
    for i, r in enumerate(reels):
        if r > game.n_reels:
            msg = f"reel {r} of a {game.n_reels}-reel game"
            raise GameError(msg, field=f"{where}.reels[{i}]", fix=f"list reels from 1 to {game.n_reels}")
