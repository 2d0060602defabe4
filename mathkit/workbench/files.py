"""The save & export tab: save as (atomic, keeping the file's layout), PAR sheet and paytable exports.

The buttons call the workbench's :meth:`~mathkit.workbench.app.Workbench.save_as`
and :meth:`~mathkit.workbench.app.Workbench.export`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from .panel import Panel, button

__all__ = ["FilesPanel"]


class FilesPanel(Panel):
    """Save as, overwrite, export folder and export buttons."""

    title = "save & export"

    def __init__(self, host: Any, export_dir: Path) -> None:
        super().__init__(host)
        self.save_name = widgets.Text(placeholder="new_game.toml", description="save as", layout=widgets.Layout(width="300px"))
        self.save_name.add_class("mk-save-name")
        self.overwrite = widgets.Checkbox(value=False, description="overwrite an existing file", indent=False)
        self.overwrite.add_class("mk-overwrite")
        self.save_button = button("save", "mk-save", "save")
        self.export_dir = widgets.Text(value=str(export_dir), description="export to", layout=widgets.Layout(width="420px"))
        self.export_dir.add_class("mk-export-dir")
        self.export_buttons = {fmt: button(f"PAR sheet .{fmt}", f"mk-export-{fmt}", "download") for fmt in ("json", "csv", "xlsx")}
        self.export_buttons["xlsx"].disabled = importlib.util.find_spec("mathkit.export") is None
        self.export_buttons["paytable"] = button("paytable .csv", "mk-export-paytable", "download")
        self.save_button.on_click(lambda _b: host.save_as())
        for fmt, b in self.export_buttons.items():
            b.on_click(lambda _b, fmt=fmt: host.export(fmt))
        self.widget = widgets.VBox([
            widgets.HBox([self.save_name, self.overwrite, self.save_button]),
            widgets.HTML("<small>Saves into the games folder, atomically, as an edit of the file the game came from: "
                         "comments, key order and layout stay, only the edited values change. An existing file is "
                         "replaced only when <i>overwrite</i> is ticked.</small>"),
            self.export_dir, widgets.HBox(list(self.export_buttons.values()))])

    def load(self) -> None:
        path = self.host.path
        self.save_name.value = "" if path is None else path.name
