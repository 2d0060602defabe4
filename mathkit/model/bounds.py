"""The bounds contract: the range of every integer a game and a bet hold, stated once.

The exact engine counts in 64-bit integers inside its kernels and in Python
integers at every reduction; the Markov chains and the simulator read wins as
float64.  A game is accepted only where all of them hold every number
exactly, so no figure can wrap or round silently.  The contract:

=========================  ====================================================  =======================
what                       range                                                 checked
=========================  ====================================================  =======================
any integer in a file      0 … :data:`MAX_INT` (2⁵³, exact in float64 and int64)  on load (fields)
one spin's win             ≤ :data:`MAX_WIN` credits at the largest bet, every     on load (validate and
                           multiplier applied (pays × coins × wild multipliers     each feature block)
                           × lines, scatter pays × total bet, feature factors)
a bounded round's win      ≤ :data:`MAX_WIN` credits (spins × a spin's top)       on load (feature blocks)
reels, rows                1 … :data:`MAX_REELS`; 1 … :data:`MAX_ROWS` and at      on load
                           most the strip's length (a window shows each stop
                           once)
stops, weights             1 … :data:`MAX_STOPS` stops a strip; weights 1 …        on load
                           :data:`MAX_WEIGHT`; the cycle (product of the reels'
                           total weights) below :data:`MAX_CYCLE` (2⁶²)
paylines                   at most :data:`MAX_PAYLINES`                          on load
a game file                at most :data:`MAX_FILE_BYTES` (32 MB)                 before it is parsed
coins                      options 1 … :data:`MAX_COINS`; a bet's coins one of    on load, at every
                           ``bet.coins``                                         analysis and CLI entry
lines                      1 … the number of paylines (ways games: the bet's     the same
                           own multiplier)
counts                     1 … :data:`MAX_COUNT` in ``{ count = ... }`` keys     on load
feature spins              awards, retriggers, ``max_spins`` ≤                    on load
                           :data:`MAX_FEATURE_SPINS`; gambles in a row ≤
                           :data:`MAX_GAMBLES`
=========================  ====================================================  =======================

Sums over a whole cycle (credits, second moments) are Python integers, so they
are exact whatever their size.  Outside the contract a game is refused with a
:class:`~mathkit.errors.GameError` naming the field, the value, the range and
the fix.

Resources are the second half: :func:`check_cost` refuses an enumeration, a
chain or a simulation whose estimated memory or work passes the
:class:`Limits` (set by environment variables, so a command line, a notebook
and the fuzz suite can each choose), with a :class:`~mathkit.errors.LimitError`
saying the size and how to proceed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import GameError, LimitError
from .game import Game

__all__ = [
    "MAX_COINS",
    "MAX_COUNT",
    "MAX_CYCLE",
    "MAX_FEATURE_SPINS",
    "MAX_FILE_BYTES",
    "MAX_GAMBLES",
    "MAX_INT",
    "MAX_PAYLINES",
    "MAX_REELS",
    "MAX_ROWS",
    "MAX_STOPS",
    "MAX_WEIGHT",
    "MAX_WIN",
    "Limits",
    "check_bet",
    "check_cost",
    "check_game",
    "check_win",
    "enumeration_cost",
    "env_number",
    "largest_bet",
    "limits",
    "spin_tops",
]

MAX_INT = 2**53
"""The largest integer a game file may hold: exact in int64 and in float64."""
MAX_WIN = 2**53
"""The most one spin (every multiplier applied) or one bounded round may pay, in credits."""
MAX_CYCLE = 2**62
"""The cycle of a reel set must stay below this: the kernels count outcomes in int64."""
MAX_REELS = 16
MAX_ROWS = 32
MAX_STOPS = 100_000
MAX_WEIGHT = 2**32 - 1
MAX_PAYLINES = 10_000
MAX_COINS = 10**6
MAX_COUNT = 10_000
MAX_FEATURE_SPINS = 100_000
MAX_GAMBLES = 1_000
MAX_FILE_BYTES = 32 << 20
"""The largest game file read (32 MB: 16 reels of 100,000 weighted stops fit)."""


# --------------------------------------------------------------------------- the game's integers
def largest_bet(game: Game) -> tuple[int, int]:
    """The most lines and the most coins any bet on ``game`` plays (what every range is checked at)."""
    lines = len(game.paylines) if game.pay_mode == "lines" and game.paylines else game.bet.lines
    return lines, max(game.bet.coins)


def spin_tops(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
              rows: Sequence[int] | None = None) -> tuple[int, int]:
    """Upper bounds of one spin's line (or ways) win and scatter win, in credits (Python integers).

    Every line (or way) at its best entry with the largest wild multiplier on every
    reel, every paying scatter at its top pay for the window; ``rows`` overrides the
    window's height per reel.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> spin_tops(load_game("data/games/classic_3reel.toml"), coins=3)
    (5000, 0)
    """
    rs = game.reel_set(reels)
    n_lines = game.bet.lines if lines is None else lines
    c = game.bet.coins[0] if coins is None else coins
    index = game.bet.coins.index(c) if c in game.bet.coins else 0
    mult = max((s.multiplier for s in game.symbols if s.is_wild or s.is_multiplier), default=1)
    best = []
    for e in game.line_pays:
        own = e.flat or (len(e.symbols) == 1 and e.symbols[0] in game.symbol_names
                         and game.symbol(e.symbols[0]).is_wild and not e.multiplied)
        best.append(max((e.pay(n, c, index) * (1 if own else mult**n) for n in range(1, game.n_reels + 1)), default=0))
    heights = rs.rows if rows is None else rows
    if game.pay_mode == "ways":
        ways = 1
        for h in heights:
            ways *= h * mult
        line_top = sum(best) * ways
    else:
        line_top = max(best, default=0) * n_lines
    window = sum(heights)
    scatter_top = sum(max((v for k, v in sp.pays if k <= window), default=0) for sp in game.scatter_pays)
    return line_top, scatter_top * game.scatter_credits(n_lines, c)


def _culprit(game: Game, line_top: int, scatter_top: int) -> str:
    """The field that drives a spin's top win: the scatter pay or the line pay giving it."""
    if scatter_top >= line_top and game.scatter_pays:
        sp = max(game.scatter_pays, key=lambda s: max((v for _, v in s.pays), default=0))
        k = max(sp.pays, key=lambda kv: kv[1])[0]
        return f"scatter_pays.{sp.symbol}.{k}"
    if not game.line_pays:
        return "bet"
    e = max(game.line_pays, key=lambda p: max((max(v) for _, v in p.pays), default=0))
    k = max(e.pays, key=lambda kv: max(kv[1]))[0]
    mixed = e.symbols != (e.name,) or e.ordered
    from .ordered import where as entry_field  # here: `mathkit --help` imports this module and no numpy

    return f"{entry_field(e)}.pays.{k}" if mixed else f"paytable.{e.name}.{k}"


def check_win(credits: int, field: str, what: str, fix: str) -> None:
    """Refuse a win bound ``credits`` above :data:`MAX_WIN`, naming ``field``.

    Examples
    --------
    >>> check_win(2**60, "free_spins.multiplier", "a free spin can pay up to", "lower the multiplier")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: free_spins.multiplier: a free spin can pay up to 1,152,921,504,606,846,976 credits, ...
    """
    if credits > MAX_WIN:
        msg = f"{what} {credits:,} credits, more than the {MAX_WIN:,} (2⁵³) credits mathkit computes exactly"
        raise GameError(msg, field=field, fix=fix)


def check_game(game: Game) -> None:
    """The composite ranges of the contract: window within the strips, the cycle, one spin's top win.

    Run by :func:`mathkit.model.validate.validate_game` once the fields make sense together.
    """
    for rs in game.reel_sets:
        where = f"reels.{rs.name}"
        for r, strip in enumerate(rs.strips):
            if rs.rows[r] > len(strip):
                n, h = len(strip), rs.rows[r]
                msg = (f"reel {r + 1} has {n} stop{'s' if n != 1 else ''}: a {h}-row window would show "
                       f"{'its stop' if n == 1 else 'a stop'} twice")
                rows = f"{where}.rows" + (f"[{r}]" if len(set(rs.rows)) > 1 else "")
                raise GameError(msg, field=f"{where}.strips[{r}]",
                                fix=f"reel {r + 1} needs at least {h} stops for a {h}-row window: "
                                    f"add stops to it (or lower {rows})")
        cycle = rs.cycle
        if cycle >= MAX_CYCLE:
            msg = f"the cycle is {cycle:,} outcomes (2^{math.log2(cycle):.1f}); exact counting needs fewer than 2⁶²"
            raise GameError(msg, field=f"{where}.weights" if rs.weights is not None else f"{where}.strips",
                            fix="lower the stop weights or shorten the strips")
    lines, coins = largest_bet(game)
    total = game.bet.total_bet(lines, coins)
    if total > MAX_INT:
        msg = f"the largest bet ({lines} lines × {coins} coins) stakes {total:,} credits, more than {MAX_INT:,}"
        raise GameError(msg, field="bet.total" if game.bet.total is not None else "bet.coins", fix="lower the coin options")
    for rs in game.reel_sets:
        line_top, scatter_top = spin_tops(game, rs.name, lines=lines, coins=coins)
        check_win(line_top + scatter_top, _culprit(game, line_top, scatter_top),
                  f"one spin on reel set {rs.name!r} at the largest bet ({lines} lines × {coins} coins) can pay up to",
                  "lower this pay, the coin options or the wild multipliers")


def check_bet(game: Game, lines: int | None = None, coins: int | None = None, *, lines_field: str = "lines",
              coins_field: str = "coins") -> tuple[int, int]:
    """The bet ``lines`` × ``coins`` resolved against the game's defaults, or a :class:`GameError` naming the argument.

    A lines game plays 1 to all of its paylines; a ways game's bet multiplier is its own
    (``bet.lines``); the coins per line are one of ``bet.coins``.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> check_bet(g), check_bet(g, coins=3)
    ((1, 1), (1, 3))
    >>> check_bet(g, coins=4, coins_field="--coins")
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: --coins: 4 coins per line is not a coin option of this game (fix: choose one of 1, 2, 3 (bet.coins))
    """
    n_lines = game.bet.lines if lines is None else lines
    c = game.bet.coins[0] if coins is None else coins
    if isinstance(n_lines, bool) or not isinstance(n_lines, int):
        msg = f"lines must be a whole number, not {n_lines!r}"
        raise GameError(msg, field=lines_field)
    if isinstance(c, bool) or not isinstance(c, int):
        msg = f"coins must be a whole number, not {c!r}"
        raise GameError(msg, field=coins_field)
    if game.pay_mode == "lines":
        n = len(game.paylines)
        if not 1 <= n_lines <= n:
            msg = f"{n_lines} lines played, but the game has {n} paylines"
            raise GameError(msg, field=lines_field, fix=f"play 1 to {n} lines (default {game.bet.lines})")
    elif n_lines != game.bet.lines:
        msg = f"a ways game has no lines to choose: its bet is {game.bet.lines} credits per coin, not {n_lines}"
        raise GameError(msg, field=lines_field, fix=f"leave the lines out, or change bet.lines (now {game.bet.lines})")
    if c not in game.bet.coins:
        options = ", ".join(str(x) for x in game.bet.coins)
        msg = f"{c} coins per line is not a coin option of this game"
        raise GameError(msg, field=coins_field, fix=f"choose one of {options} (bet.coins)")
    if game.scatter_unit == "credits" and game.scatter_bet and game.total_bet(n_lines, c) % game.scatter_bet:
        msg = (f"a bet of {game.total_bet(n_lines, c)} credits ({n_lines} lines × {c} coins) pays scatters written in "
               f"credits at a bet of {game.scatter_bet}: not a whole number of credits")
        raise GameError(msg, field=lines_field, fix=f"play a bet that is a multiple of {game.scatter_bet} (scatter_bet)")
    return n_lines, c


# --------------------------------------------------------------------------- resources
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _env_size(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip().upper().removesuffix("B").removesuffix("I")
    if not raw:
        return default
    unit = raw[-1] if raw[-1] in _UNITS else ""
    number = raw[: -1] if unit else raw
    try:
        value = float(number) * _UNITS[unit]
    except ValueError:
        msg = f"{name}={os.environ[name]!r} is not a size"
        raise GameError(msg, field=name, fix="write e.g. 8G, 500M or 1e10") from None
    if not math.isfinite(value) or value <= 0:
        msg = f"{name}={os.environ[name]!r} is not a positive size"
        raise GameError(msg, field=name, fix="write e.g. 8G, 500M or 1e10")
    return int(value)


def env_number(name: str, default: float, *, unit: str = "") -> float:
    """The number in environment variable ``name`` (``default`` when unset or blank), at least 0; anything else
    (text, a negative number, ``nan``, ``inf``) is refused naming the variable, never read as the default.

    Examples
    --------
    >>> import os
    >>> os.environ["MATHKIT_DEMO_MB"] = "12.5"
    >>> env_number("MATHKIT_DEMO_MB", 256)
    12.5
    >>> os.environ["MATHKIT_DEMO_MB"] = "lots"
    >>> try:
    ...     env_number("MATHKIT_DEMO_MB", 256, unit="megabytes")
    ... except GameError as exc:
    ...     print(exc.field, "|", exc.fix)
    MATHKIT_DEMO_MB | write a number of 0 or more, e.g. 256, or unset it for the default 256
    >>> del os.environ["MATHKIT_DEMO_MB"]
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    what = f"a number of {unit}" if unit else "a number"
    fix = f"write a number of 0 or more, e.g. {default:g}, or unset it for the default {default:g}"
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        msg = f"{name}={os.environ[name]!r} is not {what}"
        raise GameError(msg, field=name, fix=fix)
    return value


@dataclass(frozen=True)
class Limits:
    """What one computation may use, read from the environment by :func:`limits`.

    Attributes
    ----------
    memory
        Bytes one exact computation may allocate (``MATHKIT_MAX_MEMORY``, default 4G).
    work
        Elementary steps one exact computation may take (``MATHKIT_MAX_WORK``, default 2e10,
        minutes on one core).
    states
        States of one Markov chain (``MATHKIT_MAX_STATES``, default 2M).
    spins
        Plays of one simulation (``MATHKIT_MAX_SPINS``, default 1e11: its per-block sums
        stay below ~1 GB).
    """

    memory: int
    work: int
    states: int
    spins: int


def limits() -> Limits:
    """The resource limits now in force (environment variables, else the defaults).

    Examples
    --------
    >>> limits().memory >= 1 << 20
    True
    """
    return Limits(_env_size("MATHKIT_MAX_MEMORY", 4 << 30), _env_size("MATHKIT_MAX_WORK", 2 * 10**10),
                  _env_size("MATHKIT_MAX_STATES", 2_000_000), _env_size("MATHKIT_MAX_SPINS", 10**11))


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} TB"  # pragma: no cover


def check_cost(what: str, *, memory: int = 0, work: int = 0, states: int = 0, spins: int = 0, field: str = "",
               fix: str = "") -> None:
    """Refuse ``what`` before it starts if its estimate passes a limit of :func:`limits`.

    Examples
    --------
    >>> check_cost("the enumeration", memory=1 << 50, field="reels.base")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathkit.errors.LimitError: reels.base: the enumeration needs about 1,024.0 TB of memory, more than the ... allowed ...
    """
    lim = limits()
    over = [(memory, lim.memory, "of memory", "MATHKIT_MAX_MEMORY", _size),
            (work, lim.work, "steps", "MATHKIT_MAX_WORK", lambda x: f"{x:,.3g}"),
            (states, lim.states, "states", "MATHKIT_MAX_STATES", lambda x: f"{x:,}"),
            (spins, lim.spins, "plays", "MATHKIT_MAX_SPINS", lambda x: f"{x:,}")]
    for value, limit, unit, env, show in over:
        if value > limit:
            msg = f"{what} needs about {show(value)} {unit}, more than the {show(limit)} allowed"
            raise LimitError(msg, field=field, fix=f"{fix + ', or ' if fix else ''}raise the limit: {env}=...")


def enumeration_cost(lens: Sequence[int], split: int, n_lines: int, rows: int) -> tuple[int, int]:
    """Estimated (bytes, steps) of a meet-in-the-middle enumeration of reels with ``lens`` stops.

    The prefix reels ``0..split-1`` and the suffix reels are each enumerated once, every
    combination holding one code per line (``n_lines``; one per pay entry in ways games)
    and a few int64 fields; the dense table of wins is bounded by the kernel itself.

    Examples
    --------
    >>> memory, work = enumeration_cost([30, 30, 30, 30, 30], 3, 20, 3)
    >>> memory < 1 << 30, work < 10**9
    (True, True)
    """
    prefix = math.prod(lens[:split])
    suffix = math.prod(lens[split:])
    head = math.prod(lens[: max(split - 1, 0)])
    width = max(n_lines, 1)
    memory = 8 * (prefix * (width // 2 + 8) + head * width + 2 * suffix * (width + 4))
    work = (prefix + suffix) * width * max(rows, 1)
    return memory, work
