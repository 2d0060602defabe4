"""Developer tooling: kernels compiled at install, ``make lab``'s setup, notebooks rendered to offline HTML.

:mod:`.warmup` (``python -m mathkit.dev.warmup``), :mod:`.labsetup`, :mod:`.render`.
"""
