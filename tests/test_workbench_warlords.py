"""The workbench on Warlords (issue 12): it loads, every reel set and the feature laws are editable, the RTP follows.

The slow figures (σ, the PAR sheet) are not this test's subject: the scheduler's worker is
replaced by one that computes nothing, so only the immediate RTP path runs; the figures shown
are compared with :func:`mathkit.round.rtp_breakdown` on games edited without the workbench.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mathkit.features.overlay_wilds import OverlayWilds
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.round import rtp_breakdown
from mathkit.workbench import build_workbench
from mathkit.workbench.tables import TablesPanel


def pct6(x: Fraction | float) -> str:
    return f"{float(x) * 100:.6f}%"


def rtp(game: Game) -> Fraction | float:
    return sum(rtp_breakdown(game).values(), Fraction(0))


def test_warlords_reel_sets_and_feature_laws_are_edited(games_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mathkit.workbench.scheduler.compute", lambda *args: None)

    def no_wait(self: Any, timeout: float = 0.0) -> None:
        return None

    monkeypatch.setattr("mathkit.workbench.scheduler.Scheduler.wait", no_wait)
    wb = build_workbench("warlords.toml", games_dir, mode="thread")
    game = load_game(games_dir / "warlords.toml")
    assert wb.rtp_label.value == f"RTP {pct6(rtp(game))}" == "RTP 96.892205%"
    # a feature law: the Barbarian Hammer's weight among the overlay types
    wb.feature_inputs[("overlay_wilds", ("types", 0, "weight"))].value = 60
    ow = game.feature("overlay_wilds")
    assert isinstance(ow, OverlayWilds)
    edited = game.with_features(dataclasses.replace(
        ow, types=(dataclasses.replace(ow.types[0], weight=60), *ow.types[1:])))
    assert wb.game == edited
    assert wb.rtp_label.value == f"RTP {pct6(rtp(edited))}"
    # a final-chance coin weight
    wb.feature_inputs[("scatter_respins", ("final_chance", "coins", "100"))].value = 3
    coins = wb.game
    fc = coins.feature("scatter_respins").table()["final_chance"]["coins"]  # type: ignore[attr-defined]
    assert fc["100"] == 3 and {k: v for k, v in fc.items() if k != "100"} == {"3": 50, "5": 30, "10": 12, "20": 5, "50": 2}
    assert wb.rtp_label.value == f"RTP {pct6(rtp(coins))}" != f"RTP {pct6(rtp(edited))}"
    # a free-spin reel set: the Samurai strips, the round still analysed from the base game
    wb.reels_picker.value = "samurai"
    strip = wb.strips[1].value.split()
    assert strip == list(game.reel_set("samurai").strips[1])
    i = strip.index("TEN")
    strip[i] = "SAMURAI"
    wb.strips[1].value = " ".join(strip)
    sets = tuple(dataclasses.replace(rs, strips=(rs.strips[0], tuple(strip), *rs.strips[2:])) if rs.name == "samurai"
                 else rs for rs in coins.reel_sets)
    expected = dataclasses.replace(coins, reel_sets=sets)
    assert wb.game == expected
    assert wb.rtp_label.value == f"RTP {pct6(rtp(expected))}" != f"RTP {pct6(rtp(coins))}"
    assert wb.error.value == ""


# --------------------------------------------------------------------------- every figure, as `mathkit par` gives it
# Warlords' sheet takes 25–40 s of CPU: the workbench computes it once for the module (sync mode: in this process),
# and the reference sheet is built once more by calling the report API directly, with the CLI's sampler defaults.

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"


@pytest.fixture(scope="module")
def warlords() -> tuple[Any, Any]:
    from mathkit.report.par import build_sheet
    from mathkit.sim.sampling import route_sampler

    wb = build_workbench("warlords.toml", GAMES, mode="sync")
    wb.wait(600)
    game = load_game(GAMES / "warlords.toml")
    ref = build_sheet(game, "base", sampler=route_sampler(game, None, None, reels="base"))
    return wb, ref


def _widgets(w: Any) -> list[Any]:
    out = [w]
    for c in getattr(w, "children", ()):
        out += _widgets(c)
    return out


def test_warlords_every_figure_arrives_as_mathkit_par_gives_it(warlords: tuple[Any, Any]) -> None:
    wb, ref = warlords
    m = ref.mixed
    assert m is not None and m.method == "exact+sampled"  # the reference: an exact part and sampled routes
    # σ and the volatility index: exact (the round's second moment), tagged
    sd = ref.sd_moments
    assert sd is not None and sd.method == "exact"
    assert wb.sd_label.value == f"σ {sd.value:.4f} × bet [exact]"
    z = {"90%": 1.645, "95%": 1.960, "99%": 2.576}  # two-sided normal quantiles, as PAR sheets print them
    assert wb.vi_label.value == "volatility index " + " · ".join(f"{k} {q * sd.value:.3f}" for k, q in z.items()) + \
        " [exact]"
    # hit frequency: the mixed law's point value, its provenance and 99% interval on the label
    hf = m.figures["hit_frequency"]
    assert not hf.interval and hf.low < hf.value < hf.high
    assert wb.hit_label.value == (f"hit frequency {hf.value * 100:.4f}% (1 in {1 / hf.value:.2f}) "
                                  f"[exact+sampled, 99% {hf.low * 100:.4f}% – {hf.high * 100:.4f}%]")
    # win bands: every band of the mixed law, in order, its probability and interval, tagged
    bands = wb._panel(TablesPanel).bands
    assert "mk-stale" not in bands._dom_classes
    html = bands.value
    at = 0
    for b in m.bands:
        p = b.probability
        row = (f"<td>{b.label}</td><td>{p.value:.6g}</td>" if not p.interval else f"<td>{b.label}</td>")
        at = html.index(row, at)
        assert f"<td>{p.low:.4g} – {p.high:.4g}</td>" in html[at:]
    assert html.count("<td>exact+sampled</td>") == len(m.bands) == 10
    # the exceedance curve: points of the mixed law, with its 99% band around them
    upper, lower, curve = wb.figures["distribution"].data
    xs, ps, lows, highs = m.exceedance
    at_x = {x: (p, lo, hi) for x, p, lo, hi in zip(xs, ps, lows, highs, strict=True)}
    assert 50 < len(curve.x) <= 200 and curve.x[0] == xs[0] and curve.x[-1] == xs[-1]
    for x, y, hi in zip(curve.x, curve.y, upper.y, strict=True):
        p, lo, h = at_x[x]
        assert y == p and hi == h and lo <= p <= h
    assert len(lower.y) == len(curve.x) and all(0 < v <= y for v, y in zip(lower.y, curve.y, strict=True))
    assert "exact+sampled" in wb.figures["distribution"].title and "band" in wb.figures["distribution"].title
    # the RTP range: RTP ± VI/√N from the exact σ
    traces = wb.figures["range"].data
    assert traces[0].y[0] == pytest.approx(float(ref.rtp.value) + 2.576 * sd.value / 10, abs=1e-9)  # N = 100


def test_warlords_sensitivity_is_exact_with_outside_cells_explained(warlords: tuple[Any, Any]) -> None:
    from mathkit.model.edits import add_one_stop
    from mathkit.report.sensitivity import exact_rtp

    wb, _ = warlords
    table = wb._panel(TablesPanel).sensitivity
    assert "mk-stale" not in table._dom_classes and "[exact]" in table.value
    game = load_game(GAMES / "warlords.toml")
    # one more WILD on reel 2, by hand: the RTP of the edited game minus the RTP
    d = exact_rtp(add_one_stop(game, "base", 1, "WILD")) - exact_rtp(game)
    assert f"title='{d.numerator}/{d.denominator}'>{100 * float(d):+.4f}</td>" in table.value
    # a fourth scatter type in view has no battle odds: that cell says so instead of failing the whole table
    assert ">n/a</td>" in table.value and "battle odds" in table.value


def test_warlords_labels_read_as_a_designer_reads_them(warlords: tuple[Any, Any]) -> None:
    wb, ref = warlords
    texts = [str(w.value) for w in _widgets(wb.widget) if isinstance(getattr(w, "value", None), str)]
    texts += [str(a.text) for a in wb.figures.widget.layout.annotations]
    for bad in ("Error", "build_sheet", "build_par", "Traceback", "while computing"):
        assert not [t for t in texts if bad in t], bad
    # the RTP: the cap's effect is settled by a tail bound (markov, as `mathkit par` tags it), so the label gives the
    # decimals that bound leaves certain, and the exact fraction without the cap one click away
    assert ref.rtp.method == "markov" and ref.rtp.digits is not None
    exact = rtp(load_game(GAMES / "warlords.toml"))
    assert isinstance(exact, Fraction) and len(f"{exact.numerator}/{exact.denominator}") > 200
    decimals = str(exact.numerator * 10**16 // exact.denominator)  # 0.9689220511327970… by integer division
    assert ref.rtp.digits.startswith(f"0.{decimals}")  # the same decimals as the PAR sheet's
    label = wb.rtp_exact.value
    assert label.startswith(f"<details class='mk-fraction'><summary>markov 0.{decimals}… ")
    assert f"<code style='word-break:break-all;white-space:normal;font-size:11px'>{exact.numerator}/{exact.denominator}" \
        in label
    # the cap's component is markov in the breakdown too (its value is a bound, not a computed fraction)
    assert "<td style='white-space:nowrap'>cap</td><td style='text-align:right;white-space:nowrap'>0.0000%</td>" \
        "<td style='color:#666;font-size:85%;max-width:16em;overflow-wrap:anywhere'>markov</td>" in wb.breakdown.value
    # breakdown names never wrap
    assert wb.breakdown.value.count("<td style='white-space:nowrap'>") == len(ref.components)
    # sessions: why not, in words
    assert "part of this game" in wb.sessions.status.value and "sampled" in wb.sessions.status.value


def test_warlords_export_from_the_workbench_is_the_cli_sheet(warlords: tuple[Any, Any], tmp_path: Path) -> None:
    import json

    from mathkit.report.text import par_to_dict

    wb, ref = warlords
    wb.export_dir.value = str(tmp_path)
    out = wb.export("json")
    assert out is not None and "wrote" in wb.status.value
    shown, expected = json.loads(out.read_text(encoding="utf-8")), par_to_dict(ref)
    for key in ("rtp", "rtp_exact", "sd", "hit_frequency", "hit_frequency_interval", "volatility_index", "p_win_ge",
                "max_win", "provenance"):
        assert shown[key] == expected[key], key
    assert shown["distribution"]["win_bands"] == expected["distribution"]["win_bands"]
    assert shown["provenance"]["hit_frequency"] == "exact+sampled"
