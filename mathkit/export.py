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

``mathkit export GAME [--xlsx F] [--server-json F] [--diff OTHER] [--toml F]``
(:func:`cli`): ``GAME`` may be a TOML game or a server JSON (checksum verified).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import hmac
import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from .errors import GameError, MathkitError
from .game import Bet, FreeSpins, Gamble, GambleOption, Game, PayEntry, Reading, ReelSet, ScatterPay, Symbol
from .par import Figure, ParSheet
from .validate import validate_game

__all__ = [
    "SERVER_FORMAT",
    "Change",
    "ChecksumError",
    "GameDiff",
    "canonical_json",
    "cli",
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

SERVER_FORMAT = "mathkit-game-server/1"
EXCEL_ROWS = 1_048_576
SAFE_INT = 2**53 - 1


class ChecksumError(MathkitError):
    """A game-server file whose checksum does not match its content (changed after export)."""


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _cell(x: object) -> object:
    """A value Excel keeps exactly: big integers and Fractions as text."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x if abs(x) <= SAFE_INT else str(x)
    if isinstance(x, Fraction):
        return _frac(x)
    return x


# =========================================================================== XLSX
def _save_atomic(workbook: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        workbook.save(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _fig_row(name: str, f: Figure) -> list[object]:
    return [name, f.value, f.exact_str() or "", f.method]


def _summary_rows(par: ParSheet) -> list[list[object]]:
    g = par.game
    rows: list[list[object]] = [
        ["figure", "value", "exact", "method"],
        ["game", g.name, "", ""],
        ["reel set", par.reels, "", ""],
        ["pay mode", g.pay_mode, "", ""],
        ["lines played", par.lines, "", ""],
        ["coins per line", par.coins, "", ""],
        ["total bet (credits)", par.total_bet, "", ""],
        ["cycle", _cell(par.cycle), str(par.cycle), "exact"],
        _fig_row("RTP", par.rtp),
    ]
    rows += [_fig_row(f"RTP: {k}", f) for k, f in par.components.items()]
    if g.declared_rtp is not None:
        rows.append(["declared RTP", float(g.declared_rtp), _frac(g.declared_rtp), "declared"])
        delta = Fraction(par.rtp.exact) - g.declared_rtp if par.rtp.exact is not None else None
        rows.append(["RTP − declared (pp)", 100 * (par.rtp.value - float(g.declared_rtp)),
                     "" if delta is None else _frac(100 * delta), par.rtp.method])
    rows += [
        _fig_row("hit frequency (any win)", par.hit_frequency),
        _fig_row("hit frequency (win ≥ bet)", par.hit_frequency_bet),
        _fig_row("σ per total bet", par.sd),
    ]
    rows += [_fig_row(f"volatility index {k}", f) for k, f in par.volatility_index.items()]
    rows += [_fig_row("max win (× bet)", par.max_win), _fig_row("P(max win)", par.max_win_probability)]
    rows += [_fig_row(f"P(win ≥ {m}× bet)", f) for m, f in par.tails.items()]
    if g.cap is not None:
        rows.append(["cap (× bet)", g.cap, str(g.cap), "declared"])
        if par.cap_probability is not None:
            rows.append(_fig_row("P(cap)", par.cap_probability))
    if par.distribution.lost_mass:
        rows.append(["truncated probability mass", par.distribution.lost_mass, "", par.distribution.method])
    rows.append([])
    rows.append(["RTP range after N spins", "spins", "low", "high"])
    for level, ranges in par.rtp_range.items():
        for n, lo, hi in ranges:
            rows.append([f"  {level}", n, lo, hi])
    if g.readings:
        rows.append([])
        rows.append(["rule", "reading", "reason"])
        rows += [[r.rule, r.reading, r.reason] for r in g.readings]
    return rows


def _reel_rows(par: ParSheet) -> list[list[object]]:
    g = par.game
    rows: list[list[object]] = []
    for rs in g.reel_sets:
        n = rs.n_reels
        rows.append([f"reel set {rs.name}", f"rows {list(rs.rows)}", f"cycle {rs.cycle}"])
        head: list[object] = ["stop"]
        for r in range(n):
            head += [f"reel {r + 1}"] + ([f"weight {r + 1}"] if rs.weights is not None else [])
        rows.append(head)
        for i in range(max(len(s) for s in rs.strips)):
            row: list[object] = [i]
            for r, strip in enumerate(rs.strips):
                row.append(strip[i] if i < len(strip) else "")
                if rs.weights is not None:
                    row.append(rs.weights[r][i] if i < len(strip) else "")
            rows.append(row)
        rows.append([])
        rows.append(["symbol counts", *(f"reel {r + 1}" for r in range(n))])
        for name, counts in par.symbol_counts[rs.name]:
            rows.append([name, *counts])
        rows.append(["total", *(sum(rs.stop_weights(r)) for r in range(n))])
        rows.append([])
    return rows


def _paytable_rows(par: ParSheet) -> list[list[object]]:
    rows: list[list[object]] = [["component", "combination", "count", "pay (credits)", "hits", "probability",
                                 "1 in", "RTP contribution", "RTP contribution (exact)"]]
    for e in par.entries:
        rows.append([e.component, e.entry, e.count, e.pay, _cell(e.hits), e.probability.value,
                     e.one_in if e.probability.value else "never", e.rtp.value, e.rtp.exact_str() or ""])
    total = sum((e.rtp.exact for e in par.entries if e.rtp.exact is not None), Fraction(0))
    rows.append(["total (base spin)", "", "", "", _cell(sum(e.hits for e in par.entries)), "", "", float(total),
                 _frac(total)])
    return rows


def _feature_rows(par: ParSheet) -> list[list[object]]:
    if not par.features:
        return [["feature", "figure", "value", "method"], ["none", "the game declares no feature", "", ""]]
    rows: list[list[object]] = [["feature", "figure", "value", "exact", "method"]]
    for sec in par.features:
        for k, f in sec.figures:
            rows.append([sec.name, k, f.value, f.exact_str() or "", f.method])
        for trow in sec.table:
            rows.append([sec.name, *trow])
        for note in sec.notes:
            rows.append([sec.name, "note", note])
        rows.append([])
    return rows


def _distribution_rows(par: ParSheet) -> list[list[object]]:
    d = par.distribution
    exact = d.exact
    head: list[object] = ["win (credits)", "win (× bet)", "probability", "P(win ≥ this)"]
    rows: list[list[object]] = [head + (["count"] if exact else [])]
    probs = d.probs()
    tail = 1.0
    values = d.values.tolist()
    weights = d.weights.tolist()
    limit = EXCEL_ROWS - 10
    for i, (v, p) in enumerate(zip(values, probs.tolist(), strict=True)):
        if i >= limit:
            rows.append([f"... {len(values) - limit} more values (Excel's row limit)"])
            break
        row: list[object] = [v, v / d.unit, p, max(tail, 0.0)]
        if exact:
            row.append(_cell(int(weights[i])))
        rows.append(row)
        tail -= p
    if d.lost_mass:
        rows.append([f"truncated probability mass {d.lost_mass:.3g} ({d.method})"])
    return rows


def write_par_xlsx(par: ParSheet, path: str | Path, *, checks: Sequence[Any] | None = None,
                   profile: str = "gli11") -> Path:
    """Write the PAR sheet as an Excel workbook, atomically.

    ``checks`` defaults to :func:`mathkit.checks.run_checks` on the sheet's
    game under ``profile``.
    """
    from openpyxl import Workbook
    from openpyxl.styles import Font

    if checks is None:
        from .checks import run_checks

        checks = run_checks(par.game, profile, reels=par.reels)
    wb = Workbook()
    sheets = {
        "summary": _summary_rows(par),
        "reels": _reel_rows(par),
        "paytable": _paytable_rows(par),
        "features": _feature_rows(par),
        "distribution": _distribution_rows(par),
        "checks": [["check", "passed", "detail", "profile"]]
        + [[c.name, "PASS" if c.passed else "FAIL", c.detail, profile] for c in checks],
    }
    first = True
    for title, rows in sheets.items():
        ws = wb.active if first else wb.create_sheet()
        first = False
        ws.title = title
        for row in rows:
            ws.append(row)
        for c in ws[1]:
            c.font = Font(bold=True)
        ws.freeze_panes = "A2"
        ws.column_dimensions["A"].width = 30
    return _save_atomic(wb, Path(path))


# =========================================================================== game-server JSON
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
    from .report import write_atomic

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
    from .io import load_game

    return load_game(p)


# =========================================================================== diff
@dataclass(frozen=True)
class Change:
    """One difference: ``section`` (symbols, reels, counts, positions, weights, pays, lines, bet, features,
    game), where it is, and the values before and after (text)."""

    section: str
    where: str
    before: str
    after: str


@dataclass(frozen=True)
class GameDiff:
    """What changed from game ``a`` to game ``b``, and the effect on the figures.

    ``figures`` maps ``rtp``, ``sd``, ``hit_frequency`` to ``(a, b, b − a)``;
    ``rtp_exact`` holds the two exact RTPs; ``scope`` says what σ and the hit
    frequency cover (see :func:`mathkit.sensitivity.play_figures`).
    """

    a: str
    b: str
    changes: tuple[Change, ...]
    figures: dict[str, tuple[float, float, float]]
    rtp_exact: tuple[Fraction, Fraction] | None
    scope: str

    @property
    def delta_rtp(self) -> Fraction | None:
        return None if self.rtp_exact is None else self.rtp_exact[1] - self.rtp_exact[0]

    def section(self, name: str) -> list[Change]:
        return [c for c in self.changes if c.section == name]


def _strip_changes(name: str, r: int, a: Sequence[str], b: Sequence[str]) -> list[Change]:
    where = f"{name} reel {r + 1}"
    out = []
    if len(a) != len(b):
        out.append(Change("reels", f"{where} length", str(len(a)), str(len(b))))
    ca, cb = Counter(a), Counter(b)
    for s in sorted(set(ca) | set(cb)):
        if ca[s] != cb[s]:
            out.append(Change("counts", f"{where} {s}", str(ca[s]), str(cb[s])))
    if len(a) == len(b):
        out += [Change("positions", f"{where} stop {i}", x, y) for i, (x, y) in enumerate(zip(a, b, strict=True))
                if x != y]
        return out
    sm = difflib.SequenceMatcher(a=list(a), b=list(b), autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            out.append(Change("positions", f"{where} stops {i1}–{i2 - 1} → {j1}–{j2 - 1} ({tag})",
                              " ".join(a[i1:i2]) or "—", " ".join(b[j1:j2]) or "—"))
    return out


def _reel_changes(a: Game, b: Game) -> list[Change]:
    out = []
    sa = {rs.name: rs for rs in a.reel_sets}
    sb = {rs.name: rs for rs in b.reel_sets}
    for name in sa.keys() - sb.keys():
        out.append(Change("reels", f"reel set {name}", "present", "removed"))
    for name in sb.keys() - sa.keys():
        out.append(Change("reels", f"reel set {name}", "absent", "added"))
    for name in [n for n in sa if n in sb]:
        x, y = sa[name], sb[name]
        if x.rows != y.rows:
            out.append(Change("reels", f"{name} rows", str(list(x.rows)), str(list(y.rows))))
        for r in range(max(x.n_reels, y.n_reels)):
            if r >= x.n_reels or r >= y.n_reels:
                out.append(Change("reels", f"{name} reel {r + 1}", "present" if r < x.n_reels else "absent",
                                  "present" if r < y.n_reels else "absent"))
                continue
            out += _strip_changes(name, r, x.strips[r], y.strips[r])
            if x.weights != y.weights:
                wx, wy = x.stop_weights(r), y.stop_weights(r)
                if len(wx) == len(wy):
                    out += [Change("weights", f"{name} reel {r + 1} stop {i} ({y.strips[r][i]})", str(p), str(q))
                            for i, (p, q) in enumerate(zip(wx, wy, strict=True)) if p != q]
                if sum(wx) != sum(wy):
                    out.append(Change("weights", f"{name} reel {r + 1} total weight", str(sum(wx)), str(sum(wy))))
    return out


def _keyed_changes(section: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    out = []
    for k in list(a) + [k for k in b if k not in a]:
        x, y = a.get(k), b.get(k)
        if x != y:
            out.append(Change(section, k, "—" if x is None else str(x), "—" if y is None else str(y)))
    return out


def _pay_map(g: Game) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for e in g.line_pays:
        label = e.name if e.symbols == (e.name,) else f"{e.name} ({'/'.join(e.symbols)})"
        for k, v in e.pays:
            out[f"{k} × {label}"] = v[0] if len(v) == 1 else list(v)
    for sp in g.scatter_pays:
        for k, sv in sp.pays:
            out[f"{k} × {sp.symbol} (scatter, × bet)"] = sv
    return out


def _feature_map(g: Game) -> dict[str, Any]:
    payload = server_payload(g)
    out: dict[str, Any] = {"cap": g.cap}
    for name in ("free_spins", "gamble"):
        v = payload["features"][name]
        if v is None:
            out[name] = None
            continue
        for k, x in v.items():
            out[f"{name}.{k}"] = x
    return out


def _symbol_text(s: Symbol) -> str:
    if not s.is_wild:
        return s.kind
    reels = f" on reels {list(s.reels)}" if s.reels else ""
    return (f"wild for {'/'.join(s.substitutes)}{reels}, multiplier {s.multiplier}, "
            f"{'own pays' if s.pays else 'no own pays'}")


def diff_games(a: Game, b: Game, *, figures: bool = True, reels: str | None = None) -> GameDiff:
    """What changed from ``a`` to ``b`` and, with ``figures``, Δ RTP (exact), Δ σ and Δ hit frequency."""
    changes: list[Change] = []
    changes += _keyed_changes("game", {"name": a.name, "description": a.description, "pay_mode": a.pay_mode,
                                       "default_reels": a.default_reels,
                                       "declared_rtp": a.declared_rtp and _frac(a.declared_rtp)},
                              {"name": b.name, "description": b.description, "pay_mode": b.pay_mode,
                               "default_reels": b.default_reels,
                               "declared_rtp": b.declared_rtp and _frac(b.declared_rtp)})
    sym_a = {s.name: s for s in a.symbols}
    sym_b = {s.name: s for s in b.symbols}
    changes += _keyed_changes("symbols", {k: _symbol_text(v) for k, v in sym_a.items()},
                              {k: _symbol_text(v) for k, v in sym_b.items()})
    changes += _reel_changes(a, b)
    changes += _keyed_changes("pays", _pay_map(a), _pay_map(b))
    changes += _keyed_changes("lines", {f"line {i + 1}": list(x) for i, x in enumerate(a.paylines)},
                              {f"line {i + 1}": list(x) for i, x in enumerate(b.paylines)})
    ba, bb = a.bet, b.bet
    changes += _keyed_changes("bet", {"lines": ba.lines, "line_options": list(ba.line_options),
                                      "coins": list(ba.coins), "coin_value": _frac(ba.coin_value)},
                              {"lines": bb.lines, "line_options": list(bb.line_options), "coins": list(bb.coins),
                               "coin_value": _frac(bb.coin_value)})
    changes += _keyed_changes("features", _feature_map(a), _feature_map(b))
    figs: dict[str, tuple[float, float, float]] = {}
    exact = None
    scope = ""
    if figures:
        from .sensitivity import play_figures, play_reels

        fa = play_figures(a, play_reels(a, reels))
        fb = play_figures(b, play_reels(b, reels))
        exact = (fa.rtp, fb.rtp)
        scope = fa.scope if fa.scope == fb.scope else f"{fa.scope} / {fb.scope}"
        figs = {"rtp": (float(fa.rtp), float(fb.rtp), float(fb.rtp - fa.rtp)),
                "sd": (fa.sd, fb.sd, fb.sd - fa.sd),
                "hit_frequency": (fa.hit_frequency, fb.hit_frequency, fb.hit_frequency - fa.hit_frequency)}
    return GameDiff(a.name, b.name, tuple(changes), figs, exact, scope)


def diff_to_dict(d: GameDiff) -> dict[str, Any]:
    """JSON-ready diff."""
    out: dict[str, Any] = {
        "a": d.a, "b": d.b,
        "changes": [{"section": c.section, "where": c.where, "before": c.before, "after": c.after}
                    for c in d.changes],
    }
    if d.figures:
        out["figures"] = {k: {"a": x, "b": y, "delta": z} for k, (x, y, z) in d.figures.items()}
        out["scope"] = d.scope
    if d.rtp_exact is not None and d.delta_rtp is not None:
        out["delta_rtp_exact"] = _frac(d.delta_rtp)
    return out


def diff_to_text(d: GameDiff) -> str:
    """A readable diff report."""
    w = [f"diff: {d.a} → {d.b}"]
    if d.figures:
        ra, rb, dr = d.figures["rtp"]
        w.append(f"  RTP            {100 * ra:.6f}% → {100 * rb:.6f}%   Δ {100 * dr:+.6f} pp"
                 + (f"  (exact Δ {_frac(d.delta_rtp)})" if d.delta_rtp is not None else ""))
        sa, sb, ds = d.figures["sd"]
        w.append(f"  σ per bet      {sa:.4f} → {sb:.4f}   Δ {ds:+.4f}")
        ha, hb, dh = d.figures["hit_frequency"]
        w.append(f"  hit frequency  {100 * ha:.4f}% → {100 * hb:.4f}%   Δ {100 * dh:+.4f} pp   [{d.scope}]")
    if not d.changes:
        w.append("  no change in the game data")
    for section in dict.fromkeys(c.section for c in d.changes):
        w.append(f"  [{section}]")
        w += [f"    {c.where}: {c.before} → {c.after}" for c in d.changes if c.section == section]
    return "\n".join(w) + "\n"


# =========================================================================== command line
def cli(argv: list[str]) -> int:
    """``mathkit export``: XLSX PAR sheet, game-server JSON, diff, TOML; returns the exit status."""
    p = argparse.ArgumentParser(
        prog="mathkit export", description="Export a game: PAR sheet as XLSX, game-server JSON, diff, TOML.",
        epilog="GAME may be a TOML game or a game-server JSON (its checksum is verified). "
               "Exit status: 0 done, 2 bad game file, tampered JSON or refused output.")
    p.add_argument("game", type=Path, help="game file (.toml) or game-server JSON (.json)")
    p.add_argument("--xlsx", type=Path, help="write the PAR sheet as an Excel workbook")
    p.add_argument("--server-json", type=Path, help="write the game-server JSON with its SHA-256 checksum")
    p.add_argument("--toml", type=Path, help="write the game as TOML (e.g. from a game-server JSON)")
    p.add_argument("--diff", type=Path, metavar="OTHER", help="print what changed from GAME to OTHER")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.add_argument("--reels", help="reel set for the PAR sheet and the diff figures")
    p.add_argument("--lines", type=int, help="lines played on the PAR sheet")
    p.add_argument("--coins", type=int, help="coins per line on the PAR sheet")
    p.add_argument("--profile", default="gli11", choices=("gli11", "anz", "ukgc"), help="checks sheet profile")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    args = p.parse_args(argv)
    outputs = [o for o in (args.xlsx, args.server_json, args.toml) if o is not None]
    if not outputs and args.diff is None:
        p.print_usage(sys.stderr)
        print("mathkit export: give at least one of --xlsx, --server-json, --toml, --diff", file=sys.stderr)
        return 2
    for o in outputs:
        if o.resolve() == args.game.resolve():
            print(f"error: {o} is the input game; choose another output", file=sys.stderr)
            return 2
        if o.exists() and not args.force:
            print(f"error: {o} exists; pass --force to replace it", file=sys.stderr)
            return 2
    try:
        game = load_any_game(args.game)
        if args.xlsx is not None:
            from .par import build_par

            par = build_par(game, args.reels, lines=args.lines, coins=args.coins, parallel=True)
            write_par_xlsx(par, args.xlsx, profile=args.profile)
            print(f"wrote {args.xlsx}")
        if args.server_json is not None:
            write_server_json(game, args.server_json)
            print(f"wrote {args.server_json}")
        if args.toml is not None:
            from .io import save_game

            save_game(game, args.toml, overwrite=args.force)
            print(f"wrote {args.toml}")
        if args.diff is not None:
            d = diff_games(game, load_any_game(args.diff), reels=args.reels)
            print(json.dumps(diff_to_dict(d), indent=2, ensure_ascii=False) if args.json else diff_to_text(d), end="")
            if args.json:
                print()
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
