"""Compile the serial kernels ahead of time into one extension module (see :mod:`mathkit.exact.cycle.kernels`).

:func:`build` exports every kernel of :data:`~mathkit.exact.cycle.kernels.KERNELS` that
numba has already compiled in this process, with the argument types it was
called with, through ``numba.pycc``; so run the kernels first on small inputs of
every kind (:func:`mathkit.dev.warmup.warm` does).  It writes
``mathkit/exact/cycle/_aot.<platform>.so`` and ``_aot.json`` (the source key and each
kernel's argument types, which the loader converts arguments to), both
atomically.  Needs numba and a C compiler; only the build does.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ...errors import ArgumentTypeError, UsageError
from .kernels import AOT_META, HERE, KERNELS, K, aot_key

__all__ = ["build", "spec_of"]


def spec_of(t: Any) -> list[Any]:
    """A JSON description of numba type ``t`` (what the loader converts an argument to)."""
    from numba import types
    from numba.np.numpy_support import as_dtype

    if isinstance(t, types.Array):
        return ["array", as_dtype(t.dtype).str, t.ndim, t.layout]
    if isinstance(t, types.Boolean):
        return ["bool"]
    if isinstance(t, types.Integer):
        return ["int"]
    if isinstance(t, types.Float):
        return ["float"]
    parts: Any = getattr(t, "types", ())
    if isinstance(t, types.NamedTuple):
        cls = t.instance_class
        return ["namedtuple", f"{cls.__module__}:{cls.__qualname__}", [spec_of(x) for x in parts]]
    if isinstance(t, types.BaseTuple):
        return ["tuple", [spec_of(x) for x in parts]]
    msg = f"no ahead-of-time argument conversion for numba type {t}"
    raise ArgumentTypeError(msg)


def _signature(name: str) -> Any | None:
    """The signature kernel ``name`` was compiled with in this process (the first, if several)."""
    disp: Any = K.jit(name)
    sigs = list(getattr(disp, "signatures", ()))
    if not sigs:
        return None
    return disp.overloads[sigs[0]].signature


def build(out_dir: Path = HERE, *, verbose: bool = False) -> list[str]:
    """Compile every kernel numba has compiled in this process; returns the kernels exported."""
    pycc: Any = importlib.import_module("numba.pycc")
    exported: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cc = pycc.CC("_aot")
        cc.output_dir = tmp
        cc.verbose = verbose
        cc.target_cpu = "host"  # built where it runs
        for name, (_module, _attr, parallel) in KERNELS.items():
            if parallel:
                continue
            sig = _signature(name)
            if sig is None:
                continue
            exported[name] = [spec_of(a) for a in sig.args]
            disp: Any = K.jit(name)
            cc.export(name, sig)(disp.py_func)
        if not exported:
            msg = "no kernel has been compiled in this process: run them first (mathkit.dev.warmup)"
            raise UsageError(msg)
        cc.compile()
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        built = Path(tmp) / f"_aot{suffix}"
        target = out_dir / built.name
        for old in out_dir.glob("_aot.*.so"):
            if old != target:
                old.unlink()
        shutil.copyfile(built, tmp_target := target.with_name(f".{target.name}.tmp"))
        os.replace(tmp_target, target)
    meta = out_dir / AOT_META.name
    tmp_meta = meta.with_name(f".{meta.name}.tmp")
    tmp_meta.write_text(json.dumps({"key": aot_key(), "kernels": exported}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp_meta, meta)
    return sorted(exported)
