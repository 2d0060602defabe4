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
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import GameError, MathkitError
from ..game import Bet, FreeSpins, Gamble, GambleOption, Game, PayEntry, Reading, ReelSet, ScatterPay, Symbol
from ..validate import validate_game

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

SERVER_FORMAT = "mathkit-game-server/1"


class ChecksumError(MathkitError):
    """A game-server file whose checksum does not match its content (changed after export)."""


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _pays(pays: Sequence[tuple[int, Sequence[int]]]) -> list[dict[str, Any]]:
    return [{"count": k, "credits": list(v)} for k, v in pays]


def server_payload(game: Game) -> dict[str, Any]:
    """The game as plain JSON data (integers, strings, lists; exact fractions as ``"n/d"``)."""
    fs = game.free_spins
    gm = game.gamble
    return {
        "name": game.name,
        "description": game.description,
        "pay_mode": game.pay_mode,
        "declared_rtp": None if game.declared_rtp is None else _frac(game.declared_rtp),
        "bet": {
            "lines": game.bet.lines, "line_options": list(game.bet.line_options), "coins": list(game.bet.coins),
            "coin_value": _frac(game.bet.coin_value), "total_bet": game.total_bet(),
            "units": "line pays: credits per line at one coin (per-coin lists: one value per coin option); "
                     "scatter pays: multiples of the total bet",
        },
        "symbols": [{"name": s.name, "kind": s.kind, "substitutes": list(s.substitutes), "reels": list(s.reels),
                     "pays": s.pays, "multiplier": s.multiplier} for s in game.symbols],
        "default_reels": game.default_reels,
        "reel_sets": [{"name": rs.name, "rows": list(rs.rows), "strips": [list(s) for s in rs.strips],
                       "weights": None if rs.weights is None else [list(w) for w in rs.weights],
                       "declared_rtp": None if rs.declared_rtp is None else _frac(rs.declared_rtp)}
                      for rs in game.reel_sets],
        "paylines": [list(line) for line in game.paylines],
        "paytable": [{"name": e.name, "symbols": list(e.symbols), "pays": _pays(e.pays)} for e in game.line_pays],
        "scatter_pays": [{"symbol": sp.symbol, "pays": [{"count": k, "times_bet": v} for k, v in sp.pays]}
                         for sp in game.scatter_pays],
        "features": {
            "free_spins": None if fs is None else {
                "trigger": fs.trigger, "reels": fs.reels,
                "awards": [{"count": k, "spins": v} for k, v in fs.awards],
                "retriggers": [{"count": k, "spins": v} for k, v in fs.retriggers],
                "multiplier": fs.multiplier, "multiply_scatter": fs.multiply_scatter, "max_spins": fs.max_spins,
            },
            "gamble": None if gm is None else {
                "max_gambles": gm.max_gambles, "limit": gm.limit,
                "options": [{"name": o.name, "multiplier": o.multiplier, "p": _frac(Fraction(o.p))}
                            for o in gm.options],
            },
            "cap": game.cap,
        },
        "readings": [{"rule": r.rule, "reading": r.reading, "reason": r.reason} for r in game.readings],
    }


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
    from ..report import write_atomic

    return write_atomic(path, game_to_server_json(game))


def _need(d: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in d:
        raise GameError("missing field", field=f"{where}.{key}" if where else key)
    return d[key]


def _game_from_payload(p: Mapping[str, Any]) -> Game:
    bet = _need(p, "bet", "game")
    feats = p.get("features") or {}
    fs = feats.get("free_spins")
    gm = feats.get("gamble")
    game = Game(
        name=_need(p, "name", "game"),
        description=p.get("description", ""),
        symbols=tuple(Symbol(s["name"], s["kind"], tuple(s["substitutes"]), tuple(s["reels"]), s["pays"],
                             s["multiplier"]) for s in _need(p, "symbols", "game")),
        reel_sets=tuple(ReelSet(rs["name"], tuple(tuple(x) for x in rs["strips"]), tuple(rs["rows"]),
                                None if rs["weights"] is None else tuple(tuple(w) for w in rs["weights"]),
                                None if rs.get("declared_rtp") is None else Fraction(rs["declared_rtp"]))
                        for rs in _need(p, "reel_sets", "game")),
        line_pays=tuple(PayEntry(e["name"], tuple(e["symbols"]), tuple((x["count"], tuple(x["credits"]))
                                                                       for x in e["pays"]))
                        for e in _need(p, "paytable", "game")),
        bet=Bet(bet["lines"], tuple(bet["line_options"]), tuple(bet["coins"]), Fraction(bet["coin_value"])),
        pay_mode=p.get("pay_mode", "lines"),
        paylines=tuple(tuple(line) for line in p.get("paylines", [])),
        scatter_pays=tuple(ScatterPay(sp["symbol"], tuple((x["count"], x["times_bet"]) for x in sp["pays"]))
                           for sp in p.get("scatter_pays", [])),
        default_reels=_need(p, "default_reels", "game"),
        declared_rtp=None if p.get("declared_rtp") is None else Fraction(p["declared_rtp"]),
        free_spins=None if fs is None else FreeSpins(
            fs["trigger"], tuple((x["count"], x["spins"]) for x in fs["awards"]), fs["reels"],
            tuple((x["count"], x["spins"]) for x in fs["retriggers"]), fs["multiplier"], fs["multiply_scatter"],
            fs["max_spins"]),
        gamble=None if gm is None else Gamble(
            tuple(GambleOption(o["name"], o["multiplier"], Fraction(o["p"])) for o in gm["options"]),
            gm["max_gambles"], gm["limit"]),
        cap=feats.get("cap"),
        readings=tuple(Reading(r["rule"], r["reading"], r["reason"]) for r in p.get("readings", [])),
    )
    validate_game(game)
    return game


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
            raise GameError(f"not valid JSON: {exc}", path=path) from None
    else:
        doc = data
    if not isinstance(doc, dict) or doc.get("format") != SERVER_FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise GameError(f"not a game-server file (format {got!r})", field="format", path=path,
                        fix=f"export one with `mathkit export GAME --server-json F` (format {SERVER_FORMAT})")
    payload = doc.get("game")
    check = doc.get("checksum") or {}
    if not isinstance(payload, dict) or check.get("algorithm") != "sha256" or not isinstance(check.get("value"), str):
        raise GameError("missing game or sha256 checksum", field="checksum", path=path)
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
        raise GameError(f"malformed game-server data: {type(exc).__name__}: {exc}", field="game", path=path) from None


def load_any_game(path: str | Path) -> Game:
    """A TOML game, or a game-server JSON (``.json``, checksum verified)."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise GameError(f"cannot read the file: {exc}", path=p) from None
        return game_from_server_json(text, path=p)
    from ..io import load_game

    return load_game(p)
