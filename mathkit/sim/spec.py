"""A game compiled for the driver: :class:`SimSpec`, built by :func:`compile_game` from the blocks' tables.

Every feature block says how it is played (``sim_table``, in the vocabulary of
:mod:`mathkit.play.vocabulary`); a block that gives no table is refused, with the game's
and the block's names.  Here the tables are gathered — sequences, the base
variants of the modifiers (a product), the cap, the gamble ladder — the spin
models they name are compiled (:mod:`mathkit.sim.models`), the sequences become
the program (:mod:`mathkit.sim.program`) and the observation code is sized.

Nothing here knows the exact engine or a feature's kind.  Line pays are a *memo*
of the shared :func:`mathkit.spin.evaluate.line_win` (the tries of
:mod:`mathkit.sim.lines`); ways windows go to :func:`mathkit.spin.evaluate.ways_win`
itself; scatter pays are the game model's :meth:`~mathkit.model.game.ScatterPay.pay`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..features.base import Block
from ..model.game import Game
from ..play.vocabulary import EverySpin, Ladder, RoundCap, Sequence, SimTable, Stake, Variant, Variants
from ..spin.tables import pay_tables, reel_arrays
from . import layout as K
from .layout import IntArray
from .lines import _symbol_trie
from .models import ModelKey, compile_model, stack_models
from .program import Builder, compare, static_value

__all__ = ["SimSpec", "compile_game", "sim_tables"]


@dataclass(frozen=True, eq=False)
class SimSpec:
    """A game compiled for the driver (built by :func:`compile_game`).

    Attributes
    ----------
    name, total_bet, ways
        The game's name, credits staked per round, whether it pays ways.
    components
        RTP components reported, in order: ``lines``/``ways``, ``scatter``, the base
        variants' labelled ones, each sequence feature's, ``cap``.
    features
        The sequence features, in the order the game declares them.
    models, program
        The spin models' arrays (:data:`~mathkit.sim.models.FIELDS`) and the compiled
        features (:data:`~mathkit.sim.program.PROGRAM`).
    ways_tables
        ``(match, pay, mult, wild, ways_rule)`` for :func:`~mathkit.spin.evaluate.ways_win`.
    par
        Scalar parameters (``P_*`` slots).
    slots, n_acc
        The accumulator slot of each compiled sum and counter by name (``component:NAME``
        with its sum of squares in the next two slots; ``FEATURE:entered``,
        ``FEATURE:spins``, ``FEATURE:TALLY``), and the number of slots.
    ladder
        The gamble ladder, when the game has one.
    """

    name: str
    total_bet: int
    ways: bool
    components: tuple[str, ...]
    features: tuple[str, ...]
    models: tuple[npt.NDArray[Any], ...]
    program: tuple[IntArray, ...]
    ways_tables: tuple[npt.NDArray[Any], ...]
    par: IntArray
    slots: Mapping[str, int]
    n_acc: int
    ladder: Ladder | None = None
    model_keys: tuple[ModelKey, ...] = ()
    variant_labels: tuple[str, ...] = ()
    """The base variants' labels, in the order the driver draws them (``""``: the plain spin)."""
    sequences: tuple[str, ...] = ()
    """Every sequence block's name by its feature bit (the route bits of :mod:`mathkit.sim.routes`)."""

    def new_sums(self, blocks: int | None = None) -> tuple[IntArray, npt.NDArray[np.float64]]:
        """Zeroed integer and float sums for one block (or ``blocks`` rows of them)."""
        shape = (self.n_acc,) if blocks is None else (blocks, self.n_acc)
        fshape = (K.N_FACC,) if blocks is None else (blocks, K.N_FACC)
        return np.zeros(shape, dtype=np.int64), np.zeros(fshape, dtype=np.float64)


def sim_tables(game: Game, stake: Stake) -> list[tuple[Block, SimTable]]:
    """Every block's simulator table, in the game's order.

    A block without a table, or with a field set that its table does not play
    (:attr:`~mathkit.features.base.Block.sim_reads`), is refused: the error names every
    such block, so a game is never simulated without one of its rules.
    """
    out: list[tuple[Block, SimTable]] = []
    refused: list[str] = []
    for f in game.features:
        table = f.sim_table(game, stake) if isinstance(f, Block) else None
        if table is None or not isinstance(f, Block):
            refused.append(f"feature {f.name!r} ({f.kind}) gives the simulator no table")
            continue
        unread = _unread(f)
        if unread:
            refused.append(f"feature {f.name!r} ({f.kind}) sets {', '.join(unread)}, which its simulator table "
                           "does not play")
        out.append((f, table))
    if refused:
        msg = (f"{game.name}: {'; '.join(refused)}, so the game cannot be simulated; each such block needs a "
               "sim_table that plays all of its fields (docs/simulator.md)")
        raise ModelError(msg)
    return out


def _unread(block: Block) -> list[str]:
    """The fields of ``block`` set away from their defaults that its simulator table does not read."""
    reads = block.sim_reads
    if reads is None:
        return []
    out = []
    for f in dataclasses.fields(block):
        if f.name == "name" or f.name in reads:
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
        if default is dataclasses.MISSING or getattr(block, f.name) != default:
            out.append(f.name)
    return out


def _variants(game: Game, tables: list[tuple[Block, SimTable]]) -> list[Variant]:
    """The base spin's variants: the product of every modifier's (weights multiply, later fields override)."""
    out = [Variant(1)]
    for block, table in tables:
        if not isinstance(table, Variants):
            continue
        if not table.choices or any(c.weight < 0 for c in table.choices) or sum(c.weight for c in table.choices) == 0:
            msg = f"{game.name}: feature {block.name!r}: the variants need weights ≥ 0, not all 0"
            raise ModelError(msg)
        out = [Variant(a.weight * b.weight, b.reels or a.reels, b.rows or a.rows, b.lines or a.lines,
                       a.forced + b.forced, ": ".join(x for x in (a.label, b.label) if x))
               for a in out for b in table.choices if b.weight > 0]
    if sum(v.weight for v in out) >= 1 << 32:
        msg = f"{game.name}: the base variants' weights total 2**32 or more"
        raise ModelError(msg)
    return out


def _bases(game: Game, keys: list[ModelKey], digits: list[tuple[int, ...]], forced: set[int]) -> list[int]:
    """How many values each observation digit takes: 1 + the most cells any model's window shows of its symbols."""
    most_cells = 0
    bound = [0] * len(digits)
    for reels, rows, _, _ in keys:
        ra = reel_arrays(game, reels)
        cells = ra.n_reels * rows if rows is not None else int(ra.rows.sum())
        most_cells = max(most_cells, cells)
        for d, ids in enumerate(digits):
            shown = 0
            for r in range(ra.n_reels):
                n = len(ra.strips[r])
                h = rows if rows is not None else int(ra.rows[r])
                hit = np.isin(ra.strips[r], ids).astype(np.int64)
                shown += int(max(hit[(np.arange(n)[:, None] + np.arange(h)[None, :]) % n].sum(axis=1)))
            bound[d] = max(bound[d], shown)
    return [1 + (most_cells if set(ids) & forced else bound[d]) for d, ids in enumerate(digits)]


def compile_game(game: Game, *, reels: str | None = None, lines: int | None = None,
                 coins: int | None = None) -> SimSpec:
    """Compile ``game`` (base reel set ``reels``, ``lines`` lines at ``coins`` coins) for the driver.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> spec = compile_game(load_game("data/games/classic_3reel.toml"))
    >>> spec.components, spec.total_bet
    (('lines',), 1)
    """
    t = pay_tables(game, lines=lines, coins=coins)
    base_reels = game.reel_set(reels).name
    height = max(max(rs.rows) for rs in game.reel_sets)
    while True:  # the tables once, again if a spin plays a taller window than any reel set (the cell masks' stride)
        stake = Stake(t.total_bet, game.bet.lines if lines is None else lines,
                      game.bet.coins[0] if coins is None else coins, height)
        tables = sim_tables(game, stake)
        tallest = max([height] + [v.rows or 0 for _, tab in tables if isinstance(tab, Variants) for v in tab.choices]
                      + [int(r) for _, tab in tables if isinstance(tab, Variants) for r in dict(tab.held)]
                      + [s.rows or 0 for _, tab in tables if isinstance(tab, Sequence) for st in tab.stages
                         for s in st.spins])
        if tallest == height:
            break
        height = tallest
    seqs = [(b.name, (tab.component if isinstance(tab, Sequence) else None) or b.component,
             tab if isinstance(tab, Sequence) else Sequence((), tab.trigger, (), tab.actions))
            for b, tab in tables if isinstance(tab, Sequence | EverySpin)]
    instant = frozenset(b.name for b, tab in tables if isinstance(tab, EverySpin))
    held: dict[int, int] = {}
    for _, tab in tables:
        if isinstance(tab, Variants):
            held = dict(tab.held) | held
    if len(seqs) > K.TRIGGER_BITS:
        msg = f"{game.name}: the simulator starts at most {K.TRIGGER_BITS} sequence features from a base spin"
        raise ModelError(msg)
    paying = [sp for sp in game.scatter_pays if sp.pays]
    b = Builder(game.name, t.names, seqs, t.total_bet, stake.lines, tuple(rs.name for rs in game.reel_sets),
                instant=instant, held=held, line_name="ways" if t.ways else "lines", scatters=bool(paying))
    for sp in paying:  # the scatter pays read the first digits
        b.digit(b.symbols(game.scatter_counted(sp.symbol), f"{game.name}: scatter pays"))
    variants = _variants(game, tables)
    for i, v in enumerate(variants):
        b.variant(v.reels or base_reels, v.rows, v.lines, v.forced, v.label, f"{game.name}: base variant {i}")
    for j in range(len(seqs)):
        b.feature(j)
    keys = list(b.models)
    bases = _bases(game, keys, b.digits, b.forced)
    n_codes = int(np.prod(bases)) if bases else 1
    if n_codes > 1 << 22:
        msg = f"{game.name}: {len(bases)} counted symbol sets take {n_codes:,} combinations, too many to tabulate"
        raise ModelError(msg)
    symcode = b.symcode(bases)
    if height < max(int(reel_arrays(game, r).rows.max()) if rows is None else rows for r, rows, _, _ in keys):
        msg = f"{game.name}: a spin's window is taller than the cell masks' stride {height}"
        raise ModelError(msg)
    # the models: one symbol trie over every symbol the line rule may read on each reel
    reads: list[npt.NDArray[np.int64]] = []
    for _, _, _, remap in keys:
        read = np.arange(t.n_symbols, dtype=np.int64)
        for s, as_ in remap:
            read[s] = as_
        reads.append(read)
    alphabets = [sorted({int(x) for (r_name, _, _, _), read in zip(keys, reads, strict=True)
                         for x in t.read_on(r, read[[*reel_arrays(game, r_name).strips[r].tolist(), *sorted(b.forced)]])
                         .tolist()})
                 for r in range(game.n_reels)]
    sym = np.full((1, t.n_ids), -1, dtype=np.int64) if t.ways else _symbol_trie(t, alphabets)
    parts: list[list[npt.NDArray[Any]]] = []
    for key in keys:
        n = stake.lines if key[2] is None else key[2]
        if t.ways:
            line_rows = np.zeros((0, game.n_reels), dtype=np.int64)
        else:
            if n > len(game.paylines):
                msg = f"{game.name}: a spin plays {n} lines, the game has {len(game.paylines)} paylines"
                raise ModelError(msg)
            line_rows = np.array(game.paylines[:n], dtype=np.int64).reshape(n, game.n_reels)
        base_model = any(row[0] == len(parts) for row in b.var)
        parts.append(compile_model(reel_arrays(game, key[0]), t, key, line_rows, sym, symcode, height, base_model))
    models = stack_models(keys, parts)
    # one look-up per observation code: scatter credits << 16 | the features its counts start
    codes = np.arange(n_codes, dtype=np.int64)
    radix = np.cumprod([1, *bases[:-1]]).astype(np.int64) if bases else np.ones(0, dtype=np.int64)
    counts = {ids: (codes // radix[d]) % bases[d] for d, ids in enumerate(b.digits)}
    credits = np.zeros(n_codes, dtype=np.int64)
    for d, sp in enumerate(paying):
        credits += np.array([sp.pay(int(c)) for c in range(bases[d])], dtype=np.int64)[counts[b.digits[d]]]
    mask = np.zeros(n_codes, dtype=np.int64)
    for j, (name, _, seq) in enumerate(seqs):
        ok = np.full(n_codes, seq.trigger is not None)
        for test in seq.trigger or ():
            where = f"{game.name}: feature {name!r} trigger"
            ok &= compare(static_value(test.value, counts, b.sid, where), test.op, test.constant)
        mask |= ok.astype(np.int64) << j
    ptab = (credits * t.scatter_credits << 16) | mask
    weights = np.array([v.weight for v in variants], dtype=np.int64)
    program = b.finish(bases, height, game.n_reels, ptab, np.cumsum(weights), sym)
    caps = [tab.credits for _, tab in tables if isinstance(tab, RoundCap)]
    cap = min(caps) if caps else None
    if cap is not None and Fraction(cap).denominator != 1:
        msg = f"{game.name}: the cap is {cap} credits at this bet, not a whole number"
        raise ModelError(msg)
    ladders = [tab for _, tab in tables if isinstance(tab, Ladder)]
    par = np.zeros(K.N_PAR, dtype=np.int64)
    par[K.P_WAYS] = int(t.ways)
    par[K.P_TOTAL_BET] = t.total_bet
    par[K.P_CAP] = int(cap) if cap is not None else 1 << 62
    par[K.P_HEIGHT] = height
    par[K.P_VARIANTS] = len(variants)
    par[K.P_VTOTAL] = int(weights.sum())
    par[K.P_REGS] = len(b.regs)
    par[K.P_VALS] = b.n_vals
    par[K.P_FEATURES] = len(seqs)
    par[K.P_WINDOW] = int(b.cells or b.window)  # some instruction reads the window (cell masks, forced cells ...)
    components = ("ways" if t.ways else "lines",) + (("scatter",) if len(t.scatter_ids) else ())
    components += tuple(name.removeprefix("component:") for name in b.slots if name.startswith("component:"))
    components += ("cap",) if cap is not None else ()
    return SimSpec(
        name=game.name, total_bet=t.total_bet, ways=t.ways, components=components,
        features=tuple(name for name, _, _ in seqs if name not in instant), models=models.arrays, program=program,
        ways_tables=(t.match, t.pay, t.mult, t.wild, t.ways_rule), par=par, slots=dict(b.slots), n_acc=b.n_acc,
        ladder=ladders[0] if ladders else None, model_keys=models.keys,
        variant_labels=tuple(v.label for v in variants), sequences=tuple(name for name, _, _ in seqs),
    )

