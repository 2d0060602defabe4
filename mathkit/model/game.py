"""The game model: immutable dataclasses describing a slot game.

A :class:`Game` is pure data.  It is built by :mod:`mathkit.gamefile.io` from a TOML
file (which validates it) or directly in code; every object is frozen so a
game can be shared between the exact engine, the simulator and the widgets
without anyone changing it behind another's back.  Edits make new games
(:func:`dataclasses.replace`).

Conventions
-----------
* Reels are numbered from 1 in the file (``reels = [2, 3, 4]``); rows from 0
  at the top of the window.
* Line pays are integer credits per line at one coin (or one value per coin
  count, for top awards that are not proportional); scatter pays are integer
  multiples of the total bet.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal

from ..errors import GameError, UnknownNameError, UsageError

__all__ = [
    "ALL_WILD_WAYS",
    "LINE_SYMBOLS",
    "MULTIPLIER_RULES",
    "SCATTER_UNITS",
    "Bet",
    "Buy",
    "Feature",
    "Game",
    "Mode",
    "PayEntry",
    "Reading",
    "ReelSet",
    "ScatterPay",
    "ScatterUnit",
    "Symbol",
    "Targets",
    "Tuning",
]

SymbolKind = Literal["regular", "wild", "scatter", "bonus"]
Role = Literal["modifier", "sequence", "transform"]


def at_most(table: tuple[tuple[int, Any], ...], count: int) -> tuple[int, Any] | None:
    """The entry of ``table`` (``(count, value)`` pairs) for the largest count not above ``count``.

    Every count-keyed table in a game reads this way: pays, scatter pays, spins awarded.

    Examples
    --------
    >>> at_most(((3, "three"), (5, "five")), 4), at_most(((3, "three"),), 2)
    ((3, 'three'), None)
    """
    best = None
    for k, v in table:
        if k <= count and (best is None or k > best[0]):
            best = (k, v)
    return best
PayMode = Literal["lines", "ways"]


@dataclass(frozen=True)
class Symbol:
    """A reel symbol.

    Parameters
    ----------
    name
        Unique name, as written on the strips.
    kind
        ``"regular"``, ``"wild"``, ``"scatter"`` (counted anywhere in the window,
        never substituted) or ``"bonus"`` (never pays on lines and is never
        substituted: a collector, a cash prize, a jackpot mark ... whose meaning
        a feature block gives it).
    substitutes
        For a wild: the regular symbols it stands in for.
    reels
        For a wild: the reels (numbered from 1) it may appear on; empty means all.
    pays
        For a wild: whether it has pays of its own (a line then pays the better
        of the wild combination and the substituted one).
    multiplier
        For a wild: the factor it applies to a combination it completes by
        substitution.  For a regular symbol (a *multiplier symbol*, a "double"):
        the factor it applies to every combination it is part of, counting as
        itself (its own entry, the mixed groups that list it).  Several factors in
        one paid run multiply; an entry declared ``flat`` is never multiplied.
    value
        For a bonus symbol: the value it carries, as a multiple of the total bet
        (a cash prize, an activator's credit value); what it is worth is the
        feature block's rule.
    mark
        For a bonus symbol: a mark it carries (``"jackpot"`` ...), read by a feature block.
    counts_as_scatter
        For a wild: the scatter symbols it also counts as.  A scatter's count is then the
        scatters plus these wilds shown anywhere in the window: it drives the scatter's pay
        and every trigger and retrigger the scatter starts, in the base game and the features.
        A wild listing its own name is both wild and scatter (a "book"): it substitutes on the
        lines and is counted anywhere as the scatter of its name.
    """

    name: str
    kind: SymbolKind = "regular"
    substitutes: tuple[str, ...] = ()
    reels: tuple[int, ...] = ()
    pays: bool = False
    multiplier: int = 1
    value: Fraction | None = None
    mark: str = ""
    counts_as_scatter: tuple[str, ...] = ()

    @property
    def is_wild(self) -> bool:
        return self.kind == "wild"

    @property
    def is_multiplier(self) -> bool:
        """A regular symbol that multiplies the combinations it is part of (not a wild)."""
        return self.kind == "regular" and self.multiplier > 1

    @property
    def is_scatter(self) -> bool:
        """A scatter symbol, or a wild that is its own scatter (``counts_as_scatter`` lists its own name)."""
        return self.kind == "scatter" or (self.kind == "wild" and self.name in self.counts_as_scatter)

    @property
    def is_bonus(self) -> bool:
        return self.kind == "bonus"


@dataclass(frozen=True)
class ReelSet:
    """A named set of circular reel strips.

    Parameters
    ----------
    name
        The set's name (``base``, ``free``, ``rtp95`` ...).
    strips
        One tuple of symbol names per reel, in stop order; the window shows
        ``rows[r]`` consecutive stops from the stop drawn (wrapping round).
    rows
        Window height per reel.
    weights
        Optional integer weight per stop (virtual stops); ``None`` means every
        stop has weight 1.
    declared_rtp
        The RTP this set (an RTP variant) advertises, when it has its own.

    Examples
    --------
    >>> rs = ReelSet("base", (("A", "B", "C"), ("A", "A", "B")), rows=(1, 1))
    >>> rs.n_reels, rs.cycle
    (2, 9)
    """

    name: str
    strips: tuple[tuple[str, ...], ...]
    rows: tuple[int, ...]
    weights: tuple[tuple[int, ...], ...] | None = None
    declared_rtp: Fraction | None = None

    @property
    def n_reels(self) -> int:
        return len(self.strips)

    def stop_weights(self, reel: int) -> tuple[int, ...]:
        """Weights of the stops of ``reel`` (0-based), 1 each if unweighted."""
        if self.weights is None:
            return (1,) * len(self.strips[reel])
        return self.weights[reel]

    @property
    def cycle(self) -> int:
        """Number of equally likely outcomes: product of the reels' total weights."""
        out = 1
        for r in range(self.n_reels):
            out *= sum(self.stop_weights(r))
        return out

    def window(self, stops: tuple[int, ...] | list[int]) -> tuple[tuple[str, ...], ...]:
        """Symbols shown per reel (top to bottom) for the given stop indices."""
        return tuple(
            tuple(strip[(stop + k) % len(strip)] for k in range(self.rows[r]))
            for r, (strip, stop) in enumerate(zip(self.strips, stops, strict=True))
        )


@dataclass(frozen=True)
class PayEntry:
    """A line (or ways) paytable entry: a symbol, or a mixed group ("any bar").

    Parameters
    ----------
    name
        The entry's name (the symbol's name for a single-symbol entry).
    symbols
        Symbols that count towards the combination.
    pays
        ``(count, values)`` pairs: ``values`` is ``(v,)`` for a pay of ``v`` credits per coin
        (multiplied by the coins played), or one value per coin option (a list in the file).
    per_option
        The counts whose values are one per coin option.  A count with more than one value
        is always one; a one-value list is one only when named here (a game with a single
        coin option writes ``{ 3 = [5000] }``: 5000 credits at that option, not 5000 per coin).
    reels
        A reel-ordered combination (``[ordered.NAME]``): per reel, from reel 1, the symbols
        that count on that reel ("red 7, white 7, blue 7 in that order"); ``symbols`` then
        lists them all once.  Empty: ``symbols`` count alike on every reel.
    reel_labels
        For a reel-ordered combination: how the file names each reel's requirement (a symbol,
        a mixed group's name, or an inline list written ``A|B``), for the PAR sheet.
    flat
        The entry is paid as declared, never multiplied by the multipliers of the symbols
        in its run (wilds' or multiplier symbols'): a flat jackpot for three "double"
        symbols.  A wild's own combination is always flat.  A feature's multiplier (free
        spins × 3) still applies to the whole line win.
    multiplied
        For a wild's own combination (a run of wilds only): paid × the factors of the wilds in
        the run, by the game's :attr:`Game.multiplier_rule`.  Without it the run pays its own
        table, never multiplied.

    Examples
    --------
    >>> PayEntry("A", ("A",), ((3, (5000,)),), per_option=frozenset({3})).pay(3, coins=3, coin_index=0)
    5000
    >>> PayEntry("A", ("A",), ((3, (5000,)),)).pay(3, coins=3, coin_index=0)
    15000
    """

    name: str
    symbols: tuple[str, ...]
    pays: tuple[tuple[int, tuple[int, ...]], ...]
    per_option: frozenset[int] = frozenset()
    flat: bool = False
    reels: tuple[tuple[str, ...], ...] = ()
    reel_labels: tuple[str, ...] = ()
    multiplied: bool = False

    def __post_init__(self) -> None:
        listed = frozenset(k for k, v in self.pays if len(v) > 1)
        if not listed <= self.per_option:
            object.__setattr__(self, "per_option", self.per_option | listed)

    def is_per_option(self, count: int) -> bool:
        """Whether the pay of ``count`` is one value per coin option (else one value per coin)."""
        return count in self.per_option

    def pay(self, count: int, coins: int = 1, coin_index: int | None = None) -> int:
        """Credits for exactly ``count`` matching symbols at ``coins`` coins per line.

        The value for the largest declared count not above ``count`` (0 when there is
        none): a pay per coin times ``coins``, or a per-option pay at ``coin_index`` (the
        index of ``coins`` among the game's coin options).

        Examples
        --------
        >>> e = PayEntry("SEVEN", ("SEVEN",), ((3, (100, 200, 500)), (2, (5,))))
        >>> e.pay(3, coins=3, coin_index=2), e.pay(2, coins=3, coin_index=2), e.pay(1)
        (500, 15, 0)
        """
        best = at_most(self.pays, count)
        if best is None:
            return 0
        values: tuple[int, ...] = best[1]
        if not self.is_per_option(best[0]):
            return values[0] * coins
        if coin_index is None:
            msg = f"{self.name}: the pay of {best[0]} is one value per coin option; give the coin option's index"
            raise UsageError(msg)
        return values[coin_index]

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(sorted(k for k, _ in self.pays))

    @property
    def ordered(self) -> bool:
        """Whether the entry is a reel-ordered combination (its symbols differ by reel)."""
        return bool(self.reels)

    def members(self, reel: int) -> tuple[str, ...]:
        """The symbols that count towards the entry on ``reel`` (0-based), wilds aside.

        Examples
        --------
        >>> e = PayEntry("RWB", ("R", "W", "B"), ((3, (50,)),), reels=(("R",), ("W",), ("B",)))
        >>> e.members(1), PayEntry("A", ("A",), ((3, (5,)),)).members(1)
        (('W',), ('A',))
        """
        return self.reels[reel] if self.reels else self.symbols

    def combination(self, count: int) -> str:
        """How a PAR sheet names ``count`` of this entry: ``3 × BAR``, or for a reel-ordered one its reels in order.

        Examples
        --------
        >>> e = PayEntry("RWB", ("R", "W", "B"), ((3, (50,)),), reels=(("R",), ("W",), ("B", "X")),
        ...              reel_labels=("R", "W", "B|X"))
        >>> e.combination(3), e.combination(2), PayEntry("A", ("A",), ((3, (5,)),)).combination(3)
        ('RWB: R – W – B|X', 'RWB: R – W', '3 × A')
        """
        if not self.reels:
            return f"{count} × {self.name}"
        return f"{self.name}: {' – '.join(self.reel_names[:count])}"

    @property
    def reel_names(self) -> tuple[str, ...]:
        """A reel-ordered entry's requirement per reel as the file names it (a symbol, a group, ``A|B``)."""
        return self.reel_labels or tuple("|".join(m) for m in self.reels)


ScatterUnit = Literal["total_bet", "line_bet", "credits"]
SCATTER_UNITS: tuple[ScatterUnit, ...] = ("total_bet", "line_bet", "credits")
MultiplierRule = Literal["stack", "once"]
MULTIPLIER_RULES: tuple[MultiplierRule, ...] = ("stack", "once")
LineSymbol = Literal["best", "first"]
LINE_SYMBOLS: tuple[LineSymbol, ...] = ("best", "first")
AllWildWays = Literal["pay", "void"]
ALL_WILD_WAYS: tuple[AllWildWays, ...] = ("pay", "void")


@dataclass(frozen=True)
class ScatterPay:
    """Scatter pays: ``count -> multiple of the unit`` for the largest count reached.

    The unit is the game's :attr:`Game.scatter_unit`: the total bet (today's games) or the
    line bet (coins per line: older PAR sheets).
    """

    symbol: str
    pays: tuple[tuple[int, int], ...]

    def pay(self, count: int) -> int:
        best = at_most(self.pays, count)
        return 0 if best is None else int(best[1])


@dataclass(frozen=True)
class Bet:
    """The bet model.

    Parameters
    ----------
    lines
        Lines played by default (all paylines unless the player may choose).
    line_options
        Line counts the player may choose.
    coins
        Coins-per-line options; the first is the default.
    coin_value
        Value of one coin in currency (display only; all maths is in credits).
    total
        A total bet fixed independently of the lines played, in credits at one
        coin (a game whose active lines change from spin to spin); ``None``:
        the total bet is lines × coins.

    Examples
    --------
    >>> Bet(25, coins=(1, 2)).total_bet(coins=2), Bet(30, total=50).total_bet(lines=70)
    (50, 50)
    """

    lines: int
    line_options: tuple[int, ...] = ()
    coins: tuple[int, ...] = (1,)
    coin_value: Fraction = Fraction(1)
    total: int | None = None

    def total_bet(self, lines: int | None = None, coins: int | None = None) -> int:
        """Total bet in credits: lines played times coins per line, or the fixed total times the coins."""
        c = self.coins[0] if coins is None else coins
        if self.total is not None:
            return self.total * c
        return (self.lines if lines is None else lines) * c


@dataclass(frozen=True, kw_only=True)
class Feature:
    """A feature block's data: the common base of every mechanic in :mod:`mathkit.features`.

    A game holds its features as a collection (``Game.features``); every consumer
    loops over it and asks each block the same questions, never branching on a
    block's kind.  Here are the data-side questions; the maths (PAR section,
    termination, max win, trigger probability, mean, moments, distribution) and
    the simulator's table are answered by the blocks in :mod:`mathkit.features`.

    Parameters
    ----------
    name
        The instance's name, unique in the game: the kind for a feature declared
        once as a table (``[free_spins]``), the given ``name`` for one of several
        declared as an array of tables (``[[free_spins]] name = "barbarian"``).
    """

    name: str
    kind: ClassVar[str] = "feature"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Feature"

    def table(self) -> dict[str, Any]:
        """The feature's TOML table (without ``name``): the one serialisation of the block."""
        raise NotImplementedError

    def reel_sets(self) -> tuple[str, ...]:
        """Names of the reel sets the feature plays on."""
        return ()

    def symbols(self) -> tuple[str, ...]:
        """Names of the symbols the feature reads (its triggers, its prizes ...)."""
        return ()

    def validate(self, game: Game, where: str) -> None:
        """Raise a :class:`~mathkit.errors.GameError` under field ``where`` if the feature does not fit ``game``."""
        return None


@dataclass(frozen=True)
class Reading:
    """A rule reading chosen where the rules are ambiguous, with its reason."""

    rule: str
    reading: str
    reason: str


@dataclass(frozen=True)
class Targets:
    """What the designer aims at (``[targets]`` in the game file): an RTP with a tolerance, optional bands.

    ``rtp`` defaults to the declared RTP; ``sd`` (σ per total bet of a whole
    play) and ``hit_frequency`` are ``(low, high)`` bands, ``None`` when not set.

    Examples
    --------
    >>> t = Targets(Fraction(95, 100), sd=(5.5, 6.5))
    >>> t.rtp_band
    (Fraction(18999, 20000), Fraction(19001, 20000))
    """

    rtp: Fraction | None = None
    rtp_tolerance: Fraction = Fraction(5, 100_000)
    sd: tuple[float, float] | None = None
    hit_frequency: tuple[float, float] | None = None

    @property
    def rtp_band(self) -> tuple[Fraction, Fraction] | None:
        return None if self.rtp is None else (self.rtp - self.rtp_tolerance, self.rtp + self.rtp_tolerance)

    @property
    def empty(self) -> bool:
        return self == Targets()


@dataclass(frozen=True)
class Tuning:
    """A game's ``[tuning]`` table: what the tuner must keep (the targets are ``[targets]``, :class:`Targets`).

    Every field is as the file declares it; ``None`` or empty means "not
    declared" (the tuner's default applies), so a save writes back only what the
    designer wrote.  :mod:`mathkit.model.tuning` reads and writes the table;
    :mod:`mathkit.tuner` gives each field its meaning and default.
    """

    reels: tuple[str, ...] = ()
    vary: str | None = None
    fixed: tuple[str, ...] | None = None
    count_tolerance: Fraction | None = None
    counts: tuple[tuple[str, str, tuple[tuple[int, int], ...]], ...] = ()
    hierarchy: tuple[tuple[str, ...], ...] = ()
    no_adjacent: tuple[str, ...] = ()
    max_run: tuple[tuple[str, int], ...] = ()
    stacks: tuple[tuple[str, int], ...] = ()
    keep_stacks: bool | None = None
    keep_length: bool | None = None
    keep_order: bool | None = None
    scatter_spacing: int | None = None
    feature_frequency_tolerance: Fraction | None = None


@dataclass(frozen=True)
class Buy:
    """A bonus buy's forced entry: the feature bought and the law of the trigger count it starts with.

    ``counts`` holds ``(trigger count, weight)`` pairs: a bought round's trigger spin shows exactly that
    many of the feature's trigger symbol, drawn with these integer weights, and nothing else that pays.

    Examples
    --------
    >>> Buy("free_spins", ((3, 9), (4, 1))).probability(4)
    Fraction(1, 10)
    """

    feature: str
    counts: tuple[tuple[int, int], ...]

    def probability(self, count: int) -> Fraction:
        """P(the bought trigger spin shows ``count`` triggers)."""
        total = sum(w for _, w in self.counts)
        return Fraction(sum(w for k, w in self.counts if k == count), total)


@dataclass(frozen=True)
class Mode:
    """A bet mode (``[modes.NAME]``): what the round costs and what it plays instead of the base game.

    A mode is a Game → Game transform (:func:`mathkit.features.modes.mode_game`) plus its ``cost``: its
    RTP is the transformed game's expected win over ``cost`` × the base bet.

    Parameters
    ----------
    name
        The mode's name (its table's key).
    cost
        What a round costs, in units of the base game's total bet (``"5/4"``: an ante; ``100``: a buy).
    declared_rtp
        The RTP the mode advertises (``mathkit check`` compares it).
    reels
        ``(reel set, played instead)`` pairs: wherever the game plays the first set, the mode plays the
        second one's strips, weights and rows (an ante's scatter-rich strips, a buy's free-spin strips).
    buy
        The forced feature entry of a bonus buy (:class:`Buy`), ``None`` for a mode that plays the base spin.
    cap
        The mode's own cap on a round's win, × the base bet (it replaces the game's ``[cap]``).

    Examples
    --------
    >>> Mode("ante", Fraction(5, 4)).cost
    Fraction(5, 4)
    """

    name: str
    cost: Fraction
    declared_rtp: Fraction | None = None
    reels: tuple[tuple[str, str], ...] = ()
    buy: Buy | None = None
    cap: Fraction | None = None


@dataclass(frozen=True)
class Game:
    """A slot game: symbols, reel sets, pays, bet model and features.

    Build one with :func:`mathkit.gamefile.io.load_game` (validated; it records the file in ``source``
    so errors found later name it) or directly.
    Features (free spins, re-spins, the gamble, the cap ...) are a collection of
    blocks, in the order the file declares them.
    """

    name: str
    symbols: tuple[Symbol, ...]
    reel_sets: tuple[ReelSet, ...]
    line_pays: tuple[PayEntry, ...]
    bet: Bet
    pay_mode: PayMode = "lines"
    paylines: tuple[tuple[int, ...], ...] = ()
    scatter_pays: tuple[ScatterPay, ...] = ()
    default_reels: str = "base"
    declared_rtp: Fraction | None = None
    features: tuple[Feature, ...] = ()
    readings: tuple[Reading, ...] = ()
    description: str = ""
    targets: Targets = Targets()
    tuning: Tuning | None = None
    scatter_unit: ScatterUnit = "total_bet"
    """What a scatter pay multiplies: ``"total_bet"``, ``"line_bet"`` (the coins per line; in a ways game the
    coins per bet unit) or ``"credits"`` (credits at a total bet of :attr:`scatter_bet`, scaled to the bet played)."""
    scatter_bet: int | None = None
    """With ``scatter_unit = "credits"``: the total bet, in credits, at which the scatter pays are written."""
    multiplier_rule: MultiplierRule = "stack"
    """How the factors in a paid run combine: ``"stack"`` (every wild's and multiplier symbol's factor
    multiplies: two ×2 wilds × 4) or ``"once"`` (the largest factor in the run applies once)."""
    line_symbol: LineSymbol = "best"
    """Lines games: ``"best"``: a line pays its best combination, leading wilds counting for any symbol;
    ``"first"``: the first symbol on the line that is not a wild fixes its symbol — leading wilds stand in
    for that symbol only, and a line of wilds alone pays only the wilds' own combination."""
    all_wild_ways: AllWildWays = "pay"
    """Ways games: ``"void"``: a way made only of wilds pays nothing (the other ways of its entry still pay)."""
    void_ways_at_wilds: int = 0
    """Ways games: when this many wilds or more show in the window, no way pays (0: never)."""
    modes: tuple[Mode, ...] = ()
    """The game's bet modes (``[modes.NAME]``: an ante, a bonus buy ...), in the order the file declares them."""
    source: str | None = dataclasses.field(default=None, compare=False, repr=False)
    """The file the game was loaded from (for messages); not part of the game's identity."""

    # --- look-ups -----------------------------------------------------------------
    def symbol(self, name: str) -> Symbol:
        for s in self.symbols:
            if s.name == name:
                return s
        msg = f"unknown symbol {name!r}"
        raise UnknownNameError(msg)

    @property
    def symbol_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.symbols)

    def reel_set(self, name: str | None = None) -> ReelSet:
        """The reel set called ``name`` (the default one when ``None``)."""
        wanted = self.default_reels if name is None else name
        for rs in self.reel_sets:
            if rs.name == wanted:
                return rs
        names = ", ".join(rs.name for rs in self.reel_sets)
        msg = f"no reel set {wanted!r}"
        raise GameError(msg, field="reels", fix=f"choose one of: {names}")

    @property
    def n_reels(self) -> int:
        return self.reel_sets[0].n_reels

    def declared_for(self, reels: str | None = None) -> Fraction | None:
        """Declared RTP of reel set ``reels``: its own, else the game's for the default set."""
        rs = self.reel_set(reels)
        if rs.declared_rtp is not None:
            return rs.declared_rtp
        return self.declared_rtp if rs.name == self.default_reels else None

    def target_rtp(self, reels: str | None = None) -> Fraction | None:
        """The RTP aimed at on reel set ``reels``: ``[targets] rtp`` for the default set, else the declared RTP."""
        rs = self.reel_set(reels)
        if self.targets.rtp is not None and rs.name == self.default_reels:
            return self.targets.rtp
        return self.declared_for(reels)

    def mode(self, name: str) -> Mode:
        """The bet mode called ``name``."""
        for m in self.modes:
            if m.name == name:
                return m
        names = ", ".join(m.name for m in self.modes) or "(the game declares no [modes.NAME])"
        msg = f"no bet mode {name!r}"
        raise GameError(msg, field="modes", fix=f"choose one of: {names}")

    def feature(self, name: str) -> Feature:
        """The feature called ``name``."""
        for f in self.features:
            if f.name == name:
                return f
        msg = f"no feature {name!r}"
        raise UnknownNameError(msg)

    def with_features(self, *features: Feature) -> Game:
        """The same game with ``features`` added, each replacing the feature of the same name if there is one.

        Examples
        --------
        >>> g = Game("g", (Symbol("A"),), (ReelSet("base", (("A",),), (1,)),), (), Bet(1))
        >>> g.with_features().features
        ()
        """
        by_name = {f.name: f for f in features}
        kept = tuple(by_name.pop(f.name, f) for f in self.features)
        return dataclasses.replace(self, features=kept + tuple(by_name.values()))

    def without_feature(self, name: str) -> Game:
        """The same game without feature ``name``."""
        return dataclasses.replace(self, features=tuple(f for f in self.features if f.name != name))

    def features_of(self, role: Role) -> tuple[Feature, ...]:
        """The features playing ``role`` (``"modifier"``, ``"sequence"`` or ``"transform"``), in declared order."""
        return tuple(f for f in self.features if f.role == role)

    def feature_path(self, feature: Feature) -> str:
        """The field path of ``feature`` in the game file: ``free_spins``, or ``free_spins[1]`` in an array."""
        same = [f for f in self.features if f.kind == feature.kind]
        if len(same) == 1 and feature.name == feature.kind:
            return feature.kind
        return f"{feature.kind}[{same.index(feature)}]"

    @property
    def wilds(self) -> tuple[Symbol, ...]:
        return tuple(s for s in self.symbols if s.is_wild)

    @property
    def scatters(self) -> tuple[Symbol, ...]:
        return tuple(s for s in self.symbols if s.is_scatter)

    @property
    def evaluation_rules(self) -> tuple[Any, ...]:
        """The game-wide options of the pay rules (scatter unit and bet, multiplier rule, ways rules): part of
        what any figure computed from the pay rules depends on (caches key on it with the symbols and pays)."""
        return (self.scatter_unit, self.scatter_bet, self.multiplier_rule, self.all_wild_ways, self.void_ways_at_wilds,
                self.line_symbol)

    def scatter_counted(self, scatter: str) -> tuple[str, ...]:
        """The symbols counted as scatter ``scatter``: itself, then the wilds declared to count as it.

        Examples
        --------
        >>> g = Game("g", (Symbol("S", "scatter"), Symbol("W", "wild", counts_as_scatter=("S",))),
        ...          (ReelSet("base", (("S", "W"),), (1,)),), (), Bet(1))
        >>> g.scatter_counted("S")
        ('S', 'W')
        """
        return (scatter, *(s.name for s in self.symbols
                           if s.is_wild and scatter in s.counts_as_scatter and s.name != scatter))

    def total_bet(self, lines: int | None = None, coins: int | None = None) -> int:
        """Total bet in credits (ways games bet ``bet.lines`` credits per coin)."""
        return self.bet.total_bet(lines, coins)

    @property
    def scatter_unit_name(self) -> str:
        """What one unit of scatter pay is, in words: ``total bet``, ``line bet`` or ``credit at a bet of 25``.

        Examples
        --------
        >>> g = Game("g", (Symbol("A"),), (ReelSet("base", (("A",),), (1,)),), (), Bet(25))
        >>> g.scatter_unit_name, dataclasses.replace(g, scatter_unit="credits", scatter_bet=25).scatter_unit_name
        ('total bet', 'credit at a bet of 25')
        """
        if self.scatter_unit == "line_bet":
            return "line bet"
        if self.scatter_unit == "credits":
            return f"credit at a bet of {self.scatter_bet}"
        return "total bet"

    def scatter_credits(self, lines: int | None = None, coins: int | None = None) -> int:
        """Credits one unit of scatter pay is worth: the total bet, or the line bet (the coins per line).

        Examples
        --------
        >>> g = Game("g", (Symbol("A"),), (ReelSet("base", (("A",),), (1,)),), (), Bet(5, coins=(2,)))
        >>> g.scatter_credits(), dataclasses.replace(g, scatter_unit="line_bet").scatter_credits()
        (10, 2)
        """
        if self.scatter_unit == "line_bet":
            return self.bet.coins[0] if coins is None else coins
        if self.scatter_unit == "credits" and self.scatter_bet:
            return self.total_bet(lines, coins) // self.scatter_bet  # validated: the scatter bet divides every total bet
        return self.total_bet(lines, coins)
