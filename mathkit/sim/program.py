"""The vocabulary of :mod:`mathkit.play.vocabulary` compiled to the driver's instructions.

A :class:`Builder` turns the blocks' tables into one list of instructions
(``op, a, b, c, d, e``; the ops are listed in :mod:`mathkit.sim.layout`) that the
driver of :mod:`mathkit.sim.kernels` interprets, with no function call on the
way.  Names become numbers (registers, symbols, stages, features, counters) and
every reference is checked, so a table naming something the game lacks is
refused with the block's name.

* A value becomes value ops in post-order, each writing its own slot of ``vals``
  (operands first); look-up tables and laws go into one integer array ``tab`` (a
  law at ``o``: ``n, total weight, n values, n cumulative weights``).
* A test becomes its value's ops and a conditional jump past what it guards.
* A :class:`~mathkit.play.vocabulary.Count` of symbols becomes a digit of the spins'
  observation code; its radix and size are known once every spin model is, so
  its op is completed by :meth:`Builder.finish`.
* Each feature compiles to an entry program (its entry actions) and its stages:
  ``C_STAGE``, the spin (forced cells, ``X_SPIN``; with several spins, a chain of
  jumps on the pick), the actions, ``X_PAYSPIN`` with the multipliers, the exits
  (``C_GOTO`` a stage, or ``C_END``).  A slow base variant compiles to its forced
  cells, ``X_REBASE`` and ``X_LABEL``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..play.vocabulary import Action, Const, Count, Force, Lookup, Reg, Repeat, Sequence, Stage, Start, Test, Value, children
from . import layout as K
from .layout import IntArray
from .models import ModelKey
from .words import ACTIONS, CODE, VALUES
from .words import OPS as WORDS
from .words.actions import TALLY
from .words.base import Op, StaticCounts
from .words.control import END, GOTO, JF, JFR, JTR, STAGE, SWITCH
from .words.spin import FORCE, LABEL, NEST, OPT, PAYSPIN, PAYSPINK, REBASE, SPIN, SPINT

__all__ = ["PROGRAM", "Builder", "compare", "static_value"]

PROGRAM = ("code", "tab", "symset", "symcode", "feat", "var", "vcum", "ptab", "sym", "comp", "cmap")
"""The program's arrays, in the order the driver unpacks them: instructions, tables, symbol sets, what each
symbol adds to the observation code, features ``(entry pc, first stage pc, component slot, entered slot, spins
slot (then the sum of squares of each entry's spins, as a (hi, lo) pair), instant)``, base variants
``(model, program pc or -1)``, their cumulative weights, the look-up by observation code
(``scatter credits << 16 | features its counts start``) and the symbol trie."""

OPS = {"==": K.T_EQ, "!=": K.T_NE, "<": K.T_LT, "<=": K.T_LE, ">": K.T_GT, ">=": K.T_GE}
_NUMPY = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
          ">=": np.greater_equal}


def compare(x: npt.NDArray[np.int64], op: str, c: int) -> npt.NDArray[np.bool_]:
    """``x op c`` element by element (a test of the vocabulary, in numpy)."""
    out: npt.NDArray[np.bool_] = _NUMPY[op](x, c)
    return out


def static_value(v: Value, counts: dict[tuple[int, ...], npt.NDArray[np.int64]], sid: dict[str, int],
                 where: str) -> npt.NDArray[np.int64]:
    """A value that reads only symbol counts, for every observation code at once (``counts[symbol ids]``: the
    count of each code); a trigger must be such a value, so the driver looks it up instead of computing it."""
    n = len(next(iter(counts.values()))) if counts else 1
    static = StaticCounts(counts, sid, n)

    def rec(x: Value) -> npt.NDArray[np.int64]:
        word = VALUES.get(type(x))
        if word is None or word.static is None:
            msg = f"{where}: a trigger reads only symbol counts (Const, Count, Lookup, Sum, Min, Max), not {x!r}"
            raise ModelError(msg)
        out: npt.NDArray[np.int64] = word.static(x, rec, static)
        return out

    return rec(v)


class Builder:
    """Compiles the sequence features of one round, and the base variants, into instructions."""

    def __init__(self, game_name: str, names: tuple[str, ...], features: list[tuple[str, str, Sequence]],
                 total_bet: int, lines: int, reel_sets: tuple[str, ...], *, instant: frozenset[str] = frozenset(),
                 held: dict[int, int] | None = None, line_name: str = "lines", scatters: bool = True) -> None:
        self.game = game_name
        self.names = names
        self.sid = {n: i for i, n in enumerate(names)}
        self.total_bet = total_bet
        self.lines = lines
        self.reel_sets = reel_sets
        self.features = features  # (name, component, table)
        self.findex = {name: j for j, (name, _, _) in enumerate(features)}
        self.code: list[list[int]] = []
        self.tab: list[int] = []
        self.labels: list[int] = []
        self.n_vals = 0
        self.symsets: list[tuple[int, ...]] = []
        self.digits: list[tuple[int, ...]] = []
        self.feat: list[list[int]] = []
        self.var: list[list[int]] = []
        self.regs: dict[tuple[str, str], int] = {}
        self.models: list[ModelKey] = []
        self.slots: dict[str, int] = {}
        self.n_acc = K.N_ACC
        self.forced: set[int] = set()
        self.starting: set[str] = set()
        self.cells = False
        self.window = False  # some value reads the whole window (cell sums, stacks, the rows)
        self.instant = instant  # features played by their entry alone in every spin (EverySpin modifiers)
        self.held = held or {}  # rows -> lines of a spin whose height a feature holds (Variants.held)
        self.line_name = line_name
        self.scatters = scatters
        self.comps: list[str] = []  # components the features pay to (cw index)
        self.parts: list[tuple[str, int]] = []  # pay parts: (component name at the top of the round, owner)
        self.nesting: list[int] = []  # features with as_base spins
        self.current = -1  # the feature being compiled
        self.n_repeat = 0
        self.switches: list[tuple[int, list[int]]] = []  # jump tables: (offset in tab, labels)
        for name, _, seq in features:
            for r in seq.registers:
                if (name, r) in self.regs:
                    msg = f"{game_name}: feature {name!r} declares register {r!r} twice"
                    raise ModelError(msg)
                self.regs[(name, r)] = len(self.regs)

    # --- names ------------------------------------------------------------------------
    def slot(self, name: str, size: int = 1) -> int:
        """The accumulator slot of ``name`` (``size`` consecutive slots), after the fixed ones."""
        if name not in self.slots:
            self.slots[name] = self.n_acc
            self.n_acc += size
        return self.slots[name]

    def comp(self, name: str) -> int:
        """The index (in the round's feature wins) of component ``name``, its slots allocated."""
        if name not in self.comps:
            self.comps.append(name)
            self.slot(f"component:{name}", 3)
        return self.comps.index(name)

    def part(self, name: str) -> int:
        """The pay part ``name`` of the feature being compiled (its component at the top of the round)."""
        key = (name, self.current)
        if key not in self.parts:
            self.parts.append(key)
        return self.parts.index(key)

    def symbols(self, names: tuple[str, ...], where: str) -> tuple[int, ...]:
        missing = [n for n in names if n not in self.sid]
        if missing or not names:
            msg = f"{where}: no symbol {missing[0]!r} in the game" if missing else f"{where}: no symbols named"
            raise ModelError(msg)
        return tuple(sorted({self.sid[n] for n in names}))

    def digit(self, ids: tuple[int, ...]) -> int:
        if ids not in self.digits:
            self.digits.append(ids)
        return self.digits.index(ids)

    def reg(self, scope: str, feature: str | None, name: str, where: str) -> int:
        key = (feature or scope, name)
        if key not in self.regs:
            have = ", ".join(r for f, r in self.regs if f == key[0]) or "none"
            msg = f"{where}: feature {key[0]!r} has no register {name!r} (its registers: {have})"
            raise ModelError(msg)
        return self.regs[key]

    def model(self, reels: str, rows: int | None, lines: int | None, remap: tuple[tuple[str, str], ...],
              where: str, as_base: bool = False) -> int:
        """The index of a spin model (``-1``: an ``as_base`` spin at a height the base variants give no lines)."""
        if as_base and rows is not None and lines is None and self.held:
            if rows not in self.held:
                return -1  # never played where the rules hold; the driver stops the run if it is
            lines = self.held[rows]
        if reels not in self.reel_sets:
            msg = f"{where}: no reel set {reels!r} (the game has {', '.join(self.reel_sets)})"
            raise ModelError(msg)
        pairs = tuple((self.symbols((a,), where)[0], self.symbols((b,), where)[0]) for a, b in remap)
        key: ModelKey = (reels, rows, self.lines if lines is None else lines, pairs)
        if key not in self.models:
            self.models.append(key)
        return self.models.index(key)

    # --- instructions -----------------------------------------------------------------
    def emit(self, op: Op, a: int = 0, b: int = 0, c: int = 0, d: int = 0, e: int = 0) -> None:
        self.code.append([CODE[op.name], a, b, c, d, e])

    def label(self) -> int:
        """A new jump target (fixed by :meth:`mark`); jumps to it are written ``-1 - label`` until :meth:`finish`."""
        self.labels.append(-1)
        return -1 - (len(self.labels) - 1)

    def mark(self, label: int) -> None:
        self.labels[-1 - label] = len(self.code)

    def law(self, values: tuple[int, ...], weights: tuple[int, ...], where: str) -> int:
        if len(values) != len(weights) or not values or min(weights) < 0 or not 0 < sum(weights) < 1 << 32:
            msg = f"{where}: a law needs as many values as weights, weights ≥ 0 with a total in (0, 2**32)"
            raise ModelError(msg)
        off = len(self.tab)
        self.tab += [len(values), sum(weights), *values, *np.cumsum(weights).tolist()]
        return off

    def value(self, v: Value, scope: str, where: str) -> int:
        """Emit the ops of value ``v`` read in feature ``scope`` (through its word); returns its slot of ``vals``."""
        word = VALUES.get(type(v))
        if word is None:
            msg = f"{where}: the simulator has no value {type(v).__name__}"
            raise ModelError(msg)
        slot: int = word.compile(self, v, scope, where)
        return slot

    def op(self, op: Op, *fields: int) -> int:
        """Emit value instruction ``op`` writing a new slot of ``vals`` (its field ``a``); returns the slot."""
        out = self._new()
        self.emit(op, out, *fields)
        return out

    def table(self, values: list[int] | tuple[int, ...]) -> int:
        """Append ``values`` to the program's table ``tab``; returns where they start."""
        off = len(self.tab)
        self.tab += list(values)
        return off

    def symset(self, ids: tuple[int, ...]) -> int:
        """The index of symbol set ``ids`` (a row of ``symset``)."""
        if ids not in self.symsets:
            self.symsets.append(ids)
        return self.symsets.index(ids)

    def hidden(self, scope: str, kind: str) -> int:
        """A new register of feature ``scope`` no table names (a :class:`Repeat`'s count)."""
        self.n_repeat += 1
        key = (scope, f"#{kind}{self.n_repeat}")
        self.regs[key] = len(self.regs)
        return self.regs[key]

    @staticmethod
    def cmp(op: str) -> int:
        """The driver's code of comparison ``op`` (``"=="`` … ``">="``)."""
        return OPS[op]

    def _digits_of(self, v: Value, where: str) -> None:
        if isinstance(v, Count):
            self.digit(self.symbols(v.symbols, where))
        for x in children(v):
            self._digits_of(x, where)

    def _new(self) -> int:
        self.n_vals += 1
        return self.n_vals - 1

    def guard(self, tests: tuple[Test, ...], scope: str, fail: int, where: str) -> None:
        """Jump to ``fail`` unless every test holds."""
        for t in tests:
            if isinstance(t.value, Reg):  # fused: a test of a register
                self.emit(JFR, self.reg(scope, t.value.feature, t.value.name, where), OPS[t.op], t.constant, fail)
                continue
            x = self.value(t.value, scope, where)
            self.emit(JF, x, OPS[t.op], t.constant, fail)

    def actions(self, actions: tuple[Action, ...], scope: str, where: str) -> None:
        for i, a in enumerate(actions):
            at = f"{where}[{i}]"
            skip = self.label()
            self.guard(a.when, scope, skip, at)
            tally = self.slot(f"{scope}:{a.tally}") if a.tally is not None else -1
            word = ACTIONS.get(type(a))
            if word is None:
                msg = f"{at}: the simulator has no action {type(a).__name__}"
                raise ModelError(msg)
            tally = word.compile(self, a, scope, at, tally)
            if tally >= 0:
                self.emit(TALLY, tally, 0)
            self.mark(skip)

    def forces(self, forced: tuple[Force, ...], scope: str, where: str) -> None:
        if len(forced) > K.MAX_FORCES:
            msg = f"{where}: a spin forces at most {K.MAX_FORCES} masks"
            raise ModelError(msg)
        for i, f in enumerate(forced):
            sym = self.symbols((f.symbol,), f"{where}.forced[{i}]")[0]
            self.forced.add(sym)
            self.cells = True
            self.emit(FORCE, self.value(f.cells, scope, f"{where}.forced[{i}]"), sym)

    def _spins(self, st: Stage, scope: str, where: str) -> list[int]:
        """The stage's spin (a chain of options on the pick); returns each option's model."""
        ks = [self.model(s.reels, s.rows, s.lines, s.remap, f"{where}.spins[{i}]", s.as_base)
              for i, s in enumerate(st.spins)]
        n = len(st.spins)
        done = self.label()
        starts = [self.label() for _ in range(n)]
        if n > 1 and not any(s.forced for s in st.spins) and len({s.as_base for s in st.spins}) == 1:
            self._spin_table(st, ks, scope, where)
            return ks
        if n > 1:  # one jump through a table to the option picked (clamped to the options)
            pick = self.value(st.pick or Const(0), scope, f"{where}.pick")
            off = len(self.tab)
            self.tab += [0] * n
            self.switches.append((off, starts))
            self.emit(SWITCH, pick, off, n)
        for i, s in enumerate(st.spins):
            self.mark(starts[i])
            self.forces(s.forced, scope, f"{where}.spins[{i}]")
            self.emit(SPIN, ks[i], i)
            if s.as_base:
                if self.current not in self.nesting:
                    self.nesting.append(self.current)
                self.emit(NEST, self.current)
            if i < n - 1:
                self.emit(GOTO, done)
        self.mark(done)
        return ks

    def _spin_table(self, st: Stage, ks: list[int], scope: str, where: str) -> None:
        """Options that differ only in their model: one spin whose model a table gives (``X_SPINT``).

        The table rows are the model and the option of each value the pick may take (clamped);
        a pick that is a look-up keyed by a register is folded into the table, read on the register.
        """
        n = len(ks)
        pick = st.pick or Const(0)
        if isinstance(pick, Lookup) and isinstance(pick.of, Reg):
            src, by_reg = self.reg(scope, pick.of.feature, pick.of.name, f"{where}.pick"), 1
            options = [min(max(x, 0), n - 1) for x in pick.table]
        else:
            src, by_reg = self.value(pick, scope, f"{where}.pick"), 0
            options = list(range(n))
        off = len(self.tab)
        self.tab += [ks[i] for i in options] + options
        self.emit(SPINT, src, off, len(options), by_reg)
        if st.spins[0].as_base:
            if self.current not in self.nesting:
                self.nesting.append(self.current)
            self.emit(NEST, self.current)

    def _pay(self, st: Stage, scope: str, where: str) -> None:
        """The spin's pay with the chosen option's multipliers (read after the actions)."""
        n = len(st.spins)
        own = self.features[self.current][1]
        alike = {(s.line_multiplier, s.scatter_multiplier, s.as_base) for s in st.spins}
        lm0, sm0, base0 = st.spins[0].line_multiplier, st.spins[0].scatter_multiplier, st.spins[0].as_base
        if len(alike) == 1 and isinstance(lm0, Const) and isinstance(sm0, Const):  # every option pays alike
            line_c = self.comp(f"{own}: {self.line_name}" if base0 else own)
            scat_c = self.comp(f"{own}: scatter") if base0 and self.scatters else line_c
            self.emit(PAYSPINK, lm0.value, sm0.value, line_c, scat_c)
            return
        opt = self._new()
        if n > 1:
            self.emit(OPT, opt)
        done = self.label()
        for i, s in enumerate(st.spins):
            nxt = self.label()
            if i < n - 1:
                self.emit(JF, opt, K.T_EQ, i, nxt)
            line_c = self.comp(f"{own}: {self.line_name}" if s.as_base else own)
            scat_c = self.comp(f"{own}: scatter") if s.as_base and self.scatters else line_c
            if isinstance(s.line_multiplier, Const) and isinstance(s.scatter_multiplier, Const):  # fused
                self.emit(PAYSPINK, s.line_multiplier.value, s.scatter_multiplier.value, line_c, scat_c)
            else:
                lm = self.value(s.line_multiplier, scope, f"{where}.spins[{i}].line_multiplier")
                sm = self.value(s.scatter_multiplier, scope, f"{where}.spins[{i}].scatter_multiplier")
                self.emit(PAYSPIN, lm, sm, line_c, scat_c)
            if i < n - 1:
                self.emit(GOTO, done)
            self.mark(nxt)
        self.mark(done)

    def feature(self, j: int) -> None:
        """Compile sequence feature ``j``: its entry program and stages, and its counters."""
        name, _, seq = self.features[j]
        self.current = j
        where = f"{self.game}: feature {name!r}"
        if not seq.stages and name not in self.instant and not seq.entry:
            msg = f"{where}: a sequence needs at least one stage, or entry actions to be played by"
            raise ModelError(msg)
        for t in seq.trigger or ():  # the counts a trigger reads are digits of the observation code
            self._digits_of(t.value, f"{where} trigger")
        labels = {st.name: self.label() for st in seq.stages}
        if len(labels) != len(seq.stages):
            msg = f"{where}: two stages share a name"
            raise ModelError(msg)
        entry_pc = len(self.code)
        self.actions(seq.entry, name, f"{where}.entry")
        self.emit(END)
        first_pc = len(self.code)
        for st in seq.stages:
            at = f"{where} stage {st.name!r}"
            self.mark(labels[st.name])
            self.emit(STAGE)
            if st.spins:
                self._spins(st, name, at)
            elif st.pick is not None:
                msg = f"{at}: a pick without spins"
                raise ModelError(msg)
            self.actions(st.actions, name, f"{at}.actions")
            if st.spins:
                self._pay(st, name, at)
            for g in st.then:
                if g.stage is not None and g.stage not in labels:
                    msg = f"{at}: no stage {g.stage!r} to go to (its stages: {', '.join(labels)})"
                    raise ModelError(msg)
                if g.stage is not None and len(g.when) == 1 and isinstance(g.when[0].value, Reg):  # fused
                    t = g.when[0]
                    assert isinstance(t.value, Reg)
                    reg = self.reg(name, t.value.feature, t.value.name, f"{at}.then")
                    self.emit(JTR, reg, OPS[t.op], t.constant, labels[g.stage])
                    continue
                nxt = self.label()
                self.guard(g.when, name, nxt, f"{at}.then")
                if g.stage is None:
                    self.emit(END)
                else:
                    self.emit(GOTO, labels[g.stage])
                self.mark(nxt)
            self.emit(END)
        if not seq.stages:  # played by its entry alone
            self.emit(END)
        if name in self.instant:  # a modifier of every spin: never queued, entered or counted
            self.feat.append([entry_pc, first_pc, -1, -1, -1, 1])
            return
        self.feat.append([entry_pc, first_pc, -1, self.slot(f"{name}:entered"), self.slot(f"{name}:spins", 3), 0])

    def variant(self, reels: str, rows: int | None, lines: int | None, forced: tuple[Force, ...],
                label: str, where: str) -> None:
        """One base variant: its model and, when played the slow way (forced cells, its own components), its program."""
        k = self.model(reels, rows, lines, (), where)
        pc = -1
        if forced or label:
            pc = len(self.code)
            self.forces(forced, "", where)
            self.emit(REBASE, k)
            if label:
                self.emit(LABEL, *(self.slot(f"component:{label}: {c}", 3) for c in ("lines", "scatter")))
            self.emit(END)
        self.var.append([k, pc])

    # --- packing ----------------------------------------------------------------------
    def finish(self, bases: list[int], height: int, n_reels: int, ptab: IntArray, vcum: IntArray,
               sym: IntArray) -> tuple[IntArray, ...]:
        """The program's arrays (:data:`PROGRAM` order), the digits sized ``bases`` (radices follow from them)."""
        if self.cells and n_reels * height > 64:
            msg = f"{self.game}: cell masks need at most 64 cells, the window has {n_reels} × {height}"
            raise ModelError(msg)
        radix = np.cumprod([1, *bases[:-1]]).tolist() if bases else []
        code = [list(row) for row in self.code]
        for row in code:
            op = WORDS[row[0]]
            if op.digit:  # a digit of the observation code: its radix and base
                d = row[2]
                row[2], row[3] = int(radix[d]), int(bases[d])
            if op.jump:  # a jump to a label: its instruction
                at = op.jump
                if row[at] < 0:
                    row[at] = self.labels[-1 - row[at]]
        for off, targets in self.switches:
            self.tab[off : off + len(targets)] = [self.labels[-1 - t] for t in targets]
        symset = np.zeros((max(len(self.symsets), 1), len(self.names)), dtype=np.int64)
        for i, ids in enumerate(self.symsets):
            symset[i, list(ids)] = 1
        cmap = self.component_map()
        comp = np.array([self.slots[f"component:{c}"] for c in self.comps] or [0], dtype=np.int64)
        return (_rows(code, K.N_CODE), np.array(self.tab or [0], dtype=np.int64), symset, self.symcode(bases),
                _rows(self.feat, 6), _rows(self.var, 2), vcum, ptab, sym, comp, cmap)

    def component_map(self) -> IntArray:
        """``cmap[ctx, part]``: the component a pay part goes to at the top of the round (``ctx = 0``) and inside
        an ``as_base`` spin of feature ``j`` (``ctx = 1 + j``: ``"FEATURE COMPONENT: part"``).

        The features played inside such a spin are played by their entry alone: one with stages of
        its own, or one that starts another, is refused (the driver would have to nest their stages).
        """
        for j in self.nesting:
            for i, (name, _, seq) in enumerate(self.features):
                if i == j:
                    continue
                where = (f"{self.game}: feature {self.features[j][0]!r} plays its spins as the base game, so feature "
                         f"{name!r}, which such a spin may start,")
                if seq.stages:
                    msg = f"{where} must be played by its entry alone, but it has stages"
                    raise ModelError(msg)
                if _starts(seq.entry):
                    msg = f"{where} may not start another feature"
                    raise ModelError(msg)
        cmap = np.full((len(self.features) + 1, max(len(self.parts), 1)), -1, dtype=np.int64)
        for p, (name, owner) in enumerate(self.parts):
            cmap[0, p] = self.comp(name)
            for j in self.nesting:
                if owner != j:
                    cmap[1 + j, p] = self.comp(f"{self.features[j][1]}: {name}")
        return cmap

    def symcode(self, bases: list[int]) -> IntArray:
        """What a cell showing each symbol adds to the observation code."""
        radix = np.cumprod([1, *bases[:-1]]).tolist() if bases else []
        out = np.zeros(len(self.names), dtype=np.int64)
        for d, ids in enumerate(self.digits):
            out[list(ids)] += int(radix[d])
        return out


def _starts(actions: tuple[Action, ...]) -> bool:
    """Whether any of ``actions`` (or those they repeat) starts a feature."""
    return any(isinstance(a, Start) or (isinstance(a, Repeat) and _starts(a.actions)) for a in actions)


def _rows(data: list[list[int]], width: int) -> IntArray:
    return np.array(data or [[0] * width], dtype=np.int64).reshape(max(len(data), 1), width)


def describe(arrays: tuple[IntArray, ...]) -> dict[str, Any]:
    """The program's arrays by name (for tests and debugging)."""
    return dict(zip(PROGRAM, arrays, strict=True))
