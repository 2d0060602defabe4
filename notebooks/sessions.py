# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Player sessions on Dynasty, exactly: how long does a bankroll last, and how do sessions end?
#
# RTP and σ describe one play; an operator or a regulator asks about a player's session.
# With a bankroll of 100 bets, how many spins does a player get?
# How likely is the player to be ahead after 1,000 spins, or to see a 100× win before going broke?
# A session is a Markov chain on the bankroll: each spin costs the total bet and pays a whole play's win.
# That win (base spin and free spins) is drawn from the exact distribution of the PAR sheet.
# The player stops when the bankroll is below the bet, or after the last spin.
# The chain is solved on the bankroll in steps of the wins' common divisor, in float64, with its rounding error bounded.
# No probability is cut by the bankroll grid (see `mathkit.chains.markov.session`).

# %% tags=["parameters"]
import os

FAST = os.environ.get("MATHKIT_NOTEBOOK_FAST") == "1"  # the tests run every notebook with small parameters
GAME = "../data/games/dynasty.toml"
BANKROLL = "100x"  # credits, or a multiple of the total bet
SPINS = 1000  # most spins in a session
BIG_WINS = (10, 100, 1000)  # P(a win of at least k × bet during the session)
SESSIONS = 5_000 if FAST else 200_000  # simulated sessions for the cross-check
SEED = 1717

# %%
from IPython.display import Markdown

from mathkit import plots
from mathkit.dev.render import Table
from mathkit.gamefile.io import load_game
from mathkit.sessions import bankroll_table, play_law, solve, strategy, table_rows, with_strategy
from mathkit.sim.players import simulate_sessions

game = load_game(GAME)
play = play_law(game)  # the whole play's exact law at the default bet (25 lines × 1 coin)
law = solve(play, BANKROLL, SPINS, big_wins=BIG_WINS)
labels = law.labels()
Table(("figure", "value", "how obtained"),
      tuple((labels[k], f"{f.value:,.9g}", f.method) for k, f in law.figures().items()),
      f"{game.name}: {law.bankroll:,} credits = {law.bankroll / law.bet:g}× bet, up to {SPINS:,} spins",
      (f"rounding error ≤ {law.error_bound:.1e}; truncated probability mass {law.truncated_mass:.1e} "
       f"(the free-spin chain's own); solved in {law.seconds:.2f} s",))

# %% [markdown]
# ## Bankrolls of 50, 100 and 200 bets
# The same session from three bankrolls: the expected and median spins played, and the expected loss.
# Beside them, the chance to be still playing at the end, busted or ahead, and of a big win on the way.

# %%
laws = bankroll_table(play, SPINS, big_wins=BIG_WINS)
rows = table_rows(laws)
Table(rows[0], tuple(rows[1:]), f"{game.name}: sessions of up to {SPINS:,} spins")

# %%
plots.survival_curve(laws)

# %% [markdown]
# ## How sessions end
# The final bankroll: busted (below the bet, red), then value by value up to the start plus 1,000 bets.
# Beyond that (green) the chain keeps the probability and the mean, both exact too.
# A bankroll cannot grow without a win, so most of the mass above the start comes from the free spins and the rare five-of-a-kinds.

# %%
plots.final_bankroll(law)

# %% [markdown]
# ## What the gamble does to a session
# Every gamble option is fair, so gambling leaves the expected loss per spin unchanged; it spreads each win, so bankrolls bust sooner.

# %%
plans = {"never": play, "colour, every win": with_strategy(game, play, strategy(game, "colour")),
         "suit, every win": with_strategy(game, play, strategy(game, "suit"))}
gambled = {name: solve(p, BANKROLL, SPINS, big_wins=(100,)) for name, p in plans.items()}
Table(("strategy", "expected spins", "P(ahead)", "P(bust)", "expected loss (× bet)", "P(win ≥ 100× bet)"),
      tuple((name, f"{g.expected_spins:,.2f}", f"{g.p_ahead:.6f}", f"{g.p_bust:.6f}", f"{g.expected_loss / g.bet:,.4f}",
             f"{g.big_wins[100]:.6f}") for name, g in gambled.items()),
      f"{game.name}: {BANKROLL} bankroll, {SPINS:,} spins, by gamble strategy")

# %% [markdown]
# ## Cross-check: simulated sessions
# The simulator plays the same sessions literally from its own plays (it never reads the exact engine).
# Every exact figure must lie inside the simulation's interval; the intervals hold jointly at 99% (Bonferroni).

# %%
sim = simulate_sessions(game, SESSIONS, bankroll=law.bankroll, spins=SPINS, big_wins=BIG_WINS, seed=SEED)
checks = sim.checks({k: f.value for k, f in law.figures().items()})
agrees = all(c["agrees"] for c in checks.values())
Table(("figure", "exact", "simulated", "interval (99% jointly)", "within"),
      tuple((labels[k], f"{c['exact']:,.6f}", f"{c['sim']:,.6f}", f"[{c['low']:,.6f}, {c['high']:,.6f}]",
             "yes" if c["agrees"] else "NO") for k, c in checks.items()),
      f"{SESSIONS:,} simulated sessions ({sim.plays_drawn:,} plays, {sim.seconds:.1f} s)")

# %% [markdown]
# ## Conclusion

# %%
Markdown(f"With {law.bankroll / law.bet:g} bets a Dynasty player gets {law.expected_spins:,.0f} spins on average "
         f"({law.p_playing:.1%} are still playing after {SPINS:,}), ends ahead with probability {law.p_ahead:.1%} "
         f"and sees a 100× win with probability {law.big_wins[100]:.1%}; against {SESSIONS:,} simulated sessions "
         + ("every figure lies within its interval (99% jointly)." if agrees else "some figures lie OUTSIDE their intervals."))
