"""What a workbench panel is: a tab of its own, told when the game changes and when slow figures arrive.

A panel is one module (``strips``, ``paytable``, ``targets``, ``tables``,
``compare``, ``files`` …) holding a :class:`Panel` subclass; the
:class:`~mathkit.workbench.app.Workbench` lists its panels in
:data:`~mathkit.workbench.app.PANELS` and calls, for each:

* :meth:`Panel.load` when a game is opened or the reel set switched (rebuild widgets);
* :meth:`Panel.refresh` after every edit and undo (write the game into the widgets, update cheap figures);
* :meth:`Panel.show_slow` when a slow figure of the current edit arrives (``"sd"``, ``"sensitivity"``, ``"par"``).

A panel changes the game only through :meth:`Host.edit`, so every change is
validated, undoable and drawn the same way.  A new panel (player sessions …)
is a module with a subclass and one line in ``PANELS``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol

import ipywidgets as widgets

from ..model.game import Game
from .model import Quick

__all__ = ["Host", "Panel", "button", "html"]


class Host(Protocol):
    """What a panel sees of the workbench."""

    game: Game
    reels: str
    path: Path | None
    data_dir: Path
    saved_game: Game | None
    quick: Quick | None
    saved_quick: Quick | None

    def edit(self, change: Callable[[Game], Game], source: widgets.DOMWidget | None = None,
             what: str = "") -> bool: ...

    def suppressed(self, fn: Callable[[], Any]) -> Any: ...

    def fail(self, exc: Exception, source: widgets.DOMWidget | None = None) -> None: ...

    def say(self, text: str) -> None: ...


class Panel:
    """Base of the workbench's panels: a titled widget and three hooks (no-ops here)."""

    title: ClassVar[str] = ""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.widget: widgets.Widget = widgets.VBox()

    def load(self) -> None:
        """A game was opened or the reel set switched: rebuild the widgets."""

    def refresh(self) -> None:
        """The game changed (an edit, an undo): show it."""

    def show_slow(self, step: str, value: Any) -> None:
        """A slow figure of the current edit is ready: ``step`` is ``"sd"``, ``"sensitivity"`` or ``"par"``."""


def html(cls: str, value: str = "") -> widgets.HTML:
    """An HTML widget with a CSS class (stable selectors for tests)."""
    w = widgets.HTML(value)
    w.add_class(cls)
    return w


def button(text: str, cls: str, icon: str = "", tooltip: str = "") -> widgets.Button:
    """A button sized to its text, with a CSS class."""
    b = widgets.Button(description=text, icon=icon, tooltip=tooltip or text, layout=widgets.Layout(width="auto"))
    b.add_class(cls)
    return b
