"""End to end in a real browser: Voilà and JupyterLab serve the workbench notebook, Debian's chromium drives it.

Voilà and Lab run on 127.0.0.1 on free ports over temporary copies of
``notebooks/workbench.py`` (one per game, games from a temporary folder, so
nothing in the project changes); Playwright (sync API) launches
``/usr/bin/chromium`` with a fresh profile.  A designer's round trip (grid
edit, paste, pay, undo, tune, compare, save) runs in both, every RTP shown
compared with the engine and the saved file's diff checked line by line; the
latency of a grid edit (the symbol picker's change event → the RTP label's
text) is measured inside the page for Dynasty, ten edits in Lab (median ≤
0.3 s, printed).  Each next edit waits for σ, as a designer reads it, so a
loaded machine slows the test but not the figure measured.  The rendered
workbench page is opened with the network cut.  Screenshots go to ``test-output/browser/``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mathkit.dev.labsetup import notebooks_from_sources
from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
OUT = ROOT / "test-output" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]
NOTEBOOKS = {"bench": "benchmark_5x3.toml", "dynasty": "dynasty.toml"}
VOILA_NOTEBOOKS = {"bench": "benchmark_5x3.toml", "warlords": "warlords.toml", "prince": "prince_of_riches.toml",
                   "dynasty": "dynasty.toml"}

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium)",
                allow_module_level=True)

# Times one edit inside the page: the symbol picker's change event → the RTP label's text changes; → σ and the hit
# frequency (the PAR sheet) shown, i.e. their labels marked stale by the edit and then fresh again (read from the
# mutation records' old values: the two class changes may reach the page in one batch); → the distribution panel's
# title in the plot (SVG) shows ``plot`` (the PAR sheet drawn; -2 when the edit leaves that title as it was).
ROUND_TRIP_JS = """async ([symbol, plot]) => {
  const pick = document.querySelector('.mk-grid-symbol select'), rtp = document.querySelector('.mk-rtp');
  const title = () => [...document.querySelectorAll('.mk-figures .annotation-text')].map((e) => e.textContent)
    .find((t) => t.startsWith('P(win')) || '';
  const before = rtp.textContent, t0 = performance.now(), out = {rtp: -1, sd: -1, par: -1, plot: -1};
  const limit = 60000;
  const fresh = (sel, key) => new Promise((resolve) => {
    const el = document.querySelector(sel);
    let seenStale = false;
    const obs = new MutationObserver((records) => {
      for (const r of records) {
        if (el.classList.contains('mk-stale') || (r.oldValue || '').includes('mk-stale')) seenStale = true;
      }
      if (seenStale && !el.classList.contains('mk-stale')) { out[key] = performance.now() - t0; obs.disconnect(); resolve(); }
    });
    obs.observe(el, {attributes: true, attributeFilter: ['class'], attributeOldValue: true});
    setTimeout(() => { obs.disconnect(); resolve(); }, limit);
  });
  const label = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (rtp.textContent !== before) { out.rtp = performance.now() - t0; obs.disconnect(); resolve(); }
    });
    obs.observe(rtp, {subtree: true, childList: true, characterData: true});
    setTimeout(() => { obs.disconnect(); resolve(); }, limit);
  });
  const drawn = title() === plot ? Promise.resolve(out.plot = -2) : new Promise((resolve) => {
    const fig = document.querySelector('.mk-figures');
    const obs = new MutationObserver(() => {
      if (title() === plot) { out.plot = performance.now() - t0; obs.disconnect(); resolve(); }
    });
    obs.observe(fig, {subtree: true, childList: true, characterData: true, attributes: true});
    setTimeout(() => { obs.disconnect(); resolve(); }, limit);
  });
  const waits = [label, fresh('.mk-sd', 'sd'), fresh('.mk-hit', 'par'), drawn];
  pick.value = symbol;
  pick.dispatchEvent(new Event('change', {bubbles: true}));
  await Promise.all(waits);
  out.progress = document.querySelector('.mk-progress').textContent;
  out.titles = [...document.querySelectorAll('.mk-figures .annotation-text')].map((e) => e.textContent).join(' | ');
  return out;
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
    """``folder/name.py`` from the workbench source, its parameters set to ``game`` in ``games``."""
    text = (ROOT / "notebooks" / "workbench.py").read_text(encoding="utf-8")
    params = f'GAME = {game!r}\nDATA_DIR = {str(games)!r}\nMODE = "auto"\nCOMPARE = ("classic_3reel.toml", 0.85)\n'
    text, n = re.subn(r'(# %% tags=\["parameters"\]\n)(?:.*\n)*?(?=\n# %%)', lambda m: m.group(1) + params, text)
    assert n == 1, "the workbench notebook has no parameters cell"
    (folder / f"{name}.py").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Voilà serving a folder of workbench notebooks; ``{url}bench.ipynb`` etc. render them."""
    folder = tmp_path_factory.mktemp("voila")
    games = folder / "games"
    shutil.copytree(ROOT / "data" / "games", games)
    for name, game in VOILA_NOTEBOOKS.items():
        workbench_notebook(folder, name, game, games)
    assert len(notebooks_from_sources(folder)) == len(VOILA_NOTEBOOKS)
    with voila(folder, folder, "--show_tracebacks=True") as (port, _proc, _log):
        url = f"http://127.0.0.1:{port}/voila/render/"
        _GAMES[url] = str(games)
        yield url


@contextlib.contextmanager
def voila(target: Path, cwd: Path, *flags: str) -> Iterator[tuple[int, subprocess.Popen[bytes], Path]]:
    """Voilà serving ``target`` (a folder or a notebook) on a free port of 127.0.0.1 until the block ends:
    ``(port, process, log)``."""
    port, log = free_port(), cwd / "voila.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))}
    cmd = [sys.executable, "-m", "voila", str(target), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1", *flags]
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, log)
        yield port, proc, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def page(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh chromium page; its console and uncaught errors go to ``test-output/browser/<test>.console.txt``
    (and their last lines are printed at teardown: pytest shows them with a failure)."""
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    t0 = time.monotonic()
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=str(CHROMIUM),
                                                    headless=True, args=CHROMIUM_ARGS,
                                                    viewport={"width": 1400, "height": 2400})
        pg = ctx.pages[0] if ctx.pages else ctx.new_page()
        pg.on("console", lambda m: lines.append(f"{time.monotonic() - t0:7.1f}s {m.type}: {m.text[:2000]}"))
        pg.on("pageerror", lambda e: lines.append(f"{time.monotonic() - t0:7.1f}s pageerror: {e}"))
        try:
            yield pg
        finally:
            ctx.close()
            (OUT / f"{request.node.name}.console.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"\nbrowser console ({len(lines)} lines, last 80):", *lines[-80:], sep="\n")



def pct6(x: Any) -> str:
    return f"{float(x) * 100:.6f}%"


def with_strip(game: Game, reel: int, strip: list[str]) -> Game:
    """The game with one strip of its default set replaced (``dataclasses.replace``, not the workbench)."""
    sets = tuple(dataclasses.replace(rs, strips=tuple(tuple(strip) if r == reel else s for r, s in enumerate(rs.strips)))
                 if rs.name == game.default_reels else rs for rs in game.reel_sets)
    return dataclasses.replace(game, reel_sets=sets)


def rtp_of(game: Game) -> Any:
    from mathkit.round import rtp_breakdown

    return sum(rtp_breakdown(game).values())


def wait_ready(page: Any, rtp: str) -> None:
    """The workbench shows ``rtp`` and σ is known (the slow figures of the first run are in)."""
    from playwright.sync_api import expect

    expect(page.locator(".mk-rtp")).to_have_text(f"RTP {rtp}", timeout=150_000)
    expect(page.locator(".mk-sd.mk-stale")).to_have_count(0, timeout=120_000)
    expect(page.locator(".mk-sd")).to_contain_text("σ", timeout=120_000)


def tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def pick_stop(page: Any, reel: int, stop: int, symbol: str) -> None:
    """Select one stop in the grid and wait until the picker shows its symbol (the kernel has it)."""
    from playwright.sync_api import expect

    page.locator(f".mk-grid-{reel} select").select_option(index=stop)
    expect(page.locator(".mk-grid-symbol select")).to_have_value(symbol, timeout=30_000)


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if not line.startswith(("---", "+++", "@@")):
            (removed if line[0] == "-" else added).append(line[1:])
    return removed, added


# What the page holds of the workbench's figure when it is not shown: the workbench's children, and for each
# anywidget model in the notebook's widget manager (Lab) whether its model, pending updates and views resolved.
FIGURE_PROBE_JS = """async () => {
  const settle = (p, ms = 500) => Promise.race([p.then((v) => ['ok', v], (e) => ['rejected', String(e)]),
                                               new Promise((r) => setTimeout(() => r(['pending']), ms))]);
  const out = {figures: document.querySelectorAll('.mk-figures').length};
  const wb = document.querySelector('.mk-workbench');
  out.children = wb ? [...wb.children].map((c) => c.className.slice(0, 100)) : null;
  try {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const r = w && w.content.rendermime.createRenderer('application/vnd.jupyter.widget-view+json');
    let mgr = r && r._manager;
    if (mgr && mgr.promise) mgr = await mgr.promise;
    if (!mgr) return out;
    out.models = Object.keys(mgr._models).length;
    out.anywidgets = [];
    for (const [id, p] of Object.entries(mgr._models)) {
      const [how, m] = await settle(p);
      if (how !== 'ok') { out.anywidgets.push({id, model: how, why: m}); continue; }
      if (m.get('_model_module') !== 'anywidget') continue;
      const views = [];
      for (const v of Object.values(m.views || {})) {
        const [vh, view] = await settle(v);
        views.push(vh === 'ok' ? {cls: view.el.className, connected: view.el.isConnected} : vh);
      }
      out.anywidgets.push({id, classes: m.get('_dom_classes'), updates: (await settle(m.state_change))[0], views});
    }
  } catch (e) { out.error = String(e); }
  return out;
}"""


def expect_figures(page: Any, text: str, timeout: float = 30_000) -> None:
    """The workbench's figure shows ``text`` within ``timeout`` ms; if not, the failure says what the page holds."""
    from playwright.sync_api import expect

    try:
        expect(page.locator(".mk-figures")).to_contain_text(text, timeout=timeout)
    except AssertionError as exc:
        msg = f"the figure does not show {text!r}; the page's figure: {page.evaluate(FIGURE_PROBE_JS)}"
        raise AssertionError(msg) from exc


def invalid_pay_edit(page: Any, pay: str, rtp: str, where: str) -> None:
    """An invalid edit far down the paytable, on a laptop-sized window: its message (with its fix) is in view, below
    that pay's row, the last valid game is kept (``rtp`` still shown); putting the pay back clears it."""
    from playwright.sync_api import expect

    tab(page, "paytable")
    size = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 720})
    box = page.locator(f"{pay} input")
    box.scroll_into_view_if_needed()
    kept = box.input_value()
    box.fill("-5")
    box.press("Enter")
    message = page.locator(".mk-error")
    expect(message).to_contain_text("negative pay", timeout=30_000)
    expect(message).to_contain_text("fix:")
    expect(message).to_be_in_viewport()
    page.screenshot(path=str(OUT / f"{where}-invalid-edit.png"))
    expect(page.locator(".mk-rtp")).to_have_text(rtp)
    box.fill(kept)
    box.press("Enter")
    expect(message).to_have_text("", timeout=30_000)
    page.set_viewport_size(size)


def drive_workbench(page: Any, games: Path, where: str) -> None:
    """The designer's round trip on the benchmark game: grid edit, paste, pay, undo, tune, compare, save.

    Every RTP shown is compared with the engine on a game built here; the saved file's diff must be the
    edited lines only.
    """
    from playwright.sync_api import expect

    src = games / "benchmark_5x3.toml"
    original_text = src.read_text(encoding="utf-8")
    original = load_game(src)
    rtp = page.locator(".mk-rtp")
    strips = [list(s) for s in original.reel_set().strips]

    # a strip cell in the grid: reel 1, stop 4 becomes H1
    pick_stop(page, 0, 4, strips[0][4])
    page.locator(".mk-grid-symbol select").select_option("H1")
    strips[0][4] = "H1"
    g = with_strip(original, 0, strips[0])
    expect(rtp).to_have_text(f"RTP {pct6(component_rtp(g).rtp())}", timeout=30_000)
    # a column pasted from a spreadsheet into reel 3
    strips[2] = strips[2][::-1]
    page.locator(".mk-paste textarea").fill("\n".join(strips[2]))
    page.locator(".mk-paste-reel select").select_option(index=2)
    page.locator(".mk-paste-apply").click()
    g = with_strip(g, 2, strips[2])
    expect(rtp).to_have_text(f"RTP {pct6(component_rtp(g).rtp())}", timeout=30_000)
    # a pay, then undo
    tab(page, "paytable")
    pay = page.locator(".mk-pay-H1-5 input")
    pay.fill("3000")
    pay.press("Enter")
    pays = tuple(dataclasses.replace(e, pays=tuple((k, (3000,) if k == 5 else v) for k, v in e.pays))
                 if e.name == "H1" else e for e in g.line_pays)
    expect(rtp).to_have_text(f"RTP {pct6(component_rtp(dataclasses.replace(g, line_pays=pays)).rtp())}", timeout=30_000)
    page.locator(".mk-undo").click()
    expect(rtp).to_have_text(f"RTP {pct6(component_rtp(g).rtp())}", timeout=30_000)
    expect(pay).to_have_value("2500")
    page.screenshot(path=str(OUT / f"{where}-edited.png"), full_page=True)
    invalid_pay_edit(page, ".mk-pay-L5-3", f"RTP {pct6(component_rtp(g).rtp())}", where)
    # a target, and the tuner's proposal as a diff, applied
    tab(page, "targets")
    target = page.locator(".mk-target-rtp input")
    target.fill("95")
    target.press("Enter")
    expect(page.locator(".mk-targets")).to_contain_text("95.0000% ± 0.005 pp", timeout=30_000)
    page.locator(".mk-tune").click()
    expect(page.locator(".mk-tune-diff")).to_contain_text("reached", timeout=120_000)  # "reached" or "not reached"
    expect(page.locator(".mk-tune-diff")).not_to_contain_text("not reached")
    expect(page.locator(".mk-proposal")).to_be_visible()
    page.screenshot(path=str(OUT / f"{where}-tune.png"), full_page=True)
    before_apply = rtp.text_content()
    page.locator(".mk-tune-apply").click()
    expect(rtp).not_to_have_text(before_apply or "", timeout=30_000)
    shown_rtp = rtp.text_content()
    # the plot follows the in-place updates (Lab and Voilà): the component panel's title has the tuned RTP
    total = float((shown_rtp or "").removeprefix("RTP ").removesuffix("%")) / 100
    expect_figures(page, f"RTP by component (total {total:.4%})")
    expect_figures(page, "P(win ≥ x × bet)")
    # the saved version against the edited one
    tab(page, "compare")
    page.locator(".mk-compare-run").click()
    expect(page.locator(".mk-compare-out .mk-compare-figures")).to_be_visible(timeout=120_000)
    compared = page.locator(".mk-compare-out").inner_text()
    page.screenshot(path=str(OUT / f"{where}-compare.png"), full_page=True)
    # save over the file
    tab(page, "save & export")
    page.locator(".mk-save-name input").fill("benchmark_5x3.toml")
    page.locator(".mk-overwrite input").check()
    page.locator(".mk-save").click()
    expect(page.locator(".mk-status")).to_contain_text("saved", timeout=30_000)
    saved = load_game(src)
    exact = component_rtp(saved).rtp()
    assert shown_rtp == f"RTP {pct6(exact)}"
    assert abs(exact - Fraction(95, 100)) <= Fraction(5, 100_000)
    assert f"exact {exact - component_rtp(original).rtp()}" in compared
    assert saved.targets.rtp == Fraction(95, 100) and saved.declared_rtp == Fraction(95, 100)
    # the file: the edited lines only (strips, declared RTP, the target), everything else as it was
    removed, added = changed_lines(original_text, src.read_text(encoding="utf-8"))
    strip_lines = {f'  "{" ".join(s)}",' for s in original.reel_set().strips}
    assert set(removed) <= strip_lines | {"declared_rtp = 0.9629"}, removed
    assert all(a.startswith('  "') or a in ("declared_rtp = 0.95", "rtp = 0.95") for a in added), added
    assert len(added) == len(removed) + 1  # one line more: the target RTP under [targets]
    assert f'  "{" ".join(saved.reel_set().strips[0])}",' in added  # reel 1's cell edit is in the file


def distribution_title(game: Game) -> str:
    """The distribution panel's title for ``game`` (its hit frequency from the exact PAR sheet)."""
    from mathkit.report.par import build_par

    par = build_par(game)
    return f"P(win ≥ x × bet) [{par.distribution.method}] (P(no win) = {float(1 - par.hit_frequency.value):.4f})"


def timed_edits(page: Any, game: Game, n: int) -> list[dict[str, Any]]:
    """``n`` grid edits on reel 2 (a low symbol becomes DRAGON), each timed in the page.

    Each edit's times (ms): ``rtp`` (the label), ``sd`` (σ shown), ``par`` (the PAR sheet: the hit frequency
    label), ``plot`` (the distribution panel redrawn with this edit's hit frequency; -2 when it did not change).
    Every edit must show its RTP, σ, hit frequency and plot within 60 s (a generous limit for a loaded machine:
    a PAR sheet that does not arrive fails the test); the RTP and the hit frequency shown are checked against the
    engine.  The next edit comes once the sheet is in, as a designer reads it.
    """
    from playwright.sync_api import expect

    from mathkit.report.par import build_par
    from mathkit.workbench import views

    strip = list(game.reel_set().strips[1])
    stops = [i for i, s in enumerate(strip) if s in ("NINE", "TEN", "JACK", "QUEEN", "KING")][:n]
    times = []
    for stop in stops:
        # the plot's view is drawn after the labels (plotly's bundle loads once per page): an edit is timed
        # from a page that shows its figures, as the designer sees it
        expect_figures(page, "P(win ≥ x × bet)", timeout=60_000)
        pick_stop(page, 1, stop, strip[stop])
        strip[stop] = "DRAGON"
        edited = with_strip(game, 1, strip)
        par = build_par(edited)
        t = page.evaluate(ROUND_TRIP_JS, ["DRAGON", distribution_title(edited)])
        for key, what in (("rtp", "RTP label"), ("sd", "σ"), ("par", "PAR sheet (hit frequency)"),
                          ("plot", "distribution plot")):
            assert t[key] != -1, f"edit of stop {stop}: the {what} did not reach the page within 60 s ({t})"
        expect(page.locator(".mk-rtp")).to_have_text(f"RTP {pct6(rtp_of(edited))}")
        expect(page.locator(".mk-hit")).to_have_text(views.hit_text(par))
        times.append(t)
        _wait_fresh(page)
    return times


def _wait_fresh(page: Any, seconds: float = 60) -> None:
    """Wait until no slow figure is greyed out as stale (∂RTP follows the PAR sheet)."""
    page.wait_for_function("() => !document.querySelector('.mk-stale')", timeout=seconds * 1000)


def _descendants(pid: int) -> list[Any]:
    import psutil

    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def test_voila_culls_a_closed_pages_kernel_and_its_workers(tmp_path: Path, page: Any) -> None:
    """``make app``'s culling flags (read from ``make -n app``, with a 4 s idle limit): after two visits whose pages
    are closed, the kernels and every process they started (forkserver, σ worker) are gone."""
    import shlex

    dry = subprocess.run(["make", "-n", "app", "APP_IDLE=4", "APP_CULL_EVERY=2"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.replace("\\\n", " ")
    voila_line = next(line for line in dry.splitlines() if "voila notebooks/workbench.ipynb" in line)
    cull = [a for a in shlex.split(voila_line) if a.startswith("--MappingKernelManager.cull")]
    assert len(cull) == 3 and "--MappingKernelManager.cull_idle_timeout=4" in cull, voila_line
    games = tmp_path / "games"
    shutil.copytree(ROOT / "data" / "games", games)
    workbench_notebook(tmp_path, "bench", "benchmark_5x3.toml", games)
    notebooks_from_sources(tmp_path)
    with voila(tmp_path / "bench.ipynb", tmp_path, *cull) as (port, proc, log):
        rtp = pct6(component_rtp(load_game(games / "benchmark_5x3.toml")).rtp())
        busy = []
        for _ in range(2):
            page.goto(f"http://127.0.0.1:{port}/", wait_until="commit")
            wait_ready(page, rtp)
            busy.append(len(_descendants(proc.pid)))
            page.goto("about:blank")  # the page closed: its kernel has no connection left
        assert min(busy) >= 2, busy  # each visit's kernel and its σ worker (the first visit's may be culled already)
        deadline = time.monotonic() + 60
        while _descendants(proc.pid) and time.monotonic() < deadline:
            time.sleep(1)
        left = [" ".join(p.cmdline()[:4]) for p in _descendants(proc.pid)]
        assert not left, f"still running after the idle limit: {left}\n{log.read_text()[-2000:]}"
        assert "Culling 'idle' kernel" in log.read_text()
        print(f"\nVoilà culling: {busy} processes under Voilà during the visits, 0 after the idle limit")


def test_voila_workbench_round_trip(voila_url: str, page: Any) -> None:
    t0 = time.monotonic()
    games = Path(voila_url_games(voila_url))
    page.goto(voila_url + "bench.ipynb", wait_until="commit")
    wait_ready(page, pct6(component_rtp(load_game(games / "benchmark_5x3.toml")).rtp()))
    page.screenshot(path=str(OUT / "voila-workbench.png"), full_page=True)
    # the app page is the workbench only: no report text, no comparison example; the picker lists subfolders
    assert "Comparing two versions" not in page.content() and "mk-compare-figures" not in page.content()
    assert "classic/double_sevens.toml" in page.locator(".mk-game-picker select").inner_text()
    drive_workbench(page, games, "voila")
    print(f"\nVoilà round trip (grid, paste, pay, undo, tune, compare, save): {time.monotonic() - t0:.1f} s")


def test_voila_plot_follows_an_edit(voila_url: str, page: Any) -> None:
    """In Voilà the plots follow each edit: the component panel's total and the distribution panel's title.

    Before :mod:`mathkit.workbench.livefigure`, plotly's 5 MB widget module missed anywidget's 2 s initialize
    deadline on most page loads of a loaded machine; the model then dropped every update (issue 16).
    """

    games = Path(voila_url_games(voila_url))
    game = load_game(games / "benchmark_5x3.toml")
    page.goto(voila_url + "bench.ipynb", wait_until="commit")
    wait_ready(page, pct6(component_rtp(game).rtp()))
    strip = list(game.reel_set().strips[0])
    times = []
    for stop in [i for i, s in enumerate(strip) if s != "H1"][:3]:
        pick_stop(page, 0, stop, strip[stop])
        strip[stop] = "H1"
        edited = with_strip(game, 0, strip)
        t = page.evaluate(ROUND_TRIP_JS, ["H1", distribution_title(edited)])
        assert t["par"] >= 0 and t["plot"] != -1, f"edit of stop {stop}: the PAR sheet or its plot did not follow ({t})"
        total = float(component_rtp(edited).rtp())
        expect_figures(page, f"RTP by component (total {total:.4%})")
        expect_figures(page, distribution_title(edited))
        times.append(t)
    print("\nVoilà, benchmark game, 3 grid edits:")
    print_times(times)


# plotly's place in the wrapper: a module that takes 600 ms to evaluate (plotly's takes 1–10 s) and records what
# reaches its model handlers and its views
SLOW_BUNDLE = """await new Promise((r) => setTimeout(r, 600));
export default () => ({
  initialize({model}) {
    model.on('change:_py2js_update', () => { const v = model.get('_py2js_update'); if (v !== null) globalThis.applied.push(v.n); });
  },
  render({model, el}) { globalThis.drawn.push([...globalThis.applied]); return () => {}; },
});"""

WRAPPER_JS = """async (source) => {
  globalThis.applied = []; globalThis.drawn = [];
  const handlers = {}, state = {_py2js_update: null, _widget_layout: {}};
  // the real model: anywidget's class holds (here: drops) comm messages, ipywidgets' handles them
  const base = {_handle_comm_msg(msg) { this.seen.push(msg); }}, held = Object.create(base);
  held._handle_comm_msg = () => Promise.reject(new Error('dropped'));
  const real = Object.assign(Object.create(held), {seen: [], get: (k) => state[k]});
  real.comm = {on_msg: (f) => { real.route = f; }};
  const other = {comm: {}, get: () => ({})};
  const model = {  // anywidget's model proxy: get, set (fires change events), on, the widget manager
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; (handlers['change:' + k] || []).forEach((f) => f()); },
    on: (name, f) => { (handlers[name] = handlers[name] || []).push(f); },
    widget_manager: {_models: {a: Promise.resolve(other), b: Promise.resolve(real)}},
  };
  const send = (n) => { model.set('_py2js_update', {n}); model.set('_py2js_update', null); };  // as the kernel does
  const url = URL.createObjectURL(new Blob([source], {type: 'text/javascript'}));
  const widget = (await import(url)).default();
  const t0 = performance.now();
  await widget.initialize({model});
  const initialized = performance.now() - t0;
  send(1); send(2);  // before the slow module is in
  const views = [widget.render({model, el: document.body}), widget.render({model, el: document.body})];
  await Promise.all(views);
  send(3);
  if (real.route) real.route('m1');
  return {initialized, applied: globalThis.applied, drawn: globalThis.drawn, routed: real.seen};
}"""


def test_voila_warlords_shows_every_figure_as_mathkit_par(voila_url: str, page: Any) -> None:
    """Warlords in Voilà: the page opens, every figure arrives (σ, hit frequency, VI, the distribution with its band,
    win bands, ∂RTP), the hit frequency and σ equal `mathkit par --json`'s; the latencies are printed.

    No edit here: one Warlords sheet takes 25–40 s of CPU (the issue's target, every figure ≤ 10 s, is not met).
    """
    from playwright.sync_api import expect

    games = Path(voila_url_games(voila_url))
    cli = subprocess.run([sys.executable, "-m", "mathkit", "par", str(games / "warlords.toml"), "--json"],
                         capture_output=True, text=True, check=True, cwd=ROOT, timeout=600)
    import json

    ref = json.loads(cli.stdout)
    t0 = time.monotonic()
    page.goto(voila_url + "warlords.ipynb", wait_until="commit")
    expect(page.locator(".mk-rtp")).to_have_text(f"RTP {ref['rtp'] * 100:.6f}%", timeout=180_000)
    t_rtp = time.monotonic() - t0
    expect(page.locator(".mk-sd")).to_have_text(f"σ {ref['sd']:.4f} × bet [exact]", timeout=600_000)
    t_sd = time.monotonic() - t0
    hf, iv = ref["hit_frequency"], ref["hit_frequency_interval"]
    expect(page.locator(".mk-hit")).to_have_text(
        f"hit frequency {hf * 100:.4f}% (1 in {1 / hf:.2f}) [exact+sampled, 99% {iv['low'] * 100:.4f}% – "
        f"{iv['high'] * 100:.4f}%]", timeout=600_000)
    t_par = time.monotonic() - t0
    expect_figures(page, "exact+sampled, 99% band shaded", timeout=60_000)
    expect(page.locator(".mk-sensitivity")).to_contain_text("[exact]", timeout=600_000)
    t_all = time.monotonic() - t0
    text = page.locator(".mk-workbench").inner_text()
    assert "Error" not in text and "build_sheet" not in text
    print(f"\nVoilà Warlords: open → RTP {t_rtp:.1f} s, → σ {t_sd:.1f} s, → hit frequency/VI/plot/bands {t_par:.1f} s, "
          f"→ ∂RTP (every figure) {t_all:.1f} s; load {os.getloadavg()[0]:.1f}")


def test_live_figure_module_initializes_at_once_and_keeps_early_updates(page: Any) -> None:
    """The wrapper's initialize returns before the slow module is evaluated (anywidget's 2 s deadline); updates sent
    meanwhile reach the model's handlers once, in order, before any view is drawn; later ones reach them directly;
    the model's comm messages bypass anywidget's hold (which drops them all after a missed deadline)."""
    from mathkit.workbench.livefigure import wrap_module

    page.goto("about:blank")
    out = page.evaluate(WRAPPER_JS, wrap_module(SLOW_BUNDLE))
    assert out["initialized"] < 300, out  # the stub alone takes 600 ms
    assert out["applied"] == [1, 2, 3], out
    assert out["drawn"] == [[1, 2], [1, 2]], out
    assert out["routed"] == ["m1"], out  # the real model's messages go to ipywidgets' handler, not anywidget's


_GAMES: dict[str, str] = {}


def voila_url_games(url: str) -> str:
    return _GAMES[url]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """JupyterLab as ``make lab`` starts it, on temporary workbench notebooks and games (Lab autosaves)."""
    from mathkit.dev.labsetup import main as labsetup

    tmp = tmp_path_factory.mktemp("lab")
    notebooks = tmp / "notebooks"
    notebooks.mkdir()
    games = tmp / "games"
    shutil.copytree(ROOT / "data" / "games", games)
    for name, game in NOTEBOOKS.items():
        workbench_notebook(notebooks, name, game, games)
    assert labsetup(["--quiet", "--notebooks", str(notebooks)]) == 0
    port = free_port()
    log = tmp / "lab.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp / "user-settings"),  # a developer's own settings stay out
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces")}
    cmd = [sys.executable, "-m", "jupyterlab", f"--notebook-dir={notebooks}", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--no-browser", "--allow-root", "--IdentityProvider.token=",
           "--ServerApp.password=", "--LabApp.expose_app_in_browser=True"]
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/lab/tree/", games
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def open_in_lab(page: Any, url: str) -> float:
    """Open a notebook in Lab with no dialog, wait for its kernel and run every cell; the seconds it took."""
    from playwright.sync_api import expect

    t0 = time.monotonic()
    page.goto(url + "?reset", wait_until="commit")  # a fresh workspace: no notebook of an earlier test reopened
    expect(page.locator(".jp-Notebook")).to_be_visible(timeout=120_000)
    page.wait_for_function("""() => {
        const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
        const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
        return k && k.connectionStatus === 'connected' && k.status === 'idle';
    }""", timeout=120_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    # every cell run (the comparison cell after the workbench keeps the kernel busy for seconds, more on a loaded
    # machine: an edit made then waits for it): no cell queued or running, the kernel idle
    page.wait_for_function("""() => {
        const w = window.jupyterapp.shell.currentWidget, k = w.sessionContext.session.kernel;
        const cells = w.content.widgets.filter((c) => c.model.type === 'code');
        return cells.length > 0 && cells.every((c) => c.model.executionCount !== null) && k.status === 'idle';
    }""", timeout=300_000, polling=200)
    return time.monotonic() - t0


@pytest.mark.timeout(900)  # ten timed edits on a loaded machine, each waiting on its own condition
def test_lab_dynasty_edit_latency(lab_url: tuple[str, Path], page: Any) -> None:
    """Edit → RTP label in JupyterLab for Dynasty: median of 10 grid edits ≤ 0.3 s."""
    from playwright.sync_api import expect

    url, games = lab_url
    game = load_game(games / "dynasty.toml")
    opened = open_in_lab(page, url + "dynasty.ipynb")
    wait_ready(page, pct6(rtp_of(game)))
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    shown = time.monotonic()
    times = timed_edits(page, game, 10)
    page.screenshot(path=str(OUT / "lab-dynasty.png"))
    print(f"\nJupyterLab, Dynasty: notebook open + run {opened:.1f} s; 10 grid edits ({time.monotonic() - shown:.1f} s)"
          f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    med = print_times(times)
    assert med["rtp"] <= 300, f"median edit → RTP label {med['rtp']:.0f} ms in JupyterLab (limit 300 ms)"


def print_times(times: list[dict[str, Any]]) -> dict[str, float]:
    """Print each kind of time of the edits (ms), median and range; the medians."""
    med = {}
    for key, what in (("rtp", "RTP label"), ("sd", "σ"), ("par", "PAR sheet (hit frequency label)"),
                      ("plot", "distribution plot redrawn")):
        seen = [t[key] for t in times if t[key] >= 0]
        med[key] = statistics.median(seen) if seen else -1.0
        rng = f"{min(seen):.0f}–{max(seen):.0f}" if seen else "-"
        print(f"  edit → {what}: {', '.join(f'{t[key]:.0f}' for t in times)} ms; median {med[key]:.0f} ms, range {rng}")
    return med


@pytest.mark.timeout(900)  # a loaded machine: every step waits on its own condition, with its own limit
def test_lab_workbench_round_trip(lab_url: tuple[str, Path], page: Any) -> None:
    url, games = lab_url
    open_in_lab(page, url + "bench.ipynb")
    wait_ready(page, pct6(component_rtp(load_game(games / "benchmark_5x3.toml")).rtp()))
    drive_workbench(page, games, "lab")


@pytest.mark.notebooks
def test_rendered_workbench_reads_offline(tmp_path: Path, page: Any) -> None:
    """``make render``'s workbench page in chromium with the network cut: no request, every widget drawn."""
    from playwright.sync_api import expect

    from mathkit.dev.render import render_notebook

    games = tmp_path / "games"
    shutil.copytree(ROOT / "data" / "games", games)
    workbench_notebook(tmp_path, "workbench", "benchmark_5x3.toml", games)  # make render's notebook, a fast game
    done = render_notebook(tmp_path / "workbench.py", tmp_path / "out", timeout=300)
    requests: list[str] = []
    page.context.route("**/*", lambda route: (requests.append(route.request.url), route.abort())
                       if not route.request.url.startswith("file://") else route.continue_())
    for html_file in (done.html, done.html_code):
        page.goto(html_file.as_uri())
        expect(page.locator(".mk-rtp")).to_contain_text("RTP ", timeout=60_000)
        expect(page.locator(".mk-strips .mk-grid-1 select")).to_be_visible()
        expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
        assert page.get_by_text("Error displaying widget").count() == 0
        assert page.locator(".jupyter-widgets-error-widget, .jp-RenderedText[data-mime-type*=error]").count() == 0
    page.screenshot(path=str(OUT / "rendered-workbench.png"), full_page=False)
    assert requests == [], f"the offline page asked the network for {requests[:5]}"
    assert "mk-compare-figures" in done.html.read_text(encoding="utf-8")


#: per game: its file, a grid edit (reel, a symbol on it, what it becomes) and a pay far down its paytable
EDITS = {"dynasty": ("dynasty.toml", 2, "KING", "NINE", ".mk-pay-NINE-5"),
         "prince": ("prince_of_riches.toml", 1, "K", "TEN", ".mk-pay-PRINCE-5")}


def edit_shows_every_figure_as_mathkit_par(page: Any, url: str, games: Path, name: str, where: str,
                                           tmp_path: Path) -> None:
    """A grid edit on game ``name``: the RTP, σ and hit frequency shown equal `mathkit par --json` on the edited file
    (each with its provenance tag), the distribution is drawn and ∂RTP's table arrives; then an invalid edit whose
    message is in view.  The latencies from the edit are printed.  ``url`` opens the page (Voilà or Lab)."""
    from playwright.sync_api import expect

    from mathkit.gamefile.io import save_game

    file, reel, before, after, pay = EDITS[name]
    game = load_game(games / file)
    strips = [list(s) for s in game.reel_set().strips]
    stop = strips[reel].index(before)
    strips[reel][stop] = after
    save_game(with_strip(game, reel, strips[reel]), tmp_path / "edited.toml")
    cli = subprocess.run([sys.executable, "-m", "mathkit", "par", str(tmp_path / "edited.toml"), "--json"],
                         capture_output=True, text=True, check=True, cwd=ROOT, timeout=600)
    import json

    ref = json.loads(cli.stdout)
    how = ref["provenance"]
    t0 = time.monotonic()
    if where == "lab":
        open_in_lab(page, url)
    else:
        page.goto(url, wait_until="commit")
    wait_ready(page, pct6(rtp_of(game)))
    t_open = time.monotonic() - t0
    pick_stop(page, reel, stop, before)
    t0 = time.monotonic()
    page.locator(".mk-grid-symbol select").select_option(after)
    expect(page.locator(".mk-rtp")).to_have_text(f"RTP {ref['rtp'] * 100:.6f}%", timeout=60_000)
    t_rtp = time.monotonic() - t0
    expect(page.locator(".mk-sd")).to_have_text(f"σ {ref['sd']:.4f} × bet [{how['sd']}]", timeout=120_000)
    t_sd = time.monotonic() - t0
    hf = ref["hit_frequency"]
    expect(page.locator(".mk-hit")).to_have_text(f"hit frequency {hf * 100:.4f}% (1 in {1 / hf:.2f}) "
                                                 f"[{how['hit_frequency']}]", timeout=120_000)
    t_par = time.monotonic() - t0
    expect_figures(page, "P(win ≥ x × bet)", timeout=60_000)
    expect(page.locator(".mk-sensitivity .mk-sensitivity-table")).to_have_count(1, timeout=120_000)
    t_all = time.monotonic() - t0
    text = page.locator(".mk-workbench").inner_text()
    assert "Error" not in text and "Traceback" not in text
    page.screenshot(path=str(OUT / f"{where}-{name}-edited.png"), full_page=True)
    print(f"\n{where} {name}: open → σ {t_open:.1f} s; grid edit → RTP {t_rtp:.2f} s, → σ {t_sd:.2f} s, → hit "
          f"frequency {t_par:.2f} s, → ∂RTP (every figure) {t_all:.2f} s; load {os.getloadavg()[0]:.1f}")
    invalid_pay_edit(page, pay, f"RTP {ref['rtp'] * 100:.6f}%", f"{where}-{name}")


@pytest.mark.parametrize("name", sorted(EDITS))
def test_voila_edit_shows_every_figure_as_mathkit_par(voila_url: str, page: Any, tmp_path: Path, name: str) -> None:
    edit_shows_every_figure_as_mathkit_par(page, voila_url + f"{name}.ipynb", Path(voila_url_games(voila_url)), name,
                                           "voila", tmp_path)


# Lab: Dynasty only — the page's front end is the one difference from Voilà, and Prince's sheet costs a CI minute more
@pytest.mark.parametrize("name", ["dynasty"])
def test_lab_edit_shows_every_figure_as_mathkit_par(lab_url: tuple[str, Path], page: Any, tmp_path: Path,
                                                    name: str) -> None:
    url, games = lab_url
    edit_shows_every_figure_as_mathkit_par(page, url + f"{name}.ipynb", games, name, "lab", tmp_path)
