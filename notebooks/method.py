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
# # The method: exact figures by counting, features as Markov chains, and a simulated check
#
# How does mathkit get a game's figures exactly, and how do we know they are right?
# Three ideas carry everything.
# Count the whole reel cycle, fast, by meeting in the middle.
# Model each feature as an absorbing Markov chain, solved by a linear solve.
# Check both against a player simulated from the rules.
# Each idea is shown first on an example small enough to check by hand, then on a real game.

# %% tags=["parameters"]
import os

FAST = os.environ.get("MATHKIT_NOTEBOOK_FAST") == "1"  # the tests run every notebook with small parameters
GAME = "../data/games/benchmark_5x3.toml"  # a game without features, for counting and the simulated check
FEATURE_GAME = "../data/games/dynasty.toml"  # a game with free spins
SPINS = 200_000 if FAST else 20_000_000
SEED = 20240504
# A game small enough to count by hand: 3 reels × 1 row, one line, every strip "A B", and 3 × A pays 8.
TINY = """
name = "Tiny"
paylines = [[0, 0, 0]]
[bet]
lines = 1
[symbols.A]
[symbols.B]
[reels.base]
rows = 1
strips = ["A B", "A B", "A B"]
[paytable]
A = { 3 = 8 }
"""

# %%
import time
from fractions import Fraction

from IPython.display import Markdown

from mathkit import plots
from mathkit.chains.markov import ABSORB, RewardChain
from mathkit.dev.render import Table, cross_check
from mathkit.exact import spin
from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import load_game, loads_game
from mathkit.report.par import build_par
from mathkit.sim import simulate

# %% [markdown]
# ## 1. Counting the cycle
# Reels stop independently and every stop of a strip is equally likely (or has an integer weight).
# So one *cycle* — every combination of stops, each once — is the exact law of a spin.
# A figure counted over the cycle is a ratio of integers: mathkit keeps it as a `Fraction` and divides once.
#
# **By hand, on the tiny game.**
# The cycle has 2 × 2 × 2 = 8 outcomes and only A A A wins, so P(win) = 1/8 and the RTP is 8 × 1/8 = 1.
# The win W is 8 with probability 1/8 and 0 otherwise, so $E[W^2] = 64/8 = 8$ and $\operatorname{Var} W = 8 - 1^2 = 7$.

# %%
tiny = spin(loads_game(TINY))
dist = tiny.win_distribution
Table(("figure", "by hand", "mathkit"),
      (("cycle", "8", str(tiny.cycle)), ("RTP", "1", str(tiny.rtp())), ("P(win)", "1/8", str(dist.hit_frequency())),
       ("variance of the win", "7", str(dist.variance()))), "The tiny game (bet 1 credit)")

# %% [markdown]
# **Two routes on a real game.**
# The RTP needs no enumeration: a line's symbols are independent across reels.
# So per-reel symbol counts give every pay combination's hits directly (`mathkit.exact.components`).
# Variance, hit frequency and tails need the law of the *sum* of all lines' wins.
# So the cycle itself is enumerated, by meeting in the middle (`mathkit.exact.cycle`).
# Reels 1–3 are reduced to a state: the win already fixed, the scatters seen, and the class of each line still alive.
# Equal states are grouped: thousands of stop triples collapse onto a few hundred states.
# Each group then meets reels 4–5 once, with counts multiplied.
# So a 78.6-million-outcome cycle is counted exactly in a fraction of a second.
# The mean of the enumerated distribution must equal the algebraic RTP *exactly*.

# %%
game = load_game(GAME)
t0 = time.perf_counter()
algebraic = component_rtp(game).rtp()
t1 = time.perf_counter()
counted = spin(game)
t2 = time.perf_counter()
Table(("route", "RTP (exact fraction)", "as a percentage", "time"),
      (("per-reel counts (no enumeration)", str(algebraic), f"{float(algebraic):.8%}", f"{1000 * (t1 - t0):.0f} ms"),
       ("whole cycle, met in the middle", str(counted.win_distribution.rtp()), f"{float(counted.win_distribution.rtp()):.8%}",
        f"{1000 * (t2 - t1):.0f} ms (a first call also loads the compiled kernels)")),
      f"{game.name}: {counted.cycle:,} outcomes; the routes agree exactly: {algebraic == counted.win_distribution.rtp()}")

# %% [markdown]
# The tests add a third route: a deliberately simple brute-force evaluator (`tests/test_engine_property.py`).
# It walks every outcome of hundreds of random small games and must agree with the fast engine exactly.

# %% [markdown]
# ## 2. Features as absorbing Markov chains
# A feature — free spins, a gamble ladder — is a walk on finitely many *transient* states that eventually ends (is *absorbed*).
# From state $i$ one step pays a reward and moves to state $j$ or ends.
# Let $Q$ be the matrix of transient-to-transient probabilities and $\bar r_i$ the expected reward of a step from $i$.
# With $\mathbf 1$ a vector of ones, the expected total reward $v$ and the expected number of steps $t$ solve
#
# $$(I - Q)\,v = \bar r, \qquad (I - Q)\,t = \mathbf 1,$$
#
# and the second moment $s$ of the total reward solves $(I - Q)\,s = \sum_o p_o \left(r_o^2 + 2\,r_o\,v_{\text{next}(o)}\right)$.
# These are linear solves, never an inverse: exact over Fractions for small chains, sparse floats for large ones.
#
# **By hand, on a tiny free-spin feature.**
# Two spins are awarded.
# Each spin pays 5 credits with probability 1/2 and nothing with probability 1/4.
# With probability 1/4 it pays nothing but adds one spin (a retrigger), so the spins left stay the same.
# From "1 left": $t_1 = 1 + \tfrac14 t_1$, so $t_1 = 4/3$, and $v_1 = \tfrac52 + \tfrac14 v_1$, so $v_1 = 10/3$.
# The second moment: $s_1 = \tfrac12 \cdot 25 + \tfrac14 s_1$, so $s_1 = 50/3$ and $\operatorname{Var} = 50/3 - 100/9 = 50/9$.
# From "2 left": $t_2 = 1 + \tfrac14 t_2 + \tfrac34 t_1$, so $t_2 = 8/3$, and likewise $v_2 = 20/3$.
# That is Wald's $E[N] = n/(1-m)$ with $m = 1/4$ spins added per spin.

# %%
chain = RewardChain.from_outcomes(
    ["2 left", "1 left"],
    [[(5, 1, Fraction(1, 2)), (0, 1, Fraction(1, 4)), (0, 0, Fraction(1, 4))],  # from "2 left"
     [(5, ABSORB, Fraction(1, 2)), (0, ABSORB, Fraction(1, 4)), (0, 1, Fraction(1, 4))]])  # from "1 left"
Table(("figure", "by hand", "mathkit"),
      (("E[spins] from 1 left", "4/3", str(chain.expected_steps("1 left"))),
       ("E[spins] from 2 left", "8/3", str(chain.expected_steps("2 left"))),
       ("E[win] from 1 left", "10/3", str(chain.expected_reward("1 left"))),
       ("E[win] from 2 left", "20/3", str(chain.expected_reward("2 left"))),
       ("Var[win] from 1 left", "50/9", str(chain.reward_variance("1 left", exact=True)))), "The tiny feature")

# %%
plots.state_diagram(["2 left", "1 left", "end"],
                    [(0, 0, "1/4: +1 spin"), (0, 1, "3/4"), (1, 1, "1/4: +1 spin"), (1, 2, "3/4")],
                    absorbing=["end"], title="The tiny feature: states are spins left")

# %% [markdown]
# **On a real feature.**
# Dynasty's free spins are the same chain, with the spins left as the state, built from the data.
# One free spin's exact joint law of (win, spins added) comes from counting the free-spin reel set's cycle.
# The spins left fall by at most one per spin, so a feature from n spins is n independent features from one spin.
# That gives closed forms: Wald's identity for the mean length, a branching recursion for the variance.
# Solving the chain itself must give the same numbers.

# %%
from mathkit.round import Engine

feature_game = load_game(FEATURE_GAME)
chain = feature_game.feature("free_spins").chain(Engine(feature_game))
closed, solved = chain.moments(10), chain.moments(10, by_chain=True, exact=False)
Table(("figure (10 spins awarded)", "closed form (exact)", "chain solved (float64)"),
      (("E[spins]", f"{float(closed.mean_spins):.12f}", f"{float(solved.mean_spins):.12f}"),
       ("E[win] (credits)", f"{float(closed.mean_win):.9f}", f"{float(solved.mean_win):.9f}"),
       ("σ[win] (credits)", f"{float(closed.var_win) ** 0.5:.9f}", f"{float(solved.var_win) ** 0.5:.9f}")),
      f"{feature_game.name}: free spins, m = {float(chain.m):.6f} spins added per spin")

# %% [markdown]
# ## 3. The simulation cross-check
# The simulator (`mathkit.sim`) is a literal player.
# It draws stops with a seeded generator, reads the window, pays lines and scatters, and plays any feature spin by spin.
# It shares only the game model and the window evaluation with the exact engine.
# So an error in the counting would show up as a disagreement.
# After N plays the simulated RTP should lie within $z \cdot \sigma / \sqrt N$ of the exact RTP ($z = 2.576$ for 99%).
# That is the band plotted below.

# %%
par = build_par(game)
sim = simulate(game, SPINS, seed=SEED, progress=False)
check = cross_check(sim, par)
check

# %%
fig = plots.rtp_range(par)
fig.add_scatter(x=[n for n, _ in sim.trace], y=[r for _, r in sim.trace], mode="lines", name="simulated, after N plays",
                line={"color": "#d62728", "width": 1.5})

# %% [markdown]
# ## Conclusion

# %%
Markdown(f"Counting the cycle, solving the feature chains and a simulated player give the same figures: the tiny examples match "
         f"their hand derivations exactly, the two counting routes agree to the last digit of a {counted.cycle:,}-outcome "
         f"fraction, and against {SPINS:,} simulated plays {check.verdict}.")
