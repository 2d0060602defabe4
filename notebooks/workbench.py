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
# # The workbench
#
# Pick a game and a reel set (the free-spin sets too) and edit its strips, pays, features and targets.
# The exact RTP, σ, hit frequency, tables and plots follow every edit.
# The strip grid has one column per reel with stop numbers and stacks (┌ │ └).
# Select a stop (shift-click for a block), pick its symbol, or insert, delete and move stops.
# *paste* takes columns copied from a spreadsheet; the text form stays for power users.
# The *targets* tab compares the RTP with the declared RTP and σ and hit frequency with the bands of the game file.
# There *tune* proposes a change, shown as a diff before it is applied.
# *tables* has the hits and return of every combination, the exact ∂RTP per symbol per reel and the win bands.
# *compare* sets two versions side by side.
# An invalid edit shows what is wrong and keeps the last valid game; *undo* steps back.
# *Save as* writes into `data/games/` atomically, as an edit of the file: only the edited values change.
# The exact RTP comes first (milliseconds); σ, ∂RTP and the distribution follow from a worker process, with a progress line.
# The logic lives in `mathkit.workbench`; this notebook only shows it.

# %% tags=["parameters"]
GAME = None  # a file under DATA_DIR (e.g. "classic/double_sevens.toml"), or None: $MATHKIT_GAME, else Dynasty, else the benchmark game
DATA_DIR = "data/games"  # the games folder (relative to the project when not found from here)
MODE = "auto"  # "auto": slow figures in a worker process; "process", "thread" or "sync"
COMPARE = ("classic_3reel.toml", 0.85)  # the comparison below: a game and the RTP a variant of it is tuned to

# %%
import os

from IPython.display import HTML, Markdown, display

RENDER = bool(os.environ.get("MATHKIT_RENDER"))  # a reviewer's HTML: no kernel behind the widgets
APP = bool(os.environ.get("VOILA_KERNEL_ID"))  # the app page (make app): the workbench only
GAME = GAME or os.environ.get("MATHKIT_GAME") or None  # `make lab GAME=…` / `make app GAME=…` set MATHKIT_GAME
loading = display(HTML("<b>⏳ Loading mathkit…</b> <small>(the first run on a machine compiles the exact kernels: up to a minute)</small>"),
                  display_id=True)
from mathkit.workbench import build_workbench

loading.update(HTML("<b>⏳ Loading the game, its exact RTP and the worker for σ and the distribution…</b>"))
wb = build_workbench(GAME, DATA_DIR, mode="sync" if RENDER else MODE, live_figures=not RENDER)
if APP:  # an app page opens with every figure ready within 5 s filled in; a slower game's (Warlords) follow on the page
    wb.wait(5)
loading.update(HTML("<small>✓ workbench ready; σ and the distribution follow below the RTP when they are computed.</small>"))
wb

# %%
# A rendered report has no kernel, so it shows the figures as a static copy here.
if RENDER:
    wb.wait()
    wb.figures.widget.show()

# %%
# The comparison of two versions belongs to the notebook and the rendered report, not to the app page.
if not APP:
    from fractions import Fraction

    from mathkit.gamefile.io import load_game
    from mathkit.tuner import tune
    from mathkit.workbench.compare import compare_games, comparison_html
    from mathkit.workbench.model import resolve_data_dir

    display(Markdown(
        "## Comparing two versions\n\n"
        "What a variant changes and what it does to the figures, as a reviewer would receive an RTP variant. "
        f"Here: `{COMPARE[0]}` against the variant the tuner (`mathkit.tuner`) makes for {float(COMPARE[1]):.2%}. "
        "Each figure is exact where it says so; Δ is B − A."))
    original = load_game(resolve_data_dir(DATA_DIR) / COMPARE[0])
    variant = tune(original, Fraction(str(COMPARE[1]))).game
    comparison = compare_games(original, variant, labels=(f"{original.name} as shipped", f"tuned to {float(COMPARE[1]):.2%}"))
    display(HTML(comparison_html(comparison)))
    display(Markdown("The variant differs from the shipped game only in the strips and the declared RTP listed above. "
                     "Its RTP is the target within ±0.005 pp, exactly."))
