"""The game as data: frozen dataclasses and everything that holds of them before any maths.

:mod:`.game` (``Game``, ``ReelSet``, ``PayEntry``, ``Feature`` …), :mod:`.ordered` (reel-ordered
combinations), :mod:`.bounds` (the range of every integer, and the resource limits),
:mod:`.fields` (reading one field with a located error), :mod:`.validate` (semantic checks),
:mod:`.tuning` (the ``[tuning]`` table).  Nothing here imports numpy's kernels or any other layer.
"""
