"""Exports: the PAR sheet as XLSX, a game-server JSON with a checksum, and a diff between two games.

* :func:`write_par_xlsx` — sheets ``summary``, ``reels``, ``paytable`` (hits,
  probability, RTP contribution), ``features``, ``distribution``, ``checks``;
  written to a temporary file in the same folder and renamed, so a crash never
  leaves half a workbook.  Exact values travel as ``"n/d"`` text beside the
  float; integers above 2⁵³ (which Excel would round) are written as text.
* :func:`game_to_server_json` / :func:`game_from_server_json` — everything the
  game server needs (strips, weights, paytable, lines, bet model, features,
  declared RTP), integers and exact fractions only (no floats), and a SHA-256
  over its canonical form: JSON with sorted keys, separators ``,`` and ``:``,
  UTF-8.  Loading verifies the checksum (:class:`ChecksumError` when the file
  was changed) and gives back a game equal to the one exported.
* :func:`diff_games` — what changed between two versions of a game (symbols,
  strips per reel: counts per symbol and positions, weights, pays, lines, bet,
  features) and Δ RTP (exact), Δ σ, Δ hit frequency.

* :mod:`~mathkit.export.stake` — the Stake Engine files (lookup table, books, ``index.json``) from the
  round's exact law, checked by :mod:`~mathkit.export.stake_verify` as the RGS checks them; the books'
  concrete spins come from :mod:`~mathkit.export.witness`; :mod:`~mathkit.export.lut` reads any
  lookup table back as a law; :mod:`~mathkit.export.reelcsv` writes and reads reel strips as CSV
  (imported on use: they are not re-exported here).

``mathkit export GAME [--xlsx F] [--server-json F] [--diff OTHER] [--toml F] [--stake DIR] [--reels-csv DIR]``
(:func:`cli`): ``GAME`` may be a TOML game or a server JSON (checksum verified).
"""

# ``name as name``: public names outside __all__ (as before), still importable from mathkit.export.
from .diff import Change, GameDiff, diff_games, diff_to_dict, diff_to_text
from .server import (
    SERVER_FORMAT,
    ChecksumError,
    canonical_json,
    game_from_server_json,
    game_to_server_dict,
    game_to_server_json,
    load_any_game,
    write_server_json,
)
from .server import server_payload as server_payload
from .xlsx import EXCEL_ROWS as EXCEL_ROWS
from .xlsx import SAFE_INT as SAFE_INT
from .xlsx import write_par_xlsx

__all__ = [
    "SERVER_FORMAT",
    "Change",
    "ChecksumError",
    "GameDiff",
    "canonical_json",
    "diff_games",
    "diff_to_dict",
    "diff_to_text",
    "game_from_server_json",
    "game_to_server_dict",
    "game_to_server_json",
    "load_any_game",
    "write_par_xlsx",
    "write_server_json",
]
