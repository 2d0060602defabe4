"""The simulator: a literal player of a game's rules, independent of the exact engine.

:mod:`~mathkit.sim.run` plays (:func:`~mathkit.sim.run.simulate`), :mod:`~mathkit.sim.results`
holds what it found (:class:`~mathkit.sim.results.SimResult`), :mod:`~mathkit.sim.cli` is the
command line.  Underneath, :mod:`~mathkit.sim.spec` compiles a game to arrays
(:func:`~mathkit.sim.spec.compile_game`, with the line walk of :mod:`~mathkit.sim.lines`) and
:mod:`~mathkit.sim.kernels` plays blocks of it, drawing from the streams of
:mod:`~mathkit.sim.rng`; :mod:`~mathkit.sim.layout` names the slots they share.
:mod:`mathkit.dask_runner` spreads the blocks over processes; :mod:`mathkit.simulate`
re-exports the public names.
"""
