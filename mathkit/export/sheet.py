"""The PAR sheet written to a file, in the form its extension names: :func:`write_par`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..report.par import RoundSheet
from ..report.strict import dumps
from ..report.text import par_to_csv, par_to_dict, par_to_text, write_atomic

if TYPE_CHECKING:  # a game with bet modes: only it imports them
    from ..report.modes import ModeFigures

__all__ = ["PAR_FORMATS", "write_mode", "write_par"]

PAR_FORMATS = (".json", ".csv", ".txt", ".xlsx")
"""What :func:`write_par` (and ``mathkit par --out``) writes."""


def write_par(par: RoundSheet, path: str | Path, modes: Sequence[ModeFigures] = ()) -> Path:
    """Write the PAR sheet to ``path``: ``.json``, ``.csv``, ``.txt`` or ``.xlsx`` by extension, atomically.

    ``modes`` (:func:`mathkit.report.modes.mode_table`) adds every bet mode: a ``modes`` list in the JSON,
    their sections after the text, a sheet each in the XLSX (the CSV is the base game's alone).
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if modes:
        from ..report.modes import mode_to_dict, modes_to_text
    if suffix == ".json":
        data = par_to_dict(par) | ({"modes": [mode_to_dict(m, distribution=False) for m in modes]} if modes else {})
        return write_atomic(p, dumps(data, indent=2) + "\n")  # strict JSON: no NaN, no Infinity
    if suffix == ".csv":
        return write_atomic(p, par_to_csv(par))
    if suffix == ".txt":
        return write_atomic(p, par_to_text(par) + (("\n" + modes_to_text(par.game, tuple(modes))) if modes else ""))
    if suffix == ".xlsx":
        from .xlsx import write_par_xlsx  # openpyxl: only an XLSX needs it

        return write_par_xlsx(par, p, modes=modes)
    msg = f"{p}: unknown output format {suffix!r}; use .json, .csv, .txt or .xlsx"
    raise UsageError(msg)


def write_mode(mode: ModeFigures, path: str | Path) -> Path:
    """Write one bet mode's figures to ``path``: ``.json``, ``.txt`` or ``.xlsx`` (a ``mode NAME`` sheet), atomically."""
    from ..report.modes import mode_to_dict, mode_to_text

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        return write_atomic(p, dumps({"game": mode.sheet.game.name, **mode_to_dict(mode)}, indent=2) + "\n")
    if suffix == ".txt":
        return write_atomic(p, mode_to_text(mode))
    if suffix == ".xlsx":
        from .xlsx import write_par_xlsx

        return write_par_xlsx(None, p, modes=(mode,))
    msg = f"{p}: unknown output format {suffix!r} for a mode; use .json, .txt or .xlsx"
    raise UsageError(msg)
