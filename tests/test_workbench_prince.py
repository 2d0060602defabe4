"""Prince of Riches in the workbench (issue 29): ∂RTP of a game whose RTP is markov, and nothing on screen contradicts it.

Prince's free games are a chain solved in floating point, so its RTP is not an exact fraction: ∂RTP is then the
difference of two such RTPs per added stop (tagged ``markov``), never a failure saying "the RTP above is exact"
beside a label reading "not exact".  The reference differences are computed here by editing the game with
:func:`mathkit.model.edits.add_one_stop` and summing :func:`mathkit.round.rtp_breakdown` at its default precision
(the sensitivity table solves the chains with ``precision="float"``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from mathkit.errors import LimitError, ModelError
from mathkit.gamefile.io import load_game
from mathkit.model.edits import add_one_stop
from mathkit.model.game import Game
from mathkit.report.sensitivity import exact_rtp, symbol_sensitivity
from mathkit.round import rtp_breakdown
from mathkit.workbench import build_workbench
from mathkit.workbench.tables import TablesPanel

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"
PRINCE = GAMES / "prince_of_riches.toml"


def float_rtp(game: Game) -> float:
    return math.fsum(float(v) for v in rtp_breakdown(game).values())


def by_hand(game: Game, reel: int, symbol: str) -> float:
    return float_rtp(add_one_stop(game, "base", reel, symbol)) - float_rtp(game)


def test_prince_sensitivity_is_a_float_difference_tagged_markov() -> None:
    game = load_game(PRINCE)
    with pytest.raises(ModelError, match="not exact"):  # the premise: no exact RTP to differentiate
        exact_rtp(game)
    s = symbol_sensitivity(game)
    assert s.method == "markov" and s.undefined == ()
    for reel, symbol in ((0, "SCATTER"), (2, "PRIZE"), (4, "ACT1")):
        d = s.delta[reel][s.symbols.index(symbol)]
        assert isinstance(d, float) and d == pytest.approx(by_hand(game, reel, symbol), abs=1e-9)
    assert s.delta[0][s.symbols.index("WILD")] is None  # the wild may not be on reel 1


def _texts(w: Any) -> list[str]:
    out = [w.value] if isinstance(getattr(w, "value", None), str) else []
    for c in getattr(w, "children", ()):
        out += _texts(c)
    return out


def test_prince_workbench_says_markov_and_why_a_figure_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(game: Game, reels: str) -> Any:  # the PAR sheet refused (a limit), to see the words it gets
        msg = "the free games' chain would need 9,000,000 states, above MATHKIT_MAX_STATES (2,000,000)"
        raise LimitError(msg, fix="raise MATHKIT_MAX_STATES, or estimate by simulation")

    monkeypatch.setattr("mathkit.workbench.worker.sheet", refused)
    wb = build_workbench(PRINCE, GAMES, mode="sync")
    wb.wait(300)
    game = load_game(PRINCE)
    assert wb.rtp_exact.value.startswith("markov") and "exact" not in wb.rtp_exact.value.split(":")[0]
    assert wb.sd_label.value.endswith("× bet [markov]")
    assert wb.hit_label.value == ("hit frequency: not available — the hit frequency, distribution and win bands could "
                                  "not be computed: the free games' chain would need 9,000,000 states, above "
                                  "MATHKIT_MAX_STATES (2,000,000) (raise MATHKIT_MAX_STATES, or estimate by simulation)")
    table = wb._panel(TablesPanel).sensitivity.value
    assert "[markov]" in table and "exact fractions" not in table
    row = table[table.index("<th style='text-align:left'>SCATTER</th>"):].split("</tr>")[0]
    shown = re.search(r"title='([-+0-9.e]+) pp \(markov\)'>", row)  # reel 1's cell, ten digits on hover
    assert shown is not None and float(shown.group(1)) == pytest.approx(100 * by_hand(game, 0, "SCATTER"), rel=1e-8)
    texts = _texts(wb.widget) + [str(a.text) for a in wb.figures.widget.layout.annotations]
    for bad in ("the RTP above is exact", "Error", "build_", "while computing"):
        assert not [t for t in texts if bad in t], bad
    assert "not available" in wb.figures["distribution"].title
