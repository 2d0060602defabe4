"""The exact engine against a brute-force visit of every outcome, exactly.

Hand-derived fixtures first (each derivation is written beside it), then
hypothesis properties on random small games: ``component_rtp`` (RTP, the
split by component, hits and credits per pay combination) and
``joint_counts`` (the joint counts of line win and scatter counts, hence the
whole distribution of the total win and its variance) must equal what
:mod:`brute` finds by visiting every stop combination — as integers and
fractions, not within a tolerance.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from brute import BruteResult, brute_force, scatter_bet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathkit.exact.components import ComponentRTP, component_rtp
from mathkit.exact.cycle import joint_counts
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, ScatterPay, Symbol
from mathkit.model.validate import validate_game
from mathkit.spin.stops import stop_tables
from mathkit.spin.tables import pay_tables

MAX_OUTCOMES = 20_000  # stop combinations the brute force visits per example


# ----------------------------------------------------------------------------- engine side
def engine_entries(cr: ComponentRTP, game: Game) -> dict[tuple[str, str, int], tuple[int, int]]:
    """``component_rtp`` entries as ``{(component, entry, paytable count): (hits, credits)}``.

    The engine labels scatter rows by the number of scatters shown, not by the
    paytable count paid (see ``test_scatter_hits_are_keyed_by_paytable_count``);
    here they are re-keyed by the paytable count so the numbers can be compared.
    Ways games get one row per run length, so rows with the same key are added
    up and rows with no hits dropped (see ``test_ways_rows_are_one_per_combination``).
    """
    declared = {sp.symbol: [k for k, _ in sp.pays] for sp in game.scatter_pays}
    out: dict[tuple[str, str, int], list[int]] = defaultdict(lambda: [0, 0])
    for e in cr.entries:
        count = e.count
        if e.component == "scatter":
            count = max((k for k in declared[e.entry] if k <= e.count), default=0)
        out[(e.component, e.entry, count)][0] += e.hits
        out[(e.component, e.entry, count)][1] += e.credits
    return {k: (h, c) for k, (h, c) in out.items() if h or c}


def engine_joint(game: Game, reels: str | None = None, *, lines: int | None = None,
                 coins: int | None = None) -> tuple[dict[tuple[int, tuple[int, ...]], int], int]:
    """``joint_counts`` as ``{(line total, scatter counts): weight}``, and its cycle."""
    jc = joint_counts(pay_tables(game, lines=lines, coins=coins), stop_tables(game, SpinModel(game.reel_set(reels).name)))
    shown = [jc.digit(sp.symbol).tolist() for sp in game.scatter_pays]
    out: dict[tuple[int, tuple[int, ...]], int] = defaultdict(int)
    for i, (w, n) in enumerate(zip(jc.wins.tolist(), jc.counts.tolist(), strict=True)):
        out[(int(w), tuple(c[i] for c in shown))] += int(n)
    return dict(out), jc.cycle


def total_distribution(game: Game, joint: dict[tuple[int, tuple[int, ...]], int],
                       scatter_unit: int) -> dict[int, int]:
    """Distribution of the total win: line win plus every scatter's pay × its unit (total or line bet, in credits)."""
    out: dict[int, int] = defaultdict(int)
    for (line_win, counts), n in joint.items():
        scatter = sum(sp.pay(c) for sp, c in zip(game.scatter_pays, counts, strict=True)) * scatter_unit
        out[line_win + scatter] += n
    return dict(out)


def variance(dist: dict[int, int]) -> Fraction:
    cycle = sum(dist.values())
    mean = Fraction(sum(w * n for w, n in dist.items()), cycle)
    return Fraction(sum(w * w * n for w, n in dist.items()), cycle) - mean * mean


def positive(d: dict[int, int]) -> dict[int, int]:
    return {k: v for k, v in d.items() if v}


def assert_rtp_matches(game: Game, brute: BruteResult, *, lines: int | None, coins: int | None) -> None:
    cr = component_rtp(game, lines=lines, coins=coins)
    assert cr.cycle == brute.cycle
    assert cr.total_bet == brute.total_bet
    assert engine_entries(cr, game) == brute.entries
    assert cr.rtp() == brute.rtp()
    for component in (game.pay_mode, "scatter"):
        assert cr.rtp(component) == brute.rtp(component), component
    assert {c: v for c, v in cr.breakdown().items() if v} == {
        c: brute.rtp(c) for c in (game.pay_mode, "scatter") if brute.rtp(c)
    }


def assert_distribution_matches(game: Game, brute: BruteResult, *, lines: int | None, coins: int | None) -> None:
    joint, cycle = engine_joint(game, lines=lines, coins=coins)
    assert cycle == brute.cycle
    assert positive(joint) == brute.joint
    n_lines = game.bet.lines if lines is None else lines
    dist = total_distribution(game, joint, scatter_bet(game, n_lines, game.bet.coins[0] if coins is None else coins))
    assert positive(dist) == brute.distribution
    assert variance(dist) == brute.variance()
    mean = Fraction(sum(w * n for w, n in dist.items()), cycle * brute.total_bet)
    assert mean == component_rtp(game, lines=lines, coins=coins).rtp()


# ----------------------------------------------------------------------------- hand-derived fixtures
def game_wild_x2() -> Game:
    """3 reels × 1 row × 4 stops, one line; a ×2 wild that also pays on its own.

    Reel 1: A B C W   reel 2: A W C D   reel 3: A B C W   (64 outcomes)
    Paytable, in order: W {3: 500} (own, never multiplied), A {3: 10}, B {3: 20}, C {3: 5}.
    """
    return Game(
        name="wild x2",
        symbols=(Symbol("A"), Symbol("B"), Symbol("C"), Symbol("D"),
                 Symbol("W", "wild", ("A", "B", "C", "D"), (), True, 2)),
        reel_sets=(ReelSet("base", (("A", "B", "C", "W"), ("A", "W", "C", "D"), ("A", "B", "C", "W")), (1, 1, 1)),),
        line_pays=(PayEntry("W", ("W",), ((3, (500,)),)), PayEntry("A", ("A",), ((3, (10,)),)),
                   PayEntry("B", ("B",), ((3, (20,)),)), PayEntry("C", ("C",), ((3, (5,)),))),
        bet=Bet(1),
        paylines=((0, 0, 0),),
    )


def test_wild_x2_hand_derived() -> None:
    # Every paying line (reel 1, reel 2, reel 3); each wild in a substituted run doubles it:
    #   A A A 10   A A W 20   A W A 20   A W W 40   W A A 20   W A W 40   W W A 40  -> A: 7 hits, 190
    #   B W B 40   B W W 80   W W B 80  (B is absent from reel 2: only the wild)    -> B: 3 hits, 200
    #   C C C 5    C C W 10   C W C 10   C W W 20   W C C 10   W C W 20   W W C 20  -> C: 7 hits, 95
    #   W W W: own pay 500 (not multiplied) beats B's substituted 20×8 = 160         -> W: 1 hit, 500
    # Any other line pays 0 (e.g. A W B: A runs 2, B runs 0; W D x: nothing runs 3).
    # Total 985 credits over 64 outcomes at a total bet of 1.
    game = game_wild_x2()
    validate_game(game)
    expected = {
        ("lines", "A", 3): (7, 190),
        ("lines", "B", 3): (3, 200),
        ("lines", "C", 3): (7, 95),
        ("lines", "W", 3): (1, 500),
    }
    cr = component_rtp(game)
    assert cr.cycle == 64
    assert engine_entries(cr, game) == expected
    assert cr.rtp() == Fraction(985, 64)
    brute = brute_force(game)
    assert brute.entries == expected
    # wins 5: CCC; 10: AAA CCW CWC WCC; 20: AAW AWA WAA CWW WCW WWC; 40: AWW WAW WWA BWB; 80: BWW WWB;
    # 500: WWW; 0: the other 64 - 18 = 46 outcomes.  Check: 5 + 40 + 120 + 160 + 160 + 500 = 985.
    dist = {0: 46, 5: 1, 10: 4, 20: 6, 40: 4, 80: 2, 500: 1}
    assert brute.distribution == dist
    joint, _ = engine_joint(game)
    assert total_distribution(game, joint, 1) == dist
    assert_distribution_matches(game, brute, lines=None, coins=None)


def game_any_bar() -> Game:
    """3 reels × 1 row × 4 stops, every reel ``B1 B2 CH X``, one line, coins 1 or 2.

    Paytable, in order: B1 {3: 10}, B2 {3: [20, 50]} (top award: 50 at 2 coins, not 40),
    CH {1: 2, 2: 5, 3: 10} (cherries from reel 1), mixed ANY_BAR = {B1, B2} {3: 4}.
    """
    strip = ("B1", "B2", "CH", "X")
    return Game(
        name="any bar",
        symbols=(Symbol("B1"), Symbol("B2"), Symbol("CH"), Symbol("X")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
        line_pays=(PayEntry("B1", ("B1",), ((3, (10,)),)), PayEntry("B2", ("B2",), ((3, (20, 50)),)),
                   PayEntry("CH", ("CH",), ((1, (2,)), (2, (5,)), (3, (10,)))),
                   PayEntry("ANY_BAR", ("B1", "B2"), ((3, (4,)),))),
        bet=Bet(1, coins=(1, 2)),
        paylines=((0, 0, 0),),
    )


@pytest.mark.parametrize("coins", [1, 2])
def test_any_bar_cherry_and_top_award_hand_derived(coins: int) -> None:
    # 64 outcomes.  B1 B1 B1: B1 pays 10 (> ANY_BAR's 4).  B2 B2 B2: 20 at one coin, 50 at two.
    # The other 2^3 - 2 = 6 all-bar lines pay ANY_BAR 4 per coin.
    # Cherry on reel 1: CH CH CH (1 outcome) 10; CH CH not-CH (3) 5; CH not-CH any (3·4 = 12) 2; per coin.
    # One coin: 10 + 20 + 6·4 + 10 + 3·5 + 12·2 = 103 credits, total bet 1   -> RTP 103/64.
    # Two coins: 20 + 50 + 6·8 + 20 + 3·10 + 12·4 = 216 credits, total bet 2 -> RTP 216/128 = 27/16.
    game = game_any_bar()
    validate_game(game)
    c = coins
    b2 = 20 if coins == 1 else 50
    expected = {
        ("lines", "B1", 3): (1, 10 * c),
        ("lines", "B2", 3): (1, b2),
        ("lines", "ANY_BAR", 3): (6, 24 * c),
        ("lines", "CH", 1): (12, 24 * c),
        ("lines", "CH", 2): (3, 15 * c),
        ("lines", "CH", 3): (1, 10 * c),
    }
    cr = component_rtp(game, coins=coins)
    assert engine_entries(cr, game) == expected
    assert cr.rtp() == (Fraction(103, 64) if coins == 1 else Fraction(27, 16))
    brute = brute_force(game, coins=coins)
    assert brute.entries == expected
    if coins == 1:
        # wins: 10 (B1 B1 B1 and CH CH CH) 2, 20: 1, 4: 6, 5: 3, 2: 12, 0: 64 - 24 = 40
        dist = {0: 40, 2: 12, 4: 6, 5: 3, 10: 2, 20: 1}
        assert brute.distribution == dist
        # E[X²] = (12·4 + 6·16 + 3·25 + 2·100 + 400)/64 = 819/64, Var = 819/64 - (103/64)² = 41807/4096
        assert brute.variance() == Fraction(41807, 4096)
    assert_distribution_matches(game, brute, lines=None, coins=coins)


def game_two_reel_ways() -> Game:
    """2 reels × 2 rows, ways; a ×2 wild on reel 2 only.

    Reel 1 ``A A B`` shows (A,A) (A,B) (B,A); reel 2 ``A W A A B`` shows
    (A,W) (W,A) (A,A) (A,B) (B,A): 15 outcomes.  Paytable A {2: 5}, B {1: 1, 2: 3}; bet 2 credits.
    """
    return Game(
        name="two-reel ways",
        symbols=(Symbol("A"), Symbol("B"), Symbol("W", "wild", ("A", "B"), (2,), False, 2)),
        reel_sets=(ReelSet("base", (("A", "A", "B"), ("A", "W", "A", "A", "B")), (2, 2)),),
        line_pays=(PayEntry("A", ("A",), ((2, (5,)),)), PayEntry("B", ("B",), ((1, (1,)), (2, (3,))))),
        bet=Bet(2),
        pay_mode="ways",
    )


def test_two_reel_ways_hand_derived() -> None:
    # A (the wild counts 2): reel 1 counts 2, 1, 1 (sum 4); reel 2 counts 3, 3, 2, 1, 1 (sum 10).
    #   Every outcome has A on both reels: 15 hits, 5 × 4 × 10 = 200 credits.
    # B: reel 1 counts 0, 1, 1; reel 2 (B or wild) counts 2, 2, 0, 1, 1.
    #   Reel-1 stops showing B (2 of them) with reel 2 counting > 0 (4 stops): 8 hits of 2, ways 2·(2+2+1+1) = 12,
    #   3 × 12 = 36 credits; with reel 2 at (A,A): 2 hits of 1, 1 × 1 each = 2 credits.
    # Total 238 credits over 15 outcomes at 2 credits a spin: RTP 238/30 = 119/15.
    game = game_two_reel_ways()
    validate_game(game)
    expected = {
        ("ways", "A", 2): (15, 200),
        ("ways", "B", 2): (8, 36),
        ("ways", "B", 1): (2, 2),
    }
    cr = component_rtp(game)
    assert cr.cycle == 15
    assert engine_entries(cr, game) == expected
    assert cr.rtp() == Fraction(119, 15)
    brute = brute_force(game)
    assert brute.entries == expected
    assert brute.rtp() == Fraction(119, 15)
    assert_distribution_matches(game, brute, lines=None, coins=None)


def game_scatter_sparse() -> Game:
    """3 reels × 1 row, every reel ``S X``, one line; scatter S pays {2: 1} × total bet (8 outcomes)."""
    strip = ("S", "X")
    return Game(
        name="sparse scatter",
        symbols=(Symbol("S", "scatter"), Symbol("X")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
        line_pays=(PayEntry("X", ("X",), ((3, (1,)),)),),
        bet=Bet(1),
        paylines=((0, 0, 0),),
        scatter_pays=(ScatterPay("S", ((2, 1),)),),
    )


def test_scatter_hand_derived() -> None:
    # S shown 0, 1, 2, 3 times in 1, 3, 3, 1 outcomes; 2 or more pay 1 × the total bet of 1.
    # X X X pays 1 on the line.  Total 1 + 3 + 1 = 5 credits over 8 outcomes.
    game = game_scatter_sparse()
    cr = component_rtp(game)
    assert cr.rtp() == Fraction(5, 8)
    assert cr.breakdown() == {"lines": Fraction(1, 8), "scatter": Fraction(4, 8)}
    assert engine_entries(cr, game) == {("lines", "X", 3): (1, 1), ("scatter", "S", 2): (4, 4)}
    brute = brute_force(game)
    assert brute.joint == {(1, (0,)): 1, (0, (1,)): 3, (0, (2,)): 3, (0, (3,)): 1}
    assert_rtp_matches(game, brute, lines=None, coins=None)
    assert_distribution_matches(game, brute, lines=None, coins=None)


def test_scatter_hits_are_keyed_by_paytable_count() -> None:
    # EntryHits.count is the paytable key, for lines (a run of 4 paid as "3 of a kind" is a hit of
    # count 3) and for scatters alike: S pays {2: 1}, so 2 S (3 outcomes) and 3 S (1 outcome) are
    # all hits of (S, 2): 4 hits, 4 credits.
    cr = component_rtp(game_scatter_sparse())
    rows = {(e.component, e.entry, e.count): (e.hits, e.credits) for e in cr.entries}
    assert rows == {("lines", "X", 3): (1, 1), ("scatter", "S", 2): (4, 4)}


def test_ways_rows_are_one_per_combination() -> None:
    # 3 reels × 1 row, every strip "A B" (8 outcomes), ways, A pays {1: 1}.  Runs of 1, 2 and 3 all pay
    # as "1 of a kind": run 1 (A B x) 2 outcomes, run 2 (A A B) 1, run 3 (A A A) 1 -> 4 hits, 4 credits.
    # B pays {2: 3, 3: 0}: a run of 3 is paid as 3 (0 credits), so B has one row (2): 1 hit (B B A), 3 credits.
    # As for lines games: one row per (entry, paytable count), never a row of 0 hits.
    strip = ("A", "B")
    game = Game(
        name="ways rows",
        symbols=(Symbol("A"), Symbol("B")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
        line_pays=(PayEntry("A", ("A",), ((1, (1,)),)), PayEntry("B", ("B",), ((2, (3,)), (3, (0,))))),
        bet=Bet(1),
        pay_mode="ways",
    )
    assert brute_force(game).entries == {("ways", "A", 1): (4, 4), ("ways", "B", 2): (1, 3)}
    rows = [(e.component, e.entry, e.count, e.hits, e.credits) for e in component_rtp(game).entries]
    assert sorted(rows) == [("ways", "A", 1, 4, 4), ("ways", "B", 2, 1, 3)]


# ----------------------------------------------------------------------------- random small games
def _fit_lengths(lengths: list[int], limit: int, shortest: int = 1) -> list[int]:
    """Shorten the longest strips (never below ``shortest``) until the stop combinations are at most ``limit``."""
    lengths = [max(x, shortest) for x in lengths]
    while True:
        n = 1
        for x in lengths:
            n *= x
        if n <= limit:
            return lengths
        i = max(range(len(lengths)), key=lambda j: lengths[j])
        if lengths[i] <= shortest:
            return lengths
        lengths[i] -= 1


@st.composite
def pays_table(draw: st.DrawFn, max_count: int,
               n_coins: int) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], frozenset[int]]:
    """Sparse pays ``count -> values`` for counts 1..max_count, and the counts paid per coin option.

    A pay is 0-50 credits per coin, or one value per coin option (up to 100; with a single
    coin option, a one-value list: paid as it is, not times the coins).
    """
    counts = draw(st.lists(st.integers(1, max_count), min_size=1, max_size=max_count, unique=True))
    out = []
    per_option = set()
    for k in sorted(counts):
        if draw(st.booleans()) and (n_coins > 1 or draw(st.booleans())):
            values = tuple(draw(st.integers(0, 50 * (i + 1))) for i in range(n_coins))
            per_option.add(k)
        else:
            values = (draw(st.integers(0, 50)),)
        out.append((k, values))
    return tuple(out), frozenset(per_option)


@st.composite
def lines_and_bet(draw: st.DrawFn, mode: str, rows: tuple[int, ...], coins: tuple[int, ...],
                  max_lines: int) -> tuple[tuple[tuple[int, ...], ...], Bet]:
    """Paylines (lines games: 1 to ``max_lines`` distinct ones) and the bet (all lines; ways: a multiplier 1-10)."""
    if mode == "lines":
        line_rows = st.tuples(*(st.integers(0, h - 1) for h in rows))
        paylines = tuple(draw(st.lists(line_rows, min_size=1, max_size=max_lines, unique=True)))
        return paylines, Bet(len(paylines), coins=coins)
    return (), Bet(draw(st.integers(1, 10)), coins=coins)


@st.composite
def games(draw: st.DrawFn, mode: str) -> Game:
    """A random small valid game in ``mode`` ("lines" or "ways")."""
    n_reels = draw(st.integers(3, 5))
    if draw(st.booleans()):
        rows = (draw(st.integers(2, 4)),) * n_reels
    else:
        rows = tuple(draw(st.integers(2, 4)) for _ in range(n_reels))
    regular = [f"S{i}" for i in range(draw(st.integers(3, 6)))]
    symbols = [Symbol(name) for name in regular]

    wilds = []
    for i in range(draw(st.integers(0, 2))):
        subs = tuple(draw(st.lists(st.sampled_from(regular), min_size=1, unique=True)))
        allowed = tuple(sorted(draw(st.sets(st.integers(1, n_reels), max_size=n_reels))))
        pays = mode == "lines" and draw(st.booleans())
        wilds.append(Symbol(f"W{i}", "wild", subs, allowed, pays, draw(st.sampled_from([1, 2, 3]))))
    symbols += wilds

    window = sum(rows)
    n_scatter = draw(st.integers(0, 2 if window <= 10 else 1))
    scatters = [f"SC{i}" for i in range(n_scatter)]
    symbols += [Symbol(name, "scatter") for name in scatters]
    scatter_pays = tuple(
        ScatterPay(name, tuple((k, draw(st.integers(0, 20)))
                               for k in sorted(draw(st.lists(st.integers(1, min(window, n_reels + 1)),
                                                             min_size=1, max_size=4, unique=True)))))
        for name in scatters
    )
    if draw(st.integers(0, 3)) == 0:  # a scatter without pays: only a blank on lines and ways
        scatters.append("SX")
        symbols.append(Symbol("SX", "scatter"))

    coins = draw(st.sampled_from([(1,), (1,), (3,), (1, 2), (2, 5)]))
    entries = []
    for name in draw(st.lists(st.sampled_from(regular), min_size=1, unique=True)):
        entries.append(PayEntry(name, (name,), *draw(pays_table(n_reels, len(coins)))))
    entries += [PayEntry(w.name, (w.name,), *draw(pays_table(n_reels, len(coins)))) for w in wilds if w.pays]
    entries = list(draw(st.permutations(entries)))  # ties go to the first entry: vary the order
    if mode == "lines" and draw(st.booleans()):
        members = tuple(draw(st.lists(st.sampled_from(regular), min_size=2, max_size=3, unique=True)))
        group = PayEntry("MIX", members, *draw(pays_table(n_reels, len(coins))))
        entries.insert(draw(st.integers(0, len(entries))), group)

    # a window never shows more rows than the strip has stops
    lengths = _fit_lengths([draw(st.integers(3, 10)) for _ in range(n_reels)], MAX_OUTCOMES, max(rows))
    strips = []
    for r, length in enumerate(lengths):
        here = regular + scatters + [w.name for w in wilds if not w.reels or r + 1 in w.reels]
        strips.append(tuple(draw(st.lists(st.sampled_from(here), min_size=length, max_size=length))))
    weights = None
    if draw(st.booleans()):
        weights = tuple(tuple(draw(st.integers(1, 4)) for _ in range(length)) for length in lengths)

    paylines, bet = draw(lines_and_bet(mode, rows, coins, 8))

    game = Game(
        name="random",
        symbols=tuple(symbols),
        reel_sets=(ReelSet("base", tuple(strips), rows, weights),),
        line_pays=tuple(entries),
        bet=bet,
        pay_mode=mode,  # type: ignore[arg-type]
        paylines=paylines,
        scatter_pays=scatter_pays,
    )
    validate_game(game)
    return game


@st.composite
def games_and_bets(draw: st.DrawFn, mode: str) -> tuple[Game, int | None, int]:
    """A game, the lines played (``None``: the default) and the coins per line."""
    game = draw(games(mode))
    lines = None
    if mode == "lines" and draw(st.booleans()):
        lines = draw(st.integers(1, len(game.paylines)))
    return game, lines, draw(st.sampled_from(game.bet.coins))


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(games_and_bets("lines"))
def test_lines_engine_equals_brute_force(case: tuple[Game, int | None, int]) -> None:
    game, lines, coins = case
    brute = brute_force(game, lines=lines, coins=coins)
    assert_rtp_matches(game, brute, lines=lines, coins=coins)
    assert_distribution_matches(game, brute, lines=lines, coins=coins)


@PROPERTY
@given(games_and_bets("ways"))
def test_ways_engine_equals_brute_force(case: tuple[Game, int | None, int]) -> None:
    game, lines, coins = case
    brute = brute_force(game, lines=lines, coins=coins)
    assert_rtp_matches(game, brute, lines=lines, coins=coins)
    assert_distribution_matches(game, brute, lines=lines, coins=coins)


@pytest.mark.parametrize("path", ["data/games/benchmark_5x3.toml", "data/games/dynasty.toml"])
def test_parallel_kernel_equals_serial(path: str) -> None:
    # the parallel combine splits the groups over threads; the counts must not change by a single outcome
    from mathkit.gamefile.io import load_game

    game = load_game(path)
    t, ra = pay_tables(game), stop_tables(game, SpinModel(game.default_reels))
    serial, parallel = joint_counts(t, ra), joint_counts(t, ra, parallel=True)
    assert serial.cycle == parallel.cycle == int(serial.counts.sum())
    assert np.array_equal(serial.wins, parallel.wins)
    assert np.array_equal(serial.codes, parallel.codes)
    assert np.array_equal(serial.counts, parallel.counts)
