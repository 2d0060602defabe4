"""Exact figures on disk, keyed by the content of everything they depend on.

A game's exact analysis is deterministic: the same game, the same settings and the same mathkit give the
same figures (its sampled parts too: they are seeded).  An entry is keyed by the SHA-256 of

* the game's canonical serialisation (:func:`mathkit.gamefile.io.game_to_dict` as sorted JSON: comments,
  layout and key order of the file do not matter, every value does),
* what is asked (``kind``: ``"par"``, ``"simulate-exact"`` …) and its settings (reel set, bet, format,
  sampling rounds and seed …),
* mathkit's version **and the SHA-256 of its source files** (an edited or upgraded mathkit never reads an
  old entry), and the ``MATHKIT_*`` resource limits in the environment (a limit can change what is computed).

Entries are small JSON files in :func:`cache_dir` (``$MATHKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/mathkit``,
else ``~/.cache/mathkit``). A write goes through the project's one atomic writer
(:func:`mathkit.gamefile.io.write_atomic`: a temporary file in that folder renamed into place), so two
processes writing at once leave one whole entry (their contents are equal), and a reader never sees a torn
file; an entry that does not parse is a miss and is removed. The folder is kept under ``$MATHKIT_CACHE_MB``
megabytes (default 256): the least recently used entries go first.
``MATHKIT_CACHE=0`` turns the cache off; ``mathkit cache`` shows it, ``mathkit cache --clear`` empties it.

Examples
--------
>>> import os, tempfile
>>> from mathkit.gamefile.io import load_game
>>> saved = {k: os.environ.pop(k, None) for k in ("MATHKIT_CACHE", "MATHKIT_CACHE_DIR")}
>>> os.environ["MATHKIT_CACHE_DIR"] = tempfile.mkdtemp()
>>> game = load_game("data/games/classic_3reel.toml")
>>> calls = []
>>> def rtp():
...     calls.append(1)
...     return {"rtp": "0.9"}
>>> cached(game, "demo", {"reels": None}, rtp), cached(game, "demo", {"reels": None}, rtp), len(calls)
({'rtp': '0.9'}, {'rtp': '0.9'}, 1)
>>> for k, v in saved.items():  # the environment as it was
...     _ = os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..gamefile.io import game_to_dict, write_atomic
from ..model.bounds import env_number
from ..model.game import Game

__all__ = ["CacheInfo", "cache_dir", "cache_info", "cache_key", "cached", "clear_cache", "code_digest", "enabled"]

T = TypeVar("T")
DEFAULT_MB = 256
SUFFIX = ".json"
_IGNORED_ENV = ("MATHKIT_CACHE", "MATHKIT_CACHE_DIR", "MATHKIT_CACHE_MB", "MATHKIT_DEBUG", "MATHKIT_GAME",
                "MATHKIT_RENDER")
_DIGEST: dict[str, str] = {}


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mathkit")
    except PackageNotFoundError:  # run from a source tree: the sources' digest still tells trees apart
        return "source"


__version__ = _installed_version()


def cache_dir() -> Path:
    """The cache folder: ``$MATHKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/mathkit``, else ``~/.cache/mathkit``."""
    if os.environ.get("MATHKIT_CACHE_DIR"):
        return Path(os.environ["MATHKIT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mathkit"


def enabled() -> bool:
    """Whether the cache is on (``MATHKIT_CACHE=0`` turns it off)."""
    return os.environ.get("MATHKIT_CACHE", "1").strip().lower() not in ("0", "no", "off", "false")


def code_digest() -> str:
    """mathkit's version and the SHA-256 of every source file of the package (computed once per process)."""
    if "code" not in _DIGEST:
        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256(__version__.encode())
        for p in sorted(root.rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
        _DIGEST["code"] = h.hexdigest()
    return _DIGEST["code"]


def _limits() -> dict[str, str]:
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("MATHKIT_") and k not in _IGNORED_ENV}


def cache_key(game: Game, kind: str, settings: Mapping[str, Any]) -> str:
    """The entry's name: SHA-256 of the game's canonical form, ``kind``, ``settings``, the code and the limits."""
    what = {"game": game_to_dict(game), "kind": kind, "settings": dict(settings), "code": code_digest(),
            "limits": _limits()}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def _read(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as fh:
            entry = json.load(fh)
        value = entry["value"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):  # torn by a crash of an older writer, or foreign: a miss
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # least recently used goes first
    return {"value": value}


def _write(folder: Path, name: str, value: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / (name + SUFFIX), json.dumps({"value": value, "written": time.time()}, allow_nan=False))
    _trim(folder)


def _limit_bytes() -> int:
    return int(env_number("MATHKIT_CACHE_MB", DEFAULT_MB, unit="megabytes") * 2**20)


def _entries(folder: Path) -> list[tuple[float, int, Path]]:
    out = []
    for p in folder.glob("*" + SUFFIX):
        with contextlib.suppress(OSError):
            st = p.stat()
            out.append((st.st_mtime, st.st_size, p))
    return sorted(out)


def _trim(folder: Path) -> None:
    """Remove the least recently used entries until the folder is under its size limit."""
    entries = _entries(folder)
    total, limit = sum(s for _, s, _ in entries), _limit_bytes()
    for _, size, p in entries:
        if total <= limit:
            break
        with contextlib.suppress(OSError):
            p.unlink()
        total -= size


def cached(game: Game, kind: str, settings: Mapping[str, Any], compute: Callable[[], T]) -> T:
    """``compute()``'s JSON-ready value for (``game``, ``kind``, ``settings``), from the cache when it holds it.

    The value must be JSON data (dicts, lists, strings, finite numbers): it is stored as JSON, no pickle.
    A value that cannot be stored is returned and not cached.  With the cache off, ``compute()`` is called.
    """
    if not enabled():
        return compute()
    folder = cache_dir()
    name = cache_key(game, kind, settings)
    hit = _read(folder / (name + SUFFIX))
    if hit is not None:
        value: T = hit["value"]
        return value
    value = compute()
    with contextlib.suppress(OSError, TypeError, ValueError):  # a read-only folder or a value JSON cannot hold
        _write(folder, name, value)
    return value


@dataclass(frozen=True)
class CacheInfo:
    """What the cache holds: its folder, entries and bytes, and its size limit."""

    folder: Path
    entries: int
    bytes: int
    limit_bytes: int
    enabled: bool

    def text(self) -> str:
        state = "on" if self.enabled else "off (MATHKIT_CACHE=0)"
        return (f"exact-figures cache: {self.folder}\n  {self.entries} entries, {self.bytes / 2**20:.2f} MB "
                f"of at most {self.limit_bytes / 2**20:.0f} MB (MATHKIT_CACHE_MB); {state}\n")


def cache_info() -> CacheInfo:
    """The cache's folder, size and limit."""
    folder = cache_dir()
    entries = _entries(folder) if folder.is_dir() else []
    return CacheInfo(folder, len(entries), sum(s for _, s, _ in entries), _limit_bytes(), enabled())


def clear_cache() -> int:
    """Remove every entry (and stale temporaries); the number of entries removed."""
    folder = cache_dir()
    if not folder.is_dir():
        return 0
    n = 0
    for p in folder.glob("*" + SUFFIX):
        with contextlib.suppress(OSError):
            p.unlink()
            n += 1
    return n
