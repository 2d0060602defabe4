"""The workbench's logic without widgets: the edits it reads from text and feature tables, and the figures it shows.

Every other Game → Game edit is :mod:`mathkit.model.edits` (imported here for the tabs).

Every edit is a pure function ``(game, new value) -> game`` that validates the
result (:func:`~mathkit.model.validate.validate_game`), so an invalid edit raises a
:class:`~mathkit.errors.GameError` and the caller keeps the last valid game.
:func:`quick_figures` is the fast path (per-reel algebra: milliseconds);
:func:`full_figures` builds the whole PAR sheet (enumeration of the cycle).
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import GameError
from ..exact.components import ComponentRTP, component_rtp
from ..features import block_class
from ..model.edits import play_reels, stops_of, with_line_pay, with_scatter_pay, with_stops, with_targets
from ..model.game import Game, ReelSet
from ..model.validate import validate_game
from ..report.par import ParSheet, build_par
from ..round import analyse

__all__ = [
    "Quick",
    "analysis_reels",
    "default_game_path",
    "full_figures",
    "game_files",
    "parse_strip",
    "paytable_csv",
    "quick_figures",
    "resolve_data_dir",
    "stops_of",
    "strip_text",
    "with_feature",
    "with_line_pay",
    "with_scatter_pay",
    "with_stops",
    "with_strip",
    "with_targets",
]

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_GAMES = ("dynasty.toml", "benchmark_5x3.toml")
_TOKEN = re.compile(r"^([^\s*]+)(?:\*(\d+))?$")


# --------------------------------------------------------------------------- files
def resolve_data_dir(data_dir: str | Path = "data/games") -> Path:
    """The games folder: ``data_dir`` as given if it exists, else relative to the project root.

    A notebook's kernel runs in ``notebooks/``; the default ``data/games`` then still
    finds the project's games.
    """
    p = Path(data_dir)
    if p.is_dir() or p.is_absolute():
        return p
    return PROJECT_ROOT / p


def game_files(data_dir: str | Path) -> list[str]:
    """The game files under ``data_dir``, subfolders included, as paths relative to it.

    Forward slashes on every system; the top-level games first, then each subfolder's, each group sorted.

    Examples
    --------
    >>> files = game_files("data/games")
    >>> "dynasty.toml" in files and "classic/double_sevens.toml" in files
    True
    >>> files.index("dynasty.toml") < files.index("classic/double_sevens.toml")
    True
    """
    d = Path(data_dir)
    rel = [p.relative_to(d) for p in d.rglob("*.toml") if p.is_file()]
    return [r.as_posix() for r in sorted(rel, key=lambda r: (len(r.parts) > 1, r.parts))]


def default_game_path(data_dir: str | Path) -> Path:
    """Dynasty when present, else the benchmark game, else the first game file.

    Examples
    --------
    >>> default_game_path("data/games").name in ("dynasty.toml", "benchmark_5x3.toml")
    True
    """
    d = Path(data_dir)
    for name in DEFAULT_GAMES:
        if (d / name).is_file():
            return d / name
    files = game_files(d)
    if not files:
        msg = f"no game files (*.toml) in {d}"
        raise FileNotFoundError(msg)
    return d / files[0]


# --------------------------------------------------------------------------- strips
def strip_text(rs: ReelSet, reel: int) -> str:
    """A strip as space-separated symbols; a stop with weight ``w > 1`` is written ``NAME*w``.

    Examples
    --------
    >>> strip_text(ReelSet("b", (("A", "B"),), (1,), ((1, 3),)), 0)
    'A B*3'
    """
    return " ".join(s if w == 1 else f"{s}*{w}" for s, w in zip(rs.strips[reel], rs.stop_weights(reel), strict=True))


def parse_strip(text: str, field: str = "strip") -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Symbols and weights from a strip's text (inverse of :func:`strip_text`).

    Examples
    --------
    >>> parse_strip("A  B*3\\nC")
    (('A', 'B', 'C'), (1, 3, 1))
    >>> parse_strip("A B*x")
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: strip[1]: cannot read 'B*x' (fix: write a symbol name, or NAME*weight with a whole weight ≥ 1)
    """
    symbols, weights = [], []
    for i, tok in enumerate(text.split()):
        m = _TOKEN.match(tok)
        if m is None or (m.group(2) is not None and int(m.group(2)) < 1):
            msg = f"cannot read {tok!r}"
            raise GameError(msg, field=f"{field}[{i}]",
                            fix="write a symbol name, or NAME*weight with a whole weight ≥ 1")
        symbols.append(m.group(1))
        weights.append(1 if m.group(2) is None else int(m.group(2)))
    if not symbols:
        msg = "empty strip"
        raise GameError(msg, field=field, fix="write the strip's symbols separated by spaces")
    return tuple(symbols), tuple(weights)


def _validated(game: Game) -> Game:
    validate_game(game)
    return game


def with_strip(game: Game, reels: str, reel: int, text: str) -> Game:
    """The game with strip ``reel`` (0-based) of reel set ``reels`` replaced by ``text``.

    Raises
    ------
    GameError
        When the text cannot be read or the game would be invalid.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = with_strip(load_game("data/games/classic_3reel.toml"), "base", 0, "WILD*2 BLANK*30")
    >>> g.reel_set().strips[0], g.reel_set().weights[0]
    (('WILD', 'BLANK'), (2, 30))
    """
    rs = game.reel_set(reels)
    symbols, weights = parse_strip(text, f"reels.{rs.name}.strips[{reel}]")
    return with_stops(game, reels, reel, list(zip(symbols, weights, strict=True)))


def with_feature(game: Game, name: str, path: tuple[str | int, ...], value: Any) -> Game:
    """The game with one field of feature ``name`` set to ``value``.

    ``path`` locates the field in the feature's TOML table (``("awards", "3")``,
    ``("multiplier",)``); the table is read back by the feature's own block, so an
    edit gets the same checks and messages as the game file.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = with_feature(load_game("data/games/dynasty.toml"), "free_spins", ("multiplier",), 3)
    >>> g.feature("free_spins").table()["multiplier"]
    3
    """
    feature = game.feature(name)
    table = copy.deepcopy(feature.table())
    cell: Any = table
    for key in path[:-1]:
        cell = cell[key]
    cell[path[-1]] = value
    where = game.feature_path(feature)
    new = block_class(feature.kind).from_table(name, table, where)
    features = tuple(new if f is feature else f for f in game.features)
    return _validated(dataclasses.replace(game, features=features))


# --------------------------------------------------------------------------- figures
def analysis_reels(game: Game, reels: str) -> str:
    """The reel set a spin is analysed on when ``reels`` is being edited.

    Editing a reel set a feature plays on (the free-spin set) changes the game
    through that feature, so the analysis stays on the default (base) set; any
    other set is analysed itself.
    """
    return play_reels(game, reels)


@dataclass(frozen=True)
class Quick:
    """The figures that are cheap to get: exact RTP, its breakdown, feature frequency.

    ``methods`` is each component's provenance (``exact``, ``markov``); ``error`` bounds how far the
    RTP (the sum of the breakdown) may be from the true one, per unit of total bet: 0 when every
    component is exact, the bound on a cap's effect when a tail bound settles it (Warlords).
    """

    reels: str
    base: ComponentRTP
    breakdown: dict[str, Fraction | float]
    feature_frequency: Fraction | None
    methods: dict[str, str] = dataclasses.field(default_factory=dict)
    error: float = 0.0

    @property
    def method(self) -> str:
        """``exact`` when every component is, else ``markov``."""
        return "exact" if all(m == "exact" for m in self.methods.values()) else "markov"

    @property
    def rtp(self) -> Fraction | float:
        return sum(self.breakdown.values(), Fraction(0))


def feature_frequency(game: Game, reels: str) -> Fraction | None:
    """Exact probability that one base spin starts a feature (``None`` when the game has none).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> feature_frequency(load_game("data/games/benchmark_5x3.toml"), "base") is None
    True
    """
    return quick_figures(game, reels).feature_frequency


def quick_figures(game: Game, reels: str | None = None) -> Quick:
    """Exact RTP by component without enumeration, every feature included (the round at the mean level).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.exact import rtp
    >>> g = load_game("data/games/benchmark_5x3.toml")
    >>> quick_figures(g).rtp == rtp(g)
    True
    """
    name = analysis_reels(game, game.default_reels if reels is None else reels)
    base = component_rtp(game, name)
    a = analyse(game, name, level="mean")
    freq: Fraction | None = None
    if game.features_of("sequence"):
        freq = sum((Fraction(br.p) for key, br in a.base.branches.items() if key), Fraction(0))
    out = a.outcome
    methods = {k: str(out.method_of(k)) for k in out.components}
    return Quick(name, base, a.breakdown(), freq, methods, float(out.error) / a.total_bet)


def full_figures(game: Game, reels: str | None = None) -> ParSheet:
    """The PAR sheet (σ, hit frequency, volatility index, distribution) on the analysed reel set."""
    return build_par(game, analysis_reels(game, game.default_reels if reels is None else reels))


# --------------------------------------------------------------------------- exports
def paytable_csv(game: Game) -> str:
    """The paytable as CSV: one row per (component, entry, count), one pay column per coin option.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> print(paytable_csv(load_game("data/games/classic_3reel.toml")).splitlines()[1])
    lines,WILD,WILD,3,800,1600,5000,credits per line
    """
    coins = game.bet.coins
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["component", "entry", "symbols", "count", *[f"pay_{c}_coins" for c in coins], "unit"])
    for e in game.line_pays:
        for k in e.counts:
            row = [e.pay(k, c, i) for i, c in enumerate(coins)]
            named = " – ".join(e.reel_names) if e.ordered else " ".join(e.symbols)  # reel-ordered: per reel, in order
            out.writerow([game.pay_mode, e.name, named, k, *row, f"credits per {game.pay_mode[:-1]}"])
    for sp in game.scatter_pays:
        for k, v in sp.pays:
            out.writerow(["scatter", sp.symbol, sp.symbol, k, *([v] * len(coins)),
                          f"x {game.scatter_unit_name}"])
    return buf.getvalue()
