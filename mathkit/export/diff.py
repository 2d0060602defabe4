"""What changed between two versions of a game, and the effect on the figures: :func:`diff_games`.

Symbols, strips per reel (counts per symbol and positions), weights, pays,
lines, bet and features, with Δ RTP (exact), Δ σ and Δ hit frequency;
:func:`diff_to_text` and :func:`diff_to_dict` present it.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..features import features_to_dict
from ..model.edits import play_reels
from ..model.game import Game, Symbol
from ..report.sensitivity import play_figures
from .server import _frac

__all__ = ["Change", "GameDiff", "diff_games", "diff_to_dict", "diff_to_text"]


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
    frequency cover (see :func:`mathkit.report.sensitivity.play_figures`).
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
        if e.flat:
            label += ", flat"
        for k, v in e.pays:
            out[f"{k} × {label}"] = list(v) if e.is_per_option(k) else v[0]
    for sp in g.scatter_pays:
        for k, sv in sp.pays:
            unit = "bet" if g.scatter_unit == "total_bet" else g.scatter_unit_name
            out[f"{k} × {sp.symbol} (scatter, × {unit})"] = sv
    return out


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}", v, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, v in enumerate(value):
            _flat(f"{prefix}[{v.get('name', i)}]", {k: x for k, x in v.items() if k != "name"}, out)
    else:
        out[prefix] = value


def _feature_map(g: Game) -> dict[str, Any]:
    """Every feature field, flattened to ``kind.field`` (``kind[name].field`` for several), from the one serialisation."""
    out: dict[str, Any] = {}
    for kind, table in features_to_dict(g.features).items():
        _flat(kind, table, out)
    return out


def _symbol_text(s: Symbol) -> str:
    if s.is_multiplier:
        return f"multiplier symbol ×{s.multiplier}"
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
