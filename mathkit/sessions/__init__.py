"""Player sessions, exactly: time on device, bankroll survival and session outcomes.

A session is a Markov chain on the bankroll: each spin costs the total bet and pays a
whole play's win; the player stops below the bet, at a stop-win target, or after ``N``
spins.  :func:`session` solves it from a game (the law of a play from the round
composer, :mod:`mathkit.sessions.law`; the chain, :mod:`mathkit.chains.markov.session`);
:func:`bankroll_table` does it for several bankrolls; :mod:`mathkit.cli.session` is
``mathkit session``.  The simulator's session mode (:mod:`mathkit.sim.players`) plays the
same sessions literally and is checked against every figure.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> law = session(load_game("data/games/classic_3reel.toml"), "100x", 200)
>>> law.bankroll, law.spins, law.method, 0 < law.p_ahead < 1
(100, 200, 'markov', True)
"""

from __future__ import annotations

from ..chains.markov.session import SessionLaw, checkpoints, solve_session
from .law import SessionPlay, credits, from_par, gamble_options, play_law, strategy, with_strategy
from .table import TABLE_BANKROLLS, bankroll_table, session, solve, table_rows

__all__ = [
    "TABLE_BANKROLLS",
    "SessionLaw",
    "SessionPlay",
    "bankroll_table",
    "checkpoints",
    "credits",
    "from_par",
    "gamble_options",
    "play_law",
    "session",
    "solve",
    "solve_session",
    "strategy",
    "table_rows",
    "with_strategy",
]
