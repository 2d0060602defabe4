"""The command line misused as a new user would: every case of issue 13's list gives a clear error.

Exit status 2 (argparse's own usage error or a located mathkit error), one
message naming the argument or the file and field, no traceback, nothing
computed or written; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mathkit.cli import main
from mathkit.report import par as par_module

CLASSIC = "data/games/classic_3reel.toml"  # 1 line, coins [1, 2, 3]
BENCH = "data/games/benchmark_5x3.toml"  # 30 paylines


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``mathkit ARGV`` in-process: exit status and stderr (argparse's usage errors included)."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse refuses a bad value with exit 2
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return status, err


@pytest.fixture
def no_par(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if a PAR sheet is computed: misuse must be refused before any computing."""
    def refuse(*args: object, **kwargs: object) -> None:
        msg = "a PAR sheet was computed"
        raise AssertionError(msg)

    monkeypatch.setattr(par_module, "build_par", refuse)


@pytest.mark.parametrize(("argv", "words"), [
    (["par", CLASSIC, "--lines", "0"], "--lines: must be at least 1, not 0"),  # was a segmentation fault
    (["par", CLASSIC, "--lines", "-1"], "--lines: must be at least 1, not -1"),  # was exit 0 with RTP −2567%
    (["par", BENCH, "--lines", "31"], "--lines: 31 lines played, but the game has 30 paylines"),  # cannot reshape
    (["par", CLASSIC, "--coins", "-1"], "--coins: must be at least 1, not -1"),  # was a negative-bet PAR sheet
    (["par", CLASSIC, "--coins", "0"], "--coins: must be at least 1, not 0"),  # was ZeroDivisionError
    (["par", CLASSIC, "--coins", "4"], "--coins: 4 coins per line is not a coin option"),  # was IndexError
    (["par", CLASSIC, "--lines", "1.5"], "--lines: not a whole number"),
    (["par", CLASSIC, "--reels", "nope"], "no reel set 'nope'"),
    (["simulate", CLASSIC, "--lines", "0", "--spins", "1000"], "--lines: must be at least 1"),  # ZeroDivisionError
    (["simulate", CLASSIC, "--coins", "4", "--spins", "1000"], "--coins: 4 coins per line is not a coin option"),
    (["simulate", CLASSIC, "--spins", "1e30"], "more than the 100,000,000,000 one run holds"),  # grew until OOM
    (["simulate", CLASSIC, "--spins", "inf"], "--spins: not a whole number"),
    (["simulate", CLASSIC, "--spins", "0"], "--spins: must be at least 1"),
    (["simulate", CLASSIC, "--seed", "-3", "--spins", "10"], "--seed: must be 0 or more"),
    (["export", CLASSIC, "--xlsx", "out.xlsx", "--coins", "7"], "--coins: 7 coins per line is not a coin option"),
    (["check", "no/such/game.toml"], "no/such/game.toml: file: no such file"),
    # found by the fuzz (tests/fuzz_cli.py): an internal OverflowError, a render refusal without "error:"
    (["session", CLASSIC, "--spins", "1e400"], "--spins: 1e400 spins: a session has at most 1,000,000"),
    # a huge power of ten is refused as written, not expanded (Fraction("1e9999999") took 6 s, its digits flooded
    # the message)
    (["simulate", CLASSIC, "--spins", "1e9999999"], "--spins: 1e9999999 plays is more than the 100,000,000,000"),
    (["simulate", CLASSIC, "--spins=-1e400"], "--spins: -1e400 is out of range: give a number of fewer than 30"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--tolerance-pp", "1e-9999999"],
     "--tolerance-pp: 1e-9999999 is out of range"),
    (["session", CLASSIC, "--simulate", "inf"], "--simulate: not a whole number"),
    (["session", CLASSIC, "--spins", "0"], "--spins: must be at least 1, not 0"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--max-run", "CHERRY=-1"], "--max-run 'CHERRY=-1': must be at least 1"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--max-run", "CHERRY=x"], "--max-run 'CHERRY=x': not a whole number"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--max-run", "CHERRY"], "--max-run 'CHERRY': write SYMBOL=N"),
    (["render", "no/such/folder", "out"], "error: no/such/folder: not a folder"),
    (["render", "--timeout", "0", "notebooks", "out"], "--timeout: must be at least 1, not 0"),
    (["render", "--only", "nope", "--", "notebooks", "out"], "error: no notebook source nope in notebooks"),
])
def test_bad_arguments_are_refused_before_computing(argv: list[str], words: str, no_par: None,
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    status, err = run([a.replace("out.xlsx", str(tmp_path / "out.xlsx")).replace("out.toml", str(tmp_path / "out.toml"))
                       for a in argv], capsys)
    assert status == 2
    assert words in err


def test_tune_refuses_a_target_above_100_percent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.toml"
    status, err = run(["tune", CLASSIC, "--target-rtp", "1.5", "--out", str(out)], capsys)  # wrote a 150% game
    assert status == 2 and "150.0000% of the bet" in err and "at most 100%" in err
    assert not out.exists()
    status, err = run(["tune", CLASSIC, "--target-rtp", "nan", "--out", str(out)], capsys)
    assert status == 2 and "not an RTP" in err


@pytest.mark.parametrize("option", ["par --out", "export --xlsx", "export --server-json", "tune --out"])
def test_an_unwritable_output_fails_before_computing(option: str, tmp_path: Path, no_par: None,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder", encoding="utf-8")
    command, flag = option.split()
    extra = ["--target-rtp", "0.9"] if command == "tune" else []
    for target, words in ((blocker / "out.json", "is not a folder"), (Path("/proc/mathkit-out.json"), "cannot write")):
        status, err = run([command, CLASSIC, flag, str(target), *extra], capsys)
        assert status == 2 and flag in err and words in err, err


def test_an_unknown_par_format_fails_before_computing(tmp_path: Path, no_par: None,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(["par", CLASSIC, "--out", str(tmp_path / "p.doc")], capsys)
    assert status == 2 and "unknown output format '.doc'" in err and ".json, .csv, .txt, .xlsx" in err


def test_errors_name_the_file_and_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(Path(CLASSIC).read_text(encoding="utf-8").replace("rows = 1", "rows = 30"), encoding="utf-8")
    status, err = run(["par", str(bad)], capsys)
    assert status == 2 and f"{bad}: reels.base.rows: a window 30 rows high" in err


def test_no_traceback_without_debug_and_one_with_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nname = "y"\n', encoding="utf-8")
    for argv, traced in ((["par", str(bad)], False), (["--debug", "par", str(bad)], True),
                         (["par", str(bad), "--debug"], True)):
        proc = subprocess.run([sys.executable, "-m", "mathkit", *argv], capture_output=True, text=True, check=False)
        assert proc.returncode == 2
        assert f"{bad}: name: not valid TOML at line 2: the key is written twice" in proc.stderr
        assert ("Traceback" in proc.stderr) is traced


def test_an_unexpected_error_is_reported_as_a_bug(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("oops")

    monkeypatch.setattr(par_module, "_build_par", broken)
    assert main(["par", CLASSIC]) == 3
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "--debug" in err and "Traceback" not in err
