"""A ``go.FigureWidget`` whose browser side is ready within anywidget's deadline, so it never drops updates.

The defect this fixes (issue 16): on some page loads the plot stayed as first drawn while
the labels followed every edit.  plotly ≥ 6's ``FigureWidget`` is an anywidget whose ES
module is plotly's whole widget bundle (≈5 MB, plotly.js inside).  anywidget's model
(``AnyModel``, 0.9–0.11) gives the module 2 s from the model's creation to load and run
its ``initialize``; past that its ``ready`` promise is rejected for good, and every later
comm message to the model (``_handle_comm_msg`` awaits ``ready`` first) is dropped in the
browser.  The view is still drawn from the initial state, so the page looks right until
the first in-place update, which never arrives.  Compiling and running plotly's bundle
takes 1–10 s in headless chromium on a loaded machine (measured on our page loads), hence
"intermittent".

:class:`LiveFigure` sends a small module instead: it carries plotly's bundle as a string
and imports it (once per page, shared by every figure) only after ``initialize`` has
returned, so ``ready`` resolves in milliseconds.  Updates that arrive before plotly is
loaded are kept in order and replayed through plotly's own handlers once it is, so the
browser's copy of the figure stays the kernel's.  Views wait for plotly and then draw the
figure as it is by then.  A page so busy that even this small step misses the deadline
(seen once in ten loads at load average 12 on 2 cores) would still drop every message,
so once ``initialize`` has run, the model's comm messages go straight to ipywidgets'
handler (anywidget only holds them until then).  Messages that reach such a page before
``initialize`` has run are still lost, so what a view needs from the start travels in the
first state: the view's CSS classes (``classes``), the figure (``FigureSet.sync_state``).
The Python side is plotly's.

Examples
--------
>>> fig = LiveFigure()
>>> "FigureModel" in fig._esm and "initialize" in fig._esm and fig._esm != str(go.FigureWidget._esm)
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

import plotly.graph_objects as go

__all__ = ["UPDATE_TRAITS", "LiveFigure", "module_source", "wrap_module"]

#: plotly's kernel → browser messages, each a trait set to the message and back to ``None``
UPDATE_TRAITS = ("_py2js_addTraces", "_py2js_deleteTraces", "_py2js_moveTraces", "_py2js_restyle",
                 "_py2js_relayout", "_py2js_update", "_py2js_animate", "_py2js_removeLayoutProps",
                 "_py2js_removeTraceProps")

_MODULE = """// mathkit: plotly's FigureWidget, loaded after anywidget's initialize (see mathkit/workbench/livefigure.py)
const SOURCE = __SOURCE__;
const KEY = "__mathkit_plotly___KEY__";
const UPDATES = __UPDATES__;
function plotly() {  // plotly's widget module, evaluated once per page
  if (!globalThis[KEY]) {
    const url = URL.createObjectURL(new Blob([SOURCE], {type: "text/javascript"}));
    globalThis[KEY] = import(url).finally(() => URL.revokeObjectURL(url));
  }
  return globalThis[KEY];
}
async function direct(model) {
  // anywidget's model holds each comm message until its module's initialize has finished, but past its 2 s
  // deadline it drops them all, for good.  Once this initialize runs, nothing needs holding: the real model
  // (found by its state object among the manager's) takes its messages straight to ipywidgets' handler.
  const manager = model.widget_manager, layout = model.get("_widget_layout");
  const models = await Promise.all(Object.values((manager && manager._models) || {}).map((p) => p.catch(() => null)));
  for (const real of models) {
    if (!real || !real.comm || real.get("_widget_layout") !== layout) continue;
    const base = Object.getPrototypeOf(Object.getPrototypeOf(real))._handle_comm_msg;
    if (typeof base === "function") real.comm.on_msg((msg) => base.call(real, msg));
    return;
  }
}
export default () => {
  let widget = null, loaded = null;
  return {
    initialize({model}) {
      const early = [];  // updates that came before plotly: replayed in order through plotly's handlers
      let recording = true;
      for (const name of UPDATES) {
        model.on("change:" + name, () => {
          const value = model.get(name);
          if (recording && value !== null) early.push([name, value]);
        });
      }
      loaded = (async () => {
        const w = (await plotly()).default();
        const pending = w.initialize({model});  // plotly's model handlers are on when this returns
        recording = false;
        for (const [name, value] of early.splice(0)) { model.set(name, value); model.set(name, null); }
        await pending;
        widget = w;
      })();
      loaded.catch((e) => console.error("[mathkit] plotly's widget failed to load", e));
      direct(model).catch((e) => console.error("[mathkit] could not route the figure's messages", e));
    },
    async render({model, el}) {
      await loaded;
      return widget.render({model, el});
    },
  };
};
"""


def wrap_module(bundle: str) -> str:
    """An anywidget ES module that imports ``bundle`` (an anywidget module) only after ``initialize`` has returned.

    ``bundle`` is carried as a string; pages share one evaluation of it per distinct bundle.

    Examples
    --------
    >>> src = wrap_module("export default () => ({});")
    >>> src.count("export default"), '"export default () => ({});"' in src
    (2, True)
    """
    key = hashlib.sha256(bundle.encode()).hexdigest()[:16]
    head = _MODULE.replace("__KEY__", key).replace("__UPDATES__", json.dumps(list(UPDATE_TRAITS)))
    return head.replace("__SOURCE__", json.dumps(bundle))  # last: the bundle's own text is left as it is


@cache
def module_source() -> str:
    """The ES module :class:`LiveFigure` sends: plotly's own widget bundle, wrapped by :func:`wrap_module`."""
    return wrap_module(str(go.FigureWidget._esm))  # anywidget reads plotly's bundle file


class LiveFigure(go.FigureWidget):  # type: ignore[misc]
    """``go.FigureWidget`` with :func:`module_source` as its browser module (same Python API).

    ``classes`` are the view's CSS classes, part of the state the browser's model is made
    from: ``add_class`` after construction is a comm message, and one that reaches a page
    before this module's ``initialize`` has run is dropped with the rest when anywidget's
    deadline is missed (seen in CI on a fresh JupyterLab's first page: the figure was drawn
    without its class).

    Examples
    --------
    >>> LiveFigure(classes=("mk-figures",))._dom_classes
    ('mk-figures',)
    """

    def __init__(self, *args: Any, classes: Sequence[str] = (), **kwargs: Any) -> None:
        type(self)._esm = module_source()  # read by anywidget's __init__ (a class attribute)
        self._dom_classes = tuple(classes)  # before the comm opens: in its first message
        super().__init__(*args, **kwargs)
