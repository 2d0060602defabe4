"""Game files: every mistake a designer can make gets a located, actionable error; saves round-trip."""

from __future__ import annotations

import dataclasses
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
import tomli_w

from mathkit.errors import GameError
from mathkit.gamefile.io import dump_game, game_from_dict, load_game, loads_game, save_game

GAMES = sorted(Path("data/games").rglob("*.toml"))
TINY = """
name = "tiny"
paylines = [[0, 0, 0], [1, 1, 1]]
[bet]
lines = 2
coins = [1, 2]
[symbols.W]
kind = "wild"
reels = [2]
multiplier = 2
[symbols.S]
kind = "scatter"
[symbols.A]
[symbols.B]
[reels.base]
rows = 2
strips = ["A B S", "A W B", "B A S"]
[paytable]
A = { 3 = 10 }
B = { 2 = 1, 3 = [5, 12] }
[scatter_pays]
S = { 2 = 3 }
"""


def tiny() -> dict:
    return tomllib.loads(TINY)


def err(data: dict) -> GameError:
    with pytest.raises(GameError) as exc:
        game_from_dict(data)
    return exc.value


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_every_shipped_game_round_trips(path: Path, tmp_path: Path) -> None:
    game = load_game(path)
    out = save_game(game, tmp_path / path.name)
    assert load_game(out) == game
    assert loads_game(dump_game(game)) == game


def test_tiny_loads() -> None:
    g = game_from_dict(tiny())
    assert g.symbol("W").substitutes == ("A", "B")
    assert g.reel_set().cycle == 27
    assert g.line_pays[1].pay(3, coins=2, coin_index=1) == 12


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (lambda d: d["reels"]["base"]["strips"].__setitem__(2, "B A Q"), "reels.base.strips[2][2]", "unknown symbol 'Q'"),
        (lambda d: d["reels"]["base"]["strips"].__setitem__(0, "A W S"), "reels.base.strips[0][1]", "may not appear"),
        (lambda d: d["reels"]["base"].__setitem__("strips", ["A B", "A B"]), "paylines[0]", "2 reels"),
        (lambda d: d["reels"]["base"].__setitem__("weights", [[1, 1, 1], [1, 0, 1], [1, 1, 1]]),
         "reels.base.weights[1][1]", "not positive"),
        (lambda d: d["reels"]["base"].__setitem__("weights", [[1, 1, 1], [1, -2, 1], [1, 1, 1]]),
         "reels.base.weights[1][1]", "not positive"),
        (lambda d: d["reels"]["base"].__setitem__("weights", [[1, 1], [1, 1, 1], [1, 1, 1]]),
         "reels.base.weights[0]", "2 weights for 3 stops"),
        (lambda d: d.__setitem__("paylines", [[0, 0, 0], [0, 2, 0]]), "paylines[1][1]", "outside reel 2"),
        (lambda d: d.__setitem__("paylines", [[0, 0, 0], [0, 0, 0]]), "paylines[1]", "same rows"),
        (lambda d: d["paytable"].__setitem__("A", {"3": 2.5}), "paytable.A.3", "expected an integer"),
        (lambda d: d["paytable"].__setitem__("A", {"3": -1}), "paytable.A.3", "at least 0"),
        (lambda d: d["paytable"].__setitem__("A", {"x": 1}), "paytable.A.x", "not a whole number"),
        (lambda d: d["paytable"].__setitem__("A", {"4": 1}), "paytable.A.4", "4 of a kind on 3 reels"),
        (lambda d: d["paytable"].__setitem__("Z", {"3": 1}), "paytable.Z", "unknown symbol 'Z'"),
        (lambda d: d["paytable"].__setitem__("S", {"3": 1}), "paytable.S", "is a scatter"),
        (lambda d: d["paytable"].__setitem__("W", {"3": 1}), "paytable.W", "without pays of its own"),
        (lambda d: d["paytable"].__setitem__("B", {"3": [1, 2, 3]}), "paytable.B.3", "3 per-coin pays"),
        (lambda d: d["scatter_pays"].__setitem__("A", {"3": 1}), "scatter_pays.A", "not a scatter"),
        (lambda d: d["symbols"]["W"].__setitem__("substitutes", ["S"]), "symbols.W.substitutes", "scatter"),
        (lambda d: d["symbols"]["W"].__setitem__("substitutes", ["A", "X"]), "symbols.W.substitutes", "unknown"),
        (lambda d: d["symbols"]["W"].__setitem__("reels", [7]), "symbols.W.reels", "reel 7 does not exist"),
        (lambda d: d["symbols"]["A"].__setitem__("kind", "wlid"), "symbols.A.kind", "did you mean 'wild'"),
        (lambda d: d["symbols"]["S"].__setitem__("multiplier", 2), "symbols.S.multiplier", "only applies to wild"),
        (lambda d: d["symbols"]["A"].__setitem__("multiplier", 0), "symbols.A.multiplier", "at least 1"),
        (lambda d: d["paytable"].__setitem__("A", {"3": 1, "flat": 1}), "paytable.A.flat", "expected"),
        (lambda d: d.__setitem__("scatter_unit", "line"), "scatter_unit", "unknown scatter pay unit"),
        (lambda d: d.__setitem__("paytabel", {}), "paytabel", "did you mean 'paytable'"),
        (lambda d: d["bet"].__setitem__("lines", 3), "bet.lines", "only 2 paylines"),
        (lambda d: d["bet"].__setitem__("coins", [1, 1]), "bet.coins", "listed twice"),
        (lambda d: d.__setitem__("default_reels", "free"), "default_reels", "no reel set 'free'"),
        (lambda d: d["reels"]["base"].__setitem__("rows", [2, 2]), "reels.base.rows", "2 row counts for 3 reels"),
        (lambda d: d["reels"]["base"].__setitem__("rows", 0), "reels.base.rows", "at least 1"),
        (lambda d: d.__setitem__("pay_mode", "ways"), "paylines", "a ways game has no paylines"),
        (lambda d: d.__setitem__("declared_rtp", 95), "declared_rtp", "0.95"),
        (lambda d: d.__setitem__("free_spins", {"trigger": "A", "awards": {"3": 10}, "reels": "base"}),
         "free_spins.trigger", "not a scatter"),
        (lambda d: d.__setitem__("free_spins", {"trigger": "S", "awards": {"3": 10}, "reels": "fs"}),
         "free_spins.reels", "no reel set 'fs'"),
        (lambda d: d.__setitem__("gamble", {"options": [{"name": "c", "multiplier": 2, "p": "3/2"}], "limit": 5}),
         "gamble.options[0].p", "outside (0, 1]"),
        (lambda d: d["reels"].__setitem__("free", {"strips": ["A", "A"]}), "reels.free.strips", "2 reels"),
        (lambda d: d["reels"]["base"]["strips"].__setitem__(1, ""), "reels.base.strips[1]", "empty strip"),
    ],
)
def test_located_errors(mutate, field: str, words: str) -> None:
    data = tiny()
    mutate(data)
    e = err(data)
    assert e.field == field, str(e)
    assert words in str(e), str(e)


def test_error_names_file_and_fix(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.replace('"B A S"', '"B A SS"'))
    with pytest.raises(GameError) as exc:
        load_game(bad)
    msg = str(exc.value)
    assert msg.startswith(str(bad)) and "reels.base.strips[2][2]" in msg and "fix: use a declared symbol" in msg


def test_toml_syntax_error_is_a_game_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text('name = "x\n')
    with pytest.raises(GameError, match="not valid TOML"):
        load_game(bad)


def test_missing_file() -> None:
    with pytest.raises(GameError, match="no such file"):
        load_game("data/games/does_not_exist.toml")


def test_save_refuses_overwrite_and_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = game_from_dict(tiny())
    path = save_game(g, tmp_path / "g.toml")
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        save_game(g, path)
    # a crash while writing leaves the old file whole and no temporary behind
    import mathkit.gamefile.io as mio

    def boom(*args: object, **kwargs: object) -> None:
        msg = "disk full"
        raise OSError(msg)

    monkeypatch.setattr(mio.os, "replace", boom)
    g2 = dataclasses.replace(g, name="changed")
    with pytest.raises(OSError, match="disk full"):
        save_game(g2, path, overwrite=True)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.toml"]


def test_save_validates_before_writing(tmp_path: Path) -> None:
    g = game_from_dict(tiny())
    broken = dataclasses.replace(g, paylines=((0, 0, 5), *g.paylines[1:]))
    with pytest.raises(GameError, match=r"paylines\[0\]\[2\]"):
        save_game(broken, tmp_path / "x.toml")
    assert not (tmp_path / "x.toml").exists()


def test_strip_forms_equal() -> None:
    a = tiny()
    b = tiny()
    b["reels"]["base"]["strips"] = [s.split() for s in a["reels"]["base"]["strips"]]
    assert game_from_dict(a) == game_from_dict(b)


def test_dump_is_plain_data() -> None:
    text = dump_game(game_from_dict(tiny()))
    assert tomllib.loads(text)["symbols"]["W"]["substitutes"] == "all"
    assert tomli_w.dumps(tomllib.loads(text)) == text


def test_bonus_symbols_carry_a_value_and_a_mark() -> None:
    from fractions import Fraction

    text = Path("data/games/classic_3reel.toml").read_text(encoding="utf-8")
    extra = '\n[symbols.CASH]\nkind = "bonus"\nvalue = "5/2"\n\n[symbols.TARGET]\nkind = "bonus"\nmark = "jackpot"\n'
    at = text.index("[reels.")
    game = loads_game(text[:at] + extra + text[at:])
    cash, target = game.symbol("CASH"), game.symbol("TARGET")
    assert (cash.value, cash.mark, target.value, target.mark) == (Fraction(5, 2), "", None, "jackpot")
    assert loads_game(dump_game(game)) == game
    with pytest.raises(GameError, match=r"symbols\.CASH\.value") as info:
        loads_game(text[:at] + extra.replace('"5/2"', "0") + text[at:])
    assert "not positive" in str(info.value)
    with pytest.raises(GameError, match=r"symbols\.X\.mark") as info:
        loads_game(text[:at] + '\n[symbols.X]\nmark = "jackpot"\n' + text[at:])
    assert "only applies to bonus symbols" in str(info.value)


def test_a_saved_game_restates_its_declared_rtp_in_the_comments(tmp_path: Path) -> None:
    # Dynasty's header says "95.00% ± 0.005 pp" (its declared RTP); saved at 94%, the comment says 94.00%,
    # and nothing else changes but the value itself
    src = Path(__file__).resolve().parents[1] / "data" / "games" / "dynasty.toml"
    game = load_game(src)
    assert game.declared_rtp == Fraction(95, 100)
    out = save_game(dataclasses.replace(game, declared_rtp=Fraction(94, 100)), tmp_path / "d94.toml", template=src)
    before, after = src.read_text(encoding="utf-8").splitlines(), out.read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 2
    assert changed[0][0].startswith("# spins) is 95.00% ± 0.005 pp.")
    assert changed[0][1] == changed[0][0].replace("95.00%", "94.00%")
    assert changed[1][1] == "declared_rtp = 0.94"
