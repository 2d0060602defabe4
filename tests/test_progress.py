"""The progress line of a long command (mathkit.cli.progress): shown on a terminal, erased, never in pipes or JSON."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAME = str(ROOT / "data" / "games" / "dynasty.toml")


def _run(args: list[str], *, tty: bool) -> tuple[str, str, int]:
    """``mathkit ARGS`` with standard error a terminal (``tty``) or a pipe; (stdout, stderr, status)."""
    env = {**os.environ, "MATHKIT_PROGRESS_AFTER": "0", "MATHKIT_CACHE": "0"}
    cmd = [sys.executable, "-m", "mathkit", *args]
    if not tty:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300, check=False)
        return p.stdout, p.stderr, p.returncode
    master, slave = pty.openpty()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=env, cwd=ROOT, text=True) as proc:
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal's other end closed: the command has ended
                break
            if not data:
                break
            chunks.append(data)
        out = proc.stdout.read() if proc.stdout else ""
        status = proc.wait(timeout=300)
    os.close(master)
    return out, b"".join(chunks).decode(), status


def test_a_terminal_sees_the_progress_line_erased_and_the_output_unchanged() -> None:
    out_tty, err_tty, status = _run(["par", GAME], tty=True)
    out_pipe, err_pipe, status_pipe = _run(["par", GAME], tty=False)
    assert status == status_pipe == 0
    assert "⋯ mathkit par: exact analysis ·" in err_tty
    assert err_tty.endswith("\r\x1b[K")  # erased before the sheet was printed
    assert out_tty == out_pipe and "RTP" in out_pipe  # the sheet is the same, byte for byte
    assert err_pipe == ""  # piped: nothing


def test_json_and_pipes_get_no_progress_line() -> None:
    out, err, status = _run(["par", GAME, "--json"], tty=True)
    assert status == 0 and err == "" and out.lstrip().startswith("{")
    _, err, status = _run(["check", GAME], tty=False)
    assert err == ""


def test_the_par_sheets_sampler_keeps_its_settings_under_the_progress_line() -> None:
    # the sheet's own samplers (importance sampling of a rare route) read the sampler's rounds and seed
    from mathkit.cli import _Phased
    from mathkit.gamefile.io import load_game
    from mathkit.sim.sampling import route_sampler

    inner = route_sampler(load_game(GAME), 1234, 7)
    phased = _Phased(inner)
    assert (phased.rounds, phased.seed) == (1234, 7) == (inner.rounds, inner.seed)  # type: ignore[union-attr]
