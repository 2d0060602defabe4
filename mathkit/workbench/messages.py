"""Where an invalid edit's message shows: right below the row of the control that was edited.

The workbench has one message widget for an invalid edit.  :func:`place_below` moves it into the widget tree
just after the row that holds the edited control (the nearest vertical box above the control gets the message
after the child on the way down to it), so the designer reads it where they typed, on whatever tab and however far
down a long paytable; an edit with no control (a file that does not load) shows it in the slot at the top.

Examples
--------
>>> import ipywidgets as widgets
>>> box = widgets.IntText(); row = widgets.HBox([widgets.Label("pay"), box]); tab = widgets.VBox([row, widgets.Label("x")])
>>> msg, top = widgets.HTML("⚠"), widgets.VBox()
>>> place_below(tab, box, msg, top)
True
>>> [type(c).__name__ for c in tab.children]
['HBox', 'HTML', 'Label']
>>> detach(tab, msg); [type(c).__name__ for c in tab.children]
['HBox', 'Label']
"""

from __future__ import annotations

import ipywidgets as widgets

__all__ = ["detach", "path_to", "place_below"]


def _kids(w: widgets.Widget) -> tuple[widgets.Widget, ...]:
    return tuple(getattr(w, "children", ()) or ())


def path_to(root: widgets.Widget, target: widgets.Widget) -> list[widgets.Widget] | None:
    """The widgets from ``root`` down to ``target`` (both included), or ``None`` when ``target`` is not below it."""
    if root is target:
        return [root]
    for child in _kids(root):
        below = path_to(child, target)
        if below is not None:
            return [root, *below]
    return None


def _vertical(w: widgets.Widget) -> bool:
    """A box that stacks its children (a message can go between them): not a row, not a tab/accordion/stack."""
    return isinstance(w, widgets.Box) and not isinstance(w, widgets.HBox | widgets.Tab | widgets.Accordion
                                                          | widgets.Stack)


def detach(root: widgets.Widget, widget: widgets.Widget) -> None:
    """Take ``widget`` out of every box under ``root`` that holds it."""
    stack = [root]
    while stack:
        w = stack.pop()
        kids = _kids(w)
        if widget in kids:
            w.children = tuple(c for c in kids if c is not widget)
        stack.extend(c for c in _kids(w) if c is not widget)


def place_below(root: widgets.Widget, source: widgets.Widget | None, message: widgets.Widget,
                top: widgets.Box) -> bool:
    """Move ``message`` just below the row of ``source`` under ``root``; ``False`` (and the message in ``top``) when
    ``source`` is ``None`` or not under ``root``."""
    detach(root, message)
    detach(top, message)
    path = path_to(root, source) if source is not None else None
    if path is not None:
        for i in range(len(path) - 2, -1, -1):  # the nearest vertical box above the control
            if _vertical(path[i]):
                kids = list(_kids(path[i]))
                kids.insert(kids.index(path[i + 1]) + 1, message)
                path[i].children = tuple(kids)
                return True
    top.children = (message,)
    return False
