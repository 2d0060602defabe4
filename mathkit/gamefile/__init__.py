"""Game files: TOML text ↔ :class:`~mathkit.model.game.Game`, validated, saved atomically in the file's own style.

:mod:`.tomltext` (text to data, located errors), :mod:`.parse` (data to a validated game),
:mod:`.io` (load, dump, save), :mod:`.tomledit` (editing a TOML document in place).
"""
