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
# # Warlords – Crystals of Power: the round, its chains, its exact RTP and σ
#
# What does Warlords return, how volatile is it, and how sure can a reviewer be of each figure?
# Warlords is a 5-reel, 3-row, 30-line slot whose features chain into each other: a Random Overlay Wild on any main-game spin;
# two or more of three scatter types start re-spins, after a battle when the types differ; the re-spins end in a final chance
# or in one of three free-spin games (Barbarian, Priestess, Samurai); a round's win is capped at 100,000 coins × the bet level.
# The strips, pays and laws are our design (none are published), tuned to the stated 96.89%; where the rules can be read two
# ways, the reading we chose is written in the game file and shown first.

# %% tags=["parameters"]
import os

FAST = os.environ.get("MATHKIT_NOTEBOOK_FAST") == "1"  # the tests run every notebook with small parameters
GAME = "../data/games/warlords.toml"
SPINS = 2_000_000 if FAST else 20_000_000  # simulated rounds for the cross-check
SEED = 1
# rounds per sampled part of the round; None: `mathkit par`'s default (2,097,152, seed 2026), so the page and the
# CLI's sheet and XLSX agree figure for figure
SAMPLE_ROUNDS = 500_000 if FAST else None

# %%
import plotly.graph_objects as go
from IPython.display import Markdown, display

from mathkit import plots
from mathkit.dev.pardoc import par_document
from mathkit.dev.render import Table, feature_tables, readings_table
from mathkit.errors import ModelError
from mathkit.gamefile.io import load_game
from mathkit.report.par import Z, build_sheet
from mathkit.sim import simulate
from mathkit.sim.sampling import route_sampler

game = load_game(GAME)
readings_table(game)

# %% [markdown]
# ## The round
# A main-game spin is an overlay spin with probability 1/45 (its own reel set, no scatters, wilds laid over it); otherwise it
# plays the base strips, and 2 or 3 scatters on reels 2–4 start the re-spins.
# Scatters of different types battle first; the winners' cells are held and every other cell re-spins until a re-spin adds
# no scatter of the active type.
# With 3+ held scatters the active type's free spins start; re-spins started by 2 scatters that add none end in the final
# chance (coins, or one more scatter and the free spins at once).

# %%
import numpy as np

from mathkit.round import Engine

# the costliest part of the sheet first: Samurai's E[W] and E[W²] from every sticky mask (kept for the sheet below)
eng = Engine(game)
samurai = game.feature("samurai")
a, b = samurai.moments(eng)

# %%
sheet = build_sheet(game, parallel=True, sampler=route_sampler(game, SAMPLE_ROUNDS, None))
sections = {s.name: dict(s.figures) for s in sheet.features}


def fig(section: str, name: str) -> float:
    return sections[section][name].value


respins = next(k for k in sections if k.startswith("Re-spins"))
p_re = fig(respins, "trigger probability")
free = {k.split(": ")[1]: fig(k, "trigger probability") for k in sections
        if k.startswith("Free spins:") and k != "Free spins: any type"}  # the combined section is not a game
fc = fig(respins, "final chance (given re-spins)")
plots.state_diagram(
    ["main spin", "overlay spin", "battle / re-spins", "final chance", "Barbarian", "Priestess", "Samurai", "end"],
    [(0, 1, "1/45"), (0, 2, f"{p_re:.4g}"), (0, 7, "no scatter pair"), (2, 3, f"{fc:.3g}"),
     *((2, i, f"{free[n] / p_re:.3g}") for i, n in ((4, "barbarian"), (5, "priestess"), (6, "samurai"))),
     (3, 7, "coins 1/2"), (1, 7, "lines"), (4, 7, ""), (5, 7, ""), (6, 7, "")],
    layout="circle", absorbing=["end"], title="Warlords: a round, from the main spin to its end")

# %% [markdown]
# ## The PAR sheet
# Every component is an exact fraction: the base and overlay lines over the whole cycle (an overlay placement is priced from the
# per-line forced-cell table), the re-spins as a held-cell chain solved exactly in integers, each free-spin game from its own
# chain.
# The cap's effect is a proven bound (a Chernoff bound on the unbounded Barbarian and Priestess tails), so the total is tagged
# *markov* with the decimals that bound leaves certain.
# σ is exact: the second moment of a spin with fixed wild cells is a sum over line pairs whose joint law factorises reel by reel,
# and every chain carries its second moment (Samurai: a recursion over all 32,768 sticky masks).

# %%
sd = sheet.sd_moments
assert sd is not None
rows = [(f"RTP: {k}", f"{f.value:.6%}", f.method) for k, f in sheet.components.items()]
rows.append(("RTP", f"{sheet.rtp.value:.6%}", f"{sheet.rtp.method} = {sheet.rtp.digits or sheet.rtp.exact_str()}"))
rows.append(("σ per total bet", f"{sd.value:.6f}", sd.method))
rows += [(f"volatility index {k}", f"{z * sd.value:.4f}", sd.method) for k, z in Z.items()]
if sheet.cap is not None and sheet.cap_probability is not None:
    rows.append(("cap (× bet)", f"{sheet.cap.value:,.4f}", "exact"))
    rows.append(("P(cap)" + (" (an upper bound)" if sheet.cap_probability_bound else ""),
                 f"{sheet.cap_probability.value:.3g}", sheet.cap_probability.method))
rows += [(k.replace("_", " "), "—", why) for k, why in sheet.not_computed.items()]
if sheet.mixed is not None:
    rows += [(label, "interval" if e.interval else f"{e.value:.6g}", sheet.mixed.describe(e))
             for _, label, e in sheet.mixed.rows()]
Table(("figure", "value", "how obtained"), tuple(rows), f"{game.name}: {sheet.lines} lines, total bet {sheet.total_bet}")

# %%
plots.rtp_by_component(sheet.components)

# %%
bands = plots.rtp_range_bands(sheet.rtp.value, {k: z * sd.value for k, z in Z.items()})
n = list(plots.RANGE_N)
rr = go.Figure()
for level, (lo, hi) in bands.items():
    rr.add_scatter(x=n, y=hi, mode="lines", name=f"{level} high")
    rr.add_scatter(x=n, y=lo, mode="lines", name=f"{level} low")
rr.update_layout(template="mathkit", title="RTP after N rounds: RTP ± VI/√N (σ exact)", xaxis_type="log",
                 xaxis_title="rounds", yaxis_title="RTP", yaxis_tickformat=".1%")
rr

# %% [markdown]
# ## The whole round's win distribution
# Where the exact engine gives the round's distribution it is exact; the parts it leaves out (the overlay types and
# free-spin games too costly to enumerate) are sampled by the simulator, each conditional on its own route, and mixed in
# with their exact probabilities.  Every figure below says which: *exact*, *exact+sampled* (an exact part and sampled
# parts) or *sampled* (the whole round sampled), with its 99% interval (the exact part adds no width); where a proven
# tail bound is tighter than the sample (the cap) the bound is shown and marked.
# A figure whose sample does not resolve it (a 99% half-width above 10% of it, or no sampled round reached it: P(win ≥ 1000×
# bet), P(cap)) has no point value: its interval is the figure.

# %%
mixed = sheet.mixed
assert mixed is not None
rows = [(label, "interval" if e.interval else f"{e.value:.6g}", f"{e.low:.4g} – {e.high:.4g}",
         ("bound " if e.bound else "not resolved to a point: the interval is the figure; " if e.interval else "")
         + e.method) for _, label, e in mixed.rows()]
rows += [(f"sampled part: {r['route']}", f"P = {r['probability']:.4g}", f"{r['draws']:,} draws", r["how"])
         for r in mixed.route_rows()]
display(Table(("figure", "value", "99% interval", "how obtained"), tuple(rows),
              f"{game.name}: the round's win distribution [{mixed.method}], seed {mixed.seed}"))
Table(("win band (× bet)", "probability", "99% interval", "RTP part"),
      tuple((b.label, f"{b.probability.value:.4g}", f"{b.probability.low:.3g} – {b.probability.high:.3g}",
             f"{b.rtp.value:.4%}") for b in mixed.bands), f"win bands [{mixed.method}]")

# %%
xs, ps, lo, hi = mixed.exceedance
keep = sorted({int(i) for i in np.unique(np.geomspace(1, len(xs), 400).astype(int) - 1)}) if xs else []
ex = go.Figure()
ex.add_scatter(x=[xs[i] for i in keep], y=[hi[i] for i in keep], mode="lines", line={"width": 0}, showlegend=False)
ex.add_scatter(x=[xs[i] for i in keep], y=[max(lo[i], 1e-12) for i in keep], mode="lines", line={"width": 0},
               fill="tonexty", name="99% interval")
ex.add_scatter(x=[xs[i] for i in keep], y=[ps[i] for i in keep], mode="lines", line_shape="hv", name="P(W ≥ x)")
ex.update_layout(template="mathkit", title=f"P(round win ≥ x × bet) [{mixed.method}]", xaxis_type="log",
                 yaxis_type="log", xaxis_title="x (× total bet)", yaxis_title="P(W ≥ x)")
ex

# %% [markdown]
# ## Each feature's chain
# The blocks' own sections: the overlay types, the battle and re-spins with the final chance, and the three free-spin games.

# %%
for table in feature_tables(sheet):
    display(table)

# %% [markdown]
# ### Samurai: sticky masks
# Samurai free spins play 5 spins; every red scatter becomes a sticky wild for the rest of the feature.
# From any set of sticky cells, E[W] and E[W²] come from a backwards recursion over the 2¹⁵ masks; the mean agrees with the
# block's separate per-line formula on every mask (checked here), and both are checked against brute force on small games.

# %%
every = np.arange(1 << 15, dtype=np.int64)
assert all(x == y for x, y in zip(a, samurai.mean_ratios(eng, every), strict=True)), "the two mean methods disagree"
starts = {"reels 2–4, middle row": ((1, 1), (2, 1), (3, 1)), "reels 1, 3, 5, top row": ((0, 0), (2, 0), (4, 0)),
          "reel 3, all rows": ((2, 0), (2, 1), (2, 2))}
rows = []
for label, cells in starts.items():
    m = sum(1 << (3 * r + k) for r, k in cells)
    mean, m2 = a[m], b[m]
    rows.append((label, f"{float(mean) / sheet.total_bet:.4f}", f"{float(m2 - mean * mean) ** 0.5 / sheet.total_bet:.4f}"))
Table(("sticky cells at the start", "E[feature win] (× bet)", "σ (× bet)"), tuple(rows), "Samurai free spins (exact)")

# %% [markdown]
# ## Cross-check: a simulated player
# The independent simulator plays every round literally and every exact or Markov figure must lie within its 99% interval.
# Where the simulator does not play Warlords yet, its refusal is shown as it is.

# %%
try:
    sim = simulate(game, SPINS, seed=SEED, progress=False)
    lo, hi = sim.rtp.interval(0.99)
    inside = lo <= sheet.rtp.value <= hi
    verdict = (f"{SPINS:,} simulated rounds give RTP {sim.rtp.value:.4%} (99%: {lo:.4%} – {hi:.4%}), "
               f"{'which holds' if inside else 'which does NOT hold'} the exact {sheet.rtp.value:.4%}")
    display(Markdown(verdict))
except ModelError as exc:  # until the generic simulator plays every block of this game
    verdict = f"no simulation was run ({exc})"
    display(Markdown(f"**Not checked by simulation:** {exc}"))

# %% [markdown]
# ## The PAR document
# What identifies the maths on this page (the game file's SHA-256, mathkit's version and commit, the render date), the
# configuration, every reel set's strips with their weights, the symbol counts per reel, the paytable with hits and RTP per
# combination, the seed and size of every sampled figure, and the certification checks (`mathkit check`, GLI-11 profile).

# %%
for table in par_document(game, sheet, GAME, simulations=[("cross-check simulation", SPINS, SEED)]):
    display(table)

# %% [markdown]
# ## Conclusion

# %%
comps = {k: f.value for k, f in sheet.components.items()}
fs = sum(v for k, v in comps.items() if k.startswith("free spins"))
ov = sum(v for k, v in comps.items() if k.startswith("overlay"))
Markdown(f"Warlords returns {sheet.rtp.value:.4%} ({sheet.rtp.method}; declared 96.89%): {comps['lines']:.2%} from "
         f"main-game lines, {ov:.2%} from overlay wilds, {comps['final chance coins']:.2%} from final-chance coins and "
         f"{fs:.2%} from the three free-spin games; σ is {sd.value:.4f} × bet ({sd.method}); {verdict}.")
