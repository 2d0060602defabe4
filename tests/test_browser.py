"""End to end in a real browser: Voilà serves the workbench notebook, Debian's chromium drives it.

Voilà runs on 127.0.0.1 on a free port over temporary copies of
``notebooks/workbench.py`` (one per game, games from a temporary folder, so
nothing in the project changes); Playwright (sync API) launches
``/usr/bin/chromium`` with a fresh profile.  Screenshots go to ``test-output/browser/``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mathkit.game import Game
from mathkit.io import game_from_dict, game_to_dict, load_game
from mathkit.labsetup import notebooks_from_sources
from mathkit.par import build_par
from mathkit.rtp import component_rtp

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
OUT = ROOT / "test-output" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]
NOTEBOOKS = {"bench": "benchmark_5x3.toml", "dynasty": "dynasty.toml"}

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium)",
                allow_module_level=True)

# Times one edit inside the page: the text area's change event → the RTP and σ labels' text changes.
ROUND_TRIP_JS = """async (text) => {
  const area = document.querySelector('.mk-strip-1 textarea');
  const rtp = document.querySelector('.mk-rtp'), sd = document.querySelector('.mk-sd');
  const before = [rtp.textContent, sd.textContent], out = {};
  const t0 = performance.now();
  const done = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      const t = performance.now() - t0;
      if (out.rtp === undefined && rtp.textContent !== before[0]) out.rtp = t;
      if (out.sd === undefined && sd.textContent !== before[1]) out.sd = t;
      if (out.rtp !== undefined && out.sd !== undefined) { obs.disconnect(); resolve(out); }
    });
    for (const el of [rtp, sd]) obs.observe(el, {subtree: true, childList: true, characterData: true});
    setTimeout(() => resolve(out), 60000);
  });
  area.value = text;
  area.dispatchEvent(new Event('change', {bubbles: true}));
  return await done;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"voila exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    pytest.fail(f"voila did not listen on port {port} within {timeout} s:\n{log.read_text()[-3000:]}")


def workbench_notebook(folder: Path, name: str, game: str, games: Path) -> None:
    """``folder/name.ipynb`` from the workbench source, its parameters set to ``game`` in ``games``."""
    text = (ROOT / "notebooks" / "workbench.py").read_text(encoding="utf-8")
    params = f'GAME = {game!r}\nDATA_DIR = {str(games)!r}\nMODE = "auto"\n'
    text, n = re.subn(r'(# %% tags=\["parameters"\]\n)(?:.*\n)*?(?=\n# %%)', lambda m: m.group(1) + params, text)
    assert n == 1, "the workbench notebook has no parameters cell"
    (folder / f"{name}.py").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Voilà serving a folder of workbench notebooks; ``{url}bench.ipynb`` etc. render them."""
    folder = tmp_path_factory.mktemp("voila")
    games = folder / "games"
    shutil.copytree(ROOT / "data" / "games", games)
    for name, game in NOTEBOOKS.items():
        workbench_notebook(folder, name, game, games)
    assert len(notebooks_from_sources(folder)) == len(NOTEBOOKS)
    port = free_port()
    log = folder / "voila.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))}
    cmd = [sys.executable, "-m", "voila", str(folder), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
           "--show_tracebacks=True"]
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/voila/render/"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=str(CHROMIUM),
                                                    headless=True, args=CHROMIUM_ARGS,
                                                    viewport={"width": 1400, "height": 2400})
        try:
            yield ctx.pages[0] if ctx.pages else ctx.new_page()
        finally:
            ctx.close()


def with_strip(game: Game, reel: int, strip: list[str]) -> Game:
    """The game with one strip of its default set replaced, through the TOML mapping (not the workbench)."""
    data = game_to_dict(game)
    data["reels"][game.default_reels]["strips"][reel] = " ".join(strip)
    return game_from_dict(data)


def pct6(x: Any) -> str:
    return f"{float(x) * 100:.6f}%"


def open_workbench(page: Any, url: str, rtp: str) -> float:
    from playwright.sync_api import expect

    t0 = time.monotonic()
    page.goto(url, wait_until="commit")
    expect(page.locator(".mk-rtp")).to_have_text(f"RTP {rtp}", timeout=150_000)
    expect(page.locator(".mk-figures .main-svg").first).to_be_visible(timeout=60_000)
    expect(page.locator(".mk-figures .scatterlayer .point").first).to_be_attached(timeout=60_000)
    return time.monotonic() - t0


def test_strip_edit_and_invalid_edit(voila_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    game = load_game(ROOT / "data" / "games" / "benchmark_5x3.toml")
    strips = [list(s) for s in game.reel_set().strips]
    t0 = time.monotonic()
    loaded = open_workbench(page, voila_url + "bench.ipynb", pct6(component_rtp(game).rtp()))
    rtp = page.locator(".mk-rtp")

    # two more H1 on reel 1; the expected figures come from the engine on a game built here
    strips[0][1], strips[0][3] = "H1", "H1"
    edited = with_strip(game, 0, strips[0])
    expected = component_rtp(edited).rtp()
    area = page.locator(".mk-strip-0 textarea")
    area.fill(" ".join(strips[0]))
    area.press("Tab")  # the strip applies when the box loses focus
    expect(rtp).to_have_text(f"RTP {pct6(expected)}", timeout=30_000)
    expect(page.locator(".mk-rtp-exact")).to_have_text(f"exact {expected.numerator}/{expected.denominator}")
    expect(page.locator(".mk-sd")).to_have_text(f"σ {build_par(edited).sd.value:.4f} × bet", timeout=60_000)
    page.wait_for_timeout(500)  # let plotly finish drawing before the picture
    page.screenshot(path=str(OUT / "workbench.png"), full_page=True)

    # a second edit, timed inside the page
    strips[1][0] = "H2" if strips[1][0] != "H2" else "H1"
    edited = with_strip(edited, 1, strips[1])
    timing = page.evaluate(ROUND_TRIP_JS, " ".join(strips[1]))
    assert set(timing) == {"rtp", "sd"}, f"the labels did not change within 60 s: {timing}"
    expect(rtp).to_have_text(f"RTP {pct6(component_rtp(edited).rtp())}")
    expect(page.locator(".mk-sd")).to_have_text(f"σ {build_par(edited).sd.value:.4f} × bet")

    # an invalid edit: the message, the box marked, the last valid game kept
    bad = page.locator(".mk-strip-2 textarea")
    bad.fill(bad.input_value() + " NOPE")
    bad.press("Tab")
    error = page.locator(".mk-error")
    expect(error).to_contain_text("unknown symbol 'NOPE' on reel 3", timeout=30_000)
    expect(error).to_contain_text("reels.base.strips[2][48]")
    expect(rtp).to_have_text(f"RTP {pct6(component_rtp(edited).rtp())}")
    expect(page.locator(".mk-strip-2.mk-invalid")).to_have_count(1)
    page.screenshot(path=str(OUT / "workbench-invalid.png"), full_page=True)
    print(f"\nbenchmark game: page ready in {loaded:.1f} s; an edit in the browser: RTP label {timing['rtp']:.0f} ms, "
          f"σ label {timing['sd']:.0f} ms; test {time.monotonic() - t0:.1f} s")


def test_free_spin_edit_shows_progress_then_sigma(voila_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    from mathkit.round import rtp_breakdown as rtp_with_features

    game = load_game(ROOT / "data" / "games" / "dynasty.toml")
    fs = game.feature("free_spins")
    t0 = time.monotonic()
    loaded = open_workbench(page, voila_url + "dynasty.ipynb", pct6(sum(rtp_with_features(game).values())))
    page.get_by_role("tab", name="features").click()
    multiplier = fs.table()["multiplier"] + 1
    edited = game.with_features(dataclasses.replace(fs, multiplier=multiplier))
    box = page.locator(".mk-feature-free_spins-multiplier input")
    box.fill(str(multiplier))
    box.press("Enter")
    expect(page.locator(".mk-rtp")).to_have_text(f"RTP {pct6(sum(rtp_with_features(edited).values()))}",
                                                 timeout=30_000)
    # the PAR sheet (free-spin chain) takes seconds: σ is greyed and a progress line turns up
    expect(page.locator(".mk-sd.mk-stale")).to_have_count(1)
    expect(page.locator(".mk-progress .mk-spinner")).to_have_count(1, timeout=30_000)
    page.screenshot(path=str(OUT / "dynasty-progress.png"))
    sd = build_par(edited).sd.value
    expect(page.locator(".mk-sd")).to_have_text(f"σ {sd:.4f} × bet", timeout=120_000)
    expect(page.locator(".mk-sd.mk-stale")).to_have_count(0)
    expect(page.locator(".mk-progress")).to_contain_text("σ and distribution in")
    page.screenshot(path=str(OUT / "dynasty.png"), full_page=True)
    print(f"\nDynasty: page ready in {loaded:.1f} s; test {time.monotonic() - t0:.1f} s")


@pytest.fixture
def lab_url(tmp_path: Path) -> Iterator[str]:
    """JupyterLab as ``make lab`` starts it, on a temporary copy of the notebooks (Lab autosaves)."""
    from mathkit.labsetup import main as labsetup

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy(ROOT / "notebooks" / "workbench.py", notebooks)
    assert labsetup(["--quiet", "--notebooks", str(notebooks)]) == 0
    assert (notebooks / "workbench.ipynb").exists()
    port = free_port()
    log = tmp_path / "lab.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "user-settings"),  # a developer's own settings stay out
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces")}
    cmd = [sys.executable, "-m", "jupyterlab", f"--notebook-dir={notebooks}", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--no-browser", "--allow-root", "--IdentityProvider.token=",
           "--ServerApp.password=", "--LabApp.expose_app_in_browser=True"]
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/lab/tree/workbench.ipynb"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_lab_opens_the_workbench_without_dialogs(lab_url: str, page: Any) -> None:
    from playwright.sync_api import expect

    from mathkit.workbench.model import default_game_path, quick_figures

    default = load_game(default_game_path(ROOT / "data" / "games"))  # Dynasty once it exists
    t0 = time.monotonic()
    page.goto(lab_url, wait_until="commit")
    expect(page.locator(".jp-Notebook")).to_be_visible(timeout=120_000)
    # the kernel starts by itself (no "Select Kernel" dialog) and connects
    page.wait_for_function("""() => {
        const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
        const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
        return k && k.connectionStatus === 'connected' && k.status === 'idle';
    }""", timeout=120_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    expect(page.locator(".mk-rtp")).to_have_text(f"RTP {pct6(quick_figures(default).rtp)}", timeout=150_000)
    expect(page.locator(".mk-figures .main-svg").first).to_be_visible(timeout=60_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    page.wait_for_timeout(1000)
    page.screenshot(path=str(OUT / "lab.png"))
    print(f"\nJupyterLab: {default.name} workbench shown in {time.monotonic() - t0:.1f} s")
