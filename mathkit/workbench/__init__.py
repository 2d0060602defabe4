"""The workbench: widgets over a game's exact maths (see :mod:`mathkit.workbench.app`).

``model`` holds the edits and figures without widgets, ``views`` the text and HTML
shown, ``editors`` the editor widgets, ``app`` the :class:`Workbench` that wires them.
"""

from __future__ import annotations

from .app import Workbench, build_workbench

__all__ = ["Workbench", "build_workbench"]
