"""Win laws and their algebra: the one law of an integer win, the stage vocabulary, tails, sums and mixtures, provenance.

:mod:`.law` (:class:`WinLaw`, the law of an integer win, and :func:`merge`, the one place equal wins are
merged), :mod:`.provenance` (a figure and how it was obtained), :mod:`.stage` (the vocabulary blocks and
the round composer share), :mod:`.convolve` (sums and mixtures of independent laws), :mod:`.tails`
(Chernoff bounds), :mod:`.volatility` (win bands, the exceedance curve), :mod:`.mixture` (an exact part
mixed with sampled parts).
"""

from .law import WinLaw, merge

__all__ = ["WinLaw", "merge"]
