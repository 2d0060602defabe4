"""mathkit: exact slot-game mathematics.

Importing the package is cheap: the numeric modules load on first use, and the
compiled kernels come from an ahead-of-time extension or numba's disk cache,
both built at install (:mod:`mathkit.warmup`).  In a source checkout numba's
cache lives in ``<checkout>/.numba_cache`` unless ``NUMBA_CACHE_DIR`` says
otherwise, so ``make``, the command line and notebooks share one cache.
OpenMP threads spin only briefly, then sleep, between parallel kernels
(``OMP_WAIT_POLICY=PASSIVE`` with ``GOMP_SPINCOUNT=100000``, unless either is
set): a thread that spins on takes a core from everyone else on a shared
machine, but one that sleeps at once must be woken for every parallel region,
and on a virtual machine waking an idle vCPU costs about a millisecond.  The
short spin (2–5 ms of CPU after a threaded enumeration here) keeps the
regions of one enumeration on awake threads: in ``python -m benchmarks speed``
the threaded kernel went from 1.14× to 1.69–1.79× its serial speed on 2 idle cores, and
the row "idle worker's spin" shows what the spin costs.  For the spinning
reason numpy's BLAS runs on one
thread (``OPENBLAS_NUM_THREADS=1`` unless set, effective when mathkit is imported
before numpy): its threads spin between calls, so on a busy machine a
40,000-element ``np.dot`` cost 2.6 ms of CPU against 9 µs on one thread, and
mathkit's own parallel kernels thread through numba.

Examples
--------
>>> import mathkit
>>> game = mathkit.load_game("data/games/classic_3reel.toml")
>>> 0 < mathkit.exact_rtp(game) < 1
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import GameError, MathkitError, ModelError

# set before numba is first imported
_CHECKOUT = Path(__file__).resolve().parents[1]
if "NUMBA_CACHE_DIR" not in os.environ and (_CHECKOUT / "pyproject.toml").is_file() and os.access(_CHECKOUT, os.W_OK):
    os.environ["NUMBA_CACHE_DIR"] = str(_CHECKOUT / ".numba_cache")
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    os.environ.setdefault("GOMP_SPINCOUNT", "100000")  # read by libgomp when numba first starts its threads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from .exact import rtp as exact_rtp
    from .exact import spin
    from .game import Game
    from .io import load_game, loads_game, save_game
    from .par import build_par

__all__ = ["Game", "GameError", "MathkitError", "ModelError", "build_par", "exact_rtp", "load_game", "loads_game",
           "save_game", "spin"]
__version__ = "0.1.0"

# everything else loads on first use, so that ``import mathkit`` (and ``mathkit --help``) imports no numpy
_LAZY = {"exact_rtp": ("exact", "rtp"), "spin": ("exact", "spin"), "build_par": ("par", "build_par"),
         "Game": ("game", "Game"), "load_game": ("io", "load_game"), "loads_game": ("io", "loads_game"),
         "save_game": ("io", "save_game")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    msg = f"module 'mathkit' has no attribute {name!r}"
    raise AttributeError(msg)
