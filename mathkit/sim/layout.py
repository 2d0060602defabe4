"""What the compiled game and the driver share: array types, accumulator slots, parameters, and the codes of
the compiled vocabulary (value nodes, actions, tests) of :mod:`mathkit.play.vocabulary`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
UIntArray = npt.NDArray[np.uint64]
FloatArray = npt.NDArray[np.float64]

KIND_PCG64 = 0
KIND_SFC64 = 1

# integer accumulator slots (one row per block)
A_PLAYS = 0
A_LINE = 1
A_SCATTER = 2
A_FREE = 3
A_CUT = 4
A_TOTAL = 5
A_HITS = 6
A_HITS_BET = 7
A_HITS_10 = 8
A_HITS_100 = 9
A_HITS_1000 = 10
A_TRIGGERS = 11
A_FREE_SPINS = 12
A_RETRIGGERS = 13
A_CAP_HITS = 14
A_MAX = 15
A_OVERFLOW = 16
A_SQUARES = 17
"""Sums of squares of line, scatter, free, cut, total wins: ``(hi, lo)`` pairs worth ``hi·2^40 + lo``."""
SQUARED = ("line", "scatter", "free", "cut", "total")
N_ACC = A_SQUARES + 2 * len(SQUARED)
"""The fixed slots; a compiled game adds its own after them (components, feature counters: ``SimSpec.slots``)."""
SQ_SHIFT = 40
# float accumulator slots: third and fourth power sums of the paid win, in credits
F_X3 = 0
F_X4 = 1
N_FACC = 2

# scalar parameters of a block (the ``par`` array)
P_WAYS = 0
P_TOTAL_BET = 1
P_CAP = 2
P_HEIGHT = 3
P_VARIANTS = 4
P_VTOTAL = 5
P_REGS = 6
P_VALS = 7
P_FEATURES = 8
P_WINDOW = 9
P_ROUTES = 10  # record each round's entered features beside its win (mathkit.sim.routes)
N_PAR = 11
ROUTE_SHIFT = 40
"""Where a recorded win's route bits start (a win is below 2**31: larger ones raise the overflow flag)."""
MAX_FORCES = 64
"""Most forced masks one spin may apply."""
MAX_STEPS = 1 << 20
"""Most stages one round may play before the driver gives up (a feature that never ends)."""
QUEUE = 64
"""Most features one round may queue."""
PENDING = 1024
"""Rounds the base loop defers (they may start a feature) before it plays them in one call."""
TRIGGER_BITS = 16
"""Sequence features a base spin's observation code can start (bits of the trigger mask)."""

# the driver's instructions: ``code[pc] = op, a, b, c, d, e``.  Value ops write ``vals[a]``; a test jumps
# to ``d`` unless ``vals[a] <cmp b> c``; see mathkit.sim.program for what each op's fields hold.
V_CONST = 0  # vals[a] = b
V_REG = 1  # vals[a] = R[b]
V_DIGIT = 2  # vals[a] = (code // b) % c
V_CELLS = 3  # vals[a] = mask of the cells showing symbol set b
V_BITS = 4  # vals[a] = popcount(vals[b])
V_LOOKUP = 5  # vals[a] = tab[c + clamp(vals[b], d)]
V_RANDOM = 6  # vals[a] = a draw from the law at tab[tab[c + clamp(vals[b] (e: R[b]), d)]] (b < 0: the first)
V_SUM = 7  # vals[a] = vals[b] + vals[c]
V_MIN = 8
V_MAX = 9
V_WITHOUT = 10  # vals[a] = vals[b] & ~vals[c]
V_OPT = 11  # vals[a] = the option the stage's spin played
C_JF = 12  # unless vals[a] <b> c: pc = d
C_STAGE = 13  # a stage starts: the round stops at the cap (and after MAX_STEPS stages)
C_GOTO = 14  # pc = a
C_END = 15  # the program is over (entry, variant or feature)
S_SET = 16  # R[a] = vals[b]
S_ADD = 17
S_OR = 18
S_GRANT = 19  # more = min(vals[b], d - R[c]) (d < 0: vals[b]); more > 0: R[a] += more, R[c] += more, acc[e] += 1
S_PAY = 20  # the feature's win += vals[a] × b
S_START = 21  # queue feature a
S_TALLY = 22  # acc[a] += 1 (b: only in the round's base spin, not in a spin played as the base game)
X_FORCE = 23  # the next spin shows symbol b on the cells of mask vals[a]
X_SPIN = 24  # spin model a (option b): stops from the feature stream, forced cells, the window observed
X_PAYSPIN = 25  # the feature's win += line × vals[a] + scatter × vals[b]
X_REBASE = 26  # the base spin's window again, with the forced cells
X_LABEL = 27  # the base spin's line and scatter wins to the components at acc[a], acc[b]
# fused instructions for the commonest patterns (fewer dispatches per feature spin)
C_JFR = 28  # unless R[a] <b> c: pc = d
S_ADDI = 29  # R[a] += b
S_SETI = 30  # R[a] = b
V_LOOKCOUNT = 31  # vals[a] = tab[d + clamp((code // b) % c, e)]: a table keyed by a count
X_PAYSPINK = 32  # the feature's win += line × a + scatter × b (constant multipliers)
# observations of the whole window and spins played as the base game (Prince of Riches' cash stacks ...)
V_PRODUCT = 33  # vals[a] = vals[b] × vals[c]
V_ROWS = 34  # vals[a] = the current window's rows (first reel)
V_CELLSUM = 35  # vals[a] = Σ over the window's cells of tab[b + symbol]
V_STACKS = 36  # vals[a] = Σ of the chain values of the stacks of symbol set b (set c skipped, d: restart), step vals[e]
X_NEST = 37  # the spin of feature a is played as the base game: the entries of the other features it starts
C_SWITCH = 38  # pc = tab[b + clamp(vals[a], c)]: the option a stage's pick chooses
X_SPINT = 39  # X_SPIN of model tab[b + j], option tab[b + c + j], j = clamp(vals[a] (d: R[a]), c)
C_JTR = 40  # if R[a] <b> c: pc = d (a stage's exit on a register)
V_PICK = 41  # vals[a] = vals[c] distinct cells of the mask vals[b], drawn from the feature stream
X_SHOW = 42  # the current window shows the forced cells (no spin, no pay): observed again
N_CODE = 6
# test comparisons
T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE = range(6)
PREFIX_BUDGET = 1 << 18
"""Most stop combinations the prefix table of a reel set may tabulate."""
REMAINDER_BUDGET = 1 << 22
"""Most entries of a model's remainder table (:data:`mathkit.sim.models.REM_DTYPE`): what the lines left open by
the prefix pay, by state and stops."""
REMAINDER_COMBOS = 1 << 19
"""Most stop combinations of the reels after the prefix a remainder table covers (its word field's size)."""
LUT_MAX = 1 << 16
"""Weighted reels up to this total weight map virtual stops through a table, not a search."""
STOP_DIRECT = 0
STOP_TABLE = 1
STOP_SEARCH = 2

# the kernels' own constants (numba reads module globals as compile-time constants)
_M32 = np.uint64(0xFFFFFFFF)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_PCG_ML = np.uint64(0x4385DF649FCCF645)
_PCG_MH = np.uint64(0x2360ED051FC65DA4)
_BIG_WIN = 1 << 31
_BUF = 1 << 12
_SLACK = 256
_BATCH = 64
_LOW32 = (1 << 32) - 1
_LOW24 = (1 << 24) - 1
_LOW20 = (1 << 20) - 1
_LOW16 = (1 << 16) - 1
_SQ_FLUSH = 1 << 62
_SQ_MASK = (1 << SQ_SHIFT) - 1
