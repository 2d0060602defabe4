"""Reel strips as spreadsheet CSV: one file per reel set, one column per reel, a header of reel names.

The format (written by :func:`reel_csv_text`, read by :func:`read_reel_csv`):

* the first line is the header, one name per reel (``reel1,reel2,…``);
* then one line per stop position: the symbol each reel shows at that stop, top of the strip first;
  a shorter reel leaves its cell empty below its last stop;
* a weighted stop (a virtual-stop weight other than 1) is written ``SYMBOL*w`` in its cell (one
  column per reel, not a second column of weights); a reel set with weights writes every stop of a
  weighted reel set as ``SYMBOL*w`` so the weights survive a round trip, 1 included.

:func:`strips_from_csv` turns the text back into strips and weights (every error located at its
line and column); ``mathkit import-reels CSV --into GAME.toml --reel-set NAME`` writes them into a
game file through the style-preserving save (:func:`mathkit.gamefile.io.save_game`).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from ..errors import GameError
from ..model.game import Game, ReelSet

__all__ = ["read_reel_csv", "reel_csv_text", "strips_from_csv", "write_reel_csvs"]

_CELL = re.compile(r"\A(?P<sym>[^\s*,]+)(?:\*(?P<w>[0-9]+))?\Z")


def _bad(message: str, field: str, fix: str) -> GameError:
    return GameError(message, field=field, fix=fix)


def reel_csv_text(rs: ReelSet) -> str:
    """The CSV text of reel set ``rs``.

    Examples
    --------
    >>> print(reel_csv_text(ReelSet("base", (("A", "B", "C"), ("A", "B")), rows=(1, 1))), end="")
    reel1,reel2
    A,A
    B,B
    C,
    >>> print(reel_csv_text(ReelSet("b", (("A", "B"),), rows=(1,), weights=((3, 1),))), end="")
    reel1
    A*3
    B*1
    """
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([f"reel{r + 1}" for r in range(rs.n_reels)])
    for k in range(max(len(s) for s in rs.strips)):
        row = []
        for r, strip in enumerate(rs.strips):
            if k >= len(strip):
                row.append("")
            elif rs.weights is None:
                row.append(strip[k])
            else:
                row.append(f"{strip[k]}*{rs.weights[r][k]}")
        w.writerow(row)
    return out.getvalue()


def write_reel_csvs(game: Game, folder: Path, *, overwrite: bool = False) -> list[Path]:
    """Write ``NAME.csv`` for every reel set of ``game`` into ``folder``; returns the paths."""
    from ..gamefile.io import write_atomic

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{rs.name}.csv" for rs in game.reel_sets]
    if not overwrite:
        for p in paths:
            if p.exists():
                msg = f"{p} exists"
                raise _bad(msg, "--reels-csv", "pass --force to replace it, or choose another folder")
    for rs, p in zip(game.reel_sets, paths, strict=True):
        write_atomic(p, reel_csv_text(rs))
    return paths


def strips_from_csv(text: str, where: str = "<csv>"
                    ) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[int, ...], ...] | None]:
    """Strips (and weights, ``None`` when no cell has one) from CSV text in the format above.

    Examples
    --------
    >>> strips_from_csv("reel1,reel2\\nA,B\\nC*2,\\n")
    ((('A', 'C'), ('B',)), ((1, 2), (1,)))
    >>> strips_from_csv("reel1\\nA B\\n", "r.csv")
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: r.csv: line 2, column 1: 'A B' is not a symbol or SYMBOL*weight ...
    """
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or not any(c.strip() for c in rows[0]):
        msg = "no header line of reel names"
        raise _bad(msg, where, "start with reel1,reel2,…")
    n = len(rows[0])
    strips: list[list[str]] = [[] for _ in range(n)]
    weights: list[list[int]] = [[] for _ in range(n)]
    weighted = False
    ended = [False] * n
    for line_no, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) > n:
            msg = f"line {line_no}: {len(row)} cells for {n} reels"
            raise _bad(msg, where,
                       "one cell per reel named in the header")
        for r in range(n):
            cell = row[r].strip() if r < len(row) else ""
            if not cell:
                ended[r] = True
                continue
            if ended[r]:
                msg = f"line {line_no}, column {r + 1}: a stop below an empty cell"
                raise _bad(msg, where,
                           "a reel's stops are consecutive from the top: remove the gap")
            m = _CELL.match(cell)
            if m is None:
                msg = f"line {line_no}, column {r + 1}: {cell[:40]!r} is not a symbol or SYMBOL*weight"
                raise _bad(msg,
                                where, "write a symbol name, or SYMBOL*w with a whole weight w ≥ 1")
            strips[r].append(m["sym"])
            w = int(m["w"]) if m["w"] is not None else 1
            if m["w"] is not None:
                weighted = True
            if w < 1:
                msg = f"line {line_no}, column {r + 1}: weight {w}"
                raise _bad(msg, where, "weights are ≥ 1")
            weights[r].append(w)
    for r in range(n):
        if not strips[r]:
            msg = f"reel {r + 1} ({rows[0][r]!r}) has no stops"
            raise _bad(msg, where, "give every reel stops")
    return tuple(tuple(s) for s in strips), (tuple(tuple(w) for w in weights) if weighted else None)


def read_reel_csv(game: Game, path: str | Path, reel_set: str) -> Game:
    """``game`` with reel set ``reel_set``'s strips (and weights) read from the CSV file ``path``.

    The reel count must be the set's; its rows and declared RTP stay; the result is validated as a
    loaded game is (unknown symbols, a strip shorter than the window … are located errors).
    """
    import dataclasses

    from ..model.edits import with_reel_set
    from ..model.validate import validate_game

    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"cannot read the reel CSV ({exc})"
        raise _bad(msg, where, "give a UTF-8 CSV file") from exc
    old = game.reel_set(reel_set)
    strips, weights = strips_from_csv(text, where)
    if len(strips) != old.n_reels:
        msg = f"{len(strips)} reels in the CSV, reel set {reel_set!r} has {old.n_reels}"
        raise _bad(msg, where,
                   "one column per reel of the reel set")
    new = with_reel_set(game, dataclasses.replace(old, strips=strips, weights=weights))
    validate_game(new)
    return new
