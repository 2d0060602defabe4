"""Shared fixtures: a private copy of the games folder, and a tiny game whose maths is known by hand."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "data" / "games"

# the exact-figures cache (mathkit.report.cache) is off in tests, so every test computes what it checks;
# tests/test_cache.py turns it on in a folder of its own
os.environ.setdefault("MATHKIT_CACHE", "0")

# 3 reels × 1 row, one line, strips "A B" on every reel, 3 × A pays 8:
# P(A A A) = (1/2)³ = 1/8, so RTP = 8 · 1/8 = 1 exactly; σ² = 64 · 1/8 − 1 = 7.
TINY = """
name = "Tiny"
paylines = [[0, 0, 0]]
[bet]
lines = 1
[symbols.A]
[symbols.B]
[reels.base]
rows = 1
strips = ["A B", "A B", "A B"]
[paytable]
A = { 3 = 8 }
"""


@pytest.fixture
def games_dir(tmp_path: Path) -> Path:
    """A temporary games folder: the project's games plus ``tiny.toml``."""
    folder = tmp_path / "games"
    shutil.copytree(GAMES, folder)
    (folder / "tiny.toml").write_text(TINY, encoding="utf-8")
    return folder
