"""Warlords – Crystals of Power (data/games/warlords.toml): the shipped game, its exact RTP, its PAR sheet and checks.

The maths of every block is checked by hand and against brute force in test_respins.py,
test_free_spin_games.py, test_held_chain.py, test_forced_cells.py and test_tails.py; here the
shipped game is checked as a whole: it loads and round-trips, is the design of
tools/tune_warlords.py, its exact RTP with the cap is 96.89% ± 0.005 pp, the float quick view
agrees, the PAR sheet has every component tagged, and the certification checks pass.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.cli import main
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.round import analyse

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "warlords.toml"
TARGET = Fraction(9689, 10000)


@pytest.fixture(scope="module")
def exact():  # type: ignore[no-untyped-def]
    return analyse(load_game(GAME), level="mean")


def test_the_file_is_the_tools_design() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import tune_warlords
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert tune_warlords.to_toml(tune_warlords.game_dict(tune_warlords.DESIGN)) == GAME.read_text(encoding="utf-8")


def test_the_readings_state_the_files_own_figures() -> None:
    # a reviewer reads the readings beside the data: every odds figure in them must be the data's
    game = load_game(GAME)
    readings = {r.rule: r.reading for r in game.readings}
    overlay = next(f for f in game.features if f.kind == "overlay_wilds")
    assert f"probability {overlay.probability}" in readings["Random Overlay Wild: trigger"]
    fc = next(f for f in game.features if f.kind == "scatter_respins").final_chance
    assert fc is not None
    text = readings["Final Chance"]
    assert f"with probability {fc.p_coins}" in text
    assert "weights " + "/".join(str(w) for _, w in fc.coins) in text
    rows = {rs.name: rs for rs in game.reel_sets}
    blue = sorted({r + 1 for r, s in enumerate(rows["barbarian"].strips) if "BLUE" in s})
    assert blue == [3] and "blue scatters on reel 3" in readings["Barbarian Free Spins"]
    counts = [sum(x == s for x in rows["respin"].strips[0]) for s in ("BLUE", "GREEN", "RED")]
    assert counts == [2, 1, 1] and "two BLUE, one GREEN and one RED on every reel" in readings["Re-spins"]


def test_loads_and_round_trips() -> None:
    game = load_game(GAME)
    assert loads_game(dump_game(game)) == game
    kinds = [f.kind for f in game.features]
    assert kinds == ["overlay_wilds", "scatter_respins", "free_spins", "multiplier_free_spins", "sticky_free_spins", "cap"]
    assert {rs.name for rs in game.reel_sets} == {"base", "overlay", "respin", "barbarian", "priestess", "samurai"}
    # the Barbarian reel set holds warriors, animals and its blue scatter only
    assert set().union(*map(set, game.reel_set("barbarian").strips)) == {
        "BARBARIAN", "PRIESTESS", "SAMURAI", "WOLF", "EAGLE", "TIGER", "BLUE"}
    # the main game's scatters are on reels 2-4 only; the re-spins' on all five; Samurai's on reels 2-4
    scatters = {"BLUE", "GREEN", "RED"}
    for name, reels in (("base", {1, 2, 3}), ("respin", {0, 1, 2, 3, 4}), ("samurai", {1, 2, 3})):
        rs = game.reel_set(name)
        assert {r for r, s in enumerate(rs.strips) if scatters & set(s)} == reels


def test_exact_rtp_is_the_declared_one(exact) -> None:  # type: ignore[no-untyped-def]
    rtp = exact.rtp()
    assert isinstance(rtp, Fraction)
    assert abs(rtp - TARGET) <= Fraction(5, 100_000)
    parts = exact.breakdown()
    assert sum(parts.values(), Fraction(0)) == rtp
    # every component exact but the cap, whose effect is a bound below 1e-15 × bet
    assert all(exact.outcome.method_of(k) == "exact" for k in parts if k != "cap")
    assert parts["cap"] == 0 and exact.outcome.method_of("cap") == "markov"
    assert 0 < exact.outcome.error / exact.total_bet < 1e-15
    # plausible shares: the main game's lines most, each feature a few percent
    assert 0.55 < parts["lines"] < 0.70
    for k in ("free spins: barbarian", "free spins: priestess", "free spins: samurai", "final chance coins"):
        assert 0.01 < parts[k] < 0.12, k
    assert 0.05 < sum(v for k, v in parts.items() if k.startswith("overlay wilds")) < 0.15


def test_the_float_quick_view_agrees(exact) -> None:  # type: ignore[no-untyped-def]
    quick = analyse(load_game(GAME), level="mean", precision="float", sections=False)
    assert float(quick.rtp()) == pytest.approx(float(exact.rtp()), rel=1e-12)
    for k, v in exact.breakdown().items():
        assert float(quick.breakdown()[k]) == pytest.approx(float(v), rel=1e-11, abs=1e-15), k


def test_sections_hold_the_feature_figures(exact) -> None:  # type: ignore[no-untyped-def]
    sections = {s.name: dict(s.figures) for s in exact.sections}
    respins = sections["Re-spins"]
    assert 1 / 200 < respins["trigger probability"].value < 1 / 30
    for k in ("average re-spins per trigger", "final chance (given re-spins)", "battle: two against one (given re-spins)",
              "battle: three different (given re-spins)"):
        assert respins[k].method == "exact" and respins[k].value > 0, k
    for name in ("Free spins: barbarian", "Free spins: priestess", "Free spins: samurai"):
        figures = sections[name]
        assert figures["trigger frequency (1 in N)"].method == "exact"
        assert 100 < figures["trigger frequency (1 in N)"].value < 2000, name
    assert sections["Free spins: barbarian"]["expected length (spins)"].value > 9
    cap = sections["Cap"]
    assert cap["RTP removed by the cap ≤ (bound)"].value < 1e-15
    overlay = sections["Overlay wilds"]
    assert overlay["overlay probability per main-game spin"].exact == Fraction(1, 45)


def test_par_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", str(GAME), "--json", "--sample-rounds", "1000000", "--seed", "1"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert abs(d["rtp"] - 0.9689) <= 0.00005
    assert sum(d["breakdown"].values()) == pytest.approx(d["rtp"], rel=1e-14)
    digits = d["rtp_exact"].split(".")[1]
    assert len(digits) >= 15 and d["provenance"]["rtp"] == "markov"
    assert float(d["rtp_exact"]) == pytest.approx(d["rtp"], rel=1e-15, abs=1e-16)
    assert set(d["provenance"]["breakdown"].values()) == {"exact", "markov"}
    # issue 12: σ exact from the round's second moment
    assert d["provenance"]["sd"] == "exact" and 3 < d["sd"] < 6
    assert d["volatility_index"]["95%"] == pytest.approx(1.96 * d["sd"])
    # the distribution's figures: the exact part mixed with the sampled routes ("sampled": the whole round, while
    # a block gives no exact distribution), each tagged, with its 99% interval, draws and seed
    dist = d["distribution"]
    tag = dist["method"]
    assert tag == ("sampled" if d["level"] == "moments" else "exact+sampled")
    assert dist["seed"] == 1 and dist["draws"] >= 1_000_000 and all(r["draws"] > 0 for r in dist["routes"])
    for k in ("hit_frequency", "hit_frequency_win_ge_bet", "max_win_probability"):
        assert d["provenance"][k] in (tag, "markov"), k
    assert d["provenance"]["p_win_ge"]["10x"] == d["provenance"]["p_win_ge"]["100x"] == tag
    f = dist["figures"]
    for k in ("hit_frequency", "hit_frequency_win_ge_bet", "p_win_ge_10x", "p_win_ge_100x"):
        assert f[k]["low"] < f[k]["value"] < f[k]["high"], k
    assert 0.2 < d["hit_frequency"] < 0.5 and d["p_win_ge"]["10x"] < d["hit_frequency_win_ge_bet"] < d["hit_frequency"]
    # the sampled law against the exact mean: the bands' RTP parts, summed, hold the exact RTP
    bands = dist["win_bands"]
    assert sum(b["probability"] for b in bands) == pytest.approx(1, abs=1e-9)
    assert sum(b["rtp_low"] for b in bands) <= d["rtp"] <= sum(b["rtp_high"] for b in bands)
    # the cap is reachable (Barbarian and Priestess are unbounded), so it is the max win; its odds P(cap) have the
    # proven Chernoff bound of the Cap section (tighter than any sample) as their upper end
    assert d["cap"] == pytest.approx(10000 / 3) and dist["max_win_kind"] == "cap"
    assert d["max_win"] == pytest.approx(10000 / 3) and d["provenance"]["max_win"] == "exact"
    # no sampled round reaches the cap: P(cap) is its interval (the exact part to the proven bound), never a point
    cap = d["cap_probability_interval"]
    assert d["cap_probability"] is None and not cap["resolved"] and 0 < cap["low"] < cap["high"] < 1e-15
    assert d["max_win_probability"] is None and d["max_win_probability_interval"] == cap
    assert d["provenance"]["cap_probability"] in (tag, "markov")
    # every tail row: a point only when resolved to 10% (99% half-width), else null beside its interval
    for k, value in d["p_win_ge"].items():
        row = d["p_win_ge_interval"][k]
        if value is None:
            assert not row["resolved"] and row["low"] < row["high"], k
        else:
            assert row["resolved"] and (row["high"] - row["low"]) / 2 <= 0.10 * value, k
    # issue 28: P(win ≥ 1000× bet) resolved — the overlay routes cannot reach it (a spin pays at most 500× bet), the
    # Samurai route is importance-sampled (mathkit/round/rare.py); an independent simulation of 2.26·10⁹ rounds saw
    # 6 such rounds: the exact 99% Poisson interval of 6 counts (χ² quantiles), [1.537, 15.66] / 2.26·10⁹, meets it
    ge = d["p_win_ge_interval"]["1000x"]
    assert d["p_win_ge"]["1000x"] is not None and ge["resolved"] and ge["high"] / ge["low"] <= 1.25
    assert ge["low"] <= 15.66 / 2.26e9 and ge["high"] >= 1.537 / 2.26e9
    assert d["provenance"]["p_win_ge"]["1000x"] == "exact+sampled"
    routes = {r["route"]: r for r in dist["routes"]}
    assert routes["feature:samurai"]["how"].startswith("importance sampling")
    assert 0 < d["rtp_lost_to_cap"] < 1e-15 and d["rtp_lost_to_cap_bound"] is True
    assert len(d["readings"]) >= 10


def test_checks_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(GAME), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    checks = out["checks"] if isinstance(out, dict) else out
    failed = [c for c in checks if not c["passed"]]
    assert not failed, failed
    names = {c["name"] for c in checks}
    assert {"features_terminate", "cap", "declared_rtp"} <= names


def test_xlsx_par_sheet_of_the_means(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from openpyxl import load_workbook

    out = tmp_path / "warlords.xlsx"
    # --sample-rounds 0: the sheet of the exact and Markov figures alone (the default mixes in sampled parts, as
    # `mathkit par --out` does: tests/test_mixture.py::test_text_csv_and_xlsx_show_the_mixed_figures)
    assert main(["export", str(GAME), "--xlsx", str(out), "--sample-rounds", "0"]) == 0
    wb = load_workbook(out)
    rows = {r[0]: r for r in wb["summary"].iter_rows(values_only=True) if r and r[0]}
    assert abs(rows["RTP"][1] - 0.9689) <= 0.00005 and rows["RTP"][3] == "markov"
    assert str(rows["RTP"][2]).startswith("0.96892205113279")  # the decimals the cap's bound leaves certain
    assert rows["P(cap) ≤ (bound)"][3] == "markov"
    assert "Final Chance" in rows and rows["σ per total bet"][3] == "exact"
    assert {r[0] for r in wb["features"].iter_rows(min_row=2, values_only=True)} >= {
        "Overlay wilds", "Re-spins", "Free spins: barbarian", "Free spins: priestess", "Free spins: samurai",
        "Free spins: any type", "Cap"}
    # issue 28: the hit frequency per line is exact under the overlay wilds (tests/test_line_hits_modified.py)
    per_line = rows["hit frequency per line (E[lines paid] / E[lines played], base spin)"]
    assert per_line[3] == "exact" and 0 < per_line[1] < 1
