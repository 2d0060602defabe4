"""Saves keep the designer's file: on every shipped game, an edit changes only the edited lines.

Each edit is made on the :class:`~mathkit.model.game.Game` with ``dataclasses.replace``
(not through the code under test), the game saved over a copy of its file, and
the text diff compared with the lines expected by hand: the one line holding
the edited value, rewritten with the new value, every other line (comments,
blank lines, key order, inline arrays, strip strings) byte for byte the same.
Also: file modes, orphaned temporaries of a killed save, and the fallback.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.gamefile.io import StyleLostWarning, dumps_like, load_game, save_game, write_atomic
from mathkit.model.game import Game, ReelSet

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "data" / "games").rglob("*.toml"))


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """Lines removed and lines added from ``before`` to ``after``."""
    removed, added = [], []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (removed if line.startswith("-") else added).append(line[1:])
    return removed, added


def other_symbol(game: Game, rs: ReelSet, reel: int, stop: int) -> str:
    now = rs.strips[reel][stop]
    return next(s.name for s in game.symbols if s.kind == "regular" and s.name != now)


def replace_set(game: Game, new: ReelSet) -> Game:
    return dataclasses.replace(game, reel_sets=tuple(new if rs.name == new.name else rs for rs in game.reel_sets))


def save_copy(tmp_path: Path, src: Path, game: Game) -> tuple[str, str]:
    target = tmp_path / src.name
    before = src.read_text(encoding="utf-8")
    target.write_text(before, encoding="utf-8")
    save_game(game, target, overwrite=True)
    after = target.read_text(encoding="utf-8")
    assert load_game(target) == game
    return before, after


@pytest.mark.parametrize("src", GAMES, ids=[p.stem for p in GAMES])
def test_one_stop_in_every_reel_set_is_a_one_line_diff(src: Path, tmp_path: Path) -> None:
    original = load_game(src)
    for rs in original.reel_sets:
        for reel in (0, rs.n_reels - 1):
            stop = len(rs.strips[reel]) // 2
            new_sym = other_symbol(original, rs, reel, stop)
            strip = list(rs.strips[reel])
            old_text, strip[stop] = " ".join(strip), new_sym
            edited = replace_set(original, dataclasses.replace(
                rs, strips=tuple(tuple(strip) if r == reel else s for r, s in enumerate(rs.strips))))
            before, after = save_copy(tmp_path, src, edited)
            removed, added = changed_lines(before, after)
            assert len(removed) == len(added) == 1, (rs.name, reel, removed, added)
            # the strip's own line, with the stop's token replaced and nothing else touched
            assert old_text in removed[0]
            assert added[0] == removed[0].replace(old_text, " ".join(strip))
            assert len(after.splitlines()) == len(before.splitlines())


@pytest.mark.parametrize("src", GAMES, ids=[p.stem for p in GAMES])
def test_one_pay_is_a_one_line_diff(src: Path, tmp_path: Path) -> None:
    original = load_game(src)
    entry = original.line_pays[-1]
    k, values = entry.pays[-1]
    bumped = tuple(v + 7 for v in values)
    pays = tuple((c, bumped if c == k else v) for c, v in entry.pays)
    edited = dataclasses.replace(original, line_pays=(*original.line_pays[:-1], dataclasses.replace(entry, pays=pays)))
    before, after = save_copy(tmp_path, src, edited)
    removed, added = changed_lines(before, after)
    assert len(removed) == len(added) == 1
    # the pay's line: "k = value" (or the per-coin list) becomes the new value, nothing else on it
    old = f"{k} = {values[0]}" if len(values) == 1 else f"{k} = [{', '.join(map(str, values))}]"
    new = f"{k} = {bumped[0]}" if len(bumped) == 1 else f"{k} = [{', '.join(map(str, bumped))}]"
    assert old in removed[0]
    assert added[0] == removed[0].replace(old, new)


@pytest.mark.parametrize("src", GAMES, ids=[p.stem for p in GAMES])
def test_declared_rtp_is_a_one_line_diff(src: Path, tmp_path: Path) -> None:
    original = load_game(src)
    edited = dataclasses.replace(original, declared_rtp=Fraction("0.9123"))
    before, after = save_copy(tmp_path, src, edited)
    removed, added = changed_lines(before, after)
    # a comment stating the old declared RTP (Dynasty's header: "95.00% ± 0.005 pp") is restated with the new one
    old = original.declared_rtp
    stated = [line for line in before.splitlines() if line.lstrip().startswith("#") and old is not None
              and f"{float(old * 100):.2f}%" in line]
    assert added == [*(line.replace(f"{float(old * 100):.2f}%", "91.23%") for line in stated),  # type: ignore[operator]
                     "declared_rtp = 0.9123"]
    assert len(removed) == len(stated) + (1 if original.declared_rtp is not None else 0)


def test_weight_and_feature_fields(tmp_path: Path) -> None:
    classic = ROOT / "data" / "games" / "classic_3reel.toml"
    game = load_game(classic)
    rs = game.reel_set()
    assert rs.weights is not None
    weights = [list(w) for w in rs.weights]
    old_row = f"[{', '.join(map(str, weights[1]))}],"
    weights[1][4] += 1
    edited = replace_set(game, dataclasses.replace(rs, weights=tuple(tuple(w) for w in weights)))
    before, after = save_copy(tmp_path, classic, edited)
    removed, added = changed_lines(before, after)
    assert removed == [f"  {old_row}"]
    assert added == [f"  [{', '.join(map(str, weights[1]))}],"]

    dynasty = ROOT / "data" / "games" / "dynasty.toml"
    game = load_game(dynasty)
    fs = game.feature("free_spins")
    before, after = save_copy(tmp_path, dynasty, game.with_features(dataclasses.replace(fs, multiplier=3)))
    assert changed_lines(before, after) == (["multiplier = 2"], ["multiplier = 3"])
    gamble = game.feature("gamble")
    before, after = save_copy(tmp_path, dynasty, game.with_features(dataclasses.replace(gamble, max_gambles=4)))
    assert changed_lines(before, after) == (["max_gambles = 5"], ["max_gambles = 4"])


def test_save_as_new_file_follows_its_template(tmp_path: Path) -> None:
    src = ROOT / "data" / "games" / "benchmark_5x3.toml"
    game = dataclasses.replace(load_game(src), declared_rtp=Fraction("0.95"))
    out = save_game(game, tmp_path / "variant.toml", template=src)
    assert changed_lines(src.read_text(), out.read_text()) == (["declared_rtp = 0.9629"], ["declared_rtp = 0.95"])
    # without a template a new file is written in the canonical layout, and reads back the same
    plain = save_game(game, tmp_path / "plain.toml")
    assert load_game(plain) == game


def test_a_template_that_is_not_a_game_is_replaced_by_the_canonical_text() -> None:
    game = load_game(ROOT / "data" / "games" / "classic_3reel.toml")
    text = dumps_like(game, "name = 3\n")
    assert "# A classic" not in text and load_game_text(text) == game


def test_an_edit_that_would_not_read_back_falls_back_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    src = ROOT / "data" / "games" / "classic_3reel.toml"
    game = dataclasses.replace(load_game(src), declared_rtp=Fraction("0.9"))
    monkeypatch.setattr("mathkit.gamefile.tomledit.update_text", lambda text, before, after: text)  # an edit that changes nothing
    with pytest.warns(StyleLostWarning, match="did not read back as the game"):
        text = dumps_like(game, src.read_text())
    assert load_game_text(text) == game


def load_game_text(text: str) -> Game:
    from mathkit.gamefile.io import loads_game

    return loads_game(text)


# --------------------------------------------------------------------------- file modes
def test_a_save_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "g.toml"
    src = ROOT / "data" / "games" / "classic_3reel.toml"
    target.write_text(src.read_text())
    target.chmod(0o664)
    save_game(load_game(src), target, overwrite=True)
    assert target.stat().st_mode & 0o777 == 0o664


def test_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        out = write_atomic(tmp_path / "new.toml", "x = 1\n")
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o640  # 0o666 & ~0o027, not mkstemp's 0o600
    old = os.umask(0o022)
    try:
        assert write_atomic(tmp_path / "new2.toml", "x = 1\n").stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


# --------------------------------------------------------------------------- killed saves
KILLED_SAVE = """
import os, sys, time
from pathlib import Path
import mathkit.gamefile.io as io
def stall(*args):
    Path(sys.argv[2]).write_text("ready")
    time.sleep(60)
io.os.replace = stall
io.write_atomic(sys.argv[1], "half-written")
"""


def test_temporaries_of_a_killed_save_are_removed_by_the_next_save(tmp_path: Path) -> None:
    target = tmp_path / "g.toml"
    target.write_text("x = 1\n")
    ready = tmp_path / "ready"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(target), str(ready)], env=env)
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ready.exists(), "the save did not reach its rename"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    orphans = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(orphans) == 1 and re.match(rf"^\.g\.toml\.{proc.pid}\.", orphans[0])
    assert target.read_text() == "x = 1\n"  # the old file, whole
    # a temporary of a process still alive (another save under way) is left alone
    live = tmp_path / f".g.toml.{os.getppid()}.abcdefgh.tmp"
    live.write_text("in progress")
    write_atomic(target, "x = 2\n")
    assert target.read_text() == "x = 2\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == [live.name]


def test_a_target_band_is_a_one_line_diff(tmp_path: Path) -> None:
    from mathkit.model.game import Targets

    src = ROOT / "data" / "games" / "dynasty.toml"
    game = load_game(src)
    assert game.targets == Targets(None, Fraction(5, 100_000), (5.5, 6.5), (0.27, 0.31))
    edited = dataclasses.replace(game, targets=dataclasses.replace(game.targets, sd=(5.75, 6.5)))
    before, after = save_copy(tmp_path, src, edited)
    assert changed_lines(before, after) == (["sd = [5.5, 6.5]  # σ per total bet"], ["sd = [5.75, 6.5]  # σ per total bet"])
