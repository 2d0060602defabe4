"""The workbench UI (ipywidgets), glue only: the code lives in :mod:`mathkit.workbench`.

Examples
--------
>>> from mathkit.widgets import build_workbench
>>> wb = build_workbench("data/games/classic_3reel.toml", mode="sync")
>>> wb.strips[0].value.split()[:2]
['WILD', 'BLANK*3']
"""

from __future__ import annotations

from .workbench import Workbench, build_workbench

__all__ = ["Workbench", "build_workbench"]
