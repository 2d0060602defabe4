"""Free spins as an absorbing Markov reward chain built from the game data.

The feature walks on states ``(spins left, level)``.  One step plays one free
spin, whose outcome — its win, the spins it adds and the level it leads to — is
drawn from the exact joint law of the free-spin reel set (:class:`SpinLaw`, which
:mod:`mathkit.features.free_spins` builds from the full-cycle counts of the engine).
This package is chain maths on such laws only: it never enumerates a cycle itself.  A spin adding ``a`` spins
moves ``s → s − 1 + a``; the feature ends at ``s = 0``.  Levels (a multiplier
ladder, a reel height that grows) are for games that need them; a game with
``max_spins`` also carries the spins awarded so far.

Two routes to the answers, which agree where both run (see the tests)
-----------------------------------------------------------------------
* **The chain itself** (:meth:`FreeSpinChain.moments`, :meth:`FreeSpinChain.reward_chain`):
  states are built from the start, and means and second moments come from linear
  solves of ``(I − Q)`` — exact over Fractions, or float64 — with the per-step reward
  summarised, per (state, next state), by its exact first two moments.  Without a
  spin limit the states are cut at ``max_left`` spins left and the probability of
  ever getting there is reported.
* **Closed forms**, for one level and no spin limit.  The walk steps down at most
  one spin at a time, so a feature from ``n`` spins is ``n`` independent features
  from one spin, and ``W₁ = X + Σ_{j≤A} W₁⁽ʲ⁾`` (``X`` the spin's win, ``A`` the
  spins it adds, ``m = E[A]``) gives, exactly::

      E[N | n] = n / (1 − m)                      (Wald)
      E[W₁] = E[X] / (1 − m)
      (1 − m) E[W₁²] = E[X²] + 2 E[W₁] E[XA] + E[A(A − 1)] E[W₁]²

  Kemperman's hitting-time formula gives the law of the length:
  ``P(N = t, k_a spins adding a) = (n/t) · t!/(k₀! Π k_a!) · p₀^k₀ Π p_a^k_a`` with
  ``t = n + Σ a·k_a``; given those counts the spins' wins are independent, so the
  total win is a sum of convolution powers (one FFT, :func:`play_distribution`).
"""

# ``name as name``: names outside __all__, still importable from mathkit.chains.freespins (WinLaw: by mathkit.features).
from .chain import FreeSpinChain
from .distribution import WinLaw as WinLaw
from .distribution import feature_distribution, play_distribution
from .fast import expected_spins_limited
from .laws import FloatArray as FloatArray
from .laws import IntArray as IntArray
from .laws import Key as Key
from .laws import SpinLaw, retrigger_rule
from .moments import Moments
from .moments import State as State

__all__ = [
    "FreeSpinChain",
    "Moments",
    "SpinLaw",
    "expected_spins_limited",
    "feature_distribution",
    "play_distribution",
    "retrigger_rule",
]
