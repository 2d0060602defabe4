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
# # Dynasty: the exact PAR sheet of a game with free spins and a gamble
#
# What does Dynasty return, including its free spins, how volatile is it, and what does its gamble do to a player's session?
# Dynasty is a 5-reel, 3-row, 25-line video slot; its reel strips and paytable are our own design, tuned to 95.00%.
# SEAL is a wild on reels 2, 3 and 4 only, in stacks of three.
# It substitutes for every regular symbol, never for EMPEROR, and pays nothing of its own.
# EMPEROR is a scatter: 2 or more anywhere pay a multiple of the total bet, and 3 or more award 10 free spins.
# During free spins line wins are doubled, the reels are the `free` set, and 3 or more EMPERORs add 10 more spins, with no limit.
# After any win the player may gamble it: colour (×2, probability 1/2) or suit (×4, probability 1/4).
# The gamble is offered at most 5 times in a row, up to a 5,000-credit limit.
# Where the rules can be read two ways, the reading we chose is written in the game file and shown first.

# %% tags=["parameters"]
import os

FAST = os.environ.get("MATHKIT_NOTEBOOK_FAST") == "1"  # the tests run every notebook with small parameters
GAME = "../data/games/dynasty.toml"
SPINS = 200_000 if FAST else 20_000_000  # simulated plays (base spin and the free spins it triggers)
SEED = 20240503

# %%
from IPython.display import Markdown, display

from mathkit import plots
from mathkit.dev.pardoc import par_document
from mathkit.dev.render import cross_check, feature_tables, paytable_table, readings_table, summary_table
from mathkit.gamefile.io import load_game
from mathkit.report.par import build_par
from mathkit.sim import simulate

game = load_game(GAME)
readings_table(game)

# %% [markdown]
# ## The exact PAR sheet
# The base game is counted over its whole cycle.
# The free spins are an absorbing Markov chain over the spins left (see the method notebook).
# Its steps come from the exact joint law of one free spin's win and the spins it adds.
# The RTP and every mean are exact fractions.
# σ and the tails come from the distribution of a whole play: a base spin plus the feature it triggers.
# That distribution is computed up to a truncated probability mass, shown in the table.

# %%
par = build_par(game)
summary_table(par)

# %%
for table in feature_tables(par):
    display(table)

# %%
paytable_table(par)

# %% [markdown]
# ## The free-spin feature as a chain
# A feature starts with s = 10 spins left and ends at s = 0.
# Each free spin uses one; with probability q its 3 or more EMPERORs add 10, so s → s + 9.
# A free spin adds m = 10 q spins on average, so the expected length is 10 / (1 − m) spins (Wald).

# %%
fs = dict(next(s for s in par.features if s.name == "Free spins").figures)
p, q = fs["trigger probability"].value, fs["P(retrigger) per free spin"].value
plots.state_diagram(["s + 9 left", "s left", "s − 1 left", "…", "end"],
                    [(1, 0, f"q = {q:.5f}"), (1, 2, f"1 − q = {1 - q:.5f}"), (2, 3, "1 − q"), (3, 4, "from 1 left: 1 − q")],
                    absorbing=["end"], title=f"Free spins: triggered 1 play in {1 / p:.1f} with s = 10; "
                    f"E[length] = 10 / (1 − 10q) = {fs['expected length (spins)'].value:.4f} spins")

# %%
plots.rtp_by_component(par)

# %%
plots.rtp_by_symbol(par)

# %%
plots.symbol_heatmap(game, "base")

# %%
plots.symbol_heatmap(game, "free")

# %% [markdown]
# ## How the wins are spread
# The distribution of a whole play's win, free spins included, and the RTP a player can expect to see after N plays.

# %%
plots.win_distribution(par.distribution)

# %%
plots.rtp_range(par)

# %% [markdown]
# ## Cross-check: a simulated player
# The simulator plays base spins and the free spins they trigger, spin by spin, retriggers included.
# The gamble is left out, as it is of the RTP.
# Its RTP must fall inside the 99% interval of the exact RTP for that many plays.

# %%
sim = simulate(game, SPINS, seed=SEED, progress=False)
check = cross_check(sim, par)
check

# %% [markdown]
# ## The PAR document
# What identifies the maths on this page (the game file's SHA-256, mathkit's version and commit, the render date), the
# configuration, every reel set's strips with their weights, the symbol counts per reel, the paytable with hits and RTP per
# combination, the seed and size of every sampled figure, and the certification checks (`mathkit check`, GLI-11 profile).

# %%
for table in par_document(game, par, GAME, simulations=[("cross-check simulation", SPINS, SEED)]):
    display(table)

# %% [markdown]
# ## Conclusion

# %%
Markdown(f"Dynasty returns exactly {par.rtp.value:.4%} ({par.components['free spins'].value:.2%} of it from free spins "
         f"that come 1 play in {1 / p:.0f}), every gamble option is fair so gambling never changes that return, "
         f"and against {SPINS:,} simulated plays {check.verdict}.")
