"""What the compiled game and the kernels share: array types, accumulator, parameter and stop slots."""

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
SQ_SHIFT = 40
# float accumulator slots: third and fourth power sums of the paid win, in credits
F_X3 = 0
F_X4 = 1
N_FACC = 2

# scalar parameters of a block (the ``par`` array)
P_WAYS = 0
P_FS_MULT = 1
P_FS_MULT_SCATTER = 2
P_MAX_SPINS = 3
P_TOTAL_BET = 4
P_CAP = 5
N_PAR = 6

PREFIX_BUDGET = 1 << 17
"""Most stop combinations the prefix table of a reel set may tabulate."""
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
_LOW16 = (1 << 16) - 1
_SQ_FLUSH = 1 << 62
_SQ_MASK = (1 << SQ_SHIFT) - 1
