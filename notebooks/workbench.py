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
# Pick a game, edit its reel strips, paytable and free-spin parameters, and read the exact RTP, σ, hit frequency and plots as you type.
# Strips are edited as text (space-separated symbols; a weighted stop is `NAME*weight`); a change applies when the box loses focus.
# An invalid edit shows what is wrong and keeps the last valid game; *undo* steps back.
# *Save as* writes a new file into `data/games/` (atomically) and replaces an existing one only when asked.
# The exact RTP and its breakdown come first (milliseconds); σ and the distribution follow.
# When those take longer than half a second they run in the background, with a progress line.
# The logic lives in `mathkit.workbench`; this notebook only shows it.

# %% tags=["parameters"]
GAME = None  # a file name in DATA_DIR, or None: Dynasty if present, else the benchmark game
DATA_DIR = "data/games"  # the games folder (relative to the project when not found from here)
MODE = "auto"  # "auto": σ and distribution in the background when slow; "sync"; "thread"

# %%
from mathkit.widgets import build_workbench

wb = build_workbench(GAME, DATA_DIR, mode=MODE)
wb

# %% [markdown]
# A rendered report has no kernel, so the live figure above cannot draw there; `make render` adds a static copy below.

# %%
import os

if os.environ.get("MATHKIT_RENDER"):
    import plotly.graph_objects as go

    wb.wait()
    go.Figure(wb.figures.widget).show()
