"""Sessions of a game: one bankroll, or a table of several (50×, 100×, 200× bet by default)."""

from __future__ import annotations

from collections.abc import Sequence

from ..chains.ladder import Strategy
from ..chains.markov.session import SessionLaw, solve_session
from ..model.game import Game
from .law import SessionPlay, credits, play_law

__all__ = ["TABLE_BANKROLLS", "bankroll_table", "session", "solve", "table_rows"]

TABLE_BANKROLLS = (50, 100, 200)
"""Bankrolls (× bet) of the default table."""


def solve(play: SessionPlay, bankroll: int | str, spins: int, *, stop_win: int | str | None = None,
          big_wins: Sequence[int] = (100,), ceiling: int | str | None = None) -> SessionLaw:
    """The session of ``spins`` spins from ``bankroll`` (credits, or ``"100x"``) on the law ``play``."""
    bet = play.bet
    return solve_session(play.values, play.probs, bet=bet, bankroll=credits(bankroll, bet, "bankroll"), spins=spins,
                         stop_win=None if stop_win is None else credits(stop_win, bet, "stop-win"),
                         big_wins=big_wins, ceiling=None if ceiling is None else credits(ceiling, bet, "ceiling"),
                         lost_mass=play.lost_mass, method=play.method)


def session(game: Game, bankroll: int | str, spins: int, *, reels: str | None = None, lines: int | None = None,
            coins: int | None = None, stop_win: int | str | None = None, gamble: Strategy | None = None,
            big_wins: Sequence[int] = (100,), ceiling: int | str | None = None) -> SessionLaw:
    """The session of ``spins`` spins of ``game`` from ``bankroll`` (credits, or ``"100x"``).

    ``gamble``: a strategy (:func:`~mathkit.sessions.law.strategy`) played on every win; default never.
    """
    return solve(play_law(game, reels, lines=lines, coins=coins, gamble=gamble), bankroll, spins,
                 stop_win=stop_win, big_wins=big_wins, ceiling=ceiling)


def bankroll_table(play: SessionPlay, spins: int, bankrolls: Sequence[int] = TABLE_BANKROLLS, *,
                   stop_win: int | str | None = None, big_wins: Sequence[int] = (100,)) -> list[SessionLaw]:
    """The session from each bankroll in ``bankrolls`` (× bet)."""
    return [solve(play, f"{m}x", spins, stop_win=stop_win, big_wins=big_wins) for m in bankrolls]


def table_rows(laws: Sequence[SessionLaw]) -> list[tuple[str, ...]]:
    """A header and one row per session: bankroll, expected and median spins, P(bust), P(ahead), loss, big win."""
    ks = sorted({k for law in laws for k in law.big_wins})
    head = ("bankroll (× bet)", "expected spins", "median spins", "P(playing at the end)", "P(bust)", "P(ahead)",
            "expected loss (× bet)", *(f"P(win ≥ {k}× bet)" for k in ks))
    rows = [head]
    for law in laws:
        med = law.median_spins
        rows.append((f"{law.bankroll / law.bet:,.6g}", f"{law.expected_spins:,.2f}",
                     f"> {law.spins:,}" if med is None else f"{med:,}", f"{law.p_playing:.6f}", f"{law.p_bust:.6f}",
                     f"{law.p_ahead:.6f}", f"{law.expected_loss / law.bet:,.4f}",
                     *(f"{law.big_wins[k]:.6f}" if k in law.big_wins else "" for k in ks)))
    return rows
