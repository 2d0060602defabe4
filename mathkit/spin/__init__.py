"""One spin: the game compiled to integer tables, per-reel stop tables, and the evaluation of one window.

:mod:`.tables` (pay tables as arrays), :mod:`.stops` (what the exact engine reads of one kind of
spin), :mod:`.evaluate` (line, ways and scatter wins of one window; pure, no RNG).
"""
