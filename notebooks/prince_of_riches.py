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
# # Prince of Riches: the exact PAR sheet of a window that changes height, cash stacks, jackpots and growing free games
#
# What does Prince of Riches return, where does the return come from, and how sure can a reviewer be of each figure?
# Prince of Riches is a 5-reel video slot whose window is drawn 3 to 7 rows high at every spin, with 10 lines per row (30 to 70
# lines) at a fixed total bet.
# ACTIVATOR symbols on reels 1 and 5 carry 1× to 5× the total bet; when one shows with PRIZE symbols, every PRIZE stack becomes a
# chain of values A, 2A, 3A … from its bottom, A being the sum of the activators showing.
# A PRIZE with a jackpot mark gets no value and reveals a Mini (10×), Minor (20×), Major (200×) or Grand (500×) jackpot.
# 3 or more SCATTERs award 10 free games at the height that triggered them; the window may grow during them, and 3 or more SCATTERs
# add 10 more.
# The strips, pays and laws are our design (none are published), tuned to a declared 96.00%; where the rules can be read two ways,
# the reading we chose is written in the game file and shown first.

# %% tags=["parameters"]
import os

FAST = os.environ.get("MATHKIT_NOTEBOOK_FAST") == "1"  # the tests run every notebook with small parameters
GAME = "../data/games/prince_of_riches.toml"
SPINS = 2_000_000 if FAST else 50_000_000  # simulated rounds (a base spin and everything it starts)
SEED = 20261201

# %%
import plotly.graph_objects as go
from IPython.display import Markdown, display

from mathkit import plots
from mathkit.dev.pardoc import par_document
from mathkit.dev.render import Table, cross_check, feature_tables, readings_table, summary_table
from mathkit.gamefile.io import load_game
from mathkit.report.par import build_par
from mathkit.sim import simulate

game = load_game(GAME)
readings_table(game)

# %% [markdown]
# ## The exact PAR sheet
# Every height is its own spin, counted over its whole cycle (80 stops a reel, every stop of weight 1); the height law mixes them.
# The cash stacks are exact: the cash is A · S × bet, a product of two sums over the reels, and the engine conditions on the
# activators' values on reels 1 and 5 (a few dozen classes), inside which it is an ordinary per-stop win.
# A jackpot reveal is a stage after the spin, exact from the number of marks.
# The free games are a chain on (games left, height): where a height both grows and retriggers the mean is irrational, so those
# figures are solved in float64 to about 15 digits and marked *markov*.

# %%
par = build_par(game, parallel=True)
summary_table(par)

# %%
for table in feature_tables(par):
    display(table)

# %%
plots.rtp_by_component(par)

# %% [markdown]
# ## The cash stacks on one window, by hand
# A 5-row window on the strips themselves, at stops (1, 10, 9, 6, 1) (from 1), chosen to show every rule at once.
# Reel 1 shows ACT1 and reel 5 ACT2: two activators together, A = 1 + 2 = 3 (× bet).
# Reel 2 shows the bottom PRIZE of a stack of two, cut by the window's top edge: it is the lowest visible PRIZE, so it gets A = 3.
# Reel 3 shows a stack of four whose lowest PRIZE is a jackpot PRIZE: the chain skips it (no value, one jackpot revealed) and runs
# through the three PRIZEs above it: 3, 6, 9 (the value passes over the jackpot PRIZE: chain = "pass").
# Reel 4 shows the top two PRIZEs of a stack of three, cut by the bottom edge: counted from the lowest visible one, 3 and 6.
# By hand: 0 + 3 + (3 + 6 + 9) + (3 + 6) + 0 = 30 × bet of cash, and one jackpot.

# %%
reels = game.reel_set("base")
stops = (0, 9, 8, 5, 0)
window = [[reels.strips[r][(s + k) % len(reels.strips[r])] for k in range(5)] for r, s in enumerate(stops)]
assert [window[0][0], window[4][0]] == ["ACT1", "ACT2"] and window[1][0] == "PRIZE" and window[3][3:] == ["PRIZE"] * 2
assert window[2][:4] == ["PRIZE", "PRIZE", "PRIZE", "PRIZE_J"], "the worked window is not on the strips any more"
by_hand = (3, [0, 3, 3 + 6 + 9, 3 + 6, 0])  # A, then each reel's cash (× bet), from the rules above
cash = game.feature("cash_stacks")
a, values = cash.window_values(game, window)
assert (a, [sum(column) for column in values]) == by_hand, "the engine's window values differ from the hand derivation"
rows = tuple(tuple(window[r][k] + (f" = {values[r][k]}×" if values[r][k] else "") for r in range(5)) for k in range(5))
display(Table(tuple(f"reel {r + 1}" for r in range(5)), rows, f"A = {a}× bet: each cell's cash value"))
total = int(sum(sum(column) for column in values))
marks = sum(column.count("PRIZE_J") for column in window)
Markdown(f"The window pays **{total}× bet** of cash ({total * par.total_bet:,} credits) and reveals {marks} jackpot, "
         "as derived by hand.")

# %% [markdown]
# The cash of a spin is A · S × bet, with S the sum over the window's stacks of their eligible PRIZEs' chain positions (1, 2, 3 …
# from the bottom).
# Reels stop independently, and A = Σ a_r, S = Σ s_t are sums of per-reel parts, so E[A·S] = Σ_r E[a_r s_r] + Σ_{r≠t} E[a_r] E[s_t]:
# per-reel algebra, no enumeration of the 80⁵ windows.
# Below, each reel's law of (a_r, s_r) at 5 rows is read straight from its strip, in fractions, and the formula is set against the
# engine's exact base-game cash at a window fixed at 5 rows.

# %%
import dataclasses
from fractions import Fraction

from mathkit.features.cash_stacks import chain_positions
from mathkit.round import analyse

ROWS = 5
reels = game.reel_set("base")
prizes, skipped = frozenset(cash.prizes), cash.skipped(game)
e_a, e_s, e_as = [], [], []
for r, strip in enumerate(reels.strips):
    weights = reels.weights[r] if reels.weights is not None else (1,) * len(strip)
    columns = [[strip[(i + k) % len(strip)] for k in range(ROWS)] for i in range(len(strip))]
    a_r = [sum((cash.value(x) for x in c if x in cash.names), Fraction(0)) for c in columns]
    s_r = [sum(chain_positions(c, prizes, skipped, cash.chain)) for c in columns]
    n = sum(weights)
    e_a.append(sum(w * x for w, x in zip(weights, a_r, strict=True)) / n)
    e_s.append(Fraction(sum(w * x for w, x in zip(weights, s_r, strict=True)), n))
    e_as.append(sum(w * x * y for w, x, y in zip(weights, a_r, s_r, strict=True)) / n)
formula = sum(e_as) + sum(e_a[r] * e_s[t] for r in range(5) for t in range(5) if r != t)
at_five = game.without_feature("free_games").with_features(
    dataclasses.replace(game.feature("variable_heights"), heights=((ROWS, 1),)))
engine = analyse(at_five, level="mean").breakdown()["cash stacks"]
assert formula == engine, (formula, engine)
Markdown(f"At {ROWS} rows a base spin pays E[A·S] = **{float(formula):.9f} × bet** of cash by the per-reel formula "
         f"({formula.numerator:,}/{formula.denominator:,}), exactly the engine's figure.")

# %% [markdown]
# ## Free games on a growing window
# A feature is a walk on (games left, height): every game uses one, 3+ SCATTERs add 10, and after every game the window grows one
# row with the probability its height gives (1/4 at 3 rows … 1/7 at 6); it never shrinks.
# At 7 rows the games left are independent trees (Wald); below, the growth couples them, and the value from n games is αn + β(1 −
# ρⁿ) + … with ρ a root of a polynomial.

# %%
fg = dict(next(s for s in par.features if s.name == "Free games").figures)
plots.state_diagram(["(n + 9, h)", "(n, h)", "(n − 1, h)", "(n − 1, h + 1)", "end"],
                    [(1, 0, "3+ SCATTER, no growth"), (1, 2, "no growth"), (1, 3, "grows"), (2, 4, "n = 1: over")],
                    absorbing=["end"], title=f"Free games: 1 round in {1 / fg['trigger probability'].value:.1f}; "
                    f"E[length] = {fg['expected length (games)'].value:.4f} games")

# %%
rows = next(s for s in par.features if s.name == "Free games").table
heights = [r[0] for r in rows[1:]]
fig = go.Figure([go.Bar(x=heights, y=[float(r[5]) for r in rows[1:]], name="expected games at the height"),
                 go.Bar(x=heights, y=[float(r[6]) for r in rows[1:]], name="P(the last game is at the height)",
                        yaxis="y2")])
fig.update_layout(template="mathkit", barmode="group", title="Free games: where they are played and where they end",
                  xaxis_title="height (rows)", yaxis_title="games", yaxis2={"overlaying": "y", "side": "right",
                                                                            "title": "probability"})
fig

# %% [markdown]
# ## Per starting height
# Each height played as its own game: the base spin at h rows, and the free games it triggers start there (and may grow).
# The PAR sheet's *Variable reels* section holds the table: per height the whole round's RTP and its parts, the cash stacks'
# return over the whole round (base spin and free games), and how often a round from that height enters each feature.
# The height law's mix of the RTPs is the game's RTP, and its mix of the entries is each feature's trigger probability, exactly.

# %%
heights_section = next(s for s in par.features if s.name == "Variable reels")
by = dict(heights_section.figures)
law = game.feature("variable_heights")
mixed = sum(float(law.probability(h)) * by[f"RTP of a round starting at height {h}"].value for h, _ in law.heights)
assert abs(mixed - par.rtp.value) < 1e-12, "the heights' mix is not the game's RTP"
entries = sum(law.probability(h) * by[f"Free games: trigger probability at height {h}"].exact for h, _ in law.heights)
assert entries == fg["trigger probability"].exact, "the heights' mix is not the free games' trigger"
display(Table(heights_section.table[0], heights_section.table[1:], "Per starting height (exact / Markov means)"))

# %% [markdown]
# ## How the wins are spread
# The distribution of a whole round's win — its height, cash, jackpots and the free games it starts — and the RTP a player can
# expect after N rounds.

# %%
plots.win_distribution(par.distribution)

# %%
plots.rtp_range(par)

# %% [markdown]
# ## Cross-check: a simulated player
# The independent simulator plays every round literally: the height, the window, the cash stacks and the jackpot reveals, the free
# games and their growth (the generic driver of `mathkit.sim`, from the blocks' tables; docs/simulator.md).
# Every exact or Markov figure must lie within its 99% interval for that many rounds.

# %%
sim = simulate(game, SPINS, seed=SEED, progress=False)
check = cross_check(sim, par)
verdict = check.verdict
display(check)

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
comps = {k: f.value for k, f in par.components.items()}
free = sum(v for k, v in comps.items() if k.startswith("free games"))
jack = sum(v for k, v in comps.items() if "jackpots" in k)
Markdown(f"Prince of Riches returns {par.rtp.value:.4%} ({par.rtp.method}; declared 96.00%): "
         f"{comps['lines']:.2%} from base-game lines, {comps['cash stacks']:.2%} from base-game cash stacks, "
         f"{jack:.2%} from jackpots and {free:.2%} from free games that come 1 round in "
         f"{1 / fg['trigger probability'].value:.0f}; σ is {par.sd.value:.2f} × bet, and {verdict}.")
