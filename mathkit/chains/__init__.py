"""Absorbing Markov chains: the reward chain and its solves, free spins, held cells, bankrolls, the gamble ladder.

:mod:`.markov` (reward chains, linear solves, held-cell chains, the bankroll lattice),
:mod:`.freespins` (the free-spin chain and its laws), :mod:`.ladder` (a gamble strategy's effect on a win).
"""
