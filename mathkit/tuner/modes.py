"""Tuning every bet mode of a game at once: ``mathkit tune GAME --modes`` and :func:`tune_modes`.

A mode's RTP is the expected win of the game it plays (:func:`mathkit.features.modes.mode_game`) over
its cost, so each mode is tuned by what is its own, in an order that keeps the others where they are:

1. **the base game** first, by the tuner as it tunes any game (:func:`mathkit.tuner.tune`: its default
   reel set, or ``[tuning] reels``), to the base target;
2. **a mode that plays reel sets of its own** (``reels = { base = "ante" }``) by the tuner on the game the
   mode plays, aiming at ``target × cost`` per base bet, the edits of the set played (``base``) written back
   to the mode's own set (``ante``) — a set no other mode, feature or the base game plays, so tuning it
   moves no other mode;
3. **a buy without reel sets of its own**: its entry law.  The buy's RTP is exactly linear in the weights
   (a mixture over the trigger count ``k``: ``Σ w_k·E_k / (Σ w · cost)``, ``E_k`` the exact expected win
   of a round bought with ``k``), so the fewest weight units move from one count to another (counts the
   law already has: its support is kept), with the total scaled by 10 where the weights are too coarse.

Every mode is measured again, exactly, on the final game (the check ``modes`` of ``mathkit check``).
The character of each tuned reel set is kept as the tuner keeps it (:class:`~mathkit.tuner.Constraints`
built from the set's own strips).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from fractions import Fraction

from ..errors import ModelError
from ..features.modes import mode_game
from ..model.edits import with_reel_set
from ..model.game import Buy, Game, Mode
from ..round import analyse
from .constraints import Constraints
from .result import TuneResult
from .solve import tune
from .targets import TOLERANCE, Target

__all__ = ["ModeTuning", "ModesResult", "mode_rtp", "tune_buy_weights", "tune_modes"]

MAX_SCALE_STEPS = 6
"""How many times a buy's weight total may be scaled by 10 to reach its band."""


def mode_rtp(game: Game, name: str) -> Fraction | float:
    """The RTP of mode ``name`` (``"base"``: the base game): expected win over cost × bet, the round's mean level."""
    if name == "base":
        return analyse(game, level="mean", sections=False).rtp()
    mode = game.mode(name)
    value = analyse(mode_game(game, name), level="mean", sections=False).rtp()
    return value / mode.cost if isinstance(value, Fraction) else float(value) / float(mode.cost)


@dataclass(frozen=True)
class ModeTuning:
    """What the tuning did for one mode: its target, the RTP before and after (exact), how, whether reached."""

    name: str
    target: Fraction
    tolerance: Fraction
    before: Fraction | float
    after: Fraction | float
    how: str
    result: TuneResult | None = None

    @property
    def reached(self) -> bool:
        return abs(Fraction(self.after) - self.target) <= self.tolerance


@dataclass(frozen=True)
class ModesResult:
    """The jointly tuned game and each mode's :class:`ModeTuning` (the base game first)."""

    game: Game
    modes: tuple[ModeTuning, ...]
    seconds: float
    cpu_seconds: float

    @property
    def reached(self) -> bool:
        return all(m.reached for m in self.modes)

    def text(self) -> str:
        lines = [f"{'every mode on its target' if self.reached else 'a mode misses its target'} "
                 f"({self.seconds:.1f} s, {self.cpu_seconds:.1f} s CPU)",
                 f"  {'mode':<12} {'before':>12} {'after':>12}   target"]
        for m in self.modes:
            lo, hi = m.target - m.tolerance, m.target + m.tolerance
            lines.append(f"  {m.name:<12} {float(m.before):>12.4%} {float(m.after):>12.4%}   "
                         f"{float(lo):.4%} … {float(hi):.4%}  {'ok' if m.reached else 'MISS'}")
        for m in self.modes:
            lines.append(f"  {m.name}: {m.how}")
            if m.result is not None and m.result.best.edits.count:
                lines += ["    " + e for e in m.result.best.edits.lines()]
        return "\n".join(lines) + "\n"


def _owned(game: Game, mode: Mode) -> str | None:
    """Why ``mode``'s own reel sets cannot be tuned alone (another part of the game plays one), or ``None``."""
    played = {game.default_reels, *(r for f in game.features for r in f.reel_sets())}
    for _, instead in mode.reels:
        users = [m.name for m in game.modes if m is not mode and any(i == instead for _, i in m.reels)]
        if instead in played or users:
            who = ", ".join(users) or "the base game or a feature"
            return f"its reel set {instead!r} is played by {who} too"
    return None


def tune_buy_weights(game: Game, name: str, target: Fraction, tolerance: Fraction = TOLERANCE) -> tuple[Buy, str]:
    """The entry law of buy ``name`` nearest its current one whose RTP is within ``tolerance`` of ``target``.

    Fewest weight units moved between two counts the law has; the total scaled by 10 (up to
    :data:`MAX_SCALE_STEPS` times) where one unit is too coarse.  Raises :class:`~mathkit.errors.ModelError`
    when no such move reaches the band (the law's counts cannot give the RTP).
    """
    mode = game.mode(name)
    if mode.buy is None:
        msg = f"mode {name!r} buys nothing"
        raise ModelError(msg)
    buy = mode.buy
    counts = [k for k, w in buy.counts if w]
    e: dict[int, Fraction] = {}
    for k in counts:
        one = dataclasses.replace(game, modes=tuple(dataclasses.replace(m, buy=Buy(buy.feature, ((k, 1),)))
                                                    if m.name == name else m for m in game.modes))
        e[k] = Fraction(mode_rtp(one, name))  # RTP of a round bought with k: E_k / (cost × bet)
    weights = dict(buy.counts)
    scale = 1
    for _ in range(MAX_SCALE_STEPS + 1):
        w = {k: v * scale for k, v in weights.items()}
        total = sum(w.values())
        now = sum((w[k] * e[k] for k in counts), Fraction(0)) / total
        best: tuple[int, int, int, Fraction] | None = None
        if abs(now - target) <= tolerance:
            best = (0, counts[0], counts[0], now)
        for a in counts:  # move d units from a to b
            for b in counts:
                if a == b or e[b] == e[a]:
                    continue
                d = round((target - now) * total / (e[b] - e[a]))
                if d <= 0 or d >= w[a]:
                    continue
                rtp = now + d * (e[b] - e[a]) / total
                if abs(rtp - target) <= tolerance and (best is None or d < best[0]):
                    best = (d, a, b, rtp)
        if best is not None:
            d, a, b, rtp = best
            if d:
                w[a] -= d
                w[b] += d
            g = math.gcd(*w.values())  # the same law in the smallest whole weights
            new = Buy(buy.feature, tuple(sorted((k, v // g) for k, v in w.items())))
            how = (f"entry law {', '.join(f'{k}: {v}' for k, v in buy.counts)} → "
                   f"{', '.join(f'{k}: {v}' for k, v in new.counts)} ({d} of {total} weight moved from {a} to {b} "
                   f"triggers{f', total ×{scale}' if scale > 1 else ''})")
            return new, how
        scale *= 10
    msg = (f"mode {name!r}: no entry law on the counts {', '.join(map(str, counts))} reaches {float(target):.4%} "
           f"(their RTPs {', '.join(f'{k}: {float(v):.4%}' for k, v in e.items())})")
    raise ModelError(msg)


def tune_modes(game: Game, target: Fraction | None = None, tolerance: Fraction = TOLERANCE,
               *, time_limit: float = 120.0) -> ModesResult:
    """Tune the base game and every bet mode of ``game`` to their targets at once (see the module notes).

    ``target`` aims every mode (the base game too) at one RTP; without it each aims at its declared RTP
    (the base game at its target RTP).  A mode reached declares its target; one that misses declares
    the RTP reached (to 0.0001 pp), so ``mathkit check`` compares honest figures.
    """
    start, cpu = time.perf_counter(), time.process_time()
    aims: dict[str, Fraction] = {}
    base_aim = target if target is not None else game.target_rtp()
    if base_aim is None:
        msg = "the base game has no target RTP: give --target-rtp or declare declared_rtp"
        raise ModelError(msg, field="declared_rtp", fix="write declared_rtp = 0.96, or pass --target-rtp")
    aims["base"] = base_aim
    for m in game.modes:
        aim = target if target is not None else m.declared_rtp
        if aim is None:
            msg = f"mode {m.name!r} has no declared RTP to aim at"
            raise ModelError(msg, field=f"modes.{m.name}.declared_rtp", fix="declare it, or pass --target-rtp")
        aims[m.name] = aim
    before = {n: mode_rtp(game, n) for n in aims}
    done: list[tuple[str, str, TuneResult | None]] = []
    res = tune(game, [Target.of("rtp", base_aim, tolerance)], time_limit=time_limit)
    current = dataclasses.replace(res.best.game, modes=game.modes)
    done.append(("base", f"the tuner on the base game ({res.best.edits.count} edits)", res))
    for m in game.modes:
        mode = current.mode(m.name)
        if mode.reels:
            why = _owned(current, mode)
            if why is not None:
                done.append((m.name, f"not tuned: {why}", None))
                continue
            played = mode_game(current, m.name)
            sets = tuple(p for p, _ in mode.reels)
            cons = Constraints.build(played)
            r = tune(played, [Target.of("rtp", aims[m.name] * mode.cost, tolerance * mode.cost)], cons,
                     reels=sets, time_limit=time_limit)
            for p, instead in mode.reels:
                current = with_reel_set(current, dataclasses.replace(r.best.game.reel_set(p), name=instead,
                                                                      declared_rtp=current.reel_set(instead).declared_rtp))
            named = ", ".join(f"{i} (listed below as {p}, where the mode plays it)" for p, i in mode.reels)
            done.append((m.name, f"the tuner on reel set(s) {named}: {r.best.edits.count} edits", r))
        elif mode.buy is not None:
            try:
                new, how = tune_buy_weights(current, m.name, aims[m.name], tolerance)
            except ModelError as exc:
                done.append((m.name, f"not tuned: {exc}", None))
                continue
            current = _with_mode(current, dataclasses.replace(mode, buy=new))
            done.append((m.name, how, None))
        else:
            done.append((m.name, "not tuned: the mode plays nothing of its own (no reel set, no buy)", None))
    out: list[ModeTuning] = []
    for name, how, tuned in done:
        out.append(ModeTuning(name, aims[name], tolerance, before[name], mode_rtp(current, name), how, tuned))
    current = _declared(current, out)
    return ModesResult(current, tuple(out), time.perf_counter() - start, time.process_time() - cpu)


def _with_mode(game: Game, mode: Mode) -> Game:
    return dataclasses.replace(game, modes=tuple(mode if m.name == mode.name else m for m in game.modes))


def _declared(game: Game, tunings: list[ModeTuning]) -> Game:
    """Each mode declares its target when reached, else the RTP reached (to 0.0001 pp)."""
    def shown(t: ModeTuning) -> Fraction:
        return t.target if t.reached else Fraction(round(Fraction(t.after) * 10**6), 10**6)

    for t in tunings:
        if t.name == "base":
            game = dataclasses.replace(game, declared_rtp=shown(t))
        else:
            game = _with_mode(game, dataclasses.replace(game.mode(t.name), declared_rtp=shown(t)))
    return game
