"""Prepare ``make lab``: notebooks from their jupytext sources, JupyterLab settings, a kernel.

``python -m mathkit.dev.labsetup [--quiet] [--force] [--notebooks DIR]``

1. Every ``notebooks/*.py`` in jupytext percent format gets its ``.ipynb`` (the
   notebooks are reviewed as ``.py``; the ``.ipynb`` are generated and git-ignored),
   when the ``.ipynb`` is missing or older than its source.
2. JupyterLab default settings that avoid dialogs on a fresh machine (start the
   notebook's kernel without asking, no news or update checks) are written as an
   ``overrides.d`` file in this environment's JupyterLab settings folder
   (``<sys.prefix>/share/jupyter/lab/settings/overrides.d/mathkit.json``), so they
   apply to ``jupyter lab`` from this environment only and a user's own settings
   still win.
3. The environment has a ``python3`` kernelspec (ipykernel installs one; written
   here if missing) running this interpreter.

Only the standard library is imported, and jupytext only when a notebook is generated.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["LAB_SETTINGS", "ensure_kernelspec", "main", "notebooks_from_sources", "write_lab_settings"]

PROJECT_ROOT = Path(__file__).resolve().parents[2]
KERNEL = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
LAB_SETTINGS: dict[str, dict[str, Any]] = {
    "@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def _is_percent_source(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.startswith("# %%") for line in text.splitlines())


def notebooks_from_sources(folder: Path, *, force: bool = False) -> list[Path]:
    """Write ``X.ipynb`` for each jupytext percent source ``X.py`` in ``folder`` that is newer (or all, ``force``).

    Returns the notebooks written.  A notebook without a kernelspec gets the
    ``python3`` one, so JupyterLab never asks which kernel to start.
    """
    written = []
    for src in sorted(folder.glob("*.py")):
        target = src.with_suffix(".ipynb")
        if not _is_percent_source(src):
            continue
        if not force and target.exists() and target.stat().st_mtime >= src.stat().st_mtime:
            continue
        import jupytext

        nb = jupytext.read(src, fmt="py:percent")
        nb.metadata.setdefault("kernelspec", dict(KERNEL))
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(jupytext.writes(nb, fmt="ipynb"), encoding="utf-8")
        tmp.replace(target)
        written.append(target)
    return written


def _write_json_if_changed(path: Path, data: dict[str, Any]) -> bool:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


def write_lab_settings(prefix: str | Path = sys.prefix) -> tuple[Path, bool]:
    """Write :data:`LAB_SETTINGS` as JupyterLab setting overrides of the environment at ``prefix``.

    Returns the file and whether it changed.
    """
    path = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "mathkit.json"
    return path, _write_json_if_changed(path, LAB_SETTINGS)


def ensure_kernelspec(prefix: str | Path = sys.prefix, python: str = sys.executable) -> tuple[Path, bool]:
    """Make sure the environment has a ``python3`` kernelspec; returns its file and whether it was written."""
    path = Path(prefix) / "share" / "jupyter" / "kernels" / "python3" / "kernel.json"
    if path.exists():
        return path, False
    spec = {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": KERNEL["display_name"], "language": "python", "metadata": {"debugger": True}}
    return path, _write_json_if_changed(path, spec)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mathkit.dev.labsetup", description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="print nothing unless something fails")
    parser.add_argument("--force", action="store_true", help="regenerate every notebook")
    parser.add_argument("--notebooks", type=Path, default=PROJECT_ROOT / "notebooks", help="the notebooks folder")
    args = parser.parse_args(argv)

    def say(msg: str) -> None:
        if not args.quiet:
            print(msg)

    for nb in notebooks_from_sources(args.notebooks, force=args.force):
        say(f"notebook: wrote {nb}")
    path, changed = write_lab_settings()
    say(f"lab settings: {'wrote' if changed else 'up to date'} {path}")
    spec, written = ensure_kernelspec()
    say(f"kernel: {'wrote' if written else 'found'} {spec}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
