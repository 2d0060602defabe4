"""The PAR sheet written to a file, in the form its extension names: :func:`write_par`."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..report.par import RoundSheet
from ..report.strict import dumps
from ..report.text import par_to_csv, par_to_dict, par_to_text, write_atomic

__all__ = ["PAR_FORMATS", "write_par"]

PAR_FORMATS = (".json", ".csv", ".txt", ".xlsx")
"""What :func:`write_par` (and ``mathkit par --out``) writes."""


def write_par(par: RoundSheet, path: str | Path) -> Path:
    """Write the PAR sheet to ``path``: ``.json``, ``.csv``, ``.txt`` or ``.xlsx`` by extension, atomically."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        return write_atomic(p, dumps(par_to_dict(par), indent=2) + "\n")  # strict JSON: no NaN, no Infinity
    if suffix == ".csv":
        return write_atomic(p, par_to_csv(par))
    if suffix == ".txt":
        return write_atomic(p, par_to_text(par))
    if suffix == ".xlsx":
        from .xlsx import write_par_xlsx  # openpyxl: only an XLSX needs it

        return write_par_xlsx(par, p)
    msg = f"{p}: unknown output format {suffix!r}; use .json, .csv, .txt or .xlsx"
    raise UsageError(msg)
