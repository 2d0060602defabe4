"""``make render``: execute the jupytext notebooks and write self-contained HTML that reads offline.

``mathkit render [SOURCES] [OUT] [--fast] [--timeout S] [--only NAME ...]``
by default ``notebooks`` → ``docs/rendered``.

For every jupytext percent source ``SOURCES/*.py``:

1. the notebook is built in memory with jupytext (the ``.ipynb`` files are never
   committed; ``make lab`` writes its own copies);
2. it is executed with nbclient in a kernel running *this* interpreter, in the
   notebook's folder, with ``PLOTLY_RENDERER=notebook`` so plotly.js (≈4.6 MB)
   is inlined once in the outputs, and with the widgets' state saved;
3. it is exported with the ``offline`` nbconvert template
   (``mathkit/dev/templates/offline``), which inlines require.js, MathJax 3 (only
   when the notebook has TeX) and the Jupyter widgets HTML manager (only when it
   has widget state) instead of loading them from CDNs;
4. it is exported twice: ``OUT/NAME.html`` for reviewers (outputs only, no code
   cells) and ``OUT/code/NAME.html`` with the code; each page is checked for network
   references in ``<script src>`` / ``<link href>`` and for widgets the inlined
   manager cannot draw (an error if any: the page would be broken offline) and
   written atomically, with an ``OUT/index.html`` listing them.

The three JavaScript files are vendored xz-compressed in
``mathkit/dev/templates/assets`` (≈0.9 MB in all), each checked against the sha256 in
``manifest.json`` when read; ``--update-assets`` fetches them again from the npm
registry with ``npm pack``.  ``MATHKIT_NOTEBOOK_FAST=1`` (``--fast``) asks the
notebooks for their small parameters; the tests use it.
"""

from __future__ import annotations

import hashlib
import html
import json
import lzma
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager

from ..errors import UnknownNameError, UsageError
from ..report.simfigures import par_figures
from ..report.text import one_in, pct, write_atomic

__all__ = [
    "ASSETS",
    "FAST_ENV",
    "TEMPLATES",
    "CrossCheck",
    "Rendered",
    "Table",
    "asset",
    "cross_check",
    "execute",
    "feature_tables",
    "kernel_env",
    "network_references",
    "notebook_sources",
    "online_only_widgets",
    "paytable_table",
    "read_notebook",
    "readings_table",
    "render_all",
    "render_notebook",
    "summary_table",
    "to_html",
    "update_assets",
    "uses_math",
]

TEMPLATES = Path(__file__).with_name("templates")
ASSETS = TEMPLATES / "assets"
FAST_ENV = "MATHKIT_NOTEBOOK_FAST"
KERNEL_NAME = "mathkit-render"
#: what each vendored asset is: npm package@version and the file inside it
PACKAGES = {
    "requirejs": ("requirejs", "2.3.8", "require.js"),
    "widgets": ("@jupyter-widgets/html-manager", "1.0.15", "dist/embed-amd.js"),
    "mathjax": ("mathjax", "3.2.2", "es5/tex-svg.js"),
}
_SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)
# plotly's notebook renderer adds one of these to every figure (include_mathjax="cdn")
_CDN_MATHJAX = re.compile(r'<script src="https?://[^"]*/mathjax/[^"]*"></script>', re.IGNORECASE)
_NETWORK_REF = re.compile(r"<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)\s*=\s*[\"']?((?:https?:)?//[^\"'\s>]+)",
                          re.IGNORECASE)
_TEX = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$[^$\n]+?(?<!\\)\$|\\\(.+?\\\)|\\\[.+?\\\]|\\begin\{", re.DOTALL)


# --------------------------------------------------------------------------- vendored assets
def _manifest() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads((ASSETS / "manifest.json").read_text(encoding="utf-8"))
    return data


@cache
def asset(name: str) -> str:
    """The vendored JavaScript file ``name`` (``requirejs``, ``widgets``, ``mathjax``), ready to inline.

    The file is decompressed, checked against its sha256, stripped of its
    ``sourceMappingURL`` comment, and ``</script`` is escaped.

    Examples
    --------
    >>> "requirejs" in asset("requirejs")
    True
    """
    entries = _manifest()
    if name not in entries:
        msg = f"no vendored asset {name!r}; have {sorted(entries)}"
        raise UnknownNameError(msg)
    entry = entries[name]
    path = ASSETS / entry["file"]
    try:
        raw = lzma.decompress(path.read_bytes())
    except FileNotFoundError:
        msg = f"{path} is missing; run `mathkit render --update-assets` (needs npm)"
        raise FileNotFoundError(msg) from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != entry["sha256"]:
        msg = f"{path}: sha256 {digest} differs from manifest.json ({entry['sha256']}); run --update-assets"
        raise UsageError(msg)
    text = _SOURCE_MAP.sub("", raw.decode("utf-8"))
    return text.replace("</script", "<\\/script")


def update_assets(folder: Path = ASSETS) -> dict[str, dict[str, Any]]:
    """Fetch the assets of :data:`PACKAGES` with ``npm pack`` and write them xz-compressed with a manifest."""
    manifest: dict[str, dict[str, Any]] = {}
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (package, version, inner) in PACKAGES.items():
            out = subprocess.run(["npm", "pack", "--json", f"{package}@{version}"], cwd=tmp, check=True,
                                 capture_output=True, text=True)
            info = json.loads(out.stdout)[0]
            raw = _member(Path(tmp) / info["filename"], f"package/{inner}")
            if raw is None:
                msg = f"{package}@{version} has no file {inner}"
                raise FileNotFoundError(msg)
            file = f"{Path(inner).name}.xz"
            write_atomic(folder / file, lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)).chmod(0o644)
            licence = _member(Path(tmp) / info["filename"], "package/LICENSE")
            if licence is not None:
                write_atomic(folder / f"LICENSE.{name}.txt", licence).chmod(0o644)
            manifest[name] = {"package": package, "version": version, "path": inner, "file": file,
                              "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
                              "license": _licence_name(Path(tmp) / info["filename"]),
                              "npm_integrity": info["integrity"]}
    write_atomic(folder / "manifest.json", json.dumps(manifest, indent=2) + "\n").chmod(0o644)
    asset.cache_clear()
    return manifest


def _member(tarball: Path, name: str) -> bytes | None:
    with tarfile.open(tarball) as tar:
        try:
            member = tar.extractfile(name)
        except KeyError:
            return None
        return None if member is None else member.read()


def _licence_name(tarball: Path) -> str:
    meta = json.loads(_member(tarball, "package/package.json") or b"{}")
    return str(meta.get("license", "unknown"))


# --------------------------------------------------------------------------- execution
class _ThisInterpreter(KernelSpecManager):
    """Kernel specs that always run ``sys.executable`` (never a stale user-level ``python3`` spec)."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                          display_name=f"Python {sys.version_info.major}.{sys.version_info.minor} (mathkit)",
                          language="python", resource_dir=str(TEMPLATES), metadata={"supported_encryption": ["curve"]})


def kernel_env(*, fast: bool = False) -> dict[str, str]:
    """The kernel's environment: ours, plotly's ``notebook`` renderer, an absolute ``PYTHONPATH`` that finds mathkit.

    The kernel runs in the notebook's folder, so relative ``PYTHONPATH`` entries
    are made absolute and the folder holding this ``mathkit`` package is added.
    """
    env = dict(os.environ)
    env["PLOTLY_RENDERER"] = "notebook"
    env["MATHKIT_RENDER"] = "1"  # notebooks may add static copies of live widgets
    paths = [str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, *(p for p in paths if p != root)])
    if fast:
        env[FAST_ENV] = "1"
    else:
        env.pop(FAST_ENV, None)
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    return env


def read_notebook(path: str | Path) -> Any:
    """A jupytext percent source (or an ``.ipynb``) as an nbformat notebook, titled by its first heading."""
    import jupytext

    p = Path(path)
    nb = jupytext.read(p, fmt="py:percent") if p.suffix == ".py" else jupytext.read(p)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^#\s+(.+)$", cell.source, re.MULTILINE)
            if m:
                nb.metadata["title"] = m.group(1).strip()
                break
    return nb


class _KernelManager(AsyncKernelManager):
    """A kernel manager on :class:`_ThisInterpreter`, with CurveZMQ keys where the installed versions allow them."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_spec_manager", _ThisInterpreter())
        if "transport_encryption" in AsyncKernelManager.class_trait_names() and zmq.has("curve"):
            kwargs.setdefault("transport_encryption", "auto")  # as the python3 kernelspec declares
        super().__init__(**kwargs)


def execute(nb: Any, cwd: str | Path, *, fast: bool = False, timeout: int = 600) -> Any:
    """Execute ``nb`` in place (in folder ``cwd``) and return it; raises nbclient's CellExecutionError on an error.

    The kernel runs this interpreter (whatever kernelspecs are installed) and is
    shut down when the notebook is done.
    """
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL_NAME, kernel_manager_class=_KernelManager,
                            store_widget_state=True, resources={"metadata": {"path": str(Path(cwd).resolve())}})
    client.execute(env=kernel_env(fast=fast))
    return nb


# --------------------------------------------------------------------------- export
def uses_math(nb: Any) -> bool:
    """Whether the notebook shows TeX (markdown cells, LaTeX/markdown outputs, widget state).

    Examples
    --------
    >>> import nbformat.v4 as v4
    >>> uses_math(v4.new_notebook(cells=[v4.new_markdown_cell("σ² = E[X²] − μ², costs $5")]))
    False
    >>> uses_math(v4.new_notebook(cells=[v4.new_markdown_cell(r"$(I - Q)\\,v = \\bar r$")]))
    True
    """
    texts = [c.source for c in nb.cells if c.cell_type == "markdown"]
    for cell in nb.cells:
        for out in cell.get("outputs", ()):
            data = out.get("data", {})
            texts += [str(data[k]) for k in ("text/latex", "text/markdown") if k in data]
    texts.append(json.dumps(nb.metadata.get("widgets", {})))
    return any(_TEX.search(t) for t in texts)


def _strip_cdn_mathjax(nb: Any) -> None:
    for cell in nb.cells:
        for out in cell.get("outputs", ()):
            data = out.get("data", {})
            if "text/html" in data:
                data["text/html"] = _CDN_MATHJAX.sub("", "".join(data["text/html"]))


def online_only_widgets(nb: Any) -> list[str]:
    """Widget modules in the saved state that the inlined HTML manager does not carry (it would fetch them from a CDN).

    ``@jupyter-widgets/base``, ``controls`` and ``output`` are built in; anything
    else (``anywidget``, hence plotly's ``FigureWidget``) shows only online.

    Examples
    --------
    >>> import nbformat.v4 as v4
    >>> nb = v4.new_notebook(metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {
    ...     "a": {"model_module": "@jupyter-widgets/controls", "state": {}},
    ...     "b": {"model_module": "anywidget", "state": {"_view_module": "anywidget"}}}}}})
    >>> online_only_widgets(nb)
    ['anywidget']
    """
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    modules = {m.get("model_module", "") for m in state.values()}
    modules |= {m.get("state", {}).get("_view_module") or "" for m in state.values()}
    return sorted(m for m in modules if m and not m.startswith("@jupyter-widgets/"))


def network_references(page: str) -> list[str]:
    """URLs a page would fetch from the network through ``<script src>``, ``<link href>``, ``<img src>`` or ``<iframe src>``.

    Examples
    --------
    >>> network_references('<script src="https://cdn.example/x.js"></script><link href="style.css">')
    ['https://cdn.example/x.js']
    """
    return [m.group(1) for m in _NETWORK_REF.finditer(page)]


def to_html(nb: Any, *, code: bool = True) -> str:
    """Export an executed notebook to one self-contained HTML page (the ``offline`` template).

    ``code=False`` leaves the code cells and the prompts out: the page a reviewer reads.
    """
    from nbconvert import HTMLExporter

    _strip_cdn_mathjax(nb)
    has_widgets = "application/vnd.jupyter.widget-state+json" in nb.metadata.get("widgets", {})
    resources = {"mathkit": {"requirejs": asset("requirejs"),
                             "mathjax": asset("mathjax") if uses_math(nb) else None,
                             "widgets": asset("widgets") if has_widgets else None}}
    exporter_class: Any = HTMLExporter  # nbconvert's constructors are untyped
    exporter = exporter_class(template_name="offline", extra_template_basedirs=[str(TEMPLATES)], exclude_input=not code,
                              exclude_input_prompt=not code, exclude_output_prompt=not code)
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return str(body)


@dataclass(frozen=True)
class Rendered:
    """One rendered notebook: where, how big, how long it took to execute and export."""

    source: Path
    html: Path
    html_code: Path
    title: str
    bytes: int
    execute_s: float
    export_s: float
    warnings: tuple[str, ...] = ()


def render_notebook(source: str | Path, out_dir: str | Path, *, fast: bool = False, timeout: int = 600) -> Rendered:
    """Execute one notebook source and write ``out_dir/<name>.html`` atomically.

    Also writes ``out_dir/code/<name>.html``, the same page with the code cells.
    Raises ``ValueError`` when a page would load anything from the network, or
    holds widgets the offline manager cannot draw (they would fetch their code
    from a CDN, and show as broken widgets offline).
    """
    src = Path(source)
    nb = read_notebook(src)
    t0 = time.perf_counter()
    execute(nb, src.parent, fast=fast, timeout=timeout)
    t1 = time.perf_counter()
    online = online_only_widgets(nb)
    if online:
        msg = (f"{src}: widgets from {', '.join(map(repr, online))} are not in the offline HTML manager and would "
               f"be broken offline (for a report, display a plain go.Figure instead of a FigureWidget)")
        raise UsageError(msg)
    pages = {code: to_html(nb, code=code) for code in (False, True)}
    for page in pages.values():
        refs = network_references(page)
        if refs:
            msg = f"{src}: the rendered page would load {len(refs)} URL(s) from the network, e.g. {refs[0]}"
            raise UsageError(msg)
    target = write_atomic(Path(out_dir) / f"{src.stem}.html", pages[False])
    with_code = write_atomic(Path(out_dir) / "code" / f"{src.stem}.html", pages[True])
    for t in (target, with_code):
        t.chmod(0o644)  # readable by a web server
    t2 = time.perf_counter()
    title = str(nb.metadata.get("title", src.stem))
    return Rendered(src, target, with_code, title, len(pages[False].encode("utf-8")), t1 - t0, t2 - t1)


def notebook_sources(folder: str | Path) -> list[Path]:
    """The jupytext percent sources in ``folder`` (``*.py`` with a ``# %%`` cell marker), sorted."""
    out = []
    for p in sorted(Path(folder).glob("*.py")):
        text = p.read_text(encoding="utf-8")
        if any(line.startswith("# %%") for line in text.splitlines()):
            out.append(p)
    return out


def _index(rendered: Sequence[Rendered]) -> str:
    items = "\n".join(f'<li><a href="{html.escape(r.html.name)}">{html.escape(r.title)}</a> '
                      f'<small>(<a href="code/{html.escape(r.html_code.name)}">with the code</a>; '
                      f"{r.source.name}, {r.bytes / 1e6:.1f} MB)</small></li>" for r in rendered)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mathkit notebooks</title>"
            "<style>body{font-family:sans-serif;max-width:48em;margin:2em auto}li{margin:.4em 0}</style></head>\n"
            f"<body><h1>mathkit notebooks</h1>\n<ul>\n{items}\n</ul>\n"
            "<p>Rendered by <code>make render</code>; every page reads offline. The pages show the outputs only; "
            "each has a version with the code.</p></body></html>\n")


def render_all(sources: str | Path, out_dir: str | Path, *, fast: bool = False, timeout: int = 600,
               only: Sequence[str] = (), log: Any = None) -> list[Rendered]:
    """Render every notebook source in ``sources`` (or those named in ``only``) and write ``out_dir/index.html``."""
    paths = notebook_sources(sources)
    if only:
        missing = sorted(set(only) - {p.stem for p in paths})
        if missing:
            msg = f"no notebook source {', '.join(missing)} in {sources}; have {', '.join(p.stem for p in paths)}"
            raise FileNotFoundError(msg)
        paths = [p for p in paths if p.stem in only]
    done = []
    for p in paths:
        r = render_notebook(p, out_dir, fast=fast, timeout=timeout)
        if log is not None:
            print(f"{r.html}  {r.bytes / 1e6:5.1f} MB  executed in {r.execute_s:5.1f} s, exported in {r.export_s:4.1f} s",
                  file=log)
            for w in r.warnings:
                print(f"warning: {w}", file=log)
        done.append(r)
    if not only:
        write_atomic(Path(out_dir) / "index.html", _index(done)).chmod(0o644)
    return done


# --------------------------------------------------------------------------- tables for notebooks
@dataclass(frozen=True)
class Table:
    """Rows shown as an HTML table in a notebook (``_repr_html_``) and as aligned text by ``str``.

    Examples
    --------
    >>> print(Table(("figure", "value"), (("RTP", "95.00%"), ("σ", "6.10"))))
    figure   value
    RTP     95.00%
    σ         6.10
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    notes: tuple[str, ...] = ()

    def _numeric(self, j: int) -> bool:
        cells = [r[j] for r in self.rows if j < len(r) and r[j] not in ("", "—")]
        return bool(cells) and all(_NUMBER.match(c) for c in cells)

    def _repr_html_(self) -> str:
        right = [self._numeric(j) for j in range(len(self.header))]

        def cell(tag: str, text: str, j: int) -> str:
            style = ' style="text-align:right"' if j < len(right) and right[j] else ' style="text-align:left"'
            return f"<{tag}{style}>{html.escape(text)}</{tag}>"

        head = "".join(cell("th", h, j) for j, h in enumerate(self.header))
        body = "\n".join("<tr>" + "".join(cell("td", c, j) for j, c in enumerate(r)) + "</tr>" for r in self.rows)
        cap = f"<caption style=\"caption-side:top;text-align:left\"><b>{html.escape(self.caption)}</b></caption>" \
            if self.caption else ""
        notes = "".join(f"<p style=\"font-size:90%;margin:.2em 0\">{html.escape(n)}</p>" for n in self.notes)
        return f'<table class="mathkit-table">{cap}<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>{notes}'

    def __str__(self) -> str:
        cols = list(zip(*([self.header, *self.rows]), strict=False))
        widths = [max(len(c) for c in col) for col in cols]
        right = [self._numeric(j) for j in range(len(widths))]
        lines = [self.caption] if self.caption else []
        for r in (self.header, *self.rows):
            lines.append("  ".join(c.rjust(w) if right[j] else c.ljust(w) for j, (c, w) in enumerate(zip(r, widths,
                                                                                                         strict=False))).rstrip())
        return "\n".join([*lines, *self.notes])


_NUMBER = re.compile(r"^[-+−]?[\d,]*\.?\d+(e[-+]?\d+)?\s*(%|× bet|pp)?$|^1 in [\d,.]+$|^never$")


def summary_table(par: Any) -> Table:
    """The key figures of a :class:`~mathkit.report.par.ParSheet`: RTP and its parts, σ, hit frequencies, tails, the
    base spin's own RTP, σ and hit frequency (a game with features), cycle."""
    rows: list[tuple[str, str, str]] = []
    for name, f in par.components.items():
        rows.append((f"RTP: {name}", pct(f.value, 6), f.method))
    exact = par.rtp.exact_str()
    rows.append(("RTP", pct(par.rtp.value, 6), par.rtp.method + (f" = {exact}" if exact and len(exact) < 40 else "")))
    if par.declared_rtp is not None:
        rows.append(("RTP declared in the game file", pct(float(par.declared_rtp), 6), "data"))
    rows.append(("hit frequency (any win)", pct(par.hit_frequency.value), par.hit_frequency.method))
    rows.append(("hit frequency (win ≥ bet)", pct(par.hit_frequency_bet.value), par.hit_frequency_bet.method))
    rows.append(("σ per total bet", f"{par.sd.value:.4f}", par.sd.method))
    rows += [(f"volatility index {k}", f"{f.value:.4f}", f.method) for k, f in par.volatility_index.items()]
    rows.append(("max win (× bet)", f"{par.max_win.value:,.2f}", par.max_win.method))
    rows.append(("max win odds", one_in(par.max_win_probability.value), par.max_win_probability.method))
    rows += [(f"P(win ≥ {m}× bet)", f"{f.value:.6g}", f.method) for m, f in par.tails.items()]
    b = getattr(par, "base_spin", None)
    if b is not None and par.game.features:  # the base spin's own figures beside the whole play's
        rows.append(("base spin alone: RTP", pct(b.rtp.value, 6), b.rtp.method))
        if b.sd is not None:
            rows.append(("base spin alone: σ per total bet", f"{b.sd.value:.4f}", b.sd.method))
        if b.hit_frequency is not None:
            rows.append(("base spin alone: hit frequency", pct(b.hit_frequency.value), b.hit_frequency.method))
    rows.append(("cycle (stop combinations)", f"{par.cycle:,}", "exact"))
    lost = par.distribution.lost_mass
    if lost:
        rows.append(("truncated probability mass", f"{lost:.3g}", "markov"))
    caption = (f"{par.game.name}: reel set {par.reels!r}, {par.lines} lines × {par.coins} coin(s) "
               f"= {par.total_bet} credits per play")
    return Table(("figure", "value", "how obtained"), tuple(rows), caption)


def paytable_table(par: Any) -> Table:
    """The PAR sheet's pay combinations: pay, hits over the cycle, hits per spin, probability (per line for a line
    combination, per spin for the others), odds and RTP of each."""
    rows = tuple((e.component, f"{e.count} × {e.entry}", f"{e.pay:,}", f"{e.hits:,}", f"{e.hits_per_spin.value:.6g}",
                  f"{e.probability.value:.6g} per {e.per}", one_in(e.probability.value), pct(e.rtp.value))
                 for e in par.entries)
    return Table(("component", "combination", "pay (credits)", "hits in the cycle", "hits per spin", "probability",
                  "odds", "RTP"), rows, "Paytable (exact over the cycle)")


def feature_tables(par: Any) -> list[Table]:
    """One table per feature section of a PAR sheet (free spins, gamble …), then the section's own table."""
    out = []
    for sec in par.features:
        rows = tuple((k, f"{f.value:.6g}", f.method + (f" = {f.exact_str()}" if f.exact is not None
                                                        and len(f.exact_str() or "") < 30 else ""))
                     for k, f in sec.figures)
        out.append(Table(("figure", "value", "how obtained"), rows, sec.name))
        if sec.table:
            out.append(Table(tuple(sec.table[0]), tuple(tuple(r) for r in sec.table[1:]), f"{sec.name}: table",
                             tuple(sec.notes)))
        elif sec.notes:
            out.append(Table(("note",), tuple((n,) for n in sec.notes), f"{sec.name}: notes"))
    return out


def readings_table(game: Any) -> Table:
    """The rule readings a game file records: the rule, the reading chosen, why."""
    rows = tuple((r.rule, r.reading, r.reason) for r in game.readings)
    return Table(("rule", "reading", "reason"), rows or (("—", "the rules leave nothing to read", "—"),),
                 f"{game.name}: rule readings")


@dataclass(frozen=True)
class CrossCheck:
    """Exact figures against a simulation: per figure, the simulated value and its ``z·σ/√N`` tolerance.

    Build one with :func:`cross_check`; it shows as a table in a notebook.
    """

    checks: dict[str, dict[str, float | bool]]
    spins: int
    seconds: float
    level: float = 0.99

    @property
    def agrees(self) -> bool:
        """Every exact figure lies within its interval."""
        return all(bool(c["agrees"]) for c in self.checks.values())

    @property
    def verdict(self) -> str:
        """One clause for a conclusion."""
        level = f"{self.level:.0%}"
        out = [_label(k) for k, c in self.checks.items() if not c["agrees"]]
        if not out:
            return f"all {len(self.checks)} figures checked lie within their {level} intervals"
        return f"{len(out)} of {len(self.checks)} figures lie outside their {level} intervals ({', '.join(out)})"

    def table(self) -> Table:
        rows = tuple((_label(name), pct(float(c["exact"])), pct(float(c["sim"])), f"± {pct(float(c['tolerance']))}",
                      "yes" if c["agrees"] else "NO") for name, c in self.checks.items())
        return Table(("figure", "exact", "simulated", f"{self.level:.0%} tolerance", "within"), rows,
                     f"Cross-check: {self.spins:,} simulated plays ({self.seconds:.1f} s)", (self.verdict + ".",))

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __str__(self) -> str:
        return str(self.table())


_CHECK_LABELS = {"rtp": "RTP", "hit_frequency": "hit frequency (any win)", "hit_frequency_bet": "hit frequency (win ≥ bet)",
                 "trigger_probability": "free-spin trigger probability"}


def _label(name: str) -> str:
    return _CHECK_LABELS.get(name, f"RTP: {name}")


def cross_check(sim: Any, par: Any, level: float = 0.99) -> CrossCheck:
    """Compare a :class:`~mathkit.sim.SimResult` with the exact figures of a PAR sheet of the same game and bet.

    Checked: the RTP (tolerance from the exact σ), each RTP component the
    simulation reports, the hit frequencies and, with sequence features, the
    probability that a base spin starts one (any of them); each at ``level``
    (two-sided ``z·σ/√N``).
    """
    sim_figures = sim.figures()
    figures = par_figures(par, tuple(getattr(sim, "features", ())))
    order = ("rtp", *par.components, "hit_frequency", "hit_frequency_bet", "trigger_probability")
    exact = {name: figures[name] for name in order if name in figures and name in sim_figures}
    checks = sim.checks(exact, sd=par.sd.value, level=level)
    return CrossCheck(checks, int(sim.spins), float(sim.seconds), level)
