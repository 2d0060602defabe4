"""The bounds contract and located errors: every case of issue 13's list, at the API.

Each bad input must give a GameError (or ModelError) naming the file and the
field; each figure whose true value passes 64 bits must still be exact
(checked against the brute-force evaluator, which counts in Python integers).
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from brute import brute_force

from mathkit.errors import GameError, LimitError, ModelError
from mathkit.exact import spin
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.model.bounds import MAX_WIN, check_bet, limits
from mathkit.report.par import build_par
from mathkit.round import rtp_breakdown

# 3 reels × 1 row, strips "A B S" (S a scatter), one line: 27 outcomes.
BASE = """
name = "bounds"
paylines = [[0, 0, 0]]
{top}
[bet]
lines = 1
coins = {coins}
[symbols.A]
[symbols.B]
[symbols.S]
kind = "scatter"
[reels.base]
rows = {rows}
strips = ["A B S", "A B S", "A B S"]
{weights}
[paytable]
A = {{ 3 = {pay} }}
[scatter_pays]
S = {{ 3 = {scatter} }}
{extra}
"""


def game_text(*, top: str = "", coins: str = "[1]", rows: str = "1", weights: str = "", pay: str = "10",
              scatter: str = "2", extra: str = "") -> str:
    return BASE.format(top=top, coins=coins, rows=rows, weights=weights, pay=pay, scatter=scatter, extra=extra)


def refused(tmp_path: Path, text: str | bytes) -> GameError:
    """Load ``text`` from a file; the GameError, which must name the file and a field."""
    path = tmp_path / "g.toml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    with pytest.raises(GameError) as info:
        load_game(path)
    err = info.value
    assert err.path == str(path) and err.field, str(err)
    assert str(path) in str(err)
    return err


def test_the_base_game_is_valid_and_exact() -> None:
    # P(A A A) = 1/27 pays 10, P(S S S) = 1/27 pays 2 × 1: RTP = 12/27 = 4/9
    assert rtp_breakdown(loads_game(game_text())) == {"lines": Fraction(10, 27), "scatter": Fraction(2, 27)}


# --------------------------------------------------------------------------- tracebacks that became errors
def test_deeply_nested_arrays(tmp_path: Path) -> None:
    err = refused(tmp_path, game_text(extra="x = " + "[" * 5000 + "1" + "]" * 5000))
    assert "nested too deeply" in err.message and err.field == "scatter_pays.x"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", '"nan"'])
def test_nan_and_inf_in_a_number_field(tmp_path: Path, value: str) -> None:
    err = refused(tmp_path, game_text(top=f"declared_rtp = {value}"))
    assert err.field == "declared_rtp"


def test_a_huge_declared_rtp_does_not_overflow_its_own_message(tmp_path: Path) -> None:
    err = refused(tmp_path, game_text(top='declared_rtp = "1e400"'))
    assert err.field == "declared_rtp" and "too large" in err.message


@pytest.mark.parametrize(("change", "field"), [
    ({"pay": str(2**63)}, "paytable.A.3"),
    ({"scatter": str(2**63)}, "scatter_pays.S.3"),
    ({"weights": f"weights = [[1, 1, {2**63}], [1, 1, 1], [1, 1, 1]]"}, "reels.base.weights[0][2]"),
    ({"top": f"cap = {2**63}"}, "cap"),
    ({"extra": f'[cap]\ncoins = {2**62}'}, "cap.coins"),
    ({"extra": f'[free_spins]\ntrigger = "S"\nawards = {{ 3 = 5 }}\nreels = "base"\nmax_spins = {2**63}'},
     "free_spins.max_spins"),
    ({"rows": str(10**30)}, "reels.base.rows"),
    ({"coins": f"[{10**7}]"}, "bet.coins[0]"),
])
def test_integers_past_their_range_are_refused_on_load(tmp_path: Path, change: dict[str, str], field: str) -> None:
    err = refused(tmp_path, game_text(**change))
    assert err.field == field
    assert "must be at most" in err.message


def test_a_strip_too_long_is_refused_on_load(tmp_path: Path) -> None:
    long = " ".join(["A", "B", "S"] * 40_000)
    text = game_text().replace('strips = ["A B S", "A B S", "A B S"]', f'strips = ["{long}", "A B S", "A B S"]')
    err = refused(tmp_path, text)
    assert err.field == "reels.base.strips[0]" and "120,000 stops" in err.message


def test_an_enumeration_too_large_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3 reels of 30,000 stops: 2.7e13 outcomes.  The kernel groups the prefix stops that behave alike, so it
    # needs little (its estimate follows what it allocates: tests/test_par_fit.py), but its plan alone holds a
    # line code and four fields per suffix stop and per head stop: 8 × (30,000 + 30,000 × 5) bytes = 1.44 MB
    long = " ".join(["A", "B", "S"] * 10_000)
    game = loads_game(game_text().replace('strips = ["A B S", "A B S", "A B S"]',
                                          f'strips = ["{long}", "{long}", "{long}"]'), "long.toml")
    monkeypatch.setenv("MATHKIT_MAX_MEMORY", "1M")
    with pytest.raises(LimitError) as info:
        build_par(game)
    err = info.value
    assert err.path == "long.toml" and err.field == "reels.base"
    assert "of memory" in err.message and "MATHKIT_MAX_MEMORY" in err.fix and "simulat" in err.fix


# --------------------------------------------------------------------------- silent wrong answers that became errors
def test_one_outcome_past_2_53_credits_is_refused(tmp_path: Path) -> None:
    # a line pays 10 and 3 scatters 2^53 - 10 × total bet 1: one spin pays at most 2^53, the most a kernel
    # and a float hold exactly; at 2 coins it would pay twice that
    assert loads_game(game_text(scatter=str(MAX_WIN - 10)))
    err = refused(tmp_path, game_text(scatter=str(MAX_WIN - 10), coins="[1, 2]"))
    assert err.field == "scatter_pays.S.3" and "2⁵³" in err.message
    err = refused(tmp_path, game_text(pay=str(MAX_WIN // 2), top="", coins="[1, 3]"))
    assert err.field == "paytable.A.3"


def test_figures_past_64_bits_are_exact() -> None:
    # One win of 2^52 credits (3 scatters at 2^52 × bet 1) in a cycle of 27: Σ win² · count passes 2^104,
    # far beyond int64; σ², the max win and the hit frequency must equal the brute force's Python integers.
    game = loads_game(game_text(scatter=str(2**52)))
    s = spin(game)
    b = brute_force(game)
    assert s.win_distribution.variance() == b.variance()
    assert s.win_distribution.max_win == 2**52 == max(b.distribution)
    assert s.win_distribution.hit_frequency() == Fraction(sum(c for w, c in b.distribution.items() if w), 27)
    par = build_par(game)
    assert par.max_win.exact == 2**52
    assert par.rtp.exact == Fraction(10 + 2**52, 27)


def test_a_window_taller_than_its_strip_is_refused(tmp_path: Path) -> None:
    # every strip of the base game has 3 stops; a 4-row window names the first reel and the fix a designer applies
    err = refused(tmp_path, game_text(rows="4"))
    assert err.field == "reels.base.strips[0]"
    assert err.message == "reel 1 has 3 stops: a 4-row window would show a stop twice"
    assert err.fix == "reel 1 needs at least 4 stops for a 4-row window: add stops to it (or lower reels.base.rows)"


def test_weights_summing_past_2_62_are_refused(tmp_path: Path) -> None:
    w = 2**32 - 1
    err = refused(tmp_path, game_text(weights=f"weights = [[{w}, {w}, {w}], [{w}, {w}, {w}], [{w}, 1, 1]]"))
    assert err.field == "reels.base.weights" and "cycle" in err.message


# --------------------------------------------------------------------------- the bet at the API
@pytest.mark.parametrize(("lines", "coins", "field"), [(0, None, "lines"), (-1, None, "lines"), (2, None, "lines"),
                                                       (None, 0, "coins"), (None, -1, "coins"), (None, 4, "coins")])
def test_the_bet_is_checked_at_every_entry(lines: int | None, coins: int | None, field: str) -> None:
    game = loads_game(game_text(coins="[1, 2, 3]"), "g.toml")
    with pytest.raises(GameError) as info:
        build_par(game, lines=lines, coins=coins)
    assert info.value.field == field and info.value.path == "g.toml"
    with pytest.raises(GameError):
        check_bet(game, lines, coins)


# --------------------------------------------------------------------------- per-coin pay lists
def test_a_one_value_list_with_one_coin_option_is_paid_as_written(tmp_path: Path) -> None:
    # coins = [3]: "A = { 3 = [5000] }" is 5000 at the one coin option; "A = { 3 = 5000 }" is 5000 per coin
    listed = loads_game(game_text(coins="[3]", pay="[5000]", scatter="0"))
    per_coin = loads_game(game_text(coins="[3]", pay="5000", scatter="0"))
    assert listed.line_pays[0].pay(3, coins=3, coin_index=0) == 5000
    assert per_coin.line_pays[0].pay(3, coins=3, coin_index=0) == 15_000
    # P(A A A) = 1/27, total bet 3: RTP 5000 / 81 and 15000 / 81
    assert rtp_breakdown(listed)["lines"] == Fraction(5000, 81)
    assert rtp_breakdown(per_coin)["lines"] == Fraction(15_000, 81)
    assert brute_force(listed).rtp() == Fraction(5000, 81)
    row = next(e for e in build_par(listed).entries if e.entry == "A")
    assert row.pay == 5000
    # the list is written back as a list, the number as a number: the two stay apart
    assert tomllib.loads(dump_game(listed))["paytable"]["A"]["3"] == [5000]
    assert tomllib.loads(dump_game(per_coin))["paytable"]["A"]["3"] == 5000
    assert loads_game(dump_game(listed)) == listed
    assert loads_game(dump_game(per_coin)) == per_coin != listed


def test_a_list_of_the_wrong_length_names_the_fix(tmp_path: Path) -> None:
    err = refused(tmp_path, game_text(coins="[1, 2]", pay="[5, 10, 20]"))
    assert err.field == "paytable.A.3" and "one pay per coin option" in err.fix


def test_dynasty_is_unchanged() -> None:
    assert sum(rtp_breakdown(load_game("data/games/dynasty.toml")).values()) == Fraction(16727886585643,
                                                                                         17608262765184)


# --------------------------------------------------------------------------- errors carry location
def test_model_errors_name_the_file_and_the_feature(tmp_path: Path) -> None:
    # every free spin shows 3 S on 1-row reels "S S S": it always retriggers, the feature never ends
    text = game_text(extra='[free_spins]\ntrigger = "S"\nawards = { 3 = 5 }\nretriggers = { 3 = 5 }\nreels = "free"\n'
                           '[reels.free]\nrows = 1\nstrips = ["S S S", "S S S", "S S S"]')
    path = tmp_path / "never.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as info:
        rtp_breakdown(load_game(path))
    assert info.value.path == str(path) and info.value.field == "free_spins"
    assert "never ends" in str(info.value)


def test_a_top_level_key_after_a_table_gets_the_right_fix(tmp_path: Path) -> None:
    text = game_text(extra='[free_spins]\ntrigger = "S"\nawards = { 3 = 5 }\nreels = "base"\ncap = 5000')
    err = refused(tmp_path, text)
    assert err.field == "free_spins.cap"
    assert "top-level key" in err.fix and "above the first [table] header" in err.fix
    err = refused(tmp_path, game_text() + "cap = 5000\n")  # after [scatter_pays]: read as a scatter named cap
    assert err.field == "scatter_pays.cap" and "top-level key" in err.fix


def test_a_duplicate_key_names_the_key_and_both_lines(tmp_path: Path) -> None:
    err = refused(tmp_path, game_text() + "S = { 4 = 1 }\n")  # scatter_pays.S twice, at the end of the file
    assert err.field == "scatter_pays.S" and "written twice" in err.message
    last = (game_text() + "S = { 4 = 1 }\n").count("\n")
    assert f"line {last}" in err.message and "the first is at line" in err.fix


def test_toml_syntax_errors_name_line_column_and_key(tmp_path: Path) -> None:
    err = refused(tmp_path, game_text().replace("A = { 3 = 10 }", "A = { 3 = 10, }"))
    assert err.field == "paytable.A" and "line" in err.message and "column" in err.message


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    err = refused(tmp_path, game_text().encode().replace(b"[symbols.B]", b"[symbols.\xff]"))
    assert err.field.startswith("line ") and "UTF-8" in err.message


def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MATHKIT_MAX_MEMORY", "2G")
    monkeypatch.setenv("MATHKIT_MAX_SPINS", "1e6")
    assert limits().memory == 2 << 30 and limits().spins == 10**6
    monkeypatch.setenv("MATHKIT_MAX_WORK", "lots")
    with pytest.raises(GameError, match="MATHKIT_MAX_WORK"):
        limits()


def test_the_simulator_checks_the_bet_and_the_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    from mathkit.sim import simulate

    game = loads_game(game_text(coins="[1, 2]"), "g.toml")
    with pytest.raises(GameError) as info:
        simulate(game, 1000, seed=1, lines=0)
    assert info.value.field == "lines" and info.value.path == "g.toml"
    with pytest.raises(GameError, match="not a coin option"):
        simulate(game, 1000, seed=1, coins=3)
    monkeypatch.setenv("MATHKIT_MAX_SPINS", "1e6")
    with pytest.raises(LimitError) as limit:
        simulate(game, 10**7, seed=1)
    assert limit.value.field == "spins" and "MATHKIT_MAX_SPINS" in limit.value.fix


def test_a_file_too_large_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    with path.open("wb") as fh:
        fh.truncate(33 << 20)
    with pytest.raises(GameError) as info:
        load_game(path)
    assert info.value.field == "file" and "a game file may have" in info.value.message


def test_a_growing_free_games_distribution_past_the_work_limit_is_refused(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # A fuzz mutant of Prince of Riches (coins 3, TEN ×3 paying 5000) took 150 s of CPU in the growing free games'
    # distribution alone (the grid reaches the largest wins): its one banded solve per frequency, over 5 heights and
    # 256 spins, is now estimated first ((n_grid // 2 + 1) · 256 · 5 ≈ 1.11e9 steps) and refused by a 1e9 limit
    # (the fuzz workers'), naming the feature; the base enumeration (2.32e8) passes it, and so does the shipped game
    # (1.92e8 at its largest grid).
    from mathkit.round import analyse

    src = (Path(__file__).resolve().parents[1] / "data" / "games" / "prince_of_riches.toml").read_text(encoding="utf-8")
    text = src.replace("coins = [1]", "coins = [3]", 1).replace("TEN = { 3 = 6,", "TEN = { 3 = 5000,", 1)
    assert text != src
    (tmp_path / "p.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("MATHKIT_MAX_WORK", "1e9")
    with pytest.raises(LimitError) as info:
        analyse(load_game(tmp_path / "p.toml"), level="distribution")
    assert "the growing free games' win distribution needs about 1.11e+09 steps" in str(info.value)
    assert "free_games" in str(info.value)


def test_an_overlay_with_too_many_placements_is_refused_before_listing_them(tmp_path: Path) -> None:
    # fuzz case warlords:170: the overlay reels drawn 30 rows high. The Priestess Arrow overlay puts 4 wilds on any
    # cells of 5 reels × 30 rows: C(150, 4) = 150·149·148·147/24 = 20,260,275 placements (plus those of its other counts), each listed as
    # a tuple — the worker reached 4 GiB. They are now counted first and refused by the memory limit, naming the
    # overlay; Warlords as shipped (3 rows: a few thousand placements) is analysed in every Warlords test.
    import math

    from mathkit.round import analyse

    src = (Path(__file__).resolve().parents[1] / "data" / "games" / "warlords.toml").read_text(encoding="utf-8")
    head, rest = src.split("[reels.overlay]", 1)
    (tmp_path / "w.toml").write_text(head + "[reels.overlay]" + rest.replace("rows = 3", "rows = 30", 1),
                                     encoding="utf-8")
    assert math.comb(150, 4) == 20_260_275
    with pytest.raises(LimitError) as info:
        analyse(load_game(tmp_path / "w.toml"), level="mean")
    assert "the Priestess Arrow overlay's" in str(info.value) and "placements of its wilds on 150 cells" in str(info.value)
    assert info.value.field == "overlay_wilds.types"
