"""The PAR sheet pickles (the workbench's worker process sends it to the kernel), with every figure unchanged.

The sheet keeps plain figures only (no round analysis and its tail closures):
each shipped game's sheet is pickled, unpickled and compared field by field, and
the figures a simulation is checked against (:mod:`mathkit.report.simfigures`) are the same.
Warlords and Prince of Riches are left out: their sheets take about 35 and 7 CPU
seconds (Warlords' is a RoundSheet, the fields of a ParSheet less the distribution's),
too dear for this suite; both were pickled by hand when the analysis left the sheet.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from mathkit.gamefile.io import load_game
from mathkit.report.par import build_par
from mathkit.report.simfigures import checked_figures

GAMES = sorted(p for p in (Path(__file__).resolve().parents[1] / "data" / "games").rglob("*.toml")
               if p.stem not in ("warlords", "prince_of_riches"))


def _same(a: object, b: object) -> None:
    assert type(a) is type(b)
    fields = getattr(a, "__dataclass_fields__", {})
    for name in fields:
        x, y = getattr(a, name), getattr(b, name)
        if name in ("base", "distribution", "game"):  # compared by their figures below / by equality
            continue
        if name == "base_spin" and x is not None:  # the base spin's figures, field by field, and its law
            _same(x, y)
            if x.distribution is not None:
                assert y.distribution.values.tolist() == x.distribution.values.tolist()
                assert y.distribution.probs.tolist() == x.distribution.probs.tolist()
            continue
        assert x == y, name


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_par_sheet_of_every_shipped_game_pickles_with_its_figures(path: Path) -> None:
    game = load_game(path)
    par = build_par(game)
    back = pickle.loads(pickle.dumps(par))
    _same(par, back)
    assert back.game == game
    assert back.distribution.values.tolist() == par.distribution.values.tolist()
    assert back.distribution.probs.tolist() == par.distribution.probs.tolist()
    assert (back.rtp, back.sd, back.hit_frequency, back.max_win) == (par.rtp, par.sd, par.hit_frequency, par.max_win)
    sequences = tuple(f.name for f in game.features if f.role == "sequence")
    assert checked_figures(back, sequences) == checked_figures(par, sequences)
    if sequences:  # what the simulation checks of a feature's entries is on the sheet itself
        assert all(name in back.p_enter for name in sequences) and back.trigger_probability is not None
