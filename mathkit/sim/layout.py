"""What the compiled game and the driver share: array types, accumulator slots, parameters and the test
comparisons; the instructions' codes are the words' (:mod:`mathkit.sim.words`)."""

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

# the driver's instructions: ``code[pc] = op, a, b, c, d, e`` (N_CODE fields); each op is declared once, with its
# code, in its word (mathkit.sim.words: OPS, CODE), from which the driver's dispatch is generated.
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
