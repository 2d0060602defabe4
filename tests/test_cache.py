"""The exact-figures cache (mathkit.report.cache): hits, invalidation, concurrent writers, size bound, the CLI.

Reference figures here come from the cache turned off (the same computation done again), never from an entry.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mathkit.gamefile.io import load_game
from mathkit.report import cache

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "classic_3reel.toml"


@pytest.fixture
def on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MATHKIT_CACHE", "1")
    monkeypatch.setenv("MATHKIT_CACHE_DIR", str(folder))
    return folder


def _counting() -> tuple[list[int], object]:
    calls: list[int] = []

    def compute() -> dict[str, int]:
        calls.append(1)
        return {"n": len(calls)}

    return calls, compute


def test_a_hit_skips_the_computation_and_an_edit_misses(on: Path) -> None:
    game = load_game(GAME)
    calls, compute = _counting()
    assert cache.cached(game, "t", {"a": 1}, compute) == {"n": 1}  # type: ignore[arg-type]
    assert cache.cached(game, "t", {"a": 1}, compute) == {"n": 1}  # type: ignore[arg-type]
    assert len(calls) == 1
    # an edited strip (one stop changed), other settings, another kind: each a new entry
    rs = game.reel_set()
    strip = list(rs.strips[0])
    strip[0] = strip[1]
    import dataclasses

    edited = dataclasses.replace(game, reel_sets=tuple(
        dataclasses.replace(r, strips=(tuple(strip), *r.strips[1:])) if r.name == rs.name else r
        for r in game.reel_sets))
    assert cache.cached(edited, "t", {"a": 1}, compute) == {"n": 2}  # type: ignore[arg-type]
    assert cache.cached(game, "t", {"a": 2}, compute) == {"n": 3}  # type: ignore[arg-type]
    assert cache.cached(game, "u", {"a": 1}, compute) == {"n": 4}  # type: ignore[arg-type]
    assert cache.cache_info().entries == 4


def test_comments_and_layout_of_the_file_do_not_matter(on: Path, tmp_path: Path) -> None:
    other = tmp_path / "same.toml"
    other.write_text("# the same game, commented\n" + GAME.read_text(encoding="utf-8") + "\n# end\n", encoding="utf-8")
    assert cache.cache_key(load_game(GAME), "t", {}) == cache.cache_key(load_game(other), "t", {})


def test_another_mathkit_never_reads_an_old_entry(on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game(GAME)
    _, compute = _counting()
    cache.cached(game, "t", {}, compute)  # type: ignore[arg-type]
    monkeypatch.setattr(cache, "_DIGEST", {"code": "an upgraded mathkit"})  # a new version or an edited source file
    assert cache.cached(game, "t", {}, compute) == {"n": 2}  # type: ignore[arg-type]
    monkeypatch.setenv("MATHKIT_MAX_STATES", "5")  # a resource limit changes what may be computed
    assert cache.cached(game, "t", {}, compute) == {"n": 3}  # type: ignore[arg-type]


def test_the_code_digest_follows_the_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "_DIGEST", {})
    first = cache.code_digest()
    monkeypatch.setattr(cache, "_DIGEST", {})
    assert cache.code_digest() == first  # the same tree
    monkeypatch.setattr(cache, "__version__", "99.0")
    monkeypatch.setattr(cache, "_DIGEST", {})
    assert cache.code_digest() != first


def test_a_torn_entry_is_a_miss_and_removed(on: Path) -> None:
    game = load_game(GAME)
    _, compute = _counting()
    cache.cached(game, "t", {}, compute)  # type: ignore[arg-type]
    (entry,) = on.glob("*.json")
    entry.write_text('{"value": {"n"', encoding="utf-8")  # cut short
    assert cache.cached(game, "t", {}, compute) == {"n": 2}  # type: ignore[arg-type]
    assert json.loads(entry.read_text(encoding="utf-8"))["value"] == {"n": 2}


def _writer(folder: str, value: int, n: int) -> None:
    os.environ["MATHKIT_CACHE"], os.environ["MATHKIT_CACHE_DIR"] = "1", folder
    game = load_game(GAME)
    for i in range(n):
        cache.cached(game, "race", {"i": i % 5}, lambda i=i: {"i": i % 5, "pad": "x" * 2000})


def test_two_processes_writing_at_once_leave_whole_entries(on: Path) -> None:
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(on), v, 200)) for v in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    entries = sorted(on.glob("*.json"))
    assert len(entries) == 5 and not list(on.glob(".*.tmp"))  # no temporaries left behind
    for e in entries:
        v = json.loads(e.read_text(encoding="utf-8"))["value"]
        assert v["pad"] == "x" * 2000  # whole, never torn


def test_the_folder_stays_under_its_limit(on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MATHKIT_CACHE_MB", str(20_000 / 2**20))  # 20 kB
    game = load_game(GAME)
    for i in range(30):
        cache.cached(game, "big", {"i": i}, lambda: "y" * 3000)
    info = cache.cache_info()
    assert info.bytes <= 20_000 and info.entries >= 5
    newest = cache.cache_key(game, "big", {"i": 29})
    assert (on / f"{newest}.json").is_file()  # the least recently used went first
    assert not (on / f"{cache.cache_key(game, 'big', {'i': 0})}.json").is_file()


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mathkit", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env}, timeout=300, check=False)


def test_par_and_simulate_read_the_cache_and_print_the_same(on: Path) -> None:
    env = {"MATHKIT_CACHE": "1", "MATHKIT_CACHE_DIR": str(on)}
    off = _cli(["par", str(GAME), "--json"], {"MATHKIT_CACHE": "0"})
    first = _cli(["par", str(GAME), "--json"], env)
    second = _cli(["par", str(GAME), "--json"], env)
    assert off.returncode == first.returncode == second.returncode == 0
    assert first.stdout == second.stdout == off.stdout
    text = _cli(["par", str(GAME)], env)
    assert text.stdout == _cli(["par", str(GAME)], {"MATHKIT_CACHE": "0"}).stdout
    assert cache.cache_info().entries == 2  # the JSON and the text sheet
    sim = ["simulate", str(GAME), "--spins", "20000", "--seed", "3", "--json", "--no-progress"]
    a, b = _cli(sim, env), _cli(sim, env)
    c = _cli([*sim, "--no-cache"], env)
    assert a.returncode == b.returncode == c.returncode == 0
    checks = [{k: v["exact"] for k, v in json.loads(r.stdout)["checks"].items()} for r in (a, b, c)]
    assert checks[0] == checks[1] == checks[2] and "rtp" in checks[0]
    assert cache.cache_info().entries == 3
    info = json.loads(_cli(["cache", "--json"], env).stdout)
    assert info["entries"] == 3 and info["folder"] == str(on)
    cleared = json.loads(_cli(["cache", "--clear", "--json"], env).stdout)
    assert cleared["removed"] == 3 and cleared["entries"] == 0


@pytest.mark.parametrize("value", ["lots", "-1", "nan", "inf"])
@pytest.mark.parametrize("name", ["MATHKIT_CACHE_MB", "MATHKIT_ENGINE_CACHE_MB"])
def test_a_bad_cache_size_is_refused_not_read_as_the_default(on: Path, name: str, value: str) -> None:
    """A size the designer mistyped stops the command with the variable named (exit 2), never a silent default."""
    out = _cli(["par", "data/games/classic_3reel.toml"], {name: value})
    assert out.returncode == 2, out.stdout
    assert f"{name}={value!r} is not a number of megabytes" in out.stderr and "Traceback" not in out.stderr
