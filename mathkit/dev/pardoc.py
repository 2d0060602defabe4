"""The reviewer's page as a PAR document: the sections every rendered game notebook carries.

A certification lab files a game's PAR sheet together with what identifies the maths it certifies: the game file
(its SHA-256), the software that computed the figures (mathkit's version and commit), when the page was rendered,
the configuration, every reel strip with its weights, the paytable with hits and RTP per combination, the symbol
counts per reel, the checks, and the seed and size of every sampled figure.  :func:`par_document` gives those
sections as :class:`~mathkit.dev.render.Table` objects, in that order, for a notebook to display; the figures
themselves (RTP breakdown, σ and VI, tails, each feature's section) are the notebook's own cells.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> from mathkit.report.par import build_par
>>> game = load_game("data/games/classic_3reel.toml")
>>> tables = par_document(game, build_par(game), "data/games/classic_3reel.toml", checks=False)
>>> [t.caption.split(":")[0] for t in tables][:3]
['Provenance', 'Configuration', 'Reel strips']
>>> provenance(game, "data/games/classic_3reel.toml").rows[1][0]
'game file SHA-256'
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..model.game import Game
from .render import Table, paytable_table

__all__ = ["checks_table", "configuration", "mathkit_commit", "par_document", "provenance", "sampling_table",
           "strip_tables", "symbol_counts_table"]

_PACKAGE = Path(__file__).resolve().parents[1]


def mathkit_commit() -> str:
    """The git commit of the mathkit source tree in use, ``+ local changes`` when its sources differ from it;
    ``"not a git checkout"`` for an installed copy (its version then identifies it)."""
    try:
        head = subprocess.run(["git", "-C", str(_PACKAGE), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(_PACKAGE), "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return head + (" + local changes" if dirty else "")


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def provenance(game: Game, path: str | Path, *, when: datetime | None = None) -> Table:
    """What identifies the page's maths: the game file and its SHA-256, mathkit's version and commit, the render
    date (UTC) and the interpreter and libraries that computed it."""
    import numba
    import numpy

    from .. import __version__

    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M:%S UTC")
    rows = (("game file", str(path)), ("game file SHA-256", _sha256(path)), ("game", game.name),
            ("mathkit version", __version__), ("mathkit commit", mathkit_commit()), ("rendered", stamp),
            ("Python · numpy · numba", f"{platform.python_version()} · {numpy.__version__} · {numba.__version__}"))
    return Table(("item", "value"), rows, "Provenance: what this page certifies and what computed it",
                 ("The SHA-256 is of the game file's bytes: a file with this digest gives these figures with this "
                  "version of mathkit.",))


def _pct(x: Fraction | None) -> str:
    return "—" if x is None else f"{float(x):.4%}"


def configuration(game: Game, sheet: Any) -> Table:
    """The game's configuration: reels and window, pay mode and lines, bet, reel sets, features, cap, declared RTP."""
    rs = game.reel_set(sheet.reels)
    rows: list[tuple[str, str]] = [
        ("reels × rows", f"{rs.n_reels} × {'/'.join(str(r) for r in rs.rows)}"),
        ("pays", game.pay_mode + (f": {len(game.paylines)} paylines" if game.paylines else "")),
        ("lines played × coins per line", f"{sheet.lines} × {sheet.coins}"),
        ("total bet (credits)", f"{sheet.total_bet:,}"),
        ("scatter pays in units of", game.scatter_unit.replace("_", " ")),
        ("reel set of this sheet", sheet.reels),
        ("reel sets", ", ".join(f"{r.name} ({r.cycle:,} stop combinations)" for r in game.reel_sets)),
        ("cycle of this sheet", f"{sheet.cycle:,}"),
        ("features", ", ".join(f.name for f in game.features) or "none"),
        ("declared RTP", _pct(sheet.declared_rtp)),
    ]
    if sheet.cap is not None:
        rows.append(("win cap (× bet)", f"{sheet.cap.value:,.4f}"))
    return Table(("item", "value"), tuple(rows), f"Configuration: {game.name}")


def strip_tables(game: Game) -> list[Table]:
    """Every reel set's strips, one table per set: a row per stop, a column per reel; a weighted stop reads
    ``SYMBOL ×w`` (its weight: how many virtual stops it stands for)."""
    out = []
    for rs in game.reel_sets:
        height = max(len(s) for s in rs.strips)
        rows = []
        for i in range(height):
            row = [str(i + 1)]
            for r, strip in enumerate(rs.strips):
                if i >= len(strip):
                    row.append("")
                    continue
                w = rs.weights[r][i] if rs.weights is not None else 1
                row.append(strip[i] if rs.weights is None else f"{strip[i]} ×{w}")
            rows.append(tuple(row))
        total = ", ".join(f"{sum(rs.weights[r]) if rs.weights is not None else len(s):,}"
                          for r, s in enumerate(rs.strips))
        notes = (f"Stops per reel (weighted): {total}; rows shown per reel: {', '.join(str(x) for x in rs.rows)}.",)
        header = ("stop", *(f"reel {r + 1}" for r in range(rs.n_reels)))
        out.append(Table(header, tuple(rows), f"Reel strips: {rs.name}" + (" (weighted stops)" if rs.weights else ""),
                         notes))
    return out


def symbol_counts_table(sheet: Any) -> Table:
    """The symbol counts per reel of the sheet's reel set (weighted stops), as the PAR sheet lists them."""
    counts = sheet.symbol_counts[sheet.reels]
    n = len(counts[0][1]) if counts else 0
    rows = tuple((sym, *(f"{c:,}" for c in per), f"{sum(per):,}") for sym, per in counts)
    return Table(("symbol", *(f"reel {r + 1}" for r in range(n)), "all reels"), rows,
                 f"Symbol counts per reel: {sheet.reels}")


def sampling_table(sheet: Any, simulations: Sequence[tuple[str, int, int]] = ()) -> Table:
    """The seed and size of every sampled figure on the page: each sampled part of the round's distribution (its
    exact probability, draws, seed, how drawn), then each simulation the page runs (``(what, rounds, seed)``)."""
    rows: list[tuple[str, str, str, str]] = []
    if sheet.mixed is not None:
        for r in sheet.mixed.route_rows():
            rows.append((f"sampled part: {r['route']}", f"{int(r['draws']):,} draws ({int(r['rounds_played']):,} "
                         f"rounds played)", str(r["seed"]), f"P(part) = {float(r['probability']):.6g}; {r['how']}"))
    rows += [(what, f"{n:,} rounds", str(seed), "independent simulation of the rules") for what, n, seed in simulations]
    if not rows:
        rows.append(("—", "nothing on this page is sampled", "—", "every figure is exact or Markov"))
    return Table(("figure or part", "sample size", "seed", "note"), tuple(rows),
                 "Sampling: the seed and size of every sampled figure")


def checks_table(game: Game, reels: str | None = None, profile: str = "gli11") -> Table:
    """``mathkit check`` on the game: each certification check, passed or not, and what it found."""
    from ..checks.run import run_checks

    checks = run_checks(game, profile, reels=reels)
    rows = tuple((c.name, "pass" if c.passed else "FAIL", c.detail) for c in checks)
    failed = sum(not c.passed for c in checks)
    return Table(("check", "result", "detail"), rows, f"Checks ({profile}): {len(checks) - failed} passed, {failed} "
                 "failed")


def par_document(game: Game, sheet: Any, path: str | Path, *, simulations: Sequence[tuple[str, int, int]] = (),
                 checks: bool = True, profile: str = "gli11") -> list[Table]:
    """The PAR document's identifying sections, in order: provenance, configuration, every reel set's strips,
    symbol counts, the paytable (hits and RTP per combination), the seed and size of every sampled figure, and the
    checks (``checks=False`` leaves them out)."""
    out = [provenance(game, path), configuration(game, sheet), *strip_tables(game), symbol_counts_table(sheet)]
    if sheet.entries:
        out.append(paytable_table(sheet))
    out.append(sampling_table(sheet, simulations))
    if checks:
        out.append(checks_table(game, sheet.reels, profile))
    return out
