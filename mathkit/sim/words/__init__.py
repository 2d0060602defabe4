"""The simulator's words: each node of :mod:`mathkit.play.vocabulary`, how it compiles, its instructions and their interpreter snippets."""
