"""The game-server JSON: the game as integers and exact fractions, with a SHA-256 checksum.

:func:`game_to_server_json` writes everything the game server needs (strips,
weights, paytable, lines, bet model, features, declared RTP) — no floats — and
a SHA-256 over its canonical form (:func:`canonical_json`: sorted keys,
separators ``,`` and ``:``, UTF-8).  :func:`game_from_server_json` verifies the
checksum (:class:`ChecksumError` when the file was changed) and gives back a
game equal to the one exported; :func:`load_any_game` reads either format.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import GameError, MathkitError
from ..gamefile.io import game_from_dict, game_to_dict, load_game, write_atomic
from ..model.game import Game
from ..model.validate import validate_game

__all__ = [
    "SERVER_FORMAT",
    "ChecksumError",
    "canonical_json",
    "game_from_server_json",
    "game_to_server_dict",
    "game_to_server_json",
    "load_any_game",
    "server_payload",
    "write_server_json",
]

SERVER_FORMAT = "mathkit-game-server/2"


class ChecksumError(MathkitError):
    """A game-server file whose checksum does not match its content (changed after export)."""


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _exact(value: Any) -> Any:
    """The TOML mapping with every float written as an exact fraction string (no floats on a game server)."""
    if isinstance(value, float):
        f = Fraction(str(value))
        return int(f) if f.denominator == 1 else _frac(f)
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_exact(v) for v in value]
    return value


def server_payload(game: Game) -> dict[str, Any]:
    """The game as plain JSON data: its TOML mapping (:func:`mathkit.gamefile.io.game_to_dict`), exact fractions as ``"n/d"``.

    The one serialisation of a game serves the game file, this export and the
    version diff, so a field added to the format reaches all three; here strips
    are arrays of symbol names (the game file writes them as strings).
    """
    payload = _exact(game_to_dict(game))
    for spec in payload["reels"].values():  # a game server reads strips as arrays of symbol names
        spec["strips"] = [strip.split() for strip in spec["strips"]]
    return {**payload, "total_bet": game.total_bet()}


def canonical_json(payload: Mapping[str, Any]) -> bytes:
    """The canonical form the checksum covers: sorted keys, no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def game_to_server_dict(game: Game) -> dict[str, Any]:
    """``{"format", "game", "checksum": {"algorithm": "sha256", "value"}}``."""
    validate_game(game)
    payload = server_payload(game)
    digest = hashlib.sha256(canonical_json(payload)).hexdigest()
    return {"format": SERVER_FORMAT, "game": payload,
            "checksum": {"algorithm": "sha256", "value": digest,
                         "over": "the 'game' object as JSON with sorted keys, separators ',' ':', UTF-8"}}


def game_to_server_json(game: Game) -> str:
    """The game-server JSON text (indented for reading; the checksum does not depend on layout)."""
    return json.dumps(game_to_server_dict(game), indent=2, ensure_ascii=False) + "\n"


def write_server_json(game: Game, path: str | Path) -> Path:
    """Write the game-server JSON atomically."""
    return write_atomic(path, game_to_server_json(game))


def _game_from_payload(p: Mapping[str, Any]) -> Game:
    data = {k: v for k, v in p.items() if k != "total_bet"}
    return game_from_dict(data)


def game_from_server_json(data: str | bytes | Mapping[str, Any], *, path: str | Path | None = None) -> Game:
    """Load a game-server JSON (text or parsed), verifying its checksum.

    Raises
    ------
    ChecksumError
        When the checksum does not match the content (the file was changed).
    GameError
        When the file is not a game-server JSON or its game is invalid.
    """
    where = f"{path}: " if path is not None else ""
    if isinstance(data, str | bytes):
        try:
            doc = json.loads(data)
        except json.JSONDecodeError as exc:
            msg = f"not valid JSON: {exc}"
            raise GameError(msg, path=path) from None
    else:
        doc = data
    if not isinstance(doc, dict) or doc.get("format") != SERVER_FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        msg = f"not a game-server file (format {got!r})"
        raise GameError(msg, field="format", path=path,
                        fix=f"export one with `mathkit export GAME --server-json F` (format {SERVER_FORMAT})")
    payload = doc.get("game")
    check = doc.get("checksum") or {}
    if not isinstance(payload, dict) or check.get("algorithm") != "sha256" or not isinstance(check.get("value"), str):
        msg = "missing game or sha256 checksum"
        raise GameError(msg, field="checksum", path=path)
    actual = hashlib.sha256(canonical_json(payload)).hexdigest()
    if not hmac.compare_digest(actual, check["value"]):
        msg = (f"{where}checksum mismatch: the game data was changed after export "
               f"(recorded sha256 {check['value'][:16]}…, content hashes to {actual[:16]}…); re-export it from "
               "the source game instead of editing the JSON")
        raise ChecksumError(msg)
    try:
        return _game_from_payload(payload)
    except GameError as exc:
        raise exc.with_path(path) if path is not None else exc from None
    except (KeyError, TypeError, ValueError) as exc:
        msg_0 = f"malformed game-server data: {type(exc).__name__}: {exc}"
        raise GameError(msg_0, field="game", path=path) from None


def load_any_game(path: str | Path) -> Game:
    """A TOML game, or a game-server JSON (``.json``, checksum verified)."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            msg = f"cannot read the file: {exc}"
            raise GameError(msg, path=p) from None
        return game_from_server_json(text, path=p)
    return load_game(p)
