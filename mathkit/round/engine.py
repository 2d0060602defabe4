"""The exact engine as feature blocks see it: :class:`Engine`, the :class:`~mathkit.features.Context` of one analysis.

One engine serves one analysis of one game at one bet (reel set, lines, coins).
It answers the blocks' questions about spins — the exact joint law of a spin's
win and observations (full-cycle enumeration, :mod:`mathkit.exact`), exact mean
wins by component and exact laws of observation digits (per-reel algebra,
:mod:`mathkit.exact.components`, no enumeration) — and caches every answer, so a spin model
asked for by several blocks is computed once.  Answers about spins are also kept
across engines (a bounded cache keyed by the content they depend on: the pay
rules, the bet, the one reel set the spin draws from, the observation digits), so
after an edit of one reel set only the spins drawing from it are computed again.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import LimitError, ModelError, located
from ..exact.base import SpinMaths
from ..exact.components import forced_line_credits, spin_rtp
from ..exact.cycle import JointCounts, joint_counts
from ..exact.pairs import PairTables, SplitTables, pair_tables, split_tables
from ..features.base import Block
from ..laws.law import merge
from ..laws.stage import JointLaw, Level, LineTable, Overlay, Precision, Spin, SpinModel, SpinPlay, cell_bits
from ..model.bounds import env_number, spin_tops
from ..model.game import Game
from ..spin.stops import StopTables, observed, stop_tables
from ..spin.tables import PayTables, pay_tables

__all__ = ["Engine"]

T = TypeVar("T")
PlaySpin = Callable[[SpinModel, tuple[str, ...], Callable[[Mapping[str, int]], Hashable], tuple[str, ...], Level | None],
                    SpinPlay]
"""The round composer's answer to :meth:`Engine.play_spin`."""
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
CLASS_LIMIT = 4096
"""The most classes a spin with products is enumerated in (one enumeration each)."""
SHARED_SIZE = 4096
"""The most answers kept across engines (least recently used out first) …"""
SHARED_BYTES = 512 << 20
"""… and the most bytes of arrays they may hold together (``MATHKIT_ENGINE_CACHE_MB`` overrides it): a kernel
that analyses edit after edit (the workbench, a fuzz worker) stays bounded whatever the games."""
_SHARED: OrderedDict[Hashable, tuple[Any, Any, int]] = OrderedDict()
_SHARED_TOTAL = [0]


def _shared_budget() -> int:
    return int(env_number("MATHKIT_ENGINE_CACHE_MB", SHARED_BYTES / 2**20, unit="megabytes") * 2**20)


def array_bytes(value: object, _depth: int = 0, _seen: set[int] | None = None) -> int:
    """The bytes of the numpy arrays ``value`` holds (through tuples, lists, dicts and objects' fields, 8 deep).

    Examples
    --------
    >>> array_bytes((np.zeros(4), {"a": [np.zeros(2, dtype=np.int32)]}, "text"))
    40
    """
    seen = set() if _seen is None else _seen
    if _depth > 8 or id(value) in seen or isinstance(value, (str, bytes, int, float, complex, bool)) or value is None:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (tuple, list, set, frozenset)):
        return sum(array_bytes(v, _depth + 1, seen) for v in value)
    if isinstance(value, dict):
        return sum(array_bytes(v, _depth + 1, seen) for v in value.values())
    fields = getattr(value, "__dict__", None)
    if fields is not None:
        return array_bytes(fields, _depth + 1, seen)
    slots = getattr(type(value), "__slots__", ())
    return sum(array_bytes(getattr(value, name, None), _depth + 1, seen) for name in slots)


class Engine:
    """The exact engine for one game at one bet: the context every block is handed (:class:`mathkit.features.RoundContext`).

    Its services are its own; :meth:`play_spin` (a spin as the round plays it) is the round composer's,
    handed to the engine when it composes a round (:meth:`hand`).

    Parameters
    ----------
    game
        The game.
    reels
        The base reel set (default: the game's).
    lines, coins
        The bet analysed (default: the game's default bet).
    parallel
        Use the parallel enumeration kernel.
    precision
        ``"exact"`` (Fractions) or ``"float"``: what the blocks' own solves use (the engine's
        answers stay exact either way; blocks may answer in floating point when asked to).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> eng = Engine(load_game("data/games/dynasty.toml"))
    >>> weights, cycle = eng.digit_law(eng.base_model(), ("EMPEROR",))
    >>> sum(weights.values()) == cycle == eng.game.reel_set().cycle
    True
    """

    def __init__(self, game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
                 parallel: bool = False, precision: Precision = "exact") -> None:
        self._game = game
        self._precision: Precision = precision
        self.reels = game.reel_set(reels).name
        self._lines = game.bet.lines if lines is None else lines
        self._coins = game.bet.coins[0] if coins is None else coins
        self.parallel = parallel
        self._total_bet = pay_tables(game, lines=self._lines, coins=self._coins).total_bet
        self._memo: dict[Hashable, object] = {}
        self._digits = {d.name: d for f in game.features if isinstance(f, Block) for d in f.digits(game)}
        self._content: dict[str, tuple[Any, ...]] = {}
        self._hashes: dict[int, int] = {}
        self._play_spin: PlaySpin | None = None

    def hand(self, play_spin: PlaySpin) -> None:
        """Take the round composer's ``play_spin`` (:func:`mathkit.round.analyse` hands it when it composes a round)."""
        self._play_spin = play_spin

    def play_spin(self, model: SpinModel, observe: tuple[str, ...], group: Callable[[Mapping[str, int]], Hashable],
                  exclude: tuple[str, ...] = (), level: Level | None = None) -> SpinPlay:
        """One spin as the round plays it (:meth:`mathkit.features.RoundContext.play_spin`): the composer's answer."""
        if self._play_spin is None:
            msg = "a spin as the round plays it is answered inside a round analysis: call mathkit.round.analyse(game)"
            raise ModelError(msg)
        return self._play_spin(model, observe, group, exclude, level)

    @property
    def game(self) -> Game:
        return self._game

    @property
    def total_bet(self) -> int:
        return self._total_bet

    @property
    def lines(self) -> int:
        return self._lines

    @property
    def coins(self) -> int:
        return self._coins

    @property
    def precision(self) -> Precision:
        return self._precision

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``key`` is asked for, the cached value after."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

    def shared(self, key: Hashable, reels: tuple[str, ...], compute: Callable[[], T]) -> T:
        """:meth:`once`, and kept across engines: for a value that depends only on the pay rules, the bet, the
        precision, the reel sets ``reels`` and what ``key`` holds (the blocks asking, by value).

        After an edit of another reel set the value is reused; any change to what it depends on computes it anew.
        """
        return self._spin_once(("block", key, self._precision), reels, compute)

    def _content_of(self, reels: str) -> tuple[Any, ...]:
        if reels not in self._content:
            g = self._game
            self._content[reels] = (g.symbols, g.line_pays, g.scatter_pays, g.evaluation_rules, g.paylines, g.bet,
                                    g.pay_mode, g.reel_set(reels), self._lines, self._coins, tuple(sorted(self._digits.items())))
        return self._content[reels]

    def _hash_of(self, content: tuple[Any, ...]) -> int:
        if id(content) not in self._hashes:
            self._hashes[id(content)] = hash(content)
        return self._hashes[id(content)]

    def _spin_once(self, key: Hashable, reels: str | tuple[str, ...], compute: Callable[[], T]) -> T:
        """:meth:`once` for an answer about spins of reel set(s) ``reels``, shared across engines by content."""
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        names = (reels,) if isinstance(reels, str) else tuple(dict.fromkeys(reels))
        if names:
            rules = tuple(self._content_of(r) for r in names)
        else:  # the pay rules and the bet alone
            if "" not in self._content:
                c = self._content_of(self.reels)
                self._content[""] = (*c[:6], None, *c[7:])
            rules = (self._content[""],)
        shared = (tuple(self._hash_of(r) for r in rules), key)  # looked up by content hashes, confirmed by the content
        hit: Any = _SHARED.get(shared)
        value: Any
        if hit is not None and hit[0] == rules:
            _SHARED.move_to_end(shared)
            value = hit[1]
        else:
            value = compute()
            if hit is not None:  # a hash collision: the new content replaces the old
                _SHARED_TOTAL[0] -= _SHARED.pop(shared)[2]
            size = array_bytes(value)
            _SHARED[shared] = (rules, value, size)
            _SHARED_TOTAL[0] += size
            budget = _shared_budget()
            while _SHARED and (len(_SHARED) > SHARED_SIZE or _SHARED_TOTAL[0] > budget):
                _SHARED_TOTAL[0] -= _SHARED.popitem(last=False)[1][2]
        self._memo[key] = value
        return value  # type: ignore[no-any-return]

    def base_model(self) -> SpinModel:
        return SpinModel(self.reels)

    # --- stop tables and pay tables of a spin model ------------------------------------------
    def _lines_of(self, model: SpinModel) -> int:
        return self._lines if model.lines is None else model.lines

    def tables(self, model: SpinModel) -> PayTables:
        """The pay rules of ``model``'s spin: its lines, at the bet analysed (multipliers not applied)."""
        lines = self._lines_of(model)
        if self._game.pay_mode != "lines" or lines <= len(self._game.paylines):
            return pay_tables(self._game, lines=lines, coins=self._coins)
        msg = f"spin {model}: {lines} lines active, the game has {len(self._game.paylines)} paylines"
        raise ModelError(msg)

    def stops(self, model: SpinModel, digits: tuple[str, ...] = ()) -> StopTables:
        """The stop tables of ``model``'s spin observing ``digits`` (and every scatter's count).

        The tables of a spin are built once with every digit the game's blocks declare; a request
        for some of them takes their columns (a block's digits are Python per stop: built once).
        """
        key = (model.reels, model.rows, model.forced, model.remap, model.restrict, model.extra, model.products)

        def compute() -> StopTables:
            wanted = observed(self._game, model, digits)
            full = self._spin_once(("stops", key, None), model.reels,
                                   lambda: stop_tables(self._game, model, tuple(self._digits), self._digits))
            if all(d in full.digits for d in wanted):
                return full.only(wanted)
            return stop_tables(self._game, model, digits, self._digits)

        return self._spin_once(("stops", key, digits), model.reels, compute)

    def spin_maths(self, model: SpinModel) -> SpinMaths:
        """The full-cycle maths of a plain spin of the model's reel set and lines (before its multipliers)."""
        if model.rows is not None or model.forced or model.remap or model.restrict or model.extra or model.products:
            msg = f"spin {model}: spin_maths is for plain spins; use joint() for modified ones"
            raise ModelError(msg)
        lines = self._lines_of(model)
        plain = SpinModel(model.reels, lines=lines)

        def compute() -> SpinMaths:
            t = self.tables(plain)
            st = self.stops(plain)
            jc = self._enumerate(plain, ())
            return SpinMaths(self._game, model.reels, lines, self._coins, t, spin_rtp(t, st), jc)

        return self._spin_once(("spin", model.reels, lines), model.reels, compute)

    def spin_paytable(self, model: SpinModel) -> SpinMaths:
        """:meth:`spin_maths`, or where a resource limit refuses its enumeration, the plain spin's paytable and RTP by
        combination (per-reel algebra) with no joint counts (:attr:`~mathkit.exact.base.SpinMaths.refused` says why)."""
        try:
            return self.spin_maths(model)
        except LimitError as refused:
            lines = self._lines_of(model)
            plain = SpinModel(model.reels, lines=lines)
            t, st = self.tables(plain), self.stops(plain)
            return SpinMaths(self._game, model.reels, lines, self._coins, t, spin_rtp(t, st), None, refused)

    def _enumerate(self, model: SpinModel, digits: tuple[str, ...]) -> JointCounts:
        """Exact joint counts of (line win + extra win, observation code) of ``model``.

        Line multipliers scale the pay table when the spin has extra wins (they are not multiplied);
        otherwise they are applied afterwards, so spins differing only in multipliers share one enumeration.
        A spin with products is enumerated class by class (:meth:`_classes`).
        """
        m = model.line_multiplier if model.extra or model.products else 1
        key = replace(model, lines=self._lines_of(model), line_multiplier=m, scatter_multiplier=1)

        def compute() -> JointCounts:
            with located(field=f"reels.{model.reels}"):
                t = self.tables(key)
                if m != 1:
                    t = replace(t, pay=t.pay * m)
                st = self.stops(key, digits)
                if not key.products:
                    return joint_counts(t, st, parallel=self.parallel)
                return self._by_classes(t, st, digits)

        return self._spin_once(("enumerate", key, digits), model.reels, compute)

    def _classes(self, st: StopTables) -> list[tuple[list[BoolArray], list[IntArray]]]:
        """The classes inside which every product of ``st`` is an extra win: per class, the stops kept and the extra.

        For each product ``credits × A × B`` the factor taking fewer joint per-reel values is
        conditioned on: a class fixes its value on every reel, so the product pays
        ``credits × (its total) × b_r`` at each stop of reel ``r`` (the other factor's value there).
        The classes partition every reel's stops, so their cycles add up to the spin's.
        """
        def n_values(name: str) -> int:
            out = 1
            for o in st.obs:
                out *= len(np.unique(o[:, st.index(name)]))
            return out

        fixed: list[int] = []
        other: list[tuple[int, int, int]] = []  # (the other factor, credits, which conditioned digit)
        for _, da, db, unit in st.product_parts:
            a, b = (da, db) if n_values(da) <= n_values(db) else (db, da)
            fixed.append(st.index(a))
            other.append((st.index(b), unit, len(fixed) - 1))
        per_reel = [np.unique(o[:, fixed], axis=0) for o in st.obs]
        n = math.prod(len(v) for v in per_reel)
        if n > CLASS_LIMIT:
            names = ", ".join(dict.fromkeys(st.digits[i] for i in fixed))
            msg = (f"a spin with products of observations needs {n:,} classes of {names} (more than {CLASS_LIMIT:,}); "
                   "a product's factor should vary on few reels")
            raise ModelError(msg)
        out = []
        for values in itertools.product(*per_reel):
            totals = np.sum(values, axis=0)
            keep = [np.all(o[:, fixed] == v, axis=1) for o, v in zip(st.obs, values, strict=True)]
            extra = []
            for o, k in zip(st.obs, keep, strict=True):
                x = np.zeros(int(k.sum()), dtype=np.int64)
                for i, unit, j in other:
                    x += int(totals[j]) * unit * o[k][:, i]
                extra.append(x)
            out.append((keep, extra))
        return out

    def _by_classes(self, t: PayTables, st: StopTables, digits: tuple[str, ...]) -> JointCounts:
        """Joint counts of a spin with products: every class enumerated, the cells merged (one packing)."""
        factors = {n for p in st.product_parts for n in p[1:3]}
        scatters = [s.name for s in self._game.scatters]
        kept = tuple(d for d in st.digits if d in scatters or d in digits or d not in factors)
        idx = [st.index(d) for d in kept]
        sizes = st.sizes[idx] if kept else np.ones(0, dtype=np.int64)
        radix = np.cumprod(np.concatenate([[1], sizes[:-1]])).astype(np.int64) if kept else sizes
        wins, codes, counts = [], [], []
        threads = 1
        for keep, extra in self._classes(st):
            if not all(k.any() for k in keep):
                continue
            jc = joint_counts(t, st.select(keep, extra, kept), parallel=self.parallel)
            threads = max(threads, jc.threads)
            code = np.zeros(len(jc.codes), dtype=np.int64)
            for d, r in zip(kept, radix.tolist(), strict=True):
                code += jc.digit(d) * r
            wins.append(jc.wins)
            codes.append(code)
            counts.append(jc.counts)
        n_codes = int(np.prod(sizes)) if kept else 1
        keys, total, _ = merge(np.concatenate(wins) * n_codes + np.concatenate(codes),
                               np.concatenate(counts).astype(np.int64))
        return JointCounts(keys // n_codes, keys % n_codes, total, kept, radix, sizes, st.cycle, threads)

    def constant(self, model: SpinModel, digit: str) -> int | None:
        """The total of observation ``digit`` when it is the same at every stop of every reel (the window height ...), else ``None``."""
        st = self.stops(model, (digit,))
        d = st.index(digit)
        total = 0
        for o in st.obs:
            column = o[:, d]
            if column.size and int(column.min()) != int(column.max()):
                return None
            total += int(column[0]) if column.size else 0
        return total

    def joint(self, model: Spin, digits: tuple[str, ...] = ()) -> JointLaw:
        """Observation digits that are constant over the cycle are not enumerated (they would only widen the codes)."""
        if isinstance(model, Overlay):
            return self._spin_once(("joint", model, digits), model.reels, lambda: self._overlay_joint(model, digits))

        def compute() -> JointLaw:
            scatters = {s.name for s in self._game.scatters}
            fixed = {d: c for d in digits if d not in scatters and (c := self.constant(model, d)) is not None}
            jc = self._enumerate(model, tuple(d for d in digits if d not in fixed))
            t = self.tables(model)
            wins = jc.wins * (1 if model.extra or model.products else model.line_multiplier)
            if len(t.scatter_ids):
                scatter = np.zeros(len(jc.codes), dtype=np.int64)
                for k, s in enumerate(t.scatter_ids):
                    scatter += t.scatter_pay[k, np.minimum(jc.digit(t.names[s]), t.scatter_pay.shape[1] - 1)]
                wins = wins + scatter * t.scatter_credits * model.scatter_multiplier
            values = {d: jc.digit(d) for d in jc.digits}
            values.update({d: np.full(len(jc.counts), c, dtype=np.int64) for d, c in fixed.items()})
            return JointLaw(wins, values, jc.counts, jc.cycle, self._total_bet)

        return self._spin_once(("joint", model, digits), model.reels, compute)

    def means(self, model: Spin) -> Mapping[str, Fraction]:
        if isinstance(model, Overlay):
            return self._spin_once(("means", model), model.reels, lambda: self._overlay_means(model))

        def compute() -> dict[str, Fraction]:
            comp = spin_rtp(self.tables(model), self.stops(model))
            extra = {c for c, _, _ in model.extra} | {p[0] for p in model.products}
            out: dict[str, Fraction] = {}
            for c in comp.components:
                factor = 1 if c in extra else model.scatter_multiplier if c == "scatter" else model.line_multiplier
                out[c] = Fraction(comp.credits(c) * factor, comp.cycle)
            return out

        return self._spin_once(("means", model), model.reels, compute)

    def win_bound(self, model: Spin) -> int:
        """An upper bound of one spin's win in credits: every line (or way) at its best, every scatter and extra paid."""
        if isinstance(model, Overlay):  # the bound reads the paytable, not the cells
            return self.win_bound(model.model)

        def compute() -> int:
            st = self.stops(model)
            line_top, scatter_top = spin_tops(self._game, model.reels, lines=self._lines_of(model),
                                              coins=self._coins, rows=tuple(int(x) for x in st.rows))
            extra_top = sum(int(x.max(initial=0)) for x in st.extra)
            for _, da, db, unit in model.products:
                tops = [sum(int(o[:, st.index(d)].max(initial=0)) for o in st.obs) for d in (da, db)]
                extra_top += unit * tops[0] * tops[1]
            return line_top * model.line_multiplier + scatter_top * model.scatter_multiplier + extra_top

        return self._spin_once(("bound", model), model.reels, compute)

    def reel_laws(self, model: SpinModel, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], ...]:
        """Per reel, the exact weights of the values the observation digits ``names`` take on that reel."""
        def compute() -> tuple[dict[tuple[int, ...], int], ...]:
            st = self.stops(model, names)
            idx = [st.index(n) for n in names]
            out = []
            for r in range(st.n_reels):
                reel: dict[tuple[int, ...], int] = {}
                for row, w in zip(st.obs[r][:, idx].tolist(), st.weights[r].tolist(), strict=True):
                    reel[tuple(row)] = reel.get(tuple(row), 0) + w
                out.append(reel)
            return tuple(out)

        return self._spin_once(("reel laws", model, names), model.reels, compute)

    def digit_law(self, model: Spin, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], int]:
        """Exact weights of the joint values of the observation digits ``names`` (convolution over reels)."""
        if isinstance(model, Overlay):
            return self._spin_once(("digits", model, names), model.reels, lambda: self._overlay_digit_law(model, names))

        def compute() -> tuple[dict[tuple[int, ...], int], int]:
            laws = self.reel_laws(model, names)
            law = _convolve(laws, len(names))
            return law, int(np.prod([sum(r.values()) for r in laws], dtype=object))

        return self._spin_once(("digits", model, names), model.reels, compute)

    def line_table(self, model: SpinModel, symbol: str) -> LineTable:
        """Each line's credits over the cycle with its cells on any set of reels forced to ``symbol`` (no enumeration)."""
        def compute() -> LineTable:
            t = self.tables(model)
            st = self.stops(model)
            sid = list(t.names).index(symbol)
            read = dict(model.remap).get(symbol, symbol)
            credits = forced_line_credits(t, st, list(t.names).index(read) if read != symbol else sid)
            m = model.line_multiplier
            return LineTable(symbol, tuple(tuple(c * m for c in row) for row in credits),
                             tuple(tuple(int(x) for x in line) for line in t.lines.tolist()),
                             tuple(int(h) for h in st.rows.tolist()), st.cycle)

        if self._game.pay_mode != "lines":
            msg = f"spin {model}: a forced-cell line table needs a lines game"
            raise ModelError(msg)
        return self._spin_once(("line table", model, symbol), model.reels, compute)

    def pair_table(self, model: SpinModel, symbol: str) -> PairTables:
        """Every pair of lines' Σ of ``w_l·w_l'`` over the cycle under every option of forced ``symbol`` cells (no enumeration)."""
        def compute() -> PairTables:
            t = self.tables(model)
            st = self.stops(model)
            if model.line_multiplier != 1:
                msg = f"spin {model}: line-pair tables are for spins without a line multiplier"
                raise ModelError(msg)
            return pair_tables(t, st, list(t.names).index(dict(model.remap).get(symbol, symbol)))

        if self._game.pay_mode != "lines" or self._game.scatter_pays:
            msg = f"spin {model}: second moments from line pairs need a lines game without scatter pays"
            raise ModelError(msg)
        return self._spin_once(("pair table", model, symbol), model.reels, compute)

    def split_table(self, model: SpinModel, symbol: str, digits: tuple[str, ...]) -> SplitTables:
        """Every line's credits with ``symbol`` cells forced, split by what each reel ``r`` shows of observation
        ``digits[r]`` (one digit per reel, e.g. ``SYMBOL@r``)."""
        def compute() -> SplitTables:
            t = self.tables(model)
            st = self.stops(model, digits)
            obs = tuple(o[:, st.index(d)] for o, d in zip(st.obs, digits, strict=True))
            return split_tables(t, st, list(t.names).index(dict(model.remap).get(symbol, symbol)), obs)

        return self._spin_once(("split table", model, symbol, digits), model.reels, compute)

    # --- random overlays ------------------------------------------------------------------------
    def _overlay_means(self, o: Overlay) -> dict[str, Fraction]:
        plain = self.means(o.model)
        others_zero = all(v == 0 for c, v in plain.items() if c != "lines")
        # a wild laid over a scatter lowers its count, so a scatter pay the plain spin never reaches (4 pays
        # nothing, 3 pays) can pay under the overlay: the shortcut needs a game whose scatters pay nothing
        scatters_pay = any(pay for sp in self._game.scatter_pays for _, pay in sp.pays)
        if (self._game.pay_mode == "lines" and others_zero and not scatters_pay and not o.model.extra
                and not self._game.symbol(o.symbol).is_scatter):
            # only the lines can change: every placement's mean from the one forced-cell line table
            table = self.line_table(o.model, o.symbol)
            bits = cell_bits(table.rows)
            masks = np.array([sum(1 << (bits[r] + k) for r, k in set(cells)) for cells in o.placements], dtype=np.int64)
            credits = table.masks_credits(masks)
            total = sum(int(w) * int(c) for w, c in zip(o.weights, credits.tolist(), strict=True))
            out = dict(plain)
            out["lines"] = Fraction(total, table.cycle * o.total)
            return out
        acc: dict[str, Fraction] = {}
        for i, w in enumerate(o.weights):
            for c, v in self.means(o.forced(i)).items():
                acc[c] = acc.get(c, Fraction(0)) + w * v
        return {c: v / o.total for c, v in acc.items()}

    def overlay_m2(self, o: Overlay) -> Fraction | None:
        """E[W²] of a random overlay's spin from the line-pair tables (no enumeration), where only its lines pay."""
        plain = self.means(o.model)
        if (self._game.pay_mode != "lines" or self._game.scatter_pays or o.model.extra or o.model.products
                or any(v != 0 for c, v in plain.items() if c != "lines") or self._game.symbol(o.symbol).is_scatter
                or o.model.line_multiplier != 1):
            return None

        def compute() -> Fraction:
            pt = self.pair_table(o.model, o.symbol)
            bits = cell_bits(pt.rows)
            masks = np.array([sum(1 << (bits[r] + k) for r, k in set(cells)) for cells in o.placements], dtype=np.int64)
            total = sum(int(w) * int(x) for w, x in zip(o.weights, pt.masks_m2(masks).tolist(), strict=True))
            return Fraction(total, pt.cycle * o.total)

        return self._spin_once(("overlay m2", o), o.reels, compute)

    def _overlay_digit_law(self, o: Overlay, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], int]:
        n_reels = self._game.reel_set(o.reels).n_reels
        per_reel: dict[tuple[int, tuple[int, ...]], dict[tuple[int, ...], int]] = {}
        acc: dict[tuple[int, ...], int] = {}
        cycle = 0
        patterns = []
        for cells in o.placements:
            keys = []
            for r in range(n_reels):
                rows = tuple(sorted(k for rr, k in cells if rr == r))
                if (r, rows) not in per_reel:
                    forced = replace(o.model, forced=o.model.forced + tuple((r, k, o.symbol) for k in rows))
                    per_reel[(r, rows)] = self.reel_laws(forced, names)[r]
                keys.append((r, rows))
            patterns.append(keys)
        cycle = int(np.prod([sum(per_reel[k].values()) for k in patterns[0]], dtype=object)) if patterns else 0
        if all(len(law) == 1 for law in per_reel.values()):  # every reel shows one value whatever the stop: add them
            for keys, w in zip(patterns, o.weights, strict=True):
                total = tuple(sum(v) for v in zip(*(next(iter(per_reel[k])) for k in keys), strict=True)) if names else ()
                acc[total] = acc.get(total, 0) + w * cycle
            return acc, cycle * o.total
        for keys, w in zip(patterns, o.weights, strict=True):
            law = _convolve(tuple(per_reel[k] for k in keys), len(names))
            for k, v in law.items():
                acc[k] = acc.get(k, 0) + w * v
        return acc, cycle * o.total

    def _overlay_joint(self, o: Overlay, digits: tuple[str, ...]) -> JointLaw:
        parts = [(w, self.joint(o.forced(i), digits)) for i, w in enumerate(o.weights)]
        wins = np.concatenate([j.wins for _, j in parts])
        counts = np.concatenate([j.counts * w for w, j in parts])
        names = tuple(parts[0][1].digits)
        keys = np.stack([wins, *(np.concatenate([j.digits[d] for _, j in parts]) for d in names)], axis=1)
        uniq, c, _ = merge(keys, counts.astype(np.int64), axis=0)
        return JointLaw(uniq[:, 0].copy(), {d: uniq[:, 1 + i].copy() for i, d in enumerate(names)}, c,
                        parts[0][1].cycle * o.total, self._total_bet)


def _convolve(laws: tuple[dict[tuple[int, ...], int], ...], n: int) -> dict[tuple[int, ...], int]:
    """The law of the sum over reels of independent per-reel digit values."""
    law: dict[tuple[int, ...], int] = {(0,) * n: 1}
    for reel in laws:
        nxt: dict[tuple[int, ...], int] = {}
        for a, wa in law.items():
            for b, wb in reel.items():
                k = tuple(x + y for x, y in zip(a, b, strict=True))
                nxt[k] = nxt.get(k, 0) + wa * wb
        law = nxt
    return law
