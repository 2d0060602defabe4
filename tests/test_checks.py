"""Certification checks (mathkit.checks): each passes on a good game and fails on a game built to break it."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.chains.ladder import GambleOption
from mathkit.checks import CHECK_NAMES, PROFILES, Check, run_checks
from mathkit.cli import main
from mathkit.exact.components import component_rtp
from mathkit.features.cap import Cap
from mathkit.features.free_spins import FreeSpins
from mathkit.features.gamble import Gamble
from mathkit.gamefile.io import load_game, save_game
from mathkit.model.game import Game, PayEntry, Reading, Symbol
from mathkit.report.par import build_par

BENCH = "data/games/benchmark_5x3.toml"
CLASSIC = "data/games/classic_3reel.toml"
DYNASTY = "data/games/dynasty.toml"


def _one(game: Game, name: str, profile: str = "gli11") -> Check:
    (check,) = run_checks(game, profile, only=(name,))
    assert check.name == name
    return check


@pytest.fixture(scope="module")
def bench() -> Game:
    g = load_game(BENCH)
    return dataclasses.replace(g, declared_rtp=component_rtp(g).rtp())


@pytest.fixture(scope="module")
def dynasty() -> Game:
    return load_game(DYNASTY)


def _fs(game: Game) -> FreeSpins:
    fs = game.feature("free_spins")
    assert isinstance(fs, FreeSpins)
    return fs


def _gamble(game: Game) -> Gamble:
    g = game.feature("gamble")
    assert isinstance(g, Gamble)
    return g


def test_dynasty_passes_every_check(dynasty: Game) -> None:
    checks = run_checks(dynasty)
    assert len(checks) >= 8
    assert [c.name for c in checks] == [*CHECK_NAMES, "gamble_fair", "gamble_limits"]
    assert all(c.passed for c in checks), [c for c in checks if not c.passed]
    assert all(c.passed for c in checks), [c for c in checks if not c.passed]


def test_good_base_game_passes_every_check(bench: Game) -> None:
    for profile in PROFILES:
        failed = [c for c in run_checks(bench, profile) if not c.passed]
        assert failed == [], profile


def test_game_valid_fails_on_an_invalid_game(bench: Game) -> None:
    rs = bench.reel_set()
    broken = dataclasses.replace(bench, reel_sets=(dataclasses.replace(rs, strips=(("ZZ", *rs.strips[0][1:]),
                                                                                   *rs.strips[1:])),))
    checks = run_checks(broken)  # never raises
    valid = next(c for c in checks if c.name == "game_valid")
    assert not valid.passed and "unknown symbol 'ZZ'" in valid.detail


def test_declared_rtp(bench: Game) -> None:
    assert _one(bench, "declared_rtp").passed
    # ±0.005 pp: 0.00004 off passes, 0.00006 off fails
    assert _one(dataclasses.replace(bench, declared_rtp=bench.declared_rtp + Fraction(4, 100_000)),
                "declared_rtp").passed
    off = _one(dataclasses.replace(bench, declared_rtp=bench.declared_rtp + Fraction(6, 100_000)), "declared_rtp")
    assert not off.passed and "0.006000 pp" in off.detail
    missing = _one(dataclasses.replace(bench, declared_rtp=None), "declared_rtp")
    assert not missing.passed and "no declared_rtp" in missing.detail


def test_rtp_bounds_at_every_bet_option() -> None:
    shipped = load_game(CLASSIC)
    # cherries back at 2/5/10: 81563/104788 = 77.84% at 1 coin, 32029/41004 = 78.11% at 3 coins
    cheap = PayEntry("CHERRY", ("CHERRY",), ((1, (2,)), (2, (5,)), (3, (10,))))
    classic = dataclasses.replace(shipped, line_pays=tuple(cheap if e.name == "CHERRY" else e
                                                           for e in shipped.line_pays))
    assert component_rtp(classic).rtp() == Fraction(81563, 104788)
    assert _one(classic, "rtp_bounds", "gli11").passed  # ≥ 75%
    anz = _one(classic, "rtp_bounds", "anz")  # ≥ 85%
    assert not anz.passed and "85%" in anz.detail
    # a max-coin top award so large that only the 3-coin bet returns more than 100%
    pays = tuple(PayEntry(e.name, e.symbols, ((3, (800, 1600, 2_000_000)),)) if e.name == "WILD" else e
                 for e in classic.line_pays)
    greedy = dataclasses.replace(classic, line_pays=pays)
    assert component_rtp(greedy, coins=1).rtp() < 1 < component_rtp(greedy, coins=3).rtp()
    check = _one(greedy, "rtp_bounds")
    assert not check.passed and "3 coins" in check.detail and "1 coins" not in check.detail.split("out of bounds")[1]


def test_every_line_option_is_checked(dynasty: Game) -> None:
    check = _one(dynasty, "rtp_bounds")
    assert check.passed and "25 line option(s) × 4 coin option(s)" in check.detail


def test_awards_reachable(bench: Game) -> None:
    assert _one(bench, "awards_reachable").passed
    ghost = dataclasses.replace(bench, symbols=(*bench.symbols, Symbol("GHOST")),
                                line_pays=(*bench.line_pays, PayEntry("GHOST", ("GHOST",), ((5, (10_000,)),))))
    check = _one(ghost, "awards_reachable")
    assert not check.passed and "5 × GHOST" in check.detail


def test_award_odds_against_the_profile_limit() -> None:
    classic = load_game(CLASSIC)
    assert _one(classic, "award_odds").passed  # top award 1 in 314,364
    rs = classic.reel_set()
    assert rs.weights is not None
    # blanks weighted 1000 each: three WILDs (weight 1 per reel) become rarer than 1 in 100,000,000
    heavy = tuple(tuple(1000 if s == "BLANK" else w for s, w in zip(strip, ws, strict=True))
                  for strip, ws in zip(rs.strips, rs.weights, strict=True))
    rare = dataclasses.replace(classic, reel_sets=(dataclasses.replace(rs, weights=heavy),))
    check = _one(rare, "award_odds")
    assert not check.passed and "3 × WILD" in check.detail and "100,000,000" in check.detail
    # 1 in 983,040 per line for 5 × H1 passes GLI-11 and ANZ, and fails a 1-in-500,000 profile
    strict = dataclasses.replace(PROFILES["gli11"], odds_limit=500_000)
    check = run_checks(load_game(BENCH), strict, only=("award_odds",))[0]
    assert not check.passed and "5 × H1" in check.detail


def test_gamble_fair_and_limits(dynasty: Game) -> None:
    assert _one(dynasty, "gamble_fair").passed and _one(dynasty, "gamble_limits").passed
    unfair = Gamble(name="gamble", options=(GambleOption("colour", 2, Fraction(1, 2)),
                                            GambleOption("suit", 4, Fraction(6, 25))), max_gambles=5, limit=5000)
    check = _one(dynasty.with_features(unfair), "gamble_fair")
    assert not check.passed and "24/25" in check.detail
    six = dynasty.with_features(dataclasses.replace(_gamble(dynasty), max_gambles=6))
    check = _one(six, "gamble_limits")
    assert not check.passed and "6 gambles" in check.detail
    # a game without a gamble has no gamble findings at all
    assert run_checks(load_game(BENCH), only=("gamble_fair",)) == []


def test_features_terminate(dynasty: Game) -> None:
    ok = _one(dynasty, "features_terminate")
    assert ok.passed and "E[length]" in ok.detail
    # 200 extra spins per retrigger: m = 200 × P(3+ EMPEROR per free spin) > 1
    endless = dynasty.with_features(dataclasses.replace(_fs(dynasty), retriggers=((3, 200),)))
    check = _one(endless, "features_terminate")
    assert not check.passed and "never ends on average" in check.detail
    limited = endless.with_features(dataclasses.replace(_fs(endless), max_spins=500))
    assert _one(limited, "features_terminate").passed


def test_cap_applied_and_disclosed(bench: Game) -> None:
    assert run_checks(bench, only=("cap",)) == []  # no cap: nothing to apply or disclose
    capped = bench.with_features(Cap(name="cap", multiple=Fraction(100)))
    par = build_par(capped)
    assert par.distribution.max_win <= 100 * par.total_bet
    hidden = _one(capped, "cap")
    assert not hidden.passed and "not disclosed" in hidden.detail
    told = dataclasses.replace(capped, readings=(Reading("Max win", "A play pays at most 100 x bet (cap).", "Design."),))
    check = _one(told, "cap")
    assert check.passed and "applied" in check.detail
    # the declared RTP must be the one with the cap applied
    assert par.rtp.exact is not None and par.rtp.exact < component_rtp(bench).rtp()
    assert not _one(told, "declared_rtp").passed
    assert _one(dataclasses.replace(told, declared_rtp=par.rtp.exact), "declared_rtp").passed


def test_win_overflow(bench: Game, dynasty: Game) -> None:
    assert _one(bench, "win_overflow").passed
    assert _one(dynasty, "win_overflow").passed
    rich = dataclasses.replace(bench, bet=dataclasses.replace(bench.bet, coin_value=Fraction(10**15)))
    check = _one(rich, "win_overflow")
    assert not check.passed and "2⁶³" in check.detail


def test_cycle_64bit() -> None:
    classic = load_game(CLASSIC)
    assert _one(classic, "cycle_64bit").passed
    rs = classic.reel_set()
    assert rs.weights is not None
    huge = tuple(tuple(w * 2**30 for w in ws) for ws in rs.weights)
    big = dataclasses.replace(classic, reel_sets=(dataclasses.replace(rs, weights=huge),))
    assert big.reel_set().cycle > 2**63
    check = _one(big, "cycle_64bit")
    assert not check.passed and "too large" in check.detail
    assert _one(big, "hit_frequency").passed  # counted without enumeration when the cycle is that large


def test_hit_frequency(bench: Game) -> None:
    assert _one(bench, "hit_frequency").passed
    ghost = dataclasses.replace(bench, symbols=(*bench.symbols, Symbol("GHOST")),
                                line_pays=(PayEntry("GHOST", ("GHOST",), ((3, (5,)),)),), scatter_pays=())
    check = _one(ghost, "hit_frequency")
    assert not check.passed and "0.0000%" in check.detail


def test_free_spin_entry_is_an_award(dynasty: Game) -> None:
    never = dynasty.with_features(FreeSpins(name="free_spins", trigger="EMPEROR", awards=((6, 10),), reels="free",
                                            retriggers=((3, 10),), multiplier=2))
    check = _one(never, "awards_reachable")
    assert not check.passed and "free_spins (never entered)" in check.detail


def test_check_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", DYNASTY, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, list) and len(out) >= 8
    assert all(set(c) == {"name", "passed", "detail"} and c["passed"] for c in out)
    undeclared = tmp_path / "undeclared.toml"
    save_game(dataclasses.replace(load_game(BENCH), declared_rtp=None), undeclared)
    assert main(["check", str(undeclared), "--profile", "ukgc"]) == 1  # no declared RTP
    text = capsys.readouterr().out
    assert "FAIL  declared_rtp" in text and "UKGC" in text
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[symbols.A]\n')
    assert main(["check", str(bad)]) == 2
    assert "error:" in capsys.readouterr().err
