"""The workbench: widgets over a game's exact maths (see :mod:`mathkit.workbench.app`).

``model`` and ``stripops`` hold the edits without widgets, ``views`` the text and HTML
shown, ``worker`` and ``scheduler`` the slow figures (in a worker process), one module
per tab (``strips``, ``editors``, ``targets``, ``tables``, ``compare``, ``files``; see
``panel``), ``figures`` the plots, ``app`` the :class:`Workbench` that wires them.
"""

from __future__ import annotations

from .app import Workbench, build_workbench

__all__ = ["Workbench", "build_workbench"]
