"""Win laws and their algebra: distributions, the stage vocabulary, tails, sums and mixtures, provenance.

:mod:`.provenance` (a figure and how it was obtained), :mod:`.distribution` (an exact law of an
integer win), :mod:`.stage` (the vocabulary blocks and the round composer share), :mod:`.convolve`
(sums and mixtures of independent float laws), :mod:`.tails` (Chernoff bounds), :mod:`.volatility`
(win bands, the exceedance curve), :mod:`.mixture` (an exact part mixed with sampled parts).
"""
