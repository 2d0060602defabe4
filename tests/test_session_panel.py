"""The workbench's sessions panel, driven in plain pytest: set its widgets, read what it shows.

The tiny game (``tests/conftest.py``) pays 8 with probability 1/8 at a bet of 1, so its
sessions are known by hand; the panel's figures are also compared with the session solver
called directly on the law written out here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathkit.chains.markov.session import solve_session
from mathkit.workbench import Workbench, build_workbench


@pytest.fixture
def tiny(games_dir: Path, tmp_path: Path) -> Workbench:
    return build_workbench("tiny.toml", games_dir, mode="sync", export_dir=tmp_path / "exports")


def test_panel_computes_when_asked(tiny: Workbench) -> None:
    panel = tiny.sessions
    assert panel.widget in tiny.editor_tabs.children and panel.law is None and panel.figure is None  # nothing until asked
    law = panel.compute()
    assert law is not None and law.bankroll == 100 and law.spins == 1000
    ref = solve_session([0, 8], [7 / 8, 1 / 8], bet=1, bankroll=100, spins=1000)
    assert law.expected_spins == pytest.approx(ref.expected_spins, rel=1e-12)
    assert law.big_wins[100] == 0.0  # the tiny game never pays 100× its bet
    assert f"{ref.expected_spins:,.2f}" in panel.summary.value
    assert panel.table_view.value.count("<tr>") == 4  # header, 50×, 100×, 200×
    assert panel.figure is not None and len(panel.figure.data) == 5  # four survival curves, the final bankroll
    assert "solved in" in panel.status.value


def test_panel_by_hand(tiny: Workbench) -> None:
    # bankroll 1 at a bet of 1: the first spin busts (7/8) or pays 8 (1/8), and 8 credits last the next two spins
    panel = tiny.sessions
    panel.bankroll.value, panel.spins.value = 1, 3
    law = panel.compute()
    assert law is not None
    assert law.survival.tolist() == pytest.approx([1, 1 / 8, 1 / 8, 1 / 8])
    assert law.expected_spins == pytest.approx(1.25) and law.p_bust == pytest.approx(7 / 8)


def test_panel_goes_stale_on_an_edit_and_follows_it_when_live(tiny: Workbench) -> None:
    panel = tiny.sessions
    first = panel.compute()
    assert first is not None
    tiny.strips[0].value = "A B B B"  # P(A A A) = 1/16: RTP 1/2
    assert "mk-stale" in panel.results._dom_classes and panel.law is first
    panel.live.value = True
    tiny.strips[0].value = "A B B"  # P(A A A) = 1/12
    assert panel.law is not first and "mk-stale" not in panel.results._dom_classes
    ref = solve_session([0, 8], [11 / 12, 1 / 12], bet=1, bankroll=100, spins=1000)
    assert panel.law is not None and panel.law.expected_spins == pytest.approx(ref.expected_spins, rel=1e-12)


def test_panel_names_a_bad_value(tiny: Workbench) -> None:
    panel = tiny.sessions
    panel.stop_win.value = 50  # below the 100× bankroll
    assert panel.compute() is None and "above the bankroll" in panel.status.value
    panel.stop_win.value = 0
    panel.gamble.value = "never"
    assert list(panel.gamble.options) == ["never"]  # the tiny game offers no gamble
    assert panel.compute() is not None
