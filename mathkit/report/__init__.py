"""The PAR sheet and what reads it: the sheet, its text/JSON/CSV forms, the simulator's names, ∂RTP.

:mod:`.par` (the sheet, from one round analysis), :mod:`.text` (text, JSON, CSV; atomic writes),
:mod:`.simfigures` (the sheet's figures by the simulator's names), :mod:`.sensitivity` (exact ∂RTP).
"""
