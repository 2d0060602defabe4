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
# # The benchmark game: its exact PAR sheet
#
# What does the benchmark game return, how volatile is it, and does a simulated player see the same?
# The game is our own design, used by `make bench` and the tests: 5 reels × 3 rows, 30 fixed lines, one credit per line.
# Its strips have 32, 40, 48, 40 and 32 stops, so one cycle is 78,643,200 equally likely outcomes.
# Ten symbols pay 3, 4 or 5 of a kind from reel 1 (H1 and H2 also pay 2 of a kind).
# WILD sits on reels 2–4 only, stacked three high, substitutes for every paying symbol and pays nothing of its own.
# SCATTER pays 2 or more anywhere in the window, as a multiple of the total bet, added to the line wins.
# Every figure below says how it was obtained: *exact* (integer counts over the whole cycle) or *sampled* (the simulator).

# %% tags=["parameters"]
import os

FAST = os.environ.get("MATHKIT_NOTEBOOK_FAST") == "1"  # the tests run every notebook with small parameters
GAME = "../data/games/benchmark_5x3.toml"
SPINS = 200_000 if FAST else 20_000_000  # simulated plays for the cross-check
SEED = 20240501

# %%
from IPython.display import Markdown, display

from mathkit import plots
from mathkit.dev.pardoc import par_document
from mathkit.dev.render import cross_check, paytable_table, readings_table, summary_table
from mathkit.gamefile.io import load_game
from mathkit.report.par import build_par
from mathkit.sim import simulate

game = load_game(GAME)
readings_table(game)

# %% [markdown]
# ## The exact PAR sheet
# `build_par` counts every outcome of the cycle.
# The RTP by component comes from per-reel symbol counts.
# σ, hit frequencies and tails come from the full distribution, enumerated by meeting in the middle (see the method notebook).

# %%
par = build_par(game)
summary_table(par)

# %%
paytable_table(par)

# %% [markdown]
# ## Where the return comes from

# %%
plots.rtp_by_component(par)

# %%
plots.rtp_by_symbol(par)

# %%
plots.symbol_heatmap(game)

# %% [markdown]
# ## How the wins are spread
# The probability of every distinct win over the cycle.
# Then the RTP a player can expect to see after N plays: the exact RTP ± volatility index / √N.

# %%
plots.win_distribution(par.distribution)

# %%
plots.rtp_range(par)

# %% [markdown]
# ## Cross-check: a simulated player
# The simulator plays the rules literally, spin by spin, sharing only the game model and the window evaluation with the exact engine.
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
Markdown(f"The benchmark game returns exactly {par.rtp.value:.6%} (σ {par.sd.value:.3f} per bet, a win 1 play in "
         f"{1 / par.hit_frequency.value:.2f}), and against {SPINS:,} simulated plays {check.verdict}.")
