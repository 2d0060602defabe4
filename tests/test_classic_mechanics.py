"""Classic mechanics (issue 14): multiplier symbols that are not wild, flat pays, scatter pay units, hits per line.

Hand-derived fixtures first (the derivation beside each), then hypothesis properties on random
small games: the exact engine (``component_rtp``, ``joint_counts``, the PAR sheet) must equal what
:mod:`brute` finds by visiting every stop combination, exactly.  The brute force reads the game
dataclasses only (its own rule for multipliers, flat entries and scatter units).
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest
from brute import BruteResult, brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_property import (
    _fit_lengths,
    assert_distribution_matches,
    assert_rtp_matches,
    engine_entries,
    lines_and_bet,
    pays_table,
)

from mathkit.cli import main
from mathkit.errors import GameError
from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, ScatterPay, Symbol
from mathkit.model.validate import validate_game
from mathkit.report.par import build_par
from mathkit.report.sensitivity import pay_sensitivity
from mathkit.sim import simulate

ROOT = Path(__file__).resolve().parents[1]
CLASSIC = ROOT / "data" / "games" / "classic"
MAX_OUTCOMES = 2_000  # small games: the brute force visits every stop combination


# ----------------------------------------------------------------------------- hand-derived fixtures
def game_doubles() -> Game:
    """3 reels × 1 row × 4 stops, one line; two multiplier symbols D (×2) and T (×3), not wild.

    Reel 1: A D T C   reel 2: A D T X   reel 3: A D T X   (64 outcomes)
    Paytable, in order: D {3: 100} flat (three doubles: the jackpot), ANY = {A, D, T} {3: 5}, C {1: 2}.
    """
    return Game(
        name="doubles",
        symbols=(Symbol("A"), Symbol("D", multiplier=2), Symbol("T", multiplier=3), Symbol("C"), Symbol("X")),
        reel_sets=(ReelSet("base", (("A", "D", "T", "C"), ("A", "D", "T", "X"), ("A", "D", "T", "X")), (1, 1, 1)),),
        line_pays=(PayEntry("D", ("D",), ((3, (100,)),), flat=True), PayEntry("ANY", ("A", "D", "T"), ((3, (5,)),)),
                   PayEntry("C", ("C",), ((1, (2,)),))),
        bet=Bet(1),
        paylines=((0, 0, 0),),
    )


def test_two_multiplier_symbols_and_a_flat_jackpot_hand_derived() -> None:
    # Reel 1 in {A, D, T} (3 stops) and reels 2, 3 in {A, D, T}: 27 lines pay ANY 5 × the product of
    # the factors of the run (A 1, D 2, T 3): Σ = 5 · (1 + 2 + 3)³ = 1080 over the 27.
    #   D D D: ANY would pay 5 · 8 = 40, the flat jackpot D pays 100 (never multiplied): the highest
    #   is paid, so ANY has 26 hits and 1080 − 40 = 1040 credits, D 1 hit and 100 credits.
    # Reel 1 = C (16 outcomes): C pays 2 whatever follows; a D or T after it is not in C's run and
    # does not multiply it (C D D pays 2, not 8): 16 hits, 32 credits.
    # The 64 − 27 − 16 = 21 others (an X on reel 2 or 3 after A/D/T) pay nothing.
    # Total 1040 + 100 + 32 = 1172 credits over 64 outcomes at a bet of 1: RTP 1172/64 = 293/16.
    game = game_doubles()
    validate_game(game)
    expected = {("lines", "ANY", 3): (26, 1040), ("lines", "D", 3): (1, 100), ("lines", "C", 1): (16, 32)}
    cr = component_rtp(game)
    assert cr.cycle == 64
    assert engine_entries(cr, game) == expected
    assert cr.rtp() == Fraction(293, 16)
    brute = brute_force(game)
    assert brute.entries == expected
    # products of the factors over {1, 2, 3}³: 1 (×1), 2 (×3), 3 (×3), 4 (×3), 6 (×6), 8 (×1: D D D,
    # paid flat 100), 9 (×3), 12 (×3), 18 (×3), 27 (×1); times 5 each.
    dist = {0: 21, 2: 16, 5: 1, 10: 3, 15: 3, 20: 3, 30: 6, 100: 1, 45: 3, 60: 3, 90: 3, 135: 1}
    assert sum(dist.values()) == 64
    assert brute.distribution == dist
    assert_distribution_matches(game, brute, lines=None, coins=None)
    par = build_par(game)
    assert par.rtp.exact == Fraction(293, 16)
    # hit frequency: 27 + 16 = 43 paying lines of 64; one line, so per spin = per line = 43/64
    assert par.hit_frequency.exact == Fraction(43, 64)
    assert par.hit_frequency_per_line is not None and par.hit_frequency_per_line.exact == Fraction(43, 64)


def test_multiplier_symbol_with_a_wild() -> None:
    # Reels "D W" × 3 (8 outcomes), one line; D ×2 (multiplier symbol), W wild ×3 for D.
    # D {3: 1} multiplied (not flat): every line is a run of 3 D's paying 1 × 2^d · 3^w (d + w = 3):
    # Σ = (2 + 3)³ = 125 credits.  W's own combination: none.  Flat D instead: 8 × 1 = 8.
    strip = ("D", "W")
    game = Game(
        name="mult and wild",
        symbols=(Symbol("D", multiplier=2), Symbol("W", "wild", ("D",), (), False, 3)),
        reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
        line_pays=(PayEntry("D", ("D",), ((3, (1,)),)),),
        bet=Bet(1),
        paylines=((0, 0, 0),),
    )
    assert component_rtp(game).credits() == brute_force(game).credits() == 125
    flat = dataclasses.replace(game, line_pays=(PayEntry("D", ("D",), ((3, (1,)),), flat=True),))
    assert component_rtp(flat).credits() == brute_force(flat).credits() == 8


def game_scatter_unit(unit: str) -> Game:
    """3 reels × 2 rows, every strip ``S X X X``, lines top and bottom at 2 coins; S pays {2: 1} × ``unit``."""
    strip = ("S", "X", "X", "X")
    return Game(
        name="scatter unit",
        symbols=(Symbol("S", "scatter"), Symbol("X")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (2, 2, 2)),),
        line_pays=(PayEntry("X", ("X",), ((3, (1,)),)),),
        bet=Bet(2, coins=(2,)),
        paylines=((0, 0, 0), (1, 1, 1)),
        scatter_pays=(ScatterPay("S", ((2, 1),)),),
        scatter_unit=unit,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(("unit", "scatter_credits"), [("total_bet", 128), ("line_bet", 64)])
def test_scatter_pay_units_hand_derived(unit: str, scatter_credits: int) -> None:
    # 64 outcomes.  A reel's window (S X), (X X), (X X) or (X S): one S with probability 1/2, never two,
    # so 2 or 3 S show in 4 of 8 reel patterns: 32 outcomes, each paying 1 unit — the total bet
    # (2 lines × 2 coins = 4 credits: 128 in all) or the line bet (2 coins: 64 in all).
    # Lines: the top row is X on a reel in 3 of its 4 stops, so X X X on top in 27 outcomes, on the
    # bottom in 27: 54 line hits of 1 × 2 coins = 108 credits.  RTP (108 + scatter) / (64 × 4).
    game = game_scatter_unit(unit)
    validate_game(game)
    cr = component_rtp(game)
    assert cr.credits("scatter") == scatter_credits
    assert cr.rtp() == Fraction(108 + scatter_credits, 64 * 4)
    brute = brute_force(game)
    assert_rtp_matches(game, brute, lines=None, coins=None)
    assert_distribution_matches(game, brute, lines=None, coins=None)
    par = build_par(game)
    assert par.rtp.exact == Fraction(108 + scatter_credits, 256)
    assert {e.pay for e in par.entries if e.component == "scatter"} == {scatter_credits // 32}
    assert par.hit_frequency_per_line is not None and par.hit_frequency_per_line.exact == Fraction(54, 128)


def test_hit_frequency_per_line_hand_derived() -> None:
    # 3 reels × 2 rows, strips "A B": a reel shows (A, B) or (B, A), 8 outcomes; lines top and bottom,
    # A {3: 1}.  The top line pays when every reel shows A on top (1 outcome), the bottom line when
    # every reel shows B on top (1 outcome): 2 line hits over 8 × 2 (outcome, line) pairs = 1/8 per
    # line; 2 of the 8 spins pay: 1/4 per spin.
    strip = ("A", "B")
    game = Game(
        name="per line",
        symbols=(Symbol("A"), Symbol("B")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (2, 2, 2)),),
        line_pays=(PayEntry("A", ("A",), ((3, (1,)),)),),
        bet=Bet(2),
        paylines=((0, 0, 0), (1, 1, 1)),
    )
    par = build_par(game)
    assert par.hit_frequency.exact == Fraction(1, 4)
    assert par.hit_frequency_per_line is not None and par.hit_frequency_per_line.exact == Fraction(1, 8)
    assert brute_force(game).hit_frequency_per_line() == Fraction(1, 8)


# ----------------------------------------------------------------------------- the format
def test_format_round_trip_and_errors() -> None:
    for path in sorted(CLASSIC.glob("*.toml")):
        game = load_game(path)
        assert loads_game(dump_game(game)) == game
    game = load_game(CLASSIC / "double_sevens.toml")
    assert game.symbol("SEVEN_X2").is_multiplier and game.symbol("SEVEN_X2").multiplier == 2
    assert [e.name for e in game.line_pays if e.flat] == ["SEVEN_X2"]
    assert load_game(CLASSIC / "line_bet_scatters.toml").scatter_unit == "line_bet"
    base = 'name = "g"\npaylines = [[0, 0, 0]]\n[symbols.A]\n[reels.base]\nrows = 1\nstrips = ["A", "A", "A"]\n'
    cases = [
        (base + '[paytable]\nA = { 3 = 5, flat = "yes" }\n', "paytable.A.flat"),
        (base.replace("[symbols.A]", '[symbols.A]\n[symbols.S]\nkind = "scatter"\nmultiplier = 2'),
         "symbols.S.multiplier"),
        (base.replace('name = "g"', 'name = "g"\nscatter_unit = "coins"') + "[paytable]\nA = { 3 = 5 }\n",
         "scatter_unit"),
        (base.replace('name = "g"', 'name = "g"\nscatter_unit = "line_bet"').replace("[symbols.A]",
         "[bet]\ntotal = 10\n[symbols.A]") + "[paytable]\nA = { 3 = 5 }\n", "scatter_unit"),
        (base.replace("[symbols.A]", "[symbols.A]\n[symbols.B]") + '[paytable]\nA = { 3 = 5 }\n'
         '[mixed.AB]\nsymbols = ["A", "B"]\npays = { 3 = 1, flat = true }\n', "mixed.AB.pays.flat"),
    ]
    for text, field in cases:
        with pytest.raises(GameError) as err:
            loads_game(text)
        assert err.value.field == field, (field, str(err.value))
    ways = base.replace('paylines = [[0, 0, 0]]', 'pay_mode = "ways"') + "[paytable]\nA = { 3 = 5, flat = true }\n"
    with pytest.raises(GameError, match="flat pays are not supported in ways games"):
        loads_game(ways)
    ways = base.replace('paylines = [[0, 0, 0]]', 'pay_mode = "ways"\nscatter_unit = "line_bet"') + "[paytable]\nA = { 3 = 5 }\n"
    # issue 30: a ways game pays scatters per bet unit (the coins per bet line) too
    assert loads_game(ways).scatter_credits() == 1


# ----------------------------------------------------------------------------- random small games
@st.composite
def classic_games(draw: st.DrawFn, mode: str, *, multipliers: bool = True, unit: str | None = None) -> Game:
    """A random small game with multiplier symbols (lines: flat entries, mixed groups listing them) and scatters."""
    n_reels = draw(st.integers(3, 5))
    rows = tuple(draw(st.integers(1, 3)) for _ in range(n_reels))
    regular = [f"S{i}" for i in range(draw(st.integers(2, 5)))]
    factors = {name: draw(st.sampled_from([1, 2, 3])) if multipliers and i < 2 else 1
               for i, name in enumerate(regular)}
    symbols = [Symbol(name, multiplier=factors[name]) for name in regular]
    wilds = []
    if draw(st.booleans()):
        subs = tuple(draw(st.lists(st.sampled_from(regular), min_size=1, unique=True)))
        pays = mode == "lines" and draw(st.booleans())
        wilds.append(Symbol("W", "wild", subs, (), pays, draw(st.sampled_from([1, 2, 3]))))
    symbols += wilds
    scatters = ["SC"] if draw(st.booleans()) else []
    symbols += [Symbol(name, "scatter") for name in scatters]
    window = sum(rows)
    scatter_pays = tuple(ScatterPay(name, tuple((k, draw(st.integers(0, 20))) for k in sorted(
        draw(st.lists(st.integers(1, min(window, n_reels + 1)), min_size=1, max_size=3, unique=True)))))
        for name in scatters)
    coins = draw(st.sampled_from([(1,), (2,), (1, 3)]))
    flat = mode == "lines"
    entries = [PayEntry(name, (name,), *draw(pays_table(n_reels, len(coins))), flat=flat and draw(st.booleans()))
               for name in draw(st.lists(st.sampled_from(regular), min_size=1, unique=True))]
    entries += [PayEntry(w.name, (w.name,), *draw(pays_table(n_reels, len(coins)))) for w in wilds if w.pays]
    entries = list(draw(st.permutations(entries)))
    if mode == "lines" and len(regular) >= 2:
        for g in range(draw(st.integers(0, 2))):
            members = tuple(draw(st.lists(st.sampled_from(regular), min_size=2, max_size=3, unique=True)))
            entries.insert(draw(st.integers(0, len(entries))),
                           PayEntry(f"MIX{g}", members, *draw(pays_table(n_reels, len(coins))),
                                    flat=draw(st.booleans())))
    lengths = _fit_lengths([draw(st.integers(2, 7)) for _ in range(n_reels)], MAX_OUTCOMES, max(rows))
    here = regular + scatters + [w.name for w in wilds]
    strips = tuple(tuple(draw(st.lists(st.sampled_from(here), min_size=n, max_size=n))) for n in lengths)
    weights = None
    if draw(st.booleans()):
        weights = tuple(tuple(draw(st.integers(1, 3)) for _ in range(n)) for n in lengths)
    paylines, bet = draw(lines_and_bet(mode, rows, coins, 6))
    game = Game(
        name="random classic",
        symbols=tuple(symbols),
        reel_sets=(ReelSet("base", strips, rows, weights),),
        line_pays=tuple(entries),
        bet=bet,
        pay_mode=mode,  # type: ignore[arg-type]
        paylines=paylines,
        scatter_pays=scatter_pays,
        scatter_unit=(unit or draw(st.sampled_from(["total_bet", "line_bet"]))) if mode == "lines"  # type: ignore[arg-type]
        else "total_bet",
    )
    validate_game(game)
    return game


@st.composite
def cases(draw: st.DrawFn, mode: str, **kw: object) -> tuple[Game, int | None, int]:
    game = draw(classic_games(mode, **kw))  # type: ignore[arg-type]
    lines = draw(st.integers(1, len(game.paylines))) if mode == "lines" and draw(st.booleans()) else None
    return game, lines, draw(st.sampled_from(game.bet.coins))


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_engine_equals_brute(case: tuple[Game, int | None, int]) -> BruteResult:
    game, lines, coins = case
    brute = brute_force(game, lines=lines, coins=coins)
    assert_rtp_matches(game, brute, lines=lines, coins=coins)
    assert_distribution_matches(game, brute, lines=lines, coins=coins)
    return brute


@PROPERTY
@given(cases("lines"))
def test_multiplier_symbols_and_flat_entries_equal_brute_force(case: tuple[Game, int | None, int]) -> None:
    assert_engine_equals_brute(case)


@PROPERTY
@given(cases("ways"))
def test_multiplier_symbols_in_ways_games_equal_brute_force(case: tuple[Game, int | None, int]) -> None:
    assert_engine_equals_brute(case)


@PROPERTY
@given(cases("lines", multipliers=False, unit="line_bet"))
def test_scatter_pays_per_line_bet_equal_brute_force(case: tuple[Game, int | None, int]) -> None:
    assert_engine_equals_brute(case)


@PROPERTY
@given(cases("lines"))
def test_par_sheet_hit_frequencies_equal_brute_force(case: tuple[Game, int | None, int]) -> None:
    game, lines, coins = case
    brute = brute_force(game, lines=lines, coins=coins)
    par = build_par(game, lines=lines, coins=coins)
    assert par.rtp.exact == brute.rtp()
    assert par.hit_frequency.exact == Fraction(sum(n for w, n in brute.distribution.items() if w > 0), brute.cycle)
    assert par.hit_frequency_per_line is not None
    assert par.hit_frequency_per_line.exact == brute.hit_frequency_per_line()
    assert par.distribution.variance() == brute.variance()


# ----------------------------------------------------------------------------- the examples, simulated
@pytest.mark.parametrize("name", ["double_sevens.toml", "line_bet_scatters.toml"])
def test_examples_simulate_within_the_interval_of_the_exact_figures(name: str) -> None:
    game = load_game(CLASSIC / name)
    par = build_par(game)
    res = simulate(game, 400_000, seed=14)
    exact = {"rtp": par.rtp.value, "hit_frequency": par.hit_frequency.value} | {
        k: f.value for k, f in par.components.items()}
    checks = res.checks(exact, par.sd.value, level=0.999)
    assert checks and all(c["agrees"] for c in checks.values()), checks


def test_par_and_simulate_command_lines(capsys: pytest.CaptureFixture[str]) -> None:
    # the PAR sheet's JSON: both hit frequencies with their definitions, the scatter unit; the text labels them
    path = str(CLASSIC / "line_bet_scatters.toml")
    assert main(["par", path, "--json", "--coins", "2"]) == 0
    d = json.loads(capsys.readouterr().out)
    par = build_par(load_game(path), coins=2)
    assert par.hit_frequency_per_line is not None
    assert d["hit_frequency_per_line"] == par.hit_frequency_per_line.value
    assert Fraction(d["hit_frequency_per_line_exact"]) == par.hit_frequency_per_line.exact
    assert d["provenance"]["hit_frequency_per_line"] == "exact"
    assert set(d["hit_frequency_definitions"]) == {"hit_frequency", "hit_frequency_per_line"}
    assert (d["scatter_unit"], d["scatter_unit_credits"]) == ("line_bet", 2)
    assert main(["par", path]) == 0
    text = capsys.readouterr().out
    assert "hit frequency per spin" in text and "hit frequency per line" in text and "× the line bet" in text
    # the simulation checks the per-line figure too (sampled apart) and agrees
    assert main(["simulate", path, "--spins", "100000", "--seed", "3", "--json", "--no-progress"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["checks"]["hit_frequency_per_line"]["agrees"] and s["agrees_with_exact"]
    assert s["hit_frequency_per_line"]["spins"] == 100_000 and s["hit_frequency_per_line"]["lines"] == 9


def test_scatter_sensitivity_is_per_unit_and_an_unreachable_flat_jackpot_is_flagged(tmp_path: Path) -> None:
    # one more unit on a scatter pay adds hits × unit credits: the marginal figure equals the exact difference
    game = load_game(CLASSIC / "line_bet_scatters.toml")
    rows = [r for r in pay_sensitivity(game) if r.cell.kind == "scatter"]
    assert rows and all(r.delta == r.marginal for r in rows)
    assert all(r.marginal == Fraction(r.hits * game.bet.coins[0], 18**5 * 9) for r in rows)  # 18-stop strips, 9 lines
    # a flat jackpot below what the multiplied group pays is never paid (highest pay per line): check says so
    text = (CLASSIC / "double_sevens.toml").read_text(encoding="utf-8")
    low = tmp_path / "low.toml"
    low.write_text(text.replace("SEVEN_X2 = { 3 = [1000, 2000, 5000], flat = true }", "SEVEN_X2 = { 3 = 100, flat = true }"),
                   encoding="utf-8")
    par = build_par(load_game(low))
    assert not any(e.entry == "SEVEN_X2" for e in par.entries)  # SEVENS pays 50 × 8 = 400 > 100
    assert main(["check", str(low)]) == 1
