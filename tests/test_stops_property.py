"""The wider kernel contract against a brute-force visit of every outcome, exactly.

A spin model (:class:`mathkit.laws.stage.SpinModel`) turns a reel set into stop tables:
a window height, overlay (forced) cells, remaps, restrictions to some stops,
observation digits (several scatter types, row masks, a block's own values) and
extra wins.  For each, hypothesis draws random small games and spin models, and
the engine's exact mean by component (per-reel algebra), its joint law of (win,
digits) and the variance (enumeration) must equal what :func:`brute.brute_spin`
finds by visiting every stop combination — as integers and fractions.  Caps are
checked on the composed round.  Hand-derived fixtures come first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar, Self

import pytest
from brute import BruteSpin, brute_spin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_property import games

from mathkit.features.base import Block
from mathkit.features.cap import Cap
from mathkit.laws.stage import Digit, SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Role, ScatterPay, Symbol
from mathkit.round import Engine, analyse

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- a block declaring its own digit
@dataclass(frozen=True)
class SymbolValues:
    """A test digit: the sum of per-symbol values over a column (a stand-in for cash values)."""

    values: tuple[tuple[str, int], ...]

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        table = dict(self.values)
        return sum(table.get(s, 0) for s in column)


@dataclass(frozen=True)
class Rows:
    """A test digit: the window height, read on reel 1 (the same at every stop: a constant)."""

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        return len(column) if reel == 0 else 0


@dataclass(frozen=True, kw_only=True)
class Values(Block):
    """A modifier that changes nothing and declares the digits ``VALUE`` and ``ROWS``."""

    kind: ClassVar[str] = "test_values"
    role: ClassVar[Role] = "modifier"
    values: tuple[tuple[str, int], ...]

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        raise NotImplementedError

    def digits(self, game: Game) -> tuple[Digit, ...]:
        return (Digit("VALUE", SymbolValues(self.values)), Digit("ROWS", Rows()))


# ----------------------------------------------------------------------------- comparing
def engine_spin(game: Game, model: SpinModel, digits: tuple[str, ...], lines: int | None,
                coins: int) -> tuple[dict[str, Fraction], dict[tuple[int, tuple[int, ...]], int], int, int]:
    """The engine's mean by component (credits), joint law of (win, digits), cycle and total bet."""
    eng = Engine(game, lines=lines, coins=coins)
    means = {k: v for k, v in eng.means(model).items() if v}
    law = eng.joint(model, digits)
    joint: dict[tuple[int, tuple[int, ...]], int] = defaultdict(int)
    cols = [law.digits[d].tolist() for d in digits]
    for i, (w, n) in enumerate(zip(law.wins.tolist(), law.counts.tolist(), strict=True)):
        joint[(int(w), tuple(c[i] for c in cols))] += int(n)
    total_bet = eng.tables(model).total_bet
    return means, dict(joint), law.cycle, total_bet


def assert_same(game: Game, model: SpinModel, digits: tuple[str, ...] = (), *, lines: int | None = None,
                coins: int | None = None) -> BruteSpin:
    coin = game.bet.coins[0] if coins is None else coins
    custom = {d.name: d.value for f in game.features if isinstance(f, Block) for d in f.digits(game)}
    brute = brute_spin(game, model, lines=lines, coins=coin, digits=digits, custom=custom)
    means, joint, cycle, total_bet = engine_spin(game, model, digits, lines, coin)
    assert cycle == brute.cycle
    assert total_bet == brute.total_bet
    assert means == {k: Fraction(v, brute.cycle) for k, v in brute.credits.items()}
    assert joint == brute.joint
    dist: dict[int, int] = defaultdict(int)
    for (w, _), n in joint.items():
        dist[w] += n
    assert dict(dist) == brute.distribution
    mean = Fraction(sum(w * n for w, n in dist.items()), cycle)
    var = Fraction(sum(w * w * n for w, n in dist.items()), cycle) - mean * mean
    assert var == brute.variance()
    assert sum(means.values(), Fraction(0)) == mean
    return brute


# ----------------------------------------------------------------------------- hand-derived
def tiny() -> Game:
    """3 reels × 1 row, every strip ``A B``; one line; A pays {3: 10}; W (wild for A) and scatter S absent."""
    strip = ("A", "B")
    return Game(
        name="tiny",
        symbols=(Symbol("A"), Symbol("B"), Symbol("W", "wild", ("A",)), Symbol("S", "scatter")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
        line_pays=(PayEntry("A", ("A",), ((3, (10,)),)),),
        bet=Bet(1),
        paylines=((0, 0, 0),),
        scatter_pays=(ScatterPay("S", ((1, 1),)),),
    )


def test_overlay_remap_restrict_extra_by_hand() -> None:
    g = tiny()
    # 8 outcomes; A A A pays 10: mean 10/8
    assert assert_same(g, SpinModel("base")).rtp() == Fraction(10, 8)
    # reel 2 forced to W: A W A pays 10 in 2·2 = 4 outcomes... of which 1 of 4 (reels 1 and 3 both A): mean 10/4
    assert assert_same(g, SpinModel("base", forced=((1, 0, "W"),))).rtp() == Fraction(10, 4)
    # reel 2 forced to S (shown): the line is cut (0), the scatter pays 1 × bet every time: mean 1
    assert assert_same(g, SpinModel("base", forced=((1, 0, "S"),))).rtp() == 1
    # B read as A by the line rule: every line pays 10
    assert assert_same(g, SpinModel("base", remap=(("B", "A"),))).rtp() == 10
    # 3 credits per B shown (1.5 B on average): 4.5 besides the lines' 10/8, never multiplied by ×2 on lines
    brute = assert_same(g, SpinModel("base", extra=(("cash", "B", 3),), line_multiplier=2))
    assert brute.credits == {"lines": 2 * 10, "cash": 3 * 12}
    # only the stops of reel 1 showing A (B count 0): a cycle of 4, A A A in 1 of them
    brute = assert_same(g, SpinModel("base", restrict=((0, "B", (0,)),)))
    assert (brute.cycle, brute.rtp()) == (4, Fraction(10, 4))
    # rows of reel 3 showing A as a bitmask: 1 when stopped at A
    brute = assert_same(g, SpinModel("base"), ("A@3",))
    assert sum(n for (_, (m,)), n in brute.joint.items() if m == 1) == 4


def test_height_and_lines_by_hand() -> None:
    # reels "A B C" shown 2 rows high: (A,B) (B,C) (C,A); line 1 on row 0, line 2 on row 1.
    strip = ("A", "B", "C")
    g = Game(
        name="two rows",
        symbols=(Symbol("A"), Symbol("B"), Symbol("C")),
        reel_sets=(ReelSet("base", (strip, strip), (1, 1)),),
        line_pays=(PayEntry("A", ("A",), ((2, (6,)),)),),
        bet=Bet(1, total=1),
        paylines=((0, 0), (1, 1)),
    )
    # 1 row, 1 line: A A in 1 of 9 outcomes: 6/9
    assert assert_same(g, SpinModel("base")).rtp() == Fraction(6, 9)
    # 2 rows, 2 lines, a total bet fixed at 1: each line A A in 1 of 9: 12/9
    assert assert_same(g, SpinModel("base", rows=2, lines=2)).rtp() == Fraction(12, 9)


# ----------------------------------------------------------------------------- random small games and spins
def cells(game: Game) -> list[tuple[int, int]]:
    rs = game.reel_set()
    return [(r, row) for r in range(rs.n_reels) for row in range(rs.rows[r])]


@st.composite
def overlay_case(draw: st.DrawFn) -> tuple[Game, SpinModel]:
    game = draw(games(draw(st.sampled_from(["lines", "ways"]))))
    pick = draw(st.lists(st.sampled_from(cells(game)), max_size=4, unique=True))
    symbols = [s.name for s in game.symbols]
    forced = tuple((r, row, draw(st.sampled_from([s.name for s in game.wilds] or symbols)
                                 if draw(st.booleans()) else st.sampled_from(symbols))) for r, row in pick)
    return game, SpinModel("base", forced=forced, line_multiplier=draw(st.sampled_from([1, 2])))


@PROPERTY
@given(overlay_case())
def test_overlay_cells_equal_brute_force(case: tuple[Game, SpinModel]) -> None:
    game, model = case
    assert_same(game, model)


@st.composite
def remap_case(draw: st.DrawFn) -> tuple[Game, SpinModel]:
    game = draw(games(draw(st.sampled_from(["lines", "ways"]))))
    names = [s.name for s in game.symbols]
    sources = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
    remap = tuple((a, draw(st.sampled_from([n for n in names if n != a]))) for a in sources)
    forced = ()
    if draw(st.booleans()):
        r, row = draw(st.sampled_from(cells(game)))
        forced = ((r, row, draw(st.sampled_from(sources))),)
    return game, SpinModel("base", forced=forced, remap=remap, scatter_multiplier=draw(st.sampled_from([1, 3])))


@PROPERTY
@given(remap_case())
def test_remaps_equal_brute_force(case: tuple[Game, SpinModel]) -> None:
    game, model = case
    assert_same(game, model)


@st.composite
def scatters_case(draw: st.DrawFn) -> tuple[Game, SpinModel, tuple[str, ...]]:
    """Up to three scatter types (paying or not), observed as counts and as row masks per reel."""
    game = draw(games("lines"))
    rs = game.reel_set()
    extra = [f"T{i}" for i in range(draw(st.integers(1, 3)))]
    strips = []
    for strip in rs.strips:
        s = list(strip)
        for i in draw(st.lists(st.integers(0, len(s) - 1), max_size=3, unique=True)):
            s[i] = draw(st.sampled_from(extra))
        strips.append(tuple(s))
    symbols = (*game.symbols, *(Symbol(n, "scatter") for n in extra))
    pays = (*game.scatter_pays, *(ScatterPay(n, ((draw(st.integers(1, 3)), draw(st.integers(0, 5))),))
                                  for n in extra if draw(st.booleans())))
    game = replace(game, symbols=symbols, scatter_pays=pays,
                   reel_sets=(replace(rs, strips=tuple(strips)),))
    names = [s.name for s in game.scatters]
    digits = tuple(draw(st.lists(st.sampled_from(names + [f"{n}@{r + 1}" for n in names for r in range(rs.n_reels)]),
                                 min_size=1, max_size=4, unique=True)))
    return game, SpinModel("base"), digits


@PROPERTY
@given(scatters_case())
def test_several_scatter_types_and_masks_equal_brute_force(case: tuple[Game, SpinModel, tuple[str, ...]]) -> None:
    game, model, digits = case
    assert_same(game, model, digits)


@st.composite
def values_case(draw: st.DrawFn) -> tuple[Game, SpinModel, tuple[str, ...]]:
    """A block's own digit (per-symbol values summed), paid as an extra win and used to restrict a reel."""
    game = draw(games(draw(st.sampled_from(["lines", "ways"]))))
    names = [s.name for s in game.symbols if not s.is_wild]
    values = tuple((n, draw(st.integers(0, 4))) for n in draw(st.lists(st.sampled_from(names), min_size=1, unique=True)))
    game = replace(game, features=(Values(name="values", values=values),))
    model = SpinModel("base", extra=(("cash", "VALUE", draw(st.integers(1, 7))),),
                      line_multiplier=draw(st.sampled_from([1, 2])))
    if draw(st.booleans()):
        r = draw(st.integers(0, game.n_reels - 1))
        rs = game.reel_set()
        fn = SymbolValues(values)
        seen = sorted({fn(r, tuple(rs.strips[r][(i + k) % len(rs.strips[r])] for k in range(rs.rows[r])))
                       for i in range(len(rs.strips[r]))})
        model = replace(model, restrict=((r, "VALUE", tuple(draw(st.lists(st.sampled_from(seen), min_size=1,
                                                                          unique=True)))),))
    return game, model, ("VALUE",)


@PROPERTY
@given(values_case())
def test_per_stop_values_equal_brute_force(case: tuple[Game, SpinModel, tuple[str, ...]]) -> None:
    game, model, digits = case
    assert_same(game, model, digits)


@st.composite
def products_case(draw: st.DrawFn) -> tuple[Game, SpinModel, tuple[str, ...]]:
    """A product of two observations' totals (values on some reels × a symbol count), with a constant digit observed."""
    game = draw(games(draw(st.sampled_from(["lines", "ways"]))))
    names = [s.name for s in game.symbols if not s.is_wild]
    values = tuple((n, draw(st.integers(0, 3))) for n in draw(st.lists(st.sampled_from(names), min_size=1, max_size=2,
                                                                          unique=True)))
    game = replace(game, features=(Values(name="values", values=values),))
    other = draw(st.sampled_from([*names, "VALUE"]))
    first, second = ("VALUE", other) if draw(st.booleans()) else (other, "VALUE")
    model = SpinModel("base", products=(("collect", first, second, draw(st.integers(1, 5))),),
                      extra=(("cash", "VALUE", 1),) if draw(st.booleans()) else (),
                      line_multiplier=draw(st.sampled_from([1, 2])))
    if draw(st.booleans()):
        r = draw(st.integers(0, game.n_reels - 1))
        model = replace(model, forced=((r, 0, draw(st.sampled_from(names))),))
    digits = tuple(draw(st.lists(st.sampled_from(["VALUE", "ROWS", *names]), max_size=2, unique=True)))
    return game, model, digits


@PROPERTY
@given(products_case())
def test_products_of_observations_equal_brute_force(case: tuple[Game, SpinModel, tuple[str, ...]]) -> None:
    game, model, digits = case
    assert_same(game, model, digits)


def test_products_and_constant_digits_by_hand() -> None:
    g = replace(tiny(), features=(Values(name="values", values=(("B", 2),)),))
    # VALUE: 2 per B; A count × VALUE total: reels "A B" each, 8 outcomes; with k reels on A there are
    # 3 − k on B: pays 3 · k · 2(3 − k): k = 1 (3 outcomes) → 12, k = 2 (3 outcomes) → 12; mean 72/8 = 9
    brute = assert_same(g, SpinModel("base", products=(("collect", "A", "VALUE", 3),)), ("ROWS",))
    assert brute.credits == {"lines": 10, "collect": 72}
    # the window height is one row at every stop: ROWS is 1 in every outcome
    assert {seen for (_, seen) in brute.joint} == {(1,)}


@st.composite
def heights_case(draw: st.DrawFn) -> tuple[Game, SpinModel]:
    """The window drawn at another height, with the lines that fit it active and the total bet fixed or not."""
    game = draw(games("lines"))
    rs = game.reel_set()
    h = draw(st.integers(1, min(len(s) for s in rs.strips)))
    fit = 0
    for line in game.paylines:
        if max(line) >= h:
            break
        fit += 1
    if fit == 0:  # make the first line fit
        game = replace(game, paylines=((0,) * game.n_reels, *game.paylines[1:]))
        fit = 1
    if draw(st.booleans()):
        game = replace(game, bet=replace(game.bet, total=draw(st.integers(1, 9))))
    return game, SpinModel("base", rows=h, lines=draw(st.integers(1, fit)))


@PROPERTY
@given(heights_case())
def test_heights_equal_brute_force(case: tuple[Game, SpinModel]) -> None:
    game, model = case
    assert_same(game, model)


@st.composite
def capped_case(draw: st.DrawFn) -> tuple[Game, int]:
    game = draw(games(draw(st.sampled_from(["lines", "ways"]))))
    cap = draw(st.integers(1, 60))
    return replace(game, features=(Cap(name="cap", multiple=Fraction(cap)),)), cap


@PROPERTY
@given(capped_case())
def test_caps_equal_brute_force(case: tuple[Game, int]) -> None:
    game, cap = case
    brute = brute_spin(game, SpinModel("base"))
    limit = cap * brute.total_bet
    capped: dict[int, int] = defaultdict(int)
    for w, n in brute.distribution.items():
        capped[min(w, limit)] += n
    a = analyse(game, level="distribution")
    mean = Fraction(sum(w * n for w, n in capped.items()), brute.cycle)
    assert a.rtp() == mean / brute.total_bet
    second = Fraction(sum(w * w * n for w, n in capped.items()), brute.cycle)
    assert a.outcome.m2 == second
    d = a.outcome.dist
    assert d is not None and d.counts is not None and d.total == brute.cycle
    got = {int(v): int(c) for v, c in zip(d.values.tolist(), d.counts.tolist(), strict=True)}
    assert got == {w: n for w, n in capped.items() if n}


# ----------------------------------------------------------------------------- the sparse meet
@pytest.fixture
def always_sparse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every enumeration takes the sparse path (as when the dense table would be too large)."""
    import mathkit.exact.cycle.lines
    import mathkit.exact.cycle.ways

    monkeypatch.setattr(mathkit.exact.cycle.lines, "DENSE_LIMIT", 0)
    monkeypatch.setattr(mathkit.exact.cycle.ways, "DENSE_LIMIT", 0)


@pytest.mark.parametrize("path", ["data/games/benchmark_5x3.toml", "data/games/dynasty.toml",
                                  "data/games/classic_3reel.toml"])
def test_sparse_meet_equals_dense(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from mathkit.gamefile.io import load_game

    game = load_game(path)
    model = SpinModel(game.default_reels)
    dense = Engine(game).joint(model)
    import mathkit.exact.cycle.lines

    monkeypatch.setattr(mathkit.exact.cycle.lines, "DENSE_LIMIT", 0)
    sparse = Engine(game).joint(model)
    for a, b in ((dense.wins, sparse.wins), (dense.counts, sparse.counts)):
        assert a.tolist() == b.tolist()
    assert {k: v.tolist() for k, v in dense.digits.items()} == {k: v.tolist() for k, v in sparse.digits.items()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(scatters_case())
def test_sparse_meet_equals_brute_force(always_sparse: None, case: tuple[Game, SpinModel, tuple[str, ...]]) -> None:
    game, model, digits = case
    assert_same(game, model, digits)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(overlay_case())
def test_sparse_meet_of_lines_and_ways_equals_brute_force(always_sparse: None, case: tuple[Game, SpinModel]) -> None:
    game, model = case
    assert_same(game, model)
