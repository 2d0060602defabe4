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
# Prince of Riches is a 5-reel video slot whose window is drawn 3 to 7 rows high at every spin, with 10 lines per row (30 to 70 lines) at a fixed total bet.
# ACTIVATOR symbols on reels 1 and 5 carry 1× to 5× the total bet; when one shows with PRIZE symbols, every PRIZE stack becomes a chain of values A, 2A, 3A … from its bottom, A being the sum of the activators showing.
# A PRIZE with a jackpot mark gets no value and reveals a Mini (10×), Minor (20×), Major (200×) or Grand (500×) jackpot.
# 3 or more SCATTERs award 10 free games at the height that triggered them; the window may grow during them, and 3 or more SCATTERs add 10 more.
# The strips, pays and laws are our design (none are published), tuned to a declared 96.00%; where the rules can be read two ways, the reading we chose is written in the game file and shown first.

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
from mathkit.errors import ModelError
from mathkit.io import load_game
from mathkit.par import build_par
from mathkit.render import Table, cross_check, feature_tables, readings_table, summary_table
from mathkit.simulate import simulate

game = load_game(GAME)
readings_table(game)

# %% [markdown]
# ## The exact PAR sheet
# Every height is its own spin, counted over its whole cycle (80 stops a reel; reel 3 weighted); the height law mixes them.
# The cash stacks are exact: the cash is A · S × bet, a product of two sums over the reels, and the engine conditions on the activators' values on reels 1 and 5 (a few dozen classes), inside which it is an ordinary per-stop win.
# A jackpot reveal is a stage after the spin, exact from the number of marks.
# The free games are a chain on (games left, height): where a height both grows and retriggers the mean is irrational, so those figures are solved in float64 to about 15 digits and marked *markov*.

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
# Reel 1 shows ACT2 and a stack of two PRIZEs; reel 2 a stack cut by the top edge with a jackpot PRIZE inside; reel 3 one PRIZE; reel 4 a stack cut by the bottom edge; reel 5 ACT3.
# So A = 2 + 3 = 5 (× bet): each stack counts from its lowest visible PRIZE, 5, 10 …; the jackpot PRIZE is skipped and its value passes on to the PRIZE above it.

# %%
window = [["ACT2", "J", "PRIZE", "PRIZE", "Q"], ["PRIZE", "PRIZE_J", "PRIZE", "K", "Q"], ["Q", "K", "PRIZE", "A", "J"],
          ["J", "Q", "K", "PRIZE", "PRIZE"], ["K", "ACT3", "A", "Q", "TEN"]]
cash = game.feature("cash_stacks")
a, values = cash.window_values(game, window)
rows = tuple(tuple(f"{window[r][k]}" + (f" = {values[r][k]}×" if values[r][k] else "") for r in range(5)) for k in range(5))
display(Table(tuple(f"reel {r + 1}" for r in range(5)), rows, f"A = {a}× bet: the cells' values"))
total = sum(sum(col) for col in values)
Markdown(f"The window pays **{total}× bet** of cash ({total * par.total_bet:,} credits) and reveals one jackpot: "
         f"reel 1 5 + 10, reel 2 5 + 10 over the skipped jackpot PRIZE, reel 3 5, reel 4 5 + 10.")

# %% [markdown]
# The cash of a spin is A · S × bet, with S the sum over the window's stacks of their PRIZEs' chain positions.
# Reels stop independently, so its mean is per-reel algebra, E[A·S] = Σ_r E[a_r s_r] + Σ_{r≠t} E[a_r] E[s_t]; here it is at 5 rows, from each reel's exact law of (a_r, s_r), against the engine's exact mean.

# %%
from mathkit.features.base import modified  # noqa: E402
from mathkit.round import Engine  # noqa: E402

eng = Engine(game)
five = next(m for _, m, _ in modified(eng, eng.base_model()) if m.rows == 5)
st = eng.stops(five)
ia, isteps = st.index("cash_stacks:activators"), st.index("cash_stacks:steps")
means = [[(o[:, i] * w).sum() / w.sum() for i in (ia, isteps)] for o, w in zip(st.obs, st.weights)]
same = sum((o[:, ia] * o[:, isteps] * w).sum() / w.sum() for o, w in zip(st.obs, st.weights))
cross = sum(means[r][0] * means[t][1] for r in range(5) for t in range(5) if r != t)
by_hand = (same + cross) * par.total_bet
Markdown(f"At 5 rows: E[A·S] × bet = {float(by_hand):,.6f} credits by the formula, "
         f"{float(eng.means(five)['cash stacks']):,.6f} credits from the engine.")

# %% [markdown]
# ## Free games on a growing window
# A feature is a walk on (games left, height): every game uses one, 3+ SCATTERs add 10, and after every game the window grows one row with the probability its height gives (1/4 at 3 rows … 1/7 at 6); it never shrinks.
# At 7 rows the games left are independent trees (Wald); below, the growth couples them, and the value from n games is αn + β(1 − ρⁿ) + … with ρ a root of a polynomial.

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
# ## How the wins are spread
# The distribution of a whole round's win — its height, cash, jackpots and the free games it starts — and the RTP a player can expect after N rounds.

# %%
plots.win_distribution(par.distribution)

# %%
plots.rtp_range(par)

# %% [markdown]
# ## Cross-check: a simulated player
# The independent simulator plays every round literally: the height, the window, the cash stacks and the jackpot reveals, the free games and their growth.
# Every exact or Markov figure must lie within its 99% interval for that many rounds.

# %%
try:
    sim = simulate(game, SPINS, seed=SEED, progress=False)
    check = cross_check(sim, par)
    verdict = check.verdict
    display(check)
except ModelError as exc:  # until the generic simulator plays every block of this game
    verdict = f"no simulation was run: {exc}"
    display(Markdown(f"**Not checked by simulation:** {exc}."))

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
