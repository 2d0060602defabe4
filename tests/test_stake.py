"""Stake Engine files (mathkit export --stake): the table by hand, witnesses that replay, the RGS's checks."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import zstandard
from brute import brute_force, brute_window

from mathkit.cli import main
from mathkit.cli.export import cli
from mathkit.export.stake import MAX_WEIGHT_SUM, stake_mode, stake_table, table_text, write_stake
from mathkit.export.stake_verify import payout_md5, stake_problems, verify_stake
from mathkit.gamefile.io import load_game, loads_game
from mathkit.laws.law import WinLaw
from mathkit.round.compose import analyse
from mathkit.sim.run import simulate

# The toy: 3 reels of 1 row, one line, 1 credit a spin.  Reel 1: A A B C, reel 2: A B C, reel 3: A B
# (24 stop combinations, each of weight 1).  Pays: A A (2 from the left) 2 credits, A A A 3, B B B 5.
TOY = """
name = "stake toy"
paylines = [[0, 0, 0]]

[bet]
lines = 1
coins = [1]

[symbols.A]
[symbols.B]
[symbols.C]

[reels.base]
rows = 1
strips = ["A A B C", "A B C", "A B"]

[paytable]
A = { 2 = 2, 3 = 3 }
B = { 3 = 5 }
"""


def _toy():
    return loads_game(TOY, "toy.toml")


def _books(folder: Path, mode: str = "base") -> list[dict]:
    with (folder / f"books_{mode}.jsonl.zst").open("rb") as f:
        text = zstandard.ZstdDecompressor().stream_reader(f).read().decode("utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _rows(folder: Path, mode: str = "base") -> list[tuple[int, int, int]]:
    lines = (folder / f"lookUpTable_{mode}_0.csv").read_text(encoding="ascii").splitlines()
    return [tuple(int(x) for x in line.split(",")) for line in lines]  # type: ignore[misc]


def _export(game, folder: Path, **kw) -> None:
    a = analyse(game)
    assert a.law is not None
    write_stake(game, folder, [stake_mode(game, a.law, a.rtp(), **kw)])


def test_toy_table_row_by_row(tmp_path: Path) -> None:
    # By hand: A A A: reel 1 shows A on 2 stops, reels 2, 3 on 1 each: 2 combinations, 3 credits = 3× bet → 300.
    # A A then B on reel 3: 2 combinations, 2 credits → 200.  B B B: 1 · 1 · 1 = 1 combination, 5 credits → 500.
    # The other 24 − 5 = 19 pay 0.  Witnesses: 2 per payout where it has 2 combinations, the payout's weight
    # split between them (19 → 10 + 9, 2 → 1 + 1); B B B has one combination, so one row.
    _export(_toy(), tmp_path, witnesses=2)
    assert _rows(tmp_path) == [(1, 10, 0), (2, 9, 0), (3, 1, 200), (4, 1, 200), (5, 1, 300), (6, 1, 300),
                               (7, 1, 500)]
    assert (tmp_path / "lookUpTable_base_0.csv").read_text(encoding="ascii").startswith("1,10,0\n")
    assert json.loads((tmp_path / "index.json").read_text()) == {"modes": [
        {"name": "base", "cost": 1.0, "events": "books_base.jsonl.zst", "weights": "lookUpTable_base_0.csv"}]}
    books = _books(tmp_path)
    assert [(b["id"], b["payoutMultiplier"]) for b in books] == [(i, p) for i, _, p in _rows(tmp_path)]
    # the two witnesses of a payout are distinct rounds; B B B's one is reels 1-3 at stops 2, 1, 1
    for a, b in ((0, 1), (2, 3), (4, 5)):
        assert books[a]["events"][0]["stops"] != books[b]["events"][0]["stops"]
    assert books[6]["events"][0]["stops"] == [2, 1, 1]
    # one witness a row: the table's RTP is the exact one, 15/24
    rows = _rows(tmp_path)
    assert Fraction(sum(w * p for _, w, p in rows), 100 * sum(w for _, w, _ in rows)) == Fraction(15, 24)


def test_table_of_a_law_by_hand() -> None:
    # 1 credit a bet (unit 4 credits per bet: a win of 1 credit is 0.25×, off the 0.1× grid): split between 0.2×
    # (weight ∝ 30 − 25 = 5) and 0.3× (∝ 25 − 20 = 5); every weight × 10·unit = 40, then ÷ their gcd 20.
    t = stake_table(WinLaw.from_counts([0, 1, 10], [2, 1, 1], unit=4))
    assert (t.payouts, t.weights) == ((0, 20, 30, 250), (4, 1, 1, 2))
    assert t.table_rtp == Fraction(11, 4 * 4)  # (1 + 10) / 4 spins / 4 credits a bet, unchanged
    # nearest rounding would pay 0.3× (0.25 is a tie, rounded up): +0.05× with probability 1/4
    assert t.rounding_shift == pytest.approx(0.05 / 4)
    # a win of 0.27× (27 credits of a 100-credit bet) goes 3/10 to 0.2×, 7/10 to 0.3×
    t = stake_table(WinLaw.from_counts([0, 27, 100], [1, 1, 1], unit=100))
    assert dict(zip(t.payouts, t.weights, strict=True)) == {0: 10, 20: 3, 30: 7, 100: 10}
    assert t.table_rtp == Fraction(127, 300)


def test_weights_beyond_uint64_are_rescaled_honestly() -> None:
    # counts of total 3·2^61, a bet of 3 credits: the split's common factor 10·3 takes the total past 2^64 − 1,
    # so the weights are rescaled to a total of 2^63
    counts = [2**61, 2**61, 2**61 - 1, 1]
    law = WinLaw.from_counts([0, 1, 3, 30_000], counts, unit=3)
    t = stake_table(law)
    assert sum(t.weights) <= MAX_WEIGHT_SUM and not t.exact
    assert abs(float(t.table_rtp) - float(law.rtp())) < 1e-12
    assert t.dropped_mass == pytest.approx(0.0, abs=1e-18)  # the 1-in-7e18 row keeps a weight of 1
    assert t.payouts == (0, 30, 40, 100, 1_000_000)  # 1 credit of 3 is 0.333×: split between 0.3× and 0.4×


def test_float_law_weights_and_rtp() -> None:
    law = WinLaw.from_probs([0, 10, 20, 50], [0.5, 0.25, 0.25 - 1e-30, 1e-30], unit=10, lost_mass=0.0)
    t = stake_table(law)
    assert not t.exact and sum(t.weights) <= MAX_WEIGHT_SUM
    assert t.payouts == (0, 100, 200)  # 1e-30 is below one part in 2^63: dropped, and reported
    assert t.dropped_mass == pytest.approx(1e-30)
    assert abs(float(t.table_rtp) - 0.75) < 1e-15


def test_dynasty_table_rtp_is_the_exact_rtp() -> None:
    g = load_game("data/games/dynasty.toml")
    a = analyse(g, parallel=True, sections=False)
    assert a.law is not None
    t = stake_table(a.law)
    assert abs(float(t.table_rtp - Fraction(a.rtp()))) < 1e-6
    assert sum(t.weights) <= MAX_WEIGHT_SUM and all(p % 10 == 0 for p in t.payouts)
    assert t.dropped_mass < 1e-12


@pytest.mark.parametrize("path", ["data/games/classic_3reel.toml", "data/games/classic/line_bet_scatters.toml",
                                  "data/games/classic/double_sevens.toml"])
def test_every_witness_replays(tmp_path: Path, path: str) -> None:
    g = load_game(path)
    _export(g, tmp_path)
    rs = g.reel_set(None)
    unit = g.bet.total_bet(g.bet.lines, g.bet.coins[0])
    books = _books(tmp_path)
    by_payout: dict[int, set[tuple[int, ...]]] = {}
    split = 0
    for b in books:
        reveal = b["events"][0]
        assert reveal["type"] == "reveal"
        stops = reveal["stops"]
        window = tuple(tuple(strip[(s + k) % len(strip)] for k in range(rs.rows[r]))
                       for r, (strip, s) in enumerate(zip(rs.strips, stops, strict=True)))
        assert [[c["name"] for c in col] for col in reveal["board"]] == [list(c) for c in window]
        # paid again by the brute force's rules (tests/brute.py), not mathkit's
        credits = brute_window(g, window)
        x = Fraction(100 * credits, unit)
        total = b["events"][-2]
        assert total["type"] == "setTotalWin" and total["amount"] == b["payoutMultiplier"]
        if x.denominator == 1 and x % 10 == 0:
            assert x == b["payoutMultiplier"] and "roundedFrom" not in total
        else:  # off the 0.1× grid: the row is one of the two grid neighbours the win was split between
            assert b["payoutMultiplier"] in (10 * (x // 10), 10 * (x // 10) + 10)
            assert Fraction(total["roundedFrom"]) == x
        assert b["events"][-1] == {"index": len(b["events"]) - 1, "type": "finalWin", "amount": b["payoutMultiplier"]}
        by_payout.setdefault(b["payoutMultiplier"], set()).add(tuple(stops))
        split += "roundedFrom" in total
    assert split > 0 or path != "data/games/classic/line_bet_scatters.toml"  # its wins off the grid are witnessed
    # where a payout has two stop combinations, two distinct witnesses
    combos: dict[int, int] = {}
    for stops in np.ndindex(*(len(s) for s in rs.strips)) if len(books) < 60 else ():
        window = tuple(tuple(strip[(s + k) % len(strip)] for k in range(rs.rows[r]))
                       for r, (strip, s) in enumerate(zip(rs.strips, stops, strict=True)))
        p = 100 * brute_window(g, window) // unit
        combos[p] = combos.get(p, 0) + 1
    for p, n in combos.items():
        assert len(by_payout[p]) == min(n, 2)


def test_witnesses_replay_in_the_simulator(tmp_path: Path) -> None:
    # one row a reel: a game whose strips are the witness's symbols, one stop each, plays only that window
    g = load_game("data/games/classic_3reel.toml")
    _export(g, tmp_path)
    unit = g.bet.total_bet(g.bet.lines, g.bet.coins[0])
    for b in _books(tmp_path)[::3]:
        board = b["events"][0]["board"]
        strips = ", ".join('"' + col[0]["name"] + '"' for col in board)
        text = (Path("data/games/classic_3reel.toml").read_text(encoding="utf-8")
                .split("[reels.base]")[0] + f"[reels.base]\nrows = 1\nstrips = [{strips}]\n[paytable]"
                + Path("data/games/classic_3reel.toml").read_text(encoding="utf-8").split("[paytable]")[1])
        one = loads_game(text, "one.toml")
        res = simulate(one, 16, seed=1)
        assert Fraction(100 * res.sums["paid"], 16 * unit) == b["payoutMultiplier"]


def test_brute_distribution_matches_the_table(tmp_path: Path) -> None:
    g = load_game("data/games/classic/double_sevens.toml")
    _export(g, tmp_path, witnesses=1)
    bf = brute_force(g)
    want: dict[int, int] = {}
    for credits, w in bf.distribution.items():
        want[100 * credits // bf.total_bet] = want.get(100 * credits // bf.total_bet, 0) + w
    rows = _rows(tmp_path)
    total = sum(w for _, w, _ in rows)
    for _, w, p in rows:
        assert Fraction(w, total) == Fraction(want[p], bf.cycle)


# ----------------------------------------------------------------------------- the verifier's planted faults
@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stake") / "good"
    _export(_toy(), folder)
    return folder


def _copy(good: Path, tmp_path: Path) -> Path:
    out = tmp_path / "f"
    shutil.copytree(good, out)
    return out


def _rewrite_books(folder: Path, books: list[dict], raw: list[str] | None = None) -> None:
    text = "".join(line + "\n" for line in (raw if raw is not None else [json.dumps(b) for b in books]))
    (folder / "books_base.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(text.encode()))


def test_the_good_export_passes(good: Path) -> None:
    problems, checks = stake_problems(good)
    assert problems == []
    assert checks[0].rows == 7 and checks[0].distinct == 4 and checks[0].weight_sum == 24
    assert checks[0].md5 == payout_md5([0, 0, 200, 200, 300, 300, 500])


def _fault(folder: Path, needle: str) -> None:
    problems, _ = stake_problems(folder)
    assert any(needle in p for p in problems), problems
    with pytest.raises(Exception, match="RGS"):
        verify_stake(folder)


def test_rejects_a_payout_not_a_multiple_of_10(good: Path, tmp_path: Path) -> None:
    f = _copy(good, tmp_path)
    rows = _rows(f)
    rows[2] = (3, 1, 205)
    (f / "lookUpTable_base_0.csv").write_text(table_text(rows), encoding="ascii")
    books = _books(f)
    books[2]["payoutMultiplier"] = 205
    _rewrite_books(f, books)
    _fault(f, "payout 205 is not a multiple of 10")


def test_rejects_a_weight_sum_overflow(good: Path, tmp_path: Path) -> None:
    f = _copy(good, tmp_path)
    rows = _rows(f)
    rows[0] = (1, 2**64 - 10, 0)  # each below 2^64, the sum above
    (f / "lookUpTable_base_0.csv").write_text(table_text(rows), encoding="ascii")
    _fault(f, "above 2^64 - 1")


def test_rejects_a_book_payout_changed(good: Path, tmp_path: Path) -> None:
    f = _copy(good, tmp_path)
    books = _books(f)
    books[4]["payoutMultiplier"] = 310
    _rewrite_books(f, books)
    _fault(f, "md5 of the books' payouts")


@pytest.mark.parametrize(("fault", "needle"), [
    ("float", "not a non-negative JSON integer"),
    ("header", "not three plain unsigned integers"),
    ("decimal", "not three plain unsigned integers"),
    ("missing", "books for 7 table rows"),
    ("order", "has id 4, the table's row 3 id 3"),
    ("key", "missing events"),
    ("index", "does not exist"),
    ("two", "distinct payouts"),
])
def test_rejects_other_faults(good: Path, tmp_path: Path, fault: str, needle: str) -> None:
    f = _copy(good, tmp_path)
    books = _books(f)
    lut = f / "lookUpTable_base_0.csv"
    if fault == "float":
        raw = [json.dumps(b) for b in books]
        raw[2] = raw[2].replace('"payoutMultiplier": 200', '"payoutMultiplier": 200.0')
        _rewrite_books(f, books, raw)
    elif fault == "header":
        lut.write_text("id,weight,payoutMultiplier\n" + lut.read_text())
    elif fault == "decimal":
        lut.write_text(lut.read_text().replace("1,10,0\n", "1,10.0,0\n"))
    elif fault == "missing":
        _rewrite_books(f, books[:-1])
    elif fault == "order":
        books[2], books[3] = books[3], books[2]
        _rewrite_books(f, books)
    elif fault == "key":
        del books[0]["events"]
        _rewrite_books(f, books)
    elif fault == "index":
        (f / "index.json").write_text(json.dumps({"modes": [
            {"name": "base", "cost": 1.0, "events": "books_base.jsonl.zst", "weights": "lookUpTable_bonus_0.csv"}]}))
    elif fault == "two":
        rows = [(1, 5, 0), (2, 5, 100)]
        lut.write_text(table_text(rows))
        _rewrite_books(f, [{"id": i, "payoutMultiplier": p, "events": []} for i, _, p in rows])
    _fault(f, needle)


# ----------------------------------------------------------------------------- the command line
def test_cli_stake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c3"
    assert cli(["data/games/classic_3reel.toml", "--stake", str(out)]) == 0
    text = capsys.readouterr().out
    assert "table RTP 0.862830986, exact 0.862830986 (gap 0.00e+00)" in text
    verify_stake(out)
    # written again: refused without --force, then replaced with it
    assert cli(["data/games/classic_3reel.toml", "--stake", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert cli(["data/games/classic_3reel.toml", "--stake", str(out), "--force", "--witnesses", "1"]) == 0
    assert len(_rows(out)) == len({p for _, _, p in _rows(out)})


@pytest.mark.parametrize("argv", [["--witnesses", "0"], ["--witnesses", "17"], ["--witness-draws", "0"]])
def test_cli_stake_bad_flags(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli(["data/games/classic_3reel.toml", "--stake", str(tmp_path / "x"), *argv])
    assert e.value.code == 2
    assert "witness" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_stake_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("")
    assert cli(["data/games/classic_3reel.toml", "--stake", str(tmp_path / "f")]) == 2
    assert "not a folder" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the witnesses' law
WEIGHTED = TOY.replace('strips = ["A A B C", "A B C", "A B"]',
                       'strips = ["A A B C", "A B C", "A B"]\nweights = [[1, 3, 1, 1], [1, 1, 1], [1, 1]]')


def test_enumerated_witnesses_follow_the_weights() -> None:
    # A A A: reel 1's A stops have weights 1 and 3, so a witness drawn from the law given the win is
    # the stop-1 combination with probability 3/4; 400 draws (a seed each): 300 expected, σ = √75 ≈ 8.7
    from mathkit.export.witness import BaseWitnesses

    g = loads_game(WEIGHTED, "weighted.toml")
    law = analyse(g).law
    assert law is not None
    picks = [BaseWitnesses.for_game(g, reels=None, lines=None, coins=None, law=law, seed=s, draws=0,
                                    want=1).found[3][0][0] for s in range(400)]
    assert set(picks) == {0, 1}
    assert abs(picks.count(1) - 300) < 4 * 75**0.5


def test_sampled_witnesses_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mathkit.export.witness as witness

    monkeypatch.setattr(witness, "ENUMERATE_WORK", 0)  # the rejection sampler, as for a large game
    g = loads_game(WEIGHTED, "weighted.toml")
    a = analyse(g)
    assert a.law is not None
    m = stake_mode(g, a.law, a.rtp(), draws=20_000, seed=3)
    assert m.witness_method.startswith("rejection sampling") and m.unwitnessed == 0
    write_stake(g, tmp_path, [m])
    rs = g.reel_set(None)
    for b in _books(tmp_path):
        stops = b["events"][0]["stops"]
        window = tuple((strip[s],) for strip, s in zip(rs.strips, stops, strict=True))
        assert 100 * brute_window(g, window) == b["payoutMultiplier"]
    # the payouts keep their exact weights, split between their witnesses: the RTP is the exact one
    rows = _rows(tmp_path)
    assert Fraction(sum(w * p for _, w, p in rows), 100 * sum(w for _, w, _ in rows)) == a.rtp()


def test_cli_stake_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["data/games/classic/double_sevens.toml", "--stake", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    mode = out["modes"][0]
    assert mode["name"] == "base" and mode["rtp_gap"] == 0.0 and mode["unwitnessed_rows"] == 0
    assert int(mode["weight_sum"]) == sum(w for _, w, _ in _rows(tmp_path))
    assert out["files"] == ["lookUpTable_base_0.csv", "books_base.jsonl.zst", "index.json"]


def test_ways_witnesses_show_their_cells(tmp_path: Path) -> None:
    # 3 reels × 2 rows, ways; A A A pays 1 credit per way, the bet 1 credit (one 'line' of ways)
    text = TOY.replace('paylines = [[0, 0, 0]]', 'pay_mode = "ways"').replace("rows = 1", "rows = 2").replace(
        "[paytable]\nA = { 2 = 2, 3 = 3 }\nB = { 3 = 5 }", "[paytable]\nA = { 3 = 1 }\nB = { 3 = 2 }")
    g = loads_game(text, "ways.toml")
    _export(g, tmp_path, witnesses=16)
    rs = g.reel_set(None)
    unit = g.bet.total_bet(g.bet.lines, g.bet.coins[0])
    most = 0
    for b in _books(tmp_path):
        stops = b["events"][0]["stops"]
        window = tuple(tuple(strip[(s + k) % len(strip)] for k in range(2))
                       for strip, s in zip(rs.strips, stops, strict=True))
        assert Fraction(100 * brute_window(g, window), unit) == b["payoutMultiplier"]
        for ev in b["events"]:
            for win in ev.get("wins", ()):
                # the cells are exactly those showing the symbol on the first `kind` reels, and their
                # count per reel multiplies to the ways
                cells = {(c["reel"], c["row"]) for c in win["positions"]}
                want = {(r, k) for r in range(win["kind"]) for k in range(2) if window[r][k] == win["symbol"]}
                assert cells == want
                per = [sum(1 for c in cells if c[0] == r) for r in range(win["kind"])]
                assert int(np.prod(per)) == win["meta"]["ways"]
                most = max(most, win["meta"]["ways"])
    assert most >= 2  # reel 1 shows A A on two stops


def test_every_bet_mode_gets_its_table_at_its_rtp_by_hand(tmp_path: Path) -> None:
    """The modes toy (tests/test_modes.py derives it by hand): base 29/27, ante 416/135 at cost 5/4, buy 3/8 at cost 10
    whose round pays 1, 9 or 5 + 8j (j ~ Binomial(4, 1/8)) base bets, capped at 20 in ``buy_capped``.  Each table's RTP
    (Σ weight × payout / (100 × cost × Σ weight), read from the CSV here) is the hand figure within 1e-9; the payouts
    are the hand values × 100; ``index.json`` lists every mode with its cost; ``--mode`` picks some."""
    import csv as _csv
    import json as _json

    out = tmp_path / "stake"
    main(["export", "tests/data/modes_toy.toml", "--stake", str(out)])  # exit 1: the feature rounds have no witness
    index = _json.loads((out / "index.json").read_text())
    costs = {m["name"]: m["cost"] for m in index["modes"]}
    assert costs == {"base": 1.0, "ante": 1.25, "buy": 10.0, "buy_capped": 10.0}
    hand = {"base": Fraction(29, 27), "ante": Fraction(416, 135), "buy": Fraction(3, 8),
            "buy_capped": (Fraction(15, 4) - Fraction(563, 16384)) / 10}
    for name, rtp in hand.items():
        rows = [(int(w), int(p)) for _, w, p in _csv.reader((out / f"lookUpTable_{name}_0.csv").open())]
        got = Fraction(sum(w * p for w, p in rows), 100 * sum(w for w, _ in rows)) / Fraction(costs[name])
        assert abs(got - rtp) < Fraction(1, 10**9), name
        if name == "buy":
            assert {p for w, p in rows if w} == {100, 900, *(100 * (5 + 8 * j) for j in range(5))}
        if name == "buy_capped":
            assert max(p for w, p in rows if w) == 2000
    only = tmp_path / "only"
    main(["export", "tests/data/modes_toy.toml", "--stake", str(only), "--mode", "ante"])
    assert [m["name"] for m in _json.loads((only / "index.json").read_text())["modes"]] == ["ante"]
    assert main(["export", "tests/data/modes_toy.toml", "--stake", str(tmp_path / "x"), "--mode", "nope"]) == 2
